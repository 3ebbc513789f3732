//! Pairs: whether two accesses of two different threads can reach one element in one phase,
//! a witness pair of threads, and the place where one barrier would separate them.

use super::walker::*;
use super::{AccessSite, Hazard, HazardKind, InsertPoint, Witness};
use crate::analysis::affine::{self, Affine, Constraint, Var};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// At most this many factors of products are enumerated in one pair (each takes up to
/// 65 values).
const MAX_ENUMERATED_FACTORS: usize = 2;

/// A remainder with fewer values than this (`x % 2`, `x % 4`) is enumerated in a pair ...
const MAX_SMALL_VALUES: i128 = 4;
/// ... up to this many remainders in one pair.
const MAX_SMALL_SYMBOLS: usize = 3;

/// A symbol of a few values, with its least and greatest (a remainder by a small constant,
/// a short loop's counter): a pair tries each value in turn.
type Small = (Var, i128, i128);

/// A product symbol of one of the two threads: `var == factor * of`.
pub(super) struct Product {
    var: Var,
    factor: Var,
    of: Affine,
}

/// `cs` with factor `f` fixed to `value`, and so every product of it defined (linear).
fn fixing(cs: &[Constraint], products: &[Product], f: Var, value: i128) -> Vec<Constraint> {
    let mut case = cs.to_vec();
    case.push(Constraint::eq(&Affine::var(f), &Affine::constant(value)));
    for p in products.iter().filter(|p| p.factor == f) {
        case.push(Constraint::eq(&Affine::var(p.var), &p.of.scale(value)));
    }
    case
}

impl Walker<'_> {
    /// Instantiates a symbol for one of the two threads of a pair.
    pub(super) fn var_of(syms: &[SymInfo], s: Var, first: bool, carried: &BTreeSet<StmtId>) -> Var {
        let info = &syms[s as usize];
        let renamed =
            info.per_thread || (first && info.defined_in.iter().any(|l| carried.contains(l)));
        if renamed && first {
            2 * s + 1
        } else {
            2 * s
        }
    }

    pub(super) fn check_pair(&mut self, p: &Pending, x: &Rc<Access>) {
        let a = &p.acc;
        if a.array != x.array
            || !(a.write || x.write)
            || (a.atomic && x.atomic)
            || (!self.ordering && (a.unsafe_ || x.unsafe_))
        {
            return;
        }
        if self.seen.contains(&(a.id, x.id)) {
            return;
        }
        // A dynamic shared array's length is the launch's, a slice's the caller's: unbounded.
        let dims = match &self.k.arrays.get(x.array).kind {
            ArrayKind::Shared {
                dims,
                dynamic: false,
                ..
            } => dims.clone(),
            ArrayKind::Shared { dynamic: true, .. } | ArrayKind::Global { mutable: true } => {
                vec![u64::MAX]
            }
            ArrayKind::Global { mutable: false } | ArrayKind::Local { .. } => return,
        };
        let carried = &p.carried;
        let syms = self.syms.clone();
        let fa = |s: Var| Self::var_of(&syms, s, true, carried);
        let fx = |s: Var| Self::var_of(&syms, s, false, carried);
        let mut cs: Vec<Constraint> = Vec::new();
        cs.extend(a.guards.iter().map(|c| c.map_vars(&fa)));
        cs.extend(p.exit.iter().map(|c| c.map_vars(&fa)));
        cs.extend(x.guards.iter().map(|c| c.map_vars(&fx)));
        // A copy still in flight from `laps` iterations ago of a loop, past a barrier since:
        // every thread was in the copy's iteration when it passed the barrier, so the copy's
        // counter is this one's less `laps` steps (for a loop not inside another one it is
        // carried across, whose new run counts again).
        // So too for a copy from the previous iteration with no barrier since, issued after a
        // barrier of the loop's own body: every thread had reached that barrier before the
        // copy, and none has passed the next iteration's, so this access is in the next
        // iteration (a pipeline that refills a stage right after its barrier and reads the
        // next stage before the following one).
        if p.in_flight.is_some() {
            for l in carried {
                let Some(cnt) = self.counter_steps.get(l) else {
                    continue;
                };
                let laps = p.laps.get(l).copied().unwrap_or(0);
                let after_barrier = self.first_barrier.get(l).is_some_and(|b| {
                    a.path
                        .iter()
                        .any(|(key, pos, _)| *key == BlockKey::In(*l, 0) && pos > b)
                });
                let known = if p.synced {
                    (1..super::walker::LAPS_KNOWN).contains(&laps)
                } else {
                    laps == 1 && after_barrier
                };
                if known && cnt.uniform && !cnt.enclosing.iter().any(|m| carried.contains(m)) {
                    let (before, now) = (Affine::var(fa(cnt.sym)), Affine::var(fx(cnt.sym)));
                    cs.push(Constraint::eq(
                        &before.add(&Affine::constant(cnt.step * i128::from(laps))),
                        &now,
                    ));
                }
            }
        }
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
        let mut products: Vec<Product> = Vec::new();
        let mut done: BTreeSet<Var> = BTreeSet::new();
        while let Some(v) = pending_vars.pop() {
            if !done.insert(v) {
                continue;
            }
            let s = v / 2;
            let inst = (v % 2) as usize; // 1: first thread's renamed copy
            let info = self.syms[s as usize].clone();
            if let Some((f, x)) = &info.product {
                let map = |w: Var| Self::var_of(&syms, w, inst == 1, carried);
                let (f, x) = (map(*f), x.map_vars(&map));
                pending_vars.push(f);
                pending_vars.extend(x.terms.keys().copied());
                products.push(Product {
                    var: v,
                    factor: f,
                    of: x,
                });
            }
            if info.nonneg {
                extra.push(Constraint::le(&Affine::constant(0), &Affine::var(v)));
            }
            // Facts over the same thread's symbols (a quotient's definition).
            for f in &info.facts {
                let f = f.map_vars(&|w| Self::var_of(&syms, w, inst == 1, carried));
                let fv = match &f {
                    Constraint::Eq(a) | Constraint::Ge(a) | Constraint::Ne(a) => a,
                };
                pending_vars.extend(fv.terms.keys().copied());
                extra.push(f);
            }
            match info.kind {
                SymKind::Tid(axis) => {
                    let bd = 2 * self.bdim_sym(axis);
                    extra.push(Constraint::lt(&Affine::var(v), &Affine::var(bd)));
                    extra.push(Constraint::lt(
                        &Affine::var(v),
                        &Affine::constant(i128::from(MAX_BLOCK_THREADS)),
                    ));
                    pending_vars.push(bd);
                    tid_vars[inst][axis] = Some(v);
                }
                SymKind::BlockDim(axis) => extra.extend(self.extent_bounds(axis)),
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
            case.extend(self.extent_bounds(axis));
            if axis == 0 {
                for pair in dist_pairs.values() {
                    if let [Some(d1), Some(d2)] = pair {
                        case.push(Constraint::ne(&Affine::var(*d1), &Affine::var(*d2)));
                    }
                }
            }
            if let Some(case) = self.feasible_case(case, &products, p.in_flight.is_some()) {
                any = true;
                witness_cs = Some(case);
                break;
            }
        }
        let _ = tid_vars;
        // A copy in flight also meets its own thread's accesses: the same thread, in one
        // iteration of each thread-distributed loop unless carried across it.
        let mut same_thread = false;
        if !any && p.in_flight.is_some() {
            let mut case = cs.clone();
            for axis in 0..3 {
                let (t1, t2) = (2 * self.tid_sym(axis) + 1, 2 * self.tid_sym(axis));
                case.push(Constraint::eq(&Affine::var(t1), &Affine::var(t2)));
                case.push(Constraint::le(&Affine::constant(0), &Affine::var(t2)));
                case.push(Constraint::lt(
                    &Affine::var(t2),
                    &Affine::var(2 * self.bdim_sym(axis)),
                ));
                case.extend(self.extent_bounds(axis));
            }
            // One thread's accesses carried across a sequential loop are from another of its
            // iterations (while no loop around that one is carried too: a new run of the loop
            // counts again): another value of the counter.
            for l in carried {
                let Some(cnt) = self.counter_steps.get(l) else {
                    continue;
                };
                if cnt.enclosing.iter().any(|m| carried.contains(m)) {
                    continue;
                }
                let (before, now) = (Affine::var(fa(cnt.sym)), Affine::var(fx(cnt.sym)));
                case.push(Constraint::ne(&before, &now));
            }
            for (s, pair) in &dist_pairs {
                if let [Some(d1), Some(d2)] = pair {
                    let across = self.sym_keys.iter().any(|(k, v)| {
                        *v == *s && matches!(k, SymKey::LoopIteration(l) if carried.contains(l))
                    });
                    let (d1, d2) = (Affine::var(*d1), Affine::var(*d2));
                    case.push(if across {
                        Constraint::ne(&d1, &d2)
                    } else {
                        Constraint::eq(&d1, &d2)
                    });
                }
            }
            if let Some(case) = self.feasible_case(case, &products, true) {
                any = true;
                same_thread = true;
                witness_cs = Some(case);
            }
        }
        if !any {
            return;
        }
        self.seen.insert((a.id, x.id));
        // A concrete pair is only meaningful when every per-thread value in play is modelled
        // exactly (thread ids, strided-loop indices), not an opaque stand-in.
        // The guards count too: a pair of threads that satisfies an opaque stand-in for a
        // condition (both with "lane 0") need not be an execution.
        // Every product is defined once its factor is fixed: by the proof's enumeration, or,
        // for another factor, by the witness search below, which tries small values.
        let enumerated: BTreeSet<Var> = products.iter().map(|p| p.var / 2).collect();
        // (A uniform product, `block_idx().x * block_dim().x`, is one value for both threads,
        // like any uniform value: only per-thread ones, and those of another iteration, need
        // their factor fixed.)
        let mut free: Vec<Var> = products
            .iter()
            .filter(|p| {
                // (An odd instance is the first thread's renamed copy: another iteration's.)
                !self.enumerable(p.factor)
                    && (self.syms[(p.var / 2) as usize].per_thread || p.var % 2 == 1)
            })
            .map(|p| p.factor)
            .collect();
        free.sort();
        free.dedup();
        // A variable a loop updates, of an earlier iteration of a loop the pair is carried
        // across: the linear model knows nothing of how it got from that value to this one,
        // so a pair with it need not be an execution.
        // (Global memory only, where the pair decides whether the kernel is rejected.)
        let in_global = matches!(self.k.arrays.get(x.array).kind, ArrayKind::Global { .. });
        let earlier: BTreeSet<Var> = self
            .sym_keys
            .iter()
            .filter(|(k, v)| {
                in_global
                    && matches!(k, SymKey::LoopHead(..))
                    && self.syms[**v as usize]
                        .defined_in
                        .iter()
                        .any(|l| carried.contains(l))
            })
            .map(|(_, v)| *v)
            .collect();
        let modelled = |s: &Var| {
            if earlier.contains(s) {
                return false;
            }
            let info = &self.syms[*s as usize];
            // A quotient or remainder is defined exactly by its facts, a product once its
            // factor's value is fixed (and so is a quotient defined through one).
            let fixed =
                |w: &Var| self.syms[*w as usize].product.is_none() || enumerated.contains(w);
            let defined = info.facts.iter().all(|f| match f {
                Constraint::Eq(a) | Constraint::Ge(a) | Constraint::Ne(a) => {
                    a.terms.keys().all(fixed)
                }
            });
            if info.product.is_some() {
                enumerated.contains(s)
            } else if !info.facts.is_empty() {
                defined
            } else {
                !info.per_thread || info.kind != SymKind::Other
            }
        };
        let guard_terms = a.guards.iter().chain(&x.guards).flat_map(|c| match c {
            Constraint::Eq(f) | Constraint::Ge(f) | Constraint::Ne(f) => f.terms.keys(),
        });
        let exact = a
            .index
            .iter()
            .chain(&x.index)
            .flat_map(|v| v.aff.terms.keys())
            .chain(guard_terms)
            .all(modelled);
        // A pair through a product the proof left free is shown only in shared memory (in
        // global memory such a pair is the simulator's, below).
        let global = matches!(self.k.arrays.get(x.array).kind, ArrayKind::Global { .. });
        let search = self.witnesses && (free.is_empty() || !global);
        let witness = witness_cs
            .filter(|_| exact && search)
            .and_then(|c| {
                let budget = if free.is_empty() { 200_000 } else { 20_000 };
                Self::witness_fixing(&c, &products, &free, budget)
            })
            // `global_idx()`'s base is `block_idx * block_dim`, which the linear model keeps
            // as one symbol: a pair whose base is no multiple of the block's extent is no
            // execution, so it is not shown.
            .filter(|vals| {
                (0..3).all(|axis| {
                    let Some(base) = self.sym_keys.get(&SymKey::GlobalBase(axis)) else {
                        return true;
                    };
                    let bd = vals.get(&(2 * self.bdim_sym(axis))).copied().unwrap_or(1);
                    vals.get(&(2 * base))
                        .is_none_or(|b| *b >= 0 && bd > 0 && b % bd == 0)
                })
            })
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
        // Global memory: outside the ordering query, only what the proof decides exactly (and,
        // when reporting, can show with a pair of threads) is a hazard.
        // In global memory a pair that needs a value of such a factor (`out[tx + ty * cols]`
        // with `cols = 1`) is left to the simulator: the kernel is right for the sizes it is
        // launched with, as a data-dependent index may be.
        let decided = free.is_empty() && (witness.is_some() || (!self.witnesses && exact));
        if global && !self.ordering && !decided {
            self.seen.remove(&(a.id, x.id));
            return;
        }
        // Without a pair to show, name a per-thread index term the proof could not model.
        let unmodelled = if witness.is_none() {
            a.index
                .iter()
                .chain(&x.index)
                .flat_map(|v| v.aff.terms.keys())
                .filter_map(|s| {
                    let info = &self.syms[*s as usize];
                    info.per_thread.then_some(info.origin).flatten()
                })
                .map(|e| self.k.exprs.span(e))
                .next()
        } else {
            None
        };
        let kind = match (a.write, x.write) {
            (true, false) => HazardKind::ReadAfterWrite,
            (false, true) => HazardKind::WriteAfterRead,
            _ => HazardKind::WriteAfterWrite,
        };
        // Two threads running one access in one phase: no barrier between them can exist
        // (a copy in flight is landed by a wait instead).
        let same_site = a.id == x.id && carried.is_empty() && p.in_flight.is_none();
        let fix = if same_site {
            None
        } else {
            self.fix_point(a, carried, x, p.in_flight.is_some())
        };
        // What a wait at the fix point (or at the second access) must allow in flight.
        let in_flight = p.in_flight.map(|at_x| {
            let commits = match &fix {
                Some(f) => self.commits_at.get(&(f.stmt, a.id)).copied().unwrap_or(0),
                None => at_x,
            };
            super::InFlight {
                commits: commits.min(at_x),
                same_thread,
                wgmma: a.wgmma,
            }
        });
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
            same_statement: carried.is_empty() && a.path == x.path,
            unmodelled,
            in_flight,
        });
    }

    /// Whether the constraints, with the products `f * x` in them, may hold: the products of a
    /// factor that is zero or a power of two are decided exactly, by each value the factor
    /// can take (the system is linear once it is fixed); the others stay symbols of their own
    /// (a relaxation). The feasible case, for the witness search.
    fn feasible_case(
        &self,
        cs: Vec<Constraint>,
        products: &[Product],
        small_remainders: bool,
    ) -> Option<Vec<Constraint>> {
        let mut factors: Vec<Var> = products
            .iter()
            .map(|p| p.factor)
            .filter(|f| self.enumerable(*f))
            .collect();
        factors.sort();
        factors.dedup();
        // (Past the limit no factor is enumerated: the products stay symbols of their own.)
        let factors: &[Var] = if factors.len() > MAX_ENUMERATED_FACTORS {
            &[]
        } else {
            &factors
        };
        // A symbol of a few values (a remainder by a small constant, a pipeline's stage
        // `step % 2`; a counter of a short loop) takes each of them in turn: the relaxation
        // over the rationals cannot tell `step % 2` from `(step + 1) % 2`, one value at a time
        // the divisibility test can. For a copy in flight (`small_remainders`) first, before
        // the factors; elsewhere, where barriers separate the stages, only for a case that
        // still holds with the factors fixed (first, they doubled the GEMMs' proof times).
        if !affine::feasible(&cs) {
            return None;
        }
        // The remainders by small constants, and the counters of short loops.
        let (mut small, mut counters): (Vec<Small>, Vec<Small>) = (Vec::new(), Vec::new());
        for c in &cs {
            let (Constraint::Eq(f) | Constraint::Ge(f) | Constraint::Ne(f)) = c;
            for v in f.terms.keys() {
                let info = &self.syms[(*v / 2) as usize];
                let (list, values) = match (info.kind, info.range, info.counts) {
                    (SymKind::Other, Some(r), _) => (&mut small, r),
                    (SymKind::Other, None, Some(r)) => (&mut counters, r),
                    _ => continue,
                };
                let (lo, hi) = values;
                if hi - lo < MAX_SMALL_VALUES && !list.iter().any(|(w, ..)| w == v) {
                    list.push((*v, lo, hi));
                }
            }
        }
        small.truncate(MAX_SMALL_SYMBOLS);
        counters.truncate(MAX_SMALL_SYMBOLS);
        // Elsewhere, and for the counters of short loops (`for e in 0..2`, where the
        // relaxation merges `e1 - e0` in `-1..=1` and rounds nothing), each case that still
        // holds with the factors fixed tries them, as a last resort before it is a hazard: a
        // pair that holds stops at its first assignment that does; only one that holds for
        // none pays for them all.
        if small_remainders {
            // Each assignment that may hold, with the factors' values in turn (an assignment
            // that holds over the rationals with the products free may hold for no factor).
            Self::small_cases(cs, &small, &|case| {
                self.enumerate(case, products, factors, &counters)
            })
        } else {
            small.extend(counters);
            small.truncate(MAX_SMALL_SYMBOLS);
            self.enumerate(cs, products, factors, &small)
        }
    }

    /// `cs` (feasible) with each of `small` fixed to one of its values, for the first
    /// assignment that may hold; `None` when none may. Only whole assignments are tested: with
    /// some of the symbols still free, elimination must find the divisibility argument itself,
    /// which takes it far longer than the few cases it could prune.
    fn small_values(cs: Vec<Constraint>, small: &[Small]) -> Option<Vec<Constraint>> {
        if small.is_empty() {
            // (Nothing fixed: `cs` is what the caller found feasible.)
            return Some(cs);
        }
        Self::small_cases(cs, small, &Some)
    }

    /// `then` of the first whole assignment of `small` in `cs` that may hold and for which it
    /// gives a case.
    fn small_cases(
        cs: Vec<Constraint>,
        small: &[Small],
        then: &dyn Fn(Vec<Constraint>) -> Option<Vec<Constraint>>,
    ) -> Option<Vec<Constraint>> {
        let Some((&(v, lo, hi), rest)) = small.split_first() else {
            return if affine::feasible(&cs) {
                then(cs)
            } else {
                None
            };
        };
        (lo..=hi).find_map(|value| {
            let mut case = cs.clone();
            case.push(Constraint::eq(&Affine::var(v), &Affine::constant(value)));
            Self::small_cases(case, rest, then)
        })
    }

    fn enumerate(
        &self,
        cs: Vec<Constraint>,
        products: &[Product],
        factors: &[Var],
        small: &[Small],
    ) -> Option<Vec<Constraint>> {
        let Some((&f, rest)) = factors.split_first() else {
            return Self::small_values(cs, small);
        };
        let info = &self.syms[(f / 2) as usize];
        let zero = (!info.nonzero).then_some(0);
        let values = zero.into_iter().chain((0..info.pow2).map(|k| 1i128 << k));
        for value in values {
            let case = fixing(&cs, products, f, value);
            // Fixing one factor only removes solutions: an infeasible case stays infeasible
            // whatever the others are.
            if affine::feasible(&case) {
                if let Some(c) = self.enumerate(case, products, rest, small) {
                    return Some(c);
                }
            }
        }
        None
    }

    /// A solution of `cs` that is an execution: the factors of `free` (products the proof
    /// left as symbols of their own) take small values, each product its value by them.
    fn witness_fixing(
        cs: &[Constraint],
        products: &[Product],
        free: &[Var],
        budget: usize,
    ) -> Option<std::collections::BTreeMap<Var, i128>> {
        // (Fixed factors try several cases: a smaller budget for each.)
        let Some((&f, rest)) = free.split_first() else {
            return affine::witness(cs, 40, budget);
        };
        if free.len() > MAX_ENUMERATED_FACTORS {
            return None;
        }
        for value in [1, 2, 3, 4, 8, 16, 32, 0] {
            let case = fixing(cs, products, f, value);
            if affine::feasible(&case) {
                if let Some(w) = Self::witness_fixing(&case, products, rest, budget) {
                    return Some(w);
                }
            }
        }
        None
    }

    /// A product's factor whose values the pair check enumerates: zero or a power of two.
    fn enumerable(&self, f: Var) -> bool {
        self.syms[(f / 2) as usize].pow2 > 0
    }

    /// The block's extent on `axis`: exact where the kernel declares its shape, else at least
    /// one and at most `launch_bounds` (or 1024).
    fn extent_bounds(&self, axis: usize) -> Vec<Constraint> {
        let bd = Affine::var(2 * self.bdim_sym(axis));
        match self.k.options.block {
            Some(shape) => vec![Constraint::eq(
                &bd,
                &Affine::constant(i128::from(shape[axis])),
            )],
            None => {
                let most = self.k.options.launch_bounds.unwrap_or(MAX_BLOCK_THREADS);
                vec![
                    Constraint::le(&Affine::constant(1), &bd),
                    Constraint::le(&bd, &Affine::constant(i128::from(most))),
                ]
            }
        }
    }

    pub(super) fn tid_sym(&self, axis: usize) -> Var {
        self.sym_keys
            .get(&SymKey::ThreadIdx(axis))
            .copied()
            .unwrap_or(u32::MAX / 4)
    }

    pub(super) fn bdim_sym(&self, axis: usize) -> Var {
        self.sym_keys
            .get(&SymKey::BlockDim(axis))
            .copied()
            .unwrap_or(u32::MAX / 4 - 1)
    }

    /// Where one barrier orders the pair: a point before `x` on every path from `a`, where
    /// control flow is uniform. Of those, the one inside the fewest loops (a barrier hoisted out
    /// of a loop that does not need it runs once instead of every iteration), then the latest.
    /// For a copy in flight (`landing`), the latest: the wait placed there lets the most
    /// groups stay in flight, which is what keeps a pipeline's copies overlapping its work.
    pub(super) fn fix_point(
        &self,
        a: &Access,
        carried: &BTreeSet<StmtId>,
        x: &Access,
        landing: bool,
    ) -> Option<InsertPoint> {
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
                if landing {
                    // (Levels go from the innermost out: the first valid one is the latest.)
                    best = best.or(Some((depth, level)));
                } else if best.is_none_or(|(d, _)| depth < d) {
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
    pub(super) fn current_stmt(&self) -> StmtId {
        self.path.last().map_or(StmtId::UNNUMBERED, |p| p.2)
    }

    pub(super) fn is_loop(&self, stmt: StmtId) -> bool {
        self.loop_stmts.contains(&stmt)
    }

    pub(super) fn uni_uniform(&self, stmt: StmtId) -> bool {
        matches!(self.uni.cf.get(&stmt), Some(None))
    }

    pub(super) fn stmt_span(&self, stmt: StmtId) -> Span {
        visit::stmt_span(&self.k.body, stmt).unwrap_or(self.k.name_span)
    }
}
