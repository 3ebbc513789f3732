//! Values as affine forms: expressions evaluated to sums of symbols, conditions to linear
//! constraints, and shared-memory accesses recorded with their index, guards and place.

use super::walker::*;
use crate::analysis::affine::{Affine, Constraint, Var};
use crate::ir::*;
use std::rc::Rc;

impl Walker<'_> {
    /// The symbol for `key`, created on first use.
    pub(super) fn sym(
        &mut self,
        key: SymKey,
        per_thread: bool,
        nonneg: bool,
        kind: SymKind,
    ) -> Var {
        if let Some(s) = self.sym_keys.get(&key) {
            return *s;
        }
        let s = self.syms.len() as Var;
        self.syms.push(SymInfo {
            per_thread,
            defined_in: self.loops.clone(),
            kind,
            nonneg,
            facts: Vec::new(),
            origin: None,
            pow2: 0,
            nonzero: false,
            product: None,
            range: builtin_range(&key),
            counts: None,
        });
        self.sym_keys.insert(key, s);
        s
    }

    pub(super) fn global_sym(&mut self, key: SymKey, kind: SymKind, nonneg: bool) -> Var {
        let saved = std::mem::take(&mut self.loops);
        let s = self.sym(key, false, nonneg, kind);
        self.loops = saved;
        s
    }

    /// Whether `v as to` (of a `from`) is the same number as `v`: `to` holds every `from`
    /// (`u32 as i64`), or every value `v` can take (`thread_idx().x as i32`). A cast between
    /// signed and unsigned of one width keeps the form too: a value that changes sign in it
    /// is a negative index or one of at least 2^31, out of bounds either way (the proof's
    /// assumption that index arithmetic does not wrap). A narrowing cast of any other value
    /// (`t as u8`) wraps: the proof does not model it.
    pub(super) fn cast_keeps(&self, v: &Val, from: Scalar, to: Scalar) -> bool {
        let keeps_all = from
            .int_range()
            .is_some_and(|(lo, hi)| to.holds_int(lo) && to.holds_int(hi));
        if keeps_all || from.bits() == to.bits() {
            return true;
        }
        let (mut lo, mut hi) = (v.aff.c, v.aff.c);
        for (s, k) in &v.aff.terms {
            let Some((a, b)) = self.syms[*s as usize].range else {
                return false;
            };
            let (a, b) = (k * a, k * b);
            lo += a.min(b);
            hi += a.max(b);
        }
        to.holds_int(lo) && to.holds_int(hi)
    }

    pub(super) fn per_thread(&self, v: &Val) -> bool {
        v.aff
            .terms
            .keys()
            .any(|s| self.syms[*s as usize].per_thread)
    }

    /// A value the analysis does not model: a fresh symbol for this expression.
    pub(super) fn opaque(&mut self, e: Handle<Expr>, per_thread: bool) -> Val {
        let nonneg = self.types.expr(e).is_unsigned_int();
        let s = self.sym(
            SymKey::Opaque(e, per_thread),
            per_thread,
            nonneg,
            SymKind::Other,
        );
        self.syms[s as usize].origin = Some(e);
        Val {
            aff: Affine::var(s),
            exact: true,
        }
    }

    pub(super) fn tid(&mut self, axis: usize) -> Var {
        let s = self.global_sym(SymKey::ThreadIdx(axis), SymKind::Tid(axis), true);
        self.syms[s as usize].per_thread = true;
        s
    }

    pub(super) fn bdim(&mut self, axis: usize) -> Var {
        self.global_sym(SymKey::BlockDim(axis), SymKind::BlockDim(axis), true)
    }

    pub(super) fn eval(&mut self, e: Handle<Expr>) -> Val {
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
                    // A declared block shape is a constant of the kernel.
                    Builtin::BlockDim => match self.k.options.block {
                        Some(shape) => exact(Affine::constant(i128::from(shape[a]))),
                        None => exact(Affine::var(self.bdim(a))),
                    },
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
                    // In one-dimensional blocks (the launch checks it) a lane is `x % 32`.
                    Builtin::LaneId if self.rank == 1 => {
                        let tx = Val {
                            aff: Affine::var(self.tid(0)),
                            exact: true,
                        };
                        let (_, lane) = self.quotient(&tx, 32);
                        exact(Affine::var(lane))
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
                    // Memory other threads write: an access, and a value per thread.
                    ArrayKind::Shared { .. } | ArrayKind::Global { mutable: true } => {
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
                    ArrayKind::Local { .. } => self.opaque(e, true),
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
                if from.is_int() && to.is_int() && self.cast_keeps(&v, from, to) {
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
                match self.binary(OpSite::Expr(e), op, &l, &r, lt) {
                    Some(v) => v,
                    None => {
                        let pt = self.per_thread(&l) || self.per_thread(&r);
                        self.opaque(e, pt)
                    }
                }
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

    /// `l op r` of integer operands of type `t` as a form, where the rules model it: sums,
    /// differences, multiples, products with a uniform symbol, constant folding, quotients and
    /// remainders. `None`: the caller makes an opaque symbol.
    pub(super) fn binary(
        &mut self,
        site: OpSite,
        op: BinaryOp,
        l: &Val,
        r: &Val,
        t: Scalar,
    ) -> Option<Val> {
        if !t.is_int() {
            return None;
        }
        let both = l.exact && r.exact;
        match op {
            BinaryOp::Add => {
                return Some(Val {
                    aff: l.aff.add(&r.aff),
                    exact: both,
                })
            }
            BinaryOp::Sub => {
                return Some(Val {
                    aff: l.aff.sub(&r.aff),
                    exact: both && t.is_signed_int(),
                })
            }
            BinaryOp::Mul => {
                if let Some(c) = r.aff.as_constant() {
                    return Some(Val {
                        aff: l.aff.scale(c),
                        exact: l.exact,
                    });
                }
                if let Some(c) = l.aff.as_constant() {
                    return Some(Val {
                        aff: r.aff.scale(c),
                        exact: r.exact,
                    });
                }
                // A uniform `k * f + c0` times a form `x`: `c0 * x + k * (f * x)`.
                for (u, x) in [(l, r), (r, l)] {
                    if let Some((f, k, c0)) = self.single_uniform(u).filter(|_| u.exact) {
                        let p = self.product(f, &x.aff);
                        return Some(Val {
                            aff: x.aff.scale(c0).add(&Affine::var(p).scale(k)),
                            exact: both,
                        });
                    }
                }
            }
            BinaryOp::Shl => {
                if let Some(c) = r.aff.as_constant().filter(|c| (0..31).contains(c)) {
                    return Some(Val {
                        aff: l.aff.scale(1 << c),
                        exact: l.exact,
                    });
                }
                // `1 << k` (a power of two shifted by a symbol): zero or a power of two.
                if l.aff.as_constant().is_some_and(is_pow2) && t.is_unsigned_int() {
                    let pt = self.per_thread(r);
                    let s = self.sym(SymKey::Pow2Shift(site, pt), pt, true, SymKind::Other);
                    self.syms[s as usize].pow2 = t.bits();
                    // `1 << k` keeps its bit (the shift amount wraps, on both back ends).
                    self.syms[s as usize].nonzero = l.aff.as_constant() == Some(1);
                    return Some(Val {
                        aff: Affine::var(s),
                        exact: true,
                    });
                }
            }
            _ => {}
        }
        // Constants fold (`s[1024 / 2]` is `s[512]`).
        if let (Some(a), Some(b)) = (l.aff.as_constant(), r.aff.as_constant()) {
            if let Some(v) = fold(op, a, b, t) {
                return Some(Val {
                    aff: Affine::constant(v),
                    exact: both,
                });
            }
        }
        // A signed value that is never negative divides as an unsigned one (C's `int` ids).
        if !((t.is_unsigned_int() || self.nonneg(&l.aff)) && l.exact) {
            return None;
        }
        let remainder = matches!(op, BinaryOp::Rem | BinaryOp::BitAnd);
        // `x / c`, `x % c`, `x >> k`, `x & (2^k - 1)` of an unsigned `x`: a quotient `q` and a
        // remainder `r` with `x == c * q + r`, `0 <= r < c`.
        let divisor = match (op, r.aff.as_constant()) {
            (BinaryOp::Div | BinaryOp::Rem, Some(c)) if c > 0 => Some(c),
            (BinaryOp::Shr, Some(k)) if (0..63).contains(&k) => Some(1i128 << k),
            (BinaryOp::BitAnd, Some(m)) if m >= 0 && (m + 1) & m == 0 => Some(m + 1),
            _ => None,
        };
        if let Some(c) = divisor {
            let (q, rem) = self.quotient(l, c);
            return Some(Val {
                aff: Affine::var(if remainder { rem } else { q }),
                exact: true,
            });
        }
        // By a uniform multiple of a symbol, `k * f`: `x == f * (k * q) + r`, `0 <= r < k * f`.
        // Division by zero panics, so the symbol is nonzero where the value is used; a mask
        // `x & (f - 1)` is a remainder where `f` is a power of two the guards show nonzero.
        let by = match op {
            BinaryOp::Div | BinaryOp::Rem => self
                .single_uniform(r)
                .filter(|(f, k, c0)| r.exact && *k > 0 && *c0 == 0 && self.syms[*f as usize].nonneg)
                .map(|(f, k, _)| (f, k)),
            BinaryOp::BitAnd => self
                .single_uniform(r)
                .filter(|(f, k, c0)| {
                    *k == 1 && *c0 == -1 && self.syms[*f as usize].pow2 > 0 && self.nonzero(*f)
                })
                .map(|(f, _, _)| (f, 1)),
            _ => None,
        };
        let (f, k) = by?;
        let (q, rem) = self.quotient_by(site, l, f, k);
        Some(Val {
            aff: Affine::var(if remainder { rem } else { q }),
            exact: true,
        })
    }

    /// `u` as `k * f + c0` of one uniform symbol `f`, `k != 0` (callers check that it is exact
    /// or that it did not wrap around).
    fn single_uniform(&self, u: &Val) -> Option<(Var, i128, i128)> {
        if self.per_thread(u) || u.aff.terms.len() != 1 {
            return None;
        }
        let (&f, &k) = u.aff.terms.iter().next()?;
        Some((f, k, u.aff.c))
    }

    /// The symbol for `f * x`.
    fn product(&mut self, f: Var, x: &Affine) -> Var {
        let pt = x.terms.keys().any(|s| self.syms[*s as usize].per_thread);
        let p = self.sym(SymKey::Product(f, x.clone(), pt), pt, false, SymKind::Other);
        self.syms[p as usize].product = Some((f, x.clone()));
        p
    }

    /// Whether `a` is never negative: a sum of non-negative symbols with positive
    /// coefficients and a non-negative constant.
    fn nonneg(&self, a: &Affine) -> bool {
        a.c >= 0
            && a.terms
                .iter()
                .all(|(s, k)| *k > 0 && self.syms[*s as usize].nonneg)
    }

    /// Whether the guards in force show `f >= 1`.
    fn nonzero(&self, f: Var) -> bool {
        let mut cs = self.guards.clone();
        cs.push(Constraint::le(&Affine::var(f), &Affine::constant(0)));
        !crate::analysis::affine::feasible(&cs)
    }

    /// The quotient and remainder symbols of `x / c`: `x == c*q + r`, `0 <= r < c`, `q >= 0`
    /// (as facts of both, which every pair that meets one of them uses).
    fn quotient(&mut self, x: &Val, c: i128) -> (Var, Var) {
        let pt = self.per_thread(x);
        // Keyed by `x`'s form and `c`, wherever the division is written: a quotient is a
        // function of its dividend's value, and one form of the same symbols is one value (in
        // another round of a loop's fixpoint `x` may be another form, and then its quotient is
        // another symbol, with its own definition).
        let q = self.sym(
            SymKey::Quotient(c, x.aff.clone(), pt),
            pt,
            true,
            SymKind::Other,
        );
        let r = self.sym(
            SymKey::Remainder(c, x.aff.clone(), pt),
            pt,
            true,
            SymKind::Other,
        );
        // A power of two divided by one is zero or a power of two.
        if is_pow2(c) {
            self.syms[q as usize].pow2 = self.pow2_bits(x);
        }
        let def = x.aff.sub(&Affine::var(q).scale(c)).sub(&Affine::var(r));
        let facts = vec![
            Constraint::Eq(def),
            Constraint::lt(&Affine::var(r), &Affine::constant(c)),
        ];
        self.syms[q as usize].facts = facts.clone();
        self.syms[r as usize].facts = facts;
        self.syms[r as usize].range = Some((0, c - 1));
        (q, r)
    }

    /// The quotient and remainder of `x` by `k * f` at `site`: `x == f * (k * q) + r`,
    /// `0 <= r < k * f`, `f >= 1`.
    fn quotient_by(&mut self, site: OpSite, x: &Val, f: Var, k: i128) -> (Var, Var) {
        let pt = self.per_thread(x);
        let d = Affine::var(f).scale(k);
        let q = self.sym(
            SymKey::QuotientBy(site, x.aff.clone(), d.clone(), pt),
            pt,
            true,
            SymKind::Other,
        );
        let r = self.sym(
            SymKey::RemainderBy(site, x.aff.clone(), d.clone(), pt),
            pt,
            true,
            SymKind::Other,
        );
        let p = self.product(f, &Affine::var(q).scale(k));
        let facts = vec![
            Constraint::eq(&x.aff, &Affine::var(p).add(&Affine::var(r))),
            Constraint::lt(&Affine::var(r), &d),
            Constraint::le(&Affine::constant(1), &Affine::var(f)),
        ];
        self.syms[q as usize].facts = facts.clone();
        self.syms[r as usize].facts = facts;
        (q, r)
    }

    /// `n` where `v` is zero or a power of two below `2^n`; 0 where that is not known.
    pub(super) fn pow2_bits(&self, v: &Val) -> u32 {
        match v.aff.as_constant() {
            Some(c) if c == 0 || is_pow2(c) => 128 - c.leading_zeros(),
            Some(_) => 0,
            None if v.aff.c == 0 && v.aff.terms.len() == 1 => v
                .aff
                .terms
                .iter()
                .map(|(s, k)| {
                    if *k == 1 {
                        self.syms[*s as usize].pow2
                    } else {
                        0
                    }
                })
                .sum(),
            None => 0,
        }
    }

    /// The linear constraints a condition gives when it is `positive` (true) or not.
    pub(super) fn constraints(&mut self, cond: Handle<Expr>, positive: bool) -> Vec<Constraint> {
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

    pub(super) fn access(
        &mut self,
        site: AccessKey,
        array: Handle<Array>,
        write: bool,
        atomic: bool,
        index: Vec<Val>,
        span: Span,
    ) {
        let tracked = match self.k.arrays.get(array).kind {
            ArrayKind::Shared { .. } => true,
            ArrayKind::Global { mutable } => mutable,
            ArrayKind::Local { .. } => false,
        };
        if !tracked {
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
            async_copy: matches!(site, AccessKey::AsyncCopy(..)),
            wgmma: matches!(site, AccessKey::Wgmma(..)),
            index,
            guards: self.guards.clone(),
            path: self.path.clone(),
            span,
        });
        self.pending_new.push(acc);
    }
}

fn is_pow2(c: i128) -> bool {
    c > 0 && c & (c - 1) == 0
}

/// `a op b` of two constants of type `t`, with Rust's meaning, when it is defined and fits.
fn fold(op: BinaryOp, a: i128, b: i128, t: Scalar) -> Option<i128> {
    let v = match op {
        BinaryOp::Div if b != 0 => a / b,
        BinaryOp::Rem if b != 0 => a % b,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::Shr if (0..i128::from(t.bits())).contains(&b) => a >> b,
        BinaryOp::Shl if (0..i128::from(t.bits())).contains(&b) => a << b,
        _ => return None,
    };
    t.holds_int(v).then_some(v)
}

/// The values CUDA allows a thread or block id or extent.
fn builtin_range(key: &SymKey) -> Option<(i128, i128)> {
    let threads = i128::from(MAX_BLOCK_THREADS);
    let grid = |a: usize| i128::from(MAX_GRID_DIM[a.min(2)]);
    match *key {
        SymKey::ThreadIdx(_) => Some((0, threads - 1)),
        SymKey::BlockDim(_) => Some((1, threads)),
        SymKey::BlockIdx(a) => Some((0, grid(a) - 1)),
        SymKey::GridDim(a) => Some((1, grid(a))),
        SymKey::GlobalBase(a) => Some((0, (grid(a) - 1) * threads)),
        _ => None,
    }
}
