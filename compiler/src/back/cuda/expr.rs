//! Expressions: operators, casts, places, with Rust's meaning where C's differs.
//!
//! Takes the writer and an expression handle; gives its C text as a [`Rendered`] (with the
//! precedence the operator around it needs). Registers the Rust-semantics helpers and
//! preludes the text calls, and the fault sites of inline checks ([`super::checks`]).
//! Guarantees: signed `+ - *` and negation wrap (through helpers), shift amounts are masked
//! to the type's width, narrow results are truncated back to their type, float-to-integer
//! casts saturate and map NaN to 0, and `f16`/`bf16` compute through `float`, rounding each
//! result back as the `half` crate does.

use super::helpers::Helper;
use super::syntax::{
    binary_prec, c_type, cast_text, int_fits, is_narrow, literal, prec, unsigned_of, Rendered,
};
use super::writer::Writer;
use crate::ir::visit;
use crate::ir::*;
use std::fmt::Write as _;

impl Writer<'_> {
    /// The C text of expression `h`.
    pub(super) fn expr(&mut self, h: Handle<Expr>) -> Rendered {
        let t = self.types.expr(h);
        match self.k.exprs.get(h) {
            Expr::Literal(l) => literal(l, t),
            Expr::Local(l) => Rendered::atom(self.local_name(*l).to_string()),
            Expr::Builtin { builtin, axis } => {
                let a = axis.name();
                match builtin {
                    Builtin::ThreadIdx => Rendered::atom(format!("threadIdx.{a}")),
                    Builtin::BlockIdx => Rendered::atom(format!("blockIdx.{a}")),
                    Builtin::BlockDim => Rendered::atom(format!("blockDim.{a}")),
                    Builtin::GridDim => Rendered::atom(format!("gridDim.{a}")),
                    Builtin::GlobalIdx => Rendered {
                        text: format!("blockIdx.{a} * blockDim.{a} + threadIdx.{a}"),
                        prec: prec::ADDITIVE,
                        op: Some(BinaryOp::Add),
                    },
                    // The hardware's lane id (warps are made of consecutive linear thread
                    // ids): one register read, where the linear id takes three. In a block
                    // declared one-dimensional the linear id is `threadIdx.x`, and its low
                    // bits are cheaper still (no special-register read to wait for).
                    Builtin::LaneId => match self.k.options.block {
                        Some([_, 1, 1]) => Rendered {
                            text: "threadIdx.x & 31u".into(),
                            prec: prec::BITAND,
                            op: Some(BinaryOp::BitAnd),
                        },
                        _ => {
                            self.uses_lane = true;
                            Rendered::atom("cuphase::lane_id()".into())
                        }
                    },
                    Builtin::WarpSize => Rendered::atom("32u".into()),
                }
            }
            Expr::Len(a) => Rendered::atom(self.len_names[a.index()].clone()),
            Expr::Load { array, index } => {
                let index = index.clone();
                self.checked_element(*array, &index, self.k.exprs.span(h))
            }
            Expr::Unary { op, expr } => {
                let (op, expr) = (*op, *expr);
                let r = self.expr(expr);
                self.unary(op, t, r)
            }
            Expr::Binary { op, left, right } => {
                let (op, left, right) = (*op, *left, *right);
                let lt = self.types.expr(left);
                let rt = self.types.expr(right);
                let l = self.expr(left);
                let r = self.expr(right);
                let span = self.k.exprs.span(h);
                if lt.is_half() {
                    return self.half_binary(op, lt, l, r);
                }
                if let Some(call) = self.checked_division(op, lt, right, &l, &r, span) {
                    return call;
                }
                self.binary(op, lt, rt, l, r)
            }
            Expr::Cast { expr, to } => {
                let (expr, to) = (*expr, *to);
                // An integer literal that fits the target is written in the target type.
                if let Expr::Literal(Literal::Int { value, .. }) = self.k.exprs.get(expr) {
                    if int_fits(*value, to) {
                        return literal(
                            &Literal::Int {
                                value: *value,
                                suffix: Some(to),
                            },
                            to,
                        );
                    }
                }
                let from = self.types.expr(expr);
                let r = self.expr(expr);
                self.convert(r, from, to)
            }
            Expr::AssumeUniform(inner) => {
                let inner = *inner;
                self.expr(inner)
            }
            Expr::Method {
                method,
                receiver,
                args,
            } => {
                let (method, receiver, args) = (*method, *receiver, args.clone());
                self.method(h, method, receiver, &args)
            }
            Expr::UniformLoad { array, index } => {
                let index = index.clone();
                self.checked_element(*array, &index, self.k.exprs.span(h))
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let (cond, accept, reject) = (*cond, *accept, *reject);
                let c = self.expr(cond);
                let a = self.expr(accept);
                let b = self.expr(reject);
                Rendered {
                    text: format!(
                        "{} ? {} : {}",
                        c.at_least(prec::LOR),
                        a.at_least(prec::LOR),
                        b.at_least(prec::TERNARY)
                    ),
                    prec: prec::TERNARY,
                    op: None,
                }
            }
        }
    }

    /// The C text of an assignment's target.
    pub(super) fn place(&mut self, p: &Place) -> Rendered {
        match p {
            Place::Local(l) => Rendered::atom(self.local_name(*l).to_string()),
            Place::Element { array, index } => self.element(*array, index),
        }
    }

    /// `array[index]...` without checks.
    pub(super) fn element(&mut self, array: Handle<Array>, index: &[Handle<Expr>]) -> Rendered {
        let mut s = self.array_names[array.index()].clone();
        let lane = self.lane_index(array);
        let swizzled = self.swizzled[array.index()];
        for (d, ix) in index.iter().enumerate() {
            let r = self.expr(*ix);
            let member = if Some(d) == lane { ".v" } else { "" };
            if swizzled && d == 0 {
                let _ = write!(s, "{member}[cuphase::swizzle128({})]", r.text);
            } else {
                let _ = write!(s, "{member}[{}]", r.text);
            }
        }
        s.push_str(&self.field_suffixes[array.index()]);
        Rendered::atom(s)
    }

    /// The position of the index that picks a lane of a row record (see
    /// [`super::writer::Writer::rows`]): the array's last; `None` for other arrays.
    pub(super) fn lane_index(&self, array: Handle<Array>) -> Option<usize> {
        self.rows[array.index()]
            .as_ref()
            .map(|_| self.k.arrays.get(array).rank().saturating_sub(1))
    }

    /// Whether an expression has the same value at every evaluation inside a loop body: it
    /// reads no mutable local and no memory.
    pub(super) fn is_stable(&self, e: Handle<Expr>) -> bool {
        let k = self.k;
        !visit::any_expr(k, e, &mut |x| match x {
            Expr::Local(l) => k.locals.get(*l).mutable,
            Expr::Load { .. } | Expr::UniformLoad { .. } => true,
            _ => false,
        })
    }

    /// `r as to`, with Rust's meaning.
    pub(super) fn convert(&mut self, r: Rendered, from: Scalar, to: Scalar) -> Rendered {
        // `half` types convert through `float`, as the simulator does.
        if from.is_half() && from != to {
            let f = self.half_to_f32(from, &r);
            return self.convert(f, Scalar::F32, to);
        }
        if to.is_half() && from != to {
            let f = self.convert(r, from, Scalar::F32);
            return self.half_from_f32(to, &f);
        }
        if from == to
            || (matches!(from, Scalar::U64 | Scalar::Usize)
                && matches!(to, Scalar::U64 | Scalar::Usize))
        {
            return r;
        }
        if from.is_float() && to.is_int() {
            // Rust's `as` saturates and maps NaN to 0; NVVM's conversions leave NaN and
            // out-of-range inputs undefined (NaN came back as `INT_MIN` on sm_90), so a helper
            // spells the rule out.
            let h = if from == Scalar::F32 {
                Helper::F32ToInt
            } else {
                Helper::F64ToInt
            };
            return self.helper(h, to, &[&r]);
        }
        cast_text(to, &r)
    }

    /// A call of helper `h` for type `t`, its arguments as they are.
    pub(super) fn helper(&mut self, h: Helper, t: Scalar, args: &[&Rendered]) -> Rendered {
        self.helpers.insert((h, t));
        let args: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
        Rendered::atom(format!("cuphase::{}({})", h.name(t), args.join(", ")))
    }

    /// A call of helper `h` for type `t`; the first argument is of type `t`. Narrow-typed
    /// expressions are `int` in C, so it is cast: overloads must see the exact type.
    pub(super) fn helper_cast(&mut self, h: Helper, t: Scalar, args: &[String]) -> Rendered {
        self.helpers.insert((h, t));
        let mut args = args.to_vec();
        if is_narrow(t) {
            if let Some(first) = args.first_mut() {
                *first = format!("({})({first})", c_type(t));
            }
        }
        Rendered::atom(format!("cuphase::{}({})", h.name(t), args.join(", ")))
    }

    /// `r` of half type `t` as a `float`.
    fn half_to_f32(&mut self, t: Scalar, r: &Rendered) -> Rendered {
        self.uses_half = true;
        Rendered::atom(format!("cuphase::{}_to_f32({})", t.rust_name(), r.text))
    }

    /// A `float` rounded to half type `t`.
    fn half_from_f32(&mut self, t: Scalar, r: &Rendered) -> Rendered {
        self.uses_half = true;
        Rendered::atom(format!("cuphase::{}_from_f32({})", t.rust_name(), r.text))
    }

    /// `l op r` on `f16`/`bf16`: computed in `float`, rounded back (comparisons need no
    /// rounding).
    fn half_binary(&mut self, op: BinaryOp, t: Scalar, l: Rendered, r: Rendered) -> Rendered {
        let l = self.half_to_f32(t, &l);
        let r = self.half_to_f32(t, &r);
        let v = self.binary(op, Scalar::F32, Scalar::F32, l, r);
        if op.is_comparison() {
            v
        } else {
            self.half_from_f32(t, &v)
        }
    }

    /// `op r` on type `t`.
    fn unary(&mut self, op: UnaryOp, t: Scalar, r: Rendered) -> Rendered {
        if op == UnaryOp::Neg && t.is_half() {
            self.uses_half = true;
            return Rendered::atom(format!("cuphase::half_neg({})", r.text));
        }
        match op {
            UnaryOp::Neg if matches!(t, Scalar::I32 | Scalar::I64) => {
                self.helper(Helper::WrappingNeg, t, &[&r])
            }
            UnaryOp::Neg => {
                let inner = if r.text.starts_with('-') {
                    format!("({})", r.text)
                } else {
                    r.at_least(prec::UNARY)
                };
                let res = Rendered {
                    text: format!("-{inner}"),
                    prec: prec::UNARY,
                    op: None,
                };
                if is_narrow(t) {
                    cast_text(t, &res)
                } else {
                    res
                }
            }
            UnaryOp::Not if t == Scalar::Bool => Rendered {
                text: format!("!{}", r.at_least(prec::UNARY)),
                prec: prec::UNARY,
                op: None,
            },
            UnaryOp::Not => {
                let res = Rendered {
                    text: format!("~{}", r.at_least(prec::UNARY)),
                    prec: prec::UNARY,
                    op: None,
                };
                if is_narrow(t) {
                    cast_text(t, &res)
                } else {
                    res
                }
            }
        }
    }

    /// Whether `place op= value` in C means the same as in Rust for operand type `t`.
    pub(super) fn plain_compound(&self, op: BinaryOp, t: Scalar) -> bool {
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                t.is_float() || matches!(t, Scalar::U32 | Scalar::U64 | Scalar::Usize)
            }
            BinaryOp::Div => !is_narrow(t),
            BinaryOp::Rem => t.is_int() && !is_narrow(t),
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => true,
            BinaryOp::Shl => !is_narrow(t) && !t.is_signed_int(),
            BinaryOp::Shr => !is_narrow(t),
            _ => false,
        }
    }

    /// The shift amount `r` (of type `rt`) masked to the width of `t`, as Rust's release
    /// builds do.
    pub(super) fn shift_amount(&self, r: Rendered, rt: Scalar, t: Scalar) -> String {
        let mask = t.bits() - 1;
        if let Ok(v) = r.text.trim_end_matches(['u', 'l']).parse::<u64>() {
            if v <= u64::from(mask) {
                return r.text;
            }
        }
        let m = if rt.is_unsigned_int() {
            format!("{mask}u")
        } else {
            mask.to_string()
        };
        let operand = if r.op.is_some() && r.prec < prec::UNARY {
            format!("({})", r.text)
        } else {
            r.at_least(prec::BITAND + 1)
        };
        format!("({operand} & {m})")
    }

    /// `l op r` with `l` of type `lt` and `r` of type `rt` (they differ only for shifts).
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        lt: Scalar,
        rt: Scalar,
        l: Rendered,
        r: Rendered,
    ) -> Rendered {
        let p = binary_prec(op);
        let clarity = matches!(
            op,
            BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Shl
                | BinaryOp::Shr
                | BinaryOp::And
                | BinaryOp::Or
        );
        let operand = |x: &Rendered, min: u8| -> String {
            if clarity && x.op.is_some_and(|o| o != op) && x.prec < prec::UNARY {
                format!("({})", x.text)
            } else {
                x.at_least(min)
            }
        };
        let plain = |l: &Rendered, r: &str| -> Rendered {
            Rendered {
                text: format!("{} {} {}", operand(l, p), op.symbol(), r),
                prec: p,
                op: Some(op),
            }
        };
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul
                if matches!(lt, Scalar::I32 | Scalar::I64) =>
            {
                let h = match op {
                    BinaryOp::Add => Helper::WrappingAdd,
                    BinaryOp::Sub => Helper::WrappingSub,
                    _ => Helper::WrappingMul,
                };
                self.helper(h, lt, &[&l, &r])
            }
            BinaryOp::Mul if matches!(lt, Scalar::U8 | Scalar::U16) => {
                // `unsigned short * unsigned short` is a signed `int` product in C and may overflow.
                let res = Rendered {
                    text: format!(
                        "(unsigned int){} * {}",
                        l.at_least(prec::UNARY),
                        r.at_least(prec::MULTIPLICATIVE + 1)
                    ),
                    prec: p,
                    op: Some(op),
                };
                cast_text(lt, &res)
            }
            BinaryOp::Rem if lt.is_float() => {
                let f = if lt == Scalar::F32 { "fmodf" } else { "fmod" };
                Rendered::atom(format!("{f}({}, {})", l.text, r.text))
            }
            BinaryOp::Shl if lt.is_signed_int() => {
                // Shifting a negative value left is undefined in C++17: shift its bits unsigned.
                let amount = self.shift_amount(r, rt, lt);
                let bits = cast_text(unsigned_of(lt), &l);
                let res = Rendered {
                    text: format!("{} << {amount}", bits.text),
                    prec: p,
                    op: Some(op),
                };
                cast_text(lt, &res)
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let amount = self.shift_amount(r, rt, lt);
                let res = plain(&l, &amount);
                if is_narrow(lt) && op == BinaryOp::Shl {
                    cast_text(lt, &res)
                } else {
                    res
                }
            }
            _ => {
                let res = plain(&l, &operand(&r, p + 1));
                if is_narrow(lt)
                    && matches!(
                        op,
                        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
                    )
                {
                    cast_text(lt, &res)
                } else {
                    res
                }
            }
        }
    }
}
