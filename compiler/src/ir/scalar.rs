//! The scalar types kernels compute with.

use std::fmt;

/// The scalar types a kernel computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// Rust's `usize`: 64 bits on every target cuphase supports.
    Usize,
    F32,
    F64,
    /// `half::f16`: IEEE binary16. Arithmetic rounds the `f32` result, as the `half` crate does.
    F16,
    /// `half::bf16`: bfloat16, likewise computed through `f32`.
    Bf16,
}

impl Scalar {
    /// The unsigned type of the same width (the type itself when it is not a signed integer).
    pub fn unsigned(self) -> Scalar {
        match self {
            Scalar::I8 => Scalar::U8,
            Scalar::I16 => Scalar::U16,
            Scalar::I32 => Scalar::U32,
            Scalar::I64 => Scalar::U64,
            other => other,
        }
    }

    /// Parses a Rust primitive type name.
    pub fn from_rust_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "usize" => Scalar::Usize,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "f16" => Scalar::F16,
            "bf16" => Scalar::Bf16,
            _ => return None,
        })
    }
    /// The Rust name of the type.
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::Usize => "usize",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::F16 => "f16",
            Scalar::Bf16 => "bf16",
        }
    }
    /// Whether the type is an integer type.
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    /// Whether the type is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }
    /// Whether the type is an unsigned integer type.
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 | Scalar::Usize
        )
    }
    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64 | Scalar::F16 | Scalar::Bf16)
    }
    /// Whether the type is `half::f16` or `half::bf16` (computed through `f32`).
    pub fn is_half(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::Bf16)
    }
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::Bf16 => 16,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::U64 | Scalar::Usize | Scalar::F64 => 64,
        }
    }
    /// The least and greatest values of an integer type (`None` for the others).
    pub fn int_range(self) -> Option<(i128, i128)> {
        if !self.is_int() {
            return None;
        }
        let bits = self.bits();
        Some(if self.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        })
    }
    /// Whether `v` is a value of this type, for an integer type (`false` for the others).
    pub fn holds_int(self, v: i128) -> bool {
        self.int_range()
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&v))
    }
    /// Size in bytes.
    pub fn size_bytes(self) -> u64 {
        u64::from(self.bits() / 8)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}
