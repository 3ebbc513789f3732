//! Where the plan's thread loops touch each local and array: the local's or array's first
//! thread loop (or block-level condition), and whether another one touches it too (then the
//! phase-split code keeps it per thread between them). Also each local's writes, its `let`'s
//! initialiser, and the variables of block-level `for` loops.
//!
//! Takes the [`Item`] plan of a kernel; gives [`Uses`], which `plan` turns into the
//! [`super::plan::Split`].

use super::items::{promised, Item, WItem};
use crate::ir::*;

/// Which thread loop each local was first seen in, and whether it is seen in another.
pub(super) struct Uses<'k> {
    k: &'k Kernel,
    seen: Vec<Option<u32>>,
    pub(super) spilled: Vec<bool>,
    /// Likewise per array.
    array_seen: Vec<Option<u32>>,
    pub(super) array_spilled: Vec<bool>,
    /// How many statements write each local.
    pub(super) writes: Vec<u32>,
    pub(super) init: Vec<Option<Handle<Expr>>>,
    /// The variables of block-level `for` loops over one range for the block.
    pub(super) block_vars: Vec<Handle<Local>>,
    next: u32,
}

impl<'k> Uses<'k> {
    /// Nothing seen yet in `k`.
    pub(super) fn new(k: &'k Kernel) -> Self {
        let n = k.locals.len();
        Uses {
            k,
            seen: vec![None; n],
            spilled: vec![false; n],
            array_seen: vec![None; k.arrays.len()],
            array_spilled: vec![false; k.arrays.len()],
            writes: vec![0; n],
            init: vec![None; n],
            block_vars: Vec::new(),
            next: 0,
        }
    }
    fn mark(&mut self, l: Handle<Local>, seg: u32) {
        match self.seen[l.index()] {
            None => self.seen[l.index()] = Some(seg),
            Some(s) if s != seg => self.spilled[l.index()] = true,
            Some(_) => {}
        }
    }
    fn mark_array(&mut self, a: Handle<Array>, seg: u32) {
        match self.array_seen[a.index()] {
            None => self.array_seen[a.index()] = Some(seg),
            Some(s) if s != seg => self.array_spilled[a.index()] = true,
            Some(_) => {}
        }
    }
    fn expr(&mut self, e: Handle<Expr>, seg: u32) {
        let expr = self.k.exprs.get(e);
        // (`Len` is not a use: of a register array, the only arrays whose spilling this
        // decides, it is a literal.)
        match expr {
            Expr::Local(l) => self.mark(*l, seg),
            Expr::Load { array: a, .. } | Expr::UniformLoad { array: a, .. } => {
                self.mark_array(*a, seg)
            }
            _ => {}
        }
        for o in expr.operands() {
            self.expr(o, seg);
        }
    }
    fn stmt(&mut self, s: &Stmt, seg: u32) {
        if let Some(l) = s.written_local() {
            self.writes[l.index()] += 1;
            self.mark(l, seg);
        }
        if let Stmt::Assign {
            place: Place::Element { array, .. },
            ..
        }
        | Stmt::Atomic { array, .. } = s
        {
            self.mark_array(*array, seg);
        }
        if let Stmt::Let {
            local,
            init: Some(e),
        } = s
        {
            self.init[local.index()] = Some(*e);
        }
        for e in s.operands() {
            self.expr(e, seg);
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                self.stmt(inner, seg);
            }
        }
    }
    fn segment(&mut self) -> u32 {
        self.next += 1;
        self.next
    }
    /// Records what the plan `items` touches, thread loop by thread loop.
    pub(super) fn items(&mut self, items: &[Item<'_>]) {
        for item in items {
            match item {
                Item::Threads(stmts) => {
                    let seg = self.segment();
                    for (s, _) in stmts {
                        self.stmt(s, seg);
                    }
                }
                Item::Barrier(_) => {}
                Item::If {
                    cond,
                    accept,
                    reject,
                    ..
                } => {
                    let seg = self.segment();
                    self.expr(*cond, seg);
                    self.items(accept);
                    self.items(reject);
                }
                Item::Loop { kind, body, .. } => {
                    let seg = self.segment();
                    match kind {
                        LoopKind::Infinite => {}
                        LoopKind::While { cond } => self.expr(*cond, seg),
                        LoopKind::For {
                            var,
                            start,
                            end,
                            step,
                            ..
                        } => {
                            // A range the whole block shares gives a block-level variable;
                            // one behind a promise, a variable per thread.
                            self.writes[var.index()] += 1;
                            let range = [Some(*start), Some(*end), *step];
                            if range.into_iter().flatten().any(|e| promised(self.k, e)) {
                                self.spilled[var.index()] = true;
                            } else {
                                self.block_vars.push(*var);
                            }
                            for e in range.into_iter().flatten() {
                                self.expr(e, seg);
                            }
                        }
                    }
                    self.items(body);
                }
                Item::Scope(inner) => self.items(inner),
                Item::Warps(witems) => self.witems(witems),
            }
        }
    }
    fn witems(&mut self, items: &[WItem<'_>]) {
        for item in items {
            match item {
                WItem::Lanes(stmts) => {
                    let seg = self.segment();
                    for (s, _) in stmts {
                        self.stmt(s, seg);
                    }
                }
                WItem::Op(s, _) => {
                    // The lanes' values are gathered in one loop, the results given in another.
                    let seg = self.segment();
                    for e in s.operands() {
                        self.expr(e, seg);
                    }
                    if let Some(l) = s.written_local() {
                        let seg = self.segment();
                        self.writes[l.index()] += 1;
                        self.mark(l, seg);
                    } else if s.is_matrix_op() {
                        // A matrix multiply or fragment load reads its fragments' rows (and a
                        // load its tile's) again where it stores.
                        let seg = self.segment();
                        for e in s.operands() {
                            self.expr(e, seg);
                        }
                    }
                }
                WItem::If {
                    cond,
                    accept,
                    reject,
                    ..
                } => {
                    let seg = self.segment();
                    self.expr(*cond, seg);
                    self.witems(accept);
                    self.witems(reject);
                }
                WItem::Loop { kind, body, .. } => {
                    let seg = self.segment();
                    match kind {
                        LoopKind::Infinite => {}
                        LoopKind::While { cond } => self.expr(*cond, seg),
                        LoopKind::For {
                            var,
                            start,
                            end,
                            step,
                            ..
                        } => {
                            // The warp's own variable, a Rust variable of the warp loop.
                            self.writes[var.index()] += 1;
                            self.block_vars.push(*var);
                            for e in [Some(*start), Some(*end), *step].into_iter().flatten() {
                                self.expr(e, seg);
                            }
                        }
                    }
                    self.witems(body);
                }
                WItem::Scope(inner) => self.witems(inner),
            }
        }
    }
}
