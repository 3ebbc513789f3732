//! `for` loop headers: a range (`a..b`, `a..=b`, reversed, stepped, distributed over threads or
//! blocks) as the C `for` that runs exactly Rust's values and never overflows the variable.

use super::syntax::{c_type, int_fits, is_narrow, is_zero_literal, prec, unsigned_of, Rendered};
use super::writer::Writer;
use crate::ir::*;
use std::fmt::Write as _;

impl Writer<'_> {
    /// The header of a `for` loop over `start..end` (by `step`), distributed over threads or
    /// blocks as `distribution` says.
    pub(super) fn for_header(
        &mut self,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        distribution: Distribution,
    ) -> String {
        let f = self.for_parts(var, start, end, step, distribution);
        format!(
            "for ({}; {} < {}; {}) {{",
            f.init, f.name, f.bound, f.increment
        )
    }

    /// The parts of the header of a `for` loop over `start..end`: the declaration of the
    /// variable (and of the end, when it must be read once), the variable's name, the end as
    /// the condition reads it, the increment.
    fn for_parts(
        &mut self,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        distribution: Distribution,
    ) -> ForParts {
        let t = self.types.local(var);
        let ct = c_type(t);
        let name = self.local_name(var).to_string();
        let s = self.expr(start);
        let e = self.expr(end);
        let step_r = step.map(|st| {
            let r = self.expr(st);
            self.convert(r, self.types.expr(st), t)
        });
        // Thread and block ids in the loop's type.
        let id = |this: &mut Self, text: &str| -> Rendered {
            this.convert(
                Rendered {
                    text: text.to_string(),
                    prec: if text.contains(' ') {
                        prec::ADDITIVE
                    } else {
                        prec::PRIMARY
                    },
                    op: None,
                },
                Scalar::U32,
                t,
            )
        };
        let (offset, stride): (Option<Rendered>, Option<Rendered>) = match distribution {
            Distribution::Sequential => (None, None),
            Distribution::ThreadsInBlock => {
                (Some(id(self, "threadIdx.x")), Some(id(self, "blockDim.x")))
            }
            Distribution::BlocksInGrid => {
                (Some(id(self, "blockIdx.x")), Some(id(self, "gridDim.x")))
            }
            Distribution::ThreadsInGrid => (
                Some(id(self, "blockIdx.x * blockDim.x + threadIdx.x")),
                Some(Rendered {
                    text: {
                        let g = id(self, "gridDim.x");
                        let b = id(self, "blockDim.x");
                        format!(
                            "{} * {}",
                            g.at_least(prec::MULTIPLICATIVE),
                            b.at_least(prec::MULTIPLICATIVE + 1)
                        )
                    },
                    prec: prec::MULTIPLICATIVE,
                    op: None,
                }),
            ),
        };
        let mul = |a: Rendered, b: &Option<Rendered>| -> Rendered {
            match b {
                None => a,
                Some(b) => Rendered {
                    text: format!(
                        "{} * {}",
                        a.at_least(prec::MULTIPLICATIVE),
                        b.at_least(prec::MULTIPLICATIVE + 1)
                    ),
                    prec: prec::MULTIPLICATIVE,
                    op: Some(BinaryOp::Mul),
                },
            }
        };
        let first = match offset {
            None => s.text.clone(),
            Some(off) => {
                let off = mul(off, &step_r);
                if is_zero_literal(self.k, start) {
                    off.text
                } else {
                    format!(
                        "{} + {}",
                        s.at_least(prec::ADDITIVE),
                        off.at_least(prec::ADDITIVE + 1)
                    )
                }
            }
        };
        let increment = match (stride, &step_r) {
            (None, None) => format!("++{name}"),
            (None, Some(st)) => format!("{name} += {}", st.text),
            (Some(sd), st) => format!("{name} += {}", mul(sd, st).text),
        };
        let mut init = format!("{ct} {name} = {first}");
        let bound = if self.is_stable(end) {
            e.at_least(prec::RELATIONAL + 1)
        } else {
            // Rust evaluates the range once; C would re-evaluate the condition's operand.
            let end_name = self.namer.call(&format!("{name}_end"));
            let _ = write!(init, ", {end_name} = {}", e.text);
            end_name
        };
        ForParts {
            init,
            name,
            bound,
            increment,
        }
    }

    /// The header of a `for` loop over `start..=end` (by `step`, distributed). Where `end`
    /// may be the type's largest value, `i <= end; ++i` would never end: the loop then runs
    /// on a flag that says whether a next value exists, and the variable only moves when it
    /// does (so it never overflows).
    pub(super) fn inclusive_header(
        &mut self,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        distribution: Distribution,
    ) -> String {
        let t = self.types.local(var);
        let ForParts {
            init,
            name,
            bound,
            increment,
        } = self.for_parts(var, start, end, step, distribution);
        let below_max = matches!(self.k.exprs.get(end), Expr::Literal(Literal::Int { value, .. }) if int_fits(*value + 1, t));
        if below_max && step.is_none() && distribution == Distribution::Sequential {
            return format!("for ({init}; {name} <= {bound}; {increment}) {{");
        }
        // `for (T i = first, i_go = i <= end; i_go; i_go = end - i >= inc, i += i_go ? inc : 0)`
        let go = self.namer.call(&format!("{name}_go"));
        let u = Unsigned::of(t);
        let next = match increment.strip_prefix(&format!("{name} += ")) {
            Some(inc) => format!(
                "{go} = {} >= {}, {name} += {go} ? {inc} : 0",
                u.distance(&bound, &name),
                u.cast(inc)
            ),
            None => format!("{go} = {name} != {bound}, {name} += {go}"),
        };
        format!("for ({init}, {go} = {name} <= {bound}; {go}; {next}) {{")
    }

    /// The header of a `for` loop over a reversed range (sequential only): from the last
    /// value down, on a flag that says whether a next value exists, so the variable never
    /// overflows; `(a..b).rev()` is C's `for (T i = b; i-- > a;)` where that cannot overflow.
    pub(super) fn reverse_header(
        &mut self,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        inclusive: bool,
        reverse: Reverse,
    ) -> String {
        let t = self.types.local(var);
        let ct = c_type(t);
        let u = Unsigned::of(t);
        let name = self.local_name(var).to_string();
        let s = self.expr(start);
        let e = self.expr(end);
        let step_r = step.map(|st| {
            let r = self.expr(st);
            self.convert(r, self.types.expr(st), t)
        });
        // Rust evaluates the range once: a bound that can change is read into a variable.
        let mut decls = Vec::new();
        let mut bound = |this: &mut Self, r: &Rendered, h: Handle<Expr>, what: &str| {
            if this.is_stable(h) {
                r.at_least(prec::RELATIONAL + 1)
            } else {
                let n = this.namer.call(&format!("{name}_{what}"));
                decls.push(format!("{n} = {}", r.text));
                n
            }
        };
        let lo = bound(self, &s, start, "start");
        let start_min = matches!(self.k.exprs.get(start), Expr::Literal(Literal::Int { value, .. }) if !t.is_signed_int() || int_fits(*value - 1, t));
        if !inclusive && step_r.is_none() && start_min {
            // `i-- > lo` never steps below `lo`'s predecessor, which exists.
            let hi = e.text.clone();
            let mut init = format!("{ct} {name} = {hi}");
            for d in &decls {
                init.push_str(", ");
                init.push_str(d);
            }
            return format!("for ({init}; {name}-- > {lo};) {{");
        }
        let hi = bound(self, &e, end, "end");
        let go = self.namer.call(&format!("{name}_go"));
        let cmp = if inclusive { "<=" } else { "<" };
        let last_of_range = if inclusive {
            hi.clone()
        } else {
            format!("{hi} - {go}")
        };
        let first = match (&step_r, reverse) {
            // The last value of `(lo..hi).step_by(st)`: `lo + (last - lo) / st * st`.
            (Some(st), Reverse::Stepped) => {
                let st = u.cast(&st.text);
                let offset = format!("{} / {st} * {st}", paren(&u.distance(&last_of_range, &lo)));
                u.back(&format!("{} + {offset}", u.cast(&lo)), ct)
            }
            _ => last_of_range,
        };
        let mut init = format!("{ct} ");
        for d in &decls {
            init.push_str(d);
            init.push_str(", ");
        }
        // `0 <= hi` always holds for an unsigned `hi` (and C compilers warn about it).
        let has_first = if inclusive && !t.is_signed_int() && is_zero_literal(self.k, start) {
            "1".to_string()
        } else {
            format!("{lo} {cmp} {hi}")
        };
        let _ = write!(init, "{go} = {has_first}, {name} = {first}");
        let next = match &step_r {
            Some(st) => format!(
                "{go} = {} >= {}, {name} -= {go} ? {} : 0",
                u.distance(&name, &lo),
                u.cast(&st.text),
                st.text
            ),
            None => format!("{go} = {name} != {lo}, {name} -= {go}"),
        };
        format!("for ({init}; {go}; {next}) {{")
    }
}

/// Unsigned arithmetic in a loop variable's type `t`, for loop headers that must not overflow.
struct Unsigned {
    /// The unsigned type of the same width.
    name: &'static str,
    /// `t` is unsigned and 32 or 64 bits: its own arithmetic wraps, no cast needed.
    native: bool,
    /// `t` is 8 or 16 bits: C computes in `int`, which cannot overflow here.
    narrow: bool,
}

impl Unsigned {
    fn of(t: Scalar) -> Unsigned {
        Unsigned {
            name: c_type(unsigned_of(t)),
            native: !t.is_signed_int() && !is_narrow(t),
            narrow: is_narrow(t),
        }
    }

    /// `x` as an unsigned value (a nonnegative `x` of `t` keeps its value).
    fn cast(&self, x: &str) -> String {
        if self.native || self.narrow {
            x.to_string()
        } else {
            format!("({}){}", self.name, paren(x))
        }
    }

    /// `hi - lo` for `lo <= hi`, exactly, as an unsigned value.
    fn distance(&self, hi: &str, lo: &str) -> String {
        if self.narrow {
            format!("({})({hi} - {})", self.name, paren(lo))
        } else {
            format!("{} - {}", self.cast(hi), paren(&self.cast(lo)))
        }
    }

    /// An unsigned value back in the variable's type `ct`.
    fn back(&self, x: &str, ct: &str) -> String {
        if self.native {
            x.to_string()
        } else {
            format!("({ct})({x})")
        }
    }
}

/// `x`, parenthesised unless it is a name, a literal or a member access.
fn paren(x: &str) -> String {
    if x.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        x.to_string()
    } else {
        format!("({x})")
    }
}

/// The parts of a `for (init; name < bound; increment) {` header over a range.
struct ForParts {
    init: String,
    name: String,
    bound: String,
    increment: String,
}

/// The most iterations of a loop the writer asks NVCC to unroll whole, and the most
/// statements the unrolled loop may hold (inner loops counted unrolled).
const UNROLL_TRIPS: u64 = 32;
const UNROLL_STATEMENTS: u64 = 2048;

impl Writer<'_> {
    /// Whether a `for` loop over a range of literals should be unrolled whole
    /// (`#pragma unroll`): few iterations, and a body that stays small unrolled. NVCC unrolls
    /// small innermost loops by itself but keeps an outer loop around them (the `k` loop of a
    /// register-tiled matrix product, whose unrolling lets every shared load become a
    /// register operand); this asks for it where the cost is bounded.
    pub(super) fn unrolls(&self, kind: &LoopKind, body: &Block) -> bool {
        let Some(trips) = self.constant_trips(kind) else {
            return false;
        };
        trips > 1
            && trips <= UNROLL_TRIPS
            && trips.saturating_mul(self.unrolled_size(body)) <= UNROLL_STATEMENTS
    }

    /// The trip count of a sequential `for` over a range of literals with a literal step.
    pub(super) fn constant_trips(&self, kind: &LoopKind) -> Option<u64> {
        let LoopKind::For {
            start,
            end,
            step,
            distribution: Distribution::Sequential,
            inclusive,
            ..
        } = kind
        else {
            return None;
        };
        let (a, b) = self.literal_bounds(*start, *end, *inclusive)?;
        let s = match step {
            Some(st) => self.int_literal_value(*st).filter(|s| *s > 0)?,
            None => 1,
        };
        let n = if b > a { (b - a + s - 1) / s } else { 0 };
        u64::try_from(n).ok()
    }

    /// The variable of a `for` over a range of literals and the least and greatest values it
    /// takes, when it takes any and the body cannot assign it (`for mut k` can).
    pub(super) fn literal_range(&self, kind: &LoopKind) -> Option<(Handle<Local>, i128, i128)> {
        let LoopKind::For {
            var,
            start,
            end,
            inclusive,
            ..
        } = kind
        else {
            return None;
        };
        if self.k.locals.get(*var).mutable {
            return None;
        }
        let (lo, end) = self.literal_bounds(*start, *end, *inclusive)?;
        (lo < end).then_some((*var, lo, end - 1))
    }

    /// The start and exclusive end of a range of integer literals (`0..=3` is `(0, 4)`).
    fn literal_bounds(
        &self,
        start: Handle<Expr>,
        end: Handle<Expr>,
        inclusive: bool,
    ) -> Option<(i128, i128)> {
        let (a, b) = (self.int_literal_value(start)?, self.int_literal_value(end)?);
        Some((a, if inclusive { b.checked_add(1)? } else { b }))
    }

    /// The value of an integer literal.
    fn int_literal_value(&self, e: Handle<Expr>) -> Option<i128> {
        match self.k.exprs.get(e) {
            Expr::Literal(Literal::Int { value, .. }) => Some(*value),
            _ => None,
        }
    }

    /// The statements of `b` with its constant loops unrolled (another loop counts once).
    fn unrolled_size(&self, b: &Block) -> u64 {
        b.stmts
            .iter()
            .map(|s| {
                let inner: u64 = s.blocks().map(|blk| self.unrolled_size(blk)).sum();
                match s {
                    Stmt::Loop { kind, .. } => self
                        .constant_trips(kind)
                        .unwrap_or(1)
                        .saturating_mul(inner.max(1)),
                    _ => 1u64.saturating_add(inner),
                }
            })
            .fold(0u64, u64::saturating_add)
    }
}
