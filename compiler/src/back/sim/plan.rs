//! The phase-split plan of a kernel: its body cut at its barriers (block-level control flow
//! and the runs of statements between barriers), and where each local lives in the code
//! written from it: per thread, recomputed in each thread loop, or once for the block.
//!
//! Takes a checked kernel and its types; gives [`Split`] (or `None` where the kernel keeps
//! one future per thread) and the [`Item`] tree (`items`) the writer walks; where thread loops
//! touch each local and array is recorded by `uses`. Guarantees: a local read in
//! two thread loops is kept per thread unless it is an immutable pure value of the launch
//! (recomputed) or block-uniform by construction (every write of it the block runs once, with
//! a value of the launch's shape and other such values); the writer and this plan cut the body
//! the same way.

use super::items::{promised, Item, WItem};
use super::uses::Uses;
use crate::ir::visit::any_stmt;
use crate::ir::Types;
use crate::ir::*;
use proc_macro2::TokenStream;
use std::cell::{Cell, RefCell};

/// The phase-split state of one kernel being written.
pub(super) struct Split {
    /// Per local: kept per thread (it lives from one thread loop into another, or it is a
    /// parameter the kernel assigns).
    pub(super) spilled: Vec<bool>,
    /// Per local: computed again in each thread loop that reads it (an immutable value of
    /// the thread's indices and the parameters, cheaper to recompute than to keep).
    pub(super) remat: Vec<bool>,
    /// Per local: its `let`'s initialiser.
    pub(super) init: Vec<Option<Handle<Expr>>>,
    /// Per local: one value for the whole block, computed by block-level code (every write
    /// of it is a pure value of such locals and the launch's shape, at the start or the end
    /// of the statements between two barriers).
    pub(super) uniform: Vec<bool>,
    /// Per local: a parameter the kernel never assigns.
    pub(super) fixed: Vec<bool>,
    /// Per array: touched in more than one thread loop (or block-level condition), so a
    /// register array's elements are kept per thread between them.
    pub(super) array_spilled: Vec<bool>,
    /// Whether a thread may return (then thread loops skip returned threads).
    pub(super) returns: bool,
    /// The thread loop being written, if any.
    pub(super) scope: RefCell<Scope>,
    /// The block-level loops around the code being written, innermost last: the label and
    /// the loop's number.
    pub(super) loops: RefCell<Vec<(Option<Handle<Label>>, u32)>>,
    pub(super) next_loop: Cell<u32>,
}

/// What the thread loop being written needs after it.
#[derive(Default)]
pub(super) struct Scope {
    /// Inside a thread loop.
    pub(super) active: bool,
    /// The loops opened inside the thread loop, by label.
    pub(super) inner: Vec<Option<Handle<Label>>>,
    /// The loop exits to block-level loops taken inside, by code, with the block's action.
    pub(super) exits: Vec<(u32, TokenStream)>,
    /// Whether a thread may return inside.
    pub(super) returns: bool,
}

/// Whether `stmts` only declare variables without values (`let y;`, as lowering declares the
/// result of a warp operation before it): Rust gives such a variable no value to read, so a
/// thread loop of them has nothing to do (empty `stmts` too).
pub(super) fn only_declarations(stmts: &[(&Stmt, Span)]) -> bool {
    stmts
        .iter()
        .all(|(s, _)| matches!(s, Stmt::Let { init: None, .. }))
}

/// Whether `s` is or holds a barrier.
fn has_barrier(s: &Stmt) -> bool {
    let barrier = |s: &Stmt| matches!(s, Stmt::Barrier { .. });
    barrier(s) || s.blocks().any(|b| any_stmt(b, barrier))
}

/// `b` cut at its barriers.
pub(super) fn plan(b: &Block) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let mut run: Vec<(&Stmt, Span)> = Vec::new();
    for (s, span) in b.iter() {
        if !has_barrier(s) {
            run.push((s, span));
            continue;
        }
        if !run.is_empty() {
            items.push(threads(std::mem::take(&mut run)));
        }
        items.push(match s {
            Stmt::If {
                cond,
                accept,
                reject,
            } => Item::If {
                cond: *cond,
                accept: plan(accept),
                reject: plan(reject),
                span,
            },
            Stmt::Loop { label, kind, body } => Item::Loop {
                label: *label,
                kind,
                body: plan(body),
                span,
            },
            Stmt::Block(inner) => Item::Scope(plan(inner)),
            _ => Item::Barrier(span),
        });
    }
    if !run.is_empty() {
        items.push(threads(run));
    }
    items
}

/// Statements between two barriers: one thread loop, or a loop over the warps where they
/// hold warp operations.
fn threads(run: Vec<(&Stmt, Span)>) -> Item<'_> {
    if run.iter().any(|(s, _)| has_warp(s)) {
        Item::Warps(plan_warp(run))
    } else {
        Item::Threads(run)
    }
}

/// Whether `s` is or holds a warp operation.
pub(super) fn has_warp(s: &Stmt) -> bool {
    let warp = |s: &Stmt| s.is_warp_collective();
    warp(s) || s.blocks().any(|b| any_stmt(b, warp))
}

/// Statements without barriers cut at their warp operations.
fn plan_warp<'k>(stmts: Vec<(&'k Stmt, Span)>) -> Vec<WItem<'k>> {
    let mut items = Vec::new();
    let mut run: Vec<(&Stmt, Span)> = Vec::new();
    for (s, span) in stmts {
        if !has_warp(s) {
            run.push((s, span));
            continue;
        }
        if !run.is_empty() {
            items.push(WItem::Lanes(std::mem::take(&mut run)));
        }
        items.push(match s {
            Stmt::If {
                cond,
                accept,
                reject,
            } => WItem::If {
                cond: *cond,
                accept: plan_warp(accept.iter().collect()),
                reject: plan_warp(reject.iter().collect()),
                span,
            },
            Stmt::Loop { label, kind, body } => WItem::Loop {
                label: *label,
                kind,
                body: plan_warp(body.iter().collect()),
                span,
            },
            Stmt::Block(b) => WItem::Scope(plan_warp(b.iter().collect())),
            _ => WItem::Op(s, span),
        });
    }
    if !run.is_empty() {
        items.push(WItem::Lanes(run));
    }
    items
}

/// Whether the warp-level plan `items` can be written as loops over the warps: no loop exit
/// inside leaves for a loop outside (`loops`: the loops around, innermost last), and no
/// condition of warp-level control flow holds a promise.
fn warps_ok(k: &Kernel, items: &[WItem<'_>], loops: &mut Vec<Option<Handle<Label>>>) -> bool {
    fn stmt_ok(s: &Stmt, loops: &mut Vec<Option<Handle<Label>>>) -> bool {
        match s {
            Stmt::Break { label } | Stmt::Continue { label } => match label {
                Some(l) => loops.contains(&Some(*l)),
                None => !loops.is_empty(),
            },
            Stmt::Loop { label, body, .. } => {
                loops.push(*label);
                let ok = body.iter().all(|(s, _)| stmt_ok(s, loops));
                loops.pop();
                ok
            }
            _ => s.blocks().all(|b| b.iter().all(|(s, _)| stmt_ok(s, loops))),
        }
    }
    items.iter().all(|item| match item {
        WItem::Lanes(stmts) => stmts.iter().all(|(s, _)| stmt_ok(s, loops)),
        WItem::Op(..) => true,
        WItem::If {
            cond,
            accept,
            reject,
            ..
        } => !promised(k, *cond) && warps_ok(k, accept, loops) && warps_ok(k, reject, loops),
        WItem::Loop {
            label, kind, body, ..
        } => {
            let held = match kind {
                LoopKind::Infinite => false,
                LoopKind::While { cond } => promised(k, *cond),
                LoopKind::For {
                    start, end, step, ..
                } => [Some(*start), Some(*end), *step]
                    .into_iter()
                    .flatten()
                    .any(|e| promised(k, e)),
            };
            loops.push(*label);
            let ok = !held && warps_ok(k, body, loops);
            loops.pop();
            ok
        }
        WItem::Scope(inner) => warps_ok(k, inner, loops),
    })
}

/// Whether every warp region of `items` can be written as loops over the warps.
fn all_warps_ok(k: &Kernel, items: &[Item<'_>]) -> bool {
    items.iter().all(|item| match item {
        Item::Warps(w) => warps_ok(k, w, &mut Vec::new()),
        Item::If { accept, reject, .. } => all_warps_ok(k, accept) && all_warps_ok(k, reject),
        Item::Loop { body, .. } => all_warps_ok(k, body),
        Item::Scope(inner) => all_warps_ok(k, inner),
        Item::Threads(_) | Item::Barrier(_) => true,
    })
}

/// Whether `e` computes a value without touching memory or faulting, from locals `read`
/// accepts.
fn pure(k: &Kernel, types: &Types, e: Handle<Expr>, read: &impl Fn(Handle<Local>) -> bool) -> bool {
    let ok = match k.exprs.get(e) {
        Expr::Literal(_) | Expr::Builtin { .. } | Expr::Len(_) => true,
        Expr::Local(l) => read(*l),
        Expr::Unary { .. } | Expr::Cast { .. } | Expr::Select { .. } => true,
        Expr::Binary { op, left, right } => {
            !(matches!(op, BinaryOp::Div | BinaryOp::Rem)
                && types.expr(*left).is_int()
                && !safe_divisor(k, *right))
        }
        Expr::Load { .. } | Expr::UniformLoad { .. } | Expr::Method { .. } => false,
        Expr::AssumeUniform(_) => false,
    };
    ok && k
        .exprs
        .get(e)
        .operands()
        .into_iter()
        .all(|o| pure(k, types, o, read))
}

/// Whether `e` is a pure value the same in every thread: of the launch's shape and of the
/// locals `read` accepts.
pub(super) fn block_value(
    k: &Kernel,
    types: &Types,
    e: Handle<Expr>,
    read: &impl Fn(Handle<Local>) -> bool,
) -> bool {
    let per_thread = crate::ir::visit::any_expr(k, e, &mut |x| {
        matches!(
            x,
            Expr::Builtin {
                builtin: Builtin::ThreadIdx | Builtin::GlobalIdx | Builtin::LaneId,
                ..
            }
        )
    });
    !per_thread && pure(k, types, e, read)
}

/// Whether `s` writes a block-uniform local with a block-uniform value (so the block runs it
/// once), given the locals `uniform` and `fixed` mark.
fn hoistable(k: &Kernel, types: &Types, s: &Stmt, uniform: &[bool], fixed: &[bool]) -> bool {
    let read = |m: Handle<Local>| uniform[m.index()] || fixed[m.index()];
    match s {
        Stmt::Let { local, init } => {
            uniform[local.index()] && init.is_none_or(|e| block_value(k, types, e, &read))
        }
        Stmt::Assign {
            place: Place::Local(l),
            value,
            op,
        } => {
            uniform[l.index()]
                && block_value(k, types, *value, &read)
                && !op.is_some_and(|o| {
                    matches!(o, BinaryOp::Div | BinaryOp::Rem)
                        && types.local(*l).is_int()
                        && !safe_divisor(k, *value)
                })
        }
        _ => false,
    }
}

/// The statements of a thread loop the block runs once instead: those before `.0` and from
/// `.1` on (leading and trailing writes of block-uniform locals).
pub(super) fn hoist_bounds(
    k: &Kernel,
    types: &Types,
    stmts: &[(&Stmt, Span)],
    uniform: &[bool],
    fixed: &[bool],
) -> (usize, usize) {
    let ok = |s: &Stmt| hoistable(k, types, s, uniform, fixed);
    let p = stmts.iter().take_while(|(s, _)| ok(s)).count();
    let q = stmts.len() - stmts[p..].iter().rev().take_while(|(s, _)| ok(s)).count();
    (p, q)
}

/// The block-uniform locals: the largest set whose every write the block can run once
/// ([`hoistable`] where a thread loop starts or ends), with the variables of block-level
/// loops over one range (`block_var`). Parameters are not among them.
fn uniform_locals(
    k: &Kernel,
    types: &Types,
    items: &[Item<'_>],
    fixed: &[bool],
    param: &[bool],
    block_var: &[bool],
) -> Vec<bool> {
    fn writes_in(s: &Stmt, out: &mut Vec<Handle<Local>>) {
        if let Some(l) = s.written_local() {
            out.push(l);
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                writes_in(inner, out);
            }
        }
    }
    fn witem_writes(items: &[WItem<'_>], out: &mut Vec<Handle<Local>>) {
        for item in items {
            match item {
                WItem::Lanes(stmts) => {
                    for (s, _) in stmts {
                        writes_in(s, out);
                    }
                }
                WItem::Op(s, _) => writes_in(s, out),
                WItem::If { accept, reject, .. } => {
                    witem_writes(accept, out);
                    witem_writes(reject, out);
                }
                WItem::Loop { kind, body, .. } => {
                    if let LoopKind::For { var, .. } = kind {
                        out.push(*var);
                    }
                    witem_writes(body, out);
                }
                WItem::Scope(inner) => witem_writes(inner, out),
            }
        }
    }
    fn walk(
        k: &Kernel,
        types: &Types,
        items: &[Item<'_>],
        uniform: &[bool],
        fixed: &[bool],
        block_var: &[bool],
        bad: &mut [bool],
    ) {
        for item in items {
            match item {
                Item::Threads(stmts) => {
                    let (p, q) = hoist_bounds(k, types, stmts, uniform, fixed);
                    for (i, (s, _)) in stmts.iter().enumerate() {
                        let mut w = Vec::new();
                        writes_in(s, &mut w);
                        if !(i < p || i >= q) {
                            for l in w {
                                bad[l.index()] = true;
                            }
                        }
                    }
                }
                Item::Barrier(_) => {}
                Item::If { accept, reject, .. } => {
                    walk(k, types, accept, uniform, fixed, block_var, bad);
                    walk(k, types, reject, uniform, fixed, block_var, bad);
                }
                Item::Loop { kind, body, .. } => {
                    if let LoopKind::For { var, .. } = kind {
                        if !block_var[var.index()] {
                            bad[var.index()] = true;
                        }
                    }
                    walk(k, types, body, uniform, fixed, block_var, bad);
                }
                Item::Scope(inner) => walk(k, types, inner, uniform, fixed, block_var, bad),
                // Warp regions run per warp: nothing in them is the block's.
                Item::Warps(witems) => {
                    let mut w = Vec::new();
                    witem_writes(witems, &mut w);
                    for l in w {
                        bad[l.index()] = true;
                    }
                }
            }
        }
    }
    let mut uniform: Vec<bool> = param.iter().map(|p| !p).collect();
    loop {
        let mut bad = vec![false; uniform.len()];
        walk(k, types, items, &uniform, fixed, block_var, &mut bad);
        let mut changed = false;
        for (u, b) in uniform.iter_mut().zip(bad) {
            if *u && b {
                *u = false;
                changed = true;
            }
        }
        if !changed {
            return uniform;
        }
    }
}

/// Whether `e` is a literal integer divisor that cannot fault (not 0, not -1).
fn safe_divisor(k: &Kernel, e: Handle<Expr>) -> bool {
    matches!(k.exprs.get(e), Expr::Literal(Literal::Int { value, .. }) if *value != 0 && *value != -1)
}

/// Marks in `used` the locals the expressions of `stmts` (and of the blocks in them) read or
/// write.
pub(super) fn mark_stmts(k: &Kernel, stmts: &[(&Stmt, Span)], used: &mut [bool]) {
    fn stmt(k: &Kernel, s: &Stmt, used: &mut [bool]) {
        if let Some(l) = s.written_local() {
            used[l.index()] = true;
        }
        for e in s.operands() {
            mark_expr(k, e, used);
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                stmt(k, inner, used);
            }
        }
    }
    for (s, _) in stmts {
        stmt(k, s, used);
    }
}

/// Marks in `written` the locals `stmts` (and the blocks in them) write.
pub(super) fn mark_writes(stmts: &[(&Stmt, Span)], written: &mut [bool]) {
    fn stmt(s: &Stmt, written: &mut [bool]) {
        if let Some(l) = s.written_local() {
            written[l.index()] = true;
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                stmt(inner, written);
            }
        }
    }
    for (s, _) in stmts {
        stmt(s, written);
    }
}

/// Marks in `used` the locals `e` reads.
pub(super) fn mark_expr(k: &Kernel, e: Handle<Expr>, used: &mut [bool]) {
    let expr = k.exprs.get(e);
    if let Expr::Local(l) = expr {
        used[l.index()] = true;
    }
    for o in expr.operands() {
        mark_expr(k, o, used);
    }
}

impl Split {
    /// The phase-split state of `k`, or `None` where the kernel keeps one future per thread
    /// (it has warp operations).
    pub(super) fn of(k: &Kernel, types: &Types) -> Option<Split> {
        let items = plan(&k.body);
        if !all_warps_ok(k, &items) {
            return None;
        }
        let n = k.locals.len();
        let mut uses = Uses::new(k);
        uses.items(&items);
        let mut spilled = uses.spilled;
        for v in &uses.block_vars {
            spilled[v.index()] = false;
        }
        // A parameter is read from the block function's argument unless the kernel assigns
        // it: then every thread gets its own copy.
        let mut param = vec![false; n];
        for p in &k.params {
            if let ParamKind::Scalar { local, .. } = p.kind {
                param[local.index()] = true;
                spilled[local.index()] = uses.writes[local.index()] > 0;
            }
        }
        let fixed: Vec<bool> = (0..n).map(|l| param[l] && uses.writes[l] == 0).collect();
        let mut block_var = vec![false; n];
        for v in &uses.block_vars {
            block_var[v.index()] = true;
        }
        let uniform = uniform_locals(k, types, &items, &fixed, &param, &block_var);
        for l in 0..n {
            if uniform[l] {
                spilled[l] = false;
            }
        }
        // A local written once, by a `let` of a pure value of parameters, thread indices and
        // other such locals, is recomputed where it is read rather than kept per thread.
        let mut remat = vec![false; n];
        loop {
            let mut changed = false;
            for l in 0..n {
                if remat[l] || !spilled[l] || param[l] || uses.writes[l] != 1 {
                    continue;
                }
                let read =
                    |m: Handle<Local>| fixed[m.index()] || remat[m.index()] || uniform[m.index()];
                if uses.init[l].is_some_and(|e| pure(k, types, e, &read)) {
                    remat[l] = true;
                    spilled[l] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let returns = any_stmt(&k.body, |s| matches!(s, Stmt::Return));
        Some(Split {
            array_spilled: uses.array_spilled,
            spilled,
            remat,
            uniform,
            fixed,
            init: uses.init,
            returns,
            scope: RefCell::default(),
            loops: RefCell::default(),
            next_loop: Cell::new(0),
        })
    }
}
