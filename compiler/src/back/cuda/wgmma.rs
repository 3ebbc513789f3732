//! Warpgroup multiplies ([`Stmt::Wgmma`]) as `wgmma.mma_async`: the tiles' descriptors
//! (128-byte swizzle, K-major), the accumulator's registers (and an `A` fragment's, two 16-bit
//! elements to a register as `mma.sync`'s, for `A` in registers) as the instruction's
//! operands, the checks of the checked variant, and where `wgmma.fence` goes.
//!
//! `wgmma.fence` must separate any other access to an accumulator's registers from the next
//! multiply; multiplies into the same registers need none between them. So a multiply is
//! fenced unless only multiplies and statements that touch no thread-local array have run
//! since the last fence, and a loop whose body is only such statements is fenced once before
//! it. Shared memory the generic proxy wrote (stores, `cp.async`) is ordered before the
//! multiplies' reads by `fence.proxy.async` before every barrier of the kernel: the race proof
//! already puts a barrier between each write of a tile and a multiply that reads it. The
//! 16-byte copies into a tile go through L2 only (`cp.async.cg`, see `async_copy`).

use super::syntax::prec;
use super::writer::{WgmmaHelper, Writer};
use super::FaultKind;
use crate::ir::*;
use cuphase_contract::wgmma::{M, ROW_CHUNKS};
use std::fmt::Write as _;

/// Whether statement `s` leaves the accumulators' registers to the multiplies: it reads and
/// writes no thread-local array (nor contains statements that may).
pub(super) fn keeps_fence(k: &Kernel, s: &Stmt) -> bool {
    let local = |a: Handle<Array>| matches!(k.arrays.get(a).kind, ArrayKind::Local { .. });
    let reads_local = |e: Handle<Expr>| {
        visit::any_expr(
            k,
            e,
            &mut |x| matches!(x, Expr::Load { array, .. } if local(*array)),
        )
    };
    match s {
        Stmt::Wgmma { .. } | Stmt::WgmmaCommit | Stmt::WgmmaWait { .. } => true,
        Stmt::Let { .. }
        | Stmt::Check { .. }
        | Stmt::Eval(_)
        | Stmt::AsyncCopy { .. }
        | Stmt::AsyncCommit
        | Stmt::AsyncWait { .. } => !s.operands().into_iter().any(reads_local),
        Stmt::Assign { place, .. } => {
            !matches!(place, Place::Element { array, .. } if local(*array))
                && !s.operands().into_iter().any(reads_local)
        }
        _ => false,
    }
}

/// Whether a loop body is multiplies and statements that keep the fence only, with at least one
/// multiply: the loop is fenced once, before it.
pub(super) fn only_multiplies(k: &Kernel, body: &Block) -> bool {
    body.iter().all(|(s, _)| keeps_fence(k, s))
        && body.iter().any(|(s, _)| matches!(s, Stmt::Wgmma { .. }))
}

/// The helper that multiplies one shape: `wgmma_m64n128k16_bf16`, `wgmma_m64n64k16_bf16_kn`,
/// and with `A` in registers (`a_regs`) `wgmma_m64n64k16_bf16_rs_kn`.
fn function(n: u16, input: &str, b_kn: bool, a_regs: bool) -> String {
    let k = if input == "tf32" { 8 } else { 16 };
    let kn = if b_kn { "_kn" } else { "" };
    let rs = if a_regs { "_rs" } else { "" };
    format!("wgmma_m64n{n}k{k}_{input}{rs}{kn}")
}

impl Writer<'_> {
    /// One warpgroup multiply: the checks of its tiles (in the checked variant), then the
    /// helper with their descriptors (and `A`'s fragment, given in registers).
    pub(super) fn wgmma(
        &mut self,
        shape: WgmmaShape,
        acc: &Fragment,
        a: &WgmmaA,
        b: (Handle<Array>, Handle<Expr>),
        span: Span,
    ) {
        let a_regs = matches!(a, WgmmaA::Registers(_));
        self.wgmma_shapes
            .insert((shape.n, shape.ptx_input(), shape.b_kn, a_regs));
        let (b_rows, b_chunks) = shape.b_region();
        let mut tiles = Vec::new();
        if let WgmmaA::Tile { array, row } = a {
            tiles.push((0, (*array, *row), (M as u64, 2)));
        }
        tiles.push((1, b, (b_rows as u64, b_chunks as u64)));
        let mut operands = Vec::new();
        if let WgmmaA::Registers(f) = a {
            operands.push(self.fragment(f));
        }
        for (op, (tile, row), (rows, chunks)) in tiles {
            let r = self.expr(row);
            let name = self.array_names[tile.index()].clone();
            let rust_name = self.k.arrays.get(tile).name.clone();
            if self.checks {
                let at = format!("(unsigned long long)({})", r.text);
                let site = self.site(
                    FaultKind::Panic(cuphase_contract::wgmma::MISALIGNED.to_string()),
                    span,
                );
                let misaligned = if op == 1 && shape.b_kn {
                    format!("{at} % 64ull != 0ull")
                } else {
                    format!("({at} % 64ull >= 8ull || {at} % 2ull != 0ull)")
                };
                self.guard(&misaligned, site, "0ull", "0ull");
                // The last chunk the tile reads.
                let last = format!(
                    "({at} + {}ull)",
                    ROW_CHUNKS as u64 * (rows - 1) + chunks - 1
                );
                let len = self.dim_len(tile, 0);
                let site = self.site(FaultKind::OutOfBounds(rust_name), span);
                self.guard(&format!("{last} >= {len}"), site, &last, &len);
            }
            // The descriptor's address field counts 16-byte chunks, so the tile at row `r`
            // is the array's descriptor plus `r` (the array's is loop-invariant: hoisted, where
            // one computed per multiply took 60 uniform instructions of the attention's step).
            operands.push(format!(
                "cuphase::wgmma_desc(&{name}[0]) + {}",
                r.at_least(prec::MULTIPLICATIVE)
            ));
        }
        let frag = self.fragment(acc);
        self.line(&format!(
            "cuphase::{}({frag}, {});",
            function(shape.n, shape.ptx_input(), shape.b_kn, a_regs),
            operands.join(", ")
        ));
    }
}

/// The prelude of a kernel that multiplies by warpgroups: the swizzle, the descriptors, the
/// fences and groups, and one helper per shape it uses.
pub(super) fn wgmma_prelude(shapes: &std::collections::BTreeSet<WgmmaHelper>) -> String {
    let mut out = String::from(WGMMA_PRELUDE);
    out.push_str("namespace cuphase {\n");
    for (n, input, b_kn, a_regs) in shapes {
        let acc = usize::from(*n) / 2;
        let k = if *input == "tf32" { 8 } else { 16 };
        // `tf32` takes no transposes (K-major only); 16-bit inputs say K-major for `A` (not
        // said for an `A` in registers) and, for a `B` given `k x n`, MN-major
        // ("transposed") for `B`.
        // (The front end takes `A` in registers for 16-bit inputs only.)
        debug_assert!(!(*input == "tf32" && *a_regs), "a TF32 `A` in registers");
        let modes = match (*input, *b_kn, *a_regs) {
            ("tf32", _, _) => "p, 1, 1",
            (_, false, false) => "p, 1, 1, 0, 0",
            (_, true, false) => "p, 1, 1, 0, 1",
            (_, false, true) => "p, 1, 1, 0",
            (_, true, true) => "p, 1, 1, 1",
        };
        let regs: Vec<String> = (0..acc).map(|i| format!("%{i}")).collect();
        let outs: Vec<String> = (0..acc).map(|i| format!("\"+f\"(d[{i}])")).collect();
        // `A`: a descriptor, or its fragment's four registers (`mma_pair`, as `mma.sync`'s).
        let (a_param, a_operand, a_inputs, next) = if *a_regs {
            (
                "const unsigned short* a",
                format!("{{%{}, %{}, %{}, %{}}}", acc, acc + 1, acc + 2, acc + 3),
                "\"r\"(mma_pair(a)), \"r\"(mma_pair(a + 2)), \"r\"(mma_pair(a + 4)), \"r\"(mma_pair(a + 6)), ",
                acc + 4,
            )
        } else {
            (
                "unsigned long long a",
                format!("%{acc}"),
                "\"l\"(a), ",
                acc + 1,
            )
        };
        let _ = writeln!(
            out,
            "__device__ __forceinline__ void {}(float* d, {a_param}, unsigned long long b) {{\n    asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\nwgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{input}.{input} {{{}}}, {a_operand}, %{next}, {modes};\\n}}\\n\"\n        : {}\n        : {a_inputs}\"l\"(b), \"r\"(1));\n}}",
            function(*n, input, *b_kn, *a_regs),
            next + 1,
            regs.join(", "),
            outs.join(", ")
        );
    }
    out.push_str("}  // namespace cuphase\n");
    out
}

const WGMMA_PRELUDE: &str = r#"
namespace cuphase {
// Chunk `c` (16 bytes) of a warpgroup multiply's tile: the 128-byte swizzle.
template <class T>
__device__ __forceinline__ T swizzle128(T c) { return c ^ ((c >> 3) & 7); }
// The descriptor of a tile that starts at `p`: K-major, 128-byte swizzle, 8-row groups 1024
// bytes apart. Its low 14 bits are the address in 16-byte units (below 2^14: shared memory
// ends before 256 KiB), so the tile `r` chunks further is this plus `r`.
__device__ __forceinline__ unsigned long long wgmma_desc(const void* p) {
    const unsigned int a = (unsigned int)__cvta_generic_to_shared(p);
    return (unsigned long long)((a & 0x3FFFFu) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// A 16-byte copy into a tile, through L2 only (the L1 left to shared memory).
__device__ __forceinline__ void cp_async_cg(void* dst, const void* src) {
    const unsigned int d = (unsigned int)__cvta_generic_to_shared(dst);
    const unsigned long long s = (unsigned long long)__cvta_generic_to_global(src);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(s) : "memory");
}
}  // namespace cuphase
"#;
