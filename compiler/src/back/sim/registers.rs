//! Local arrays the simulator keeps in Rust locals, one a element: those every access of
//! which names its element with literal indices (`let p = tile[j]; p[0] - me[0]`, the 4-float
//! chunks of vector access), so no access can fault and each element is a variable of its
//! own.
//!
//! Why: elsewhere a thread's local array lives in memory the block allocates (`LocalArrays`),
//! and rustc cannot keep it in registers across the stores of other arrays it might alias;
//! worse, LLVM then merges neighbouring loads of elements just stored one by one into one
//! wide load, which the CPU cannot forward from the narrower stores (n-body ran 2.6x slower
//! that way). As variables, the elements live in registers within a thread loop; the
//! phase-split code loads them where a thread's part starts and stores the written ones
//! back where it ends, as it does with the variables it keeps per thread.
//!
//! Takes a checked kernel; gives, per array, whether it is kept in registers.

use crate::back::rust_types::site;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote_spanned;

/// The most elements a local array may have to be kept in registers.
const MAX_ELEMENTS: u64 = 64;

/// Per array of `k`: kept in registers (a local array of at most [`MAX_ELEMENTS`] elements
/// whose every load and store names its element with literal indices in range, and which no
/// atomic, matrix multiply or fragment load touches).
pub(super) fn register_arrays(k: &Kernel) -> Vec<bool> {
    let mut ok: Vec<bool> = k
        .arrays
        .iter()
        .map(|(_, a)| match &a.kind {
            ArrayKind::Local { dims, .. } => dims
                .iter()
                .try_fold(1u64, |n, d| n.checked_mul(*d))
                .is_some_and(|n| n <= MAX_ELEMENTS),
            _ => false,
        })
        .collect();
    for (_, e) in k.exprs.iter() {
        if let Expr::Load { array, index } | Expr::UniformLoad { array, index } = e {
            if flat_index(k, *array, index).is_none() {
                ok[array.index()] = false;
            }
        }
    }
    crate::ir::visit::for_each_stmt(&k.body, false, &mut |s, _| match s {
        Stmt::Assign {
            place: Place::Element { array, index },
            ..
        } if flat_index(k, *array, index).is_none() => ok[array.index()] = false,
        Stmt::Atomic { array, .. } => ok[array.index()] = false,
        Stmt::Mma { acc, a, b, .. } => {
            for f in [acc, a, b] {
                ok[f.array.index()] = false;
            }
        }
        Stmt::LoadMatrix { frag, .. } => ok[frag.array.index()] = false,
        Stmt::Wgmma { acc, a, .. } => {
            ok[acc.array.index()] = false;
            if let WgmmaA::Registers(f) = a {
                ok[f.array.index()] = false;
            }
        }
        _ => {}
    });
    ok
}

/// The row-major position of `array[index..]` when every index is a literal in range.
pub(super) fn flat_index(
    k: &Kernel,
    array: Handle<Array>,
    index: &[Handle<Expr>],
) -> Option<usize> {
    let ArrayKind::Local { dims, .. } = &k.arrays.get(array).kind else {
        return None;
    };
    if dims.len() != index.len() {
        return None;
    }
    let mut flat: u64 = 0;
    for (d, i) in dims.iter().zip(index) {
        let Expr::Literal(Literal::Int { value, .. }) = k.exprs.get(*i) else {
            return None;
        };
        let v = u64::try_from(*value).ok().filter(|v| v < d)?;
        flat = flat * d + v;
    }
    usize::try_from(flat).ok()
}

/// The number of elements of local array `a` (0 for other arrays).
pub(super) fn elements(k: &Kernel, a: Handle<Array>) -> usize {
    match &k.arrays.get(a).kind {
        ArrayKind::Local { dims, .. } => dims.iter().product::<u64>() as usize,
        _ => 0,
    }
}

/// Per array of `k`: whether `stmts` (or the blocks in them) assign one of its elements.
pub(super) fn arrays_written(k: &Kernel, stmts: &[(&Stmt, Span)]) -> Vec<bool> {
    let mut written = vec![false; k.arrays.len()];
    for (s, _) in stmts {
        let mut one = |s: &Stmt, _| {
            if let Stmt::Assign {
                place: Place::Element { array, .. },
                ..
            } = s
            {
                written[array.index()] = true;
            }
        };
        one(s, false);
        for b in s.blocks() {
            crate::ir::visit::for_each_stmt(b, false, &mut one);
        }
    }
    written
}

/// Per array of `k`: whether `stmts` (or the blocks in them) read or write one of its
/// elements.
pub(super) fn arrays_used(k: &Kernel, stmts: &[(&Stmt, Span)]) -> Vec<bool> {
    let mut exprs = Vec::new();
    for (s, _) in stmts {
        exprs.extend(s.operands());
        for b in s.blocks() {
            crate::ir::visit::for_each_stmt(b, false, &mut |s, _| exprs.extend(s.operands()));
        }
    }
    let read = arrays_read(k, exprs);
    let mut used = arrays_written(k, stmts);
    for (u, r) in used.iter_mut().zip(read) {
        *u |= r;
    }
    used
}

/// Per array of `k`: whether `exprs` read one of its elements (or its length).
pub(super) fn arrays_read(k: &Kernel, exprs: impl IntoIterator<Item = Handle<Expr>>) -> Vec<bool> {
    let mut read = vec![false; k.arrays.len()];
    for e in exprs {
        crate::ir::visit::any_expr(k, e, &mut |x| {
            if let Expr::Load { array, .. } | Expr::UniformLoad { array, .. } | Expr::Len(array) = x
            {
                read[array.index()] = true;
            }
            false
        });
    }
    read
}

/// What the writer emits where a register array's access is not one `register_arrays`
/// accepted: a broken invariant, an error at the access rather than a wrong element.
pub(super) fn internal_error(span: Span) -> TokenStream {
    quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: a register array accessed at a computed index (internal error of the simulator writer)"))
}
