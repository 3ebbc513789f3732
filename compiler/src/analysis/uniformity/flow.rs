//! The walk of the uniformity analysis over statements: blocks, exits (`return`, `break`,
//! `continue`, panics) and the partial control flow they leave behind, loops to their fixpoint,
//! and each statement's effect on the state (which values and which control flow are uniform).
//!
//! Takes the [`Analyzer`] of one pass; gives each block's [`Flow`] and records control flow per
//! statement in its [`super::UniformityInfo`]; divergent barriers and warp operations go to
//! `report` and `warp`.

use super::{join_cf, Analyzer, Cf, Exit, Flow, Origin, Reason, State, Target, Uni};
use crate::diag::Diagnostic;
use crate::ir::*;
use std::rc::Rc;

impl Analyzer<'_, '_> {
    pub(super) fn block(&mut self, b: &Block, cf: &Cf, st: &mut State) -> Flow {
        let mut flow = Flow::default();
        let mut here = cf.clone();
        for (stmt, span, id) in b.iter_ids() {
            if self.reporting {
                self.info.cf.insert(id, here.clone());
            }
            let f = self.stmt(stmt, span, id, &here, st);
            for e in &f.exits {
                if let Some(r) = &e.partial {
                    if here.is_none() {
                        let kind = match e.target {
                            Target::Return => "`return`",
                            Target::Panic => "panic (a failed `assert!` or a `panic!`)",
                            Target::Break(_) => "`break`",
                            Target::Continue(_) => "`continue`",
                        };
                        here = Some(Rc::new(Reason {
                            span: r.span,
                            text: format!("some threads leave by this {kind} and the others go on"),
                            origin: r.origin.clone(),
                            cause: r.cause.clone(),
                        }));
                    }
                }
            }
            flow.exits.extend(f.exits);
            if f.always_jumps {
                flow.always_jumps = true;
                break;
            }
        }
        flow
    }

    fn jump(&mut self, target: Target, span: Span, cf: &Cf, st: &State) -> Flow {
        let partial = cf.as_ref().map(|r| {
            Rc::new(Reason {
                span,
                text: String::new(),
                origin: r.origin.clone(),
                cause: Some(r.clone()),
            })
        });
        Flow {
            exits: vec![Exit {
                target,
                partial,
                state: st.clone(),
            }],
            always_jumps: true,
        }
    }

    fn loop_id(&self, label: Option<Handle<Label>>) -> usize {
        match label {
            None => self.loops.last().map_or(0, |(id, _)| *id),
            Some(l) => self
                .loops
                .iter()
                .rev()
                .find(|(_, lb)| *lb == Some(l))
                .map_or(0, |(id, _)| *id),
        }
    }

    fn stmt(&mut self, s: &Stmt, span: Span, id: StmtId, cf: &Cf, st: &mut State) -> Flow {
        match s {
            Stmt::Let { local, init } => {
                let name = &self.k.locals.get(*local).name;
                st.vars[local.index()] = match init {
                    Some(e) => {
                        let v = self.expr(*e, st);
                        self.uniform_load_check(*e, st);
                        self.assigned(v, cf, span, name)
                    }
                    None => Uni::Uniform,
                };
                Flow::default()
            }
            Stmt::Assign { place, op, value } => {
                self.uniform_load_check(*value, st);
                if let Place::Local(l) = place {
                    let mut v = self.expr(*value, st);
                    if op.is_some() {
                        v = st.vars[l.index()].clone().join(v);
                    }
                    let name = &self.k.locals.get(*l).name;
                    st.vars[l.index()] = self.assigned(v, cf, span, name);
                }
                Flow::default()
            }
            Stmt::Atomic { result, array, .. } => {
                if let Some(r) = result {
                    let name = &self.k.arrays.get(*array).name;
                    st.vars[r.index()] = Uni::NonUniform(Rc::new(Origin {
                        root_span: span,
                        root: format!("an atomic on `{name}` (each thread sees another old value)"),
                        path: vec![self.k.locals.get(*r).name.clone()],
                    }));
                }
                Flow::default()
            }
            Stmt::Eval(e) | Stmt::Check { index: e, .. } => {
                self.uniform_load_check(*e, st);
                Flow::default()
            }
            Stmt::Print { .. } | Stmt::AsyncCopy { .. } => {
                for e in s.operands() {
                    self.uniform_load_check(e, st);
                }
                Flow::default()
            }
            Stmt::Warp { op, result, .. } => {
                // Checked by the warp-level pass: every thread of the warp must reach it.
                if let (true, Some(r)) = (self.warp, cf) {
                    let what = format!("`{}` (a warp operation)", op.name());
                    self.divergent_warp_op(span, &what, r);
                }
                if let Some(res) = result {
                    // A vote's result is the same in every thread of the warp.
                    let vote = matches!(op, WarpOp::Ballot | WarpOp::All | WarpOp::Any);
                    st.vars[res.index()] = if self.rules && vote {
                        Uni::Uniform
                    } else {
                        Uni::NonUniform(Rc::new(Origin {
                            root_span: span,
                            root: format!(
                                "`{}` (each thread gets its own lane's result)",
                                op.name()
                            ),
                            path: vec![self.k.locals.get(*res).name.clone()],
                        }))
                    };
                }
                Flow::default()
            }
            Stmt::Mma { shape, .. } => {
                if let (true, Some(r)) = (self.warp, cf) {
                    let what = format!("`{}` (a warp-wide matrix multiply)", shape.function());
                    self.divergent_warp_op(span, &what, r);
                }
                Flow::default()
            }
            // Warpgroup-collective: the analysis knows block-uniform control flow, which keeps
            // every warpgroup whole.
            Stmt::Wgmma { .. } | Stmt::WgmmaCommit | Stmt::WgmmaWait { .. } => {
                if let (false, Some(r)) = (self.warp, cf) {
                    let what = match s {
                        Stmt::Wgmma { shape, .. } => {
                            format!("`{}` (a warpgroup-wide matrix multiply)", shape.function())
                        }
                        Stmt::WgmmaCommit => "`wgmma_commit()` (warpgroup-wide)".to_string(),
                        _ => "`wgmma_wait` (warpgroup-wide)".to_string(),
                    };
                    self.divergent_warpgroup_op(span, &what, r);
                }
                Flow::default()
            }
            Stmt::LoadMatrix { load, .. } => {
                for e in s.operands() {
                    self.uniform_load_check(e, st);
                }
                if let (true, Some(r)) = (self.warp, cf) {
                    let what = format!(
                        "`{}` (a warp-wide fragment load)",
                        MatrixLoad::function(load.trans)
                    );
                    self.divergent_warp_op(span, &what, r);
                }
                Flow::default()
            }
            Stmt::Barrier { index } => {
                if let (false, Some(r)) = (self.warp, cf) {
                    let what = match self.k.barriers[*index].origin {
                        BarrierOrigin::UniformLoad => {
                            "`uniform_load` (which starts with a barrier)"
                        }
                        BarrierOrigin::Inserted(_) => "a barrier inserted by `sync = \"auto\"`",
                        BarrierOrigin::Written => "`sync_block_threads()`",
                        BarrierOrigin::TrailingSync(_) => {
                            "the trailing barrier of a helper that writes shared memory"
                        }
                    };
                    let calls = self.k.barriers[*index].calls.clone();
                    let trailing = match &self.k.barriers[*index].origin {
                        BarrierOrigin::TrailingSync(h) => Some(h.clone()),
                        _ => None,
                    };
                    self.divergent_barrier(span, what, r, &calls, trailing.as_deref());
                }
                Flow::default()
            }
            // Per-thread operations: no thread waits for another.
            Stmt::Fence(_) | Stmt::AsyncCommit | Stmt::AsyncWait { .. } => Flow::default(),
            Stmt::Return => self.jump(Target::Return, span, cf, st),
            Stmt::Panic { .. } => self.jump(Target::Panic, span, cf, st),
            Stmt::Break { label } => {
                let id = self.loop_id(*label);
                self.jump(Target::Break(id), span, cf, st)
            }
            Stmt::Continue { label } => {
                let id = self.loop_id(*label);
                self.jump(Target::Continue(id), span, cf, st)
            }
            Stmt::Block(b) => self.block(b, cf, st),
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                let arm_cf = join_cf(cf, &self.cond_reason(*cond, st, "this condition"));
                let mut s1 = st.clone();
                let f1 = self.block(accept, &arm_cf, &mut s1);
                let mut s2 = st.clone();
                let f2 = self.block(reject, &arm_cf, &mut s2);
                *st = match (f1.always_jumps, f2.always_jumps) {
                    (true, false) => s2,
                    (false, true) => s1,
                    _ => {
                        s1.join(&s2);
                        s1
                    }
                };
                let mut exits = f1.exits;
                exits.extend(f2.exits);
                Flow {
                    exits,
                    always_jumps: f1.always_jumps && f2.always_jumps,
                }
            }
            Stmt::Loop { label, kind, body } => {
                self.loop_stmt(id, *label, kind, body, span, cf, st)
            }
        }
    }

    /// One pass over a loop body from the head state `head`.
    #[allow(clippy::too_many_arguments)]
    fn loop_body(
        &mut self,
        kind: &LoopKind,
        body: &Block,
        var_uni: &Option<(Handle<Local>, Uni)>,
        trip: &Cf,
        head: &State,
        divergent: &Cf,
        cf: &Cf,
    ) -> (Flow, State) {
        let mut s_body = head.clone();
        if let Some((var, u)) = var_uni {
            s_body.vars[var.index()] = u.clone();
        }
        let cond_cf = match kind {
            LoopKind::While { cond } => self.cond_reason(*cond, &s_body, "the loop condition"),
            _ => trip.clone(),
        };
        let body_cf = join_cf(&join_cf(cf, &cond_cf), divergent);
        let flow = self.block(body, &body_cf, &mut s_body);
        (flow, s_body)
    }

    /// A `uniform_load` whose index is not uniform is an error.
    fn uniform_load_check(&mut self, e: Handle<Expr>, st: &State) {
        if !self.reporting || self.warp {
            return;
        }
        let mut stack = vec![e];
        while let Some(h) = stack.pop() {
            match self.k.exprs.get(h) {
                Expr::UniformLoad { array, index } => {
                    for ix in index {
                        if let Uni::NonUniform(o) = self.expr(*ix, st) {
                            let name = &self.k.arrays.get(*array).name;
                            self.cx.push(
                                Diagnostic::new(self.k.exprs.span(*ix), format!("the index of `uniform_load(&{name}[..])` must be the same in every thread"))
                                    .label(o.root_span, format!("it comes from {}", o.describe()))
                                    .note("`uniform_load` broadcasts one element to the whole block; read a per-thread element with plain indexing after a barrier"),
                            );
                        }
                    }
                }
                Expr::Method { receiver, args, .. } => {
                    stack.push(*receiver);
                    stack.extend(args.iter().copied());
                }
                Expr::Unary { expr, .. } | Expr::Cast { expr, .. } | Expr::AssumeUniform(expr) => {
                    stack.push(*expr)
                }
                Expr::Binary { left, right, .. } => stack.extend([*left, *right]),
                Expr::Select {
                    cond,
                    accept,
                    reject,
                } => stack.extend([*cond, *accept, *reject]),
                Expr::Load { index, .. } => stack.extend(index.iter().copied()),
                _ => {}
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn loop_stmt(
        &mut self,
        stmt: StmtId,
        label: Option<Handle<Label>>,
        kind: &LoopKind,
        body: &Block,
        span: Span,
        cf: &Cf,
        st: &mut State,
    ) -> Flow {
        let id = self.next_loop + 1;
        self.next_loop += 1;
        // For loops evaluate their range once, before the first iteration.
        let (var_uni, trip): (Option<(Handle<Local>, Uni)>, Cf) = match kind {
            LoopKind::For {
                var,
                start,
                end,
                step,
                distribution,
                ..
            } => {
                let mut u = self.expr(*start, st).join(self.expr(*end, st));
                if let Some(stp) = step {
                    u = u.join(self.expr(*stp, st));
                }
                let name = self.k.locals.get(*var).name.clone();
                match distribution {
                    Distribution::Sequential | Distribution::BlocksInGrid => {
                        let reason = match &u {
                            Uni::Uniform => None,
                            Uni::NonUniform(o) => Some(Rc::new(Reason {
                                span,
                                text: "the loop's range is not the same in every thread, so threads run different numbers of iterations".into(),
                                origin: Some(o.clone()),
                                cause: None,
                            })),
                        };
                        (Some((*var, self.assigned(u, cf, span, &name))), reason)
                    }
                    Distribution::ThreadsInBlock | Distribution::ThreadsInGrid => {
                        let what = distribution.function().unwrap_or_default();
                        let origin = Rc::new(Origin {
                            root_span: span,
                            root: format!("the loop variable of `{what}`"),
                            path: vec![name],
                        });
                        let reason = Rc::new(Reason {
                            span,
                            text: format!("`{what}` gives each thread its own indices and its own number of iterations"),
                            origin: Some(origin.clone()),
                            cause: None,
                        });
                        (Some((*var, Uni::NonUniform(origin))), Some(reason))
                    }
                }
            }
            _ => (None, None),
        };
        self.loops.push((id, label));
        let entry = st.clone();
        let mut head = entry.clone();
        let mut divergent: Cf = None;
        let was_reporting = self.reporting;
        // Fixpoint over the back edge without reporting; then one pass with the final head.
        self.reporting = false;
        for _ in 0..(self.k.locals.len() + 4) {
            let (flow, s_body) = self.loop_body(kind, body, &var_uni, &trip, &head, &divergent, cf);
            let mut new_head = entry.clone();
            if !flow.always_jumps {
                new_head.join(&s_body);
            }
            let mut new_div = divergent.clone();
            for e in &flow.exits {
                match e.target {
                    Target::Continue(t) if t == id => new_head.join(&e.state),
                    _ => {
                        if let (None, Some(r)) = (&new_div, &e.partial) {
                            new_div = Some(Rc::new(Reason {
                                span: r.span,
                                text: "some threads leave the loop early here, so threads run different numbers of iterations".into(),
                                origin: r.origin.clone(),
                                cause: r.cause.clone(),
                            }));
                        }
                    }
                }
            }
            let stable =
                new_head.pattern() == head.pattern() && new_div.is_some() == divergent.is_some();
            head = new_head;
            divergent = new_div;
            if stable {
                break;
            }
        }
        self.reporting = was_reporting;
        let (final_flow, _) = self.loop_body(kind, body, &var_uni, &trip, &head, &divergent, cf);
        self.loops.pop();
        if self.reporting {
            self.info.loop_head_uniform.insert(stmt, head.pattern());
        }
        // After the loop: the head state (the condition ended it) joined with the breaks.
        let mut after = match kind {
            LoopKind::Infinite => None,
            _ => Some(head.clone()),
        };
        let mut exits = Vec::new();
        for e in final_flow.exits {
            match e.target {
                Target::Break(t) if t == id => match &mut after {
                    Some(a) => a.join(&e.state),
                    None => after = Some(e.state.clone()),
                },
                Target::Continue(t) if t == id => {}
                _ => exits.push(e),
            }
        }
        let always_jumps = after.is_none();
        if let Some(a) = after {
            *st = a;
        }
        Flow {
            exits,
            always_jumps,
        }
    }
}
