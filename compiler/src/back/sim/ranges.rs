//! Whole-part bounds proofs for straight thread loops: where every index of a part is an
//! affine function of the thread's indices and of `for` variables, the block checks the
//! range each index takes over all its threads and iterations at once, and skips the check
//! pass when all of them lie in bounds.
//!
//! An index qualifies when it is built by `+`, `-`, `*` (one factor free of the thread) and
//! `as` from the thread's `thread_idx()` and `global_idx()`, the variables of `for` loops
//! over `start..end` around it (no step, counting up), variables `let` once in the part or
//! recomputed in every thread loop with such values, and block values: literals, parameters
//! the kernel never assigns, the block's own variables, `block_idx()`, `block_dim()`,
//! `grid_dim()`, lengths. The block evaluates the block values (each is computed once, with
//! the wrapping arithmetic the threads use), then the exact range of the index in `i128`
//! over the box of thread indices (the `x` range the guard admits, every `y` and `z`) and loop
//! values. The threads compute each index with wrapping `+`, `-` and `*`, which agree with
//! the exact value modulo the type's size, so where the exact range lies within the type at
//! every cast and at the index itself, the computed index is the exact one, and in bounds.
//! Conditions are ignored: every thread and every iteration is checked, whether or not the
//! access runs there, which over-approximates, never under.
//!
//! Refused (the check pass runs): anything else in an index (a division, a shift, a loaded
//! value, a variable kept per thread), a `while` or `loop`, a stepped or reversed `for`, and
//! any operation that may fault other than an access, or a `panic!`.

use super::plan::Split;
use super::Writer;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A variable of the box: a thread index or a `for` loop's variable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Var {
    Axis(Axis),
    For(Handle<Local>),
}

/// An affine form: a constant and a coefficient per variable, each an `Option<i128>`
/// expression the block evaluates (`None` once exact arithmetic overflows `i128`).
#[derive(Clone)]
struct Form {
    c0: TokenStream,
    terms: Vec<(Var, TokenStream)>,
}

impl Form {
    fn constant(c: TokenStream) -> Form {
        Form {
            c0: c,
            terms: Vec::new(),
        }
    }
    fn combine(self, other: Form, neg: bool) -> Form {
        let (a, b) = (self.c0, other.c0);
        let op = if neg {
            quote!(::cuphase::__private::sim::exact_sub)
        } else {
            quote!(::cuphase::__private::sim::exact_add)
        };
        let mut terms = self.terms;
        for (v, c) in other.terms {
            match terms.iter_mut().find(|(w, _)| *w == v) {
                Some((_, d)) => *d = quote!(#op(#d, #c)),
                None => terms.push((v, quote!(#op(::core::option::Option::Some(0i128), #c)))),
            }
        }
        Form {
            c0: quote!(#op(#a, #b)),
            terms,
        }
    }
    fn scale(self, k: &TokenStream) -> Form {
        let c0 = &self.c0;
        let mul = quote!(::cuphase::__private::sim::exact_mul);
        Form {
            c0: quote!(#mul(#c0, #k)),
            terms: self
                .terms
                .into_iter()
                .map(|(v, c)| (v, quote!(#mul(#c, #k))))
                .collect(),
        }
    }
}

/// The builder of a part's range proof.
struct Prover<'w, 'a> {
    w: &'w Writer<'a>,
    split: &'w Split,
    /// Per local: written in the part, and how often (locals `let` once are followed).
    writes: Vec<u32>,
    /// The `for` loops around the statement being scanned: variable, start, end forms.
    loops: Vec<(Handle<Local>, TokenStream, TokenStream)>,
    /// The block values, evaluated once before the check: `let __b<k>: i128 = ..;`.
    lets: Vec<TokenStream>,
    /// The conditions, each a `bool` expression over the box.
    conds: Vec<TokenStream>,
    depth: u32,
}

impl Prover<'_, '_> {
    /// Whether `e` is a block value (free of the thread, of loops and of memory).
    fn block_value(&self, e: Handle<Expr>) -> bool {
        let k = self.w.k;
        match k.exprs.get(e) {
            Expr::Literal(Literal::Int { .. }) | Expr::Len(_) => true,
            Expr::Builtin { builtin, .. } => matches!(
                builtin,
                Builtin::BlockIdx | Builtin::BlockDim | Builtin::GridDim | Builtin::WarpSize
            ),
            Expr::Local(l) => {
                let i = l.index();
                self.writes[i] == 0 && (self.split.fixed[i] || self.split.uniform[i])
            }
            Expr::Binary {
                op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul,
                left,
                right,
            } => self.block_value(*left) && self.block_value(*right),
            Expr::Cast { expr, to } => to.is_int() && self.block_value(*expr),
            _ => false,
        }
    }

    /// A block value as an `Option<i128>` of the check.
    fn value(&mut self, e: Handle<Expr>) -> TokenStream {
        let v = self.raw(e);
        quote!(::core::option::Option::Some(#v))
    }

    /// A block value as an `i128` variable of the check.
    fn raw(&mut self, e: Handle<Expr>) -> TokenStream {
        let name = format_ident!("__b{}", self.lets.len());
        let mut used = vec![false; self.w.k.locals.len()];
        super::plan::mark_expr(self.w.k, e, &mut used);
        let v = self.w.once(self.split, used, self.w.expr(e));
        self.lets.push(quote!(let #name: i128 = (#v) as i128;));
        quote!(#name)
    }

    /// The affine form of `e`, recording the range conditions of the casts inside it; `None`
    /// where it is not one.
    fn form(&mut self, e: Handle<Expr>) -> Option<Form> {
        let k = self.w.k;
        let t = self.w.types.expr(e);
        if !t.is_int() {
            return None;
        }
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let r = if self.block_value(e) {
            Some(Form::constant(self.value(e)))
        } else {
            match k.exprs.get(e) {
                Expr::Builtin {
                    builtin: Builtin::ThreadIdx,
                    axis,
                } => Some(Form {
                    c0: zero(),
                    terms: vec![(Var::Axis(*axis), one())],
                }),
                Expr::Builtin {
                    builtin: Builtin::GlobalIdx,
                    axis,
                } => {
                    // `block_idx * block_dim + thread_idx`, wrapping in `u32`: its range must
                    // fit a `u32`, as any `u32` operation's.
                    let a = proc_macro2::Ident::new(axis.name(), proc_macro2::Span::call_site());
                    let b = format_ident!("__b{}", self.lets.len());
                    self.lets.push(quote!(let #b: i128 = { let __p = __run.phase(); let __cx = __p.at(0, 0, 0); (__cx.block_idx.#a.wrapping_mul(__cx.block_dim.#a)) as i128 };));
                    let f = Form {
                        c0: quote!(::core::option::Option::Some(#b)),
                        terms: vec![(Var::Axis(*axis), one())],
                    };
                    self.fits(&f, Scalar::U32);
                    Some(f)
                }
                Expr::Local(l) => {
                    let i = l.index();
                    if let Some((v, ..)) = self.loops.iter().find(|(v, ..)| v == l) {
                        return self.done(Some(Form {
                            c0: zero(),
                            terms: vec![(Var::For(*v), one())],
                        }));
                    }
                    let once = self.writes[i] == 1 || (self.split.remat[i] && self.writes[i] == 0);
                    match self.split.init[i] {
                        Some(init) if once && self.lets_once(*l) => self.form(init),
                        _ => None,
                    }
                }
                Expr::Binary { op, left, right } => match op {
                    BinaryOp::Add | BinaryOp::Sub => {
                        let a = self.form(*left)?;
                        let b = self.form(*right)?;
                        Some(a.combine(b, *op == BinaryOp::Sub))
                    }
                    BinaryOp::Mul if self.block_value(*left) => {
                        let c = self.value(*left);
                        Some(self.form(*right)?.scale(&c))
                    }
                    BinaryOp::Mul if self.block_value(*right) => {
                        let c = self.value(*right);
                        Some(self.form(*left)?.scale(&c))
                    }
                    _ => None,
                },
                Expr::Cast { expr, to } if to.is_int() => {
                    let from = self.w.types.expr(*expr);
                    let f = self.form(*expr)?;
                    // The cast is the identity where the value fits both types.
                    self.fits(&f, from);
                    self.fits(&f, *to);
                    Some(f)
                }
                _ => None,
            }
        };
        self.done(r)
    }

    fn done(&mut self, r: Option<Form>) -> Option<Form> {
        self.depth -= 1;
        r
    }

    /// Whether local `l` is written by one `let` with a value, nowhere else in the kernel.
    fn lets_once(&self, l: Handle<Local>) -> bool {
        let mut lets = 0;
        let mut others = 0;
        visit::for_each_stmt(&self.w.k.body, false, &mut |s, _| {
            if s.written_local() == Some(l) {
                match s {
                    Stmt::Let { init: Some(_), .. } => lets += 1,
                    _ => others += 1,
                }
            }
        });
        lets == 1 && others == 0
    }

    /// The condition that `f`'s range over the box lies within `lo..=hi`.
    fn within(&mut self, f: &Form, lo: TokenStream, hi: TokenStream) {
        let c0 = &f.c0;
        let terms = f.terms.iter().map(|(v, c)| {
            let (a, b) = match v {
                Var::Axis(Axis::X) => (quote!(__xs.start), quote!(__xs.end - 1)),
                Var::Axis(Axis::Y) => (quote!(0), quote!(__dy - 1)),
                Var::Axis(Axis::Z) => (quote!(0), quote!(__dz - 1)),
                Var::For(l) => {
                    let (s, e) = self
                        .loops
                        .iter()
                        .find(|(w, ..)| w == l)
                        .map(|(_, s, e)| (s.clone(), e.clone()))
                        .unwrap_or((quote!(0i128), quote!(0i128)));
                    (s, quote!((#e) - 1))
                }
            };
            quote!((#c, (#a) as i128, (#b) as i128))
        });
        self.conds.push(quote!(
            ::cuphase::__private::sim::affine_within(#c0, &[#(#terms),*], #lo, #hi)
        ));
    }

    /// The condition that `f`'s range fits type `t`.
    fn fits(&mut self, f: &Form, t: Scalar) {
        let ty = crate::back::rust_types::scalar_tokens(t, proc_macro2::Span::call_site());
        self.within(f, quote!(#ty::MIN as i128), quote!(#ty::MAX as i128));
    }

    /// An access of `array` at `index`: each index within its dimension and its type.
    fn access(&mut self, array: Handle<Array>, index: &[Handle<Expr>]) -> Option<()> {
        if self.w.registers[array.index()] {
            return Some(());
        }
        let name = &self.w.array_names[array.index()];
        let a = self.w.k.arrays.get(array);
        for (d, i) in index.iter().enumerate() {
            let f = self.form(*i)?;
            self.fits(&f, self.w.types.expr(*i));
            // Local arrays live in the thread loop; their dimensions are the kernel's.
            let len = match (&a.kind, index.len(), d) {
                (ArrayKind::Local { dims, .. }, _, d) => {
                    let n = dims.get(d).copied().unwrap_or(0) as i128;
                    quote!(#n)
                }
                (ArrayKind::Global { .. }, _, _) => quote!((#name.len() as i128)),
                (_, 1, _) => quote!((#name.view().len() as i128)),
                (_, _, 0) => quote!((#name.view().rows() as i128)),
                _ => quote!((#name.view().cols() as i128)),
            };
            self.within(&f, quote!(0i128), quote!(#len - 1));
        }
        Some(())
    }

    fn exprs(&mut self, e: Handle<Expr>) -> Option<()> {
        let k = self.w.k;
        if super::straight::faults_itself(k, self.w.types, e) {
            return None;
        }
        if let Expr::Load { array, index } | Expr::UniformLoad { array, index } = k.exprs.get(e) {
            self.access(*array, index)?;
        }
        for o in k.exprs.get(e).operands() {
            self.exprs(o)?;
        }
        Some(())
    }

    fn block(&mut self, b: &Block) -> Option<()> {
        for (s, _) in b.iter() {
            self.stmt(s)?;
        }
        Some(())
    }

    fn stmt(&mut self, s: &Stmt) -> Option<()> {
        match s {
            // `x /= d` on integers may fault.
            Stmt::Assign {
                op: Some(BinaryOp::Div | BinaryOp::Rem),
                place,
                ..
            } if match place {
                Place::Local(l) => self.w.types.local(*l).is_int(),
                Place::Element { array, .. } => self.w.k.arrays.get(*array).elem.is_int(),
            } =>
            {
                None
            }
            Stmt::Assign {
                place: Place::Element { array, index },
                value,
                ..
            } => {
                self.exprs(*value)?;
                for i in index {
                    self.exprs(*i)?;
                }
                self.access(*array, index)
            }
            Stmt::Loop {
                kind:
                    LoopKind::For {
                        var,
                        start,
                        end,
                        step: None,
                        distribution: Distribution::Sequential,
                        inclusive: false,
                        reverse: None,
                    },
                body,
                ..
            } => {
                if !(self.block_value(*start) && self.block_value(*end)) {
                    return None;
                }
                let (s, e) = (self.raw(*start), self.raw(*end));
                self.loops.push((*var, s, e));
                let r = self.block(body);
                self.loops.pop();
                r
            }
            Stmt::Loop { .. } | Stmt::Panic { .. } | Stmt::Check { proved: false, .. } => None,
            _ => {
                for e in s.operands() {
                    self.exprs(e)?;
                }
                for b in s.blocks() {
                    self.block(b)?;
                }
                Some(())
            }
        }
    }
}

impl Writer<'_> {
    /// Where every index of the part `stmts` is affine (see the module's text): the code
    /// that computes, before the straight loop (with `__xs`, `__dy`, `__dz` at hand),
    /// whether all of them lie in bounds.
    pub(super) fn range_proof(
        &self,
        split: &Split,
        stmts: &[(&Stmt, Span)],
    ) -> Option<TokenStream> {
        let writes = write_counts(self.k, stmts);
        let mut p = Prover {
            w: self,
            split,
            writes,
            loops: Vec::new(),
            lets: Vec::new(),
            conds: Vec::new(),
            depth: 0,
        };
        for (s, _) in stmts {
            p.stmt(s)?;
        }
        if p.conds.len() > 64 {
            return None;
        }
        let (lets, conds) = (p.lets, p.conds);
        Some(quote!({
            #(#lets)*
            __xs.is_empty() || (true #(&& #conds)*)
        }))
    }

    /// The part's guards that a range proof may show true for every thread and iteration
    /// (`if i < n`, `if x + 1 < w && y < h`: comparisons of affine values): per guard, its
    /// condition and the name of a `bool` that says so; and the code that computes those
    /// `bool`s before the straight loop (with `__xs`, `__dy`, `__dz` at hand). Where one
    /// holds, the straight pass skips the test, which lets rustc vectorise the stores under
    /// it.
    pub(super) fn guard_proofs(
        &self,
        split: &Split,
        stmts: &[(&Stmt, Span)],
    ) -> (Vec<(Handle<Expr>, proc_macro2::Ident)>, TokenStream) {
        let writes = write_counts(self.k, stmts);
        let mut found = Vec::new();
        let mut code = Vec::new();
        for (s, _) in stmts {
            self.guards_in(split, &writes, s, &mut found, &mut code);
        }
        (found, quote!(#(#code)*))
    }

    /// [`Writer::guard_proofs`] for statement `s` (outside the part's loops).
    fn guards_in(
        &self,
        split: &Split,
        writes: &[u32],
        s: &Stmt,
        found: &mut Vec<(Handle<Expr>, proc_macro2::Ident)>,
        code: &mut Vec<TokenStream>,
    ) {
        if found.len() >= 16 {
            return;
        }
        let prover = || Prover {
            w: self,
            split,
            writes: writes.to_vec(),
            loops: Vec::new(),
            lets: Vec::new(),
            conds: Vec::new(),
            depth: 0,
        };
        let try_guard = |cond: Handle<Expr>, found: &mut Vec<_>, code: &mut Vec<_>| {
            let mut p = prover();
            if p.holds(cond).is_some() && p.conds.len() <= 32 {
                let g = format_ident!("__g{}", found.len());
                let (lets, conds) = (p.lets, p.conds);
                code.push(quote! {
                    let #g: bool = {
                        #(#lets)*
                        __xs.is_empty() || (true #(&& #conds)*)
                    };
                });
                found.push((cond, g));
            }
        };
        // `if c { a } else { b }` as a value.
        if !matches!(s, Stmt::Loop { .. }) {
            for e in s.operands() {
                let mut selects = Vec::new();
                selects_in(self.k, e, &mut selects);
                for c in selects {
                    try_guard(c, found, code);
                }
            }
        }
        match s {
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                try_guard(*cond, found, code);
                for b in [accept, reject] {
                    for (s, _) in b.iter() {
                        self.guards_in(split, writes, s, found, code);
                    }
                }
            }
            // Guards inside loops are left to the test (their box would need the loops').
            Stmt::Block(b) => {
                for (s, _) in b.iter() {
                    self.guards_in(split, writes, s, found, code);
                }
            }
            _ => {}
        }
    }
}

impl Prover<'_, '_> {
    /// Records the conditions under which `cond` holds for every point of the box: a
    /// comparison of affine values, or a conjunction of such; `None` where it is not one.
    fn holds(&mut self, cond: Handle<Expr>) -> Option<()> {
        let k = self.w.k;
        let Expr::Binary { op, left, right } = k.exprs.get(cond) else {
            return None;
        };
        let (l, r) = (*left, *right);
        // `a < b` holds everywhere where `b - a` is at least 1 everywhere.
        let (small, big, gap) = match op {
            BinaryOp::And => {
                self.holds(l)?;
                return self.holds(r);
            }
            BinaryOp::Lt => (l, r, 1i128),
            BinaryOp::Le => (l, r, 0),
            BinaryOp::Gt => (r, l, 1),
            BinaryOp::Ge => (r, l, 0),
            _ => return None,
        };
        let t = self.w.types.expr(small);
        if !t.is_int() {
            return None;
        }
        let (a, b) = (self.form(small)?, self.form(big)?);
        // Both sides are their exact values where they fit their type.
        self.fits(&a, t);
        self.fits(&b, t);
        let diff = b.combine(a, true);
        self.within(&diff, quote!(#gap), quote!(i128::MAX));
        Some(())
    }
}

/// Per local: how many statements of the part `stmts` write it.
fn write_counts(k: &Kernel, stmts: &[(&Stmt, Span)]) -> Vec<u32> {
    let mut writes = vec![0u32; k.locals.len()];
    for (s, _) in stmts {
        let mut count = |s: &Stmt, _| {
            if let Some(l) = s.written_local() {
                writes[l.index()] += 1;
            }
        };
        count(s, false);
        for b in s.blocks() {
            visit::for_each_stmt(b, false, &mut count);
        }
    }
    writes
}

/// The conditions of the `select`s (`if` as a value) in `e`.
fn selects_in(k: &Kernel, e: Handle<Expr>, out: &mut Vec<Handle<Expr>>) {
    let x = k.exprs.get(e);
    if let Expr::Select { cond, .. } = x {
        out.push(*cond);
    }
    for o in x.operands() {
        selects_in(k, o, out);
    }
}

fn zero() -> TokenStream {
    quote!(::core::option::Option::Some(0i128))
}

fn one() -> TokenStream {
    quote!(::core::option::Option::Some(1i128))
}
