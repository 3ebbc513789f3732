//! The barrier analyses (DESIGN.md §3). They read the checked IR and return side tables;
//! only `sync = "auto"`'s transform changes the kernel, after which everything runs again on
//! the transformed kernel, so that the checks always see the form the back ends emit.
//!
//! - [`uniformity`]: which values and which control flow are block-uniform; divergent barriers.

pub mod uniformity;

use crate::diag::{Ctxt, Diagnostic};
use crate::front::Checked;

/// Runs every check on a checked kernel.
pub fn check(checked: &mut Checked) -> Result<(), Vec<Diagnostic>> {
    let mut cx = Ctxt::new();
    let _uniformity = uniformity::analyze(&mut cx, &checked.kernel);
    cx.check()
}
