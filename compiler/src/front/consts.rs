//! The values of the integer `const` items of a kernel's source file, for the analyses.
//!
//! A kernel names module constants (`BLOCK`, `TILE_DIM`) as CUDA code names its `#define`s.
//! rustc resolves them, after the macro has run; the macro reads the kernel's file and
//! evaluates the integer constants written there with literals and arithmetic of other such
//! constants, so a shared array `[[f32; TILE + 1]; TILE]` has its static shape and the race
//! proof knows `step_by(BLOCK_ROWS)`. What the proof assumed is checked by rustc: the glue
//! asserts `NAME == value` in a constant at the kernel (see [`crate::ir::AssumedConst`]), so a
//! file the macro misread (a constant that `#[cfg]` or a `use` replaces) is a compile error,
//! never a wrong proof. A name defined twice in the file, under `#[cfg]`, or by anything but
//! such arithmetic is not known, and the kernel reads it at launch as before.

use crate::ir::Scalar;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The known integer constants of one source file, and its `DeviceStruct` structs.
#[derive(Clone, Debug, Default)]
pub struct ModuleConsts {
    values: HashMap<String, (Scalar, i128)>,
    /// The file's structs that kernels may use.
    pub records: super::records::Records,
    /// The methods of the file's `#[device] impl` blocks.
    pub methods: super::methods::Methods,
}

impl ModuleConsts {
    /// The constants of the file at `path` (read once per file and process; a file that
    /// cannot be read or parsed has none).
    pub fn of_file(path: &Path) -> ModuleConsts {
        thread_local! {
            static FILES: std::cell::RefCell<HashMap<PathBuf, ModuleConsts>> =
                std::cell::RefCell::default();
        }
        if let Some(known) = FILES.with(|f| f.borrow().get(path).cloned()) {
            return known;
        }
        let consts = std::fs::read_to_string(path)
            .map(|s| ModuleConsts::of_source(&s))
            .unwrap_or_default();
        FILES.with(|f| f.borrow_mut().insert(path.to_owned(), consts.clone()));
        consts
    }

    /// The constants of Rust source text.
    pub fn of_source(source: &str) -> ModuleConsts {
        let Ok(file) = syn::parse_file(source) else {
            return ModuleConsts::default();
        };
        let mut defs: HashMap<String, Vec<(Option<Scalar>, &syn::Expr)>> = HashMap::new();
        collect(&file.items, &mut defs);
        let mut out = ModuleConsts {
            methods: super::methods::Methods::of_file(&file),
            ..ModuleConsts::default()
        };
        // Constants may use constants defined after them: evaluate until nothing changes.
        // The structs come after them: an array field's length may be one.
        loop {
            let mut grew = false;
            for (name, d) in &defs {
                if out.values.contains_key(name) {
                    continue;
                }
                let [(Some(ty), e)] = d.as_slice() else {
                    continue;
                };
                let mut used = Vec::new();
                if let Some(v) = out.eval(e, &mut used).filter(|v| ty.holds_int(*v)) {
                    out.values.insert(name.clone(), (*ty, v));
                    grew = true;
                }
            }
            if !grew {
                out.records =
                    super::records::Records::of_file(&file, &|e| out.eval(e, &mut Vec::new()));
                return out;
            }
        }
    }

    /// The type and value of constant `name`.
    pub fn get(&self, name: &str) -> Option<(Scalar, i128)> {
        self.values.get(name).copied()
    }

    /// The value of an integer expression of literals and known constants (`BLOCK + 2 *
    /// HALO`, `(R as usize) << 1`), with the constants it used added to `used`.
    pub fn eval(&self, e: &syn::Expr, used: &mut Vec<String>) -> Option<i128> {
        eval_by(e, &mut |name| {
            let (_, v) = self.get(name)?;
            used.push(name.to_string());
            Some(v)
        })
    }
}

/// The value of an integer expression of literals and names, `resolve` giving each name's.
pub fn eval_by(e: &syn::Expr, resolve: &mut dyn FnMut(&str) -> Option<i128>) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i128>().ok(),
        syn::Expr::Paren(p) => eval_by(&p.expr, resolve),
        syn::Expr::Group(g) => eval_by(&g.expr, resolve),
        syn::Expr::Path(p) if p.qself.is_none() => resolve(&p.path.get_ident()?.to_string()),
        syn::Expr::Cast(c) => {
            let v = eval_by(&c.expr, resolve)?;
            let ty = type_scalar(&c.ty)?;
            ty.holds_int(v).then_some(v)
        }
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => eval_by(expr, resolve).map(|v| -v),
        syn::Expr::Binary(b) => {
            let (l, r) = (eval_by(&b.left, resolve)?, eval_by(&b.right, resolve)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                syn::BinOp::Div(_) if r != 0 => Some(l / r),
                syn::BinOp::Rem(_) if r != 0 => Some(l % r),
                syn::BinOp::Shl(_) => u32::try_from(r)
                    .ok()
                    .filter(|r| *r < 64)
                    .and_then(|r| l.checked_shl(r)),
                syn::BinOp::Shr(_) => u32::try_from(r).ok().filter(|r| *r < 64).map(|r| l >> r),
                syn::BinOp::BitAnd(_) => Some(l & r),
                syn::BinOp::BitOr(_) => Some(l | r),
                syn::BinOp::BitXor(_) => Some(l ^ r),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Every `const NAME: T = e;` of the items, inline modules and function bodies included
/// (names are counted file-wide: one defined twice is not known); `None` for a type that is
/// not an integer or a definition under `#[cfg]`.
fn collect<'a>(
    items: &'a [syn::Item],
    defs: &mut HashMap<String, Vec<(Option<Scalar>, &'a syn::Expr)>>,
) {
    for item in items {
        match item {
            syn::Item::Const(c) => {
                let cfg = c.attrs.iter().any(|a| a.path().is_ident("cfg"));
                let ty = type_scalar(&c.ty).filter(|t| t.is_int() && !cfg);
                defs.entry(c.ident.to_string())
                    .or_default()
                    .push((ty, &c.expr));
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect(inner, defs);
                }
            }
            // A `const` in a body, or an associated one, also shadows a module's of one name.
            syn::Item::Fn(f) => collect_block(&f.block, defs),
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Const(c) = it {
                        defs.entry(c.ident.to_string())
                            .or_default()
                            .push((None, &c.expr));
                    }
                }
            }
            _ => {}
        }
    }
}

fn collect_block<'a>(
    b: &'a syn::Block,
    defs: &mut HashMap<String, Vec<(Option<Scalar>, &'a syn::Expr)>>,
) {
    for s in &b.stmts {
        if let syn::Stmt::Item(syn::Item::Const(c)) = s {
            defs.entry(c.ident.to_string())
                .or_default()
                .push((None, &c.expr));
        }
    }
}

fn type_scalar(t: &syn::Type) -> Option<Scalar> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => {
            Scalar::from_rust_name(&p.path.get_ident()?.to_string())
        }
        syn::Type::Group(g) => type_scalar(&g.elem),
        syn::Type::Paren(p) => type_scalar(&p.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_constants_of_literals_and_other_constants_are_known() {
        let c = ModuleConsts::of_source(
            "pub const TILE: usize = 32;\n const ROWS: u32 = TILE as u32 / 4;\n const N: usize = TILE + 2 * HALO;\n const HALO: usize = 1 << 1;\n const X: f32 = 1.0;\n #[cfg(test)] const C: u32 = 1;\n const D: u32 = 1;\n mod m { const D: u32 = 2; }\n const BIG: u8 = 300;\n const E: u32 = f();",
        );
        assert_eq!(c.get("TILE"), Some((Scalar::Usize, 32)));
        assert_eq!(c.get("ROWS"), Some((Scalar::U32, 8)));
        assert_eq!(c.get("N"), Some((Scalar::Usize, 36)));
        // Floats, `#[cfg]`'d and twice-defined names, values out of range, calls: unknown.
        for name in ["X", "C", "D", "BIG", "E", "MISSING"] {
            assert_eq!(c.get(name), None, "{name}");
        }
        let mut used = Vec::new();
        let e: syn::Expr = syn::parse_str("[0; TILE + 1]")
            .map(|a: syn::ExprRepeat| *a.len)
            .unwrap_or_else(|_| syn::parse_quote!(0));
        assert_eq!(c.eval(&e, &mut used), Some(33));
        assert_eq!(used, vec!["TILE".to_string()]);
    }
}
