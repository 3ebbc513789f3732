//! cuphase's kernel compiler.
//!
//! The pipeline, one module per stage; imports point down it and never up:
//!
//! 1. [`ir`]: the kernel IR and the side tables handed down with it ([`ir::Types`]).
//! 2. [`front`]: a `syn::ItemFn` is lowered to the IR and type-checked; every user error is
//!    collected as a [`diag::Diagnostic`] with the user's span.
//! 3. [`analysis`]: the barrier analyses (divergence, races, `sync = "auto"`), on the IR.
//! 4. [`back`]: writers read the checked IR: [`back::cuda`] writes CUDA C, [`back::sim`] the
//!    Rust code the CPU simulator runs.
//! 5. [`pipeline`]: runs the stages above once per kernel ([`pipeline::Compiled`]).
//! 6. [`expand`]: the proc-macro output (the kernel value, `#[device]`'s trampoline,
//!    generic instances), on top of the pipeline.
//!
//! The proc-macro crate is a thin wrapper over [`expand`]; everything here is an ordinary
//! library, testable without a macro context ([`compile_str`]).

pub mod analysis;
pub mod back;
pub mod diag;
pub mod expand;
pub mod front;
pub mod ir;
pub mod math;
pub mod pipeline;

pub use expand::{
    expand_cfg, expand_continue, expand_device, expand_device_struct, expand_kernel,
    expand_kernel_closure,
};
pub use pipeline::{compile, compile_str, compile_str_with_helpers, compile_with, Compiled};
