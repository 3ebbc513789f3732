//! Runtime paths (issue 5): errors instead of panics when CUDA or NVRTC is missing or broken,
//! the disk cache, NVRTC errors at the Rust line, `#line` escaping, `CUPHASE_DUMP_DIR`.
//! Some tests run the test binary itself as a child process with another environment (a stub
//! library on the library path, a cache directory shared by several processes).

use crate::kernels;
use cuphase::cuda::{cache, compile_cached_in, compile_cuda, nvrtc_available, Arch, CacheOutcome};
use cuphase::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SM90: Arch = Arch { major: 9, minor: 0 };

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuphase-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs one test of this binary in a child process with extra environment.
fn child(test: &str, envs: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn nvrtc_or_skip(test: &str) -> bool {
    if nvrtc_available() {
        return true;
    }
    assert!(
        std::env::var("CUPHASE_REQUIRE_NVRTC").map_or(true, |v| v != "1"),
        "{test}: CUPHASE_REQUIRE_NVRTC=1 but NVRTC cannot be loaded"
    );
    skip!("{test}: skipped: NVRTC is not available");
    false
}

/// Compiles a shared library with no CUDA symbols at `dir/<name>`, or says why not.
fn stub_library(dir: &Path, name: &str) -> Option<PathBuf> {
    let src = dir.join("stub.c");
    std::fs::write(&src, "int cuphase_stub_marker(void) { return 42; }\n").ok()?;
    let out = dir.join(name);
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .ok()?;
    status.success().then_some(out)
}

#[test]
fn cuda_without_a_usable_driver_is_an_err_that_says_how_to_fix_it() {
    match Device::cuda(0) {
        Ok(d) => {
            println!(
                "cuda_without_a_usable_driver: a GPU is present ({}), checking a bad ordinal only",
                d.name()
            );
            let e = Device::cuda(1000).unwrap_err();
            assert!(
                matches!(e, Error::NoSuchDevice { ordinal: 1000, .. }),
                "{e}"
            );
        }
        Err(e) => {
            let text = e.to_string();
            assert!(matches!(e, Error::CudaUnavailable { .. }), "{text}");
            assert!(
                text.contains("Device::cpu()") || text.contains("driver"),
                "{text}"
            );
        }
    }
    // The default device always exists: the simulator stands in.
    assert!(Device::default().is_ok());
}

/// Probes CUDA and NVRTC; in a child with a stub library it prints what it found.
#[test]
fn probe_libraries() {
    let cuda = Device::cuda(0).map(|d| d.name());
    let nvrtc = compile_cuda(
        "extern \"C\" __global__ void k() {}",
        "probe.cu",
        "k",
        SM90,
        false,
    )
    .map(|_| ());
    if std::env::var_os("CUPHASE_TEST_PROBE").is_some() {
        println!(
            "probe cuda: {:?}",
            cuda.as_ref().err().map(|e| e.to_string())
        );
        println!(
            "probe nvrtc: {:?}",
            nvrtc.as_ref().err().map(|e| e.to_string())
        );
    }
    // Whatever is installed, these are results, never panics.
    let _ = (cuda.is_ok(), nvrtc.is_ok());
}

#[test]
fn libraries_without_their_symbols_are_errs_not_panics() {
    let dir = temp_dir("stub-libs");
    let (Some(_), Some(_)) = (
        stub_library(&dir, "libcuda.so"),
        stub_library(&dir, "libnvrtc.so"),
    ) else {
        skip!("libraries_without_their_symbols: skipped: no C compiler (cc) to build the stub libraries");
        return;
    };
    let out = child(
        "runtime::probe_libraries",
        &[("LD_LIBRARY_PATH", &dir), ("CUPHASE_TEST_PROBE", &dir)],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("probe cuda: Some(\"CUDA is not available"),
        "{stdout}"
    );
    assert!(
        stdout.contains("probe nvrtc: Some(\"NVRTC is not available"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_libraries_are_errs_not_panics() {
    let dir = temp_dir("no-libs");
    let out = child(
        "runtime::probe_libraries",
        &[("LD_LIBRARY_PATH", &dir), ("CUPHASE_TEST_PROBE", &dir)],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // Installed system-wide (the driver on a GPU machine, maybe NVRTC), a library is found
    // anyway; otherwise the probe must report it missing, without a panic.
    if stdout.contains("probe nvrtc: None") {
        println!("missing_libraries_are_errs_not_panics: NVRTC is installed system-wide here; only checked that nothing panicked");
    } else {
        assert!(
            stdout.contains("probe nvrtc: Some(\"NVRTC is not available"),
            "{stdout}"
        );
    }
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cache_hits_after_a_miss_and_recompiles_bad_entries() {
    if !nvrtc_or_skip("the_cache_hits_after_a_miss") {
        return;
    }
    let dir = temp_dir("cache");
    let src = kernels::reverse::reverse.cuda_source();
    let run = || {
        compile_cached_in(
            Some(&dir),
            src,
            "tests/in/reverse.rs",
            "reverse",
            SM90,
            false,
        )
        .unwrap()
    };
    let (first, o) = run();
    assert_eq!(o, CacheOutcome::Miss);
    let (second, o) = run();
    assert_eq!(o, CacheOutcome::Hit);
    assert_eq!(first.image, second.image);
    let entry = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"))
        .unwrap();
    let good = std::fs::read(&entry).unwrap();
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    let other = compile_cached_in(
        Some(&dir),
        kernels::block_reduce::block_reduce.cuda_source(),
        "x",
        "block_reduce",
        SM90,
        false,
    )
    .unwrap();
    assert_eq!(other.1, CacheOutcome::Miss);
    let foreign = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| *p != entry && p.extension().is_some_and(|e| e == "bin"))
        .map(|p| std::fs::read(p).unwrap())
        .unwrap();
    for (what, bytes) in [
        ("corrupt", flipped),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("foreign", foreign),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&entry, &bytes).unwrap();
        let (m, o) = run();
        assert_eq!(o, CacheOutcome::Miss, "a {what} entry must be recompiled");
        assert_eq!(m.image, first.image, "{what}");
        assert_eq!(
            run().1,
            CacheOutcome::Hit,
            "and rewritten after a {what} entry"
        );
    }
    assert_eq!(
        compile_cached_in(None, src, "r", "reverse", SM90, false)
            .unwrap()
            .1,
        CacheOutcome::Disabled
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Compiles into the directory of `CUPHASE_TEST_CACHE_DIR`, removing the entry first each
/// time, so that several processes write and read one entry at once. Alone, it does the same
/// with threads of one process.
#[test]
fn cache_writer() {
    if !nvrtc_or_skip("cache_writer") {
        return;
    }
    let src = kernels::tiled_matmul::tiled_matmul.cuda_source();
    let work = |dir: &Path| {
        for _ in 0..6 {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let _ = std::fs::remove_file(e.path());
            }
            let (m, _) =
                compile_cached_in(Some(dir), src, "m", "tiled_matmul", SM90, false).unwrap();
            assert!(m.image.len() > 64);
        }
    };
    match std::env::var_os("CUPHASE_TEST_CACHE_DIR") {
        Some(d) => work(Path::new(&d)),
        None => {
            let dir = temp_dir("cache-threads");
            std::thread::scope(|s| {
                for _ in 0..3 {
                    s.spawn(|| work(&dir));
                }
            });
            let (_, o) =
                compile_cached_in(Some(&dir), src, "m", "tiled_matmul", SM90, false).unwrap();
            assert_eq!(o, CacheOutcome::Hit);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn processes_racing_on_one_cache_never_see_half_an_entry() {
    if !nvrtc_or_skip("processes_racing_on_one_cache") {
        return;
    }
    let dir = temp_dir("cache-procs");
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut cmd = Command::new(std::env::current_exe().unwrap());
            cmd.args([
                "--exact",
                "runtime::cache_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CUPHASE_TEST_CACHE_DIR", &dir);
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success());
    }
    // Whatever interleaving happened, the entry left is whole.
    let src = kernels::tiled_matmul::tiled_matmul.cuda_source();
    let (_, o) = compile_cached_in(Some(&dir), src, "m", "tiled_matmul", SM90, false).unwrap();
    assert_eq!(o, CacheOutcome::Hit);
    assert!(
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .all(|e| !e.path().to_string_lossy().ends_with(".tmp")),
        "no temporary file is left"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cache_keys_cover_source_options_and_architecture() {
    let k = cache::key("a", &["-x".into()], 90);
    assert_ne!(k, cache::key("a", &["-x".into()], 80));
    assert_ne!(k, cache::key("a", &["-y".into()], 90));
    assert_ne!(k, cache::key("b", &["-x".into()], 90));
}

/// In a child whose NVRTC is a stub without NVRTC's functions: a kernel in the warm cache of
/// `CUPHASE_TEST_WARM` is a hit (a hit loads nothing of NVRTC), a kernel that is not there is
/// an `Err` that says NVRTC is missing.
#[test]
fn cache_hit_probe() {
    let Some(warm) = std::env::var_os("CUPHASE_TEST_WARM") else {
        skip!("cache_hit_probe: skipped: runs only as the child of a_cache_hit_needs_no_nvrtc");
        return;
    };
    let src = kernels::reverse::reverse.cuda_source();
    let hit = compile_cached_in(Some(Path::new(&warm)), src, "r", "reverse", SM90, false);
    println!("probe warm: {:?}", hit.map(|(m, o)| (o, m.image.len())));
    let cold = Path::new(&warm).join("cold");
    let miss = compile_cached_in(Some(&cold), src, "r", "reverse", SM90, false);
    println!(
        "probe cold: {:?}",
        miss.map(|(_, o)| o).map_err(|e| e.to_string())
    );
}

#[test]
fn a_cache_hit_needs_no_nvrtc() {
    if !nvrtc_or_skip("a_cache_hit_needs_no_nvrtc") {
        return;
    }
    let dir = temp_dir("hit-without-nvrtc");
    let libs = dir.join("libs");
    std::fs::create_dir_all(&libs).unwrap();
    if stub_library(&libs, "libnvrtc.so").is_none() {
        skip!("a_cache_hit_needs_no_nvrtc: skipped: no C compiler (cc) to build the stub library");
        return;
    }
    let warm = dir.join("warm");
    let src = kernels::reverse::reverse.cuda_source();
    let (m, o) = compile_cached_in(Some(&warm), src, "r", "reverse", SM90, false).unwrap();
    assert_eq!(o, CacheOutcome::Miss);
    let out = child(
        "runtime::cache_hit_probe",
        &[("LD_LIBRARY_PATH", &libs), ("CUPHASE_TEST_WARM", &warm)],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains(&format!("probe warm: Ok((Hit, {}))", m.image.len())),
        "{stdout}"
    );
    assert!(
        stdout.contains("probe cold: Err(\"NVRTC is not available"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nvrtc_errors_name_the_rust_line_and_show_the_generated_code() {
    if !nvrtc_or_skip("nvrtc_errors_name_the_rust_line") {
        return;
    }
    let source = kernels::reverse::reverse
        .cuda_source()
        .replace("__syncthreads();", "__syncthreads(;");
    let err = compile_cuda(&source, "tests/in/reverse.rs", "reverse", SM90, false).unwrap_err();
    let line = include_str!("in/reverse.rs")
        .lines()
        .position(|l| l.contains("sync_block_threads()"))
        .unwrap()
        + 1;
    match &err {
        Error::Compile(c) => {
            assert_eq!(
                c.location.as_deref(),
                Some(format!("tests/in/reverse.rs:{line}").as_str()),
                "{}",
                c.log
            );
            assert_eq!(c.generated.as_deref(), Some("__syncthreads(;"), "{}", c.log);
        }
        other => panic!("expected a compile error, got {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(&format!("at tests/in/reverse.rs:{line}"))
            && text.contains("the generated CUDA C of that line"),
        "{text}"
    );
}

#[test]
fn line_directives_escape_file_names() {
    let file = "evil\"name\n#error injected\\";
    let c = cuphase_compiler::compile_str(
        "",
        "fn k(out: &mut [u32]) { out[thread_idx().x] = 1; }",
        file,
    )
    .unwrap();
    assert!(
        c.cuda.contains("#line 1 \"evil_name_#error injected_\""),
        "{}",
        c.cuda
    );
    assert!(
        !c.cuda.lines().any(|l| l.starts_with("#error")),
        "{}",
        c.cuda
    );
    if nvrtc_or_skip("line_directives_escape_file_names") {
        compile_cuda(&c.cuda, "x.rs", "k", SM90, false).unwrap();
    }
}

/// Launches a kernel on the simulator; with `CUPHASE_DUMP_DIR` set (in a child) the dump
/// appears there.
#[test]
fn dump_writer() {
    let dev = Device::cpu().unwrap();
    let input = dev.upload(&[1.0f32; 256]).unwrap();
    let mut out = dev.zeros::<f32>(256).unwrap();
    kernels::reverse::reverse
        .launch(&dev, Launch::new(1, 256), &mut out, &input)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![1.0; 256]);
}

#[test]
fn dump_dir_gets_every_launched_kernels_cuda_and_report() {
    let dir = temp_dir("dump");
    let out = child("runtime::dump_writer", &[("CUPHASE_DUMP_DIR", &dir)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cu = std::fs::read_to_string(dir.join("reverse.cu")).unwrap();
    assert_eq!(cu, kernels::reverse::reverse.cuda_source());
    let report = std::fs::read_to_string(dir.join("reverse.report.txt")).unwrap();
    assert!(report.starts_with("kernel `reverse`"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
