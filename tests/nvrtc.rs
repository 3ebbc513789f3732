//! Tier 2: NVRTC compiles every kernel's CUDA C for sm_80 and sm_90 with no warnings, and its
//! error messages point at the Rust source through `#line`.
//!
//! Skipped, saying why, when NVRTC cannot be loaded; CI sets `CUPHASE_REQUIRE_NVRTC=1` so that
//! a missing NVRTC fails there instead.

use crate::kernels;
use cuphase::cuda::{compile_cuda, nvrtc_available, nvrtc_version, Arch};

fn nvrtc_or_skip(test: &str) -> bool {
    if nvrtc_available() {
        return true;
    }
    if std::env::var("CUPHASE_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
        panic!("{test}: CUPHASE_REQUIRE_NVRTC=1 but NVRTC cannot be loaded (is its lib directory on LD_LIBRARY_PATH?)");
    }
    skip!("{test}: skipped: NVRTC is not available (install nvidia-cuda-nvrtc and put its lib directory on LD_LIBRARY_PATH)");
    false
}

#[test]
fn every_kernel_compiles_for_sm80_and_sm90_without_warnings() {
    if !nvrtc_or_skip("every_kernel_compiles_for_sm80_and_sm90_without_warnings") {
        return;
    }
    let version = nvrtc_version().expect("NVRTC version");
    let mut compiled = 0;
    for (name, source) in kernels::all_sources()
        .into_iter()
        .chain(crate::edges::sources())
        .chain(crate::methods::sources())
        .chain(crate::math::sources())
        .chain(crate::structs::sources())
        .chain(crate::array_fields::sources())
        .chain(crate::vectors::sources())
        .chain(crate::specialize::sources())
        .chain(crate::options::sources())
        .chain(crate::arrays::sources())
        .chain(crate::prints::sources())
        .chain(crate::blocks::sources())
        .chain(crate::exhaustion::sources())
        .chain(crate::multi::sources())
    {
        for arch in [Arch { major: 8, minor: 0 }, Arch { major: 9, minor: 0 }] {
            let module = compile_cuda(source, "tests/kernels.rs", name, arch, false)
                .unwrap_or_else(|e| panic!("{name} for sm_{}: {e}\n{source}", arch.number()));
            assert!(
                !module.is_ptx,
                "NVRTC {version:?} should produce a CUBIN for sm_{}",
                arch.number()
            );
            assert!(
                module.log.is_empty(),
                "{name} for sm_{}: NVRTC warned:\n{}\n{source}",
                arch.number(),
                module.log
            );
            assert!(module.image.len() > 64, "{name}: empty CUBIN");
            compiled += 1;
        }
    }
    println!(
        "NVRTC {}.{}: {compiled} kernel/architecture pairs compiled with no warnings",
        version.0, version.1
    );
    assert_eq!(
        compiled,
        2 * (kernels::all_sources().len()
            + crate::edges::sources().len()
            + crate::methods::sources().len()
            + crate::math::sources().len()
            + crate::structs::sources().len()
            + crate::array_fields::sources().len()
            + crate::vectors::sources().len()
            + crate::specialize::sources().len()
            + crate::options::sources().len()
            + crate::arrays::sources().len()
            + crate::prints::sources().len()
            + crate::blocks::sources().len()
            + crate::exhaustion::sources().len()
            + crate::multi::sources().len())
    );
}

#[test]
fn nvrtc_errors_point_at_the_rust_line() {
    if !nvrtc_or_skip("nvrtc_errors_point_at_the_rust_line") {
        return;
    }
    let source = kernels::reverse::reverse.cuda_source();
    assert!(source.contains("__syncthreads();"));
    let broken = source.replace("__syncthreads();", "__syncthreads(;");
    let err = compile_cuda(
        &broken,
        "tests/in/reverse.rs",
        "reverse",
        Arch { major: 9, minor: 0 },
        false,
    )
    .unwrap_err();
    let line = include_str!("in/reverse.rs")
        .lines()
        .position(|l| l.contains("sync_block_threads()"))
        .unwrap()
        + 1;
    let text = err.to_string();
    assert!(
        text.contains(&format!("reverse.rs({line})")),
        "the error should name the Rust line {line}:\n{text}"
    );
}

#[test]
fn fast_math_is_passed_to_nvrtc() {
    if !nvrtc_or_skip("fast_math_is_passed_to_nvrtc") {
        return;
    }
    let src = kernels::reverse::reverse.cuda_source();
    let precise = compile_cuda(src, "r.rs", "reverse", Arch { major: 9, minor: 0 }, false).unwrap();
    let fast = compile_cuda(src, "r.rs", "reverse", Arch { major: 9, minor: 0 }, true).unwrap();
    assert!(
        precise.options.iter().any(|o| o == "--fmad=false"),
        "{:?}",
        precise.options
    );
    assert!(
        fast.options.iter().any(|o| o == "--use_fast_math"),
        "{:?}",
        fast.options
    );
}
