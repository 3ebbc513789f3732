//! Loops in the phase dataflow: the fixpoint over a loop's rounds, its counter and induction
//! variables at the head, what holds in its first and last iterations, and the accesses it
//! carries around its back edge (the statements of its body go through `phase`).

use super::induction::{inductions, CounterTie};
use super::pow2::value_bits;
use super::walker::*;
use crate::analysis::affine::{Affine, Constraint};
use crate::ir::*;
use std::rc::Rc;

impl Walker<'_> {
    pub(super) fn loop_target(&self, label: Option<Handle<Label>>) -> StmtId {
        match label {
            None => self.loops.last().copied().unwrap_or(StmtId::UNNUMBERED),
            Some(l) => self
                .label_loops
                .get(&l)
                .copied()
                .unwrap_or(StmtId::UNNUMBERED),
        }
    }

    pub(super) fn loop_stmt(&mut self, s: &Stmt, kind: &LoopKind, body: &Block, pend: &mut Pend) {
        let id = self.current_stmt();
        self.loop_stmts.insert(id);
        if let Some(b) = body
            .stmts
            .iter()
            .position(|s| matches!(s, Stmt::Barrier { .. }))
        {
            self.first_barrier.insert(id, b);
        }
        if let Stmt::Loop { label: Some(l), .. } = s {
            self.label_loops.insert(*l, id);
        }
        // The range of a `for` is evaluated once, before the loop.
        let range = match kind {
            LoopKind::For {
                start, end, step, ..
            } => {
                let st = self.eval(*start);
                let en = self.eval(*end);
                let sp = step.map(|x| self.eval(x));
                self.flush(pend);
                Some((st, en, sp))
            }
            _ => None,
        };
        let head_uniform = self.uni.loop_head_uniform.get(&id).cloned();
        let assigned = assigned_locals(body);
        let (pow2, nonzero) = self.loop_powers_of_two(kind, body, &assigned);
        // What holds when the loop runs zero times, over the values before it.
        let zero_trip = match (kind, &range) {
            (LoopKind::While { cond }, _) => self.pure_constraints(*cond, false),
            (
                LoopKind::For {
                    distribution: Distribution::Sequential,
                    inclusive,
                    ..
                },
                Some((st, en, _)),
            ) if st.exact && en.exact => vec![if *inclusive {
                Constraint::lt(&en.aff, &st.aff)
            } else {
                Constraint::le(&en.aff, &st.aff)
            }],
            _ => Vec::new(),
        };
        // Induction variables (`v += step` once per iteration): `v0 + n * step` at the head.
        // (Not in thread-distributed loops, whose iterations each thread counts for itself.)
        let distributed = matches!(
            kind,
            LoopKind::For {
                distribution: Distribution::ThreadsInBlock | Distribution::ThreadsInGrid,
                ..
            }
        );
        let inductions = if distributed {
            Vec::new()
        } else {
            inductions(self.k, body, &assigned)
        };
        let starts: Vec<Option<Val>> = inductions
            .iter()
            .map(|i| self.env[i.local.index()].clone())
            .collect();
        let waits = visit::any_stmt(body, |s| {
            matches!(s, Stmt::AsyncWait { .. } | Stmt::WgmmaWait { .. })
        });
        let entry = pend.clone();
        let mut head = entry.clone();
        let mut last = (Pend::default(), Vec::new(), Vec::new(), Pend::default());
        self.loops.push(id);
        for round in 0..12 {
            // Variables assigned in the loop hold one symbol per loop at its head.
            self.fresh_values(
                &assigned,
                head_uniform.as_deref(),
                &pow2,
                &nonzero,
                |l, pt| SymKey::LoopHead(id, l, pt),
            );
            let depth = self.guards.len();
            // The counter's value as `start + stride * n` of the iteration number `n`, where
            // the loop counts up by a constant; whether the range is uniform.
            let mut tie: Option<CounterTie> = None;
            let mut counter_uniform = true;
            // Where a uniform counter counts up from a start it knows: "this is the first
            // iteration", which holds for what reaches the body from before the loop.
            let mut first_iteration: Option<Constraint> = None;
            // And "this is the last iteration" (the next value is past the end), which holds for
            // what leaves the loop at the end of its body.
            let mut last_iteration: Option<Constraint> = None;
            if let (
                LoopKind::For {
                    var,
                    distribution,
                    step,
                    inclusive,
                    reverse,
                    ..
                },
                Some((st, en, sp)),
            ) = (kind, &range)
            {
                let t = self.types.local(*var);
                let nonneg = t.is_unsigned_int();
                let range_uniform = !self.per_thread(st)
                    && !self.per_thread(en)
                    && sp.as_ref().is_none_or(|v| !self.per_thread(v));
                // A constant step larger than one: the values are `start + step * k` (or, counting
                // down from the end, `last - step * k`) for `k >= 0`, not every value of the range.
                let stride = match (step, sp) {
                    (Some(_), Some(v)) => v.aff.as_constant().filter(|c| *c > 1),
                    _ => None,
                };
                // (A step that is neither one nor a constant leaves the counter a plain symbol.)
                let unit = match (step, sp) {
                    (None, _) => true,
                    (Some(_), Some(v)) => v.aff.as_constant() == Some(1),
                    _ => false,
                };
                // How the counter's symbol moves from one iteration to the next (what relates
                // a copy in flight from the previous iteration to this one's accesses).
                let delta = match (distribution, stride, reverse) {
                    (Distribution::Sequential, Some(_), None) if st.exact => Some(1),
                    (Distribution::Sequential, Some(_), Some(Reverse::Stepped)) if st.exact => {
                        Some(-1)
                    }
                    (Distribution::Sequential, Some(_), Some(Reverse::FromEnd)) if en.exact => {
                        Some(1)
                    }
                    (Distribution::Sequential, Some(c), None) => Some(c),
                    (Distribution::Sequential, Some(c), Some(_)) => Some(-c),
                    (Distribution::Sequential, None, None) if unit => Some(1),
                    (Distribution::Sequential, None, Some(_)) if unit => Some(-1),
                    _ => None,
                };
                let value = match (distribution, stride, reverse) {
                    (Distribution::Sequential, Some(c), None | Some(Reverse::Stepped))
                        if st.exact =>
                    {
                        let k = self.sym(
                            SymKey::LoopCounter(id, !range_uniform),
                            !range_uniform,
                            true,
                            SymKind::Other,
                        );
                        st.aff.add(&Affine::var(k).scale(c))
                    }
                    (Distribution::Sequential, Some(c), Some(Reverse::FromEnd)) if en.exact => {
                        let k = self.sym(
                            SymKey::LoopCounter(id, !range_uniform),
                            !range_uniform,
                            true,
                            SymKind::Other,
                        );
                        let last = if *inclusive {
                            en.aff.clone()
                        } else {
                            en.aff.sub(&Affine::constant(1))
                        };
                        last.sub(&Affine::var(k).scale(c))
                    }
                    (Distribution::Sequential | Distribution::BlocksInGrid, ..) => {
                        let sy = self.sym(
                            SymKey::LoopCounter(id, !range_uniform),
                            !range_uniform,
                            nonneg,
                            SymKind::Other,
                        );
                        Affine::var(sy)
                    }
                    (Distribution::ThreadsInBlock | Distribution::ThreadsInGrid, ..) => {
                        let d = self.sym(SymKey::LoopIteration(id), true, true, SymKind::Dist);
                        let stride = match (step, sp) {
                            (None, _) => Some(1),
                            (Some(_), Some(v)) => v.aff.as_constant(),
                            _ => None,
                        };
                        match stride {
                            Some(c) if c > 0 && !self.per_thread(st) => {
                                st.aff.add(&Affine::var(d).scale(c))
                            }
                            _ => Affine::var(self.sym(
                                SymKey::LoopVar(id),
                                true,
                                nonneg,
                                SymKind::Other,
                            )),
                        }
                    }
                };
                counter_uniform = range_uniform;
                if let (Some(d), Some(&k)) = (
                    delta,
                    self.sym_keys.get(&SymKey::LoopCounter(id, !range_uniform)),
                ) {
                    let enclosing = self.loops[..self.loops.len().saturating_sub(1)].to_vec();
                    self.counter_steps.insert(
                        id,
                        Counter {
                            sym: k,
                            step: d,
                            uniform: range_uniform,
                            enclosing,
                        },
                    );
                }
                let counts_up = *distribution == Distribution::Sequential && reverse.is_none();
                if counts_up && st.exact && (unit || stride.is_some()) {
                    tie = Some((value.clone(), st.aff.clone(), stride.unwrap_or(1)));
                    if range_uniform {
                        first_iteration = Some(Constraint::eq(&value, &st.aff));
                        if en.exact {
                            let next = value.add(&Affine::constant(stride.unwrap_or(1)));
                            last_iteration = Some(if *inclusive {
                                Constraint::lt(&en.aff, &next)
                            } else {
                                Constraint::le(&en.aff, &next)
                            });
                        }
                    }
                }
                if st.exact && en.exact {
                    self.bound_counter(&value, &st.aff, &en.aff, *inclusive);
                    self.guards.push(Constraint::le(&st.aff, &value));
                    self.guards.push(if *inclusive {
                        Constraint::le(&value, &en.aff)
                    } else {
                        Constraint::lt(&value, &en.aff)
                    });
                }
                self.env[var.index()] = Some(Val {
                    aff: value,
                    exact: true,
                });
            }
            self.induction_values(id, &inductions, &starts, tie.as_ref(), counter_uniform);
            let mut cur = head.clone();
            // A copy in flight from before the loop, not carried around it, meets this
            // iteration's accesses only in the first (later ones see it carried, or landed).
            // (Only in a loop that waits: in another, every copy comes around the back edge in
            // flight, and the fact would split one pair into two.)
            if let (Some(first), true) = (&first_iteration, waits) {
                for p in &mut cur.items {
                    if p.in_flight.is_some() && !p.carried.contains(&id) {
                        let mut exit = (*p.exit).clone();
                        exit.push(first.clone());
                        p.exit = Rc::new(exit);
                    }
                }
            }
            if let LoopKind::While { cond } = kind {
                let _ = self.eval(*cond);
                self.flush(&mut cur);
                let yes = self.constraints(*cond, true);
                self.guards.extend(yes);
            }
            self.continues.remove(&id);
            self.breaks.remove(&id);
            self.block(body, BlockKey::In(id, 0), &mut cur);
            self.guards.truncate(depth);
            // What holds when the loop stops after this iteration (over this iteration's
            // values), for the accesses of this iteration that reach its end.
            let exit = match kind {
                LoopKind::While { cond } if !self.continues.contains_key(&id) => {
                    self.pure_constraints(*cond, false)
                }
                _ => Vec::new(),
            };
            // (A `continue` goes to the head without reaching the body's end.)
            let last_exit: Vec<Constraint> = last_iteration.iter().cloned().collect();
            let mut back = cur.clone();
            if let Some(c) = self.continues.get(&id) {
                back.union(c);
            }
            if let Some(b) = self.breaks.get(&id) {
                // Threads that broke out stay in the phase while the others go on.
                back.union(b);
            }
            let mut new_head = entry.clone();
            let syms = &self.syms;
            let of_loop = |f: &Constraint| {
                let (Constraint::Eq(a) | Constraint::Ge(a) | Constraint::Ne(a)) = f;
                a.terms
                    .keys()
                    .any(|v| syms[*v as usize].defined_in.contains(&id))
            };
            new_head.union(&back.carry(id, |p| {
                p.in_flight.is_some()
                    && !p.acc.path.iter().any(|(_, _, s)| *s == id)
                    && !p.exit.iter().any(of_loop)
            }));
            new_head.refresh(&back);
            let stable = new_head.keys() == head.keys();
            head = new_head;
            last = (cur, exit, last_exit, back);
            if stable && round > 0 {
                break;
            }
        }
        self.loops.pop();
        // The ways out: before any iteration, after the last one, and by `break`.
        let (cur, exit, last_exit, back) = last;
        let mut after = entry.with_exit(&zero_trip);
        let (this_round, earlier): (Vec<Pending>, Vec<Pending>) = cur
            .items
            .into_iter()
            .partition(|p| !p.carried.contains(&id));
        // (The last iteration's facts are of accesses made in it, not of copies in flight
        // from before the loop that passed through it.)
        let (made_here, passing): (Vec<Pending>, Vec<Pending>) = this_round
            .into_iter()
            .partition(|p| p.acc.path.iter().any(|(_, _, s)| *s == id));
        let mut made_exit = exit.clone();
        made_exit.extend(last_exit);
        after.union(&Pend { items: made_here }.with_exit(&made_exit));
        after.union(&Pend { items: passing }.with_exit(&exit));
        after.union(&Pend { items: earlier });
        for way in [self.continues.get(&id), self.breaks.get(&id)] {
            after.union(way.unwrap_or(&Pend::default()));
        }
        after.refresh(&back);
        // Outside the loop, "an earlier iteration of it" is just "earlier".
        let mut stripped = Pend::default();
        for mut p in after.items {
            p.carried.remove(&id);
            p.laps.remove(&id);
            stripped.union(&Pend { items: vec![p] });
        }
        let after = stripped;
        // After the loop, its variables hold values of some iteration.
        self.fresh_values(
            &assigned,
            head_uniform.as_deref(),
            &pow2,
            &nonzero,
            |l, pt| SymKey::LoopExit(id, l, pt),
        );
        *pend = after;
    }

    /// Gives each of `locals` a symbol of its own (`key` of the local and whether it is per
    /// thread): per thread unless `uniform` (the loop head's uniformity, by local) says not.
    /// Records the values of a loop counter's symbol, where the loop's range is constant:
    /// `value` (`start + step * k`, or the counter itself) lies in `start..end` (or
    /// `start..=end`), so its one symbol lies in the matching range. The pair proof tries each
    /// value of a symbol with a few (`for e in 0..2`) before it calls two accesses a hazard.
    fn bound_counter(&mut self, value: &Affine, start: &Affine, end: &Affine, inclusive: bool) {
        let (Some(lo), Some(end)) = (start.as_constant(), end.as_constant()) else {
            return;
        };
        let hi = if inclusive { end } else { end - 1 };
        let mut terms = value.terms.iter();
        let (Some((&v, &a)), None) = (terms.next(), terms.next()) else {
            return;
        };
        if lo > hi || a == 0 {
            return;
        }
        // `lo <= a * v + c <= hi`: `v` from `ceil` of the one end to `floor` of the other.
        let (from, to) = if a > 0 {
            (lo - value.c, hi - value.c)
        } else {
            (value.c - hi, value.c - lo)
        };
        let m = a.abs();
        let range = (-(-from).div_euclid(m), to.div_euclid(m));
        if range.0 <= range.1 {
            self.syms[v as usize].counts = Some(range);
        }
    }

    fn fresh_values(
        &mut self,
        locals: &[Handle<Local>],
        uniform: Option<&[bool]>,
        pow2: &[Handle<Local>],
        nonzero: &[Handle<Local>],
        key: impl Fn(Handle<Local>, bool) -> SymKey,
    ) {
        for &l in locals {
            let per_thread = !uniform
                .and_then(|u| u.get(l.index()).copied())
                .unwrap_or(false);
            // (A signed power of two here is a positive one.)
            let sy = self.sym(
                key(l, per_thread),
                per_thread,
                self.types.local(l).is_unsigned_int() || pow2.contains(&l),
                SymKind::Other,
            );
            if pow2.contains(&l) {
                self.syms[sy as usize].pow2 = value_bits(self.types.local(l));
                self.syms[sy as usize].nonzero = nonzero.contains(&l);
            }
            self.env[l.index()] = Some(Val {
                aff: Affine::var(sy),
                exact: true,
            });
        }
    }
}

/// Locals assigned anywhere in a block (loop bodies: their values change between iterations).
fn assigned_locals(b: &Block) -> Vec<Handle<Local>> {
    let mut out = Vec::new();
    visit::for_each_stmt(b, false, &mut |s, _| out.extend(s.written_local()));
    out.sort_by_key(|h| h.index());
    out.dedup();
    out
}
