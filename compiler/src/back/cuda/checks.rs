//! The checks Rust makes and C does not: indices against their lengths (with bounds checks
//! on), division and remainder by zero or with overflow, `step_by(0)`, `clamp` with
//! `min > max`; and the fault prelude they report through.
//!
//! Takes the writer at a statement or expression that may fault; gives the guard or the
//! checked call, and registers a fault site (its number is what the generated code reports).
//! Guarantees: a check that cannot fire (a literal index inside a fixed dimension, a literal
//! divisor other than 0 and -1, a positive literal step, literal `clamp` bounds in order) is
//! not written and registers no site; every site registered is reported by the text written
//! for it, so a kernel has the fault record parameters exactly when it has a site.
//!
//! The fault record's layout is the contract's ([`cuphase_contract::fault::record`]): the
//! prelude's word positions are written from its constants, not spelled here.

use super::syntax::{c_min, c_type, prec, Rendered};
use super::writer::Writer;
use super::{FaultKind, FaultSite};
use crate::ir::{Array, ArrayKind, BinaryOp, Expr, Handle, Literal, Scalar, Span};
use cuphase_contract::fault::record;
use std::fmt::Write as _;

/// The name of the fault state variable in generated code.
pub(super) const FAULTS: &str = "cuphase_faults";

// The 64-bit values are written as `unsigned long long` elements of the record.
const _: () = assert!(record::A.is_multiple_of(2) && record::B.is_multiple_of(2));

/// Fault reporting: the first fault of a launch is written to the record the runtime passes
/// (flag, site, kernel id, block, thread, two values) and read back at the next synchronising
/// call; the faulting thread stops. Nothing traps, so the CUDA context stays usable.
pub(super) fn fault_prelude() -> String {
    use record::{A, B, BLOCK, FLAG, KERNEL, SITE, THREAD};
    let flag = if FLAG == 0 {
        "f.record".to_string()
    } else {
        format!("f.record + {FLAG}")
    };
    let mut s = String::from(
        r#"
// Faults (out-of-bounds indices, division by zero, step_by(0)) reported to the runtime.
namespace cuphase {
struct Faults { unsigned int* record; unsigned int kernel; bool hit; };
__device__ __noinline__ void report(Faults& f, unsigned int site, unsigned long long a, unsigned long long b) {
    f.hit = true;
"#,
    );
    let _ = writeln!(s, "    if (atomicCAS({flag}, 0u, 1u) == 0u) {{");
    let _ = writeln!(s, "        f.record[{SITE}] = site;");
    let _ = writeln!(s, "        f.record[{KERNEL}] = f.kernel;");
    for (at, var) in [(BLOCK, "blockIdx"), (THREAD, "threadIdx")] {
        let words: Vec<String> = ["x", "y", "z"]
            .iter()
            .enumerate()
            .map(|(i, axis)| format!("f.record[{}] = {var}.{axis};", at + i))
            .collect();
        let _ = writeln!(s, "        {}", words.join(" "));
    }
    for (word, value) in [(A, "a"), (B, "b")] {
        let _ = writeln!(
            s,
            "        reinterpret_cast<unsigned long long*>(f.record)[{}] = {value};",
            word / 2
        );
    }
    s.push_str(
        r#"        __threadfence();
    }
}
__device__ __forceinline__ unsigned long long idx(Faults& f, unsigned long long i, unsigned long long len, unsigned int site) {
    if (i < len) return i;
    report(f, site, i, len);
    return 0;
}
template <typename T> __device__ __forceinline__ T div(Faults& f, T a, T b, T min, unsigned int site) {
    if (b == 0) { report(f, site, 0, 0); return 0; }
    if (min != 0 && a == min && b == (T)-1) { report(f, site, 1, 0); return 0; }
    return (T)(a / b);
}
template <typename T> __device__ __forceinline__ T clamp(Faults& f, T x, T lo, T hi, unsigned int site) {
    if (!(lo <= hi)) { report(f, site, 0, 0); return x; }
    return x < lo ? lo : (x > hi ? hi : x);
}
template <typename T> __device__ __forceinline__ T rem(Faults& f, T a, T b, T min, unsigned int site) {
    if (b == 0) { report(f, site, 0, 0); return 0; }
    if (min != 0 && a == min && b == (T)-1) { report(f, site, 1, 0); return 0; }
    return (T)(a % b);
}
}  // namespace cuphase
"#,
    );
    s
}

impl Writer<'_> {
    /// Registers a fault site at `span`; returns its number.
    pub(super) fn site(&mut self, kind: FaultKind, span: Span) -> usize {
        let start = span.start();
        let file = span.file_or(&self.rust_file);
        self.sites.push(FaultSite {
            kind,
            file,
            line: start.line as u32,
            col: start.column as u32 + 1,
        });
        self.sites.len() - 1
    }

    /// `if (cond fails) { report; return; }` before a statement.
    pub(super) fn guard(&mut self, failing: &str, site: usize, index: &str, len: &str) {
        self.line(&format!(
            "if ({failing}) {{ cuphase::report({FAULTS}, {site}u, {index}, {len}); return; }}"
        ));
    }

    /// The length of dimension `d` of an array, as C text.
    pub(super) fn dim_len(&self, array: Handle<Array>, d: usize) -> String {
        match &self.k.arrays.get(array).kind {
            ArrayKind::Global { .. } | ArrayKind::Shared { dynamic: true, .. } => {
                self.len_names[array.index()].clone()
            }
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => {
                format!("{}ull", dims.get(d).copied().unwrap_or(0))
            }
        }
    }

    /// Whether index `d` of `array` is a literal inside a fixed dimension: no check needed.
    fn statically_in_bounds(&self, array: Handle<Array>, d: usize, ix: Handle<Expr>) -> bool {
        let dims = match &self.k.arrays.get(array).kind {
            ArrayKind::Shared { dynamic: true, .. } | ArrayKind::Global { .. } => return false,
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => dims,
        };
        match (self.k.exprs.get(ix), dims.get(d)) {
            (Expr::Literal(Literal::Int { value, .. }), Some(n)) => {
                *value >= 0 && *value < i128::from(*n)
            }
            // The variable of an enclosing `for` over literals (`for k in 0..4` into `[f32; 4]`).
            (Expr::Local(l), Some(n)) => self.loops.iter().any(|c| {
                matches!(c.var_range, Some((v, lo, hi)) if v == *l && lo >= 0 && hi < i128::from(*n))
            }),
            _ => false,
        }
    }

    /// The check of a [`Stmt::Check`](crate::ir::Stmt::Check): `index < len`, else an
    /// out-of-bounds fault on `array`.
    pub(super) fn guard_index(&mut self, index: Handle<Expr>, len: u64, array: &str, span: Span) {
        if !self.checks {
            return;
        }
        let i = self.expr(index);
        let site = self.site(FaultKind::OutOfBounds(array.to_string()), span);
        let i_text = format!("(unsigned long long){}", i.at_least(prec::UNARY));
        let len = format!("{len}ull");
        self.guard(&format!("{i_text} >= {len}"), site, &i_text, &len);
    }

    /// Bounds checks of a write (or atomic) to `array[index]`, as guards before the statement.
    pub(super) fn guard_element(
        &mut self,
        array: Handle<Array>,
        index: &[Handle<Expr>],
        span: Span,
    ) {
        if !self.checks {
            return;
        }
        let name = self.k.arrays.get(array).name.clone();
        for (d, ix) in index.iter().enumerate() {
            if self.statically_in_bounds(array, d, *ix) {
                continue;
            }
            let i = self.expr(*ix);
            let len = self.dim_len(array, d);
            let site = self.site(FaultKind::OutOfBounds(name.clone()), span);
            let i_text = format!("(unsigned long long){}", i.at_least(prec::UNARY));
            self.guard(&format!("{i_text} >= {len}"), site, &i_text, &len);
        }
    }

    /// `array[index]` read with bounds checks: each index goes through `cuphase::idx`.
    pub(super) fn checked_element(
        &mut self,
        array: Handle<Array>,
        index: &[Handle<Expr>],
        span: Span,
    ) -> Rendered {
        if !self.checks {
            return self.element(array, index);
        }
        let name = self.k.arrays.get(array).name.clone();
        let mut s = self.array_names[array.index()].clone();
        let lane = self.lane_index(array);
        for (d, ix) in index.iter().enumerate() {
            let r = self.expr(*ix);
            let member = if Some(d) == lane { ".v" } else { "" };
            if self.statically_in_bounds(array, d, *ix) {
                let _ = write!(s, "{member}[{}]", r.text);
                continue;
            }
            let len = self.dim_len(array, d);
            let site = self.site(FaultKind::OutOfBounds(name.clone()), span);
            self.inline_check = true;
            let _ = write!(
                s,
                "{member}[cuphase::idx({FAULTS}, {}, {len}, {site}u)]",
                r.text
            );
        }
        s.push_str(&self.field_suffixes[array.index()]);
        Rendered::atom(s)
    }

    /// Integer `/` and `%` with Rust's panics (division by zero, `MIN / -1`) reported, unless
    /// the divisor is a literal that cannot fault.
    pub(super) fn checked_division(
        &mut self,
        op: BinaryOp,
        t: Scalar,
        divisor: Handle<Expr>,
        l: &Rendered,
        r: &Rendered,
        span: Span,
    ) -> Option<Rendered> {
        if !matches!(op, BinaryOp::Div | BinaryOp::Rem) || !t.is_int() {
            return None;
        }
        // (A constant divisor, `BN / TN` of module constants, `B as u32`, is its value.)
        let literal = self.const_int(divisor);
        if literal.is_some_and(|v| v != 0 && v != -1) {
            return None;
        }
        let (kind, f) = if op == BinaryOp::Div {
            (FaultKind::Div, "div")
        } else {
            (FaultKind::Rem, "rem")
        };
        let site = self.site(kind, span);
        self.inline_check = true;
        Some(Rendered::atom(format!(
            "cuphase::{f}<{}>({FAULTS}, {}, {}, {}, {site}u)",
            c_type(t),
            l.text,
            r.text,
            c_min(t)
        )))
    }

    /// The value of an integer expression of literals (`128 / 8`, `B as u32`, `2 * R + 1`),
    /// where every step is exact in its type (a step that would wrap, a division by zero, or
    /// anything but literals, casts and arithmetic is `None`).
    pub(super) fn const_int(&self, e: Handle<Expr>) -> Option<i128> {
        let t = self.types.expr(e);
        let v = match self.k.exprs.get(e) {
            Expr::Literal(Literal::Int { value, .. }) => *value,
            Expr::Cast { expr, to } if to.is_int() => self.const_int(*expr)?,
            Expr::Binary { op, left, right } if t.is_int() => {
                let (a, b) = (self.const_int(*left)?, self.const_int(*right)?);
                match op {
                    BinaryOp::Add => a.checked_add(b)?,
                    BinaryOp::Sub => a.checked_sub(b)?,
                    BinaryOp::Mul => a.checked_mul(b)?,
                    BinaryOp::Div if b != 0 => a.checked_div(b)?,
                    BinaryOp::Rem if b != 0 => a.checked_rem(b)?,
                    _ => return None,
                }
            }
            _ => return None,
        };
        t.holds_int(v).then_some(v)
    }

    /// The guard before a `for` loop with step `step`: `step_by(0)` panics in Rust, and a
    /// negative step has no Rust meaning. Nothing for a positive literal step.
    pub(super) fn guard_step(&mut self, step: Handle<Expr>, span: Span) {
        let literal_ok = matches!(self.k.exprs.get(step), Expr::Literal(Literal::Int { value, .. }) if *value > 0);
        if literal_ok {
            return;
        }
        let t = self.types.expr(step);
        let r = self.expr(step);
        let v = r.at_least(prec::RELATIONAL + 1);
        let cond = if t.is_signed_int() {
            format!("{v} <= 0")
        } else {
            format!("{v} == 0")
        };
        let site = self.site(FaultKind::ZeroStep, span);
        let value = format!("(unsigned long long){}", r.at_least(prec::UNARY));
        self.guard(&cond, site, &value, "0ull");
    }

    /// `x.clamp(lo, hi)` (expression `h`, of type `t`, its arguments rendered as `a`): Rust
    /// panics when `lo > hi` (or a bound is NaN).
    pub(super) fn clamp(
        &mut self,
        h: Handle<Expr>,
        t: Scalar,
        x: Rendered,
        a: &[Rendered],
    ) -> Rendered {
        // Literal bounds in order cannot panic: a plain expression.
        if let Expr::Method { args, .. } = self.k.exprs.get(h) {
            let lit = |e: Handle<Expr>| match self.k.exprs.get(e) {
                Expr::Literal(Literal::Int { value, .. }) => Some(*value as f64),
                Expr::Literal(Literal::Float { digits, .. }) => digits.parse::<f64>().ok(),
                _ => None,
            };
            if let (Some(lo), Some(hi)) = (
                args.first().and_then(|e| lit(*e)),
                args.get(1).and_then(|e| lit(*e)),
            ) {
                if lo <= hi {
                    let (l, hh) = (&a[0], &a[1]);
                    let xv = x.at_least(prec::RELATIONAL + 1);
                    return Rendered {
                        text: format!(
                            "{xv} < {} ? {} : ({xv} > {} ? {} : {})",
                            l.at_least(prec::RELATIONAL + 1),
                            l.text,
                            hh.at_least(prec::RELATIONAL + 1),
                            hh.text,
                            x.text
                        ),
                        prec: prec::TERNARY,
                        op: None,
                    };
                }
            }
        }
        let message = if t.is_float() {
            "min > max, or either was NaN"
        } else {
            "assertion failed: min <= max"
        };
        let site = self.site(FaultKind::Panic(message.into()), self.k.exprs.span(h));
        self.inline_check = true;
        let (lo, hi) = (
            a.first().map_or("0", |r| r.text.as_str()),
            a.get(1).map_or("0", |r| r.text.as_str()),
        );
        Rendered::atom(format!(
            "cuphase::clamp<{}>({FAULTS}, {}, {lo}, {hi}, {site}u)",
            c_type(t),
            x.text
        ))
    }
}
