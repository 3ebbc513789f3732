//! The scalar methods kernels call (`x.sqrt()`, `x.count_ones()`): their names, arities,
//! the types they take and give.

use super::Scalar;

/// The scalar methods kernels support, with Rust's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Sqrt,
    Exp,
    Exp2,
    Ln,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Tanh,
    Powf,
    Powi,
    Floor,
    Ceil,
    Round,
    Trunc,
    MulAdd,
    Recip,
    Abs,
    Min,
    Max,
    Clamp,
    Pow,
    CountOnes,
    IsPowerOfTwo,
    /// `a.is_multiple_of(b)` of unsigned integers: `a % b == 0`, and for `b == 0` whether
    /// `a == 0`.
    IsMultipleOf,
    LeadingZeros,
    TrailingZeros,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    RotateLeft,
    RotateRight,
    IsNan,
    IsInfinite,
    IsFinite,
    IsSignPositive,
    IsSignNegative,
    Signum,
    Copysign,
    Fract,
    Hypot,
    Atan2,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    ExpM1,
    Ln1p,
    Cbrt,
    SaturatingAdd,
    SaturatingSub,
    SaturatingMul,
    SwapBytes,
    /// `a.abs_diff(b)`: the distance, of the unsigned type of the receiver's width.
    AbsDiff,
    Ilog2,
    Ilog10,
    Isqrt,
    DivCeil,
    DivEuclid,
    RemEuclid,
    NextPowerOfTwo,
    ReverseBits,
    LeadingOnes,
    TrailingOnes,
    /// `f32::to_bits`.
    ToBits32,
    /// `f64::to_bits`.
    ToBits64,
    /// `f32::from_bits(u)` (the receiver is the `u32`).
    FromBits32,
    /// `f64::from_bits(u)`.
    FromBits64,
    WrappingNeg,
    WrappingAbs,
    WrappingPow,
    WrappingShl,
    WrappingShr,
    /// Whether `x.checked_op(..)` is `Some` (a `bool`).
    Checked(CheckedOp),
    /// The value of `x.checked_op(..)` where it is `Some`; unspecified (but no fault) where
    /// it is `None`. Lowering reads it only under [`Method::Checked`] of the same operands.
    CheckedValue(CheckedOp),
}

/// The integer operations Rust has `checked_*` forms of, as kernels support them (in the
/// order of their names with a suffix, which the CUDA helpers' order follows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckedOp {
    Abs,
    Add,
    DivEuclid,
    Div,
    Ilog10,
    Ilog2,
    Isqrt,
    Mul,
    Neg,
    NextPowerOfTwo,
    Pow,
    RemEuclid,
    Rem,
    Shl,
    Shr,
    Sub,
}

impl CheckedOp {
    /// Every operation with its Rust name (after `checked_`).
    pub const ALL: &'static [(&'static str, CheckedOp)] = &[
        ("abs", CheckedOp::Abs),
        ("add", CheckedOp::Add),
        ("div_euclid", CheckedOp::DivEuclid),
        ("div", CheckedOp::Div),
        ("ilog10", CheckedOp::Ilog10),
        ("ilog2", CheckedOp::Ilog2),
        ("isqrt", CheckedOp::Isqrt),
        ("mul", CheckedOp::Mul),
        ("neg", CheckedOp::Neg),
        ("next_power_of_two", CheckedOp::NextPowerOfTwo),
        ("pow", CheckedOp::Pow),
        ("rem_euclid", CheckedOp::RemEuclid),
        ("rem", CheckedOp::Rem),
        ("shl", CheckedOp::Shl),
        ("shr", CheckedOp::Shr),
        ("sub", CheckedOp::Sub),
    ];
    /// The operation of `checked_<name>`.
    pub fn from_method(method: &str) -> Option<CheckedOp> {
        let name = method.strip_prefix("checked_")?;
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
    }
    /// The Rust name after `checked_`.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("?", |(n, _)| n)
    }
    /// Number of arguments besides the receiver.
    pub fn arity(self) -> usize {
        match self {
            CheckedOp::Neg
            | CheckedOp::Abs
            | CheckedOp::Ilog2
            | CheckedOp::Ilog10
            | CheckedOp::Isqrt
            | CheckedOp::NextPowerOfTwo => 0,
            _ => 1,
        }
    }
    /// The argument is a `u32` (an exponent or a shift amount), not the receiver's type.
    pub fn u32_argument(self) -> bool {
        matches!(self, CheckedOp::Pow | CheckedOp::Shl | CheckedOp::Shr)
    }
    /// The `overflowing_*` form exists with the overflow flag equal to "not `Some`" (for
    /// division the flag leaves out a zero divisor, which panics instead).
    pub fn overflowing(self) -> bool {
        matches!(
            self,
            CheckedOp::Add
                | CheckedOp::Sub
                | CheckedOp::Mul
                | CheckedOp::Neg
                | CheckedOp::Abs
                | CheckedOp::Pow
                | CheckedOp::Shl
                | CheckedOp::Shr
        )
    }
    /// The total method whose value is the operation's where it fits: the wrapping form that
    /// `overflowing_*` gives (and for `next_power_of_two` the release build's wrapping one).
    /// `None` for the operations that fault where they do not fit (division, logarithms,
    /// square roots).
    pub fn wrapping(self) -> Option<Method> {
        Some(match self {
            CheckedOp::Add => Method::WrappingAdd,
            CheckedOp::Sub => Method::WrappingSub,
            CheckedOp::Mul => Method::WrappingMul,
            CheckedOp::Neg => Method::WrappingNeg,
            CheckedOp::Abs => Method::WrappingAbs,
            CheckedOp::Pow => Method::WrappingPow,
            CheckedOp::Shl => Method::WrappingShl,
            CheckedOp::Shr => Method::WrappingShr,
            CheckedOp::NextPowerOfTwo => Method::NextPowerOfTwo,
            _ => return None,
        })
    }
}

impl Method {
    /// Every method with its Rust name.
    pub const ALL: &'static [(&'static str, Method)] = &[
        ("sqrt", Method::Sqrt),
        ("exp", Method::Exp),
        ("exp2", Method::Exp2),
        ("ln", Method::Ln),
        ("log2", Method::Log2),
        ("log10", Method::Log10),
        ("sin", Method::Sin),
        ("cos", Method::Cos),
        ("tan", Method::Tan),
        ("tanh", Method::Tanh),
        ("powf", Method::Powf),
        ("powi", Method::Powi),
        ("floor", Method::Floor),
        ("ceil", Method::Ceil),
        ("round", Method::Round),
        ("trunc", Method::Trunc),
        ("mul_add", Method::MulAdd),
        ("recip", Method::Recip),
        ("abs", Method::Abs),
        ("min", Method::Min),
        ("max", Method::Max),
        ("clamp", Method::Clamp),
        ("pow", Method::Pow),
        ("count_ones", Method::CountOnes),
        ("is_power_of_two", Method::IsPowerOfTwo),
        ("is_multiple_of", Method::IsMultipleOf),
        ("leading_zeros", Method::LeadingZeros),
        ("trailing_zeros", Method::TrailingZeros),
        ("wrapping_add", Method::WrappingAdd),
        ("wrapping_sub", Method::WrappingSub),
        ("wrapping_mul", Method::WrappingMul),
        ("rotate_left", Method::RotateLeft),
        ("rotate_right", Method::RotateRight),
        ("is_nan", Method::IsNan),
        ("is_infinite", Method::IsInfinite),
        ("is_finite", Method::IsFinite),
        ("is_sign_positive", Method::IsSignPositive),
        ("is_sign_negative", Method::IsSignNegative),
        ("signum", Method::Signum),
        ("copysign", Method::Copysign),
        ("fract", Method::Fract),
        ("hypot", Method::Hypot),
        ("atan2", Method::Atan2),
        ("asin", Method::Asin),
        ("acos", Method::Acos),
        ("atan", Method::Atan),
        ("sinh", Method::Sinh),
        ("cosh", Method::Cosh),
        ("asinh", Method::Asinh),
        ("acosh", Method::Acosh),
        ("atanh", Method::Atanh),
        ("exp_m1", Method::ExpM1),
        ("ln_1p", Method::Ln1p),
        ("cbrt", Method::Cbrt),
        ("saturating_add", Method::SaturatingAdd),
        ("saturating_sub", Method::SaturatingSub),
        ("saturating_mul", Method::SaturatingMul),
        ("swap_bytes", Method::SwapBytes),
        ("abs_diff", Method::AbsDiff),
        ("ilog2", Method::Ilog2),
        ("ilog10", Method::Ilog10),
        ("isqrt", Method::Isqrt),
        ("div_ceil", Method::DivCeil),
        ("div_euclid", Method::DivEuclid),
        ("rem_euclid", Method::RemEuclid),
        ("next_power_of_two", Method::NextPowerOfTwo),
        ("reverse_bits", Method::ReverseBits),
        ("leading_ones", Method::LeadingOnes),
        ("trailing_ones", Method::TrailingOnes),
        ("to_bits", Method::ToBits32),
        ("to_bits", Method::ToBits64),
        ("from_bits", Method::FromBits32),
        ("from_bits", Method::FromBits64),
        ("wrapping_neg", Method::WrappingNeg),
        ("wrapping_abs", Method::WrappingAbs),
        ("wrapping_pow", Method::WrappingPow),
        ("wrapping_shl", Method::WrappingShl),
        ("wrapping_shr", Method::WrappingShr),
    ];
    /// The method named `name`.
    pub fn from_name(name: &str) -> Option<Method> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
    }
    /// The Rust name (of the `checked_*` method for the `checked_*` parts).
    pub fn name(self) -> &'static str {
        if let Method::Checked(c) | Method::CheckedValue(c) = self {
            return match CheckedOp::ALL.iter().position(|(_, x)| *x == c) {
                Some(i) => CHECKED_NAMES[i],
                None => "?",
            };
        }
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
    /// Number of arguments besides the receiver.
    pub fn arity(self) -> usize {
        match self {
            Method::Powf | Method::Powi | Method::Min | Method::Max | Method::Pow => 1,
            Method::WrappingAdd | Method::WrappingSub | Method::WrappingMul => 1,
            Method::RotateLeft | Method::RotateRight => 1,
            Method::Copysign | Method::Hypot | Method::Atan2 => 1,
            Method::SaturatingAdd | Method::SaturatingSub | Method::SaturatingMul => 1,
            Method::DivCeil | Method::DivEuclid | Method::RemEuclid | Method::AbsDiff => 1,
            Method::IsMultipleOf => 1,
            Method::WrappingPow | Method::WrappingShl | Method::WrappingShr => 1,
            Method::Checked(c) | Method::CheckedValue(c) => c.arity(),
            Method::MulAdd | Method::Clamp => 2,
            _ => 0,
        }
    }
    /// The result's type where it is not the receiver's: `bool` for the float tests
    /// (`is_nan`), `u32` for the bit counts.
    pub fn fixed_result(self) -> Option<Scalar> {
        match self {
            Method::IsPowerOfTwo
            | Method::IsMultipleOf
            | Method::IsNan
            | Method::IsInfinite
            | Method::IsFinite
            | Method::IsSignPositive
            | Method::IsSignNegative
            | Method::Checked(_) => Some(Scalar::Bool),
            Method::CountOnes
            | Method::LeadingZeros
            | Method::TrailingZeros
            | Method::LeadingOnes
            | Method::TrailingOnes
            | Method::Ilog2
            | Method::Ilog10
            | Method::CheckedValue(CheckedOp::Ilog2 | CheckedOp::Ilog10) => Some(Scalar::U32),
            Method::ToBits32 => Some(Scalar::U32),
            Method::ToBits64 => Some(Scalar::U64),
            Method::FromBits32 => Some(Scalar::F32),
            Method::FromBits64 => Some(Scalar::F64),
            _ => None,
        }
    }
    /// The one type the receiver has, for the methods of one type (`to_bits` of a `f32`).
    pub fn receiver_type(self) -> Option<Scalar> {
        match self {
            Method::ToBits32 => Some(Scalar::F32),
            Method::ToBits64 => Some(Scalar::F64),
            Method::FromBits32 => Some(Scalar::U32),
            Method::FromBits64 => Some(Scalar::U64),
            _ => None,
        }
    }
    /// The method of this name for a receiver of type `t`, where the name stands for one per
    /// type (`to_bits` of a `f64` is [`Method::ToBits64`]).
    pub fn for_receiver(self, t: Scalar) -> Method {
        match (self, t) {
            (Method::ToBits32, Scalar::F64) => Method::ToBits64,
            (Method::FromBits32, Scalar::F64) => Method::FromBits64,
            (m, _) => m,
        }
    }
    /// Only on floats.
    pub fn float_only(self) -> bool {
        matches!(
            self,
            Method::Sqrt
                | Method::Exp
                | Method::Exp2
                | Method::Ln
                | Method::Log2
                | Method::Log10
                | Method::Sin
                | Method::Cos
                | Method::Tan
                | Method::Tanh
                | Method::Powf
                | Method::Powi
                | Method::Floor
                | Method::Ceil
                | Method::Round
                | Method::Trunc
                | Method::MulAdd
                | Method::Recip
                | Method::IsNan
                | Method::IsInfinite
                | Method::IsFinite
                | Method::IsSignPositive
                | Method::IsSignNegative
                | Method::Signum
                | Method::Copysign
                | Method::Fract
                | Method::Hypot
                | Method::Atan2
                | Method::Asin
                | Method::Acos
                | Method::Atan
                | Method::Sinh
                | Method::Cosh
                | Method::Asinh
                | Method::Acosh
                | Method::Atanh
                | Method::ExpM1
                | Method::Ln1p
                | Method::Cbrt
        )
    }
    /// Only on unsigned integers (Rust has these on signed ones unstably or not at all).
    pub fn unsigned_only(self) -> bool {
        matches!(
            self,
            Method::DivCeil
                | Method::NextPowerOfTwo
                | Method::IsPowerOfTwo
                | Method::IsMultipleOf
                | Method::Checked(CheckedOp::NextPowerOfTwo)
                | Method::CheckedValue(CheckedOp::NextPowerOfTwo)
        )
    }
    /// Only on signed integers.
    pub fn signed_only(self) -> bool {
        matches!(
            self,
            Method::WrappingAbs
                | Method::Checked(CheckedOp::Abs | CheckedOp::Isqrt)
                | Method::CheckedValue(CheckedOp::Abs | CheckedOp::Isqrt)
        )
    }
    /// The argument is a `u32` whatever the receiver's type (an exponent, a shift or a
    /// rotation amount).
    pub fn u32_argument(self) -> bool {
        match self {
            Method::Pow
            | Method::RotateLeft
            | Method::RotateRight
            | Method::WrappingPow
            | Method::WrappingShl
            | Method::WrappingShr => true,
            Method::Checked(c) | Method::CheckedValue(c) => c.u32_argument(),
            _ => false,
        }
    }
    /// Only on integers.
    pub fn int_only(self) -> bool {
        matches!(
            self,
            Method::Pow
                | Method::CountOnes
                | Method::IsPowerOfTwo
                | Method::IsMultipleOf
                | Method::LeadingZeros
                | Method::TrailingZeros
                | Method::WrappingAdd
                | Method::WrappingSub
                | Method::WrappingMul
                | Method::RotateLeft
                | Method::RotateRight
                | Method::SaturatingAdd
                | Method::SaturatingSub
                | Method::SaturatingMul
                | Method::SwapBytes
                | Method::AbsDiff
                | Method::Ilog2
                | Method::Ilog10
                | Method::Isqrt
                | Method::DivCeil
                | Method::NextPowerOfTwo
                | Method::ReverseBits
                | Method::LeadingOnes
                | Method::TrailingOnes
                | Method::WrappingNeg
                | Method::WrappingAbs
                | Method::WrappingPow
                | Method::WrappingShl
                | Method::WrappingShr
                | Method::Checked(_)
                | Method::CheckedValue(_)
        )
    }
}

/// The Rust names of the `checked_*` methods, in the order of [`CheckedOp::ALL`].
const CHECKED_NAMES: [&str; 16] = [
    "checked_abs",
    "checked_add",
    "checked_div_euclid",
    "checked_div",
    "checked_ilog10",
    "checked_ilog2",
    "checked_isqrt",
    "checked_mul",
    "checked_neg",
    "checked_next_power_of_two",
    "checked_pow",
    "checked_rem_euclid",
    "checked_rem",
    "checked_shl",
    "checked_shr",
    "checked_sub",
];
const _: () = assert!(CHECKED_NAMES.len() == CheckedOp::ALL.len());
