//! Block-uniformity of values and control flow, and the divergent-barrier check.
//!
//! Takes a checked kernel; gives [`UniformityInfo`] (whether control flow is uniform at each
//! statement) and reports every barrier that some threads of a block could skip, or reach a
//! different number of times, as an error with the point of divergence and the origin of the
//! non-uniform value.
//!
//! The rules are WGSL's uniformity analysis lifted to block scope (README, "Barrier safety"): values are
//! uniform or not, variables are tracked flow-sensitively with a fixpoint over loops, and
//! control flow becomes non-uniform under a non-uniform condition, in a loop whose trip count
//! differs between threads, and after an exit (`return`, `break`, `continue`) taken by some
//! threads only. Where WGSL is merely conservative this analysis is exact: a non-uniform
//! `continue` only makes the rest of its own iteration non-uniform, since every thread still
//! reaches the loop's head for the next iteration.
//!
//! Warp operations are checked by a second pass of the same analysis at warp level (`warp`):
//! there "uniform" means the same in every lane of a warp, which block-uniform values are and,
//! when blocks are whole warps along x, so are `thread_idx().x / 32`, `thread_idx().x < 32 * k`,
//! `thread_idx().y` and votes. The warp rules are used only where block-uniformity does not
//! already suffice, and then [`UniformityInfo::needs_whole_warps`] asks the launch to check.

mod warp;

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::visit;
use crate::ir::*;
use std::collections::HashMap;
use std::rc::Rc;

/// Where a non-uniform value comes from.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The source of the non-uniformity (`thread_idx()`, a load, an assignment).
    pub root_span: Span,
    /// What the source is, e.g. "`thread_idx()`".
    pub root: String,
    /// Variables it flowed through, oldest first.
    pub path: Vec<String>,
}

impl Origin {
    fn describe(&self) -> String {
        let mut s = self.root.clone();
        if self.path.len() > 1 {
            let via: Vec<String> = self.path[..self.path.len() - 1]
                .iter()
                .map(|v| format!("`{v}`"))
                .collect();
            s.push_str(&format!(" through {}", via.join(", ")));
        }
        s
    }
}

/// The uniformity of a value.
#[derive(Clone, Debug)]
enum Uni {
    Uniform,
    NonUniform(Rc<Origin>),
}

impl Uni {
    fn is_uniform(&self) -> bool {
        matches!(self, Uni::Uniform)
    }
    fn join(self, other: Uni) -> Uni {
        match self {
            Uni::Uniform => other,
            nu => nu,
        }
    }
    fn through(self, var: &str) -> Uni {
        match self {
            Uni::Uniform => Uni::Uniform,
            Uni::NonUniform(o) => {
                let mut o = (*o).clone();
                o.path.push(var.to_string());
                Uni::NonUniform(Rc::new(o))
            }
        }
    }
}

/// Why control flow is not uniform at some point.
#[derive(Clone, Debug)]
pub struct Reason {
    /// The point of divergence: a condition, a loop header, an early exit.
    pub span: Span,
    /// What happens there.
    pub text: String,
    /// Where the non-uniform value behind it comes from.
    pub origin: Option<Rc<Origin>>,
    /// The divergence this one follows from (the condition an early exit was taken under).
    pub cause: Option<Rc<Reason>>,
}

impl Reason {
    /// `d` with labels for what led to this divergence: the condition an exit was taken
    /// under, and where the non-uniform value comes from.
    fn explain(&self, mut d: Diagnostic) -> Diagnostic {
        if let Some(c) = &self.cause {
            d = d.label(c.span, c.text.clone());
        }
        if let Some(o) = &self.origin {
            let name = o
                .path
                .last()
                .map(|v| format!("`{v}`"))
                .unwrap_or_else(|| "the value".into());
            d = d.label(o.root_span, format!("{name} comes from {}", o.describe()));
        }
        d
    }
}

type Cf = Option<Rc<Reason>>;

fn join_cf(a: &Cf, b: &Cf) -> Cf {
    a.clone().or_else(|| b.clone())
}

#[derive(Clone, Debug)]
struct State {
    vars: Vec<Uni>,
}

impl State {
    fn join(&mut self, other: &State) {
        for (a, b) in self.vars.iter_mut().zip(&other.vars) {
            if a.is_uniform() && !b.is_uniform() {
                *a = b.clone();
            }
        }
    }
    fn pattern(&self) -> Vec<bool> {
        self.vars.iter().map(Uni::is_uniform).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Return,
    /// A `panic!` or a failed `assert!`: the thread stops, as at a `return`.
    Panic,
    Break(usize),
    Continue(usize),
}

#[derive(Clone, Debug)]
struct Exit {
    target: Target,
    /// Set when only some threads take this exit.
    partial: Cf,
    state: State,
}

#[derive(Default)]
struct Flow {
    exits: Vec<Exit>,
    always_jumps: bool,
}

/// What the uniformity analysis found.
#[derive(Default, Debug)]
pub struct UniformityInfo {
    /// For each statement: the reason control flow is not uniform where it starts, or `None`
    /// where it is uniform.
    pub cf: HashMap<StmtId, Option<Rc<Reason>>>,
    /// For each loop statement: which locals are uniform at its head.
    pub loop_head_uniform: HashMap<StmtId, Vec<bool>>,
    /// The kernel's warp operations are warp-uniform only if every block's x extent is a
    /// multiple of 32 (a condition like `thread_idx().x < 32` or `thread_idx().x / 32` made
    /// them so), or it multiplies matrix fragments, which take all 32 lanes of a warp: the
    /// launch checks it.
    pub needs_whole_warps: bool,
}

impl UniformityInfo {
    /// Whether control flow is uniform where `stmt` starts (unknown statements: no).
    pub fn is_uniform_at(&self, stmt: StmtId) -> bool {
        matches!(self.cf.get(&stmt), Some(None))
    }
}

struct Analyzer<'k, 'c> {
    k: &'k Kernel,
    cx: &'c mut Ctxt,
    reporting: bool,
    /// The warp-level pass: "uniform" means the same in every thread of a warp, and only warp
    /// operations are checked (blocks whose x extent is a multiple of 32 are assumed; the
    /// launch checks it where a warp rule was used).
    warp: bool,
    /// In the warp-level pass: the rules that need whole warps along x are used.
    rules: bool,
    /// Per local: it holds exactly `thread_idx().x` (an immutable copy of it).
    tid_x: Vec<bool>,

    loops: Vec<(usize, Option<Handle<Label>>)>,
    next_loop: usize,
    info: UniformityInfo,
    /// The helper calls already reported as divergent: a call is one error, however many
    /// barriers the helper holds.
    reported_calls: std::collections::HashSet<(String, usize, usize)>,
}

/// Runs the analysis; divergent barriers and non-uniform `uniform_load` indices go to `cx`,
/// and (from a second, warp-level pass) warp operations not reached by every thread of their
/// warp.
pub fn analyze(cx: &mut Ctxt, k: &Kernel) -> UniformityInfo {
    let mut info = pass(cx, k, false, false);
    if visit::any_stmt(&k.body, Stmt::is_warp_collective) {
        // Block-uniform control flow is warp-uniform in any block; only where that does not
        // suffice are the rules that need whole warps used (and the launch checks for them).
        let mut plain = Ctxt::new();
        let _ = pass(&mut plain, k, true, false);
        if plain.has_errors() {
            let _ = pass(cx, k, true, true);
            info.needs_whole_warps = true;
        }
    }
    if visit::any_stmt(&k.body, |s| matches!(s, Stmt::Mma { .. })) {
        info.needs_whole_warps = true;
    }
    info
}

fn pass(cx: &mut Ctxt, k: &Kernel, warp: bool, rules: bool) -> UniformityInfo {
    let mut a = Analyzer {
        k,
        cx,
        reporting: true,
        warp,
        rules,
        tid_x: warp::tid_x_locals(k),
        loops: Vec::new(),
        next_loop: 0,
        info: UniformityInfo::default(),
        reported_calls: Default::default(),
    };
    let mut st = State {
        vars: vec![Uni::Uniform; k.locals.len()],
    };
    let _ = a.block(&k.body, &None, &mut st);
    a.info
}

impl Analyzer<'_, '_> {
    fn expr(&self, h: Handle<Expr>, st: &State) -> Uni {
        let span = self.k.exprs.span(h);
        let nu = |root: String| {
            Uni::NonUniform(Rc::new(Origin {
                root_span: span,
                root,
                path: Vec::new(),
            }))
        };
        if self.rules && self.warp_uniform(h) {
            return Uni::Uniform;
        }
        match self.k.exprs.get(h) {
            Expr::Literal(_) | Expr::Len(_) | Expr::AssumeUniform(_) | Expr::UniformLoad { .. } => {
                Uni::Uniform
            }
            Expr::Local(l) => st.vars[l.index()].clone(),
            Expr::Builtin { builtin, axis } => match builtin {
                Builtin::ThreadIdx => nu(format!("`thread_idx().{}`", axis.name())),
                Builtin::GlobalIdx => nu(format!("`global_idx().{}`", axis.name())),
                Builtin::LaneId => nu("`lane_id()`".into()),
                Builtin::BlockIdx | Builtin::BlockDim | Builtin::GridDim | Builtin::WarpSize => {
                    Uni::Uniform
                }
            },
            Expr::Load { array, index } => {
                let a = self.k.arrays.get(*array);
                match a.kind {
                    ArrayKind::Global { mutable: false } => index
                        .iter()
                        .fold(Uni::Uniform, |acc, i| acc.join(self.expr(*i, st))),
                    ArrayKind::Global { mutable: true } => nu(format!(
                        "a load from `{}`, a `&mut` slice that threads may write",
                        a.name
                    )),
                    ArrayKind::Shared { .. } => {
                        nu(format!("a load from shared array `{}`", a.name))
                    }
                    // Each thread fills its own copy; the analysis does not follow the stores.
                    ArrayKind::Local { .. } => {
                        nu(format!("a load from thread-local array `{}`", a.name))
                    }
                }
            }
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => self.expr(*expr, st),
            Expr::Method { receiver, args, .. } => {
                args.iter().fold(self.expr(*receiver, st), |acc, a| {
                    acc.join(self.expr(*a, st))
                })
            }
            Expr::Binary { left, right, .. } => self.expr(*left, st).join(self.expr(*right, st)),
            Expr::Select {
                cond,
                accept,
                reject,
            } => self
                .expr(*cond, st)
                .join(self.expr(*accept, st))
                .join(self.expr(*reject, st)),
        }
    }

    /// `value` assigned to a variable at `span` under control flow `cf`.
    fn assigned(&self, value: Uni, cf: &Cf, span: Span, name: &str) -> Uni {
        let value = match cf {
            None => value,
            Some(r) => value.join(Uni::NonUniform(Rc::new(Origin {
                root_span: span,
                root: format!(
                    "an assignment made where control flow is not uniform (because of line {})",
                    r.span.start().line
                ),
                path: Vec::new(),
            }))),
        };
        value.through(name)
    }

    fn block(&mut self, b: &Block, cf: &Cf, st: &mut State) -> Flow {
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

    fn divergent_barrier(
        &mut self,
        span: Span,
        what: &str,
        reason: &Reason,
        calls: &[(Span, String)],
        trailing: Option<&str>,
    ) {
        if !self.reporting {
            return;
        }
        if let Some((call, _)) = calls.first() {
            let at = call.start();
            if !self
                .reported_calls
                .insert((call.lo.file(), at.line, at.column))
            {
                return;
            }
        }
        // A barrier inlined from a helper is reported at the kernel's call of the helper,
        // where the divergent control flow usually is.
        let mut d = match (calls.first(), trailing) {
            (None, Some(h)) => Diagnostic::new(
                span,
                format!("this call of `{h}` is not reached by every thread of the block, but `{h}` ends on a barrier (trailing sync: it writes shared memory that other threads may read)"),
            )
            .note(format!("call `{h}` where every thread of the block goes, or declare it `#[device(trailing_sync = false)]` and place the barrier yourself")),
            (Some((call, name)), _) => {
                let mut d = Diagnostic::new(
                    *call,
                    format!("this call of `{name}` is not reached by every thread of the block, but `{name}` contains a barrier ({what})"),
                );
                let inner: Vec<String> = calls[1..].iter().map(|(_, n)| format!("`{n}`")).collect();
                let via = if inner.is_empty() {
                    String::new()
                } else {
                    format!(" (through {})", inner.join(", "))
                };
                d = d.label(span, format!("the barrier in `{name}`{via}"));
                if let Some(h) = trailing {
                    d = d.note(format!("the barrier is the trailing sync of `{h}`, which writes shared memory; declare it `#[device(trailing_sync = false)]` to opt out"));
                }
                d
            }
            (None, None) => Diagnostic::new(
                span,
                format!("{what} is not reached by every thread of the block: some threads would skip it or wait at it a different number of times"),
            ),
        }
        .label(reason.span, format!("control flow diverges here: {}", reason.text));
        d = reason.explain(d);
        d = d.note("every thread of a block must reach each barrier the same number of times: move the barrier to where all threads go (before or after the branch or loop), or make the condition uniform (computed from block-uniform values only)");
        self.cx.push(d);
    }

    fn cond_reason(&self, cond: Handle<Expr>, st: &State, what: &str) -> Cf {
        match self.expr(cond, st) {
            Uni::Uniform => None,
            Uni::NonUniform(o) => {
                let name = o
                    .path
                    .last()
                    .map(|v| format!("`{v}`"))
                    .unwrap_or_else(|| o.root.clone());
                Some(Rc::new(Reason {
                    span: self.k.exprs.span(cond),
                    text: format!(
                        "{what} depends on {name}, which is not the same in every thread"
                    ),
                    origin: Some(o),
                    cause: None,
                }))
            }
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
            Stmt::Print { .. } => {
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
            Stmt::Fence(_) => Flow::default(),
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
