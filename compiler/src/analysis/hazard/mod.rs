//! Shared-memory hazards: accesses of two different threads to one element of a shared array
//! within one phase (between two barriers), at least one a write and not both atomic.
//!
//! Takes a checked kernel and its [`UniformityInfo`]; gives the list of [`Hazard`]s, each with
//! a concrete pair of colliding threads where one is found and the place where one barrier
//! would remove it.
//!
//! Every access records its index as an affine form over symbols: per-thread symbols (thread
//! ids, the index of a `threads_in_*` loop, values the analysis cannot model) and
//! block-uniform ones (parameters, block ids, loop counters, uniform variables; a loop's
//! iteration number, through which an induction variable `v += step` is `v0 + n * step`). It
//! also records its guards, the conditions of the `if`s and loops around it, as linear
//! constraints. A pair of
//! accesses conflicts when two distinct threads can satisfy both guards and reach one element;
//! [`super::affine::feasible`] decides that over the integers. Phases come from a dataflow over the
//! structured control flow, as in Triton's membar analysis: the accesses since the last barrier
//! are pending at each point, a barrier clears them, loops iterate to a fixpoint, and accesses
//! that reach a loop's head over its back edge are "carried": their symbols defined inside the
//! loop are renamed, since they belong to another iteration. Accesses in the two arms of a
//! non-uniform `if` can run in one phase (different threads take different arms), so such arms
//! are walked one after the other; accesses after an early `return` stay pending for good.
//!
//! Assumptions, stated where users can read them (README): index arithmetic does not wrap
//! around (an index that does is out of bounds, which bounds checks catch), and a kernel whose
//! shared-memory proof uses only `thread_idx().x` is launched with one-dimensional blocks (the
//! runtime checks it); the same for x and y with two-dimensional blocks.
//!
//! The walker is split by concern: `walker` holds its state and the typed keys of symbols
//! and accesses, `sym` evaluates expressions and conditions to affine forms, `phase` is the
//! dataflow over statements, `loops` its fixpoint over a loop (first and last iterations,
//! accesses carried around the back edge), `induction` gives a loop's induction variables (`v += step`)
//! their value at the head, `pair` decides a pair of accesses and where a barrier fixes it.
//! Everything about statements is keyed by [`StmtId`], so the results hold for any clone of
//! the kernel (the auto pass analyses clones with one barrier removed).

mod induction;
mod loops;
mod pair;
mod phase;
mod pow2;
mod sym;
mod walker;

use super::affine::Affine;
use super::uniformity::UniformityInfo;
use crate::ir::*;
use std::collections::{HashMap, HashSet};
use walker::{BlockKey, Pend, SymKey, SymKind, Val, Walker};

/// The kind of a hazard, by the order of the two accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HazardKind {
    /// A read may see a write of the same phase, or not.
    ReadAfterWrite,
    /// A write may clobber what a read of the same phase expected.
    WriteAfterRead,
    /// Two writes of one phase: which one wins is undefined.
    WriteAfterWrite,
}

impl HazardKind {
    /// "read-after-write", ...
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::ReadAfterWrite => "read-after-write",
            HazardKind::WriteAfterRead => "write-after-read",
            HazardKind::WriteAfterWrite => "write-after-write",
        }
    }
}

/// One side of a hazard.
#[derive(Clone, Debug)]
pub struct AccessSite {
    /// The access.
    pub span: Span,
    /// A write (or an atomic).
    pub write: bool,
    /// An atomic read-modify-write.
    pub atomic: bool,
}

/// Two threads that collide, found by search.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The thread doing the first access (x, y, z).
    pub first_thread: [i128; 3],
    /// The thread doing the second access.
    pub second_thread: [i128; 3],
    /// The element both touch.
    pub element: Vec<i128>,
    /// A block size (x, y, z) for which it happens.
    pub block_dim: [i128; 3],
}

/// Where one barrier would remove a hazard: right before a statement.
#[derive(Clone, Debug)]
pub struct InsertPoint {
    /// The statement the barrier would precede.
    pub stmt: StmtId,
    /// Its span.
    pub before: Span,
}

/// What [`find_hazards`] looks for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Query {
    /// Search a concrete pair of threads for each hazard (a search: only for messages).
    pub witnesses: bool,
    /// Every pair a barrier might order, for decisions that remove a barrier: accesses inside
    /// `unsafe` count too, and so do accesses of `&mut [T]` global memory by two threads of
    /// one block. Without it, only the hazards the programmer must fix (outside `unsafe`) are
    /// found: shared-memory ones, and global-memory ones the proof decides exactly.
    pub ordering: bool,
}

impl Query {
    /// The hazards `sync = "check"` reports, with a witness pair of threads each (a
    /// global-memory pair only with one: an access the proof cannot decide, a scatter through
    /// loaded indices, is left to the simulator's detector).
    pub const REPORT: Query = Query {
        witnesses: true,
        ordering: false,
    };
    /// The hazards outside `unsafe` that `sync = "auto"` places barriers for (a global-memory
    /// pair where the proof decides it exactly).
    pub const PLACE: Query = Query {
        witnesses: false,
        ordering: false,
    };
    /// Every pair a barrier might order (what keeps a barrier from being removed).
    pub const ORDERING: Query = Query {
        witnesses: false,
        ordering: true,
    };
}

/// A hazard between two accesses by two threads of one block to a shared array or a `&mut`
/// slice in global memory.
#[derive(Clone, Debug)]
pub struct Hazard {
    /// The array.
    pub array: Handle<Array>,
    /// The earlier access (in program order, or from the previous iteration).
    pub first: AccessSite,
    /// The later access.
    pub second: AccessSite,
    /// Which kind.
    pub kind: HazardKind,
    /// The earlier access is from an earlier iteration of the loop that encloses both.
    pub loop_carried: bool,
    /// A concrete pair of colliding threads, when the search finds one.
    pub witness: Option<Witness>,
    /// Where one barrier fixes it; `None` when no barrier at a uniform point can.
    pub fix: Option<InsertPoint>,
    /// Both accesses are one access run by two threads.
    pub same_site: bool,
    /// Both accesses are in one statement of one iteration (`a[t] = a[t + 1]`): no barrier
    /// can go between them.
    pub same_statement: bool,
    /// Where there is no witness: a per-thread value in an index that the proof could not
    /// model (so it could not decide the pair), if there is one.
    pub unmodelled: Option<Span>,
    /// The first access is an asynchronous copy's write (or a warpgroup multiply's read) that
    /// may still be in flight at the second (no barrier orders them: a `cp_async_wait`, or a
    /// `wgmma_wait`, must land it first).
    pub in_flight: Option<InFlight>,
}

/// What lands an asynchronous copy in flight at an access (see [`Hazard::in_flight`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// At the fix point (or, without one, at the second access): the fewest groups the
    /// thread has committed since the copy. 0: the copy's group is not committed yet.
    pub commits: u8,
    /// The two accesses may be one thread's (its own read of the copy's element before the
    /// wait): no barrier is needed once the copy has landed, for that pair.
    pub same_thread: bool,
    /// The first access is a warpgroup multiply's read of its tile (landed by `wgmma_wait`),
    /// not a copy.
    pub wgmma: bool,
}

impl InFlight {
    /// The `cp_async_wait` argument that lands the copy (`None`: its group must be committed
    /// first).
    pub fn wait_arg(self) -> Option<u8> {
        self.commits.checked_sub(1)
    }
}

/// How many thread dimensions a kernel's indices use (1 to 3): the block rank its
/// shared-memory proof assumes.
pub fn thread_rank(k: &Kernel) -> usize {
    // A declared shape is checked exactly at launch: the proof considers every axis, each
    // bounded by its extent.
    if k.options.block.is_some() {
        return 3;
    }
    let mut rank = 1;
    for (_, e) in k.exprs.iter() {
        if let Expr::Builtin {
            builtin: Builtin::ThreadIdx | Builtin::GlobalIdx,
            axis,
        } = e
        {
            rank = rank.max(match axis {
                Axis::X => 1,
                Axis::Y => 2,
                Axis::Z => 3,
            });
        }
    }
    rank
}

/// Finds every shared-memory hazard of a kernel.
pub fn find_hazards(k: &Kernel, types: &Types, uni: &UniformityInfo, query: Query) -> Vec<Hazard> {
    let in_scope = k.arrays.iter().any(|(_, a)| match a.kind {
        ArrayKind::Shared { .. } => true,
        ArrayKind::Global { mutable } => mutable,
        ArrayKind::Local { .. } => false,
    });
    if !in_scope {
        return Vec::new();
    }
    let mut w = Walker {
        k,
        types,
        uni,
        syms: Vec::new(),
        sym_keys: HashMap::new(),
        env: vec![None; k.locals.len()],
        guards: Vec::new(),
        loops: Vec::new(),
        path: Vec::new(),
        unsafe_depth: 0,
        next_access: 0,
        access_ids: HashMap::new(),
        returned: Pend::default(),
        continues: HashMap::new(),
        breaks: HashMap::new(),
        rank: thread_rank(k),
        found: Vec::new(),
        seen: HashSet::new(),
        pending_new: Vec::new(),
        witnesses: query.witnesses,
        ordering: query.ordering,
        commits_at: HashMap::new(),
        counter_steps: HashMap::new(),
        label_loops: HashMap::new(),
        loop_stmts: HashSet::new(),
        first_barrier: HashMap::new(),
    };
    // Thread ids and block sizes exist from the start: pairs always constrain them.
    for axis in 0..3 {
        w.tid(axis);
        w.bdim(axis);
    }
    for p in &k.params {
        if let ParamKind::Scalar { local, ty } = p.kind {
            let s = w.sym(
                SymKey::Param(local),
                false,
                ty.is_unsigned_int(),
                SymKind::Other,
            );
            w.env[local.index()] = Some(Val {
                aff: Affine::var(s),
                exact: true,
            });
        }
    }
    let mut pend = Pend::default();
    w.block(&k.body, BlockKey::Body, &mut pend);
    w.found
}
