//! The CUDA C writer.
//!
//! Takes a checked kernel; gives the CUDA C source that the runtime hands to NVRTC. The output
//! is meant to be read: Rust names (made unique by the [`Namer`]), `#line` directives that map
//! every statement back to the Rust file and line, 32-bit arithmetic where the Rust is 32-bit,
//! parentheses only where C's precedence (or clarity around bit operators) needs them, and no
//! cast that changes nothing.
//!
//! Rust's meaning is kept where C's differs: signed `+ - *` and negation wrap (through small
//! helpers in `namespace cuphase`, emitted only when used), shift amounts are masked, float to
//! integer casts saturate and map NaN to 0 (`__float2int_rz` and friends), and loop bounds are
//! evaluated once.

use super::namer::Namer;
use crate::ir::Types;
use crate::ir::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// C precedence levels, higher binds tighter.
mod prec {
    pub const TERNARY: u8 = 3;
    pub const LOR: u8 = 4;
    pub const LAND: u8 = 5;
    pub const BITOR: u8 = 6;
    pub const BITXOR: u8 = 7;
    pub const BITAND: u8 = 8;
    pub const EQUALITY: u8 = 9;
    pub const RELATIONAL: u8 = 10;
    pub const SHIFT: u8 = 11;
    pub const ADDITIVE: u8 = 12;
    pub const MULTIPLICATIVE: u8 = 13;
    pub const UNARY: u8 = 15;
    pub const PRIMARY: u8 = 16;
}

/// A rendered expression and the precedence of its outermost operator.
#[derive(Clone)]
struct Rendered {
    text: String,
    prec: u8,
    /// The outermost binary operator, for clarity parentheses around bit operators.
    op: Option<BinaryOp>,
}

impl Rendered {
    fn atom(text: String) -> Self {
        Rendered {
            text,
            prec: prec::PRIMARY,
            op: None,
        }
    }
    fn at_least(&self, p: u8) -> String {
        if self.prec >= p {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// The C spelling of a scalar type.
pub fn c_type(t: Scalar) -> &'static str {
    match t {
        Scalar::Bool => "bool",
        Scalar::I8 => "signed char",
        Scalar::I16 => "short",
        Scalar::I32 => "int",
        Scalar::I64 => "long long",
        Scalar::U8 => "unsigned char",
        Scalar::U16 => "unsigned short",
        Scalar::U32 => "unsigned int",
        Scalar::U64 | Scalar::Usize => "unsigned long long",
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::F16 => "cuphase::f16",
        Scalar::Bf16 => "cuphase::bf16",
    }
}

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

fn binary_prec(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => prec::MULTIPLICATIVE,
        BinaryOp::Add | BinaryOp::Sub => prec::ADDITIVE,
        BinaryOp::Shl | BinaryOp::Shr => prec::SHIFT,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => prec::RELATIONAL,
        BinaryOp::Eq | BinaryOp::Ne => prec::EQUALITY,
        BinaryOp::BitAnd => prec::BITAND,
        BinaryOp::BitXor => prec::BITXOR,
        BinaryOp::BitOr => prec::BITOR,
        BinaryOp::And => prec::LAND,
        BinaryOp::Or => prec::LOR,
    }
}

/// The warp operations, over the threads of the calling thread's warp: 32 consecutive linear
/// thread ids, fewer in the last warp of a block whose size is not a multiple of 32. A lane
/// that does not exist is never read: the thread keeps its own value, as Rust's definition
/// (and the simulator) says.
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

const WARP_LANES: &str = r#"
// Warp operations over the existing lanes of this thread's warp.
namespace cuphase {
__device__ __forceinline__ unsigned int warp_lane() {
    return ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u;
}
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
__device__ __forceinline__ unsigned int warp_lane() {
    return ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u;
}
__device__ __forceinline__ unsigned int warp_lanes() { return 32u; }
__device__ __forceinline__ unsigned int warp_mask() { return 0xffffffffu; }
__device__ __forceinline__ constexpr bool warp_whole() { return true; }
"#;

const WARP_PRELUDE: &str = r#"template <typename T> __device__ __forceinline__ T warp_shuffle(T v, unsigned int lane) {
    const unsigned int src = lane & 31u;
    const T r = __shfl_sync(warp_mask(), v, src);
    return src < warp_lanes() ? r : v;
}
template <typename T> __device__ __forceinline__ T warp_shuffle_xor(T v, unsigned int m) {
    const T r = __shfl_xor_sync(warp_mask(), v, m & 31u);
    return (warp_lane() ^ (m & 31u)) < warp_lanes() ? r : v;
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

/// Whether C would promote the type to `int` in arithmetic (so results need truncating back).
fn is_narrow(t: Scalar) -> bool {
    matches!(t, Scalar::I8 | Scalar::I16 | Scalar::U8 | Scalar::U16)
}

/// The file name of a `#line` directive. It becomes a C string literal, and with `-lineinfo`
/// NVRTC copies it into the PTX `.file` directive, which takes no escapes: so quotes,
/// backslashes and control characters are replaced by `_` (the name is for display only; this
/// way no path can end the literal early or inject code).
pub fn escape_c_string(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == '"' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// Writes the CUDA C of a kernel. `file` is the Rust source path used in `#line` directives.
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
    write_kernel_variant(k, types, file, bounds_checks, false)
}

/// Whether the kernel uses warp operations (and so has a variant for whole-warp blocks).
pub fn uses_warp_ops(k: &Kernel) -> bool {
    fn block(b: &Block) -> bool {
        b.stmts.iter().any(|s| match s {
            Stmt::Warp { .. } => true,
            Stmt::If { accept, reject, .. } => block(accept) || block(reject),
            Stmt::Loop { body, .. } | Stmt::Block(body) => block(body),
            _ => false,
        })
    }
    block(&k.body)
}

/// Writes one variant of a kernel: with or without bounds checks, and (`full_warps`) the one
/// the runtime launches when the block is a whole number of warps.
pub fn write_kernel_variant(
    k: &Kernel,
    types: &Types,
    file: &str,
    bounds_checks: bool,
    full_warps: bool,
) -> CudaKernel {
    // A first pass finds whether there is any fault site, which decides the signature.
    let mut probe = Writer::new(k, types, file, bounds_checks, false);
    probe.write();
    let uses_record = !probe.sites.is_empty();
    let mut w = Writer::new(k, types, file, bounds_checks, uses_record);
    w.full_warps = full_warps;
    w.write();
    let sites = std::mem::take(&mut w.sites);
    CudaKernel {
        source: w.finish(),
        sites,
        uses_record,
    }
}

/// Writes the CUDA C of a kernel without bounds checks.
pub fn write_kernel(k: &Kernel, types: &Types, file: &str) -> String {
    write_kernel_checked(k, types, file, false).source
}

/// The name of the fault state variable in generated code.
const FAULTS: &str = "cuphase_faults";

/// Fault reporting: the first fault of a launch is written to the record the runtime passes
/// (flag, site, kernel id, block, thread, two values) and read back at the next synchronising
/// call; the faulting thread stops. Nothing traps, so the CUDA context stays usable.
const FAULT_PRELUDE: &str = r#"
// Faults (out-of-bounds indices, division by zero, step_by(0)) reported to the runtime.
namespace cuphase {
struct Faults { unsigned int* record; unsigned int kernel; bool hit; };
__device__ __noinline__ void report(Faults& f, unsigned int site, unsigned long long a, unsigned long long b) {
    f.hit = true;
    if (atomicCAS(f.record, 0u, 1u) == 0u) {
        f.record[1] = site;
        f.record[2] = f.kernel;
        f.record[3] = blockIdx.x; f.record[4] = blockIdx.y; f.record[5] = blockIdx.z;
        f.record[6] = threadIdx.x; f.record[7] = threadIdx.y; f.record[8] = threadIdx.z;
        reinterpret_cast<unsigned long long*>(f.record)[5] = a;
        reinterpret_cast<unsigned long long*>(f.record)[6] = b;
        __threadfence();
    }
}
__device__ __forceinline__ unsigned long long idx(Faults& f, unsigned long long i, unsigned long long len, unsigned int site) {
    if (i < len) return i;
    report(f, site, i, len);
    return 0;
}
template <typename T> __device__ __forceinline__ T div(Faults& f, T a, T b, T min, unsigned int site) {
    if (b == 0) { report(f, site, 0, 0); return 0; }
    if (min != 0 && a == min && b == (T)-1) { report(f, site, 1, 0); return 0; }
    return (T)(a / b);
}
template <typename T> __device__ __forceinline__ T clamp(Faults& f, T x, T lo, T hi, unsigned int site) {
    if (!(lo <= hi)) { report(f, site, 0, 0); return x; }
    return x < lo ? lo : (x > hi ? hi : x);
}
template <typename T> __device__ __forceinline__ T rem(Faults& f, T a, T b, T min, unsigned int site) {
    if (b == 0) { report(f, site, 0, 0); return 0; }
    if (min != 0 && a == min && b == (T)-1) { report(f, site, 1, 0); return 0; }
    return (T)(a % b);
}
}  // namespace cuphase
"#;

/// The smallest value of a signed type as a C expression, `0` for unsigned types.
fn c_min(t: Scalar) -> &'static str {
    match t {
        Scalar::I8 => "(signed char)-128",
        Scalar::I16 => "(short)-32768",
        Scalar::I32 => "(-2147483647 - 1)",
        Scalar::I64 => "(-9223372036854775807ll - 1)",
        _ => "0",
    }
}

struct LoopCtx {
    label: Option<Handle<Label>>,
}

struct Writer<'a> {
    k: &'a Kernel,
    types: &'a Types,
    file: String,
    out: String,
    indent: usize,
    /// The Rust line the next emitted C line maps to, if known.
    mapped: Option<usize>,
    /// The Rust file of the kernel.
    rust_file: String,
    /// The file of the statement being written, when it is not the kernel's (an inlined
    /// helper from another file), and the file the last `#line` named.
    stmt_file: Option<String>,
    /// The Rust line of the statement being written.
    stmt_line: Option<usize>,
    local_names: Vec<String>,
    array_names: Vec<String>,
    len_names: Vec<String>,
    namer: Namer,
    helpers: BTreeSet<(&'static str, Scalar)>,
    loops: Vec<LoopCtx>,
    /// Index every access (bounds checks).
    checks: bool,
    /// The kernel has the fault record parameters.
    uses_record: bool,
    /// The kernel uses warp operations (their helpers are written).
    uses_warp: bool,
    /// The variant for blocks that are whole warps.
    full_warps: bool,
    /// The kernel has a dynamic shared array.
    uses_dynamic_shared: bool,
    /// The kernel computes with `f16` or `bf16`.
    uses_half: bool,
    sites: Vec<FaultSite>,
    /// The statement being written evaluates a check inline.
    inline_check: bool,
}

impl<'a> Writer<'a> {
    fn new(k: &'a Kernel, types: &'a Types, file: &str, checks: bool, uses_record: bool) -> Self {
        let mut namer = Namer::new();
        let _ = namer.call(&k.name);
        let mut array_names = Vec::new();
        let mut len_names = Vec::new();
        for (_, a) in k.arrays.iter() {
            array_names.push(namer.call(&a.name));
            len_names.push(match a.kind {
                ArrayKind::Global { .. } | ArrayKind::Shared { dynamic: true, .. } => {
                    namer.call(&format!("{}_len", a.name))
                }
                ArrayKind::Shared { .. } | ArrayKind::Local { .. } => String::new(),
            });
        }
        let local_names = k.locals.iter().map(|(_, l)| namer.call(&l.name)).collect();
        Writer {
            k,
            types,
            file: escape_c_string(file),
            rust_file: file.to_string(),
            stmt_file: None,
            out: String::new(),
            indent: 0,
            mapped: None,
            stmt_line: None,
            local_names,
            array_names,
            len_names,
            namer,
            helpers: BTreeSet::new(),
            loops: Vec::new(),
            checks,
            uses_record,
            uses_warp: false,
            full_warps: false,
            uses_dynamic_shared: false,
            uses_half: false,
            sites: Vec::new(),
            inline_check: false,
        }
    }

    /// Registers a fault site at `span`; returns its number.
    fn site(&mut self, kind: FaultKind, span: Span) -> usize {
        let start = span.start();
        let file = span.file_or(&self.rust_file);
        self.sites.push(FaultSite {
            kind,
            file,
            line: start.line as u32,
            col: start.column as u32 + 1,
        });
        self.sites.len() - 1
    }

    /// `if (cond fails) { report; return; }` before a statement.
    fn guard(&mut self, failing: &str, site: usize, index: &str, len: &str) {
        self.line(&format!(
            "if ({failing}) {{ cuphase::report({FAULTS}, {site}u, {index}, {len}); return; }}"
        ));
    }

    fn finish(self) -> String {
        let mut head = String::new();
        let _ = writeln!(
            head,
            "// CUDA C generated by cuphase from the Rust kernel `{}`. Do not edit.",
            self.k.name
        );
        if self.uses_record {
            head.push_str(FAULT_PRELUDE);
        }
        let half_params = self.k.params.iter().any(|p| match p.kind {
            ParamKind::Scalar { ty, .. } => ty.is_half(),
            ParamKind::Slice { array } => self.k.arrays.get(array).elem.is_half(),
        });
        let half_data = self.k.arrays.iter().any(|(_, a)| a.elem.is_half())
            || self
                .k
                .locals
                .iter()
                .any(|(h, _)| self.types.local(h).is_half());
        if self.uses_half || half_params || half_data {
            head.push_str(HALF_PRELUDE);
        }
        if self.uses_warp {
            head.push_str(if self.full_warps {
                WARP_LANES_FULL
            } else {
                WARP_LANES
            });
            head.push_str(WARP_PRELUDE);
        }
        if self.uses_dynamic_shared {
            head.push_str(DYNAMIC_SHARED_PRELUDE);
        }
        if !self.helpers.is_empty() {
            head.push_str(
                "\n// Rust's integer and float semantics where C's differ.\nnamespace cuphase {\n",
            );
            for (name, t) in &self.helpers {
                let ct = c_type(*t);
                let ut = c_type(unsigned_of(*t));
                // Narrow types are computed in `unsigned int` (C would promote them to `int`).
                let wt = if is_narrow(*t) { "unsigned int" } else { ut };
                let bits = t.bits();
                if let Some(from) = name.strip_suffix("_to") {
                    let _ = writeln!(head, "{}", float_to_int(from, *t));
                    continue;
                }
                let body = match *name {
                    "wrapping_add" => format!("return ({ct})(({ut})a + ({ut})b);"),
                    "wrapping_sub" => format!("return ({ct})(({ut})a - ({ut})b);"),
                    "wrapping_mul" => format!("return ({ct})(({ut})a * ({ut})b);"),
                    // Narrow types through `int`: NVVM turned the other form into PTX
                    // `abs.s16`, which ptxas computed in 32 bits (i16::MIN.abs() came back as
                    // +32768 once widened; found by the differential test).
                    "wrapping_abs" if is_narrow(*t) => format!("return ({ct})::abs((int)a);"),
                    "wrapping_abs" => format!("return a < 0 ? ({ct})(0 - ({ut})a) : a;"),
                    "wrapping_pow" => format!(
                        "{wt} r = 1, b = ({ut})a; while (e) {{ if (e & 1u) r = ({ut})(r * b); b = ({ut})(b * b); e >>= 1; }} return ({ct})r;"
                    ),
                    "rotate_left" => format!(
                        "{wt} x = ({ut})a; n %= {bits}u; return n == 0 ? a : ({ct})(x << n | x >> ({bits}u - n));"
                    ),
                    "rotate_right" => format!(
                        "{wt} x = ({ut})a; n %= {bits}u; return n == 0 ? a : ({ct})(x >> n | x << ({bits}u - n));"
                    ),
                    // Rust's `powi`: compiler-rt's square-and-multiply, so results match the host.
                    "powi" => format!(
                        "{ct} r = 1; bool recip = n < 0; unsigned int e = recip ? 0u - (unsigned int)n : (unsigned int)n; for (;;) {{ if (e & 1u) r *= a; e >>= 1; if (e == 0) break; a *= a; }} return recip ? 1 / r : r;"
                    ),
                    // `fmin`/`fmax` with -0.0 ordered below +0.0, which neither the instruction
                    // nor NVVM's constant folding promises on its own.
                    "fmin" => format!(
                        "return a == b ? (signbit(a) ? a : b) : ::{}(a, b);",
                        if *t == Scalar::F32 { "fminf" } else { "fmin" }
                    ),
                    "fmax" => format!(
                        "return a == b ? (signbit(a) ? b : a) : ::{}(a, b);",
                        if *t == Scalar::F32 { "fmaxf" } else { "fmax" }
                    ),
                    _ => format!("return ({ct})(0 - ({ut})a);"),
                };
                let params = match *name {
                    "wrapping_neg" | "wrapping_abs" => format!("{ct} a"),
                    "wrapping_pow" => format!("{ct} a, unsigned int e"),
                    "rotate_left" | "rotate_right" => format!("{ct} a, unsigned int n"),
                    "powi" => format!("{ct} a, int n"),
                    _ => format!("{ct} a, {ct} b"),
                };
                let _ = writeln!(
                    head,
                    "__device__ __forceinline__ {ct} {name}({params}) {{ {body} }}"
                );
            }
            head.push_str("}  // namespace cuphase\n");
        }
        head.push('\n');
        // `#line` directives count lines from where they stand, so the header can be prepended.
        head + &self.out
    }

    // ---- low-level output ----

    fn line(&mut self, text: &str) {
        // Every C line of a statement maps to the statement's Rust line, so an NVRTC message
        // about any of them names it; closing braces keep whatever mapping they get.
        if let Some(l) = self.stmt_line {
            if self.mapped != Some(l) && !text.trim_start().starts_with('}') {
                let file = match &self.stmt_file {
                    Some(f) => escape_c_string(f),
                    None => self.file.clone(),
                };
                let _ = writeln!(self.out, "#line {l} \"{file}\"");
                self.mapped = Some(l);
            }
        }
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        if let Some(m) = self.mapped.as_mut() {
            *m += 1;
        }
    }

    /// Maps the next C lines to the Rust line of `span`.
    fn map_to(&mut self, span: Span) {
        let line = span.start().line;
        if line > 0 {
            let file = span.file_or(&self.rust_file);
            let file = (file != self.rust_file).then_some(file);
            if file != self.stmt_file {
                // Another file: the next line needs its own directive.
                self.mapped = None;
                self.stmt_file = file;
            }
            self.stmt_line = Some(line);
        }
    }

    // ---- items ----

    fn write(&mut self) {
        let k = self.k;
        let mut params = Vec::new();
        for p in &k.params {
            match p.kind {
                ParamKind::Scalar { local, ty } => {
                    params.push(format!(
                        "{} {}",
                        c_type(ty),
                        self.local_names[local.index()]
                    ));
                }
                ParamKind::Slice { array } => {
                    let a = k.arrays.get(array);
                    let constness = match a.kind {
                        ArrayKind::Global { mutable: false } => "const ",
                        _ => "",
                    };
                    params.push(format!(
                        "{constness}{}* __restrict__ {}",
                        c_type(a.elem),
                        self.array_names[array.index()]
                    ));
                    params.push(format!(
                        "unsigned long long {}",
                        self.len_names[array.index()]
                    ));
                }
            }
        }
        if self.uses_record {
            params.push("unsigned int* __restrict__ cuphase_record".into());
            params.push("unsigned int cuphase_kernel".into());
        }
        let bounds = k
            .options
            .launch_bounds
            .map(|n| format!("__launch_bounds__({n}) "))
            .unwrap_or_default();
        self.map_to(k.name_span);
        let one_line = format!(
            "extern \"C\" __global__ void {bounds}{}({}) {{",
            k.name,
            params.join(", ")
        );
        if one_line.len() <= 100 {
            self.line(&one_line);
        } else {
            self.line(&format!("extern \"C\" __global__ void {bounds}{}(", k.name));
            // The parameter lines follow the signature's first line: no `#line` between them.
            self.stmt_line = None;
            let n = params.len();
            for (i, p) in params.iter().enumerate() {
                let sep = if i + 1 < n { "," } else { ") {" };
                self.line(&format!("    {p}{sep}"));
            }
        }
        self.indent += 1;
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Shared { dynamic: true, .. } = &a.kind {
                // The launch sizes it: `Launch::shared_bytes`.
                self.map_to(k.arrays.span(h));
                let ct = c_type(a.elem);
                let name = self.array_names[h.index()].clone();
                let len = self.len_names[h.index()].clone();
                self.uses_dynamic_shared = true;
                self.line(
                    "extern __shared__ __align__(16) unsigned char cuphase_dynamic_shared[];",
                );
                self.line(&format!(
                    "{ct}* const {name} = reinterpret_cast<{ct}*>(cuphase_dynamic_shared);"
                ));
                let sized_by = match &a.kind {
                    ArrayKind::Shared {
                        len_param: Some(n), ..
                    } => k
                        .params
                        .iter()
                        .find(|p| p.name == *n)
                        .and_then(|p| match p.kind {
                            ParamKind::Scalar { local, .. } => {
                                Some(self.local_name(local).to_string())
                            }
                            ParamKind::Slice { .. } => None,
                        }),
                    _ => None,
                };
                // Read by `.len()` and bounds checks, so possibly by neither.
                match sized_by {
                    // The launch gives it `N` elements (the host glue sets the bytes).
                    Some(n) => self.line(&format!(
                        "[[maybe_unused]] const unsigned long long {len} = {n};"
                    )),
                    None => self.line(&format!(
                        "[[maybe_unused]] const unsigned long long {len} = cuphase::dynamic_shared_bytes() / sizeof({ct});"
                    )),
                }
                continue;
            }
            if let ArrayKind::Shared { dims, .. } = &a.kind {
                self.map_to(k.arrays.span(h));
                let dims: String = dims.iter().map(|d| format!("[{d}]")).collect();
                self.line(&format!(
                    "__shared__ {} {}{dims};",
                    c_type(a.elem),
                    self.array_names[h.index()]
                ));
            }
        }
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Local { dims, .. } = &a.kind {
                self.map_to(k.arrays.span(h));
                let dims: String = dims.iter().map(|d| format!("[{d}]")).collect();
                self.line(&format!(
                    "{} {}{dims};",
                    c_type(a.elem),
                    self.array_names[h.index()]
                ));
            }
        }
        if self.uses_record {
            self.line(&format!(
                "cuphase::Faults {FAULTS} = {{cuphase_record, cuphase_kernel, false}};"
            ));
        }
        self.block_body(&k.body);
        self.indent -= 1;
        self.line("}");
    }

    // ---- statements ----

    fn block_body(&mut self, b: &Block) {
        for (stmt, span) in b.iter() {
            self.inline_check = false;
            self.stmt(stmt, span);
            // A check inside the statement's expressions recorded a fault: stop this thread.
            if self.inline_check && !matches!(stmt, Stmt::Loop { .. } | Stmt::If { .. }) {
                self.line(&format!("if ({FAULTS}.hit) return;"));
            }
            self.inline_check = false;
        }
    }

    fn braced(&mut self, b: &Block) {
        self.indent += 1;
        self.block_body(b);
        self.indent -= 1;
    }

    fn local_name(&self, l: Handle<Local>) -> &str {
        &self.local_names[l.index()]
    }

    fn label_name(&self, l: Handle<Label>) -> String {
        format!("{}_{}", self.k.labels.get(l).name, l.index())
    }

    fn place(&mut self, p: &Place) -> Rendered {
        match p {
            Place::Local(l) => Rendered::atom(self.local_name(*l).to_string()),
            Place::Element { array, index } => self.element(*array, index),
        }
    }

    /// The length of dimension `d` of an array, as C text.
    fn dim_len(&self, array: Handle<Array>, d: usize) -> String {
        match &self.k.arrays.get(array).kind {
            ArrayKind::Global { .. } | ArrayKind::Shared { dynamic: true, .. } => {
                self.len_names[array.index()].clone()
            }
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => {
                format!("{}ull", dims.get(d).copied().unwrap_or(0))
            }
        }
    }

    /// Whether index `d` of `array` is a literal inside a fixed dimension: no check needed.
    fn statically_in_bounds(&self, array: Handle<Array>, d: usize, ix: Handle<Expr>) -> bool {
        let dims = match &self.k.arrays.get(array).kind {
            ArrayKind::Shared { dynamic: true, .. } | ArrayKind::Global { .. } => return false,
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => dims,
        };
        match (self.k.exprs.get(ix), dims.get(d)) {
            (Expr::Literal(Literal::Int { value, .. }), Some(n)) => {
                *value >= 0 && *value < i128::from(*n)
            }
            _ => false,
        }
    }

    /// Bounds checks of a write (or atomic) to `array[index]`, as guards before the statement.
    fn guard_element(&mut self, array: Handle<Array>, index: &[Handle<Expr>], span: Span) {
        if !self.checks {
            return;
        }
        let name = self.k.arrays.get(array).name.clone();
        for (d, ix) in index.iter().enumerate() {
            if self.statically_in_bounds(array, d, *ix) {
                continue;
            }
            let i = self.expr(*ix);
            let len = self.dim_len(array, d);
            let site = self.site(FaultKind::OutOfBounds(name.clone()), span);
            let i_text = format!("(unsigned long long){}", i.at_least(prec::UNARY));
            self.guard(&format!("{i_text} >= {len}"), site, &i_text, &len);
        }
    }

    /// `array[index]` read with bounds checks: each index goes through `cuphase::idx`.
    fn checked_element(
        &mut self,
        array: Handle<Array>,
        index: &[Handle<Expr>],
        span: Span,
    ) -> Rendered {
        if !self.checks {
            return self.element(array, index);
        }
        let name = self.k.arrays.get(array).name.clone();
        let mut s = self.array_names[array.index()].clone();
        for (d, ix) in index.iter().enumerate() {
            let r = self.expr(*ix);
            if self.statically_in_bounds(array, d, *ix) {
                let _ = write!(s, "[{}]", r.text);
                continue;
            }
            let len = self.dim_len(array, d);
            let site = self.site(FaultKind::OutOfBounds(name.clone()), span);
            self.inline_check = true;
            let _ = write!(s, "[cuphase::idx({FAULTS}, {}, {len}, {site}u)]", r.text);
        }
        Rendered::atom(s)
    }

    fn element(&mut self, array: Handle<Array>, index: &[Handle<Expr>]) -> Rendered {
        let mut s = self.array_names[array.index()].clone();
        for ix in index {
            let r = self.expr(*ix);
            let _ = write!(s, "[{}]", r.text);
        }
        Rendered::atom(s)
    }

    fn stmt(&mut self, s: &Stmt, span: Span) {
        match s {
            Stmt::Let { local, init } => {
                let t = self.types.local(*local);
                let name = self.local_name(*local).to_string();
                let l = self.k.locals.get(*local);
                self.map_to(span);
                match init {
                    Some(e) => {
                        let v = self.expr(*e);
                        let constness = if l.mutable { "" } else { "const " };
                        self.line(&format!("{constness}{} {name} = {};", c_type(t), v.text));
                    }
                    None => self.line(&format!("{} {name};", c_type(t))),
                }
            }
            Stmt::Assign { place, op, value } => {
                self.map_to(span);
                if let Place::Element { array, index } = place {
                    let index = index.clone();
                    self.guard_element(*array, &index, span);
                }
                let target = self.place(place);
                let v = self.expr(*value);
                let line = match op {
                    None => format!("{} = {};", target.text, v.text),
                    Some(op) => {
                        let t = self.types.expr(*value);
                        let lt = match place {
                            Place::Local(l) => self.types.local(*l),
                            Place::Element { array, .. } => self.k.arrays.get(*array).elem,
                        };
                        let t = if op.is_shift() { lt } else { t };
                        if let Some(call) =
                            self.checked_division(*op, lt, *value, &target, &v, span)
                        {
                            format!("{} = {};", target.text, call.text)
                        } else if self.plain_compound(*op, t) {
                            let rhs = if op.is_shift() {
                                self.shift_amount(v, self.types.expr(*value), lt)
                            } else {
                                v.text
                            };
                            format!("{} {}= {};", target.text, op.symbol(), rhs)
                        } else {
                            let r =
                                self.binary(*op, lt, self.types.expr(*value), target.clone(), v);
                            format!("{} = {};", target.text, r.text)
                        }
                    }
                };
                self.line(&line);
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                self.map_to(span);
                let c = self.expr(*cond);
                self.line(&format!("if ({}) {{", c.text));
                self.if_tail(accept, reject);
            }
            Stmt::Loop { label, kind, body } => self.loop_stmt(*label, kind, body, span),
            Stmt::Break { label } => {
                self.map_to(span);
                let text = self.jump("break", *label);
                self.line(&text);
            }
            Stmt::Continue { label } => {
                self.map_to(span);
                let text = self.jump("continue", *label);
                self.line(&text);
            }
            Stmt::Return => {
                self.map_to(span);
                self.line("return;");
            }
            Stmt::Barrier { .. } => {
                self.map_to(span);
                self.line("__syncthreads();");
            }
            Stmt::Fence(scope) => {
                self.map_to(span);
                self.line(match scope {
                    FenceScope::Block => "__threadfence_block();",
                    FenceScope::Device => "__threadfence();",
                    FenceScope::System => "__threadfence_system();",
                });
            }
            Stmt::Block(b) => {
                self.map_to(span);
                self.line("{");
                self.braced(b);
                self.line("}");
            }
            Stmt::Atomic {
                op,
                array,
                index,
                value,
                result,
            } => {
                self.map_to(span);
                self.guard_element(*array, &[*index], span);
                let call = self.atomic(*op, *array, *index, *value);
                match result {
                    Some(r) => {
                        let name = self.local_name(*r).to_string();
                        self.line(&format!("{name} = {call};"));
                    }
                    None => self.line(&format!("{call};")),
                }
            }
            Stmt::Eval(e) => {
                self.map_to(span);
                let v = self.expr(*e);
                self.line(&format!("(void)({});", v.text));
            }
            Stmt::Warp {
                op,
                value,
                lane,
                result,
            } => {
                self.map_to(span);
                self.uses_warp = true;
                if *op == WarpOp::Sync {
                    self.line("__syncwarp(cuphase::warp_mask());");
                    return;
                }
                let (Some(v), Some(r)) = (value, result) else {
                    return;
                };
                let t = self.types.expr(*v);
                let vt = self.expr(*v).text;
                let name = self.local_name(*r).to_string();
                let call = match op {
                    WarpOp::Ballot | WarpOp::All | WarpOp::Any => {
                        format!("cuphase::{}({vt})", op.name())
                    }
                    _ => {
                        let l = lane.map(|l| self.expr(l).text).unwrap_or_default();
                        // `__shfl_sync` takes 32- and 64-bit values: narrow ones travel as
                        // `int` or `unsigned int`.
                        if is_narrow(t) || t == Scalar::Bool || t.is_half() {
                            let wide = if t.is_unsigned_int() || t.is_half() {
                                "unsigned int"
                            } else {
                                "int"
                            };
                            format!("({})cuphase::{}(({wide}){vt}, {l})", c_type(t), op.name())
                        } else {
                            format!("cuphase::{}({vt}, {l})", op.name())
                        }
                    }
                };
                self.line(&format!("{name} = {call};"));
            }
            Stmt::Panic {
                message,
                debug_only,
            } => {
                // `debug_assert!` is compiled in the debug (bounds-checked) variant only.
                if *debug_only && !self.checks {
                    return;
                }
                self.map_to(span);
                let site = self.site(FaultKind::Panic(message.clone()), span);
                self.line(&format!("cuphase::report({FAULTS}, {site}u, 0ull, 0ull);"));
                self.line("return;");
            }
        }
    }

    /// `receiver.method(args)` with Rust's meaning.
    fn method(
        &mut self,
        h: Handle<Expr>,
        m: Method,
        receiver: Handle<Expr>,
        args: &[Handle<Expr>],
    ) -> Rendered {
        let t = self.types.expr(receiver);
        let x = self.expr(receiver);
        let a: Vec<Rendered> = args.iter().map(|a| self.expr(*a)).collect();
        let arg = |i: usize| a.get(i).map_or(String::new(), |r| r.text.clone());
        let call = |f: &str, args: &[String]| Rendered::atom(format!("{f}({})", args.join(", ")));
        if t.is_float() {
            let suffix = if t == Scalar::F32 { "f" } else { "" };
            let libm = |base: &str| format!("{base}{suffix}");
            return match m {
                Method::Sqrt => call(&libm("sqrt"), &[x.text]),
                Method::Exp => call(&libm("exp"), &[x.text]),
                Method::Exp2 => call(&libm("exp2"), &[x.text]),
                Method::Ln => call(&libm("log"), &[x.text]),
                Method::Log2 => call(&libm("log2"), &[x.text]),
                Method::Log10 => call(&libm("log10"), &[x.text]),
                Method::Sin => call(&libm("sin"), &[x.text]),
                Method::Cos => call(&libm("cos"), &[x.text]),
                Method::Tan => call(&libm("tan"), &[x.text]),
                Method::Tanh => call(&libm("tanh"), &[x.text]),
                Method::Powf => call(&libm("pow"), &[x.text, arg(0)]),
                Method::Floor => call(&libm("floor"), &[x.text]),
                Method::Ceil => call(&libm("ceil"), &[x.text]),
                Method::Round => call(&libm("round"), &[x.text]),
                Method::Trunc => call(&libm("trunc"), &[x.text]),
                Method::MulAdd => call(&libm("fma"), &[x.text, arg(0), arg(1)]),
                Method::Abs => call(&libm("fabs"), &[x.text]),
                Method::Min => {
                    let y = a[0].clone();
                    self.helper("fmin", t, &[&x, &y])
                }
                Method::Max => {
                    let y = a[0].clone();
                    self.helper("fmax", t, &[&x, &y])
                }
                Method::Recip => Rendered {
                    text: format!(
                        "{} / {}",
                        if t == Scalar::F32 { "1.0f" } else { "1.0" },
                        x.at_least(prec::MULTIPLICATIVE + 1)
                    ),
                    prec: prec::MULTIPLICATIVE,
                    op: Some(BinaryOp::Div),
                },
                Method::Powi => self.helper2("powi", t, &[x.text, arg(0)]),
                Method::Clamp => self.clamp(h, t, x, &a),
                _ => x,
            };
        }
        let u = c_type(unsigned_of(t));
        let bits = t.bits();
        // The operand as the unsigned type the bit intrinsics take, and as the signed one
        // `__clz`/`__ffs` declare; no cast where the type already is the one needed.
        let as_uint = |x: &Rendered| -> String {
            match t {
                Scalar::U32 | Scalar::U64 | Scalar::Usize => x.text.clone(),
                Scalar::I64 => format!("(unsigned long long){}", x.at_least(prec::UNARY)),
                Scalar::I32 => format!("(unsigned int){}", x.at_least(prec::UNARY)),
                _ => format!("(unsigned int)({u}){}", x.at_least(prec::UNARY)),
            }
        };
        let as_int = |x: &Rendered| -> String {
            match t {
                Scalar::I32 | Scalar::I64 => x.text.clone(),
                Scalar::U32 => format!("(int){}", x.at_least(prec::UNARY)),
                Scalar::U64 | Scalar::Usize => format!("(long long){}", x.at_least(prec::UNARY)),
                _ => format!("(int)(unsigned int)({u}){}", x.at_least(prec::UNARY)),
            }
        };
        match m {
            Method::Abs => self.helper2("wrapping_abs", t, &[x.text]),
            Method::Pow => self.helper2("wrapping_pow", t, &[x.text, arg(0)]),
            Method::RotateLeft => self.helper2("rotate_left", t, &[x.text, arg(0)]),
            Method::RotateRight => self.helper2("rotate_right", t, &[x.text, arg(0)]),
            Method::Min | Method::Max => {
                let f = if m == Method::Min { "min" } else { "max" };
                if is_narrow(t) {
                    let r = call(
                        f,
                        &[
                            format!("(int){}", x.at_least(prec::UNARY)),
                            format!("(int){}", a[0].at_least(prec::UNARY)),
                        ],
                    );
                    Self::cast_text(t, &r)
                } else {
                    call(f, &[x.text, arg(0)])
                }
            }
            Method::CountOnes => {
                let f = if bits == 64 { "__popcll" } else { "__popc" };
                Self::cast_text(Scalar::U32, &call(f, &[as_uint(&x)]))
            }
            Method::LeadingZeros => {
                let f = if bits == 64 { "__clzll" } else { "__clz" };
                let c = Self::cast_text(Scalar::U32, &call(f, &[as_int(&x)]));
                if bits < 32 {
                    Rendered {
                        text: format!("{} - {}u", c.text, 32 - bits),
                        prec: prec::ADDITIVE,
                        op: Some(BinaryOp::Sub),
                    }
                } else {
                    c
                }
            }
            Method::TrailingZeros => {
                let f = if bits == 64 { "__ffsll" } else { "__ffs" };
                Rendered {
                    text: format!(
                        "{} == 0 ? {bits}u : (unsigned int)({f}({}) - 1)",
                        x.at_least(prec::EQUALITY + 1),
                        as_int(&x)
                    ),
                    prec: prec::TERNARY,
                    op: None,
                }
            }
            Method::WrappingAdd | Method::WrappingSub | Method::WrappingMul => {
                let op = match m {
                    Method::WrappingAdd => BinaryOp::Add,
                    Method::WrappingSub => BinaryOp::Sub,
                    _ => BinaryOp::Mul,
                };
                let r = a
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| Rendered::atom("0".into()));
                self.binary(op, t, t, x, r)
            }
            Method::Clamp => self.clamp(h, t, x, &a),
            _ => x,
        }
    }

    /// `x.clamp(lo, hi)`: Rust panics when `lo > hi` (or a bound is NaN).
    fn clamp(&mut self, h: Handle<Expr>, t: Scalar, x: Rendered, a: &[Rendered]) -> Rendered {
        // Literal bounds in order cannot panic: a plain expression.
        if let Expr::Method { args, .. } = self.k.exprs.get(h) {
            let lit = |e: Handle<Expr>| match self.k.exprs.get(e) {
                Expr::Literal(Literal::Int { value, .. }) => Some(*value as f64),
                Expr::Literal(Literal::Float { digits, .. }) => digits.parse::<f64>().ok(),
                _ => None,
            };
            if let (Some(lo), Some(hi)) = (
                args.first().and_then(|e| lit(*e)),
                args.get(1).and_then(|e| lit(*e)),
            ) {
                if lo <= hi {
                    let (l, hh) = (&a[0], &a[1]);
                    let xv = x.at_least(prec::RELATIONAL + 1);
                    return Rendered {
                        text: format!(
                            "{xv} < {} ? {} : ({xv} > {} ? {} : {})",
                            l.at_least(prec::RELATIONAL + 1),
                            l.text,
                            hh.at_least(prec::RELATIONAL + 1),
                            hh.text,
                            x.text
                        ),
                        prec: prec::TERNARY,
                        op: None,
                    };
                }
            }
        }
        let message = if t.is_float() {
            "min > max, or either was NaN"
        } else {
            "assertion failed: min <= max"
        };
        let site = self.site(FaultKind::Panic(message.into()), self.k.exprs.span(h));
        self.inline_check = true;
        let (lo, hi) = (
            a.first().map_or("0", |r| r.text.as_str()),
            a.get(1).map_or("0", |r| r.text.as_str()),
        );
        Rendered::atom(format!(
            "cuphase::clamp<{}>({FAULTS}, {}, {lo}, {hi}, {site}u)",
            c_type(t),
            x.text
        ))
    }

    /// A call of helper `name` for type `t`; the first argument is of type `t`. Narrow-typed
    /// expressions are `int` in C, so it is cast: overloads must see the exact type.
    fn helper2(&mut self, name: &'static str, t: Scalar, args: &[String]) -> Rendered {
        self.helpers.insert((name, t));
        let mut args = args.to_vec();
        if is_narrow(t) {
            if let Some(first) = args.first_mut() {
                *first = format!("({})({first})", c_type(t));
            }
        }
        Rendered::atom(format!("cuphase::{name}({})", args.join(", ")))
    }

    fn if_tail(&mut self, accept: &Block, reject: &Block) {
        self.braced(accept);
        if reject.stmts.is_empty() {
            self.line("}");
            return;
        }
        if let (
            [Stmt::If {
                cond,
                accept: a2,
                reject: r2,
            }],
            [span],
        ) = (&reject.stmts[..], &reject.spans[..])
        {
            self.map_to(*span);
            let c = self.expr(*cond);
            self.line(&format!("}} else if ({}) {{", c.text));
            self.if_tail(a2, r2);
            return;
        }
        self.line("} else {");
        self.braced(reject);
        self.line("}");
    }

    fn jump(&self, word: &str, label: Option<Handle<Label>>) -> String {
        match label {
            Some(l) if self.loops.last().and_then(|c| c.label) != Some(l) => {
                format!("goto {}_{word};", self.label_name(l))
            }
            _ => format!("{word};"),
        }
    }

    fn loop_stmt(
        &mut self,
        label: Option<Handle<Label>>,
        kind: &LoopKind,
        body: &Block,
        span: Span,
    ) {
        let (break_used, continue_used) = match label {
            Some(l) => label_uses(body, l, 0),
            None => (false, false),
        };
        self.map_to(span);
        // `step_by(0)` panics in Rust; a negative step has no Rust meaning.
        if let LoopKind::For { step: Some(st), .. } = kind {
            let literal_ok = matches!(self.k.exprs.get(*st), Expr::Literal(Literal::Int { value, .. }) if *value > 0);
            if !literal_ok {
                let t = self.types.expr(*st);
                let r = self.expr(*st);
                let v = r.at_least(prec::RELATIONAL + 1);
                let cond = if t.is_signed_int() {
                    format!("{v} <= 0")
                } else {
                    format!("{v} == 0")
                };
                let site = self.site(FaultKind::ZeroStep, span);
                let value = format!("(unsigned long long){}", r.at_least(prec::UNARY));
                self.guard(&cond, site, &value, "0ull");
            }
        }
        match kind {
            LoopKind::Infinite => self.line("for (;;) {"),
            LoopKind::While { cond } => {
                let c = self.expr(*cond);
                self.line(&format!("while ({}) {{", c.text));
            }
            LoopKind::For {
                var,
                start,
                end,
                step,
                distribution,
            } => {
                let header = self.for_header(*var, *start, *end, *step, *distribution);
                self.line(&header);
            }
        }
        self.loops.push(LoopCtx { label });
        self.indent += 1;
        if continue_used {
            // The body gets its own scope so that `goto` never jumps into the scope of a
            // declaration.
            self.line("{");
            self.braced(body);
            self.line("}");
            if let Some(l) = label {
                let name = self.label_name(l);
                self.line(&format!("{name}_continue:;"));
            }
        } else {
            self.block_body(body);
        }
        self.indent -= 1;
        self.loops.pop();
        self.line("}");
        if break_used {
            if let Some(l) = label {
                let name = self.label_name(l);
                self.line(&format!("{name}_break:;"));
            }
        }
    }

    fn for_header(
        &mut self,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        distribution: Distribution,
    ) -> String {
        let t = self.types.local(var);
        let ct = c_type(t);
        let name = self.local_name(var).to_string();
        let s = self.expr(start);
        let e = self.expr(end);
        let step_r = step.map(|st| {
            let r = self.expr(st);
            self.convert(r, self.types.expr(st), t)
        });
        // Thread and block ids in the loop's type.
        let id = |this: &mut Self, text: &str| -> Rendered {
            this.convert(
                Rendered {
                    text: text.to_string(),
                    prec: if text.contains(' ') {
                        prec::ADDITIVE
                    } else {
                        prec::PRIMARY
                    },
                    op: None,
                },
                Scalar::U32,
                t,
            )
        };
        let (offset, stride): (Option<Rendered>, Option<Rendered>) = match distribution {
            Distribution::Sequential => (None, None),
            Distribution::ThreadsInBlock => {
                (Some(id(self, "threadIdx.x")), Some(id(self, "blockDim.x")))
            }
            Distribution::BlocksInGrid => {
                (Some(id(self, "blockIdx.x")), Some(id(self, "gridDim.x")))
            }
            Distribution::ThreadsInGrid => (
                Some(id(self, "blockIdx.x * blockDim.x + threadIdx.x")),
                Some(Rendered {
                    text: {
                        let g = id(self, "gridDim.x");
                        let b = id(self, "blockDim.x");
                        format!(
                            "{} * {}",
                            g.at_least(prec::MULTIPLICATIVE),
                            b.at_least(prec::MULTIPLICATIVE + 1)
                        )
                    },
                    prec: prec::MULTIPLICATIVE,
                    op: None,
                }),
            ),
        };
        let mul = |a: Rendered, b: &Option<Rendered>| -> Rendered {
            match b {
                None => a,
                Some(b) => Rendered {
                    text: format!(
                        "{} * {}",
                        a.at_least(prec::MULTIPLICATIVE),
                        b.at_least(prec::MULTIPLICATIVE + 1)
                    ),
                    prec: prec::MULTIPLICATIVE,
                    op: Some(BinaryOp::Mul),
                },
            }
        };
        let first = match offset {
            None => s.text.clone(),
            Some(off) => {
                let off = mul(off, &step_r);
                if is_zero_literal(self.k, start) {
                    off.text
                } else {
                    format!(
                        "{} + {}",
                        s.at_least(prec::ADDITIVE),
                        off.at_least(prec::ADDITIVE + 1)
                    )
                }
            }
        };
        let increment = match (stride, &step_r) {
            (None, None) => format!("++{name}"),
            (None, Some(st)) => format!("{name} += {}", st.text),
            (Some(sd), st) => format!("{name} += {}", mul(sd, st).text),
        };
        let mut init = format!("{ct} {name} = {first}");
        let bound = if self.is_stable(end) {
            e.at_least(prec::RELATIONAL + 1)
        } else {
            // Rust evaluates the range once; C would re-evaluate the condition's operand.
            let end_name = self.namer.call(&format!("{name}_end"));
            let _ = write!(init, ", {end_name} = {}", e.text);
            end_name
        };
        format!("for ({init}; {name} < {bound}; {increment}) {{")
    }

    /// The CUDA atomic call of `array.atomic_op(index, value)`; its value is the old element.
    fn atomic(
        &mut self,
        op: AtomicOp,
        array: Handle<Array>,
        index: Handle<Expr>,
        value: Handle<Expr>,
    ) -> String {
        let elem = self.k.arrays.get(array).elem;
        let place = self.element(array, &[index]).text;
        let v = self.expr(value);
        let name = match op {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Exchange => "atomicExch",
        };
        let ull = "unsigned long long";
        match (op, elem) {
            // CUDA has no 64-bit atomicSub: add the two's complement negation.
            (AtomicOp::Sub, Scalar::U64) => format!(
                "atomicAdd(&{place}, 0ull - {})",
                v.at_least(prec::ADDITIVE + 1)
            ),
            (AtomicOp::Sub, Scalar::I64) => {
                format!(
                    "(long long)atomicAdd(({ull}*)&{place}, 0ull - ({ull}){})",
                    v.at_least(prec::UNARY)
                )
            }
            // Wrapping add, bit operations and exchange on `long long` use the unsigned type.
            (
                AtomicOp::Add | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Exchange,
                Scalar::I64,
            ) => {
                format!(
                    "(long long){name}(({ull}*)&{place}, ({ull}){})",
                    v.at_least(prec::UNARY)
                )
            }
            _ => format!("{name}(&{place}, {})", v.text),
        }
    }

    /// Whether an expression has the same value at every evaluation inside a loop body.
    fn is_stable(&self, e: Handle<Expr>) -> bool {
        match self.k.exprs.get(e) {
            Expr::Literal(_) | Expr::Builtin { .. } | Expr::Len(_) => true,
            Expr::Local(l) => !self.k.locals.get(*l).mutable,
            Expr::Load { .. } => false,
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => self.is_stable(*expr),
            Expr::Method { receiver, args, .. } => {
                self.is_stable(*receiver) && args.iter().all(|a| self.is_stable(*a))
            }
            Expr::Binary { left, right, .. } => self.is_stable(*left) && self.is_stable(*right),
            Expr::AssumeUniform(inner) => self.is_stable(*inner),
            Expr::UniformLoad { .. } => false,
            Expr::Select {
                cond,
                accept,
                reject,
            } => self.is_stable(*cond) && self.is_stable(*accept) && self.is_stable(*reject),
        }
    }

    // ---- expressions ----

    fn expr(&mut self, h: Handle<Expr>) -> Rendered {
        let t = self.types.expr(h);
        match self.k.exprs.get(h) {
            Expr::Literal(l) => literal(l, t),
            Expr::Local(l) => Rendered::atom(self.local_name(*l).to_string()),
            Expr::Builtin { builtin, axis } => {
                let a = axis.name();
                match builtin {
                    Builtin::ThreadIdx => Rendered::atom(format!("threadIdx.{a}")),
                    Builtin::BlockIdx => Rendered::atom(format!("blockIdx.{a}")),
                    Builtin::BlockDim => Rendered::atom(format!("blockDim.{a}")),
                    Builtin::GridDim => Rendered::atom(format!("gridDim.{a}")),
                    Builtin::GlobalIdx => Rendered {
                        text: format!("blockIdx.{a} * blockDim.{a} + threadIdx.{a}"),
                        prec: prec::ADDITIVE,
                        op: Some(BinaryOp::Add),
                    },
                    // Warps are made of consecutive linear thread ids.
                    Builtin::LaneId => Rendered {
                        text: "((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) % 32u".into(),
                        prec: prec::MULTIPLICATIVE,
                        op: Some(BinaryOp::Rem),
                    },
                    Builtin::WarpSize => Rendered::atom("32u".into()),
                }
            }
            Expr::Len(a) => Rendered::atom(self.len_names[a.index()].clone()),
            Expr::Load { array, index } => {
                let index = index.clone();
                self.checked_element(*array, &index, self.k.exprs.span(h))
            }
            Expr::Unary { op, expr } => {
                let (op, expr) = (*op, *expr);
                let r = self.expr(expr);
                self.unary(op, t, r)
            }
            Expr::Binary { op, left, right } => {
                let (op, left, right) = (*op, *left, *right);
                let lt = self.types.expr(left);
                let rt = self.types.expr(right);
                let l = self.expr(left);
                let r = self.expr(right);
                let span = self.k.exprs.span(h);
                if lt.is_half() {
                    return self.half_binary(op, lt, l, r);
                }
                if let Some(call) = self.checked_division(op, lt, right, &l, &r, span) {
                    return call;
                }
                self.binary(op, lt, rt, l, r)
            }
            Expr::Cast { expr, to } => {
                let (expr, to) = (*expr, *to);
                // An integer literal that fits the target is written in the target type.
                if let Expr::Literal(Literal::Int { value, .. }) = self.k.exprs.get(expr) {
                    if int_fits(*value, to) {
                        return literal(
                            &Literal::Int {
                                value: *value,
                                suffix: Some(to),
                            },
                            to,
                        );
                    }
                }
                let from = self.types.expr(expr);
                let r = self.expr(expr);
                self.convert(r, from, to)
            }
            Expr::AssumeUniform(inner) => {
                let inner = *inner;
                self.expr(inner)
            }
            Expr::Method {
                method,
                receiver,
                args,
            } => {
                let (method, receiver, args) = (*method, *receiver, args.clone());
                self.method(h, method, receiver, &args)
            }
            Expr::UniformLoad { array, index } => {
                let index = index.clone();
                self.checked_element(*array, &index, self.k.exprs.span(h))
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let (cond, accept, reject) = (*cond, *accept, *reject);
                let c = self.expr(cond);
                let a = self.expr(accept);
                let b = self.expr(reject);
                Rendered {
                    text: format!(
                        "{} ? {} : {}",
                        c.at_least(prec::LOR),
                        a.at_least(prec::LOR),
                        b.at_least(prec::TERNARY)
                    ),
                    prec: prec::TERNARY,
                    op: None,
                }
            }
        }
    }

    fn cast_text(to: Scalar, r: &Rendered) -> Rendered {
        Rendered {
            text: format!("({}){}", c_type(to), r.at_least(prec::UNARY)),
            prec: prec::UNARY,
            op: None,
        }
    }

    /// `r as to`, with Rust's meaning.
    fn convert(&mut self, r: Rendered, from: Scalar, to: Scalar) -> Rendered {
        // `half` types convert through `float`, as the simulator does.
        if from.is_half() && from != to {
            let f = self.half_to_f32(from, &r);
            return self.convert(f, Scalar::F32, to);
        }
        if to.is_half() && from != to {
            let f = self.convert(r, from, Scalar::F32);
            return self.half_from_f32(to, &f);
        }
        if from == to
            || (matches!(from, Scalar::U64 | Scalar::Usize)
                && matches!(to, Scalar::U64 | Scalar::Usize))
        {
            return r;
        }
        if from.is_float() && to.is_int() {
            // Rust's `as` saturates and maps NaN to 0; NVVM's conversions leave NaN and
            // out-of-range inputs undefined (NaN came back as `INT_MIN` on sm_90), so a helper
            // spells the rule out.
            let name = if from == Scalar::F32 {
                "f32_to"
            } else {
                "f64_to"
            };
            self.helpers.insert((name, to));
            return Rendered::atom(format!("cuphase::{name}_{}({})", to.rust_name(), r.text));
        }
        Self::cast_text(to, &r)
    }

    fn helper(&mut self, name: &'static str, t: Scalar, args: &[&Rendered]) -> Rendered {
        self.helpers.insert((name, t));
        let args: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
        Rendered::atom(format!("cuphase::{name}({})", args.join(", ")))
    }

    /// `r` of half type `t` as a `float`.
    fn half_to_f32(&mut self, t: Scalar, r: &Rendered) -> Rendered {
        self.uses_half = true;
        Rendered::atom(format!("cuphase::{}_to_f32({})", t.rust_name(), r.text))
    }

    /// A `float` rounded to half type `t`.
    fn half_from_f32(&mut self, t: Scalar, r: &Rendered) -> Rendered {
        self.uses_half = true;
        Rendered::atom(format!("cuphase::{}_from_f32({})", t.rust_name(), r.text))
    }

    /// `l op r` on `f16`/`bf16`: computed in `float`, rounded back (comparisons need no
    /// rounding).
    fn half_binary(&mut self, op: BinaryOp, t: Scalar, l: Rendered, r: Rendered) -> Rendered {
        let l = self.half_to_f32(t, &l);
        let r = self.half_to_f32(t, &r);
        let v = self.binary(op, Scalar::F32, Scalar::F32, l, r);
        if op.is_comparison() {
            v
        } else {
            self.half_from_f32(t, &v)
        }
    }

    fn unary(&mut self, op: UnaryOp, t: Scalar, r: Rendered) -> Rendered {
        if op == UnaryOp::Neg && t.is_half() {
            self.uses_half = true;
            return Rendered::atom(format!("cuphase::half_neg({})", r.text));
        }
        match op {
            UnaryOp::Neg if matches!(t, Scalar::I32 | Scalar::I64) => {
                self.helper("wrapping_neg", t, &[&r])
            }
            UnaryOp::Neg => {
                let inner = if r.text.starts_with('-') {
                    format!("({})", r.text)
                } else {
                    r.at_least(prec::UNARY)
                };
                let res = Rendered {
                    text: format!("-{inner}"),
                    prec: prec::UNARY,
                    op: None,
                };
                if is_narrow(t) {
                    Self::cast_text(t, &res)
                } else {
                    res
                }
            }
            UnaryOp::Not if t == Scalar::Bool => Rendered {
                text: format!("!{}", r.at_least(prec::UNARY)),
                prec: prec::UNARY,
                op: None,
            },
            UnaryOp::Not => {
                let res = Rendered {
                    text: format!("~{}", r.at_least(prec::UNARY)),
                    prec: prec::UNARY,
                    op: None,
                };
                if is_narrow(t) {
                    Self::cast_text(t, &res)
                } else {
                    res
                }
            }
        }
    }

    /// Integer `/` and `%` with Rust's panics (division by zero, `MIN / -1`) reported, unless
    /// the divisor is a literal that cannot fault.
    fn checked_division(
        &mut self,
        op: BinaryOp,
        t: Scalar,
        divisor: Handle<Expr>,
        l: &Rendered,
        r: &Rendered,
        span: Span,
    ) -> Option<Rendered> {
        if !matches!(op, BinaryOp::Div | BinaryOp::Rem) || !t.is_int() {
            return None;
        }
        if let Expr::Literal(Literal::Int { value, .. }) = self.k.exprs.get(divisor) {
            if *value != 0 && *value != -1 {
                return None;
            }
        }
        let (kind, f) = if op == BinaryOp::Div {
            (FaultKind::Div, "div")
        } else {
            (FaultKind::Rem, "rem")
        };
        let site = self.site(kind, span);
        self.inline_check = true;
        Some(Rendered::atom(format!(
            "cuphase::{f}<{}>({FAULTS}, {}, {}, {}, {site}u)",
            c_type(t),
            l.text,
            r.text,
            c_min(t)
        )))
    }

    /// Whether `place op= value` in C means the same as in Rust for operand type `t`.
    fn plain_compound(&self, op: BinaryOp, t: Scalar) -> bool {
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                t.is_float() || matches!(t, Scalar::U32 | Scalar::U64 | Scalar::Usize)
            }
            BinaryOp::Div => !is_narrow(t),
            BinaryOp::Rem => t.is_int() && !is_narrow(t),
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => true,
            BinaryOp::Shl => !is_narrow(t) && !t.is_signed_int(),
            BinaryOp::Shr => !is_narrow(t),
            _ => false,
        }
    }

    /// The shift amount masked to the width of `t`, as Rust's release builds do.
    fn shift_amount(&self, r: Rendered, rt: Scalar, t: Scalar) -> String {
        let mask = t.bits() - 1;
        if let Ok(v) = r.text.trim_end_matches(['u', 'l']).parse::<u64>() {
            if v <= u64::from(mask) {
                return r.text;
            }
        }
        let m = if rt.is_unsigned_int() {
            format!("{mask}u")
        } else {
            mask.to_string()
        };
        let operand = if r.op.is_some() && r.prec < prec::UNARY {
            format!("({})", r.text)
        } else {
            r.at_least(prec::BITAND + 1)
        };
        format!("({operand} & {m})")
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        lt: Scalar,
        rt: Scalar,
        l: Rendered,
        r: Rendered,
    ) -> Rendered {
        let p = binary_prec(op);
        let clarity = matches!(
            op,
            BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Shl
                | BinaryOp::Shr
                | BinaryOp::And
                | BinaryOp::Or
        );
        let operand = |x: &Rendered, min: u8| -> String {
            if clarity && x.op.is_some_and(|o| o != op) && x.prec < prec::UNARY {
                format!("({})", x.text)
            } else {
                x.at_least(min)
            }
        };
        let plain = |l: &Rendered, r: &str| -> Rendered {
            Rendered {
                text: format!("{} {} {}", operand(l, p), op.symbol(), r),
                prec: p,
                op: Some(op),
            }
        };
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul
                if matches!(lt, Scalar::I32 | Scalar::I64) =>
            {
                let name = match op {
                    BinaryOp::Add => "wrapping_add",
                    BinaryOp::Sub => "wrapping_sub",
                    _ => "wrapping_mul",
                };
                self.helper(name, lt, &[&l, &r])
            }
            BinaryOp::Mul if matches!(lt, Scalar::U8 | Scalar::U16) => {
                // `unsigned short * unsigned short` is a signed `int` product in C and may overflow.
                let res = Rendered {
                    text: format!(
                        "(unsigned int){} * {}",
                        l.at_least(prec::UNARY),
                        r.at_least(prec::MULTIPLICATIVE + 1)
                    ),
                    prec: p,
                    op: Some(op),
                };
                Self::cast_text(lt, &res)
            }
            BinaryOp::Rem if lt.is_float() => {
                let f = if lt == Scalar::F32 { "fmodf" } else { "fmod" };
                Rendered::atom(format!("{f}({}, {})", l.text, r.text))
            }
            BinaryOp::Shl if lt.is_signed_int() => {
                // Shifting a negative value left is undefined in C++17: shift its bits unsigned.
                let amount = self.shift_amount(r, rt, lt);
                let bits = Self::cast_text(unsigned_of(lt), &l);
                let res = Rendered {
                    text: format!("{} << {amount}", bits.text),
                    prec: p,
                    op: Some(op),
                };
                Self::cast_text(lt, &res)
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let amount = self.shift_amount(r, rt, lt);
                let res = plain(&l, &amount);
                if is_narrow(lt) && op == BinaryOp::Shl {
                    Self::cast_text(lt, &res)
                } else {
                    res
                }
            }
            _ => {
                let res = plain(&l, &operand(&r, p + 1));
                if is_narrow(lt)
                    && matches!(
                        op,
                        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
                    )
                {
                    Self::cast_text(lt, &res)
                } else {
                    res
                }
            }
        }
    }
}

/// The helper behind a float-to-integer `as`: NaN to 0, saturation at the target's bounds,
/// truncation toward zero in between. Each bound, written as a float, rounds to the first value
/// outside the range (or is exact), so the comparisons need no care about rounding.
fn float_to_int(from: &str, to: Scalar) -> String {
    let (f, fsuf) = if from == "f32" {
        ("float", "f")
    } else {
        ("double", "")
    };
    let (lo, lo_c, hi, hi_c, intr) = match to {
        Scalar::I8 => ("-128", "-128", "127", "127", "int"),
        Scalar::I16 => ("-32768", "-32768", "32767", "32767", "int"),
        Scalar::I32 => (
            "-2147483648",
            "-2147483647 - 1",
            "2147483647",
            "2147483647",
            "int",
        ),
        Scalar::I64 => (
            "-9223372036854775808",
            "-9223372036854775807LL - 1",
            "9223372036854775807",
            "9223372036854775807LL",
            "ll",
        ),
        Scalar::U8 => ("0", "0", "255", "255", "uint"),
        Scalar::U16 => ("0", "0", "65535", "65535", "uint"),
        Scalar::U32 => ("0", "0u", "4294967295", "4294967295u", "uint"),
        _ => (
            "0",
            "0ull",
            "18446744073709551615",
            "18446744073709551615ull",
            "ull",
        ),
    };
    let ct = c_type(to);
    let convert = if is_narrow(to) {
        format!("({ct})__{f}2{intr}_rz(a)")
    } else {
        format!("__{f}2{intr}_rz(a)")
    };
    format!(
        "__device__ __forceinline__ {ct} {from}_to_{}({f} a) {{ return a != a ? 0 : a <= {lo}.0{fsuf} ? {lo_c} : a >= {hi}.0{fsuf} ? {hi_c} : {convert}; }}",
        to.rust_name()
    )
}

fn unsigned_of(t: Scalar) -> Scalar {
    match t {
        Scalar::I8 => Scalar::U8,
        Scalar::I16 => Scalar::U16,
        Scalar::I32 => Scalar::U32,
        Scalar::I64 => Scalar::U64,
        other => other,
    }
}

fn is_zero_literal(k: &Kernel, e: Handle<Expr>) -> bool {
    matches!(k.exprs.get(e), Expr::Literal(Literal::Int { value: 0, .. }))
}

/// Whether a labelled loop's `break`/`continue` is used from a nested loop (needing `goto`).
fn label_uses(b: &Block, label: Handle<Label>, depth: usize) -> (bool, bool) {
    let mut uses = (false, false);
    for s in &b.stmts {
        let (br, co) = match s {
            Stmt::Break { label: Some(l) } if *l == label && depth > 0 => (true, false),
            Stmt::Continue { label: Some(l) } if *l == label && depth > 0 => (false, true),
            Stmt::If { accept, reject, .. } => {
                let a = label_uses(accept, label, depth);
                let r = label_uses(reject, label, depth);
                (a.0 || r.0, a.1 || r.1)
            }
            Stmt::Block(inner) => label_uses(inner, label, depth),
            Stmt::Loop { body, .. } => label_uses(body, label, depth + 1),
            _ => (false, false),
        };
        uses = (uses.0 || br, uses.1 || co);
    }
    uses
}

/// Whether `v` is a value of the integer type `t` (false for `bool` and the floats).
fn int_fits(v: i128, t: Scalar) -> bool {
    match t {
        Scalar::I8 => i8::try_from(v).is_ok(),
        Scalar::I16 => i16::try_from(v).is_ok(),
        Scalar::I32 => i32::try_from(v).is_ok(),
        Scalar::I64 => i64::try_from(v).is_ok(),
        Scalar::U8 => u8::try_from(v).is_ok(),
        Scalar::U16 => u16::try_from(v).is_ok(),
        Scalar::U32 => u32::try_from(v).is_ok(),
        Scalar::U64 | Scalar::Usize => u64::try_from(v).is_ok(),
        _ => false,
    }
}

fn literal(l: &Literal, t: Scalar) -> Rendered {
    match l {
        Literal::Bool(b) => Rendered::atom(b.to_string()),
        Literal::Int { value, .. } => {
            let v = *value;
            if t == Scalar::I32 && v == i128::from(i32::MIN) {
                return Rendered {
                    text: "(-2147483647 - 1)".into(),
                    prec: prec::PRIMARY,
                    op: None,
                };
            }
            if t == Scalar::I64 && v == i128::from(i64::MIN) {
                return Rendered {
                    text: "(-9223372036854775807ll - 1)".into(),
                    prec: prec::PRIMARY,
                    op: None,
                };
            }
            let suffix = match t {
                Scalar::U32 | Scalar::U8 | Scalar::U16 => "u",
                Scalar::I64 => "ll",
                Scalar::U64 | Scalar::Usize => "ull",
                _ => "",
            };
            let text = format!("{v}{suffix}");
            let p = if v < 0 { prec::UNARY } else { prec::PRIMARY };
            // C has no literals of the narrow types: cast, so that overloads see the type.
            if is_narrow(t) {
                let inner = if v < 0 { format!("({text})") } else { text };
                return Rendered {
                    text: format!("({}){inner}", c_type(t)),
                    prec: prec::UNARY,
                    op: None,
                };
            }
            Rendered {
                text,
                prec: p,
                op: None,
            }
        }
        Literal::Float { digits, .. } => {
            let text = if t == Scalar::F32 {
                let v: f32 = digits.parse().unwrap_or(f32::NAN);
                let body = float_text(f64::from(v), v.to_string(), format!("{v:e}"));
                if v.is_finite() {
                    format!("{body}f")
                } else {
                    body
                }
            } else {
                let v: f64 = digits.parse().unwrap_or(f64::NAN);
                float_text(v, v.to_string(), format!("{v:e}"))
            };
            let p = if text.starts_with('-') {
                prec::UNARY
            } else {
                prec::PRIMARY
            };
            Rendered {
                text,
                prec: p,
                op: None,
            }
        }
    }
}

/// A C float literal: the shorter of Rust's round-trip decimal and scientific forms, with a
/// decimal point or exponent so that C reads it as floating point.
fn float_text(v: f64, plain: String, sci: String) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "__int_as_float(0x7fc00000)".into()
        } else {
            "__int_as_float(0x7f800000)".into()
        };
    }
    let plain = if plain.contains('.') || plain.contains('e') {
        plain
    } else {
        format!("{plain}.0")
    };
    if sci.len() + 2 < plain.len() {
        sci
    } else {
        plain
    }
}
