//! Straight thread loops: a thread loop run twice, first to check, then without checks.
//!
//! A thread loop of the phase-split code (`split`) checks every access's bounds, returns a
//! `Result` from every access and division, and tells the runtime which thread runs before
//! each one: per thread and access a few instructions and a branch, which keep rustc from
//! vectorising the loop. Where the threads' part qualifies, the writer also writes it twice
//! more, and the block runs those instead when the runtime allows:
//!
//! 1. the **check pass** (`Mode::Dry`) runs every thread's part with every store left out,
//!    every access reduced to its bounds check, every division to its zero check, each
//!    `panic!` to a flag; it writes nothing (no memory, no per-thread state) and stops at
//!    the first fault it finds;
//! 2. when it found none, the **straight pass** (`Mode::Fast`) runs the part for real with
//!    unchecked, unrecorded accesses (plain loads and stores where no other CPU thread can
//!    touch the element); otherwise the checked loop runs, and reports the fault exactly as
//!    it always did (same thread, same place, same earlier effects).
//!
//! Why the first pass proves the second safe: both run the same threads in the same order,
//! and everything that decides *which* accesses happen and *where* (indices, conditions,
//! loop bounds, divisors) is computed in the part from values the part cannot change:
//! parameters, thread indices, variables set before the part, and loads of arrays the part
//! does not write and no other CPU thread writes (read-only buffers, the block's shared
//! arrays, the thread's local arrays). The scan below ([`Writer::straight_part`]) refuses a
//! part where a value loaded from an array the part writes, or from a `&mut` buffer (another
//! block may write it meanwhile), reaches an index, a condition, a loop bound or a
//! divisor, following variables; such values only ever flow into stored values.
//!
//! The runtime allows the straight passes when the phase runs its threads in the forward order
//! (other orders are for testing: they run checked), when no array the part touches keeps a
//! race-detection shadow, and when each buffer read or written with plain accesses is one no
//! other CPU thread writes during the launch (a read-only buffer, or an exclusive one in a
//! launch that keeps it so: `Global::plain`).
//!
//! The same holds for the lanes of one warp between two warp operations (`Domain::Warp`: the
//! warp regions of `warps`), which run in the forward order as consecutive linear ids. A
//! buffer of structs or arrays is one view per scalar field (`Field`), each checked and
//! accessed as a buffer of scalars is.
//!
//! Refused outright (checked loop only): returns and loop exits out of the part, atomics,
//! warp operations themselves (their lanes' values move through plain loops instead, see
//! `warps`), asynchronous copies, matrix operations, prints, fences, `assume_uniform`.

use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// How the statement and expression writers write memory accesses and faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Checked accessors, `?` on every fault (the thread loops and the future per thread).
    Checked,
    /// The straight loop's check pass: bounds and fault checks into `__bad`, no effects.
    Dry,
    /// The straight pass: unchecked, unrecorded accesses.
    Fast,
}

/// The threads a straight loop runs.
pub(super) enum Domain {
    /// The block's threads, or those whose `x` lies in the range (a pair of `u64`s) given.
    Block(Option<TokenStream>),
    /// The lanes of warp `__w`.
    Warp,
}

/// What the runtime must confirm before a part runs straight: per array touched, the checks.
pub(super) struct Straight {
    checks: Vec<TokenStream>,
    /// The touched arrays' views as locals of the straight loops: rustc keeps them in
    /// registers, where it would reload them from the block's closure after every store
    /// (a store to a `Cell` may alias anything).
    views: Vec<TokenStream>,
    /// Per array: whether the part writes it.
    pub(super) written: Vec<bool>,
}

/// The scan of a part for [`Writer::straight_part`].
struct Scan<'a> {
    k: &'a Kernel,
    types: &'a Types,
    registers: &'a [bool],
    /// Per array: written in the part.
    written: Vec<bool>,
    /// Per local: may hold a value derived from a load of an array that may change (see the
    /// module's text).
    tainted: Vec<bool>,
    /// Per array: touched in the part (register arrays aside).
    touched: Vec<bool>,
    ok: bool,
}

impl Scan<'_> {
    /// Whether loads of `a` may see values that change between the two passes.
    fn source(&self, a: Handle<Array>) -> bool {
        self.written[a.index()]
            || self.k.arrays.get(a).kind == (ArrayKind::Global { mutable: true })
    }

    /// An access of `a` at `index`.
    fn access(&mut self, a: Handle<Array>, index: &[Handle<Expr>]) {
        let mut bad = false;
        for i in index {
            bad |= self.expr(*i);
        }
        if self.registers[a.index()] {
            return;
        }
        if bad {
            self.ok = false;
        }
        self.touched[a.index()] = true;
    }

    /// Scans `e`; whether its value may be tainted.
    fn expr(&mut self, e: Handle<Expr>) -> bool {
        let k = self.k;
        match k.exprs.get(e) {
            Expr::Literal(_) | Expr::Builtin { .. } | Expr::Len(_) => false,
            Expr::Local(l) => self.tainted[l.index()],
            Expr::Load { array, index } | Expr::UniformLoad { array, index } => {
                self.access(*array, index);
                self.source(*array)
            }
            Expr::AssumeUniform(_) => {
                self.ok = false;
                false
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let c = self.expr(*cond);
                let a = self.expr(*accept);
                let r = self.expr(*reject);
                // Which branch runs must not differ between the passes where one may fault.
                if c && (may_fault(k, self.types, *accept) || may_fault(k, self.types, *reject)) {
                    self.ok = false;
                }
                c || a || r
            }
            // `&&` and `||` evaluate their right side only for some values of the left.
            Expr::Binary {
                op: BinaryOp::And | BinaryOp::Or,
                left,
                right,
            } => {
                let l = self.expr(*left);
                let r = self.expr(*right);
                if l && may_fault(k, self.types, *right) {
                    self.ok = false;
                }
                l || r
            }
            x => {
                let ops = x.operands();
                let t = ops.iter().fold(false, |t, o| self.expr(*o) | t);
                if t && faults_itself(k, self.types, e) {
                    self.ok = false;
                }
                t
            }
        }
    }

    fn block(&mut self, b: &Block) {
        for (s, _) in b.iter() {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { local, init } => {
                if let Some(e) = init {
                    if self.expr(*e) {
                        self.tainted[local.index()] = true;
                    }
                }
            }
            Stmt::Assign { place, op, value } => {
                let t = self.expr(*value);
                // `x /= d`: the old value and `d` decide whether it faults.
                if let Some(BinaryOp::Div | BinaryOp::Rem) = op {
                    let (old, ty) = match place {
                        Place::Local(l) => (self.tainted[l.index()], self.types.local(*l)),
                        Place::Element { array, .. } => {
                            (self.source(*array), self.k.arrays.get(*array).elem)
                        }
                    };
                    if ty.is_int() && (t || old) && !safe_divisor(self.k, *value) {
                        self.ok = false;
                    }
                }
                match place {
                    Place::Local(l) => {
                        if t {
                            self.tainted[l.index()] = true;
                        }
                    }
                    Place::Element { array, index } => self.access(*array, index),
                }
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                if self.expr(*cond) {
                    self.ok = false;
                }
                self.block(accept);
                self.block(reject);
            }
            // A `for` variable's values come from its range, which must not be tainted.
            Stmt::Loop { body, .. } => {
                for e in s.operands() {
                    if self.expr(e) {
                        self.ok = false;
                    }
                }
                self.block(body);
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Eval(e) => {
                self.expr(*e);
            }
            Stmt::Check { index, .. } => {
                if self.expr(*index) {
                    self.ok = false;
                }
            }
            // Loop exits out of the part are refused by the caller (the part's scope).
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Panic { .. } => {}
            Stmt::Return
            | Stmt::Barrier { .. }
            | Stmt::Fence(_)
            | Stmt::Atomic { .. }
            | Stmt::Warp { .. }
            | Stmt::Mma { .. }
            | Stmt::LoadMatrix { .. }
            | Stmt::AsyncCopy { .. }
            | Stmt::AsyncCommit
            | Stmt::AsyncWait { .. }
            | Stmt::Wgmma { .. }
            | Stmt::WgmmaCommit
            | Stmt::WgmmaWait { .. }
            | Stmt::Print { .. } => self.ok = false,
        }
    }
}

/// Whether `d` is a divisor that cannot fault: an integer literal other than 0 and -1.
fn safe_divisor(k: &Kernel, d: Handle<Expr>) -> bool {
    matches!(k.exprs.get(d), Expr::Literal(Literal::Int { value, .. }) if *value != 0 && *value != -1)
}

/// Whether evaluating `e` itself may fault, its operands aside (an integer division by a
/// value that may be zero or, signed, -1; a method whose Rust version panics).
pub(super) fn faults_itself(k: &Kernel, types: &Types, e: Handle<Expr>) -> bool {
    match k.exprs.get(e) {
        Expr::Binary {
            op: BinaryOp::Div | BinaryOp::Rem,
            left,
            right,
        } => types.expr(*left).is_int() && !safe_divisor(k, *right),
        Expr::Method { method, .. } => matches!(
            method,
            Method::Clamp
                | Method::Ilog2
                | Method::Ilog10
                | Method::Isqrt
                | Method::DivCeil
                | Method::DivEuclid
                | Method::RemEuclid
        ),
        Expr::AssumeUniform(_) => true,
        _ => false,
    }
}

/// Whether evaluating `e` may fault: an access, or an operation [`faults_itself`] names.
pub(super) fn may_fault(k: &Kernel, types: &Types, e: Handle<Expr>) -> bool {
    let mut found = false;
    visit::any_expr(k, e, &mut |x| {
        found |= matches!(x, Expr::Load { .. } | Expr::UniformLoad { .. });
        found
    });
    found || any_sub(k, e, &|h| faults_itself(k, types, h))
}

/// Whether `p` holds for `e` or any expression inside it.
fn any_sub(k: &Kernel, e: Handle<Expr>, p: &dyn Fn(Handle<Expr>) -> bool) -> bool {
    p(e) || k
        .exprs
        .get(e)
        .operands()
        .into_iter()
        .any(|o| any_sub(k, o, p))
}

impl Writer<'_> {
    /// Whether the threads' part `stmts` may run straight (see the module's text), and
    /// what the runtime must confirm first; `None` where it runs checked only.
    pub(super) fn straight_part(&self, stmts: &[(&Stmt, Span)]) -> Option<Straight> {
        let k = self.k;
        let written = super::registers::arrays_written(k, stmts);
        let mut scan = Scan {
            k,
            types: self.types,
            registers: &self.registers,
            written,
            tainted: vec![false; k.locals.len()],
            touched: vec![false; k.arrays.len()],
            ok: true,
        };
        // Taint only grows: scan until it stops; the last scan's verdict is the answer.
        loop {
            let before = scan.tainted.clone();
            scan.ok = true;
            for (s, _) in stmts {
                scan.stmt(s);
            }
            if !scan.ok {
                return None;
            }
            if scan.tainted == before {
                break;
            }
        }
        let mut checks = Vec::new();
        let mut views = Vec::new();
        for (h, a) in k.arrays.iter() {
            if !scan.touched[h.index()] {
                continue;
            }
            let name = &self.array_names[h.index()];
            match a.kind {
                ArrayKind::Global { mutable } => {
                    checks.push(quote!(#name.unshadowed()));
                    if !mutable || self.exclusive.contains(&h) {
                        checks.push(quote!(#name.plain()));
                    }
                    views.push(quote!(let #name = #name;));
                }
                ArrayKind::Shared { .. } => {
                    checks.push(quote!(#name.unshadowed()));
                    views.push(quote!(let #name = #name.view();));
                }
                // A thread's local arrays never have a shadow.
                ArrayKind::Local { .. } => {}
            }
        }
        Some(Straight {
            checks,
            views,
            written: scan.written,
        })
    }

    /// The thread loop `checked` of the threads' part `stmts` (whose locals used and written,
    /// and scope, `thread_part` gave), with its straight loops over `domain` where the part
    /// may run straight.
    pub(super) fn maybe_straight(
        &self,
        split: &super::plan::Split,
        stmts: &[(&Stmt, Span)],
        (used, written, scope): (&[bool], &[bool], &super::plan::Scope),
        domain: Domain,
        checked: TokenStream,
    ) -> TokenStream {
        let straight = (!scope.returns && scope.exits.is_empty())
            .then(|| self.straight_part(stmts))
            .flatten();
        let Some(straight) = straight else {
            return checked;
        };
        *self.part_writes.borrow_mut() = straight.written.clone();
        let (guards, guard_code) = self.guard_proofs(split, stmts);
        let [dry, fast] = [Mode::Dry, Mode::Fast].map(|mode| {
            self.mode.set(mode);
            if mode == Mode::Fast {
                *self.guards.borrow_mut() = guards.clone();
            }
            self.thread_part(split, stmts).0
        });
        self.mode.set(Mode::Checked);
        self.part_writes.borrow_mut().clear();
        self.guards.borrow_mut().clear();
        let proof = self.range_proof(split, stmts);
        self.straight_loop(
            split,
            &straight,
            used,
            written,
            [dry, fast, guard_code],
            domain,
            proof,
            checked,
        )
    }

    /// The loops of a part that may run straight: the check pass (skipped where `proof`, the
    /// part's range proof, holds) and, when it finds no fault, the straight pass; else
    /// `checked`, the thread loop as it always is. `guards`: the code that says which of the
    /// straight pass's guards hold for every thread (`ranges`). `domain`: the threads the
    /// loops run.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn straight_loop(
        &self,
        split: &super::plan::Split,
        straight: &Straight,
        used: &[bool],
        written: &[bool],
        [dry, fast, guards]: [TokenStream; 3],
        domain: Domain,
        proof: Option<TokenStream>,
        checked: TokenStream,
    ) -> TokenStream {
        let cx = match domain {
            Domain::Block(_) => quote!(__p.at(__x, __y, __z)),
            Domain::Warp => quote!(__p.ctx(__t)),
        };
        // Per-thread stores are indexed unchecked in the straight loops (`__t` is a thread's).
        self.mode.set(Mode::Dry);
        let dry_prelude = self.thread_prelude_with(split, used.to_vec(), &cx);
        self.mode.set(Mode::Fast);
        let fast_prelude = self.thread_prelude_with(split, used.to_vec(), &cx);
        let back = self.write_back(split, written);
        self.mode.set(Mode::Checked);
        let skip = self.skip_returned(split);
        let warp = matches!(domain, Domain::Warp);
        // The block's threads by rows, `x` fastest: the forward order of the checked loop; or
        // the lanes of warp `__w` in order, consecutive linear ids.
        let each = |label: TokenStream, body: TokenStream| {
            if warp {
                return quote! {
                    #label for __t in 32 * __w..32 * __w + __run.lanes(__w) {
                        #skip
                        #body
                    }
                };
            }
            quote! {
                #label for __z in 0..__dz {
                    for __y in 0..__dy {
                        for __x in __xs.clone() {
                            let __t = __p.linear(__x, __y, __z);
                            #skip
                            #body
                        }
                    }
                }
            }
        };
        let dry = each(quote!('__dry:), quote!(#dry_prelude #dry));
        let fast = each(quote!(), quote!(#fast_prelude #fast #back));
        // The range proof and the guards' proofs are over the block's (or the guard's) rows: a
        // warp's lanes are some of them.
        let bounds = match domain {
            Domain::Block(Some(bounds)) => bounds,
            Domain::Block(None) | Domain::Warp => quote!((0u64, u64::MAX)),
        };
        let proof = proof.unwrap_or(quote!(false));
        let checks = &straight.checks;
        let views = &straight.views;
        quote! {
            let __p = __run.phase();
            let (__lo, __hi): (u64, u64) = #bounds;
            let (__xs, __dy, __dz) = __p.rows(__lo, __hi);
            if __p.straight() #(&& #checks)* && ((#proof) || {
                #(#views)*
                let mut __bad = false;
                #dry
                !__bad
            }) {
                #guards
                #(#views)*
                #fast
            } else {
                #checked
            }
        }
    }

    /// `call`, a `Result` whose error is a fault, as the mode treats faults.
    pub(super) fn fallible(&self, call: TokenStream, span: Span) -> TokenStream {
        match self.mode.get() {
            Mode::Checked => quote_spanned!(site(span.lo)=> #call?),
            Mode::Dry => quote_spanned! {site(span.lo)=>
                match #call {
                    ::core::result::Result::Ok(__x) => __x,
                    ::core::result::Result::Err(_) => {
                        __bad = true;
                        break '__dry;
                    }
                }
            },
            // The check pass found no fault here; should one happen, it is the thread's.
            Mode::Fast => quote_spanned! {site(span.lo)=>
                match #call {
                    ::core::result::Result::Ok(__x) => __x,
                    ::core::result::Result::Err(__f) => {
                        return ::core::result::Result::Err(__p.blame(__t, __f));
                    }
                }
            },
        }
    }

    /// A fault the code reaches (`fault`: an expression of type `Fault`), as the mode
    /// treats it.
    pub(super) fn fault(&self, fault: TokenStream, span: Span) -> TokenStream {
        match self.mode.get() {
            Mode::Checked => {
                quote_spanned!(site(span.lo)=> return ::core::result::Result::Err(#fault);)
            }
            Mode::Dry => quote_spanned!(site(span.lo)=> { __bad = true; break '__dry; }),
            Mode::Fast => {
                quote_spanned!(site(span.lo)=> return ::core::result::Result::Err(__p.blame(__t, #fault));)
            }
        }
    }

    /// At the top of each iteration of a loop inside a part: in the check pass, stop once
    /// a fault was found (values past it may be anything, and so may the loop's length).
    pub(super) fn dry_stop(&self) -> TokenStream {
        match self.mode.get() {
            Mode::Dry => quote!(if __bad {
                break '__dry;
            }),
            _ => quote!(),
        }
    }

    /// A load of `array` (not a register array) at `idx` (`usize` expressions), as the mode
    /// writes it; `None` in checked mode (the caller writes the checked accessor).
    pub(super) fn mode_load(
        &self,
        array: Handle<Array>,
        idx: &[TokenStream],
        span: Span,
    ) -> Option<TokenStream> {
        let mode = self.mode.get();
        if mode == Mode::Checked {
            return None;
        }
        let a = self.k.arrays.get(array);
        let elem = scalar_tokens(a.elem, span);
        let names = index_names(idx.len(), span);
        let lets = quote!(#(let #names = #idx;)*);
        let (holds, get) = self.unchecked(array, &names, None);
        Some(match mode {
            Mode::Dry => {
                // A value that may change between the passes only flows into stored values
                // (the scan's guarantee), which this pass drops: its bounds are all it needs.
                let changes = self.k.arrays.get(array).kind
                    == (ArrayKind::Global { mutable: true })
                    || self.written_in_part(array);
                if changes {
                    quote_spanned!(site(span.lo)=> { #lets __bad |= !(#holds); <#elem as ::core::default::Default>::default() })
                } else {
                    quote_spanned!(site(span.lo)=> {
                        #lets
                        if #holds {
                            unsafe { #get }
                        } else {
                            __bad = true;
                            <#elem as ::core::default::Default>::default()
                        }
                    })
                }
            }
            _ => quote_spanned!(site(span.lo)=> { #lets unsafe { #get } }),
        })
    }

    /// A store of `value` (an expression, evaluated first) to `array` at `idx`, with `op`
    /// when compound (`new` combines `old` and `__v`), as the mode writes it; `None` in
    /// checked mode.
    pub(super) fn mode_store(
        &self,
        array: Handle<Array>,
        idx: &[TokenStream],
        value: TokenStream,
        new: impl FnOnce(TokenStream) -> TokenStream,
        span: Span,
    ) -> Option<TokenStream> {
        let mode = self.mode.get();
        if mode == Mode::Checked {
            return None;
        }
        let names = index_names(idx.len(), span);
        let lets = quote!(#(let #names = #idx;)*);
        let (holds, get) = self.unchecked(array, &names, None);
        Some(match mode {
            Mode::Dry => quote_spanned! {site(span.lo)=> {
                let __v = #value;
                #lets
                __bad |= !(#holds);
            }},
            _ => {
                let (_, set) = self.unchecked(array, &names, Some(quote!(__new)));
                let combined = new(quote!(unsafe { #get }));
                quote_spanned! {site(span.lo)=> {
                    let __v = #value;
                    #lets
                    let __new = #combined;
                    unsafe { #set }
                }}
            }
        })
    }

    /// The bounds test and the unchecked access (a load, or with `store` a store of it) of
    /// `array` at the index variables `names`.
    fn unchecked(
        &self,
        array: Handle<Array>,
        names: &[proc_macro2::Ident],
        store: Option<TokenStream>,
    ) -> (TokenStream, TokenStream) {
        let a = self.k.arrays.get(array);
        let name = &self.array_names[array.index()];
        match (&a.kind, names) {
            (ArrayKind::Global { mutable }, [i]) => {
                let plain = !mutable || self.exclusive.contains(&array);
                let access = match (plain, store) {
                    (true, None) => quote!(#name.load_plain(#i)),
                    (false, None) => quote!(#name.load_unchecked(#i)),
                    (true, Some(v)) => quote!(#name.store_plain(#i, #v)),
                    (false, Some(v)) => quote!(#name.store_unchecked(#i, #v)),
                };
                (quote!(#name.holds(#i)), access)
            }
            (_, [i]) => {
                let access = match store {
                    None => quote!(#name.view().get1(#i)),
                    Some(v) => quote!(#name.view().set1(#i, #v)),
                };
                (quote!(#name.view().holds1(#i)), access)
            }
            (_, [r, c]) => {
                let access = match store {
                    None => quote!(#name.view().get2(#r, #c)),
                    Some(v) => quote!(#name.view().set2(#r, #c, #v)),
                };
                (quote!(#name.view().holds2(#r, #c)), access)
            }
            _ => (
                quote!(false),
                quote!(::core::compile_error!(
                    "cuphase: an access's indices (internal error of the simulator writer)"
                )),
            ),
        }
    }

    /// Condition `cond`, written as `c`, where the straight pass being written may skip it:
    /// behind the `bool` that says it holds for every thread (`ranges::guard_proofs`).
    pub(super) fn guarded(&self, cond: Handle<Expr>, c: TokenStream) -> TokenStream {
        match self.guards.borrow().iter().find(|(e, _)| *e == cond) {
            Some((_, g)) => quote!(#g || #c),
            None => c,
        }
    }

    /// Whether the part being written writes `array`.
    fn written_in_part(&self, array: Handle<Array>) -> bool {
        self.part_writes
            .borrow()
            .get(array.index())
            .copied()
            .unwrap_or(true)
    }
}

/// `__i0`, `__i1`, ..: the index variables of one access.
fn index_names(n: usize, span: Span) -> Vec<proc_macro2::Ident> {
    (0..n)
        .map(|i| proc_macro2::Ident::new(&format!("__i{i}"), site(span.lo)))
        .collect()
}
