//! User-facing diagnostics and the context that collects them.
//!
//! Every stage reports problems into one [`Ctxt`] instead of stopping at the first, so a user
//! sees all the errors of a kernel in one build (serde_derive's pattern). A [`Diagnostic`] has a
//! primary span, optional secondary labels and notes; stable proc macros can only emit errors
//! at one span each, so [`Diagnostic::to_compile_error`] folds the labels and notes into the
//! message while keeping the primary span the user's own.

use crate::ir::Span;
use proc_macro2::TokenStream;
use quote::quote_spanned;
use std::fmt;

/// One problem in a kernel.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Where the problem is.
    pub span: Span,
    /// What is wrong, lowercase, code in backticks.
    pub message: String,
    /// Other places that explain the problem.
    pub labels: Vec<(Span, String)>,
    /// How to fix it.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic with a message at a span.
    pub fn new(span: impl Into<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            span: span.into(),
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// Adds a secondary label.
    pub fn label(mut self, span: impl Into<Span>, text: impl Into<String>) -> Self {
        self.labels.push((span.into(), text.into()));
        self
    }
    /// Adds a note, usually a fix.
    pub fn note(mut self, text: impl Into<String>) -> Self {
        self.notes.push(text.into());
        self
    }
    /// The full text: message, then labels with their line numbers, then notes.
    pub fn full_message(&self) -> String {
        let mut s = self.message.clone();
        let here = self.span.lo.file();
        for (span, text) in &self.labels {
            let line = span.start().line;
            let file = span.lo.file();
            if line > 0 && file != here && !file.is_empty() {
                // A place in another file (a helper from another module file or crate).
                s.push_str(&format!("\n  --> {file}:{line}: {text}"));
            } else if line > 0 {
                s.push_str(&format!("\n  --> line {line}: {text}"));
            } else {
                s.push_str(&format!("\n  --> {text}"));
            }
        }
        for note in &self.notes {
            s.push_str(&format!("\n  = help: {note}"));
        }
        s
    }
    /// `compile_error!` over the primary range (its first token to its last).
    pub fn to_compile_error(&self) -> TokenStream {
        let (lo, hi) = (self.span.lo, self.span.hi);
        let lo_tok = quote_spanned!(lo=> lo);
        let hi_tok = quote_spanned!(hi=> hi);
        syn::Error::new_spanned(quote::quote!(#lo_tok #hi_tok), self.full_message())
            .to_compile_error()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full_message())
    }
}

/// Collects the diagnostics of one kernel.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<Diagnostic>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt::default()
    }
    /// Records a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.errors.push(d);
    }
    /// Records a plain error at a span.
    pub fn error(&mut self, span: impl Into<Span>, message: impl Into<String>) {
        self.push(Diagnostic::new(span.into(), message));
    }
    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }
    /// Everything recorded.
    pub fn into_errors(self) -> Vec<Diagnostic> {
        self.errors
    }
    /// Ends collection: `Ok` if nothing was recorded.
    pub fn check(self) -> Result<(), Vec<Diagnostic>> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
    }
}
