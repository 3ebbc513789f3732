//! Method calls on scalars (`x.sqrt()`, `x.count_ones()`, `x.wrapping_add(y)`, ...).
//!
//! Takes the writer at a method call; gives the C text: a CUDA math function for floats (the
//! `f` variant for `f32`), an intrinsic for the bit counts, or a Rust-semantics helper where
//! the library's meaning differs from Rust's. Guarantees: the operand reaches an intrinsic in
//! the exact type it takes (no cast where it already has it), and the result has the Rust
//! method's type.

use super::checked::Part;
use super::checks::FAULTS;
use super::helpers::Helper;
use super::syntax::{c_type, cast_text, is_narrow, prec, unsigned_of, Rendered};
use super::writer::Writer;
use super::FaultKind;
use crate::ir::{BinaryOp, CheckedOp, Expr, Handle, Method, Scalar};

impl Writer<'_> {
    /// `receiver.method(args)` (expression `h`) with Rust's meaning.
    pub(super) fn method(
        &mut self,
        h: Handle<Expr>,
        m: Method,
        receiver: Handle<Expr>,
        args: &[Handle<Expr>],
    ) -> Rendered {
        // The value of a `checked_*` whose wrapping form is total is that form (it is read
        // only where the operation fits).
        let m = match m {
            Method::CheckedValue(op) => op.wrapping().unwrap_or(m),
            m => m,
        };
        let t = self.types.expr(receiver);
        let x = self.expr(receiver);
        let a: Vec<Rendered> = args.iter().map(|a| self.expr(*a)).collect();
        let arg = |i: usize| a.get(i).map_or(String::new(), |r| r.text.clone());
        let call = |f: &str, args: &[String]| Rendered::atom(format!("{f}({})", args.join(", ")));
        // The math methods: the library's one definition, as on the simulator (unless
        // `fast_math` asks for the hardware's approximations).
        if let Some(f) = crate::math::function(m, t).filter(|_| !self.k.options.fast_math) {
            let mut args = vec![x.text];
            args.extend(a.iter().map(|r| r.text.clone()));
            let text = call(&format!("cuphase::math::{f}"), &args);
            self.math.insert(f);
            return text;
        }
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
                // Under `fast_math` the sign of a zero result is not promised (Rust's own
                // `max` does not promise it either): one `FMNMX`, not a compare, a select and one.
                Method::Min if self.k.options.fast_math => call(&libm("fmin"), &[x.text, arg(0)]),
                Method::Max if self.k.options.fast_math => call(&libm("fmax"), &[x.text, arg(0)]),
                Method::Min => {
                    let y = a[0].clone();
                    self.helper(Helper::Fmin, t, &[&x, &y])
                }
                Method::Max => {
                    let y = a[0].clone();
                    self.helper(Helper::Fmax, t, &[&x, &y])
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
                Method::Powi => self.helper_cast(Helper::Powi, t, &[x.text, arg(0)]),
                Method::DivEuclid => {
                    let y = a[0].clone();
                    self.helper(Helper::DivEuclid, t, &[&x, &y])
                }
                Method::RemEuclid => {
                    let y = a[0].clone();
                    self.helper(Helper::RemEuclid, t, &[&x, &y])
                }
                Method::Clamp => self.clamp(h, t, x, &a),
                Method::IsNan => call("isnan", &[x.text]),
                Method::IsInfinite => call("isinf", &[x.text]),
                Method::IsFinite => call("isfinite", &[x.text]),
                Method::IsSignNegative | Method::IsSignPositive => Rendered {
                    text: format!(
                        "{} {} 0",
                        call("signbit", &[x.text]).text,
                        if m == Method::IsSignNegative {
                            "!="
                        } else {
                            "=="
                        }
                    ),
                    prec: prec::EQUALITY,
                    op: Some(BinaryOp::Ne),
                },
                Method::Signum => self.helper_cast(Helper::Signum, t, &[x.text]),
                Method::Copysign => call(&libm("copysign"), &[x.text, arg(0)]),
                // Rust's `fract` is `x - x.trunc()`.
                Method::Fract => Rendered {
                    text: format!(
                        "{} - {}",
                        x.at_least(prec::ADDITIVE),
                        call(&libm("trunc"), std::slice::from_ref(&x.text)).text
                    ),
                    prec: prec::ADDITIVE,
                    op: Some(BinaryOp::Sub),
                },
                Method::Hypot => call(&libm("hypot"), &[x.text, arg(0)]),
                Method::Atan2 => call(&libm("atan2"), &[x.text, arg(0)]),
                Method::Asin => call(&libm("asin"), &[x.text]),
                Method::Acos => call(&libm("acos"), &[x.text]),
                Method::Atan => call(&libm("atan"), &[x.text]),
                Method::Sinh => call(&libm("sinh"), &[x.text]),
                Method::Cosh => call(&libm("cosh"), &[x.text]),
                Method::Asinh => call(&libm("asinh"), &[x.text]),
                Method::Acosh => call(&libm("acosh"), &[x.text]),
                Method::Atanh => call(&libm("atanh"), &[x.text]),
                Method::ExpM1 => call(&libm("expm1"), &[x.text]),
                Method::Ln1p => call(&libm("log1p"), &[x.text]),
                Method::Cbrt => call(&libm("cbrt"), &[x.text]),
                Method::ToBits32 => call("__float_as_uint", &[x.text]),
                Method::ToBits64 => {
                    cast_text(Scalar::U64, &call("__double_as_longlong", &[x.text]))
                }
                // (Inference admits no other method on a float.)
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
            Method::Abs | Method::WrappingAbs => {
                self.helper_cast(Helper::WrappingAbs, t, &[x.text])
            }
            Method::Pow | Method::WrappingPow => {
                self.helper_cast(Helper::WrappingPow, t, &[x.text, arg(0)])
            }
            Method::WrappingNeg => self.helper_cast(Helper::WrappingNeg, t, &[x.text]),
            Method::WrappingShl => self.helper_cast(Helper::WrappingShl, t, &[x.text, arg(0)]),
            Method::WrappingShr => self.helper_cast(Helper::WrappingShr, t, &[x.text, arg(0)]),
            Method::Checked(op) => {
                let mut values = vec![x.text];
                values.extend((0..args.len()).map(arg));
                self.helper_cast(Helper::Checked(op, Part::Ok), t, &values)
            }
            // The value where it is `Some`, where C would fault otherwise (the other operations'
            // values are their wrapping forms, taken above).
            Method::CheckedValue(op) => {
                let mut values = vec![x.text];
                values.extend((0..args.len()).map(arg));
                let r = self.helper_cast(Helper::Checked(op, Part::OrZero), t, &values);
                if matches!(op, CheckedOp::Ilog2 | CheckedOp::Ilog10) && t != Scalar::U32 {
                    cast_text(Scalar::U32, &r)
                } else {
                    r
                }
            }
            Method::RotateLeft => self.helper_cast(Helper::RotateLeft, t, &[x.text, arg(0)]),
            Method::RotateRight => self.helper_cast(Helper::RotateRight, t, &[x.text, arg(0)]),
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
                    cast_text(t, &r)
                } else {
                    call(f, &[x.text, arg(0)])
                }
            }
            // `b == 0 ? a == 0 : a % b == 0`: no division by zero.
            Method::IsMultipleOf => {
                let b = a[0].clone();
                Rendered {
                    text: format!(
                        "{} == 0 ? {} == 0 : {} % {} == 0",
                        b.at_least(prec::EQUALITY + 1),
                        x.at_least(prec::EQUALITY + 1),
                        x.at_least(prec::MULTIPLICATIVE),
                        b.at_least(prec::MULTIPLICATIVE + 1)
                    ),
                    prec: prec::TERNARY,
                    op: None,
                }
            }
            // One bit set: a power of two (Rust's method exists on unsigned integers only).
            Method::IsPowerOfTwo => {
                let f = if bits == 64 { "__popcll" } else { "__popc" };
                Rendered {
                    text: format!("{} == 1", call(f, &[as_uint(&x)]).text),
                    prec: prec::EQUALITY,
                    op: Some(BinaryOp::Eq),
                }
            }
            Method::CountOnes => {
                let f = if bits == 64 { "__popcll" } else { "__popc" };
                cast_text(Scalar::U32, &call(f, &[as_uint(&x)]))
            }
            Method::LeadingZeros | Method::LeadingOnes => {
                // `leading_ones` is the leading zeros of `!x`.
                let x = if m == Method::LeadingOnes {
                    cast_text(t, &Rendered::atom(format!("~{}", x.at_least(prec::UNARY))))
                } else {
                    x
                };
                let f = if bits == 64 { "__clzll" } else { "__clz" };
                let c = cast_text(Scalar::U32, &call(f, &[as_int(&x)]));
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
            Method::TrailingZeros | Method::TrailingOnes => {
                let x = if m == Method::TrailingOnes {
                    cast_text(t, &Rendered::atom(format!("~{}", x.at_least(prec::UNARY))))
                } else {
                    x
                };
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
            Method::SaturatingAdd => self.helper_cast(Helper::SaturatingAdd, t, &[x.text, arg(0)]),
            Method::SaturatingSub => self.helper_cast(Helper::SaturatingSub, t, &[x.text, arg(0)]),
            Method::SaturatingMul => self.helper_cast(Helper::SaturatingMul, t, &[x.text, arg(0)]),
            // The methods Rust panics in: helpers that report to the fault record.
            Method::DivCeil => {
                self.reporting(Helper::DivCeil, t, FaultKind::Div, h, &[x.text, arg(0)])
            }
            Method::DivEuclid => {
                self.reporting(Helper::DivEuclid, t, FaultKind::Div, h, &[x.text, arg(0)])
            }
            Method::RemEuclid => {
                self.reporting(Helper::RemEuclid, t, FaultKind::Rem, h, &[x.text, arg(0)])
            }
            Method::Ilog2 | Method::Ilog10 => {
                let helper = if m == Method::Ilog2 {
                    Helper::Ilog2
                } else {
                    Helper::Ilog10
                };
                let kind =
                    FaultKind::Panic("argument of integer logarithm must be positive".into());
                let r = self.reporting(helper, t, kind, h, &[x.text]);
                cast_text(Scalar::U32, &r)
            }
            Method::Isqrt if t.is_signed_int() => {
                let kind =
                    FaultKind::Panic("argument of integer square root cannot be negative".into());
                self.reporting(Helper::Isqrt, t, kind, h, &[x.text])
            }
            Method::Isqrt => self.helper_cast(Helper::Isqrt, t, &[x.text]),
            Method::NextPowerOfTwo => self.helper_cast(Helper::NextPowerOfTwo, t, &[x.text]),
            Method::SwapBytes => self.helper_cast(Helper::SwapBytes, t, &[x.text]),
            Method::AbsDiff => {
                let r = self.helper_cast(Helper::AbsDiff, t, &[x.text, arg(0)]);
                if t.is_signed_int() || is_narrow(t) {
                    cast_text(unsigned_of(t), &r)
                } else {
                    r
                }
            }
            // `__brev` reverses 32 bits: a narrower value's bits end up at the top.
            Method::ReverseBits => {
                let r = if bits == 64 {
                    call("__brevll", &[as_uint(&x)])
                } else if bits == 32 {
                    call("__brev", &[as_uint(&x)])
                } else {
                    Rendered {
                        text: format!("{} >> {}u", call("__brev", &[as_uint(&x)]).text, 32 - bits),
                        prec: prec::SHIFT,
                        op: Some(BinaryOp::Shr),
                    }
                };
                if matches!(t, Scalar::U32 | Scalar::U64) {
                    r
                } else {
                    cast_text(t, &r)
                }
            }
            Method::FromBits32 => call("__uint_as_float", &[x.text]),
            Method::FromBits64 => call(
                "__longlong_as_double",
                &[format!("(long long){}", x.at_least(prec::UNARY))],
            ),
            // (Inference admits no other method on an integer.)
            _ => x,
        }
    }

    /// A call of helper `h` for type `t` that reports to the fault record at a site of `kind`
    /// (expression `e`): `cuphase::h(cuphase_faults, values.., site)`, the values cast to the
    /// exact type where C would promote them.
    fn reporting(
        &mut self,
        h: Helper,
        t: Scalar,
        kind: FaultKind,
        e: Handle<Expr>,
        values: &[String],
    ) -> Rendered {
        self.helpers.insert((h, t));
        let site = self.site(kind, self.k.exprs.span(e));
        self.inline_check = true;
        let values: Vec<String> = values
            .iter()
            .map(|v| {
                if is_narrow(t) {
                    format!("({})({v})", c_type(t))
                } else {
                    v.clone()
                }
            })
            .collect();
        Rendered::atom(format!(
            "cuphase::{}({FAULTS}, {}, {site}u)",
            h.name(t),
            values.join(", ")
        ))
    }
}
