//! Questions about `syn` syntax that need no lowering state: the scalar type a type names,
//! the name a call calls, the operator a `syn` operator is, the text of a type for messages.

use crate::diag::Diagnostic;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;

/// The "not supported" message for an expression of a kind kernels do not have.
pub(super) fn not_supported(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Array(_) => "array expressions are not supported in kernels",
        syn::Expr::Async(_) => "`async` blocks are not supported in kernels",
        syn::Expr::Await(_) => "`.await` is not supported in kernels",
        syn::Expr::Closure(_) => "closures are not supported in kernels",
        syn::Expr::Const(_) => "`const` blocks are not supported in kernels",
        syn::Expr::Infer(_) => "`_` expressions are not supported in kernels",
        syn::Expr::Let(_) => {
            "`let` expressions (`if let`, `while let`) are not supported in kernels"
        }
        syn::Expr::Macro(_) => "macro calls are not supported in kernels",
        syn::Expr::Reference(_) => "references (`&x`) are not supported in kernels",
        syn::Expr::Repeat(_) => "array repeat expressions are not supported in kernels",
        syn::Expr::Struct(_) => "struct literals are not supported in kernels",
        syn::Expr::Try(_) => "the `?` operator is not supported in kernels",
        syn::Expr::TryBlock(_) => "`try` blocks are not supported in kernels",
        syn::Expr::Tuple(_) => "tuples are not supported in kernels",
        syn::Expr::Unsafe(_) => "`unsafe` blocks are not supported in kernels",
        syn::Expr::Yield(_) => "`yield` is not supported in kernels",
        syn::Expr::Range(_) => "ranges outside `for` loops are not supported in kernels",
        syn::Expr::Call(_) => "function calls are not supported in kernels",
        syn::Expr::MethodCall(_) => "this method call is not supported in kernels",
        _ => "this expression is not supported in kernels",
    }
}

pub(super) fn type_to_scalar(ty: &syn::Type) -> Option<Scalar> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => half_path(&p.path).or_else(|| {
            let seg = p.path.get_ident()?;
            Scalar::from_rust_name(&seg.to_string())
        }),
        syn::Type::Group(g) => type_to_scalar(&g.elem),
        syn::Type::Paren(p) => type_to_scalar(&p.elem),
        _ => None,
    }
}

/// A type as the user wrote it, near enough: the token stream without the spaces it puts around
/// `::`, `<`, `>`, `&` and before `,` and `;`.
pub(super) fn type_text(ty: &syn::Type) -> String {
    let mut text = quote::ToTokens::to_token_stream(ty).to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" ,", ","),
        (" ;", ";"),
    ] {
        text = text.replace(from, to);
    }
    text
}

pub(super) fn unsupported_type(ty: &syn::Type) -> Diagnostic {
    Diagnostic::new(
        ty.src(),
        format!("unsupported type `{}` in a kernel", type_text(ty)),
    )
    .note("kernels compute with `bool`, `i8`..`i64`, `u8`..`u64`, `usize`, `f32` and `f64`")
}

pub(super) fn int_max(t: Scalar) -> i128 {
    match t {
        Scalar::I8 => i128::from(i8::MAX),
        Scalar::I16 => i128::from(i16::MAX),
        Scalar::I32 => i128::from(i32::MAX),
        Scalar::I64 => i128::from(i64::MAX),
        Scalar::U8 => i128::from(u8::MAX),
        Scalar::U16 => i128::from(u16::MAX),
        Scalar::U32 => i128::from(u32::MAX),
        _ => i128::from(u64::MAX),
    }
}

pub(super) fn int_min(t: Scalar) -> i128 {
    match t {
        Scalar::I8 => i128::from(i8::MIN),
        Scalar::I16 => i128::from(i16::MIN),
        Scalar::I32 => i128::from(i32::MIN),
        Scalar::I64 => i128::from(i64::MIN),
        _ => 0,
    }
}

/// `half::f16`, `half::bf16` (also through `cuphase::half`).
pub(super) fn half_path(p: &syn::Path) -> Option<Scalar> {
    let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, prefix) = names.split_last()?;
    let t = match last.as_str() {
        "f16" => Scalar::F16,
        "bf16" => Scalar::Bf16,
        _ => return None,
    };
    let ok = match prefix {
        [] => true,
        [h] => h == "half",
        [c, h] => c == "cuphase" && h == "half",
        _ => false,
    };
    ok.then_some(t)
}

/// A float constant of Rust's standard library, as a kernel lowers it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum FloatConst {
    /// A finite value, or infinity or NaN (written as their `f64` text, which parses back).
    Value(f64),
    /// The negation of a value (`NEG_INFINITY`, `MIN`): lowered as a negation, as Rust
    /// defines them.
    Neg(f64),
}

/// `f32::INFINITY`, `f64::EPSILON`, `core::f32::consts::PI`, `std::f64::consts::LN_2`, ...:
/// the type and the value, if the path names one.
pub(super) fn float_const(p: &syn::Path) -> Option<(Scalar, FloatConst)> {
    let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // Leading `std::`/`core::` are optional for the associated constants, required (as in
    // Rust) for the `consts` module.
    let (ty, konst, module) = match names.as_slice() {
        [t, k] => (*t, *k, false),
        ["std" | "core", t, k] => (*t, *k, false),
        ["std" | "core", t, "consts", k] => (*t, *k, true),
        _ => return None,
    };
    let scalar = match ty {
        "f32" => Scalar::F32,
        "f64" => Scalar::F64,
        _ => return None,
    };
    macro_rules! table {
        ($t:ident) => {{
            use std::$t::consts;
            let v = if module {
                match konst {
                    "PI" => consts::PI,
                    "TAU" => consts::TAU,
                    "E" => consts::E,
                    "SQRT_2" => consts::SQRT_2,
                    "FRAC_1_SQRT_2" => consts::FRAC_1_SQRT_2,
                    "LN_2" => consts::LN_2,
                    "LN_10" => consts::LN_10,
                    "LOG2_E" => consts::LOG2_E,
                    "LOG10_E" => consts::LOG10_E,
                    "LOG2_10" => consts::LOG2_10,
                    "LOG10_2" => consts::LOG10_2,
                    "FRAC_PI_2" => consts::FRAC_PI_2,
                    "FRAC_PI_3" => consts::FRAC_PI_3,
                    "FRAC_PI_4" => consts::FRAC_PI_4,
                    "FRAC_PI_6" => consts::FRAC_PI_6,
                    "FRAC_PI_8" => consts::FRAC_PI_8,
                    "FRAC_1_PI" => consts::FRAC_1_PI,
                    "FRAC_2_PI" => consts::FRAC_2_PI,
                    "FRAC_2_SQRT_PI" => consts::FRAC_2_SQRT_PI,
                    _ => return None,
                }
            } else {
                match konst {
                    "INFINITY" => $t::INFINITY,
                    "NEG_INFINITY" => return Some((scalar, FloatConst::Neg(f64::INFINITY))),
                    "NAN" => $t::NAN,
                    "MAX" => $t::MAX,
                    "MIN" => return Some((scalar, FloatConst::Neg(f64::from($t::MAX)))),
                    "MIN_POSITIVE" => $t::MIN_POSITIVE,
                    "EPSILON" => $t::EPSILON,
                    _ => return None,
                }
            };
            f64::from(v)
        }};
    }
    let v = if scalar == Scalar::F32 {
        table!(f32)
    } else {
        table!(f64)
    };
    Some((scalar, FloatConst::Value(v)))
}

/// `f16::from_f32`-style conversions: the half type and the source type the function takes.
pub(super) fn half_conversion(p: &syn::Path) -> Option<(Scalar, Scalar)> {
    let mut type_path = p.clone();
    let func = type_path.segments.pop()?.into_value().ident.to_string();
    // `pop` leaves a trailing `::`; rebuild the type path from its segments.
    let segs: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> =
        type_path.segments.into_iter().collect();
    let tp = syn::Path {
        leading_colon: None,
        segments: segs,
    };
    let t = half_path(&tp)?;
    let from = match func.as_str() {
        "from_f32" => Scalar::F32,
        "from_f64" => Scalar::F64,
        _ => return None,
    };
    Some((t, from))
}

/// Whether `c` calls a path that is not one of the language's functions: a `#[device]` helper.
/// `f32::max(a, b)`, `u32::from(x)`: a call through a scalar type's path, as the type and the
/// function's name.
pub(super) fn scalar_path_call(c: &syn::ExprCall) -> Option<(Scalar, String)> {
    let syn::Expr::Path(p) = strip_parens(&c.func) else {
        return None;
    };
    if p.qself.is_some() || p.path.leading_colon.is_some() || p.path.segments.len() != 2 {
        return None;
    }
    let (ty, f) = (&p.path.segments[0], &p.path.segments[1]);
    if !ty.arguments.is_none() {
        return None;
    }
    let t = Scalar::from_rust_name(&ty.ident.to_string())?;
    Some((t, f.ident.to_string()))
}

pub(super) fn is_helper_call(c: &syn::ExprCall) -> bool {
    match &*c.func {
        syn::Expr::Path(p) => p.qself.is_none() && !crate::front::helpers::is_builtin(&p.path),
        _ => false,
    }
}

/// The name of the array an index expression `a[i][j]` starts from.
pub(super) fn index_base(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Index(ix) => index_base(&ix.expr),
        syn::Expr::Paren(p) => index_base(&p.expr),
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

pub(super) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

pub(super) fn call_name(c: &syn::ExprCall) -> Option<String> {
    match &*c.func {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The language's own function a call calls (named by its last path segment), if any.
pub(super) fn builtin_of(c: &syn::ExprCall) -> Option<BuiltinFn> {
    call_name(c).and_then(|n| BuiltinFn::from_name(&n))
}

/// The statements of a block and its tail expression (the last one without `;`).
pub(super) fn split_tail(b: &syn::Block) -> (&[syn::Stmt], Option<&syn::Expr>) {
    match b.stmts.split_last() {
        Some((syn::Stmt::Expr(e, None), rest)) => (rest, Some(e)),
        _ => (&b.stmts[..], None),
    }
}

/// `{ tail }` with nothing else, and `tail` not itself a control-flow expression.
pub(super) fn simple_tail(b: &syn::Block) -> Option<&syn::Expr> {
    match split_tail(b) {
        ([], Some(t))
            if !matches!(
                t,
                syn::Expr::If(_)
                    | syn::Expr::Block(_)
                    | syn::Expr::Return(_)
                    | syn::Expr::Break(_)
                    | syn::Expr::Continue(_)
            ) =>
        {
            Some(t)
        }
        _ => None,
    }
}

pub(super) fn is_catch_all(p: &syn::Pat) -> bool {
    matches!(p, syn::Pat::Wild(_)) || binding_name(p).is_some()
}

pub(super) fn binding_name(p: &syn::Pat) -> Option<&syn::Ident> {
    match p {
        syn::Pat::Ident(pi)
            if pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none() =>
        {
            Some(&pi.ident)
        }
        _ => None,
    }
}

pub(super) fn ends_in_jump(b: &syn::Block) -> bool {
    matches!(
        b.stmts.last(),
        Some(syn::Stmt::Expr(
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_),
            _
        ))
    )
}

pub(super) fn binary_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::Add(_) => BinaryOp::Add,
        syn::BinOp::Sub(_) => BinaryOp::Sub,
        syn::BinOp::Mul(_) => BinaryOp::Mul,
        syn::BinOp::Div(_) => BinaryOp::Div,
        syn::BinOp::Rem(_) => BinaryOp::Rem,
        syn::BinOp::And(_) => BinaryOp::And,
        syn::BinOp::Or(_) => BinaryOp::Or,
        syn::BinOp::BitXor(_) => BinaryOp::BitXor,
        syn::BinOp::BitAnd(_) => BinaryOp::BitAnd,
        syn::BinOp::BitOr(_) => BinaryOp::BitOr,
        syn::BinOp::Shl(_) => BinaryOp::Shl,
        syn::BinOp::Shr(_) => BinaryOp::Shr,
        syn::BinOp::Eq(_) => BinaryOp::Eq,
        syn::BinOp::Lt(_) => BinaryOp::Lt,
        syn::BinOp::Le(_) => BinaryOp::Le,
        syn::BinOp::Ne(_) => BinaryOp::Ne,
        syn::BinOp::Ge(_) => BinaryOp::Ge,
        syn::BinOp::Gt(_) => BinaryOp::Gt,
        _ => return None,
    })
}

pub(super) fn compound_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinaryOp::Add,
        syn::BinOp::SubAssign(_) => BinaryOp::Sub,
        syn::BinOp::MulAssign(_) => BinaryOp::Mul,
        syn::BinOp::DivAssign(_) => BinaryOp::Div,
        syn::BinOp::RemAssign(_) => BinaryOp::Rem,
        syn::BinOp::BitXorAssign(_) => BinaryOp::BitXor,
        syn::BinOp::BitAndAssign(_) => BinaryOp::BitAnd,
        syn::BinOp::BitOrAssign(_) => BinaryOp::BitOr,
        syn::BinOp::ShlAssign(_) => BinaryOp::Shl,
        syn::BinOp::ShrAssign(_) => BinaryOp::Shr,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::type_text;

    #[test]
    fn types_print_as_written() {
        let cases = [
            ("half::f16", "half::f16"),
            ("&mut [f32; 4]", "&mut [f32; 4]"),
            ("Vec<u32>", "Vec<u32>"),
            (
                "std::collections::HashMap<u32, f32>",
                "std::collections::HashMap<u32, f32>",
            ),
            ("(i32, i64)", "(i32, i64)"),
        ];
        for (src, want) in cases {
            let ty: syn::Type = syn::parse_str(src).unwrap();
            assert_eq!(type_text(&ty), want, "{src}");
        }
    }
}
