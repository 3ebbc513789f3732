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
//!
//! Here: the lattice (values, control flow, the state) and expressions; `flow`: the walk over
//! statements and loops; `report`: the divergent-barrier error; `warp`: the warp level.

mod flow;
mod report;
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
    if visit::any_stmt(&k.body, Stmt::is_matrix_op) {
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
}
