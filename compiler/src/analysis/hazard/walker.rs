//! The walker's state: the symbols of the affine forms and what each stands for, the
//! accesses with their guards and places in the tree, and the pending accesses of a phase.
//!
//! The other files of this folder add the walker's methods: `sym` evaluates
//! expressions to affine forms, `phase` walks statements and carries pending accesses
//! through control flow, `pair` decides whether two accesses collide.

use super::super::affine::{Affine, Constraint, Var};
use super::super::uniformity::UniformityInfo;
use super::Hazard;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SymKind {
    Tid(usize),
    BlockDim(usize),
    Dist,
    Other,
}

#[derive(Clone, Debug)]
pub(super) struct SymInfo {
    pub(super) per_thread: bool,
    pub(super) defined_in: Vec<StmtId>,
    pub(super) kind: SymKind,
    pub(super) nonneg: bool,
    /// What is known of the symbol beyond its bounds (a quotient's and a remainder's
    /// definition), over the symbols of the same thread.
    pub(super) facts: Vec<Constraint>,
    /// The expression the analysis could not model, for an opaque symbol.
    pub(super) origin: Option<Handle<Expr>>,
    /// The symbol is zero or a power of two below `2^pow2` (a loop variable that starts at one
    /// and doubles or halves, `1 << k`, a quotient of one by a power of two); 0: not known.
    pub(super) pow2: u32,
    /// A power of two that is never zero (it only doubles, below a bound).
    pub(super) nonzero: bool,
    /// The symbol stands for `factor * of`, a product of a uniform symbol and a form: linear
    /// once the factor's value is fixed (see `pair`).
    pub(super) product: Option<(Var, Affine)>,
    /// The values the symbol can take, where CUDA bounds them (the thread and block ids and
    /// extents): what lets a cast that changes the type keep the symbol's value.
    pub(super) range: Option<(i128, i128)>,
    /// The values of a loop counter's symbol, where the loop's range is constant.
    pub(super) counts: Option<(i128, i128)>,
}

#[derive(Clone, Debug)]
pub(super) struct Val {
    pub(super) aff: Affine,
    /// No unsigned subtraction went into it (so it equals the machine value when in range).
    pub(super) exact: bool,
}

/// A block of the kernel: the body, or the `arm`-th block nested in a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BlockKey {
    Body,
    In(StmtId, u8),
}

/// One level of an access's place in the tree: the block, the statement's position in it,
/// and the statement.
pub(super) type PathStep = (BlockKey, usize, StmtId);

/// What a symbol stands for; one symbol per key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum SymKey {
    /// A scalar parameter.
    Param(Handle<Local>),
    /// A value the analysis does not model, per thread or not.
    Opaque(Handle<Expr>, bool),
    /// `thread_idx()` on an axis.
    ThreadIdx(usize),
    /// `block_dim()` on an axis.
    BlockDim(usize),
    /// `block_idx()` on an axis.
    BlockIdx(usize),
    /// `grid_dim()` on an axis.
    GridDim(usize),
    /// `block_idx * block_dim` on an axis, the base of `global_idx()`.
    GlobalBase(usize),
    /// The length of a slice.
    Len(Handle<Array>),
    /// The new value of a compound assignment the rules do not model, per thread or not.
    Compound(StmtId, bool),
    /// A variable assigned where control flow is not uniform.
    DivergentAssign(StmtId),
    /// The old value an atomic returns.
    AtomicResult(StmtId),
    /// The result of a warp operation.
    WarpResult(StmtId),
    /// The lane of a row that an asynchronous copy writes or a fragment load reads (any of
    /// them: the array's last dimension bounds it).
    RowLane(StmtId),
    /// A warpgroup multiply's tile (0: `A`, 1: `B`): which of its rows (`0`), which of the
    /// two chunks of a row (`1`), which lane of the chunk (`2`).
    WgmmaPart(StmtId, u8, u8),
    /// `x / c` (or `x >> k`) of an unsigned `x` (of this form) by the constant `c`, per thread
    /// or not. Keyed by the form and the divisor, not the place: every `x / c` (and `x % c`)
    /// of one form is one symbol, so `tx / 8` and `tx % 8` written apart are the quotient and
    /// remainder of one division, `tx == 8 * q + r`, which the proof needs to tell apart the
    /// threads of an index built from both.
    Quotient(i128, Affine, bool),
    /// `x % c` (or `x & (2^k - 1)`) of an unsigned `x` (of this form) by the constant `c`, per
    /// thread or not.
    Remainder(i128, Affine, bool),
    /// `factor * form` of a uniform symbol and a form, per thread or not.
    Product(Var, Affine, bool),
    /// `x / d` (or, with a remainder, `x % d`, `x & (d - 1)`) of an unsigned `x` by a uniform
    /// `d` that is a multiple of one symbol: the quotient and remainder of the expression.
    QuotientBy(OpSite, Affine, Affine, bool),
    /// The remainder of a [`SymKey::QuotientBy`].
    RemainderBy(OpSite, Affine, Affine, bool),
    /// A variable after a check that it is a power of two (`assert!(n.is_power_of_two())`).
    Pow2Assumed(StmtId, Handle<Local>, bool),
    /// A value `1 << k` (or another power of two shifted by a symbol).
    Pow2Shift(OpSite, bool),
    /// Variable number `local` after an `if` whose arms left it different, per thread or not.
    IfJoin(StmtId, usize, bool),
    /// A variable the loop assigns, at the loop's head, per thread or not.
    LoopHead(StmtId, Handle<Local>, bool),
    /// A sequential or block-distributed loop's counter, per thread or not.
    LoopCounter(StmtId, bool),
    /// The iteration number of a thread-distributed loop.
    LoopIteration(StmtId),
    /// A thread-distributed loop's variable the analysis does not model.
    LoopVar(StmtId),
    /// A variable the loop assigns, after the loop, per thread or not.
    LoopExit(StmtId, Handle<Local>, bool),
    /// The number of iterations of a loop before the current one, per thread or not: what
    /// its induction variables are at the head (`v0 + n * step`, see `induction`).
    Iterations(StmtId, bool),
}

/// Where an operation is: an expression, or a compound assignment (`d >>= 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum OpSite {
    Expr(Handle<Expr>),
    Stmt(StmtId),
}

/// What identifies an access across the fixpoint rounds of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum AccessKey {
    /// The load of an expression.
    Load(Handle<Expr>),
    /// The read of a compound assignment to an element.
    CompoundRead(StmtId),
    /// The write of an assignment to an element.
    Store(StmtId),
    /// An atomic.
    Atomic(StmtId),
    /// An asynchronous copy's write.
    AsyncCopy(StmtId),
    /// A fragment load's read of the row its thread gives.
    LoadMatrix(StmtId),
    /// A warpgroup multiply's read of its `A` (0) or `B` (1) tile.
    Wgmma(StmtId, u8),
    /// The copy of access `id` as it lands at a wait: a write there (so a barrier that
    /// publishes it goes after the wait).
    Landed(usize, StmtId),
}

#[derive(Clone, Debug)]
pub(super) struct Access {
    pub(super) id: usize,
    pub(super) array: Handle<Array>,
    pub(super) write: bool,
    pub(super) atomic: bool,
    pub(super) unsafe_: bool,
    /// The write of an asynchronous copy: in flight from its issue to this thread's wait.
    pub(super) async_copy: bool,
    /// The read of a warpgroup multiply's tile: in flight from its issue to this thread's
    /// `wgmma_wait` that covers its group.
    pub(super) wgmma: bool,
    pub(super) index: Vec<Val>,
    pub(super) guards: Vec<Constraint>,
    pub(super) path: Vec<PathStep>,
    pub(super) span: Span,
}

#[derive(Clone, Debug)]
pub(super) struct Pending {
    pub(super) acc: Rc<Access>,
    pub(super) carried: BTreeSet<StmtId>,
    /// What held on the way from the access to here beyond its guards: a loop that ran zero
    /// times after it, or the exit condition after its last iteration (over the accessing
    /// thread's symbols).
    pub(super) exit: Rc<Vec<Constraint>>,
    /// For an asynchronous copy's write not yet waited for: how many groups this thread has
    /// committed since it was issued, at least (saturating at [`COMMITS_KNOWN`]). Until its
    /// wait, the write may land at any moment, so it conflicts with every access to its
    /// element, the issuing thread's own included, and barriers do not end it.
    pub(super) in_flight: Option<u8>,
    /// For a copy in flight: a barrier has been passed since its issue (so the issuing
    /// thread's iteration of each loop is the one every thread was in there).
    pub(super) synced: bool,
    /// For a copy in flight: per loop it is carried across, how many of its back edges it
    /// went over (saturating at [`LAPS_KNOWN`], "that many or more"): 1 is the previous
    /// iteration.
    pub(super) laps: BTreeMap<StmtId, u8>,
}

/// The most back edges of one loop the analysis counts for a copy in flight (more is "at
/// least this"): a pipeline of up to this many stages keeps its copies' iterations exact.
pub(super) const LAPS_KNOWN: u8 = 4;

/// The most commits since an asynchronous copy the analysis counts (more is "at least this").
pub(super) const COMMITS_KNOWN: u8 = 8;

#[derive(Clone, Debug, Default)]
pub(super) struct Pend {
    pub(super) items: Vec<Pending>,
}

/// What identifies a pending access: the access, the loops it was carried across, and what
/// held on its way here.
pub(super) type PendKey = (
    usize,
    BTreeSet<StmtId>,
    Rc<Vec<Constraint>>,
    Option<u8>,
    bool,
    BTreeMap<StmtId, u8>,
);

impl Pending {
    /// A pending access of the current iteration, with nothing known of its way.
    pub(super) fn new(acc: Rc<Access>) -> Pending {
        Pending {
            acc,
            carried: BTreeSet::new(),
            exit: Rc::default(),
            in_flight: None,
            synced: false,
            laps: BTreeMap::new(),
        }
    }
    fn key(&self) -> PendKey {
        (
            self.acc.id,
            self.carried.clone(),
            self.exit.clone(),
            self.in_flight,
            self.synced,
            self.laps.clone(),
        )
    }
}

impl Pend {
    pub(super) fn keys(&self) -> BTreeSet<PendKey> {
        self.items.iter().map(Pending::key).collect()
    }
    /// Adds `other`'s accesses. One that arrives both with and without facts of its way is
    /// kept once, without (the weaker record covers both ways).
    pub(super) fn union(&mut self, other: &Pend) {
        let keys = self.keys();
        for p in &other.items {
            if keys.contains(&p.key()) {
                continue;
            }
            let same = |q: &Pending| {
                q.acc.id == p.acc.id
                    && q.carried == p.carried
                    && (q.in_flight, q.synced) == (p.in_flight, p.synced)
                    && q.laps == p.laps
            };
            if p.exit.is_empty() {
                self.items.retain(|q| !same(q));
            } else if self.items.iter().any(|q| same(q) && q.exit.is_empty()) {
                continue;
            }
            self.items.push(p.clone());
        }
        // Keep the newest record of each access.
        self.refresh(other);
    }
    /// The same accesses, each with `facts` added to what held on its way.
    pub(super) fn with_exit(&self, facts: &[Constraint]) -> Pend {
        let mut out = Pend::default();
        // A way that cannot be taken (a loop over a literal, non-empty range that runs zero
        // times) keeps nothing.
        let impossible = facts.iter().any(|f| {
            let (Constraint::Eq(a) | Constraint::Ge(a) | Constraint::Ne(a)) = f;
            a.terms.is_empty() && !f.holds(&BTreeMap::new())
        });
        if impossible {
            return out;
        }
        for p in &self.items {
            let mut exit = (*p.exit).clone();
            exit.extend(facts.iter().cloned());
            out.union(&Pend {
                items: vec![Pending {
                    exit: Rc::new(exit),
                    ..p.clone()
                }],
            });
        }
        out
    }
    pub(super) fn refresh(&mut self, newer: &Pend) {
        let latest: HashMap<usize, Rc<Access>> = newer
            .items
            .iter()
            .map(|p| (p.acc.id, p.acc.clone()))
            .collect();
        for p in &mut self.items {
            if let Some(a) = latest.get(&p.acc.id) {
                p.acc = a.clone();
            }
        }
    }
    /// The accesses as they reach the head of loop `loop_id` over its back edge: carried
    /// across it. `stationary` says which stay as they are: copies in flight from before the
    /// loop whose facts name none of its symbols, the same pair with every access of any
    /// iteration (carrying them would only check each pair again).
    pub(super) fn carry(&self, loop_id: StmtId, stationary: impl Fn(&Pending) -> bool) -> Pend {
        Pend {
            items: self
                .items
                .iter()
                .map(|p| {
                    if stationary(p) {
                        return p.clone();
                    }
                    let mut c = p.carried.clone();
                    c.insert(loop_id);
                    Pending {
                        acc: p.acc.clone(),
                        carried: c,
                        exit: p.exit.clone(),
                        in_flight: p.in_flight,
                        synced: p.synced,
                        laps: {
                            let mut laps = p.laps.clone();
                            if p.in_flight.is_some() {
                                let n = laps.entry(loop_id).or_insert(0);
                                *n = (*n + 1).min(LAPS_KNOWN);
                            }
                            laps
                        },
                    }
                })
                .collect(),
        }
    }
}

/// A sequential loop's counter (see [`Walker::counter_steps`]).
#[derive(Clone, Debug)]
pub(super) struct Counter {
    pub(super) sym: Var,
    pub(super) step: i128,
    pub(super) uniform: bool,
    pub(super) enclosing: Vec<StmtId>,
}

pub(super) struct Walker<'a> {
    pub(super) k: &'a Kernel,
    pub(super) types: &'a Types,
    pub(super) uni: &'a UniformityInfo,
    pub(super) syms: Vec<SymInfo>,
    pub(super) sym_keys: HashMap<SymKey, Var>,
    pub(super) env: Vec<Option<Val>>,
    pub(super) guards: Vec<Constraint>,
    pub(super) loops: Vec<StmtId>,
    pub(super) path: Vec<PathStep>,
    pub(super) unsafe_depth: usize,
    pub(super) next_access: usize,
    pub(super) access_ids: HashMap<(AccessKey, bool), usize>,
    pub(super) returned: Pend,
    pub(super) continues: HashMap<StmtId, Pend>,
    pub(super) breaks: HashMap<StmtId, Pend>,
    pub(super) rank: usize,
    pub(super) found: Vec<Hazard>,
    pub(super) seen: HashSet<(usize, usize)>,
    pub(super) pending_new: Vec<Rc<Access>>,
    pub(super) witnesses: bool,
    /// Count unsafe and global accesses too ([`super::Query::ordering`]).
    pub(super) ordering: bool,
    /// Per statement and asynchronous copy (its access id): the fewest groups committed since
    /// the copy when the statement starts, where the copy may be in flight there (what a
    /// `cp_async_wait` placed there must allow, see [`super::Hazard::in_flight`]).
    pub(super) commits_at: HashMap<(StmtId, usize), u8>,
    /// Per sequential loop with a counter: its symbol, how much it moves from one iteration
    /// to the next, whether it is uniform, and the loops around the loop.
    pub(super) counter_steps: HashMap<StmtId, Counter>,
    pub(super) label_loops: HashMap<Handle<Label>, StmtId>,
    pub(super) loop_stmts: HashSet<StmtId>,
    /// Per loop whose body has a barrier among its own statements (not nested): the position
    /// of the first, which every thread passes in every iteration that goes past it.
    pub(super) first_barrier: HashMap<StmtId, usize>,
}
