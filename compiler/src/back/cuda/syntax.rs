//! C's spelling of the IR's leaves: scalar types, literals, operator precedence, and the
//! rendered-expression value that carries its precedence up to the operator around it.
//!
//! Takes scalars, literals and operators; gives C text. A leaf module: it knows nothing of the
//! writer's state, so every other module of the writer may use it. Guarantees: a literal reads
//! back in C as the value and type Rust gives it (narrow types are cast, `MIN` values spelled
//! as an expression, non-finite floats as their bits), and [`Rendered::at_least`] adds
//! parentheses exactly where C's precedence needs them.

use crate::ir::{BinaryOp, Expr, Handle, Kernel, Literal, Scalar};

/// C precedence levels, higher binds tighter.
pub(super) mod prec {
    /// `a ? b : c`.
    pub const TERNARY: u8 = 3;
    /// `||`.
    pub const LOR: u8 = 4;
    /// `&&`.
    pub const LAND: u8 = 5;
    /// `|`.
    pub const BITOR: u8 = 6;
    /// `^`.
    pub const BITXOR: u8 = 7;
    /// `&`.
    pub const BITAND: u8 = 8;
    /// `==`, `!=`.
    pub const EQUALITY: u8 = 9;
    /// `<`, `<=`, `>`, `>=`.
    pub const RELATIONAL: u8 = 10;
    /// `<<`, `>>`.
    pub const SHIFT: u8 = 11;
    /// `+`, `-`.
    pub const ADDITIVE: u8 = 12;
    /// `*`, `/`, `%`.
    pub const MULTIPLICATIVE: u8 = 13;
    /// Prefix operators and casts.
    pub const UNARY: u8 = 15;
    /// Names, literals, calls, subscripts.
    pub const PRIMARY: u8 = 16;
}

/// A rendered expression and the precedence of its outermost operator.
#[derive(Clone)]
pub(super) struct Rendered {
    /// The C text.
    pub(super) text: String,
    /// The precedence of the outermost operator ([`prec`]).
    pub(super) prec: u8,
    /// The outermost binary operator, for clarity parentheses around bit operators.
    pub(super) op: Option<BinaryOp>,
}

impl Rendered {
    /// A primary expression: a name, a literal, a call.
    pub(super) fn atom(text: String) -> Self {
        Rendered {
            text,
            prec: prec::PRIMARY,
            op: None,
        }
    }

    /// The text as an operand of an operator of precedence `p`: parenthesised if it binds
    /// less tightly.
    pub(super) fn at_least(&self, p: u8) -> String {
        if self.prec >= p {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// `(to)r`: a C cast.
pub(super) fn cast_text(to: Scalar, r: &Rendered) -> Rendered {
    Rendered {
        text: format!("({}){}", c_type(to), r.at_least(prec::UNARY)),
        prec: prec::UNARY,
        op: None,
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

/// The smallest value of a signed type as a C expression, `0` for unsigned types.
pub(super) fn c_min(t: Scalar) -> &'static str {
    match t {
        Scalar::I8 => "(signed char)-128",
        Scalar::I16 => "(short)-32768",
        Scalar::I32 => "(-2147483647 - 1)",
        Scalar::I64 => "(-9223372036854775807ll - 1)",
        _ => "0",
    }
}

/// The least value of integer type `t`, as a C expression of that type.
pub(super) fn int_min(t: Scalar) -> String {
    if t.is_signed_int() {
        c_min(t).to_string()
    } else {
        format!("({})0", c_type(t))
    }
}

/// The greatest value of integer type `t`, as a C expression of that type.
pub(super) fn int_max(t: Scalar) -> String {
    match t {
        Scalar::I8 => "(signed char)127",
        Scalar::I16 => "(short)32767",
        Scalar::I32 => "2147483647",
        Scalar::I64 => "9223372036854775807ll",
        Scalar::U8 => "(unsigned char)255",
        Scalar::U16 => "(unsigned short)65535",
        Scalar::U32 => "4294967295u",
        _ => "18446744073709551615ull",
    }
    .to_string()
}

/// Whether C would promote the type to `int` in arithmetic (so results need truncating back).
pub(super) fn is_narrow(t: Scalar) -> bool {
    matches!(t, Scalar::I8 | Scalar::I16 | Scalar::U8 | Scalar::U16)
}

/// The unsigned type of the same width (the type itself when it is not a signed integer).
pub(super) fn unsigned_of(t: Scalar) -> Scalar {
    t.unsigned()
}

/// The C precedence of a binary operator.
pub(super) fn binary_prec(op: BinaryOp) -> u8 {
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

/// Whether `e` is the integer literal 0.
pub(super) fn is_zero_literal(k: &Kernel, e: Handle<Expr>) -> bool {
    matches!(k.exprs.get(e), Expr::Literal(Literal::Int { value: 0, .. }))
}

/// Whether `v` is a value of the integer type `t` (false for `bool` and the floats).
pub(super) fn int_fits(v: i128, t: Scalar) -> bool {
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

/// A literal of type `t` as C text.
pub(super) fn literal(l: &Literal, t: Scalar) -> Rendered {
    match l {
        Literal::Zero => literal(&Literal::zero_of(t), t),
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
