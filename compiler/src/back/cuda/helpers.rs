//! The Rust-semantics helpers: small `__device__` functions in `namespace cuphase` that compute
//! what Rust means where C means something else (signed overflow wraps, rotations, `pow`,
//! `powi`, `fmin`/`fmax` with signed zeros, float-to-integer `as`).
//!
//! Takes the helpers a kernel called, each with the type it was called at (a [`Helpers`] set
//! the writer fills as it goes); gives their C definitions. [`Helper::text`] is the one table
//! that pairs each helper with its C name and text, so a call and its definition cannot
//! disagree. A leaf module (it uses only [`super::syntax`]).
//!
//! Guarantees: each `(helper, type)` is defined once, and definitions come out in a fixed
//! order (the [`Helper`] declaration order, then the type's), whatever the order of the calls.

use super::checked::{self, Part};
use super::syntax::{c_type, int_max, int_min, is_narrow, unsigned_of};
use crate::ir::{CheckedOp, Scalar};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A helper the writer calls instead of a C operator or library function.
///
/// The declaration order is the order of the definitions in the output: it is the order of
/// the helpers' C names (the writer used to key them by name), which the tests check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Helper {
    /// `a.abs_diff(b)`, in the operand type (the call casts it to the unsigned one).
    AbsDiff,
    /// `a.checked_op(b)`: whether it is `Some`, or its value ([`checked`]).
    Checked(CheckedOp, Part),
    /// `a.div_ceil(b)` of unsigned integers, reporting a zero divisor.
    DivCeil,
    /// `a.div_euclid(b)`: for integers reporting a zero divisor and `MIN / -1`.
    DivEuclid,
    /// `f32 as T` for an integer `T`: NaN to 0, saturating.
    F32ToInt,
    /// `f64 as T` for an integer `T`: NaN to 0, saturating.
    F64ToInt,
    /// `f.max(g)`, with `-0.0 < +0.0`.
    Fmax,
    /// `f.min(g)`, with `-0.0 < +0.0`.
    Fmin,
    /// `x.ilog10()`, reporting `x <= 0`.
    Ilog10,
    /// `x.ilog2()`, reporting `x <= 0`.
    Ilog2,
    /// `x.isqrt()`, reporting a negative `x`.
    Isqrt,
    /// `x.next_power_of_two()`, wrapping to 0 as a release build does.
    NextPowerOfTwo,
    /// `f.powi(n)`, as compiler-rt computes it.
    Powi,
    /// `a.rem_euclid(b)`: for integers reporting a zero divisor and `MIN % -1`.
    RemEuclid,
    /// `x.rotate_left(n)`.
    RotateLeft,
    /// `x.rotate_right(n)`.
    RotateRight,
    /// `x.saturating_add(y)`.
    SaturatingAdd,
    /// `x.saturating_mul(y)`.
    SaturatingMul,
    /// `x.saturating_sub(y)`.
    SaturatingSub,
    /// `f.signum()`: NaN for NaN, else one with the sign of `f`.
    Signum,
    /// `x.swap_bytes()`.
    SwapBytes,
    /// `x.abs()` of a signed integer, wrapping at `MIN`.
    WrappingAbs,
    /// `+` of a signed integer, wrapping.
    WrappingAdd,
    /// `*` of a signed integer, wrapping.
    WrappingMul,
    /// Unary `-` of a signed integer, wrapping.
    WrappingNeg,
    /// `x.pow(e)`, wrapping.
    WrappingPow,
    /// `x.wrapping_shl(n)`.
    WrappingShl,
    /// `x.wrapping_shr(n)`.
    WrappingShr,
    /// `-` of a signed integer, wrapping.
    WrappingSub,
}

/// The helpers a kernel uses, each with the type it is written for; iterated in output order.
pub(super) type Helpers = BTreeSet<(Helper, Scalar)>;

/// One helper's C text: `__device__ __forceinline__ <type> <name>(<params>) { <body> }`.
struct Text {
    name: String,
    params: String,
    body: String,
}

impl Helper {
    /// Every helper, in declaration order.
    #[cfg(test)]
    const ALL: [Helper; 51] = [
        Helper::AbsDiff,
        Helper::Checked(CheckedOp::Abs, Part::Ok),
        Helper::Checked(CheckedOp::Add, Part::Ok),
        Helper::Checked(CheckedOp::DivEuclid, Part::Ok),
        Helper::Checked(CheckedOp::DivEuclid, Part::OrZero),
        Helper::Checked(CheckedOp::Div, Part::Ok),
        Helper::Checked(CheckedOp::Div, Part::OrZero),
        Helper::Checked(CheckedOp::Ilog10, Part::Ok),
        Helper::Checked(CheckedOp::Ilog10, Part::OrZero),
        Helper::Checked(CheckedOp::Ilog2, Part::Ok),
        Helper::Checked(CheckedOp::Ilog2, Part::OrZero),
        Helper::Checked(CheckedOp::Isqrt, Part::Ok),
        Helper::Checked(CheckedOp::Isqrt, Part::OrZero),
        Helper::Checked(CheckedOp::Mul, Part::Ok),
        Helper::Checked(CheckedOp::Neg, Part::Ok),
        Helper::Checked(CheckedOp::NextPowerOfTwo, Part::Ok),
        Helper::Checked(CheckedOp::Pow, Part::Ok),
        Helper::Checked(CheckedOp::RemEuclid, Part::Ok),
        Helper::Checked(CheckedOp::RemEuclid, Part::OrZero),
        Helper::Checked(CheckedOp::Rem, Part::Ok),
        Helper::Checked(CheckedOp::Rem, Part::OrZero),
        Helper::Checked(CheckedOp::Shl, Part::Ok),
        Helper::Checked(CheckedOp::Shr, Part::Ok),
        Helper::Checked(CheckedOp::Sub, Part::Ok),
        Helper::DivCeil,
        Helper::DivEuclid,
        Helper::F32ToInt,
        Helper::F64ToInt,
        Helper::Fmax,
        Helper::Fmin,
        Helper::Ilog10,
        Helper::Ilog2,
        Helper::Isqrt,
        Helper::NextPowerOfTwo,
        Helper::Powi,
        Helper::RemEuclid,
        Helper::RotateLeft,
        Helper::RotateRight,
        Helper::SaturatingAdd,
        Helper::SaturatingMul,
        Helper::SaturatingSub,
        Helper::Signum,
        Helper::SwapBytes,
        Helper::WrappingAbs,
        Helper::WrappingAdd,
        Helper::WrappingMul,
        Helper::WrappingNeg,
        Helper::WrappingPow,
        Helper::WrappingShl,
        Helper::WrappingShr,
        Helper::WrappingSub,
    ];

    /// The helper's name and C text for type `t`: its operand type, or for the
    /// float-to-integer helpers the target type. The one table of the helpers.
    fn text(self, t: Scalar) -> Text {
        let ct = c_type(t);
        let ut = c_type(unsigned_of(t));
        // Narrow types are computed in `unsigned int` (C would promote them to `int`).
        let wt = if is_narrow(t) { "unsigned int" } else { ut };
        let bits = t.bits();
        let (name, params, body) = match self {
            Helper::F32ToInt | Helper::F64ToInt => {
                let (from, f, fsuf) = if self == Helper::F32ToInt {
                    ("f32", "float", "f")
                } else {
                    ("f64", "double", "")
                };
                let name = format!("{from}_to_{}", t.rust_name());
                return Text {
                    name,
                    params: format!("{f} a"),
                    body: float_to_int(f, fsuf, t),
                };
            }
            // The difference of the unsigned values: exact, as the distance fits the unsigned
            // type.
            Helper::AbsDiff => (
                "abs_diff",
                format!("{ct} a, {ct} b"),
                format!("return a > b ? ({ct})(({ut})a - ({ut})b) : ({ct})(({ut})b - ({ut})a);"),
            ),
            // The integer ones take the fault record: Rust panics where they report.
            Helper::DivCeil => (
                "div_ceil",
                format!("Faults& f, {ct} a, {ct} b, unsigned int site"),
                format!("if (b == 0) {{ report(f, site, 0, 0); return 0; }} const {ct} q = ({ct})(a / b); return a % b != 0 ? ({ct})(q + 1) : q;"),
            ),
            Helper::DivEuclid if t.is_float() => (
                "div_euclid",
                format!("{ct} a, {ct} b"),
                {
                    let (fm, tr, one) = float_names(t);
                    format!("const {ct} q = {tr}(a / b); if ({fm}(a, b) < 0) return b > 0 ? q - {one} : q + {one}; return q;")
                },
            ),
            Helper::DivEuclid => (
                "div_euclid",
                format!("Faults& f, {ct} a, {ct} b, unsigned int site"),
                format!("{}{}", div_reports(t), checked::core(CheckedOp::DivEuclid, t)),
            ),
            Helper::RemEuclid if t.is_float() => (
                "rem_euclid",
                format!("{ct} a, {ct} b"),
                {
                    let (fm, _, _) = float_names(t);
                    let abs = if t == Scalar::F32 { "fabsf" } else { "fabs" };
                    format!("const {ct} r = {fm}(a, b); return r < 0 ? r + {abs}(b) : r;")
                },
            ),
            Helper::RemEuclid => (
                "rem_euclid",
                format!("Faults& f, {ct} a, {ct} b, unsigned int site"),
                format!("{}{}", div_reports(t), checked::core(CheckedOp::RemEuclid, t)),
            ),
            Helper::Ilog2 | Helper::Ilog10 => (
                if self == Helper::Ilog2 { "ilog2" } else { "ilog10" },
                format!("Faults& f, {ct} a, unsigned int site"),
                format!(
                    "if ({}) {{ report(f, site, 0, 0); return 0; }} {}",
                    if t.is_signed_int() { "a <= 0" } else { "a == 0" },
                    checked::core(
                        if self == Helper::Ilog2 { CheckedOp::Ilog2 } else { CheckedOp::Ilog10 },
                        t
                    )
                ),
            ),
            Helper::Isqrt => (
                "isqrt",
                if t.is_signed_int() {
                    format!("Faults& f, {ct} a, unsigned int site")
                } else {
                    format!("{ct} a")
                },
                format!(
                    "{}{}",
                    if t.is_signed_int() { "if (a < 0) { report(f, site, 0, 0); return 0; } " } else { "" },
                    checked::core(CheckedOp::Isqrt, t)
                ),
            ),
            Helper::Checked(op, part) => {
                let (name, params, body) = checked::text(op, part, t);
                return Text { name, params, body };
            }
            Helper::NextPowerOfTwo => (
                "next_power_of_two",
                format!("{ct} a"),
                if bits == 64 {
                    format!("return a <= 1 ? ({ct})1 : ({ct})((~0ull >> __clzll((long long)(a - 1))) + 1ull);")
                } else {
                    format!("return a <= 1 ? ({ct})1 : ({ct})((~0u >> __clz((int)(unsigned int)(a - 1))) + 1u);")
                },
            ),
            Helper::WrappingAdd => (
                "wrapping_add",
                format!("{ct} a, {ct} b"),
                format!("return ({ct})(({ut})a + ({ut})b);"),
            ),
            Helper::WrappingSub => (
                "wrapping_sub",
                format!("{ct} a, {ct} b"),
                format!("return ({ct})(({ut})a - ({ut})b);"),
            ),
            Helper::WrappingMul => (
                "wrapping_mul",
                format!("{ct} a, {ct} b"),
                format!("return ({ct})(({ut})a * ({ut})b);"),
            ),
            // The amount is taken modulo the width, as Rust's `wrapping_shl` takes it.
            Helper::WrappingShl => (
                "wrapping_shl",
                format!("{ct} a, unsigned int n"),
                format!("return ({ct})(({wt})({ut})a << (n & {}u));", bits - 1),
            ),
            Helper::WrappingShr => (
                "wrapping_shr",
                format!("{ct} a, unsigned int n"),
                format!("return ({ct})(a >> (n & {}u));", bits - 1),
            ),
            Helper::WrappingNeg => (
                "wrapping_neg",
                format!("{ct} a"),
                format!("return ({ct})(0 - ({ut})a);"),
            ),
            // Narrow types through `int`: NVVM turned the other form into PTX `abs.s16`, which
            // ptxas computed in 32 bits (i16::MIN.abs() came back as +32768 once widened;
            // found by the differential test).
            Helper::WrappingAbs if is_narrow(t) => (
                "wrapping_abs",
                format!("{ct} a"),
                format!("return ({ct})::abs((int)a);"),
            ),
            // The negation goes through an empty `asm`, so that no pass sees an absolute
            // value: NVVM or ptxas take `abs(x)` to be non-negative and fold a later `< 0` to
            // false, while `i32::MIN.abs()` wraps to `MIN` (found by the differential test:
            // `if x.abs() < 0` took the wrong branch on the H200).
            Helper::WrappingAbs => (
                "wrapping_abs",
                format!("{ct} a"),
                format!(
                    "{ut} n = 0 - ({ut})a; asm(\"\" : \"+{}\"(n)); return a < 0 ? ({ct})n : a;",
                    if bits == 64 { "l" } else { "r" }
                ),
            ),
            Helper::WrappingPow => (
                "wrapping_pow",
                format!("{ct} a, unsigned int e"),
                format!(
                    "{wt} r = 1, b = ({ut})a; while (e) {{ if (e & 1u) r = ({ut})(r * b); b = ({ut})(b * b); e >>= 1; }} return ({ct})r;"
                ),
            ),
            Helper::RotateLeft => (
                "rotate_left",
                format!("{ct} a, unsigned int n"),
                format!(
                    "{wt} x = ({ut})a; n %= {bits}u; return n == 0 ? a : ({ct})(x << n | x >> ({bits}u - n));"
                ),
            ),
            Helper::RotateRight => (
                "rotate_right",
                format!("{ct} a, unsigned int n"),
                format!(
                    "{wt} x = ({ut})a; n %= {bits}u; return n == 0 ? a : ({ct})(x >> n | x << ({bits}u - n));"
                ),
            ),
            // Rust's `powi`: compiler-rt's square-and-multiply, so results match the host.
            Helper::Powi => (
                "powi",
                format!("{ct} a, int n"),
                format!(
                    "{ct} r = 1; bool recip = n < 0; unsigned int e = recip ? 0u - (unsigned int)n : (unsigned int)n; for (;;) {{ if (e & 1u) r *= a; e >>= 1; if (e == 0) break; a *= a; }} return recip ? 1 / r : r;"
                ),
            ),
            // Saturating arithmetic: the wrapped result, unless it overflowed (for signed
            // operands: it has the other sign than operands of one sign).
            Helper::SaturatingAdd if t.is_signed_int() => (
                "saturating_add",
                format!("{ct} a, {ct} b"),
                format!(
                    "{ct} r = ({ct})(({ut})a + ({ut})b); if ((a < 0) == (b < 0) && (r < 0) != (a < 0)) return a < 0 ? {} : {}; return r;",
                    int_min(t), int_max(t)
                ),
            ),
            Helper::SaturatingAdd => (
                "saturating_add",
                format!("{ct} a, {ct} b"),
                format!("{ct} r = ({ct})(a + b); return r < a ? {} : r;", int_max(t)),
            ),
            // The exact product in 64 bits, clamped; for 64-bit operands the high half of the
            // product says whether it fits.
            Helper::SaturatingMul if bits == 64 && t.is_signed_int() => (
                "saturating_mul",
                format!("{ct} a, {ct} b"),
                format!(
                    "const {ct} lo = ({ct})(({ut})a * ({ut})b); if (__mul64hi(a, b) != (lo >> 63)) return (a < 0) != (b < 0) ? {} : {}; return lo;",
                    int_min(t), int_max(t)
                ),
            ),
            Helper::SaturatingMul if bits == 64 => (
                "saturating_mul",
                format!("{ct} a, {ct} b"),
                format!("return __umul64hi(a, b) != 0 ? {} : a * b;", int_max(t)),
            ),
            Helper::SaturatingMul if t.is_signed_int() => (
                "saturating_mul",
                format!("{ct} a, {ct} b"),
                format!(
                    "const long long r = (long long)a * (long long)b; return r < (long long){min} ? {min} : r > (long long){max} ? {max} : ({ct})r;",
                    min = int_min(t), max = int_max(t)
                ),
            ),
            Helper::SaturatingMul => (
                "saturating_mul",
                format!("{ct} a, {ct} b"),
                format!(
                    "const unsigned long long r = (unsigned long long)a * (unsigned long long)b; return r > (unsigned long long){max} ? {max} : ({ct})r;",
                    max = int_max(t)
                ),
            ),
            // `__byte_perm` reverses the four bytes of a word.
            Helper::SwapBytes => (
                "swap_bytes",
                format!("{ct} a"),
                match bits {
                    8 => "return a;".to_string(),
                    16 => format!("const unsigned int x = ({ut})a; return ({ct})(x >> 8 | x << 8);"),
                    32 => format!("return ({ct})__byte_perm(({ut})a, 0u, 0x0123u);"),
                    _ => format!(
                        "const unsigned long long x = (unsigned long long)a; return ({ct})((unsigned long long)__byte_perm((unsigned int)x, 0u, 0x0123u) << 32 | __byte_perm((unsigned int)(x >> 32), 0u, 0x0123u));"
                    ),
                },
            ),
            Helper::SaturatingSub if t.is_signed_int() => (
                "saturating_sub",
                format!("{ct} a, {ct} b"),
                format!(
                    "{ct} r = ({ct})(({ut})a - ({ut})b); if ((a < 0) != (b < 0) && (r < 0) != (a < 0)) return a < 0 ? {} : {}; return r;",
                    int_min(t), int_max(t)
                ),
            ),
            Helper::SaturatingSub => (
                "saturating_sub",
                format!("{ct} a, {ct} b"),
                format!("return a > b ? ({ct})(a - b) : ({ct})0;"),
            ),
            // Rust returns its NaN constant for a NaN, not the operand.
            Helper::Signum => (
                "signum",
                format!("{ct} a"),
                if t == Scalar::F32 {
                    "return isnan(a) ? __int_as_float(0x7fc00000) : copysignf(1.0f, a);".to_string()
                } else {
                    "return isnan(a) ? __longlong_as_double(0x7ff8000000000000ll) : copysign(1.0, a);".to_string()
                },
            ),
            // `fmin`/`fmax` with -0.0 ordered below +0.0, which neither the instruction nor
            // NVVM's constant folding promises on its own.
            Helper::Fmin => (
                "fmin",
                format!("{ct} a, {ct} b"),
                format!(
                    "return a == b ? (signbit(a) ? a : b) : ::{}(a, b);",
                    if t == Scalar::F32 { "fminf" } else { "fmin" }
                ),
            ),
            Helper::Fmax => (
                "fmax",
                format!("{ct} a, {ct} b"),
                format!(
                    "return a == b ? (signbit(a) ? b : a) : ::{}(a, b);",
                    if t == Scalar::F32 { "fmaxf" } else { "fmax" }
                ),
            ),
        };
        Text {
            name: name.to_string(),
            params,
            body,
        }
    }

    /// The C name of the helper for type `t` (without the namespace): overloaded by type,
    /// except the float-to-integer helpers, which are named per target type.
    pub(super) fn name(self, t: Scalar) -> String {
        self.text(t).name
    }

    /// The C definition of the helper for type `t`, one line.
    fn definition(self, t: Scalar) -> String {
        let Text { name, params, body } = self.text(t);
        let returns = match self {
            Helper::Checked(_, Part::Ok) => "bool",
            _ => c_type(t),
        };
        format!("__device__ __forceinline__ {returns} {name}({params}) {{ {body} }}")
    }
}

/// Appends the definitions of `helpers` to `out`, in their namespace; nothing when it is empty.
pub(super) fn write_helpers(out: &mut String, helpers: &Helpers) {
    if helpers.is_empty() {
        return;
    }
    out.push_str(
        "\n// Rust's integer and float semantics where C's differ.\nnamespace cuphase {\n",
    );
    for (h, t) in helpers {
        let _ = writeln!(out, "{}", h.definition(*t));
    }
    out.push_str("}  // namespace cuphase\n");
}

/// The body of a float-to-integer `as` helper from float type `f` (literal suffix `fsuf`):
/// NaN to 0, saturation at the target's bounds, truncation toward zero in between. Each bound,
/// written as a float, rounds to the first value outside the range (or is exact), so the
/// comparisons need no care about rounding.
fn float_to_int(f: &str, fsuf: &str, to: Scalar) -> String {
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
    let convert = if is_narrow(to) {
        format!("({})__{f}2{intr}_rz(a)", c_type(to))
    } else {
        format!("__{f}2{intr}_rz(a)")
    };
    format!(
        "return a != a ? 0 : a <= {lo}.0{fsuf} ? {lo_c} : a >= {hi}.0{fsuf} ? {hi_c} : {convert};"
    )
}

/// The reports of a division's zero divisor (value 0) and, for signed types, of
/// `MIN / -1` (value 1), which Rust panics at.
fn div_reports(t: Scalar) -> String {
    let zero = "if (b == 0) { report(f, site, 0, 0); return 0; } ";
    if t.is_signed_int() {
        let ct = c_type(t);
        format!(
            "{zero}if (a == {} && b == ({ct})-1) {{ report(f, site, 1, 0); return 0; }} ",
            int_min(t)
        )
    } else {
        zero.to_string()
    }
}

/// `fmod`, `trunc` and the literal one of a float type, as C names them.
fn float_names(t: Scalar) -> (&'static str, &'static str, &'static str) {
    if t == Scalar::F32 {
        ("fmodf", "truncf", "1.0f")
    } else {
        ("fmod", "trunc", "1.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaration_order_is_the_order_of_the_c_names() {
        // The output lists helpers in the enum's order; it must stay the order of their
        // names, which is what the snapshots were written in.
        let names: Vec<String> = Helper::ALL.iter().map(|h| h.name(Scalar::I32)).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        let mut by_enum = Helper::ALL.to_vec();
        by_enum.sort();
        assert_eq!(by_enum, Helper::ALL.to_vec());
    }

    #[test]
    fn a_definition_declares_the_name_a_call_uses() {
        for h in Helper::ALL {
            for t in [
                Scalar::I8,
                Scalar::I32,
                Scalar::U64,
                Scalar::F32,
                Scalar::F64,
            ] {
                let def = h.definition(t);
                assert!(def.contains(&format!(" {}(", h.name(t))), "{def}");
            }
        }
        assert_eq!(
            Helper::F32ToInt.definition(Scalar::U8),
            "__device__ __forceinline__ unsigned char f32_to_u8(float a) { return a != a ? 0 : a <= 0.0f ? 0 : a >= 255.0f ? 255 : (unsigned char)__float2uint_rz(a); }"
        );
    }
}
