//! Asynchronous copies into shared memory: `cp_async(&mut tile[i], &src[j])`,
//! `cp_async_commit()` and `cp_async_wait(n)` (CUDA's `cp.async`, `cp.async.commit_group`
//! and `cp.async.wait_group`).
//!
//! The destination is an element of a shared array or a row of a two-dimensional one; the
//! source an element of a slice in global memory of the same type, 4, 8 or 16 bytes in all.
//! The source is lowered as the loads of its lanes (what the analyses and the simulator read);
//! the writers turn them back into one address.

use super::cx::*;
use super::memory::literal_len;
use super::syntax::*;
use crate::ir::*;

/// The sizes `cp.async` copies, in bytes.
const SIZES: [u64; 3] = [4, 8, 16];

impl Lowerer<'_> {
    /// `cp_async(&mut dst, &src)`: the operands, then [`Stmt::AsyncCopy`].
    pub(super) fn lower_async_copy(&mut self, c: &syn::ExprCall, out: &mut Block, span: Span) {
        const FORM: &str = "`cp_async(&mut tile[i], &src[j])`";
        if c.args.len() != 2 {
            self.err(
                span,
                format!("`cp_async` takes 2 arguments: {FORM}, an element (or a row) of a shared array and one of a slice"),
            );
            return;
        }
        let (dst, src) = (&c.args[0], &c.args[1]);
        let dst = match strip_parens(dst) {
            syn::Expr::Reference(r) if r.mutability.is_some() => &*r.expr,
            other => {
                self.err(
                    other.src(),
                    format!("`cp_async` writes its first argument: {FORM}"),
                );
                return;
            }
        };
        let src = match strip_parens(src) {
            syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => {
                self.err(
                    other.src(),
                    format!("`cp_async` reads its second argument by shared reference: {FORM}"),
                );
                return;
            }
        };
        // The destination: a row `tile[r]` of a two-dimensional shared array, or an element.
        let (array, dst_index, row) = match self.row_of(dst) {
            Some((a, r)) if matches!(self.arrays.get(a).kind, ArrayKind::Shared { .. }) => {
                let Some(r) = self.value_or_none(r, out) else {
                    return;
                };
                let r = self.stable(r, dst.src(), out);
                (a, vec![r], true)
            }
            _ => {
                let Some((a, index)) = self.lower_index(dst, out) else {
                    return;
                };
                (a, index, false)
            }
        };
        let arr = self.arrays.get(array).clone();
        let ArrayKind::Shared { dims, .. } = &arr.kind else {
            self.err(
                dst.src(),
                format!(
                    "`cp_async` copies into shared memory; `{}` is not a shared array",
                    arr.name
                ),
            );
            return;
        };
        let lanes = if row {
            dims.last().copied().unwrap_or(0)
        } else {
            1
        };
        let bytes = lanes * arr.elem.size_bytes();
        let ty = if row {
            format!("[{}; {lanes}]", arr.elem.rust_name())
        } else {
            arr.elem.rust_name().to_string()
        };
        if !SIZES.contains(&bytes) {
            self.err(
                dst.src(),
                format!("`cp_async` copies 4, 8 or 16 bytes; `{ty}` is {bytes}"),
            );
            return;
        }
        let field = if row {
            FieldType::Array(Box::new(FieldType::Scalar(arr.elem)), lanes)
        } else {
            FieldType::Scalar(arr.elem)
        };
        let Some(loads) = self.lower_field_leaves(src, &field, out) else {
            return;
        };
        // Every lane is a load of an element of a slice in global memory (the lanes of one
        // element of a slice of arrays, as its lowering gives them): each slice's element
        // type and whether it is `&mut`.
        let sources: Option<Vec<(Scalar, bool)>> = loads
            .iter()
            .map(|l| match self.exprs.get(*l) {
                Expr::Load { array, index } if index.len() == 1 => {
                    let a = self.arrays.get(*array);
                    match a.kind {
                        ArrayKind::Global { mutable } => Some((a.elem, mutable)),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        let Some(sources) = sources.filter(|s| s.len() as u64 == lanes) else {
            self.err(
                src.src(),
                format!("`cp_async` copies from an element of a slice in global memory (`&src[j]`, of type `{ty}`)"),
            );
            return;
        };
        // The copy reads its source at some moment before its wait: a slice other threads may
        // write meanwhile would race with it in ways the proof does not model.
        if sources.iter().any(|(_, mutable)| *mutable) {
            self.err(
                src.src(),
                "`cp_async` copies from a read-only slice (`&[T]`): an element of a `&mut` slice could change while the copy is in flight",
            );
            return;
        }
        // (The lanes of one element share its type.)
        let from = sources[0].0;
        if from != arr.elem {
            self.err(
                src.src(),
                format!(
                    "mismatched types: `cp_async` copies `{ty}` into `{}`, from a slice of `{}`",
                    arr.name,
                    from.rust_name()
                ),
            );
            return;
        }
        for f in &mut self.calls {
            f.wrote_shared = true;
        }
        out.push(
            Stmt::AsyncCopy {
                dst: array,
                dst_index,
                row,
                src: loads,
            },
            span,
        );
    }

    /// `cp_async_commit()`, `cp_async_wait(n)`, `wgmma_commit()` or `wgmma_wait(n)` (`n` an
    /// integer literal or a constant): a commit or a wait of `queue`.
    pub(super) fn lower_group(
        &mut self,
        c: &syn::ExprCall,
        queue: Queue,
        wait: bool,
        out: &mut Block,
        span: Span,
    ) {
        let q = queue.prefix();
        if !wait {
            if !c.args.is_empty() {
                self.err(c.args.src(), format!("`{q}_commit()` takes no arguments"));
                return;
            }
            out.push(queue.commit(), span);
            return;
        }
        let n = match c.args.first() {
            Some(e) if c.args.len() == 1 => literal_len(e).or_else(|| {
                self.module_const_value(e)
                    .and_then(|n| u64::try_from(n).ok())
            }),
            _ => {
                self.err(
                    span,
                    format!("`{q}_wait` takes 1 argument: how many of the latest committed groups may still be in flight (`{q}_wait(0)` waits for all)"),
                );
                return;
            }
        };
        let max = queue.max_pending();
        match n.and_then(|n| u32::try_from(n).ok()).filter(|n| *n <= max) {
            Some(pending) => out.push(queue.wait(pending), span),
            None => self.err(
                c.args.src(),
                format!("`{q}_wait(n)` needs `n` known when the kernel is compiled: an integer literal from 0 to {max}, or a constant"),
            ),
        }
    }
}

/// The two queues of asynchronous operations a thread commits and waits for: copies into
/// shared memory (`cp_async_*`) and warpgroup multiplies (`wgmma_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Queue {
    Copies,
    Multiplies,
}

impl Queue {
    /// The prefix of the queue's functions.
    fn prefix(self) -> &'static str {
        match self {
            Queue::Copies => "cp_async",
            Queue::Multiplies => "wgmma",
        }
    }

    /// The most groups a wait may leave in flight: PTX's `cp.async.wait_group` takes up to
    /// 255 here, `wgmma.wait_group` 0 to 7.
    fn max_pending(self) -> u32 {
        match self {
            Queue::Copies => 255,
            Queue::Multiplies => 7,
        }
    }

    fn commit(self) -> Stmt {
        match self {
            Queue::Copies => Stmt::AsyncCommit,
            Queue::Multiplies => Stmt::WgmmaCommit,
        }
    }

    fn wait(self, pending: u32) -> Stmt {
        match self {
            Queue::Copies => Stmt::AsyncWait { pending },
            Queue::Multiplies => Stmt::WgmmaWait { pending },
        }
    }
}
