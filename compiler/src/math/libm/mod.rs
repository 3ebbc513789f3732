//! The one definition of the float math methods kernels call (`exp`, `ln`, `sin`, `powf`, ...).
//!
//! This module is Rust in a small subset (see `math::c`): rustc compiles it as a module of
//! the compiler (so its unit tests run it directly against a high-precision reference), the
//! simulator's code includes its text verbatim, and `math::c` translates the same text to
//! CUDA C for the GPU. Both back ends therefore execute the same IEEE operations (`+ - * /`,
//! `mul_add`, `sqrt`, `round`, bit casts and integer arithmetic, each exactly rounded on both),
//! so a method gives the same bits on the simulator and on the GPU.
//!
//! The f64 functions are evaluated with double-double steps where it pays (argument
//! reduction, the logarithm). The common f32 functions are computed in f32 arithmetic (within
//! 1-3 ulp); the other f32 functions evaluate the f64 ones and round once, which is correctly
//! rounded except where the exact result lies within about 2^-29 ulp of a tie. The error
//! bounds measured against a 256-bit reference are in README and in the tests
//! (`math::tests`).
//!
//! Rules of the subset, which keep Rust's meaning and C's equal: every `let` has a type; no
//! integer operation overflows, no shift reaches the width, no float-to-integer cast leaves
//! the target's range (the tests run this code in debug builds, where rustc checks the first
//! two); `!` is applied to `bool`s only.

#![allow(
    clippy::excessive_precision,
    clippy::approx_constant,
    clippy::manual_range_contains,
    clippy::eq_op,
    clippy::needless_return
)]

mod exp_log;
mod single;
mod trig;

pub use exp_log::*;
pub use single::*;
pub use trig::*;
