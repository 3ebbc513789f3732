//! The one walker of the IR's tree: the blocks nested in a statement, the operands of an
//! expression, and traversals over every statement or expression of a block.
//!
//! Passes that need their own order or state (the analyses' dataflow, the writers) recurse
//! themselves; everything that only asks "is there a statement such that ..." or "every
//! statement of this kind" uses these functions, so the shape of the tree is spelled out
//! here once.

use super::{Block, Expr, Handle, Kernel, Local, LoopKind, Place, Stmt, StmtId};

impl Stmt {
    /// The blocks nested directly in this statement, in program order.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        let (a, b) = match self {
            Stmt::If { accept, reject, .. } => (Some(accept), Some(reject)),
            Stmt::Loop { body, .. } | Stmt::Block(body) => (Some(body), None),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// The blocks nested directly in this statement, mutably.
    pub fn blocks_mut(&mut self) -> impl Iterator<Item = &mut Block> {
        let (a, b) = match self {
            Stmt::If { accept, reject, .. } => (Some(accept), Some(reject)),
            Stmt::Loop { body, .. } | Stmt::Block(body) => (Some(body), None),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// Whether every thread of a warp must reach this statement together: a warp operation, a
    /// matrix multiply-accumulate or a fragment load. (A warpgroup multiply needs its whole
    /// warpgroup, a rule of its own; one with `A` in registers is also a warp's.)
    pub fn is_warp_collective(&self) -> bool {
        matches!(self, Stmt::Warp { .. }) || self.is_matrix_op()
    }

    /// Whether the statement moves matrix fragments between a warp's lanes (`mma_*`,
    /// `ldmatrix`, a warpgroup multiply with `A` in registers), which takes whole warps.
    pub fn is_matrix_op(&self) -> bool {
        matches!(
            self,
            Stmt::Mma { .. }
                | Stmt::LoadMatrix { .. }
                | Stmt::Wgmma {
                    a: super::WgmmaA::Registers(_),
                    ..
                }
        )
    }

    /// The variable this statement writes itself, if any (a `let`, an assignment to a
    /// variable, an atomic's or a warp operation's result, a `for` loop's variable).
    pub fn written_local(&self) -> Option<Handle<Local>> {
        match self {
            Stmt::Let { local, .. } => Some(*local),
            Stmt::Assign {
                place: Place::Local(l),
                ..
            } => Some(*l),
            Stmt::Atomic { result, .. } | Stmt::Warp { result, .. } => *result,
            Stmt::Loop {
                kind: LoopKind::For { var, .. },
                ..
            } => Some(*var),
            _ => None,
        }
    }

    /// The expressions this statement evaluates itself (not those of nested blocks), in
    /// evaluation order: a `for` loop's range, a `while` condition, an assigned element's
    /// indices before the value.
    pub fn operands(&self) -> Vec<Handle<Expr>> {
        match self {
            Stmt::Let { init, .. } => init.iter().copied().collect(),
            Stmt::Assign { place, value, .. } => {
                let mut v = match place {
                    Place::Local(_) => Vec::new(),
                    Place::Element { index, .. } => index.clone(),
                };
                v.push(*value);
                v
            }
            Stmt::If { cond, .. } => vec![*cond],
            Stmt::Loop { kind, .. } => match kind {
                LoopKind::Infinite => Vec::new(),
                LoopKind::While { cond } => vec![*cond],
                LoopKind::For {
                    start, end, step, ..
                } => [Some(*start), Some(*end), *step]
                    .into_iter()
                    .flatten()
                    .collect(),
            },
            Stmt::Atomic { index, value, .. } => vec![*index, *value],
            Stmt::Warp { value, lane, .. } => value.iter().chain(lane.iter()).copied().collect(),
            Stmt::Mma { acc, a, b, .. } => [acc.row, a.row, b.row].into_iter().flatten().collect(),
            // The fragment's row, then the tile's, as Rust evaluates the arguments.
            Stmt::LoadMatrix { frag, row, .. } => frag.row.into_iter().chain([*row]).collect(),
            Stmt::Wgmma { acc, a, b_row, .. } => {
                let a_row = match a {
                    super::WgmmaA::Tile { row, .. } => Some(*row),
                    super::WgmmaA::Registers(f) => f.row,
                };
                acc.row.into_iter().chain(a_row).chain([*b_row]).collect()
            }
            Stmt::AsyncCopy { dst_index, src, .. } => {
                dst_index.iter().chain(src).copied().collect()
            }
            Stmt::Eval(e) | Stmt::Check { index: e, .. } => vec![*e],
            Stmt::Print { pieces, .. } => pieces
                .iter()
                .filter_map(|p| match p {
                    super::PrintPiece::Value { expr, .. } => Some(*expr),
                    super::PrintPiece::Text(_) => None,
                })
                .collect(),
            Stmt::Break { .. }
            | Stmt::Continue { .. }
            | Stmt::Return
            | Stmt::Barrier { .. }
            | Stmt::Fence(_)
            | Stmt::AsyncCommit
            | Stmt::AsyncWait { .. }
            | Stmt::WgmmaCommit
            | Stmt::WgmmaWait { .. }
            | Stmt::Block(_)
            | Stmt::Panic { .. } => Vec::new(),
        }
    }
}

impl Expr {
    /// The operands of this expression, in evaluation order.
    pub fn operands(&self) -> Vec<Handle<Expr>> {
        match self {
            Expr::Literal(_) | Expr::Local(_) | Expr::Builtin { .. } | Expr::Len(_) => Vec::new(),
            Expr::Load { index, .. } | Expr::UniformLoad { index, .. } => index.clone(),
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } | Expr::AssumeUniform(expr) => {
                vec![*expr]
            }
            Expr::Binary { left, right, .. } => vec![*left, *right],
            Expr::Select {
                cond,
                accept,
                reject,
            } => vec![*cond, *accept, *reject],
            Expr::Method { receiver, args, .. } => std::iter::once(*receiver)
                .chain(args.iter().copied())
                .collect(),
        }
    }
}

/// Calls `f` on every statement of `b` and of the blocks nested in it, in program order (a
/// statement before the statements nested in it), with whether it sits inside an `unsafe`
/// block (`b` itself counts when `in_unsafe`).
pub fn for_each_stmt<'a>(b: &'a Block, in_unsafe: bool, f: &mut impl FnMut(&'a Stmt, bool)) {
    let in_unsafe = in_unsafe || b.is_unsafe;
    for s in &b.stmts {
        f(s, in_unsafe);
        for inner in s.blocks() {
            for_each_stmt(inner, in_unsafe, f);
        }
    }
}

/// Whether some statement of `b` or of a block nested in it satisfies `f`.
pub fn any_stmt(b: &Block, mut f: impl FnMut(&Stmt) -> bool) -> bool {
    fn go(b: &Block, f: &mut impl FnMut(&Stmt) -> bool) -> bool {
        b.stmts
            .iter()
            .any(|s| f(s) || s.blocks().any(|inner| go(inner, f)))
    }
    go(b, &mut f)
}

/// Calls `f` on `b` and on every block nested in it, outer blocks first.
pub fn for_each_block_mut(b: &mut Block, f: &mut impl FnMut(&mut Block)) {
    f(b);
    for s in &mut b.stmts {
        for inner in s.blocks_mut() {
            for_each_block_mut(inner, f);
        }
    }
}

/// Which locals the kernel's statements read (through the expressions they evaluate), by
/// handle: a local no statement reads is only written (an inlined helper may ignore the
/// argument a caller computed for it).
pub fn read_locals(k: &Kernel) -> Vec<bool> {
    fn mark(k: &Kernel, e: Handle<Expr>, read: &mut [bool]) {
        let expr = k.exprs.get(e);
        if let Expr::Local(l) = expr {
            read[l.index()] = true;
        }
        for o in expr.operands() {
            mark(k, o, read);
        }
    }
    let mut read = vec![false; k.locals.len()];
    for_each_stmt(&k.body, false, &mut |s, _| {
        for e in s.operands() {
            mark(k, e, &mut read);
        }
    });
    read
}

/// Whether `e` or one of the expressions it is computed from satisfies `f`.
pub fn any_expr(k: &Kernel, e: Handle<Expr>, f: &mut impl FnMut(&Expr) -> bool) -> bool {
    let expr = k.exprs.get(e);
    f(expr) || expr.operands().into_iter().any(|o| any_expr(k, o, f))
}

/// The block that holds statement `id` and its position there.
pub fn find_stmt_mut(b: &mut Block, id: StmtId) -> Option<(&mut Block, usize)> {
    if let Some(pos) = b.ids.iter().position(|i| *i == id) {
        return Some((b, pos));
    }
    b.stmts
        .iter_mut()
        .flat_map(Stmt::blocks_mut)
        .find_map(|inner| find_stmt_mut(inner, id))
}

/// The span of statement `id`.
pub fn stmt_span(b: &Block, id: StmtId) -> Option<super::Span> {
    if let Some(pos) = b.ids.iter().position(|i| *i == id) {
        return b.spans.get(pos).copied();
    }
    b.stmts
        .iter()
        .flat_map(Stmt::blocks)
        .find_map(|inner| stmt_span(inner, id))
}
