//! Side tables the front end hands down with the IR.
//!
//! [`Types`] gives the scalar type of every expression and variable of a kernel, by handle;
//! [`Checked`] is a kernel that passed the front end together with its table. The analyses
//! and the back ends read both and never reach back into the front end.

use super::{Expr, Handle, Kernel, Local, Scalar};

/// The type of every expression and local of a kernel.
#[derive(Clone, Debug)]
pub struct Types {
    exprs: Vec<Scalar>,
    locals: Vec<Scalar>,
}

impl Types {
    /// A table from the type of each expression and each local, in arena order.
    pub fn new(exprs: Vec<Scalar>, locals: Vec<Scalar>) -> Types {
        Types { exprs, locals }
    }
    /// The type of an expression.
    pub fn expr(&self, h: Handle<Expr>) -> Scalar {
        self.exprs[h.index()]
    }
    /// The type of a variable.
    pub fn local(&self, h: Handle<Local>) -> Scalar {
        self.locals[h.index()]
    }
}

/// A kernel that passed the front end: its IR and the types of its expressions.
///
/// Invariant: `types` has an entry for every expression and local of `kernel`; a transform
/// that adds expressions or locals (none does today: `sync = "auto"` only moves barriers)
/// must extend it.
pub struct Checked {
    /// The IR.
    pub kernel: Kernel,
    /// The type side table.
    pub types: Types,
}
