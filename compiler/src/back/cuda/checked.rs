//! The `checked_*` integer operations in C: when each is `None` in Rust, and the value of
//! those whose C operator could fault or be undefined.
//!
//! Takes an operation and the operand type; gives the text of two kinds of helper:
//! `checked_<op>_ok(a[, b])`, whether Rust's `checked_<op>` is `Some`, and for the
//! operations that fault in C (division, remainder, their Euclidean forms, the logarithms,
//! the signed square root: those [`CheckedOp::wrapping`] has no total form for)
//! `checked_<op>_or_zero(a[, b])`, the value where it is `Some` and zero where it is not, with
//! no fault. The value of the other operations is their wrapping form, which the writer
//! renders. The panicking helpers of the same operations
//! (`div_euclid`, `ilog2`, ...) share this module's [`core`], so the two cannot disagree on a
//! value. A leaf module (it uses only [`super::syntax`]).

use super::syntax::{c_type, int_max, int_min, is_narrow, unsigned_of};
use crate::ir::{CheckedOp, Scalar};

/// Which of an operation's helpers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Part {
    /// `bool`: Rust's `checked_<op>` is `Some`.
    Ok,
    /// The value where it is `Some`, else zero.
    OrZero,
}

/// The helper's name, parameters and body for operand type `t`.
pub(super) fn text(op: CheckedOp, part: Part, t: Scalar) -> (String, String, String) {
    let ct = c_type(t);
    let name = match part {
        Part::Ok => format!("checked_{}_ok", op.name()),
        Part::OrZero => format!("checked_{}_or_zero", op.name()),
    };
    let params = match (op.arity(), op.u32_argument()) {
        (0, _) => format!("{ct} a"),
        (_, true) => format!("{ct} a, unsigned int b"),
        _ => format!("{ct} a, {ct} b"),
    };
    let body = match part {
        Part::Ok if op == CheckedOp::Pow => pow_ok(t),
        Part::Ok => format!("return {};", ok(op, t)),
        Part::OrZero => format!("if (!({})) return 0; {}", ok(op, t), core(op, t)),
    };
    (name, params, body)
}

/// The C condition, over operands `a` and `b`, under which `a.checked_<op>(b)` is `Some`.
pub(super) fn ok(op: CheckedOp, t: Scalar) -> String {
    let ct = c_type(t);
    let ut = c_type(unsigned_of(t));
    let signed = t.is_signed_int();
    let min = int_min(t);
    match op {
        // Signed: operands of one sign whose wrapped sum has the other overflowed.
        CheckedOp::Add if signed => {
            format!("(a < 0) != (b < 0) || ({ct})(({ut})a + ({ut})b) < 0 == (a < 0)")
        }
        CheckedOp::Add => format!("({ct})(a + b) >= a"),
        CheckedOp::Sub if signed => {
            format!("(a < 0) == (b < 0) || ({ct})(({ut})a - ({ut})b) < 0 == (a < 0)")
        }
        CheckedOp::Sub => "a >= b".to_string(),
        CheckedOp::Mul => mul_ok(t, "a", "b"),
        CheckedOp::Div | CheckedOp::Rem | CheckedOp::DivEuclid | CheckedOp::RemEuclid => {
            if signed {
                format!("b != 0 && !(a == {min} && b == ({ct})-1)")
            } else {
                "b != 0".to_string()
            }
        }
        CheckedOp::Neg if signed => format!("a != {min}"),
        CheckedOp::Neg => "a == 0".to_string(),
        CheckedOp::Abs => format!("a != {min}"),
        // (A loop: `text` writes its statements; there is no `or_zero` form.)
        CheckedOp::Pow => "false".to_string(),
        CheckedOp::Shl | CheckedOp::Shr => format!("b < {}u", t.bits()),
        CheckedOp::Ilog2 | CheckedOp::Ilog10 => "a > 0".to_string(),
        CheckedOp::Isqrt => "a >= 0".to_string(),
        // The greatest power of two of the type is the last that has a next one.
        CheckedOp::NextPowerOfTwo => {
            format!("a <= ({ct})(({ut})1 << {})", t.bits().saturating_sub(1))
        }
    }
}

/// The product `x * y` of type `t` fits `t`.
fn mul_ok(t: Scalar, x: &str, y: &str) -> String {
    let ct = c_type(t);
    let ut = c_type(unsigned_of(t));
    match (t.bits(), t.is_signed_int()) {
        // The high half of the full product is the sign extension of the low half.
        (64, true) => format!("__mul64hi({x}, {y}) == ({ct})(({ut}){x} * ({ut}){y}) >> 63"),
        (64, false) => format!("__umul64hi({x}, {y}) == 0"),
        // The exact product in 64 bits, against the bounds.
        (_, true) => format!(
            "(long long){x} * (long long){y} >= (long long){} && (long long){x} * (long long){y} <= (long long){}",
            int_min(t),
            int_max(t)
        ),
        _ => format!(
            "(unsigned long long){x} * (unsigned long long){y} <= (unsigned long long){}",
            int_max(t)
        ),
    }
}

/// The statements of `a.checked_pow(b)` is `Some`: Rust's square-and-multiply, failing at
/// the first product that does not fit (the base is squared only while bits of the exponent
/// remain).
fn pow_ok(t: Scalar) -> String {
    let ct = c_type(t);
    let ut = c_type(unsigned_of(t));
    format!(
        "{ct} r = 1, x = a; unsigned int e = b; if (e == 0) return true; for (;;) {{ if (e & 1u) {{ if (!({})) return false; r = ({ct})(({ut})r * ({ut})x); if (e == 1u) return true; }} e >>= 1; if (!({})) return false; x = ({ct})(({ut})x * ({ut})x); }}",
        mul_ok(t, "r", "x"),
        mul_ok(t, "x", "x")
    )
}

/// The statements that compute `a <op> b` of type `t` and return it, where the operation is
/// defined (the caller has checked [`ok`] or reported).
pub(super) fn core(op: CheckedOp, t: Scalar) -> String {
    let ct = c_type(t);
    let ut = c_type(unsigned_of(t));
    let wt = if is_narrow(t) { "unsigned int" } else { ut };
    let bits = t.bits();
    match op {
        CheckedOp::Div => format!("return ({ct})(a / b);"),
        CheckedOp::Rem => format!("return ({ct})(a % b);"),
        CheckedOp::DivEuclid if t.is_signed_int() => format!(
            "const {ct} q = ({ct})(a / b); if (({ct})(a % b) < 0) return b > 0 ? ({ct})(q - 1) : ({ct})(q + 1); return q;"
        ),
        CheckedOp::RemEuclid if t.is_signed_int() => format!(
            "const {ct} r = ({ct})(a % b); return r < 0 ? (b < 0 ? ({ct})(r - b) : ({ct})(r + b)) : r;"
        ),
        CheckedOp::DivEuclid => format!("return ({ct})(a / b);"),
        CheckedOp::RemEuclid => format!("return ({ct})(a % b);"),
        CheckedOp::Ilog2 if bits == 64 => format!("return ({ct})(63 - __clzll((long long)a));"),
        CheckedOp::Ilog2 => format!("return ({ct})(31 - __clz((int)({wt})a));"),
        CheckedOp::Ilog10 => {
            format!("{wt} x = ({wt})a; {ct} r = 0; while (x >= 10) {{ x /= 10; r++; }} return r;")
        }
        // From the double square root, corrected to the exact floor (comparisons by
        // division, which cannot overflow).
        CheckedOp::Isqrt => format!(
            "const unsigned long long v = (unsigned long long)a; unsigned long long r = (unsigned long long)sqrt((double)v); while (r > 0 && r > v / r) r--; while (r + 1 <= v / (r + 1)) r++; return ({ct})r;"
        ),
        // (The writer renders the others' values as their wrapping forms.)
        _ => "return 0;".to_string(),
    }
}
