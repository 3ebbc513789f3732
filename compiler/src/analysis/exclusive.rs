//! Buffers each thread owns one element of: a `&mut [T]` parameter whose every access, read,
//! write or atomic, is at the thread's `global_idx().x`.
//!
//! In a launch whose grid and blocks are one-dimensional, with fewer than 2^32 threads,
//! `global_idx().x` is different in every thread of the grid, so no two threads, of one block
//! or of two, ever touch one element of such a buffer: the simulator's race detector needs no
//! shadow for it (which is most of the cost of race detection in element-wise kernels). The
//! host glue checks the launch's shape; other launches keep the shadow.
//!
//! A slice of structs or of arrays counts as one buffer: all its leaves, or none.
//!
//! The index must be `global_idx().x` itself, `block_idx().x * block_dim().x + thread_idx().x`
//! (in either order of either operation), a widening cast of one, or a variable declared with
//! a value every write of which is one of these. Anything else (an offset, a stride, a loop, a loaded index, an
//! access in `unsafe`) keeps the shadow: this is a syntactic proof, sound and deliberately
//! narrow.

use crate::ir::*;
use std::cell::Cell;
use std::collections::HashSet;
use std::rc::Rc;

/// The `&mut [T]` arrays whose every access is at the thread's `global_idx().x`. A slice of
/// structs or of arrays (`&mut [[u32; 4]]`) is one array per leaf: its leaves are in the list
/// together, when every access to every one of them is at that index (thread `i` then touches
/// element `i`'s fields alone), or not at all.
pub fn grid_exclusive(k: &Kernel) -> Vec<Handle<Array>> {
    let mut candidates: Vec<Handle<Array>> = k
        .arrays
        .iter()
        .filter(|(_, a)| a.kind == (ArrayKind::Global { mutable: true }))
        .map(|(h, _)| h)
        .collect();
    // The buffers (by parameter name) one of whose leaves was refused.
    let mut refused_buffers = HashSet::new();
    let mut reject = |array: Handle<Array>, index: &[Handle<Expr>], in_unsafe: bool| {
        if in_unsafe || !matches!(index, [i] if is_global_x(k, *i, &mut Seen::new())) {
            candidates.retain(|c| *c != array);
            if let Some(f) = &k.arrays.get(array).field {
                refused_buffers.insert(f.base.clone());
            }
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
    candidates.retain(|c| {
        k.arrays
            .get(*c)
            .field
            .as_ref()
            .is_none_or(|f| !refused_buffers.contains(&f.base))
    });
    candidates
}

/// Whether `e` is the thread's `global_idx().x` (see the module's text).
fn is_global_x(k: &Kernel, e: Handle<Expr>, seen: &mut Seen) -> bool {
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
            let x = |e: Handle<Expr>, b: Builtin, seen: &mut Seen| {
                through_locals(
                    k,
                    e,
                    seen,
                    &|e, _| matches!(k.exprs.get(e), Expr::Builtin { builtin, axis: Axis::X } if *builtin == b),
                )
            };
            let product = |m: Handle<Expr>, seen: &mut Seen| {
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
            // Each order follows the variables afresh.
            let (mut a, mut b) = (seen.clone(), seen.clone());
            (product(*left, &mut a) && x(*right, Builtin::ThreadIdx, &mut a))
                || (x(*left, Builtin::ThreadIdx, &mut b) && product(*right, &mut b))
        }
        _ => false,
    })
}

/// The variables being followed (so that a cycle is refused), and a budget of variables to
/// follow for the whole proof (so that chains of variables with several writes each cannot
/// make it exponential; past the budget the answer is "not proven", which is sound).
#[derive(Clone)]
struct Seen {
    locals: HashSet<Handle<Local>>,
    budget: Rc<Cell<u32>>,
}

impl Seen {
    fn new() -> Self {
        Seen {
            locals: HashSet::new(),
            budget: Rc::new(Cell::new(10_000)),
        }
    }
}

/// A property of an expression, given the variables already being followed.
type Test<'a> = dyn Fn(Handle<Expr>, &mut Seen) -> bool + 'a;

/// Whether `is(e)` holds, or `e` is a variable (of a `let`) that is written at least once
/// and every write of which is such an expression, or such a variable, and so on; `seen`
/// guards the variables being followed.
fn through_locals(k: &Kernel, e: Handle<Expr>, seen: &mut Seen, is: &Test) -> bool {
    let Expr::Local(l) = k.exprs.get(e) else {
        return is(e, seen);
    };
    let left = seen.budget.get();
    if left == 0 || !seen.locals.insert(*l) || k.locals.get(*l).origin != LocalOrigin::Let {
        return false;
    }
    seen.budget.set(left - 1);
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
            // A `let` without a value is refused too: the phase-split simulator keeps such a
            // variable in a per-thread store that starts at zero, where rustc no longer checks
            // that every path assigns it. `i += ..`, an atomic's or a warp operation's result,
            // or a loop variable, is something else.
            None => all = false,
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

    /// Whether `out`, a slice of `[u32; 4]`, is found exclusive in a kernel with this body.
    fn exclusive_chunks(body: &str) -> bool {
        let src = format!("fn k(out: &mut [[u32; 4]], n: u32) {{\n{body}\n}}");
        let c = compile_str("", &src, "k.rs")
            .unwrap_or_else(|d| panic!("{body}: {}", d[0].full_message()));
        let leaves = c.report.exclusive.len();
        let said = c
            .report
            .text
            .contains("simulator: `out` is one element per thread");
        assert_eq!(said, leaves > 0, "{body}: {}", c.report.text);
        assert!(
            leaves == 0 || leaves == 4,
            "{body}: {leaves} of the 4 leaves"
        );
        said
    }

    #[test]
    fn a_slice_of_arrays_is_exclusive_with_all_its_leaves_or_not_at_all() {
        assert!(exclusive_chunks(
            "let i = global_idx().x; if i < n { out[i] = [1, 2, 3, out[i][3]]; }"
        ));
        assert!(exclusive_chunks(
            "let i = global_idx().x; if i < n { out[i][2] = 7; }"
        ));
        // One leaf at another element: every leaf keeps the shadow.
        assert!(!exclusive_chunks(
            "let i = global_idx().x; if i + 1 < n { out[i][0] = 1; out[i + 1][3] = 2; }"
        ));
        // Leaf 1 read at element 0, only leaf 0 written at `i`: leaf 0 alone would pass, but
        // the buffer does not.
        assert!(!exclusive_chunks(
            "let i = global_idx().x; if i < n { let v = out[0][1]; out[i][0] = v; }"
        ));
    }

    #[test]
    fn only_accesses_at_the_global_index_are_exclusive() {
        let yes = [
            "let i = global_idx().x; if i < out.len() as u32 { out[i] = out[i] + n; }",
            "let i = block_idx().x * block_dim().x + thread_idx().x; if i < n { out[i] = 1; }",
            "let i = thread_idx().x + block_dim().x * block_idx().x; if i < n { out[i as usize] = 1; }",
            "let t = thread_idx().x; let b = block_idx().x * block_dim().x; let i = b + t; if i < n { out[i] = 1; }",
            "let g = global_idx().x; let i = g; if i < n { out[i] = idx[i]; }",
            "let t = thread_idx().x; let i = t + block_idx().x * block_dim().x; if i < n { out[i] = 1; }",
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
            // A variable declared without a value (the simulator's phase-split code does not
            // keep rustc's check that every path assigns it).
            "let i; if n > 3 { i = global_idx().x; } else { i = global_idx().x; } if i < n { out[i] = 2; }",
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
