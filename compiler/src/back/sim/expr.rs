//! The simulator writer's expressions: values as Rust computes them in a release build, with
//! the simulator's checked accessors, division and methods where Rust would panic.

use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};

impl Writer<'_> {
    /// One expression.
    pub(super) fn expr(&self, h: Handle<Expr>) -> TokenStream {
        let span = self.k.exprs.span(h);
        let t = self.types.expr(h);
        match self.k.exprs.get(h) {
            Expr::Literal(l) => literal(l, t, span),
            Expr::Local(l) => {
                let name = &self.local_names[l.index()];
                let name = Ident::new(&name.to_string(), site(span.lo));
                quote!(#name)
            }
            Expr::Builtin { builtin, axis } => {
                let a = Ident::new(axis.name(), site(span.lo));
                match builtin {
                    Builtin::ThreadIdx => quote!(__cx.thread_idx.#a),
                    Builtin::BlockIdx => quote!(__cx.block_idx.#a),
                    Builtin::BlockDim => quote!(__cx.block_dim.#a),
                    Builtin::GridDim => quote!(__cx.grid_dim.#a),
                    Builtin::GlobalIdx => quote!(__cx.global_idx().#a),
                    Builtin::LaneId => quote!(__cx.lane_id()),
                    Builtin::WarpSize => quote!(32u32),
                }
            }
            Expr::Len(a) if self.registers[a.index()] => {
                // Rust's `len()` of `[[T; W]; H]` is `H`.
                let n = match &self.k.arrays.get(*a).kind {
                    ArrayKind::Local { dims, .. } => dims.first().copied().unwrap_or(0) as usize,
                    _ => 0,
                };
                let n = proc_macro2::Literal::usize_suffixed(n);
                quote_spanned!(site(span.lo)=> #n)
            }
            Expr::Load { array, index } if self.registers[array.index()] => {
                match super::registers::flat_index(self.k, *array, index) {
                    Some(flat) => {
                        let reg = self.register(*array, flat);
                        quote_spanned!(site(span.lo)=> #reg)
                    }
                    None => super::registers::internal_error(span),
                }
            }
            Expr::Len(a) => {
                let name = &self.array_names[a.index()];
                quote_spanned!(site(span.lo)=> #name.len())
            }
            Expr::Load { array, index } => {
                let a = self.k.arrays.get(*array);
                let name = &self.array_names[array.index()];
                let loc = self.loc(span);
                let idx: Vec<TokenStream> = index
                    .iter()
                    .map(|i| {
                        let e = self.expr(*i);
                        quote!((#e) as usize)
                    })
                    .collect();
                if let Some(code) = self.mode_load(*array, &idx, span) {
                    return code;
                }
                match (&a.kind, idx.len()) {
                    (ArrayKind::Global { .. }, _) => {
                        quote_spanned!(site(span.lo)=> #name.load(#(#idx,)* #loc)?)
                    }
                    (_, 1) => quote_spanned!(site(span.lo)=> #name.load1(#(#idx,)* #loc)?),
                    _ => quote_spanned!(site(span.lo)=> #name.load2(#(#idx,)* #loc)?),
                }
            }
            Expr::Unary { op, expr } => {
                let x = self.expr(*expr);
                match op {
                    UnaryOp::Neg if t.is_int() => {
                        quote_spanned!(site(span.lo)=> (#x).wrapping_neg())
                    }
                    UnaryOp::Neg => quote_spanned!(site(span.lo)=> (-(#x))),
                    UnaryOp::Not => quote_spanned!(site(span.lo)=> (!(#x))),
                }
            }
            Expr::Binary { op, left, right } => {
                let lt = self.types.expr(*left);
                let rt = self.types.expr(*right);
                let l = self.expr(*left);
                let r = self.expr(*right);
                self.binary(*op, lt, rt, l, r, span)
            }
            Expr::Cast { expr, to } => {
                // `half` types convert through `f32`, on both back ends.
                let from = self.types.expr(*expr);
                let mut x = self.expr(*expr);
                if from.is_half() {
                    let ft = scalar_tokens(from, span);
                    x = quote_spanned!(site(span.lo)=> #ft::to_f32(#x));
                }
                if to.is_half() {
                    let t = scalar_tokens(*to, span);
                    return quote_spanned!(site(span.lo)=> #t::from_f32((#x) as f32));
                }
                let t = scalar_tokens(*to, span);
                quote_spanned!(site(span.lo)=> ((#x) as #t))
            }
            Expr::AssumeUniform(inner) => {
                let v = self.expr(*inner);
                let loc = self.loc(span);
                quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::assume_uniform(#v, #loc)?)
            }
            Expr::Method {
                method,
                receiver,
                args,
            } => {
                let rt = self.types.expr(*receiver);
                let x = self.expr(*receiver);
                let a: Vec<TokenStream> = args.iter().map(|a| self.expr(*a)).collect();
                let loc = self.loc(span);
                let name = Ident::new(method.name(), site(span.lo));
                match method {
                    Method::Clamp => {
                        let (lo, hi) = (&a[0], &a[1]);
                        self.fallible(quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::clamp(#x, #lo, #hi, #loc)), span)
                    }
                    Method::Abs if rt.is_int() => {
                        quote_spanned!(site(span.lo)=> (#x).wrapping_abs())
                    }
                    Method::Pow => quote_spanned!(site(span.lo)=> (#x).wrapping_pow(#(#a),*)),
                    // The methods whose Rust versions panic: the panic is a fault.
                    Method::Ilog2 | Method::Ilog10 | Method::Isqrt => self.fallible(
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::#name(#x, #loc)),
                        span,
                    ),
                    Method::DivCeil | Method::DivEuclid | Method::RemEuclid => self.fallible(
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::#name(#x, #(#a,)* #loc)),
                        span,
                    ),
                    Method::NextPowerOfTwo => {
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::next_power_of_two(#x))
                    }
                    // Rust's own `checked_*`: whether it is `Some`, and its value.
                    Method::Checked(_) => {
                        quote_spanned!(site(span.lo)=> (#x).#name(#(#a),*).is_some())
                    }
                    Method::CheckedValue(_) => {
                        quote_spanned!(site(span.lo)=> (#x).#name(#(#a),*).unwrap_or_default())
                    }
                    Method::FromBits32 => quote_spanned!(site(span.lo)=> f32::from_bits(#x)),
                    Method::FromBits64 => quote_spanned!(site(span.lo)=> f64::from_bits(#x)),
                    Method::Min | Method::Max if rt.is_int() => {
                        quote_spanned!(site(span.lo)=> ::core::cmp::Ord::#name(#x, #(#a),*))
                    }
                    Method::Min => {
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::fmin(#x, #(#a),*))
                    }
                    Method::Max => {
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::fmax(#x, #(#a),*))
                    }
                    // The math methods: the library's one definition, as on the GPU.
                    m => match crate::math::function(*m, rt) {
                        Some(f) => {
                            let f = Ident::new(&f, site(span.lo));
                            quote_spanned!(site(span.lo)=> __cuphase_math::#f(#x, #(#a),*))
                        }
                        None => quote_spanned!(site(span.lo)=> (#x).#name(#(#a),*)),
                    },
                }
            }
            Expr::UniformLoad { array, index } => {
                let name = &self.array_names[array.index()];
                let loc = self.loc(span);
                let idx: Vec<TokenStream> = index
                    .iter()
                    .map(|i| {
                        let e = self.expr(*i);
                        quote!((#e) as usize)
                    })
                    .collect();
                if let Some(code) = self.mode_load(*array, &idx, span) {
                    return code;
                }
                if idx.len() == 1 {
                    quote_spanned!(site(span.lo)=> #name.load1(#(#idx,)* #loc)?)
                } else {
                    quote_spanned!(site(span.lo)=> #name.load2(#(#idx,)* #loc)?)
                }
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let c = self.guarded(*cond, self.expr(*cond));
                let a = self.expr(*accept);
                let r = self.expr(*reject);
                quote_spanned!(site(span.lo)=> (if #c { #a } else { #r }))
            }
        }
    }

    /// `l op r` with Rust's release-build meaning and the simulator's checked division.
    pub(super) fn binary(
        &self,
        op: BinaryOp,
        lt: Scalar,
        _rt: Scalar,
        l: TokenStream,
        r: TokenStream,
        span: Span,
    ) -> TokenStream {
        let loc = self.loc(span);
        if lt.is_int() {
            match op {
                BinaryOp::Add => return quote_spanned!(site(span.lo)=> (#l).wrapping_add(#r)),
                BinaryOp::Sub => return quote_spanned!(site(span.lo)=> (#l).wrapping_sub(#r)),
                BinaryOp::Mul => return quote_spanned!(site(span.lo)=> (#l).wrapping_mul(#r)),
                BinaryOp::Div => {
                    return self.fallible(
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::div(#l, #r, #loc)),
                        span,
                    );
                }
                BinaryOp::Rem => {
                    return self.fallible(
                        quote_spanned!(site(span.lo)=> ::cuphase::__private::sim::rem(#l, #r, #loc)),
                        span,
                    );
                }
                BinaryOp::Shl => {
                    return quote_spanned!(site(span.lo)=> (#l).wrapping_shl((#r) as u32))
                }
                BinaryOp::Shr => {
                    return quote_spanned!(site(span.lo)=> (#l).wrapping_shr((#r) as u32))
                }
                _ => {}
            }
        }
        let sym: TokenStream = match op {
            BinaryOp::Add => quote_spanned!(site(span.lo)=> +),
            BinaryOp::Sub => quote_spanned!(site(span.lo)=> -),
            BinaryOp::Mul => quote_spanned!(site(span.lo)=> *),
            BinaryOp::Div => quote_spanned!(site(span.lo)=> /),
            BinaryOp::Rem => quote_spanned!(site(span.lo)=> %),
            BinaryOp::BitAnd => quote_spanned!(site(span.lo)=> &),
            BinaryOp::BitOr => quote_spanned!(site(span.lo)=> |),
            BinaryOp::BitXor => quote_spanned!(site(span.lo)=> ^),
            BinaryOp::Shl => quote_spanned!(site(span.lo)=> <<),
            BinaryOp::Shr => quote_spanned!(site(span.lo)=> >>),
            BinaryOp::Eq => quote_spanned!(site(span.lo)=> ==),
            BinaryOp::Ne => quote_spanned!(site(span.lo)=> !=),
            BinaryOp::Lt => quote_spanned!(site(span.lo)=> <),
            BinaryOp::Le => quote_spanned!(site(span.lo)=> <=),
            BinaryOp::Gt => quote_spanned!(site(span.lo)=> >),
            BinaryOp::Ge => quote_spanned!(site(span.lo)=> >=),
            BinaryOp::And => quote_spanned!(site(span.lo)=> &&),
            BinaryOp::Or => quote_spanned!(site(span.lo)=> ||),
        };
        quote_spanned!(site(span.lo)=> ((#l) #sym (#r)))
    }
}

/// A literal of type `t`, suffixed with its type.
fn literal(l: &Literal, t: Scalar, span: Span) -> TokenStream {
    match l {
        Literal::Zero => {
            let ty = scalar_tokens(t, span);
            quote_spanned!(site(span.lo)=> <#ty as ::core::default::Default>::default())
        }
        Literal::Bool(b) => {
            if *b {
                quote_spanned!(site(span.lo)=> true)
            } else {
                quote_spanned!(site(span.lo)=> false)
            }
        }
        Literal::Int { value, .. } => {
            let text = format!("{}{}", value.unsigned_abs(), t.rust_name());
            let lit = match text.parse::<proc_macro2::Literal>() {
                Ok(mut lit) => {
                    lit.set_span(span.lo);
                    quote!(#lit)
                }
                Err(_) => {
                    quote_spanned!(site(span.lo)=> ::core::compile_error!("invalid integer literal"))
                }
            };
            if *value < 0 {
                quote_spanned!(site(span.lo)=> (-#lit))
            } else {
                lit
            }
        }
        Literal::Float { digits, .. } => {
            // Infinity and NaN have no literal: the type's constant.
            if digits.parse::<f64>().is_ok_and(|v| !v.is_finite()) {
                let ty = proc_macro2::Ident::new(t.rust_name(), span.lo);
                let name = if digits.parse::<f64>().is_ok_and(f64::is_nan) {
                    quote!(NAN)
                } else {
                    quote!(INFINITY)
                };
                return quote_spanned!(site(span.lo)=> ::core::primitive::#ty::#name);
            }
            let text = format!("{digits}{}", t.rust_name());
            match text.parse::<proc_macro2::Literal>() {
                Ok(mut lit) => {
                    lit.set_span(span.lo);
                    quote!(#lit)
                }
                Err(_) => {
                    quote_spanned!(site(span.lo)=> ::core::compile_error!("invalid float literal"))
                }
            }
        }
    }
}
