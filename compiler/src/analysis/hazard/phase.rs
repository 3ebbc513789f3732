//! Phases: the dataflow over the structured control flow that keeps the accesses pending
//! since the last barrier, checks each new access against them, and carries them around loops.

use super::walker::*;
use crate::analysis::affine::{Affine, Constraint};
use crate::ir::*;
use std::rc::Rc;

impl Walker<'_> {
    /// Checks the accesses the last evaluations made against the pending ones, then adds them.
    pub(super) fn flush(&mut self, pend: &mut Pend) {
        let new = std::mem::take(&mut self.pending_new);
        for acc in new {
            let mut against: Vec<Pending> = pend.items.clone();
            against.extend(self.returned.items.iter().cloned());
            for p in &against {
                self.check_pair(p, &acc);
            }
            // Two threads running this very access.
            if acc.write {
                let me = Pending::new(acc.clone());
                self.check_pair(&me, &acc);
            }
            pend.items
                .retain(|p| !(p.acc.id == acc.id && p.carried.is_empty()));
            let in_flight = (acc.async_copy || acc.wgmma).then_some(0);
            pend.items.push(Pending {
                in_flight,
                ..Pending::new(acc)
            });
        }
    }

    pub(super) fn block(&mut self, b: &Block, key: BlockKey, pend: &mut Pend) {
        if b.is_unsafe {
            self.unsafe_depth += 1;
        }
        for (i, (stmt, span, id)) in b.iter_ids().enumerate() {
            self.path.push((key, i, id));
            self.stmt(stmt, span, pend);
            self.path.pop();
        }
        if b.is_unsafe {
            self.unsafe_depth -= 1;
        }
    }

    pub(super) fn set_local(&mut self, l: Handle<Local>, v: Val, span: Span) {
        let _ = span;
        self.env[l.index()] = Some(v);
    }

    pub(super) fn stmt(&mut self, s: &Stmt, span: Span, pend: &mut Pend) {
        let here = self.current_stmt();
        for p in &pend.items {
            if let Some(c) = p.in_flight {
                self.commits_at
                    .entry((here, p.acc.id))
                    .and_modify(|m| *m = (*m).min(c))
                    .or_insert(c);
            }
        }
        match s {
            Stmt::Let { local, init } => {
                if let Some(e) = init {
                    let v = self.eval(*e);
                    self.flush(pend);
                    self.set_local(*local, v, span);
                } else {
                    self.env[local.index()] = None;
                }
            }
            Stmt::Assign { place, op, value } => {
                let v = self.eval(*value);
                match place {
                    Place::Local(l) => {
                        self.flush(pend);
                        let new = match op {
                            None => v,
                            Some(op) => {
                                // Recompute through the binary rules with the old value.
                                let t = self.types.local(*l);
                                let old = self.env[l.index()].clone();
                                let modelled = old
                                    .as_ref()
                                    .and_then(|o| self.binary(OpSite::Stmt(here), *op, o, &v, t));
                                match modelled {
                                    Some(new) => new,
                                    None => {
                                        let pt = self.per_thread(&v)
                                            || old.as_ref().is_none_or(|o| self.per_thread(o));
                                        let sy = self.sym(
                                            SymKey::Compound(here, pt),
                                            pt,
                                            t.is_unsigned_int(),
                                            SymKind::Other,
                                        );
                                        Val {
                                            aff: Affine::var(sy),
                                            exact: true,
                                        }
                                    }
                                }
                            }
                        };
                        // An assignment where control flow is not uniform makes a per-thread value.
                        let new = if self.uni.is_uniform_at(here) || self.per_thread(&new) {
                            new
                        } else {
                            let sy = self.sym(
                                SymKey::DivergentAssign(here),
                                true,
                                self.types.local(*l).is_unsigned_int(),
                                SymKind::Other,
                            );
                            Val {
                                aff: Affine::var(sy),
                                exact: true,
                            }
                        };
                        self.set_local(*l, new, span);
                    }
                    Place::Element { array, index } => {
                        let idx: Vec<Val> = index.iter().map(|i| self.eval(*i)).collect();
                        if op.is_some() {
                            self.access(
                                AccessKey::CompoundRead(here),
                                *array,
                                false,
                                false,
                                idx.clone(),
                                span,
                            );
                        }
                        self.access(AccessKey::Store(here), *array, true, false, idx, span);
                        self.flush(pend);
                    }
                }
            }
            Stmt::Atomic {
                array,
                index,
                value,
                result,
                ..
            } => {
                let i = self.eval(*index);
                let _ = self.eval(*value);
                self.access(AccessKey::Atomic(here), *array, true, true, vec![i], span);
                self.flush(pend);
                if let Some(r) = result {
                    let sy = self.sym(
                        SymKey::AtomicResult(here),
                        true,
                        self.types.local(*r).is_unsigned_int(),
                        SymKind::Other,
                    );
                    self.env[r.index()] = Some(Val {
                        aff: Affine::var(sy),
                        exact: true,
                    });
                }
            }
            Stmt::Eval(e) | Stmt::Check { index: e, .. } => {
                let _ = self.eval(*e);
                self.flush(pend);
            }
            Stmt::Print { .. } => {
                for e in s.operands() {
                    let _ = self.eval(e);
                }
                self.flush(pend);
            }
            // Not a barrier: a warp operation orders no shared-memory access between warps.
            Stmt::Warp {
                value,
                lane,
                result,
                ..
            } => {
                for e in [value, lane].into_iter().flatten() {
                    let _ = self.eval(*e);
                }
                self.flush(pend);
                if let Some(r) = result {
                    let sy = self.sym(
                        SymKey::WarpResult(here),
                        true,
                        self.types.local(*r).is_unsigned_int(),
                        SymKind::Other,
                    );
                    self.env[r.index()] = Some(Val {
                        aff: Affine::var(sy),
                        exact: true,
                    });
                }
            }
            // Thread-local fragments only: no shared or global access to record.
            Stmt::Mma { .. } => {
                for e in s.operands() {
                    let _ = self.eval(e);
                }
                self.flush(pend);
            }
            // Each lane reads the row it gives (the warp's rows reach other lanes through the
            // instruction, not through memory).
            Stmt::LoadMatrix { tile, row, .. } => {
                for e in s.operands() {
                    let _ = self.eval(e);
                }
                let r = self.eval(*row);
                self.flush(pend);
                let lane = self.sym(SymKey::RowLane(here), true, true, SymKind::Other);
                let at = vec![
                    r,
                    Val {
                        aff: Affine::var(lane),
                        exact: true,
                    },
                ];
                self.access(AccessKey::LoadMatrix(here), *tile, false, false, at, span);
                self.flush(pend);
            }
            // Each thread reads both tiles whole (rows `row + 8 r`, two chunks each, or all 8
            // of a `B` given `k x n`), in flight until its wait; an `A` in registers is no
            // shared memory.
            Stmt::Wgmma {
                shape, a, b, b_row, ..
            } => {
                for e in s.operands() {
                    let _ = self.eval(e);
                }
                self.flush(pend);
                let (b_rows, b_chunks) = shape.b_region();
                let rows = [cuphase_contract::wgmma::M as i128, b_rows as i128];
                let chunks = [
                    cuphase_contract::wgmma::WgmmaShape::ROW_READ as i128,
                    b_chunks as i128,
                ];
                let a_tile = match a {
                    WgmmaA::Tile { array, row } => Some((0u8, *array, *row)),
                    WgmmaA::Registers(_) => None,
                };
                for (op, tile, row) in a_tile.into_iter().chain([(1u8, *b, *b_row)]) {
                    let r = self.eval(row);
                    let part = |w: &mut Self, which: u8, below: i128| {
                        let v = w.sym(
                            SymKey::WgmmaPart(here, op, which),
                            true,
                            true,
                            SymKind::Other,
                        );
                        w.syms[v as usize].facts =
                            vec![Constraint::lt(&Affine::var(v), &Affine::constant(below))];
                        Affine::var(v)
                    };
                    let (mr, ch) = (
                        part(self, 0, rows[op as usize]),
                        part(self, 1, chunks[op as usize]),
                    );
                    let lane = self.sym(SymKey::WgmmaPart(here, op, 2), true, true, SymKind::Other);
                    let lane = Affine::var(lane);
                    let chunk = r
                        .aff
                        .add(&mr.scale(cuphase_contract::wgmma::ROW_CHUNKS as i128))
                        .add(&ch);
                    let at = vec![
                        Val {
                            aff: chunk,
                            exact: r.exact,
                        },
                        Val {
                            aff: lane,
                            exact: true,
                        },
                    ];
                    self.access(AccessKey::Wgmma(here, op), tile, false, false, at, span);
                }
                self.flush(pend);
            }
            Stmt::AsyncCopy {
                dst,
                dst_index,
                row,
                src,
            } => {
                let idx: Vec<Val> = dst_index.iter().map(|i| self.eval(*i)).collect();
                for e in src {
                    let _ = self.eval(*e);
                }
                self.flush(pend);
                // A row is one access whose last index is any of its lanes (one pair for all).
                let mut at = idx;
                if *row {
                    let lane = self.sym(SymKey::RowLane(here), true, true, SymKind::Other);
                    at.push(Val {
                        aff: Affine::var(lane),
                        exact: true,
                    });
                }
                self.access(AccessKey::AsyncCopy(here), *dst, true, false, at, span);
                self.flush(pend);
            }
            // Per-thread: where only some threads commit or wait, the others' copies are
            // counted as not committed, not landed.
            Stmt::AsyncCommit | Stmt::WgmmaCommit => {
                let wgmma = matches!(s, Stmt::WgmmaCommit);
                if self.uni.is_uniform_at(here) {
                    for p in pend.items.iter_mut().filter(|p| p.acc.wgmma == wgmma) {
                        if let Some(c) = &mut p.in_flight {
                            *c = (*c + 1).min(COMMITS_KNOWN);
                        }
                    }
                }
            }
            Stmt::AsyncWait { pending } | Stmt::WgmmaWait { pending } => {
                let wgmma = matches!(s, Stmt::WgmmaWait { .. });
                if self.uni.is_uniform_at(here) {
                    for p in pend.items.iter_mut().filter(|p| p.acc.wgmma == wgmma) {
                        if p.in_flight.is_some_and(|c| u32::from(c) > *pending) {
                            p.in_flight = None;
                            p.acc = self.landed(&p.acc, here);
                        }
                    }
                    // (Two records of one access may now be the same.)
                    let items = std::mem::take(&mut pend.items);
                    pend.union(&Pend { items });
                }
            }
            // A barrier ends the phase of every access but the asynchronous copies in flight.
            Stmt::Barrier { .. } => {
                self.flush(pend);
                pend.items.retain(|p| p.in_flight.is_some());
                for p in &mut pend.items {
                    p.synced = true;
                }
            }
            Stmt::Fence(_) => {}
            // The threads that leave here stop with what holds here: for the accesses of this
            // iteration (of every loop around), the guards of this point are facts of their
            // way (so a uniform `if n == 0 { return; }` keeps them from what follows it).
            Stmt::Return | Stmt::Panic { .. } => {
                // (A thread that left passes no more barriers: its copies in flight keep no
                // iteration in step with the others'.)
                let (now, earlier): (Vec<Pending>, Vec<Pending>) = pend
                    .items
                    .iter()
                    .cloned()
                    .map(|p| Pending { synced: false, ..p })
                    .partition(|p| p.carried.is_empty());
                self.returned
                    .union(&Pend { items: now }.with_exit(&self.guards.clone()));
                self.returned.union(&Pend { items: earlier });
            }
            Stmt::Break { label } => {
                let id = self.loop_target(*label);
                self.breaks.entry(id).or_default().union(pend);
            }
            Stmt::Continue { label } => {
                let id = self.loop_target(*label);
                self.continues.entry(id).or_default().union(pend);
            }
            Stmt::Block(b) => self.block(b, BlockKey::In(here, 0), pend),
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                let c = self.eval(*cond);
                self.flush(pend);
                let uniform = !self.per_thread(&c);
                let yes = self.constraints(*cond, true);
                let no = self.constraints(*cond, false);
                let env_before = self.env.clone();
                let depth = self.guards.len();
                // Threads that go on past an arm that always returns or panics (`if i >= n {
                // return; }`, `assert!(c)`) took the other arm: its condition holds after.
                let holds_after = match (diverges(accept), diverges(reject)) {
                    (true, false) => Some(false),
                    (false, true) => Some(true),
                    _ => None,
                };
                let after = match holds_after {
                    Some(false) => no.clone(),
                    Some(true) => yes.clone(),
                    None => Vec::new(),
                };
                self.guards.extend(yes);
                let mut p1 = pend.clone();
                self.block(accept, BlockKey::In(here, 0), &mut p1);
                self.guards.truncate(depth);
                let env_accept = std::mem::replace(&mut self.env, env_before);
                self.guards.extend(no);
                let mut p2 = if uniform { pend.clone() } else { p1.clone() };
                self.block(reject, BlockKey::In(here, 1), &mut p2);
                self.guards.truncate(depth);
                if uniform {
                    p1.union(&p2);
                    *pend = p1;
                } else {
                    *pend = p2;
                }
                // Join the variables: equal forms stay, others become symbols of this `if`.
                for (i, accepted) in env_accept.iter().enumerate() {
                    let (a, b) = (accepted.clone(), self.env[i].clone());
                    self.env[i] = match (a, b) {
                        (Some(a), Some(b)) if a.aff == b.aff => Some(a),
                        (None, None) => None,
                        (a, b) => {
                            let pt = !uniform
                                || a.as_ref().is_none_or(|v| self.per_thread(v))
                                || b.as_ref().is_none_or(|v| self.per_thread(v));
                            let sy =
                                self.sym(SymKey::IfJoin(here, i, pt), pt, false, SymKind::Other);
                            Some(Val {
                                aff: Affine::var(sy),
                                exact: true,
                            })
                        }
                    };
                }
                self.guards.extend(after);
                if let Some(positive) = holds_after {
                    self.assume_pow2(here, *cond, positive);
                }
            }
            Stmt::Loop { kind, body, .. } => self.loop_stmt(s, kind, body, pend),
        }
    }

    /// The record of copy `acc` landing at wait `at`: the same write, placed at the wait.
    fn landed(&mut self, acc: &Rc<Access>, at: StmtId) -> Rc<Access> {
        let key = (AccessKey::Landed(acc.id, at), true);
        let id = *self.access_ids.entry(key).or_insert_with(|| {
            self.next_access += 1;
            self.next_access
        });
        Rc::new(Access {
            id,
            path: self.path.clone(),
            ..(**acc).clone()
        })
    }

    /// The constraints of `cond` (`positive` or not) without recording its loads as accesses
    /// (they are recorded where the condition is evaluated).
    pub(super) fn pure_constraints(
        &mut self,
        cond: Handle<Expr>,
        positive: bool,
    ) -> Vec<Constraint> {
        let before = self.pending_new.len();
        let c = self.constraints(cond, positive);
        self.pending_new.truncate(before);
        c
    }
}

/// Whether every path through `b` leaves the block it is in: a top-level `return`, `break`,
/// `continue` or panic (one that release builds keep: not `debug_assert!`'s), with no jump
/// nested before it (which could skip it). An inlined helper's `return` is a `break`.
fn diverges(b: &Block) -> bool {
    for s in &b.stmts {
        match s {
            Stmt::Return
            | Stmt::Break { .. }
            | Stmt::Continue { .. }
            | Stmt::Panic {
                debug_only: false, ..
            } => return true,
            _ => {
                let jump = |x: &Stmt| matches!(x, Stmt::Break { .. } | Stmt::Continue { .. });
                if jump(s) || s.blocks().any(|inner| visit::any_stmt(inner, jump)) {
                    return false;
                }
            }
        }
    }
    false
}
