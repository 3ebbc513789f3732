//! Affine forms over integer variables, and a decision procedure for systems of linear
//! constraints over the integers.
//!
//! [`feasible`] answers "can these constraints hold at once?" soundly: `false` is a proof that
//! no integer solution exists; `true` means one may exist. Equalities with a unit coefficient
//! are solved exactly, the rest get a GCD test; inequalities go through Fourier–Motzkin
//! elimination with integer tightening (exact whenever the eliminated variable has unit
//! coefficients, which is the common case of thread ids and loop counters); disequalities are
//! split into `< 0 or > 0`. Past a size limit the procedure gives up and answers `true`.

mod witness;

pub use witness::witness;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A variable of a constraint system.
pub type Var = u32;

/// `c + Σ coeff·var`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Affine {
    /// Non-zero coefficients.
    pub terms: BTreeMap<Var, i128>,
    /// The constant.
    pub c: i128,
}

impl Affine {
    /// The constant `c`.
    pub fn constant(c: i128) -> Self {
        Affine {
            terms: BTreeMap::new(),
            c,
        }
    }
    /// The variable `v`.
    pub fn var(v: Var) -> Self {
        let mut terms = BTreeMap::new();
        terms.insert(v, 1);
        Affine { terms, c: 0 }
    }
    /// `self + other`.
    pub fn add(&self, other: &Affine) -> Affine {
        let mut r = self.clone();
        for (v, k) in &other.terms {
            let e = r.terms.entry(*v).or_insert(0);
            *e += k;
            if *e == 0 {
                r.terms.remove(v);
            }
        }
        r.c += other.c;
        r
    }
    /// `self * k`.
    pub fn scale(&self, k: i128) -> Affine {
        if k == 0 {
            return Affine::constant(0);
        }
        Affine {
            terms: self.terms.iter().map(|(v, c)| (*v, c * k)).collect(),
            c: self.c * k,
        }
    }
    /// `self - other`.
    pub fn sub(&self, other: &Affine) -> Affine {
        self.add(&other.scale(-1))
    }
    /// The value if there are no variables.
    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.c)
    }
    /// Renames variables.
    pub fn map_vars(&self, f: &impl Fn(Var) -> Var) -> Affine {
        let mut r = Affine::constant(self.c);
        for (v, k) in &self.terms {
            r = r.add(&Affine::var(f(*v)).scale(*k));
        }
        r
    }
    /// The value under an assignment (missing variables count as 0).
    pub fn eval(&self, values: &BTreeMap<Var, i128>) -> i128 {
        self.c
            + self
                .terms
                .iter()
                .map(|(v, k)| k * values.get(v).copied().unwrap_or(0))
                .sum::<i128>()
    }
    fn substitute(&self, v: Var, by: &Affine) -> Affine {
        match self.terms.get(&v) {
            None => self.clone(),
            Some(k) => {
                let mut r = self.clone();
                r.terms.remove(&v);
                r.add(&by.scale(*k))
            }
        }
    }
}

/// A linear constraint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Constraint {
    /// `form == 0`
    Eq(Affine),
    /// `form >= 0`
    Ge(Affine),
    /// `form != 0`
    Ne(Affine),
}

impl Constraint {
    /// `a < b`
    pub fn lt(a: &Affine, b: &Affine) -> Constraint {
        Constraint::Ge(b.sub(a).add(&Affine::constant(-1)))
    }
    /// `a <= b`
    pub fn le(a: &Affine, b: &Affine) -> Constraint {
        Constraint::Ge(b.sub(a))
    }
    /// `a == b`
    pub fn eq(a: &Affine, b: &Affine) -> Constraint {
        Constraint::Eq(a.sub(b))
    }
    /// `a != b`
    pub fn ne(a: &Affine, b: &Affine) -> Constraint {
        Constraint::Ne(a.sub(b))
    }
    /// Renames variables.
    pub fn map_vars(&self, f: &impl Fn(Var) -> Var) -> Constraint {
        match self {
            Constraint::Eq(a) => Constraint::Eq(a.map_vars(f)),
            Constraint::Ge(a) => Constraint::Ge(a.map_vars(f)),
            Constraint::Ne(a) => Constraint::Ne(a.map_vars(f)),
        }
    }
    /// Whether the constraint holds under an assignment.
    pub fn holds(&self, values: &BTreeMap<Var, i128>) -> bool {
        match self {
            Constraint::Eq(a) => a.eval(values) == 0,
            Constraint::Ge(a) => a.eval(values) >= 0,
            Constraint::Ne(a) => a.eval(values) != 0,
        }
    }
    fn vars(&self) -> impl Iterator<Item = Var> + '_ {
        let a = match self {
            Constraint::Eq(a) | Constraint::Ge(a) | Constraint::Ne(a) => a,
        };
        a.terms.keys().copied()
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

const MAX_INEQUALITIES: usize = 4000;
/// Answers kept by [`feasible`] (then forgotten all at once).
const MAX_ANSWERS: usize = 50_000;
const MAX_SPLITS: usize = 8;

/// Whether the constraints may have a common integer solution (`false` is a proof that they
/// have none).
pub fn feasible(constraints: &[Constraint]) -> bool {
    // The analyses ask the same question many times (each round of a loop's fixpoint, each
    // query of the barrier passes, each value of an enumerated factor): answers are kept per
    // thread, by the constraints.
    thread_local! {
        static ANSWERS: RefCell<HashMap<Vec<Constraint>, bool>> = RefCell::default();
    }
    let mut key = constraints.to_vec();
    key.sort();
    key.dedup();
    if let Some(known) = ANSWERS.with(|a| a.borrow().get(&key).copied()) {
        return known;
    }
    let answer = bounds_allow(&key) && split(key.clone(), 0);
    ANSWERS.with(|a| {
        let mut a = a.borrow_mut();
        if a.len() >= MAX_ANSWERS {
            a.clear();
        }
        a.insert(key, answer);
    });
    answer
}

/// Rounds of [`bounds_allow`]'s propagation.
const BOUND_ROUNDS: usize = 12;

/// Interval propagation over the integers: each constraint bounds each of its variables by
/// the others' bounds (rounded inwards), a few rounds over all. `false` is a proof that the
/// constraints have no common integer solution (some constraint cannot hold within the
/// bounds). A cheap test before elimination: an index `640 * stage + r` with `r` in
/// `0..640` against one with another stage is decided here, where elimination of the
/// definitions of `r`'s parts may grow past its limit.
fn bounds_allow(cs: &[Constraint]) -> bool {
    // Every constraint as forms `>= 0` (an equality as two).
    let mut all: Vec<Affine> = Vec::new();
    for c in cs {
        match c {
            Constraint::Eq(a) => {
                all.push(a.clone());
                all.push(a.scale(-1));
            }
            Constraint::Ge(a) => all.push(a.clone()),
            Constraint::Ne(_) => {}
        }
    }
    // Per variable: the least and the greatest value it may take, where known.
    let mut lo: HashMap<Var, i128> = HashMap::new();
    let mut hi: HashMap<Var, i128> = HashMap::new();
    // The greatest value of `k * v`, if bounded.
    let top = |lo: &HashMap<Var, i128>, hi: &HashMap<Var, i128>, v: Var, k: i128| {
        if k > 0 {
            hi.get(&v).and_then(|h| h.checked_mul(k))
        } else {
            lo.get(&v).and_then(|l| l.checked_mul(k))
        }
    };
    for _ in 0..BOUND_ROUNDS {
        let mut changed = false;
        for a in &all {
            // a = c + Σ k v >= 0.
            let tops: Vec<Option<i128>> =
                a.terms.iter().map(|(v, k)| top(&lo, &hi, *v, *k)).collect();
            let unbounded = tops.iter().filter(|t| t.is_none()).count();
            let sum: Option<i128> = tops
                .iter()
                .flatten()
                .try_fold(a.c, |acc, t| acc.checked_add(*t));
            let Some(sum) = sum else {
                continue;
            };
            if unbounded == 0 && sum < 0 {
                return false;
            }
            for ((v, k), t) in a.terms.iter().zip(&tops) {
                // k v >= -(the rest's greatest value).
                let rest = match (unbounded, t) {
                    (0, Some(t)) => sum - t,
                    (1, None) => sum,
                    _ => continue,
                };
                let need = -rest;
                if *k > 0 {
                    let b = need.div_euclid(*k) + i128::from(need.rem_euclid(*k) != 0);
                    if lo.get(v).is_none_or(|l| b > *l) {
                        lo.insert(*v, b);
                        changed = true;
                    }
                } else {
                    // k < 0: v <= need / k, rounded down (a Euclidean quotient by -k > 0).
                    let b = (-need).div_euclid(-*k);
                    if hi.get(v).is_none_or(|h| b < *h) {
                        hi.insert(*v, b);
                        changed = true;
                    }
                }
                if let (Some(l), Some(h)) = (lo.get(v), hi.get(v)) {
                    if l > h {
                        return false;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    true
}

fn split(mut cs: Vec<Constraint>, depth: usize) -> bool {
    if let Some(pos) = cs.iter().position(|c| matches!(c, Constraint::Ne(_))) {
        let Constraint::Ne(a) = cs.swap_remove(pos) else {
            return true;
        };
        if depth >= MAX_SPLITS {
            // Dropping a constraint only adds solutions: still sound.
            return split(cs, depth);
        }
        let mut below = cs.clone();
        below.push(Constraint::Ge(a.scale(-1).add(&Affine::constant(-1))));
        if split(below, depth + 1) {
            return true;
        }
        cs.push(Constraint::Ge(a.add(&Affine::constant(-1))));
        return split(cs, depth + 1);
    }
    let mut eqs = Vec::new();
    let mut ges = Vec::new();
    for c in cs {
        match c {
            Constraint::Eq(a) => eqs.push(a),
            Constraint::Ge(a) => ges.push(a),
            Constraint::Ne(_) => {}
        }
    }
    solve(eqs, ges)
}

fn solve(mut eqs: Vec<Affine>, mut ges: Vec<Affine>) -> bool {
    while let Some(e) = eqs.pop() {
        let g = e.terms.values().fold(0, |g, k| gcd(g, *k));
        if g == 0 {
            if e.c != 0 {
                return false;
            }
            continue;
        }
        if e.c % g != 0 {
            return false;
        }
        match solved(&e) {
            Some((v, by)) => {
                eqs = eqs.iter().map(|x| x.substitute(v, &by)).collect();
                ges = ges.iter().map(|x| x.substitute(v, &by)).collect();
            }
            None => {
                // No unit coefficient: keep the real relaxation (sound, maybe imprecise).
                ges.push(e.clone());
                ges.push(e.scale(-1));
            }
        }
    }
    fourier_motzkin(ges)
}

/// `a == 0` solved for a variable of coefficient 1 or -1: the variable and what it equals
/// (`v = -(a - k v) / k`, exact over the integers).
fn solved(a: &Affine) -> Option<(Var, Affine)> {
    let (&v, &k) = a.terms.iter().find(|(_, k)| k.abs() == 1)?;
    let mut rest = a.clone();
    rest.terms.remove(&v);
    Some((v, rest.scale(-k)))
}

fn normalize(a: &Affine) -> Option<Affine> {
    let g = a.terms.values().fold(0, |g, k| gcd(g, *k));
    if g == 0 {
        return None;
    }
    Some(Affine {
        terms: a.terms.iter().map(|(v, k)| (*v, k / g)).collect(),
        c: a.c.div_euclid(g),
    })
}

/// `xs` normalised, without duplicates; `Err` with the answer where that decides it: `false`
/// for a contradiction (`0 >= c` with `c < 0`), `true` past the limit.
fn normalized(xs: impl Iterator<Item = Affine>) -> Result<HashSet<Affine>, bool> {
    let mut set = HashSet::new();
    for x in xs {
        match normalize(&x) {
            None if x.c < 0 => return Err(false),
            None => {}
            Some(n) => {
                set.insert(n);
            }
        }
    }
    if set.len() > MAX_INEQUALITIES {
        return Err(true);
    }
    Ok(set)
}

fn fourier_motzkin(ges: Vec<Affine>) -> bool {
    // Each round's inequalities normalised, without duplicates, in order.
    let mut next = match normalized(ges.into_iter()) {
        Ok(set) => set,
        Err(answer) => return answer,
    };
    loop {
        let mut ges: Vec<Affine> = next.into_iter().collect();
        ges.sort();
        // An equality the inequalities imply (`a >= 0` and `-a >= 0`, as the integer
        // rounding of the normalisation often makes them) with a unit coefficient is solved
        // for that variable and substituted, exactly over the integers: each substitution
        // lets the next rounding bite (`-1 <= 2 x + y <= 1` with `y` in `-1..=1` makes
        // `2 x + y == 0`, so `y` is even, so 0), where eliminating the variable would lose it.
        // This separates the lanes of `128 * (l / 8) + 32 * e + l % 8` (copies along rows).
        if let Some((v, by)) = ges
            .iter()
            .filter(|a| ges.binary_search_by(|x| cmp_negated(x, a)).is_ok())
            .find_map(solved)
        {
            next = match normalized(ges.iter().map(|x| x.substitute(v, &by))) {
                Ok(set) => set,
                Err(answer) => return answer,
            };
            continue;
        }
        // Choose the variable with the fewest new constraints, preferring exact eliminations.
        let mut counts: BTreeMap<Var, (usize, usize, bool)> = BTreeMap::new();
        for a in &ges {
            for (v, k) in &a.terms {
                let e = counts.entry(*v).or_insert((0, 0, true));
                if *k > 0 {
                    e.0 += 1;
                } else {
                    e.1 += 1;
                }
                if k.abs() != 1 {
                    e.2 = false;
                }
            }
        }
        let Some((&v, _)) = counts
            .iter()
            .min_by_key(|(_, (p, n, exact))| (!exact, p * n))
        else {
            return true;
        };
        let (pos, rest): (Vec<Affine>, Vec<Affine>) = ges
            .into_iter()
            .partition(|a| a.terms.get(&v).is_some_and(|k| *k > 0));
        let (neg, keep): (Vec<Affine>, Vec<Affine>) =
            rest.into_iter().partition(|a| a.terms.contains_key(&v));
        // The next round: the inequalities without `v`, and each pair's combination without
        // it. Past the limit the answer is "may hold" unless a combination is a contradiction
        // (`0 >= c` with `c < 0`): from there on only that is looked for, without making the
        // combinations (the same answer as making them all, in a fraction of the time).
        next = keep.into_iter().collect();
        let mut over = next.len() > MAX_INEQUALITIES;
        for p in &pos {
            for n in &neg {
                let a = p.terms[&v];
                let b = -n.terms[&v];
                if over {
                    if contradiction(p, b, n, a) {
                        return false;
                    }
                    continue;
                }
                match combined(p, b, n, a) {
                    Err(c) if c < 0 => return false,
                    Err(_) => {}
                    Ok(x) => {
                        next.insert(x);
                        over = next.len() > MAX_INEQUALITIES;
                    }
                }
            }
        }
        if over {
            return true;
        }
    }
}

/// How `x` compares with `-a` (the derived order: the terms, then the constant), without
/// making `-a`.
fn cmp_negated(x: &Affine, a: &Affine) -> std::cmp::Ordering {
    x.terms
        .iter()
        .map(|(v, k)| (*v, *k))
        .cmp(a.terms.iter().map(|(v, k)| (*v, -*k)))
        .then(x.c.cmp(&-a.c))
}

/// `normalize(&p.scale(b).add(&n.scale(a)))` made at once (one merge of the two sorted term
/// lists, one map): `Err(c)` where every term cancels and the combination is the constant
/// `c`.
fn combined(p: &Affine, b: i128, n: &Affine, a: i128) -> Result<Affine, i128> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let mut terms: Vec<(Var, i128)> = Vec::with_capacity(p.terms.len() + n.terms.len());
    let (mut i, mut j) = (p.terms.iter().peekable(), n.terms.iter().peekable());
    loop {
        let (v, k) = match (i.peek(), j.peek()) {
            (Some(&(&v, &k)), Some(&(&w, &l))) => match v.cmp(&w) {
                Less => {
                    i.next();
                    (v, b * k)
                }
                Greater => {
                    j.next();
                    (w, a * l)
                }
                Equal => {
                    i.next();
                    j.next();
                    (v, b * k + a * l)
                }
            },
            (Some(&(&v, &k)), None) => {
                i.next();
                (v, b * k)
            }
            (None, Some(&(&w, &l))) => {
                j.next();
                (w, a * l)
            }
            (None, None) => break,
        };
        if k != 0 {
            terms.push((v, k));
        }
    }
    let c = b * p.c + a * n.c;
    let g = terms.iter().fold(0, |g, (_, k)| gcd(g, *k));
    if g == 0 {
        return Err(c);
    }
    Ok(Affine {
        terms: terms.into_iter().map(|(v, k)| (v, k / g)).collect(),
        c: c.div_euclid(g),
    })
}

/// Whether `b * p + a * n` is a constant below zero (`0 >= c`, `c < 0`), without making it.
fn contradiction(p: &Affine, b: i128, n: &Affine, a: i128) -> bool {
    if b * p.c + a * n.c >= 0 {
        return false;
    }
    // Every variable's coefficients cancel (each side's variables are the other's).
    p.terms.len() == n.terms.len()
        && p.terms
            .iter()
            .zip(&n.terms)
            .all(|((v, k), (w, l))| v == w && b * k + a * l == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: Var) -> Affine {
        Affine::var(x)
    }
    fn k(c: i128) -> Affine {
        Affine::constant(c)
    }

    #[test]
    fn tree_reduction_pair_is_infeasible() {
        // t1 < s, t2 < s, t1 = t2 + s, t1 >= 0, t2 >= 0
        let (t1, t2, s) = (v(0), v(1), v(2));
        let cs = vec![
            Constraint::lt(&t1, &s),
            Constraint::lt(&t2, &s),
            Constraint::eq(&t1, &t2.add(&s)),
            Constraint::le(&k(0), &t1),
            Constraint::le(&k(0), &t2),
        ];
        assert!(!feasible(&cs));
        // Without the guard on t1 the threads can collide.
        assert!(feasible(&cs[1..]));
    }

    #[test]
    fn parity_is_decided_over_the_integers() {
        // 2 t1 = 2 t2 + 1 has no integer solution.
        let cs = vec![Constraint::eq(&v(0).scale(2), &v(1).scale(2).add(&k(1)))];
        assert!(!feasible(&cs));
    }

    #[test]
    fn distinct_threads_with_the_same_index_are_infeasible() {
        let cs = vec![Constraint::eq(&v(0), &v(1)), Constraint::ne(&v(0), &v(1))];
        assert!(!feasible(&cs));
        let w = witness(
            &[
                Constraint::eq(&v(0), &v(1).add(&k(1))),
                Constraint::le(&k(0), &v(1)),
            ],
            8,
            10_000,
        );
        assert_eq!(w.map(|w| (w[&0], w[&1])), Some((1, 0)));
    }

    #[test]
    fn reverse_read_and_write_can_collide() {
        // write tile[t1], read tile[B - 1 - t2], t1 != t2, 0 <= t < B
        let (t1, t2, b) = (v(0), v(1), v(2));
        let cs = vec![
            Constraint::eq(&t1, &b.sub(&k(1)).sub(&t2)),
            Constraint::ne(&t1, &t2),
            Constraint::le(&k(0), &t1),
            Constraint::le(&k(0), &t2),
            Constraint::lt(&t1, &b),
            Constraint::lt(&t2, &b),
        ];
        assert!(feasible(&cs));
        assert!(witness(&cs, 8, 100_000).is_some());
    }
}
