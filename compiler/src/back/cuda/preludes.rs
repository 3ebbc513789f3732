//! The header of a kernel's source: the comment that names the Rust kernel, then the C the
//! body relies on, each part only when the body uses it.
//!
//! Takes the finished writer (its body written, its flags and helper set filled); gives the
//! whole source. Guarantees: the parts come in one fixed order (fault prelude, `f16`/`bf16`,
//! warp lanes and operations, dynamic shared memory, Rust-semantics helpers), so the same
//! kernel always gives the same text; everything lives in `namespace cuphase`, so no prelude
//! name can collide with a kernel's (the [`Namer`](super::super::namer::Namer) keeps kernel
//! names out of it).

use super::checks::fault_prelude;
use super::helpers::write_helpers;
use super::syntax::c_type;
use super::writer::{render, Writer};
use crate::back::namer::c_member_name;
use crate::ir::{FieldType, MmaShape, ParamKind, Record};
use std::fmt::Write as _;

/// `half::f16` and `half::bf16` live as their bits; arithmetic converts to `f32` and rounds
/// back (round to nearest even), as the `half` crate computes them.
const HALF_PRELUDE: &str = r#"
// `f16` and `bf16` as their bits, computed through `float`.
namespace cuphase {
typedef unsigned short f16;
typedef unsigned short bf16;
__device__ __forceinline__ float f16_to_f32(f16 h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ f16 f16_from_f32(float f) {
    f16 h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float bf16_to_f32(bf16 h) { return __uint_as_float((unsigned int)h << 16); }
__device__ __forceinline__ bf16 bf16_from_f32(float f) {
    bf16 h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ unsigned short half_neg(unsigned short h) { return (unsigned short)(h ^ 0x8000u); }
}  // namespace cuphase
"#;

/// The size of dynamic shared memory, which the launch decides.
const DYNAMIC_SHARED_PRELUDE: &str = r#"
namespace cuphase {
// The bytes of dynamic shared memory this launch has (`Launch::shared_bytes`).
__device__ __forceinline__ unsigned int dynamic_shared_bytes() {
    unsigned int n;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
    return n;
}
}  // namespace cuphase
"#;

/// The lanes of the calling thread's warp: 32 consecutive linear thread ids, fewer in the
/// last warp of a block whose size is not a multiple of 32. Opens the namespace that
/// [`WARP_PRELUDE`] closes.
/// `lane_id()`: the hardware's lane id, which is the thread's linear index in the block
/// modulo 32 (warps are made of consecutive linear ids), in one register read where the
/// linear index takes three.
const LANE_PRELUDE: &str = r#"
namespace cuphase {
__device__ __forceinline__ unsigned int lane_id() {
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
}  // namespace cuphase
"#;

const WARP_LANES: &str = r#"
// Warp operations over the existing lanes of this thread's warp.
namespace cuphase {
__device__ __forceinline__ unsigned int warp_lane() { return lane_id(); }
__device__ __forceinline__ unsigned int warp_lanes() {
    const unsigned int n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    const unsigned int rest = n - (t & ~31u);
    return rest < 32u ? rest : 32u;
}
__device__ __forceinline__ unsigned int warp_mask() {
    const unsigned int c = warp_lanes();
    return c == 32u ? 0xffffffffu : (1u << c) - 1u;
}
__device__ __forceinline__ constexpr bool warp_whole() { return false; }
"#;

/// The same for the variant the runtime launches when the block is a whole number of warps:
/// every lane exists, and the literal full mask spares each shuffle a convergence check.
const WARP_LANES_FULL: &str = r#"
// This variant runs blocks that are whole warps: every lane exists.
namespace cuphase {
__device__ __forceinline__ unsigned int warp_lane() { return lane_id(); }
__device__ __forceinline__ unsigned int warp_lanes() { return 32u; }
__device__ __forceinline__ unsigned int warp_mask() { return 0xffffffffu; }
__device__ __forceinline__ constexpr bool warp_whole() { return true; }
"#;

/// The warp operations, over the lanes [`WARP_LANES`] (or [`WARP_LANES_FULL`]) defines. A lane
/// that does not exist is never read: the thread keeps its own value, as Rust's definition
/// (and the simulator) says.
const WARP_PRELUDE: &str = r#"template <typename T> __device__ __forceinline__ T warp_shuffle(T v, unsigned int lane) {
    const unsigned int src = lane & 31u;
    const T r = __shfl_sync(warp_mask(), v, src);
    return src < warp_lanes() ? r : v;
}
template <typename T> __device__ __forceinline__ T warp_shuffle_xor(T v, unsigned int m) {
    const T r = __shfl_xor_sync(warp_mask(), v, m & 31u);
    return warp_whole() || (warp_lane() ^ (m & 31u)) < warp_lanes() ? r : v;
}
template <typename T> __device__ __forceinline__ T warp_shuffle_up(T v, unsigned int d) {
    // Lanes below this one always exist; the hardware keeps `v` below `d` (and a distance of
    // 32 or more reads the lane itself).
    return __shfl_up_sync(warp_mask(), v, d < 32u ? d : 0u);
}
template <typename T> __device__ __forceinline__ T warp_shuffle_down(T v, unsigned int d) {
    // The hardware keeps `v` past lane 31; a partial warp's missing lanes are never read.
    const unsigned int dd = d < 32u ? d : 0u;
    const T r = __shfl_down_sync(warp_mask(), v, dd);
    return warp_whole() || warp_lane() + dd < warp_lanes() ? r : v;
}
__device__ __forceinline__ unsigned int warp_ballot(bool p) { return __ballot_sync(warp_mask(), p); }
__device__ __forceinline__ bool warp_all(bool p) { return __all_sync(warp_mask(), p) != 0; }
__device__ __forceinline__ bool warp_any(bool p) { return __any_sync(warp_mask(), p) != 0; }
}  // namespace cuphase
"#;

/// Two 16-bit elements of a matrix fragment as the register an instruction takes (`mma.sync`,
/// `wgmma` with `A` in registers), the lower element in the low half.
///
/// The pairs are read (and [`matrix_load_prelude`] writes them) with `memcpy`, never with
/// shifts and masks: NVVM then keeps a fragment in 32-bit pieces from the `ldmatrix` to the
/// `mma`, where the shifts left it in 16-bit pieces that a loop carried and packed again with a
/// `PRMT` for every register, every iteration (130 of them beside the 64 `HMMA` of the wide
/// GEMM's loop).
const PAIR_PRELUDE: &str = r#"
namespace cuphase {
__device__ __forceinline__ unsigned int mma_pair(const unsigned short* p) {
    unsigned int r;
    memcpy(&r, p, sizeof r);
    return r;
}
}  // namespace cuphase
"#;

/// Warp-level matrix multiply-accumulate (`mma.sync`, sm_80 and later), on fragments in the
/// layouts of `cuphase_contract::MmaShape`: 16-bit inputs travel two to a register
/// ([`PAIR_PRELUDE`]); TF32 inputs are rounded from `f32` to nearest, ties away.
const MMA_PRELUDE: &str = r#"
namespace cuphase {
__device__ __forceinline__ void mma_m16n8k16_bf16(float* d, const unsigned short* a, const unsigned short* b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(mma_pair(a)), "r"(mma_pair(a + 2)), "r"(mma_pair(a + 4)), "r"(mma_pair(a + 6)),
          "r"(mma_pair(b)), "r"(mma_pair(b + 2)));
}
__device__ __forceinline__ void mma_m16n8k16_f16(float* d, const unsigned short* a, const unsigned short* b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(mma_pair(a)), "r"(mma_pair(a + 2)), "r"(mma_pair(a + 4)), "r"(mma_pair(a + 6)),
          "r"(mma_pair(b)), "r"(mma_pair(b + 2)));
}
__device__ __forceinline__ unsigned int tf32_of(float f) {
    unsigned int r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
    return r;
}
__device__ __forceinline__ void mma_m16n8k8_tf32(float* d, const float* a, const float* b) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(tf32_of(a[0])), "r"(tf32_of(a[1])), "r"(tf32_of(a[2])), "r"(tf32_of(a[3])),
          "r"(tf32_of(b[0])), "r"(tf32_of(b[1])));
}
}  // namespace cuphase
"#;

/// Asynchronous copies global -> shared (`cp.async`, sm_80 and later): `N` bytes (4, 8 or
/// 16), grouped by commits, waited for by group. Through L1 (`.ca`), also at 16 bytes: a
/// kernel's lanes usually copy 16 bytes of different rows, and the rest of each 32-byte
/// sector, copied by another lane or warp soon after, then comes from L1 instead of L2 (the
/// GEMM of `tests/in/ldmatrix.rs` runs 1.3 times as fast so on the H100).
const ASYNC_COPY_PRELUDE: &str = r#"
namespace cuphase {
template <int N>
__device__ __forceinline__ void cp_async(void* dst, const void* src) {
    const unsigned int d = (unsigned int)__cvta_generic_to_shared(dst);
    const unsigned long long s = (unsigned long long)__cvta_generic_to_global(src);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" :: "r"(d), "l"(s), "n"(N) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }
}  // namespace cuphase
"#;

/// The helper that loads `matrices` 8x8 matrices (transposed when `trans`): `ldmatrix_x4`,
/// `ldmatrix_x2_trans`, ...
pub(super) fn matrix_load_function(matrices: usize, trans: bool) -> String {
    let t = if trans { "_trans" } else { "" };
    format!("ldmatrix_x{matrices}{t}")
}

/// The helpers of the fragment loads a kernel makes, `(element bytes, matrices, trans)`: one
/// `ldmatrix.sync` each, whose registers hold the fragment's 16-bit elements two to a
/// register, the lower element in the low half (as `mma` takes them), or one 32-bit element.
fn matrix_load_prelude(loads: &std::collections::BTreeSet<(usize, usize, bool)>) -> String {
    let mut out = String::from("\nnamespace cuphase {\n");
    for &(bytes, x, trans) in loads {
        let name = matrix_load_function(x, trans);
        let regs: Vec<String> = (0..x).map(|j| format!("%{j}")).collect();
        let outs: Vec<String> = (0..x).map(|j| format!("\"=r\"(r[{j}])")).collect();
        let (ptr, unpack) = if bytes == 2 {
            (
                "unsigned short",
                "    memcpy(f, r, sizeof r);\n".to_string(),
            )
        } else {
            (
                "float",
                format!("    for (int j = 0; j < {x}; ++j) {{\n        f[j] = __uint_as_float(r[j]);\n    }}\n"),
            )
        };
        let t = if trans { ".trans" } else { "" };
        let _ = write!(
            out,
            "__device__ __forceinline__ void {name}({ptr}* f, const void* row) {{\n    unsigned int r[{x}];\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x{x}{t}.shared.b16 {{{}}}, [%{x}];\"\n        : {}\n        : \"r\"((unsigned int)__cvta_generic_to_shared(row)));\n{unpack}}}\n",
            regs.join(", "),
            outs.join(", "),
        );
    }
    out.push_str("}  // namespace cuphase\n");
    out
}

/// The function of [`MMA_PRELUDE`] that runs `shape`.
pub(super) fn mma_function(shape: MmaShape) -> &'static str {
    match shape {
        MmaShape::M16N8K16Bf16 => "mma_m16n8k16_bf16",
        MmaShape::M16N8K16F16 => "mma_m16n8k16_f16",
        MmaShape::M16N8K8Tf32 => "mma_m16n8k8_tf32",
    }
}

impl Writer<'_> {
    /// Whether the kernel has `f16`/`bf16` data (parameters, arrays, locals), which needs the
    /// half types even if it computes nothing with them.
    fn has_half_data(&self) -> bool {
        let k = self.k;
        let half_params = k.params.iter().any(|p| match p.kind {
            ParamKind::Scalar { ty, .. } => ty.is_half(),
            ParamKind::Slice { array } => k.arrays.get(array).elem.is_half(),
        });
        half_params
            || k.arrays.iter().any(|(_, a)| a.elem.is_half())
            || k.locals.iter().any(|(h, _)| self.types.local(h).is_half())
    }

    /// The whole source: the header, then the rendered kernel.
    pub(super) fn finish(self) -> String {
        let mut head = String::new();
        let _ = writeln!(
            head,
            "// CUDA C generated by cuphase from the Rust kernel `{}`. Do not edit.",
            self.k.name
        );
        if self.wgmma {
            let _ = writeln!(head, "{}", cuphase_contract::wgmma::ARCH_SPECIFIC);
        }
        if self.uses_record {
            head.push_str(&fault_prelude());
        }
        if self.uses_half || self.has_half_data() {
            head.push_str(HALF_PRELUDE);
        }
        if self.uses_lane || self.uses_warp {
            head.push_str(LANE_PRELUDE);
        }
        if self.uses_warp {
            head.push_str(if self.full_warps {
                WARP_LANES_FULL
            } else {
                WARP_LANES
            });
            head.push_str(WARP_PRELUDE);
        }
        if self.uses_mma || self.wgmma_shapes.iter().any(|s| s.3) {
            head.push_str(PAIR_PRELUDE);
        }
        if self.uses_mma {
            head.push_str(MMA_PRELUDE);
        }
        if !self.matrix_loads.is_empty() {
            head.push_str(&matrix_load_prelude(&self.matrix_loads));
        }
        if self.uses_async_copy {
            head.push_str(ASYNC_COPY_PRELUDE);
        }
        if self.wgmma {
            head.push_str(&super::wgmma::wgmma_prelude(&self.wgmma_shapes));
        }
        if self.uses_dynamic_shared {
            head.push_str(DYNAMIC_SHARED_PRELUDE);
        }
        head.push_str(&record_decls(&self.k.records));
        write_helpers(&mut head, &self.helpers);
        head.push_str(&crate::math::cuda_source(&self.math));
        head.push('\n');
        // `#line` directives count lines from where they stand, so the header can be prepended.
        head + &render(&self.out, &self.rust_file)
    }
}

/// The C declarations of the kernel's structs, each after those its fields name, with their
/// size and alignment asserted equal to those the Rust side was compiled with (the host glue
/// asserts rustc's size, alignment and every field's offset equal them). NVRTC has no
/// `offsetof`; the offsets follow from C's layout rules, which `#[repr(C)]` shares, and the
/// sizes of the scalar types, which the CUDA C of every kernel relies on already.
fn record_decls(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        let name = c_member_name(&r.name);
        // A slice's `[T; N]` elements: aligned so that each is one vector access.
        match r.vector {
            true => {
                let _ = writeln!(out, "\nstruct __align__({}) {name} {{", r.align);
            }
            false => {
                let _ = writeln!(out, "\nstruct {name} {{");
            }
        }
        for f in &r.fields {
            // `float pos[3];`, `float m[3][3];`: C's declarator puts the lengths after the name.
            let (mut ty, mut dims) = (&f.ty, String::new());
            while let FieldType::Array(elem, n) = ty {
                let _ = write!(dims, "[{n}]");
                ty = elem;
            }
            let ty = match ty {
                FieldType::Scalar(s) => c_type(*s).to_string(),
                FieldType::Record(i) => records
                    .get(*i)
                    .map_or_else(String::new, |r| c_member_name(&r.name)),
                FieldType::Array(..) => String::new(),
            };
            let _ = writeln!(out, "    {ty} {}{dims};", c_member_name(&f.name));
        }
        out.push_str("};\n");
        if r.vector {
            continue;
        }
        let _ = writeln!(
            out,
            "static_assert(sizeof({name}) == {} && alignof({name}) == {}, \"`{}` has another size or alignment in Rust\");",
            r.size, r.align, r.name
        );
    }
    out
}
