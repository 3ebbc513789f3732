//! Buffers each thread owns one element of: a `&mut [T]` parameter whose every access, read,
//! write or atomic, is at the thread's `global_idx().x`.
//!
//! In a launch whose grid and blocks are one-dimensional, with fewer than 2^32 threads,
//! `global_idx().x` is different in every thread of the grid, so no two threads, of one block
//! or of two, ever touch one element of such a buffer: the simulator's race detector needs no
//! shadow for it (which is most of the cost of race detection in element-wise kernels). The
//! host glue checks the launch's shape; other launches keep the shadow.
//!
//! The index must be `global_idx().x` itself, `block_idx().x * block_dim().x + thread_idx().x`
//! (in either order of either operation), a widening cast of one, or a variable every write
//! of which is one of these. Anything else (an offset, a stride, a loop, a loaded index, an
//! access in `unsafe`) keeps the shadow: this is a syntactic proof, sound and deliberately
//! narrow.

use crate::ir::*;
use std::collections::HashSet;

/// The `&mut [T]` arrays (of scalars, not struct fields) whose every access is at the
/// thread's `global_idx().x`.
pub fn grid_exclusive(k: &Kernel) -> Vec<Handle<Array>> {
    let mut candidates: Vec<Handle<Array>> = k
        .arrays
        .iter()
        .filter(|(_, a)| a.kind == (ArrayKind::Global { mutable: true }) && a.field.is_none())
        .map(|(h, _)| h)
        .collect();
    let mut reject = |array: Handle<Array>, index: &[Handle<Expr>], in_unsafe: bool| {
        if in_unsafe || !matches!(index, [i] if is_global_x(k, *i, &mut HashSet::new())) {
            candidates.retain(|c| *c != array);
        }
    };
    visit::for_each_stmt(&k.body, false, &mut |s, in_unsafe| {
        match s {
            Stmt::Assign {
                place: Place::Element { array, index },
                ..
            } => reject(*array, index, in_unsafe),
            Stmt::Atomic { array, index, .. } => reject(*array, &[*index], in_unsafe),
            _ => {}
        }
        for e in s.operands() {
            visit::any_expr(k, e, &mut |x| {
                if let Expr::Load { array, index } | Expr::UniformLoad { array, index } = x {
                    reject(*array, index, in_unsafe);
                }
                false
            });
        }
    });
    candidates
}

/// Whether `e` is the thread's `global_idx().x` (see the module's text).
fn is_global_x(k: &Kernel, e: Handle<Expr>, seen: &mut HashSet<Handle<Local>>) -> bool {
    through_locals(k, e, seen, &|e, seen| match k.exprs.get(e) {
        Expr::Builtin {
            builtin: Builtin::GlobalIdx,
            axis: Axis::X,
        } => true,
        // `u32` to a type that holds every `u32`.
        Expr::Cast { expr, to } => {
            matches!(to, Scalar::U32 | Scalar::U64 | Scalar::Usize | Scalar::I64)
                && is_global_x(k, *expr, seen)
        }
        Expr::Binary {
            op: BinaryOp::Add,
            left,
            right,
        } => {
            let x = |e: Handle<Expr>, b: Builtin, seen: &mut HashSet<Handle<Local>>| {
                through_locals(
                    k,
                    e,
                    seen,
                    &|e, _| matches!(k.exprs.get(e), Expr::Builtin { builtin, axis: Axis::X } if *builtin == b),
                )
            };
            let product = |m: Handle<Expr>, seen: &mut HashSet<Handle<Local>>| {
                through_locals(k, m, seen, &|m, seen| match k.exprs.get(m) {
                    Expr::Binary {
                        op: BinaryOp::Mul,
                        left,
                        right,
                    } => {
                        (x(*left, Builtin::BlockIdx, seen) && x(*right, Builtin::BlockDim, seen))
                            || (x(*left, Builtin::BlockDim, seen)
                                && x(*right, Builtin::BlockIdx, seen))
                    }
                    _ => false,
                })
            };
            (product(*left, seen) && x(*right, Builtin::ThreadIdx, seen))
                || (x(*left, Builtin::ThreadIdx, seen) && product(*right, seen))
        }
        _ => false,
    })
}

/// A property of an expression, given the variables already being followed.
type Test<'a> = dyn Fn(Handle<Expr>, &mut HashSet<Handle<Local>>) -> bool + 'a;

/// Whether `is(e)` holds, or `e` is a variable (of a `let`) that is written at least once
/// and every write of which is such an expression, or such a variable, and so on; `seen`
/// guards the variables being followed.
fn through_locals(
    k: &Kernel,
    e: Handle<Expr>,
    seen: &mut HashSet<Handle<Local>>,
    is: &Test,
) -> bool {
    let Expr::Local(l) = k.exprs.get(e) else {
        return is(e, seen);
    };
    if !seen.insert(*l) || k.locals.get(*l).origin != LocalOrigin::Let {
        return false;
    }
    let mut writes = 0;
    let mut all = true;
    visit::for_each_stmt(&k.body, false, &mut |s, _| {
        if s.written_local() != Some(*l) {
            return;
        }
        let value = match s {
            Stmt::Let { init, .. } => *init,
            Stmt::Assign {
                value, op: None, ..
            } => Some(*value),
            _ => None,
        };
        match value {
            Some(v) => {
                writes += 1;
                all &= through_locals(k, v, &mut seen.clone(), is);
            }
            // A `let` without a value writes nothing; `i += ..`, an atomic's or a warp
            // operation's result, or a loop variable, is something else.
            None => all &= matches!(s, Stmt::Let { init: None, .. }),
        }
    });
    all && writes > 0
}

#[cfg(test)]
mod tests {
    use crate::compile_str;

    /// Whether `out` is found exclusive in a kernel with this body.
    fn exclusive(body: &str) -> bool {
        let src = format!("fn k(out: &mut [u32], idx: &[u32], n: u32) {{\n{body}\n}}");
        let c = compile_str("", &src, "k.rs")
            .unwrap_or_else(|d| panic!("{body}: {}", d[0].full_message()));
        c.report
            .text
            .contains("simulator: `out` is one element per thread")
    }

    #[test]
    fn only_accesses_at_the_global_index_are_exclusive() {
        let yes = [
            "let i = global_idx().x; if i < out.len() as u32 { out[i] = out[i] + n; }",
            "let i = block_idx().x * block_dim().x + thread_idx().x; if i < n { out[i] = 1; }",
            "let i = thread_idx().x + block_dim().x * block_idx().x; if i < n { out[i as usize] = 1; }",
            "let t = thread_idx().x; let b = block_idx().x * block_dim().x; let i = b + t; if i < n { out[i] = 1; }",
            "let g = global_idx().x; let i = g; if i < n { out[i] = idx[i]; }",
            "let i; if n > 3 { i = global_idx().x; } else { i = global_idx().x; } if i < n { out[i] = 2; }",
            "if global_idx().x < n { out.atomic_add(global_idx().x, 1); }",
        ];
        for body in yes {
            assert!(exclusive(body), "should be exclusive: {body}");
        }
        let no = [
            // Unique in a block only: two blocks share elements.
            "let t = thread_idx().x; if t < n { out[t] = 1; }",
            "let t = thread_idx().x; let i = block_idx().x * n + t; if t < n && i < out.len() as u32 { out[i] = 1; }",
            // An offset, another axis, a loaded index, a stride.
            "let i = global_idx().x; if i + 1 < n { out[i + 1] = 1; }",
            "let i = global_idx().x; if i < n { out[i] = 1; } if i == 0 { out[0] = 5; }",
            "let i = global_idx().y * 4096 + global_idx().x; if global_idx().x < 4096 && i < n { out[i] = 1; }",
            "let i = global_idx().x; if i < n { out[idx[i]] = 1; }",
            "let mut i = global_idx().x; while i < n { out[i] = 1; i += 1024; }",
            // A variable that is not always the global index.
            "let mut i = global_idx().x; if n > 3 { i = 0; } if i < n && global_idx().x == 0 { out[i] = 1; }",
            // In `unsafe`, the accesses are the programmer's.
            "let i = global_idx().x; if i < n { unsafe { out[i] = 1; } }",
            // Narrowing casts can make two indices one.
            "let i = global_idx().x; if i < n { out[(i as u16) as usize] = 1; }",
        ];
        for body in no {
            assert!(!exclusive(body), "should not be exclusive: {body}");
        }
    }
}
