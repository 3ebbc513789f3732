//! The tree the phase-split plan cuts a kernel's body into ([`Item`], and [`WItem`] inside a
//! warp region), and whether an expression holds a promise, which decides how the writer
//! evaluates a condition. Shared by the plan (`plan`), what it records (`uses`) and the
//! writers (`split`, `warps`).

use crate::ir::*;

/// The kernel's body cut at its barriers.
pub(super) enum Item<'k> {
    /// Statements without barriers: one loop over the threads.
    Threads(Vec<(&'k Stmt, Span)>),
    /// `sync_block_threads()`.
    Barrier(Span),
    /// An `if` with a barrier in a branch.
    If {
        cond: Handle<Expr>,
        accept: Vec<Item<'k>>,
        reject: Vec<Item<'k>>,
        span: Span,
    },
    /// A loop with a barrier in its body.
    Loop {
        label: Option<Handle<Label>>,
        kind: &'k LoopKind,
        body: Vec<Item<'k>>,
        span: Span,
    },
    /// A block with a barrier inside.
    Scope(Vec<Item<'k>>),
    /// Statements without barriers that hold warp operations: a loop over the warps.
    Warps(Vec<WItem<'k>>),
}

/// Statements between two barriers cut at their warp operations: what one warp runs.
pub(super) enum WItem<'k> {
    /// Statements without warp operations: one loop over the warp's lanes.
    Lanes(Vec<(&'k Stmt, Span)>),
    /// A warp operation.
    Op(&'k Stmt, Span),
    /// An `if` with a warp operation in a branch.
    If {
        cond: Handle<Expr>,
        accept: Vec<WItem<'k>>,
        reject: Vec<WItem<'k>>,
        span: Span,
    },
    /// A loop with a warp operation in its body.
    Loop {
        label: Option<Handle<Label>>,
        kind: &'k LoopKind,
        body: Vec<WItem<'k>>,
        span: Span,
    },
    /// A block with a warp operation inside.
    Scope(Vec<WItem<'k>>),
}

/// Whether `e` holds an `assume_uniform` promise (then every thread evaluates it, so that
/// the promise is checked across the block).
pub(super) fn promised(k: &Kernel, e: Handle<Expr>) -> bool {
    crate::ir::visit::any_expr(k, e, &mut |x| matches!(x, Expr::AssumeUniform(_)))
}
