//! The back ends: one writer per target, each reading the IR and the front end's side tables.
//!
//! - [`cuda`]: the CUDA C source for NVRTC.
//! - [`sim`]: Rust code for the CPU simulator.
//! - [`namer`]: the identifiers both emit.
//!
//! Back ends import only the stages below them (today only [`crate::ir`], and the contract
//! crate); nothing here changes the IR, so every back end sees the kernel the analyses
//! checked.

pub mod cuda;
pub mod namer;
pub mod rust_types;
pub mod sim;
