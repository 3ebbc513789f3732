//! Method calls on struct values: `p.dot(q)` where `p` is a struct whose type has a method
//! `dot` in a `#[device] impl` block of the kernel's file is the helper call `T::dot(p, q)`
//! (see `front::methods`), inlined as any helper call is.

use super::cx::*;
use crate::diag::Diagnostic;
use crate::ir::*;

impl Lowerer<'_> {
    /// Whether `m` calls a method of a struct that returns a struct.
    pub(super) fn method_returns_record(&self, m: &syn::ExprMethodCall) -> bool {
        let Some(rec) = self.record_type_of(&m.receiver) else {
            return false;
        };
        let Some(r) = self.records.get(rec) else {
            return false;
        };
        self.consts
            .methods
            .get(&r.name, &m.method.to_string())
            .and_then(|f| f.returns.as_deref())
            .is_some_and(|n| self.consts.records.knows(n))
    }

    /// The call `T::name(receiver, args..)` that method call `m` stands for, where the
    /// receiver is a struct with such a method (a `&mut self` method borrows the receiver,
    /// which must be a `mut` struct variable). `Err(())` after an error.
    pub(super) fn record_method_call(
        &mut self,
        m: &syn::ExprMethodCall,
    ) -> Option<Result<syn::ExprCall, ()>> {
        let rec = self.record_type_of(&m.receiver)?;
        let ty = self.records.get(rec)?.name.clone();
        let name = m.method.to_string();
        if self.consts.methods.get(&ty, &name).is_none() {
            self.cx.push(
                Diagnostic::new(m.method.src(), format!("no method `{name}` on struct `{ty}` in kernels"))
                    .note(format!("kernels call the methods of `#[device] impl {ty} {{ .. }}` blocks in the kernel's file")),
            );
            return Some(Err(()));
        }
        let ty = syn::Ident::new(&ty, m.method.span());
        let method = &m.method;
        let receiver = &m.receiver;
        let args = m.args.iter();
        Some(Ok(
            syn::parse_quote_spanned!(m.method.span()=> #ty::#method(#receiver, #(#args),*)),
        ))
    }
}
