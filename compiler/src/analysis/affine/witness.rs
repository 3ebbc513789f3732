//! Small integer solutions of constraint systems, for messages: the pair of threads and the
//! element a hazard report shows.
//!
//! Takes the constraints of a pair the proof could not separate; gives [`witness`], a bounded
//! search (plain, then guided by the equalities, then over what remains once the equalities
//! with a unit coefficient are solved). Guarantees: a solution it returns satisfies every
//! constraint; `None` proves nothing.

use super::*;

/// Looks for a small integer solution, for messages ("thread 1 and thread 0 collide").
/// Variables in `small` range over 0..=bound; the rest over -bound..=bound. `budget` is the
/// most search steps in all, shared by the three searches below: where no solution exists
/// (a pair the proof could not separate but that never collides), every step is spent.
pub fn witness(
    constraints: &[Constraint],
    bound: i128,
    budget: usize,
) -> Option<BTreeMap<Var, i128>> {
    let budget = budget / 3;
    let mut vars: Vec<Var> = constraints.iter().flat_map(|c| c.vars()).collect();
    vars.sort();
    vars.dedup();
    // First the plain search over small values (its witnesses read best); where it finds
    // none within its budget, the guided one.
    for guided in [false, true] {
        if guided {
            // Variables of equalities first: once some are chosen the equalities fix the
            // others, so a dead end shows before unrelated variables are enumerated.
            let in_eq = |v: &Var| {
                constraints
                    .iter()
                    .any(|c| matches!(c, Constraint::Eq(a) if a.terms.contains_key(v)))
            };
            vars.sort_by_key(|v| !in_eq(v));
        }
        let mut values = BTreeMap::new();
        let mut search = Search::new(constraints, &vars, bound, budget, guided);
        if search.run(0, &mut values) {
            return Some(values);
        }
    }
    // Last, the guided search over the variables that remain once the equalities with a unit
    // coefficient are solved (a chain of definitions, `p = 4 q`, `512 = p + r`, fixes most
    // variables from a few).
    let (solved, rest) = eliminate(constraints);
    let mut free: Vec<Var> = rest.iter().flat_map(|c| c.vars()).collect();
    free.sort();
    free.dedup();
    let mut values = BTreeMap::new();
    let mut search = Search::new(&rest, &free, bound, budget, true);
    if !search.run(0, &mut values) {
        return None;
    }
    for (v, by) in &solved {
        let x = by.eval(&values);
        values.insert(*v, x);
    }
    constraints
        .iter()
        .all(|c| c.holds(&values))
        .then_some(values)
}

/// Solves the equalities with a unit coefficient: each solved variable with its value over
/// the variables that remain (in no particular order), and the constraints left over them.
fn eliminate(constraints: &[Constraint]) -> (Vec<(Var, Affine)>, Vec<Constraint>) {
    let mut solved: Vec<(Var, Affine)> = Vec::new();
    let mut rest = constraints.to_vec();
    while let Some((i, v, k)) = rest.iter().enumerate().find_map(|(i, c)| match c {
        Constraint::Eq(a) => a
            .terms
            .iter()
            .find(|(_, k)| k.abs() == 1)
            .map(|(v, k)| (i, *v, *k)),
        _ => None,
    }) {
        let Constraint::Eq(a) = rest.swap_remove(i) else {
            break;
        };
        // k v + rest == 0, k = ±1: v = -k * rest.
        let mut others = a.clone();
        others.terms.remove(&v);
        let by = others.scale(-k);
        let sub = |c: &Constraint| match c {
            Constraint::Eq(x) => Constraint::Eq(x.substitute(v, &by)),
            Constraint::Ge(x) => Constraint::Ge(x.substitute(v, &by)),
            Constraint::Ne(x) => Constraint::Ne(x.substitute(v, &by)),
        };
        rest = rest.iter().map(sub).collect();
        for (_, b) in &mut solved {
            *b = b.substitute(v, &by);
        }
        solved.push((v, by));
    }
    (solved, rest)
}

/// A depth-first search for values of `vars` that satisfy `cs`. Plain: every variable takes
/// the values `0, 1, .., bound, -1, .., -bound`. Guided: a variable an equality fixes takes
/// that value, one the inequalities bound takes the values of its interval from its low end.
struct Search<'a> {
    cs: &'a [Constraint],
    vars: &'a [Var],
    bound: i128,
    steps: usize,
    budget: usize,
    guided: bool,
    /// `due[i]`: the constraints whose last variable (in `vars` order) is `vars[i - 1]`, so
    /// that `run(i)` checks just those (the others were checked higher up, or still have an
    /// unassigned variable); `due[0]` holds those without variables.
    due: Vec<Vec<usize>>,
    /// `mentions[i]`: the constraints over `vars[i]`, in order (what the guided search reads
    /// to choose its values).
    mentions: Vec<Vec<usize>>,
}

impl<'a> Search<'a> {
    fn new(
        cs: &'a [Constraint],
        vars: &'a [Var],
        bound: i128,
        budget: usize,
        guided: bool,
    ) -> Self {
        let pos: std::collections::HashMap<Var, usize> =
            vars.iter().enumerate().map(|(i, v)| (*v, i + 1)).collect();
        let mut due = vec![Vec::new(); vars.len() + 1];
        let mut mentions = vec![Vec::new(); vars.len()];
        for (ci, c) in cs.iter().enumerate() {
            for v in c.vars() {
                if let Some(p) = pos.get(&v) {
                    mentions[p - 1].push(ci);
                }
            }
            // A constraint over a variable outside `vars` is never fully assigned.
            let at = c
                .vars()
                .map(|v| pos.get(&v).copied())
                .try_fold(0, |m, p| p.map(|p| m.max(p)));
            if let Some(at) = at {
                due[at].push(ci);
            }
        }
        Search {
            cs,
            vars,
            bound,
            steps: 0,
            budget,
            guided,
            due,
            mentions,
        }
    }

    fn run(&mut self, i: usize, values: &mut BTreeMap<Var, i128>) -> bool {
        self.steps += 1;
        if self.steps > self.budget {
            return false;
        }
        // Check the constraints the last assignment completed.
        if self.due[i].iter().any(|&c| !self.cs[c].holds(values)) {
            return false;
        }
        let Some(&v) = self.vars.get(i) else {
            return true;
        };
        if !self.guided {
            // (The plain search's hot path: no candidate list is allocated.)
            let bound = self.bound;
            return self.try_each(i, v, (0..=bound).chain((1..=bound).map(|x| -x)), values);
        }
        match self.guided_candidates(i, values) {
            Some(c) => self.try_each(i, v, c.into_iter(), values),
            None => false,
        }
    }

    /// Tries each of `xs` for `v = vars[i]` and searches on.
    fn try_each(
        &mut self,
        i: usize,
        v: Var,
        xs: impl Iterator<Item = i128>,
        values: &mut BTreeMap<Var, i128>,
    ) -> bool {
        for x in xs {
            values.insert(v, x);
            if self.run(i + 1, values) {
                return true;
            }
        }
        values.remove(&v);
        false
    }

    fn small_values(&self) -> Vec<i128> {
        (0..=self.bound)
            .chain((1..=self.bound).map(|x| -x))
            .collect()
    }

    /// The values worth trying for `vars[i]` given the assigned ones; `None` when none can
    /// work.
    fn guided_candidates(&self, i: usize, values: &BTreeMap<Var, i128>) -> Option<Vec<i128>> {
        let v = self.vars[i];
        let over_v = || self.mentions[i].iter().map(|&c| &self.cs[c]);
        let assigned_but = |a: &Affine| a.terms.keys().all(|w| *w == v || values.contains_key(w));
        let rest_of =
            |a: &Affine, k: i128| a.eval(values) - k * values.get(&v).copied().unwrap_or(0);
        for c in over_v() {
            if let Constraint::Eq(a) = c {
                if let Some(&k) = a.terms.get(&v) {
                    if assigned_but(a) {
                        let rest = rest_of(a, k);
                        return (rest % k == 0).then(|| vec![-rest / k]);
                    }
                }
            }
        }
        let (mut lo, mut hi) = (None::<i128>, None::<i128>);
        for c in over_v() {
            if let Constraint::Ge(a) = c {
                let Some(&k) = a.terms.get(&v) else { continue };
                if !assigned_but(a) {
                    continue;
                }
                // k*v + rest >= 0
                let rest = rest_of(a, k);
                if k > 0 {
                    let b = (-rest).div_euclid(k) + i128::from((-rest).rem_euclid(k) != 0);
                    lo = Some(lo.map_or(b, |l| l.max(b)));
                } else {
                    let b = rest.div_euclid(-k);
                    hi = Some(hi.map_or(b, |h| h.min(b)));
                }
            }
        }
        let span = 2 * self.bound;
        Some(match (lo, hi) {
            (Some(l), h) => (l..=h.unwrap_or(l + span).min(l + span)).collect(),
            (None, Some(h)) => (h - span..=h).rev().collect(),
            (None, None) => self.small_values(),
        })
    }
}
