//! The back ends: one writer per target, each reading the IR and the front end's side tables.
//!
//! - [`cuda`]: the CUDA C source for NVRTC.
//! - [`sim`]: Rust code for the CPU simulator.

pub mod cuda;
pub mod namer;
pub mod sim;
