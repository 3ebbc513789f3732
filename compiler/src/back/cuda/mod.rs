//! The CUDA C writer.
//!
//! Takes a checked kernel; gives the CUDA C source that the runtime hands to NVRTC, one
//! [`CudaKernel`] per variant (with or without bounds checks, and for kernels with warp
//! operations, the variant for blocks that are whole warps), with the fault sites the source
//! reports. The output is meant to be read: Rust names (made unique by the
//! [`Namer`](super::namer::Namer)), `#line` directives that map every statement back to the
//! Rust file and line, 32-bit arithmetic where the Rust is 32-bit, parentheses only where C's
//! precedence (or clarity around bit operators) needs them, and no cast that changes nothing.
//!
//! Rust's meaning is kept where C's differs: signed `+ - *` and negation wrap (through small
//! helpers in `namespace cuphase`, emitted only when used), shift amounts are masked, float to
//! integer casts saturate and map NaN to 0 (`__float2int_rz` and friends), and loop bounds are
//! evaluated once. Each variant is written in one pass over the kernel.
//!
//! The parts, each a leaf or an `impl` block on the one `Writer` (of `writer`); none imports
//! another but the leaves and the writer:
//!
//! - `syntax`: C types, literals, precedence (a leaf);
//! - `helpers`: the Rust-semantics helpers, one typed table (a leaf);
//! - `writer`: the writer's state, its lines and the `#line` directives;
//! - `stmt`: the kernel's signature, declarations and statements; `loops`: `for` headers;
//! - `expr`, `methods`: expressions;
//! - `vector_loads`: a whole element of a vector slice read in one access;
//! - `async_copy`: `cp_async` as one `cp.async`;
//! - `checks`: bounds, division, `step_by` and `clamp` checks, the fault prelude;
//! - `preludes`: the header before the kernel.

mod async_copy;
mod checked;
mod checks;
mod decls;
mod expr;
mod helpers;
mod loops;
mod methods;
mod preludes;
mod stmt;
mod syntax;
mod vector_loads;
mod wgmma;
mod writer;

pub use syntax::{c_type, escape_c_string};

use crate::ir::{visit, Kernel, Stmt, Types};

/// Why a generated fault check fires (the contract's kind, with owned text).
pub type FaultKind = cuphase_contract::FaultKind<String>;

/// A place in the generated code that can report a fault: its kind and Rust location.
pub type FaultSite = cuphase_contract::FaultSite<String>;

/// The CUDA C of one kernel variant.
#[derive(Clone, Debug)]
pub struct CudaKernel {
    /// The source for NVRTC.
    pub source: String,
    /// The fault sites, indexed by the site numbers the source reports.
    pub sites: Vec<FaultSite>,
    /// Whether the kernel takes the fault record parameters (it has fault sites).
    pub uses_record: bool,
    /// Whether the kernel prints, and so takes `cuphase_print_ids` last.
    pub prints: bool,
    /// For a kernel with const generic parameters (`const N: u32`), whose [`Self::source`]
    /// is a function template (`template <unsigned int N> .. k_body(..)`): the kernel of one
    /// instance, `extern "C" __global__ void k(..) { k_body<$0$>(..); }`, with `$i$` standing
    /// for the C literal of the `i`-th const parameter's value. The runtime appends it with
    /// the values of a launch, so every value is its own NVRTC compile (and disk-cache entry)
    /// in which `N` is a compile-time constant. Empty for other kernels.
    pub instance: String,
}

/// Writes the CUDA C of a kernel. `file` is the Rust source path used in `#line` directives;
/// with `bounds_checks`, every index is checked and an out-of-bounds one is reported through
/// the fault record (division by zero and `step_by(0)` are checked always, as Rust does).
pub fn write_kernel_checked(
    k: &Kernel,
    types: &Types,
    file: &str,
    bounds_checks: bool,
) -> CudaKernel {
    write_kernel_variant(k, types, file, bounds_checks, whole_warps_always(k))
}

/// Whether the kernel has `print!`/`println!` calls.
pub fn prints(k: &Kernel) -> bool {
    visit::any_stmt(&k.body, |s| matches!(s, Stmt::Print { .. }))
}

/// Whether the kernel uses warp operations (and so has a variant for whole-warp blocks).
pub fn uses_warp_ops(k: &Kernel) -> bool {
    visit::any_stmt(&k.body, Stmt::is_warp_collective)
}

/// Whether every launch of the kernel has blocks of whole warps: its block shape is fixed
/// (`block = (..)`, checked at launch) at a multiple of 32 threads. Its warp operations then
/// need no count of the lanes that exist, and it has no second variant for whole warps.
pub fn whole_warps_always(k: &Kernel) -> bool {
    k.options
        .block
        .is_some_and(|b| b.iter().map(|&d| u64::from(d)).product::<u64>() % 32 == 0)
}

/// Writes one variant of a kernel: with or without bounds checks, and (`full_warps`) the one
/// the runtime launches when the block is a whole number of warps.
///
/// One pass: the body is written first, so the signature knows whether to take the fault
/// record (whether the body has any fault site).
pub fn write_kernel_variant(
    k: &Kernel,
    types: &Types,
    file: &str,
    bounds_checks: bool,
    full_warps: bool,
) -> CudaKernel {
    let mut w = writer::Writer::new(k, types, file, bounds_checks, full_warps);
    w.write();
    let sites = std::mem::take(&mut w.sites);
    let uses_record = w.uses_record;
    let instance = std::mem::take(&mut w.instance);
    CudaKernel {
        source: w.finish(),
        sites,
        uses_record,
        prints: prints(k),
        instance,
    }
}

/// Writes the CUDA C of a kernel without bounds checks.
pub fn write_kernel(k: &Kernel, types: &Types, file: &str) -> String {
    write_kernel_checked(k, types, file, false).source
}

#[cfg(test)]
mod unread_tests {
    use crate::compile_str;

    /// A variable nothing reads is `const` and its plain stores are dropped, but a `/=` keeps
    /// its division check (Rust panics on a zero divisor whether or not the result is read).
    #[test]
    fn unread_variables_keep_their_checks() {
        let c = compile_str(
            "",
            "fn k(out: &mut [u32], d: u32) { let mut x = 5u32; x = d + 1; let mut y = 7u32; y /= d; let i = global_idx().x; if i < out.len() as u32 { out[i] = 1; } }",
            "k.rs",
        )
        .unwrap_or_else(|e| panic!("{:?}", e.iter().map(|d| d.full_message()).collect::<Vec<_>>()));
        let src = &c.cuda_checked.source;
        assert!(src.contains("const unsigned int x = 5u;"), "{src}");
        assert!(src.contains("(void)(d + 1u);"), "{src}");
        assert!(src.contains("cuphase::div"), "{src}");
    }
}

#[cfg(test)]
mod abs_diff_tests {
    use crate::compile_str;

    /// `abs_diff`'s result has the unsigned type of the receiver's width, as in Rust.
    #[test]
    fn abs_diff_is_unsigned() {
        let ok = "fn k(out: &mut [u16], xs: &[i16]) { let i = global_idx().x; if i < xs.len() as u32 { let d = xs[i].abs_diff(-3); out[i] = d; } }";
        let c = compile_str("", ok, "k.rs").unwrap_or_else(|e| {
            panic!(
                "{:?}",
                e.iter().map(|d| d.full_message()).collect::<Vec<_>>()
            )
        });
        assert!(
            c.cuda_checked
                .source
                .contains("(unsigned short)cuphase::abs_diff("),
            "{}",
            c.cuda_checked.source
        );
        let bad = "fn k(out: &mut [i16], xs: &[i16]) { let i = global_idx().x; if i < xs.len() as u32 { out[i] = xs[i].abs_diff(3); } }";
        let e = compile_str("", bad, "k.rs").err().unwrap_or_default();
        assert!(
            e.iter()
                .any(|d| d.full_message().contains("u16") && d.full_message().contains("i16")),
            "{:?}",
            e.iter().map(|d| d.full_message()).collect::<Vec<_>>()
        );
    }
}

#[cfg(test)]
mod codegen_tests {
    use crate::compile_str;

    /// The outermost constant loop whose unrolled body stays small gets `#pragma unroll`, and
    /// so do the constant loops inside it; a loop over a variable bound, or a long one, none; a
    /// division by a constant expression is not checked; `min_blocks_per_sm` is the second
    /// `__launch_bounds__` argument.
    #[test]
    fn constant_loops_unroll_where_it_pays() {
        let c = compile_str(
            "block = 64, min_blocks_per_sm = 4",
            "fn sums(out: &mut [f32], n: u32) {
                let t = thread_idx().x;
                let mut acc = 0.0f32;
                for k in 0..8u32 {
                    for j in 0..4u32 {
                        acc += (k * j + t / (16 / 4)) as f32;
                    }
                }
                for k in 0..n { acc += k as f32; }
                for k in 0..1000u32 { acc += k as f32; }
                out[t as usize] = acc;
            }",
            "k.rs",
        )
        .unwrap();
        let src = &c.cuda;
        assert_eq!(src.matches("#pragma unroll").count(), 2, "{src}");
        assert!(
            src.contains(
                "#pragma unroll\n#line 4 \"k.rs\"\n    for (unsigned int k = 0u; k < 8u; ++k) {"
            ),
            "{src}"
        );
        assert!(
            src.contains(
                "        #pragma unroll\n#line 5 \"k.rs\"\n        for (unsigned int j = 0u; j < 4u; ++j) {"
            ),
            "{src}"
        );
        assert!(!src.contains("cuphase::div"), "{src}");
        assert!(src.contains("__launch_bounds__(64, 4) sums("), "{src}");
    }

    /// `sync = "auto"` orders a whole row of a shared array written from a slice of arrays
    /// before another thread reads it whole: the analyses see the row's four elements.
    #[test]
    fn auto_sync_orders_whole_rows() {
        let c = compile_str(
            "block = 64, sync = \"auto\"",
            "fn rows(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
                let tile = shared::<[[f32; 4]; 64]>();
                let t = thread_idx().x;
                let i = global_idx().x as usize;
                tile[t] = input[i];
                let v = tile[63 - t];
                out[i] = v;
            }",
            "k.rs",
        )
        .unwrap();
        let src = &c.cuda;
        // The rows are records: whole-row copies are single struct assignments.
        assert!(src.contains("__shared__ f32x4 tile[64];"), "{src}");
        let store = src.find("tile[t] = input[i];").expect(src);
        let sync = src.find("__syncthreads();").expect(src);
        let load = src.find("v = tile[index];").expect(src);
        assert!(store < sync && sync < load, "{src}");
        assert!(src.contains("struct __align__(16) f32x4"), "{src}");
    }

    /// A whole element of a vector slice is one load of the element, its bounds checked once,
    /// with or without checks; an element whose lanes are read one at a time is not.
    #[test]
    fn whole_vector_elements_are_one_load() {
        let c = compile_str(
            "bounds_checks = true",
            "fn parts(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
                let i = global_idx().x;
                let up = input[i + 1];
                let mut o = [0.0f32; 4];
                if i > 0 {
                    o[0] = up[0] + input[i - 1][3];
                }
                o[3] = up[3] + input[i][2] + input[i][1];
                out[i] = o;
            }",
            "k.rs",
        )
        .unwrap();
        let plain = &c.cuda;
        // `up` is a local `[f32; 4]`, declared as the record: the element is copied whole.
        assert!(plain.contains("f32x4 up;"), "{plain}");
        assert!(plain.contains("up = input[index];"), "{plain}");
        assert!(plain.contains("o.v[3u] = up.v[3u] + "), "{plain}");
        assert!(plain.contains("out[i] = o;"), "{plain}");
        // (Two lanes of `input[i]` are not the whole element.)
        assert!(plain.contains("input[i].v[2]"), "{plain}");
        let checked = &c.cuda_checked.source;
        let load = checked
            .find("const f32x4 input_elem = input[cuphase::idx(cuphase_faults, index, input_len,")
            .expect(checked);
        let stop = checked[load..]
            .find("if (cuphase_faults.hit) return;")
            .expect(checked);
        let copy = checked[load..].find("up = input_elem;").expect(checked);
        assert!(stop < copy, "{checked}");
        // One check for the whole element, one for each lane read on its own.
        assert_eq!(checked.matches(", input_len, ").count(), 4, "{checked}");
    }

    /// `lane_id()` is `threadIdx.x & 31u` in a block declared one-dimensional, and the
    /// hardware's lane register otherwise (the linear id of a 2-D or 3-D block).
    #[test]
    fn lane_id_in_one_dimensional_blocks_is_the_low_bits_of_x() {
        let body = "fn lanes(out: &mut [u32]) {
                let i = block_idx().x * 64 + thread_idx().y * 32 + thread_idx().x;
                out[i as usize] = lane_id();
            }";
        let flat = compile_str("block = 64", body, "k.rs").unwrap().cuda;
        assert!(flat.contains("] = threadIdx.x & 31u;"), "{flat}");
        assert!(!flat.contains("lane_id()"), "{flat}");
        let tall = compile_str("block = (32, 2)", body, "k.rs").unwrap().cuda;
        assert!(tall.contains("] = cuphase::lane_id();"), "{tall}");
    }

    /// A whole thread-local array is assigned an element of a slice of arrays when it is
    /// `mut`, and the error names the variable when it is not.
    #[test]
    fn whole_local_arrays_take_elements_when_mutable() {
        let body = |m: &str| {
            format!(
                "fn set(out: &mut [[f32; 4]], input: &[[f32; 4]]) {{
                    let i = global_idx().x;
                    let {m}v = [1.0f32; 4];
                    v = input[i];
                    out[i] = v;
                }}"
            )
        };
        let ok = compile_str("", &body("mut "), "k.rs").unwrap().cuda;
        assert!(ok.contains("v = input[i];"), "{ok}");
        let Err(errs) = compile_str("", &body(""), "k.rs") else {
            panic!("an immutable array was assigned");
        };
        assert!(
            errs.iter()
                .any(|d| d.message == "cannot assign twice to immutable variable `v`"),
            "{errs:?}"
        );
    }

    /// A shared tile whose rows are not a vector record (64 wide) keeps scalar rows: a whole
    /// element copied into a local `[f32; 4]`, then stored lane by lane into a column.
    #[test]
    fn tiles_of_other_widths_keep_scalar_rows() {
        let c = compile_str(
            "block = 64",
            "fn cols(out: &mut [f32], input: &[[f32; 4]]) {
                let tile = shared::<[[f32; 64]; 4]>();
                let t = thread_idx().x;
                let v = input[t];
                for j in 0..4 {
                    tile[j][t] = v[j];
                }
                sync_block_threads();
                out[t] = tile[t % 4][63 - t];
            }",
            "k.rs",
        )
        .unwrap();
        let src = &c.cuda;
        assert!(src.contains("v = input[t];"), "{src}");
        assert!(src.contains("tile[j][t] = v.v[j];"), "{src}");
        assert!(src.contains("__shared__ float tile[4][64];"), "{src}");
    }

    /// With bounds checks, an index by the variable of a `for` over literals inside the
    /// array's length is not checked; one past it, or by a variable the body may change, is.
    #[test]
    fn loop_variables_within_the_length_need_no_check() {
        let c = compile_str(
            "bounds_checks = true",
            "fn lanes(out: &mut [f32]) {
                let mut r = [0.0f32; 4];
                for k in 0..4u32 {
                    r[k] = k as f32;
                }
                for j in 0..=3u32 {
                    r[j] += 1.0;
                }
                let mut s = 0.0f32;
                for k in 1..5u32 {
                    s += r[k];
                }
                out[global_idx().x as usize] = s;
            }",
            "k.rs",
        )
        .unwrap();
        let src = &c.cuda_checked.source;
        assert!(src.contains("r[k] = (float)k;"), "{src}");
        assert!(src.contains("r[j] += 1.0f;"), "{src}");
        assert!(
            src.contains("r[cuphase::idx(cuphase_faults, k_1, 4ull,"),
            "{src}"
        );
    }
}
#[cfg(test)]
mod whole_warp_tests {
    use crate::compile_str;

    /// A kernel with warp operations whose fixed block shape is whole warps has the whole-warp
    /// forms in its only variant; one whose shape leaves a partial warp (48 or 80 threads)
    /// counts its lanes and has the whole-warp variants beside.
    #[test]
    fn a_fixed_whole_warp_block_needs_no_lane_count() {
        let body = "fn k(out: &mut [f32]) { let v = warp_shuffle_xor(1.0f32, 1); let i = global_idx().x; if i < out.len() as u32 { out[i] = v; } }";
        let whole = "constexpr bool warp_whole() { return true; }";
        let partial = "constexpr bool warp_whole() { return false; }";
        for (attr, fixed_whole) in [
            ("block = 64", true),
            ("block = 48", false),
            ("block = 80", false),
        ] {
            let c = compile_str(attr, body, "k.rs").unwrap_or_else(|e| {
                panic!(
                    "{:?}",
                    e.iter().map(|d| d.full_message()).collect::<Vec<_>>()
                )
            });
            let own = if fixed_whole { whole } else { partial };
            assert!(c.cuda.contains(own), "{attr}: {}", c.cuda);
            assert!(c.cuda_checked.source.contains(own), "{attr}");
            assert_eq!(c.cuda_full_warps.is_none(), fixed_whole, "{attr}");
            if let Some((unchecked, checked)) = &c.cuda_full_warps {
                assert!(unchecked.source.contains(whole) && checked.source.contains(whole));
            }
        }
    }
}
