//! Shared-memory hazards: accesses of two different threads to one element of a shared array
//! within one phase (between two barriers), at least one a write and not both atomic.
//!
//! Takes a checked kernel and its [`UniformityInfo`]; gives the list of [`Hazard`]s, each with
//! a concrete pair of colliding threads where one is found and the place where one barrier
//! would remove it.
//!
//! Every access records its index as an affine form over symbols: per-thread symbols (thread
//! ids, the index of a `threads_in_*` loop, values the analysis cannot model) and
//! block-uniform ones (parameters, block ids, loop counters, uniform variables). It also records
//! its guards, the conditions of the `if`s and loops around it, as linear constraints. A pair of
//! accesses conflicts when two distinct threads can satisfy both guards and reach one element;
//! [`affine::feasible`] decides that over the integers. Phases come from a dataflow over the
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

use super::affine::{self, Affine, Constraint, Var};
use super::uniformity::UniformityInfo;
use crate::ir::Types;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

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

/// A hazard between two accesses to a shared array.
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SymKind {
    Tid(usize),
    BlockDim(usize),
    Dist,
    Other,
}

#[derive(Clone, Debug)]
struct SymInfo {
    per_thread: bool,
    defined_in: Vec<StmtId>,
    kind: SymKind,
    nonneg: bool,
}

#[derive(Clone, Debug)]
struct Val {
    aff: Affine,
    /// No unsigned subtraction went into it (so it equals the machine value when in range).
    exact: bool,
}

/// A block of the kernel: the body, or the `arm`-th block nested in a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKey {
    Body,
    In(StmtId, u8),
}

/// One level of an access's place in the tree: the block, the statement's position in it,
/// and the statement.
type PathStep = (BlockKey, usize, StmtId);

/// What a symbol stands for; one symbol per key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SymKey {
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
}

/// What identifies an access across the fixpoint rounds of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum AccessKey {
    /// The load of an expression.
    Load(Handle<Expr>),
    /// The read of a compound assignment to an element.
    CompoundRead(StmtId),
    /// The write of an assignment to an element.
    Store(StmtId),
    /// An atomic.
    Atomic(StmtId),
}

#[derive(Debug)]
struct Access {
    id: usize,
    array: Handle<Array>,
    write: bool,
    atomic: bool,
    unsafe_: bool,
    index: Vec<Val>,
    guards: Vec<Constraint>,
    path: Vec<PathStep>,
    span: Span,
}

#[derive(Clone, Debug)]
struct Pending {
    acc: Rc<Access>,
    carried: BTreeSet<StmtId>,
}

#[derive(Clone, Debug, Default)]
struct Pend {
    items: Vec<Pending>,
}

impl Pend {
    fn keys(&self) -> BTreeSet<(usize, BTreeSet<StmtId>)> {
        self.items
            .iter()
            .map(|p| (p.acc.id, p.carried.clone()))
            .collect()
    }
    fn union(&mut self, other: &Pend) {
        let keys = self.keys();
        for p in &other.items {
            if !keys.contains(&(p.acc.id, p.carried.clone())) {
                self.items.push(p.clone());
            }
        }
        // Keep the newest record of each access.
        self.refresh(other);
    }
    fn refresh(&mut self, newer: &Pend) {
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
    fn carry(&self, loop_id: StmtId) -> Pend {
        Pend {
            items: self
                .items
                .iter()
                .map(|p| {
                    let mut c = p.carried.clone();
                    c.insert(loop_id);
                    Pending {
                        acc: p.acc.clone(),
                        carried: c,
                    }
                })
                .collect(),
        }
    }
}

struct Walker<'a> {
    k: &'a Kernel,
    types: &'a Types,
    uni: &'a UniformityInfo,
    syms: Vec<SymInfo>,
    sym_keys: HashMap<SymKey, Var>,
    env: Vec<Option<Val>>,
    guards: Vec<Constraint>,
    loops: Vec<StmtId>,
    path: Vec<PathStep>,
    unsafe_depth: usize,
    next_access: usize,
    access_ids: HashMap<(AccessKey, bool), usize>,
    returned: Pend,
    continues: HashMap<StmtId, Pend>,
    breaks: HashMap<StmtId, Pend>,
    rank: usize,
    found: Vec<Hazard>,
    seen: HashSet<(usize, usize)>,
    pending_new: Vec<Rc<Access>>,
    witnesses: bool,
    label_loops: HashMap<Handle<Label>, StmtId>,
    loop_stmts: HashSet<StmtId>,
}

/// How many thread dimensions a kernel's indices use (1 to 3): the block rank its
/// shared-memory proof assumes.
pub fn thread_rank(k: &Kernel) -> usize {
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
/// `witnesses` asks for a concrete pair of threads per hazard (a search: only for messages).
pub fn find_hazards(
    k: &Kernel,
    types: &Types,
    uni: &UniformityInfo,
    witnesses: bool,
) -> Vec<Hazard> {
    let has_shared = k
        .arrays
        .iter()
        .any(|(_, a)| matches!(a.kind, ArrayKind::Shared { .. }));
    if !has_shared {
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
        witnesses,
        label_loops: HashMap::new(),
        loop_stmts: HashSet::new(),
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

impl Walker<'_> {
    /// The symbol for `key`, created on first use.
    fn sym(&mut self, key: SymKey, per_thread: bool, nonneg: bool, kind: SymKind) -> Var {
        if let Some(s) = self.sym_keys.get(&key) {
            return *s;
        }
        let s = self.syms.len() as Var;
        self.syms.push(SymInfo {
            per_thread,
            defined_in: self.loops.clone(),
            kind,
            nonneg,
        });
        self.sym_keys.insert(key, s);
        s
    }

    fn global_sym(&mut self, key: SymKey, kind: SymKind, nonneg: bool) -> Var {
        let saved = std::mem::take(&mut self.loops);
        let s = self.sym(key, false, nonneg, kind);
        self.loops = saved;
        s
    }

    fn per_thread(&self, v: &Val) -> bool {
        v.aff
            .terms
            .keys()
            .any(|s| self.syms[*s as usize].per_thread)
    }

    /// A value the analysis does not model: a fresh symbol for this expression.
    fn opaque(&mut self, e: Handle<Expr>, per_thread: bool) -> Val {
        let nonneg = self.types.expr(e).is_unsigned_int();
        let s = self.sym(
            SymKey::Opaque(e, per_thread),
            per_thread,
            nonneg,
            SymKind::Other,
        );
        Val {
            aff: Affine::var(s),
            exact: true,
        }
    }

    fn tid(&mut self, axis: usize) -> Var {
        let s = self.global_sym(SymKey::ThreadIdx(axis), SymKind::Tid(axis), true);
        self.syms[s as usize].per_thread = true;
        s
    }

    fn bdim(&mut self, axis: usize) -> Var {
        self.global_sym(SymKey::BlockDim(axis), SymKind::BlockDim(axis), true)
    }

    fn eval(&mut self, e: Handle<Expr>) -> Val {
        let t = self.types.expr(e);
        let exact = |aff: Affine| Val { aff, exact: true };
        match self.k.exprs.get(e).clone() {
            Expr::Literal(Literal::Int { value, .. }) => exact(Affine::constant(value)),
            Expr::Literal(_) => self.opaque(e, false),
            Expr::Local(l) => match self.env[l.index()].clone() {
                Some(v) => v,
                None => self.opaque(e, true),
            },
            Expr::Builtin { builtin, axis } => {
                let a = axis as usize;
                match builtin {
                    Builtin::ThreadIdx => exact(Affine::var(self.tid(a))),
                    Builtin::BlockDim => exact(Affine::var(self.bdim(a))),
                    Builtin::BlockIdx => exact(Affine::var(self.global_sym(
                        SymKey::BlockIdx(a),
                        SymKind::Other,
                        true,
                    ))),
                    Builtin::GridDim => exact(Affine::var(self.global_sym(
                        SymKey::GridDim(a),
                        SymKind::Other,
                        true,
                    ))),
                    Builtin::GlobalIdx => {
                        let base = self.global_sym(SymKey::GlobalBase(a), SymKind::Other, true);
                        let tid = self.tid(a);
                        exact(Affine::var(base).add(&Affine::var(tid)))
                    }
                    Builtin::LaneId => self.opaque(e, true),
                    Builtin::WarpSize => exact(Affine::constant(32)),
                }
            }
            Expr::Len(a) => exact(Affine::var(self.global_sym(
                SymKey::Len(a),
                SymKind::Other,
                true,
            ))),
            Expr::Load { array, index } => {
                let idx: Vec<Val> = index.iter().map(|i| self.eval(*i)).collect();
                let uniform_index = idx.iter().all(|v| !self.per_thread(v));
                match self.k.arrays.get(array).kind {
                    ArrayKind::Shared { .. } => {
                        self.access(
                            AccessKey::Load(e),
                            array,
                            false,
                            false,
                            idx,
                            self.k.exprs.span(e),
                        );
                        self.opaque(e, true)
                    }
                    ArrayKind::Global { mutable: false } => self.opaque(e, !uniform_index),
                    ArrayKind::Global { mutable: true } | ArrayKind::Local { .. } => {
                        self.opaque(e, true)
                    }
                }
            }
            Expr::UniformLoad { array, index } => {
                let idx: Vec<Val> = index.iter().map(|i| self.eval(*i)).collect();
                self.access(
                    AccessKey::Load(e),
                    array,
                    false,
                    false,
                    idx,
                    self.k.exprs.span(e),
                );
                self.opaque(e, false)
            }
            Expr::Method { receiver, args, .. } => {
                let mut pt = false;
                for x in std::iter::once(receiver).chain(args) {
                    let v = self.eval(x);
                    pt |= self.per_thread(&v);
                }
                self.opaque(e, pt)
            }
            Expr::AssumeUniform(inner) => {
                let v = self.eval(inner);
                if self.per_thread(&v) {
                    self.opaque(e, false)
                } else {
                    v
                }
            }
            Expr::Unary {
                op: UnaryOp::Neg,
                expr,
            } if t.is_int() => {
                let v = self.eval(expr);
                Val {
                    aff: v.aff.scale(-1),
                    exact: v.exact && t.is_signed_int(),
                }
            }
            Expr::Unary { expr, .. } => {
                let v = self.eval(expr);
                let pt = self.per_thread(&v);
                self.opaque(e, pt)
            }
            Expr::Cast { expr, to } => {
                let from = self.types.expr(expr);
                let v = self.eval(expr);
                if from.is_int() && to.is_int() {
                    v
                } else {
                    let pt = self.per_thread(&v);
                    self.opaque(e, pt)
                }
            }
            Expr::Binary { op, left, right } => {
                let l = self.eval(left);
                let r = self.eval(right);
                let lt = self.types.expr(left);
                if lt.is_int() {
                    match op {
                        BinaryOp::Add => {
                            return Val {
                                aff: l.aff.add(&r.aff),
                                exact: l.exact && r.exact,
                            }
                        }
                        BinaryOp::Sub => {
                            return Val {
                                aff: l.aff.sub(&r.aff),
                                exact: l.exact && r.exact && lt.is_signed_int(),
                            }
                        }
                        BinaryOp::Mul => {
                            if let Some(c) = r.aff.as_constant() {
                                return Val {
                                    aff: l.aff.scale(c),
                                    exact: l.exact,
                                };
                            }
                            if let Some(c) = l.aff.as_constant() {
                                return Val {
                                    aff: r.aff.scale(c),
                                    exact: r.exact,
                                };
                            }
                        }
                        BinaryOp::Shl => {
                            if let Some(c) = r.aff.as_constant().filter(|c| (0..31).contains(c)) {
                                return Val {
                                    aff: l.aff.scale(1 << c),
                                    exact: l.exact,
                                };
                            }
                        }
                        _ => {}
                    }
                }
                let pt = self.per_thread(&l) || self.per_thread(&r);
                self.opaque(e, pt)
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let c = self.eval(cond);
                let a = self.eval(accept);
                let b = self.eval(reject);
                if a.aff == b.aff {
                    return a;
                }
                let pt = self.per_thread(&c) || self.per_thread(&a) || self.per_thread(&b);
                self.opaque(e, pt)
            }
        }
    }

    /// The linear constraints a condition gives when it is `positive` (true) or not.
    fn constraints(&mut self, cond: Handle<Expr>, positive: bool) -> Vec<Constraint> {
        match self.k.exprs.get(cond).clone() {
            Expr::Unary {
                op: UnaryOp::Not,
                expr,
            } => self.constraints(expr, !positive),
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
            } if positive => {
                let mut c = self.constraints(left, true);
                c.extend(self.constraints(right, true));
                c
            }
            Expr::Binary {
                op: BinaryOp::Or,
                left,
                right,
            } if !positive => {
                let mut c = self.constraints(left, false);
                c.extend(self.constraints(right, false));
                c
            }
            Expr::Binary { op, left, right }
                if op.is_comparison() && self.types.expr(left).is_int() =>
            {
                let l = self.eval(left);
                let r = self.eval(right);
                if !(l.exact && r.exact) {
                    return Vec::new();
                }
                let op = if positive {
                    op
                } else {
                    match op {
                        BinaryOp::Lt => BinaryOp::Ge,
                        BinaryOp::Le => BinaryOp::Gt,
                        BinaryOp::Gt => BinaryOp::Le,
                        BinaryOp::Ge => BinaryOp::Lt,
                        BinaryOp::Eq => BinaryOp::Ne,
                        _ => BinaryOp::Eq,
                    }
                };
                let (a, b) = (&l.aff, &r.aff);
                vec![match op {
                    BinaryOp::Lt => Constraint::lt(a, b),
                    BinaryOp::Le => Constraint::le(a, b),
                    BinaryOp::Gt => Constraint::lt(b, a),
                    BinaryOp::Ge => Constraint::le(b, a),
                    BinaryOp::Eq => Constraint::eq(a, b),
                    _ => Constraint::ne(a, b),
                }]
            }
            _ => Vec::new(),
        }
    }

    fn access(
        &mut self,
        site: AccessKey,
        array: Handle<Array>,
        write: bool,
        atomic: bool,
        index: Vec<Val>,
        span: Span,
    ) {
        if !matches!(self.k.arrays.get(array).kind, ArrayKind::Shared { .. }) {
            return;
        }
        let key = (site, write);
        let id = *self.access_ids.entry(key).or_insert_with(|| {
            self.next_access += 1;
            self.next_access
        });
        let acc = Rc::new(Access {
            id,
            array,
            write,
            atomic,
            unsafe_: self.unsafe_depth > 0,
            index,
            guards: self.guards.clone(),
            path: self.path.clone(),
            span,
        });
        self.pending_new.push(acc);
    }
}

impl Walker<'_> {
    /// Checks the accesses the last evaluations made against the pending ones, then adds them.
    fn flush(&mut self, pend: &mut Pend) {
        let new = std::mem::take(&mut self.pending_new);
        for acc in new {
            let mut against: Vec<Pending> = pend.items.clone();
            against.extend(self.returned.items.iter().cloned());
            for p in &against {
                self.check_pair(p, &acc);
            }
            // Two threads running this very access.
            if acc.write {
                let me = Pending {
                    acc: acc.clone(),
                    carried: BTreeSet::new(),
                };
                self.check_pair(&me, &acc);
            }
            pend.items
                .retain(|p| !(p.acc.id == acc.id && p.carried.is_empty()));
            pend.items.push(Pending {
                acc,
                carried: BTreeSet::new(),
            });
        }
    }

    fn block(&mut self, b: &Block, key: BlockKey, pend: &mut Pend) {
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

    fn set_local(&mut self, l: Handle<Local>, v: Val, span: Span) {
        let _ = span;
        self.env[l.index()] = Some(v);
    }

    fn stmt(&mut self, s: &Stmt, span: Span, pend: &mut Pend) {
        let here = self.current_stmt();
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
                            Some(_) => {
                                // Recompute through the binary rules with the old value.
                                let old = self.env[l.index()].clone();
                                match (op, old) {
                                    (Some(BinaryOp::Add), Some(o))
                                        if self.types.local(*l).is_int() =>
                                    {
                                        Val {
                                            aff: o.aff.add(&v.aff),
                                            exact: o.exact && v.exact,
                                        }
                                    }
                                    _ => {
                                        let pt = self.per_thread(&v)
                                            || self.env[l.index()]
                                                .as_ref()
                                                .is_none_or(|o| self.per_thread(o));
                                        let sy = self.sym(
                                            SymKey::Compound(here, pt),
                                            pt,
                                            self.types.local(*l).is_unsigned_int(),
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
            Stmt::Eval(e) => {
                let _ = self.eval(*e);
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
            Stmt::Barrier { .. } => {
                self.flush(pend);
                pend.items.clear();
            }
            Stmt::Fence(_) => {}
            Stmt::Return | Stmt::Panic { .. } => {
                self.returned.union(pend);
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
            }
            Stmt::Loop { kind, body, .. } => self.loop_stmt(s, kind, body, pend),
        }
    }

    fn loop_target(&self, label: Option<Handle<Label>>) -> StmtId {
        match label {
            None => self.loops.last().copied().unwrap_or(StmtId::UNNUMBERED),
            Some(l) => self
                .label_loops
                .get(&l)
                .copied()
                .unwrap_or(StmtId::UNNUMBERED),
        }
    }

    fn loop_stmt(&mut self, s: &Stmt, kind: &LoopKind, body: &Block, pend: &mut Pend) {
        let id = self.current_stmt();
        self.loop_stmts.insert(id);
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
        let entry = pend.clone();
        let mut head = entry.clone();
        self.loops.push(id);
        for round in 0..12 {
            // Variables assigned in the loop hold one symbol per loop at its head.
            for l in &assigned {
                let uniform = head_uniform
                    .as_ref()
                    .and_then(|h| h.get(l.index()).copied())
                    .unwrap_or(false);
                let sy = self.sym(
                    SymKey::LoopHead(id, *l, !uniform),
                    !uniform,
                    self.types.local(*l).is_unsigned_int(),
                    SymKind::Other,
                );
                self.env[l.index()] = Some(Val {
                    aff: Affine::var(sy),
                    exact: true,
                });
            }
            let depth = self.guards.len();
            if let (
                LoopKind::For {
                    var,
                    distribution,
                    step,
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
                let value = match distribution {
                    Distribution::Sequential | Distribution::BlocksInGrid => {
                        let sy = self.sym(
                            SymKey::LoopCounter(id, !range_uniform),
                            !range_uniform,
                            nonneg,
                            SymKind::Other,
                        );
                        Affine::var(sy)
                    }
                    Distribution::ThreadsInBlock | Distribution::ThreadsInGrid => {
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
                if st.exact && en.exact {
                    self.guards.push(Constraint::le(&st.aff, &value));
                    self.guards.push(Constraint::lt(&value, &en.aff));
                }
                self.env[var.index()] = Some(Val {
                    aff: value,
                    exact: true,
                });
            }
            let mut cur = head.clone();
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
            let mut back = cur.clone();
            if let Some(c) = self.continues.get(&id) {
                back.union(c);
            }
            if let Some(b) = self.breaks.get(&id) {
                // Threads that broke out stay in the phase while the others go on.
                back.union(b);
            }
            let mut new_head = entry.clone();
            new_head.union(&back.carry(id));
            new_head.refresh(&back);
            let stable = new_head.keys() == head.keys();
            head = new_head;
            if stable && round > 0 {
                break;
            }
        }
        self.loops.pop();
        let mut after = head;
        if let Some(b) = self.breaks.get(&id) {
            after.union(b);
        }
        // Outside the loop, "an earlier iteration of it" is just "earlier".
        let mut stripped = Pend::default();
        for mut p in after.items {
            p.carried.remove(&id);
            stripped.union(&Pend { items: vec![p] });
        }
        let after = stripped;
        // After the loop, its variables hold values of some iteration.
        for l in &assigned {
            let uniform = head_uniform
                .as_ref()
                .and_then(|h| h.get(l.index()).copied())
                .unwrap_or(false);
            let sy = self.sym(
                SymKey::LoopExit(id, *l, !uniform),
                !uniform,
                self.types.local(*l).is_unsigned_int(),
                SymKind::Other,
            );
            self.env[l.index()] = Some(Val {
                aff: Affine::var(sy),
                exact: true,
            });
        }
        *pend = after;
    }

    /// Instantiates a symbol for one of the two threads of a pair.
    fn var_of(syms: &[SymInfo], s: Var, first: bool, carried: &BTreeSet<StmtId>) -> Var {
        let info = &syms[s as usize];
        let renamed =
            info.per_thread || (first && info.defined_in.iter().any(|l| carried.contains(l)));
        if renamed && first {
            2 * s + 1
        } else {
            2 * s
        }
    }

    fn check_pair(&mut self, p: &Pending, x: &Rc<Access>) {
        let a = &p.acc;
        if a.array != x.array
            || !(a.write || x.write)
            || (a.atomic && x.atomic)
            || a.unsafe_
            || x.unsafe_
        {
            return;
        }
        if self.seen.contains(&(a.id, x.id)) {
            return;
        }
        let ArrayKind::Shared { dims, dynamic, .. } = &self.k.arrays.get(x.array).kind else {
            return;
        };
        // A dynamic array's length is the launch's: unbounded here.
        let dims = if *dynamic {
            vec![u64::MAX]
        } else {
            dims.clone()
        };
        let carried = &p.carried;
        let syms = self.syms.clone();
        let fa = |s: Var| Self::var_of(&syms, s, true, carried);
        let fx = |s: Var| Self::var_of(&syms, s, false, carried);
        let mut cs: Vec<Constraint> = Vec::new();
        cs.extend(a.guards.iter().map(|c| c.map_vars(&fa)));
        cs.extend(x.guards.iter().map(|c| c.map_vars(&fx)));
        for (d, (ia, ix)) in a.index.iter().zip(&x.index).enumerate() {
            let (ia, ix) = (ia.aff.map_vars(&fa), ix.aff.map_vars(&fx));
            let len = i128::from(dims.get(d).copied().unwrap_or(u64::MAX).min(u64::MAX >> 1));
            for i in [&ia, &ix] {
                cs.push(Constraint::le(&Affine::constant(0), i));
                cs.push(Constraint::lt(i, &Affine::constant(len)));
            }
            cs.push(Constraint::eq(&ia, &ix));
        }
        // Bounds of the symbols in play.
        let mut vars: BTreeSet<Var> = BTreeSet::new();
        for c in &cs {
            let aff = match c {
                Constraint::Eq(a) | Constraint::Ge(a) | Constraint::Ne(a) => a,
            };
            vars.extend(aff.terms.keys().copied());
        }
        let mut extra = Vec::new();
        let mut tid_vars = [[None; 3]; 2];
        let mut dist_pairs: BTreeMap<Var, [Option<Var>; 2]> = BTreeMap::new();
        let mut pending_vars: Vec<Var> = vars.iter().copied().collect();
        let mut done: BTreeSet<Var> = BTreeSet::new();
        while let Some(v) = pending_vars.pop() {
            if !done.insert(v) {
                continue;
            }
            let s = v / 2;
            let inst = (v % 2) as usize; // 1: first thread's renamed copy
            let info = self.syms[s as usize].clone();
            if info.nonneg {
                extra.push(Constraint::le(&Affine::constant(0), &Affine::var(v)));
            }
            match info.kind {
                SymKind::Tid(axis) => {
                    let bd = 2 * self.bdim_sym(axis);
                    extra.push(Constraint::lt(&Affine::var(v), &Affine::var(bd)));
                    extra.push(Constraint::lt(&Affine::var(v), &Affine::constant(1024)));
                    pending_vars.push(bd);
                    tid_vars[inst][axis] = Some(v);
                }
                SymKind::BlockDim(_) => {
                    extra.push(Constraint::le(&Affine::constant(1), &Affine::var(v)));
                    extra.push(Constraint::le(&Affine::var(v), &Affine::constant(1024)));
                }
                SymKind::Dist => {
                    let tx = 2 * self.tid_sym(0) + inst as Var;
                    extra.push(Constraint::le(&Affine::var(tx), &Affine::var(v)));
                    pending_vars.push(tx);
                    dist_pairs.entry(s).or_default()[inst] = Some(v);
                }
                SymKind::Other => {}
            }
        }
        cs.extend(extra);
        // The two threads differ in at least one used axis.
        let mut any = false;
        let mut witness_cs = None;
        for axis in 0..self.rank {
            let t1 = 2 * self.tid_sym(axis) + 1;
            let t2 = 2 * self.tid_sym(axis);
            let mut case = cs.clone();
            for v in [t1, t2] {
                case.push(Constraint::le(&Affine::constant(0), &Affine::var(v)));
                case.push(Constraint::lt(
                    &Affine::var(v),
                    &Affine::var(2 * self.bdim_sym(axis)),
                ));
            }
            case.push(Constraint::ne(&Affine::var(t1), &Affine::var(t2)));
            if axis == 0 {
                for pair in dist_pairs.values() {
                    if let [Some(d1), Some(d2)] = pair {
                        case.push(Constraint::ne(&Affine::var(*d1), &Affine::var(*d2)));
                    }
                }
            }
            if affine::feasible(&case) {
                any = true;
                witness_cs = Some(case);
                break;
            }
        }
        let _ = tid_vars;
        if !any {
            return;
        }
        self.seen.insert((a.id, x.id));
        // A concrete pair is only meaningful when every per-thread value in play is modelled
        // exactly (thread ids, strided-loop indices), not an opaque stand-in.
        let exact = a.index.iter().chain(&x.index).all(|v| {
            v.aff.terms.keys().all(|s| {
                let info = &self.syms[*s as usize];
                !info.per_thread || info.kind != SymKind::Other
            })
        });
        let witness = witness_cs
            .filter(|_| exact && self.witnesses)
            .and_then(|c| affine::witness(&c, 40, 200_000))
            .map(|vals| {
                let thread = |first: bool| {
                    let mut t = [0i128; 3];
                    for (axis, slot) in t.iter_mut().enumerate() {
                        if let Some(s) = self.sym_keys.get(&SymKey::ThreadIdx(axis)) {
                            let v = 2 * *s + Var::from(first);
                            *slot = vals.get(&v).copied().unwrap_or(0);
                        }
                    }
                    t
                };
                let element = x
                    .index
                    .iter()
                    .map(|i| i.aff.map_vars(&fx).eval(&vals))
                    .collect();
                let mut block_dim = [1i128; 3];
                for (axis, slot) in block_dim.iter_mut().enumerate() {
                    if let Some(v) = vals.get(&(2 * self.bdim_sym(axis))) {
                        *slot = *v;
                    }
                }
                Witness {
                    first_thread: thread(true),
                    second_thread: thread(false),
                    element,
                    block_dim,
                }
            });
        let kind = match (a.write, x.write) {
            (true, false) => HazardKind::ReadAfterWrite,
            (false, true) => HazardKind::WriteAfterRead,
            _ => HazardKind::WriteAfterWrite,
        };
        // Two threads running one access in one phase: no barrier between them can exist.
        let same_site = a.id == x.id && carried.is_empty();
        let fix = if same_site {
            None
        } else {
            self.fix_point(a, carried, x)
        };
        self.found.push(Hazard {
            array: x.array,
            first: AccessSite {
                span: a.span,
                write: a.write,
                atomic: a.atomic,
            },
            second: AccessSite {
                span: x.span,
                write: x.write,
                atomic: x.atomic,
            },
            kind,
            loop_carried: !carried.is_empty(),
            witness,
            fix,
            same_site,
        });
    }

    fn tid_sym(&self, axis: usize) -> Var {
        self.sym_keys
            .get(&SymKey::ThreadIdx(axis))
            .copied()
            .unwrap_or(u32::MAX / 4)
    }

    fn bdim_sym(&self, axis: usize) -> Var {
        self.sym_keys
            .get(&SymKey::BlockDim(axis))
            .copied()
            .unwrap_or(u32::MAX / 4 - 1)
    }

    /// Where one barrier orders the pair: a point before `x` on every path from `a`, where
    /// control flow is uniform. Of those, the one inside the fewest loops (a barrier hoisted out
    /// of a loop that does not need it runs once instead of every iteration), then the latest.
    fn fix_point(&self, a: &Access, carried: &BTreeSet<StmtId>, x: &Access) -> Option<InsertPoint> {
        let mut best: Option<(usize, usize)> = None; // (loop depth, level)
        for level in (0..x.path.len()).rev() {
            let (block, index, stmt) = x.path[level];
            if !self.uni_uniform(stmt) {
                continue;
            }
            let valid = if carried.is_empty() {
                // `a` must come earlier in program order, outside the statement at `level`.
                let common = a
                    .path
                    .iter()
                    .zip(&x.path)
                    .take_while(|(p, q)| p == q)
                    .count();
                if common > level {
                    false
                } else if common == level {
                    a.path
                        .get(level)
                        .is_some_and(|p| p.0 == block && p.1 < index)
                } else {
                    // They part in an enclosing block: `a`'s statement comes first there.
                    match (a.path.get(common), x.path.get(common)) {
                        (Some(p), Some(q)) => p.0 == q.0 && p.1 < q.1,
                        _ => false,
                    }
                }
            } else {
                // A barrier inside the body of a loop `a` was carried across, on `x`'s path.
                x.path[..level].iter().any(|(_, _, s)| carried.contains(s))
            };
            if valid {
                let depth = x.path[..level]
                    .iter()
                    .filter(|(_, _, s)| self.is_loop(*s))
                    .count();
                if best.is_none_or(|(d, _)| depth < d) {
                    best = Some((depth, level));
                }
            }
        }
        best.map(|(_, level)| {
            let stmt = x.path[level].2;
            InsertPoint {
                stmt,
                before: self.stmt_span(stmt),
            }
        })
    }

    /// The statement being walked.
    fn current_stmt(&self) -> StmtId {
        self.path.last().map_or(StmtId::UNNUMBERED, |p| p.2)
    }

    fn is_loop(&self, stmt: StmtId) -> bool {
        self.loop_stmts.contains(&stmt)
    }

    fn uni_uniform(&self, stmt: StmtId) -> bool {
        matches!(self.uni.cf.get(&stmt), Some(None))
    }

    fn stmt_span(&self, stmt: StmtId) -> Span {
        visit::stmt_span(&self.k.body, stmt).unwrap_or(self.k.name_span)
    }
}

/// Locals assigned anywhere in a block (loop bodies: their values change between iterations).
fn assigned_locals(b: &Block) -> Vec<Handle<Local>> {
    let mut out = Vec::new();
    fn walk(b: &Block, out: &mut Vec<Handle<Local>>) {
        for s in &b.stmts {
            match s {
                Stmt::Assign {
                    place: Place::Local(l),
                    ..
                } => out.push(*l),
                Stmt::Atomic {
                    result: Some(l), ..
                }
                | Stmt::Warp {
                    result: Some(l), ..
                } => out.push(*l),
                Stmt::Let { local, .. } => out.push(*local),
                Stmt::If { accept, reject, .. } => {
                    walk(accept, out);
                    walk(reject, out);
                }
                Stmt::Loop { kind, body, .. } => {
                    if let LoopKind::For { var, .. } = kind {
                        out.push(*var);
                    }
                    walk(body, out);
                }
                Stmt::Block(body) => walk(body, out),
                _ => {}
            }
        }
    }
    walk(b, &mut out);
    out.sort_by_key(|h| h.index());
    out.dedup();
    out
}
