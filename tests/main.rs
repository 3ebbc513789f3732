//! cuphase's integration tests, one binary: the example kernels and others in `tests/in/`
//! are compiled by `#[kernel]` here and run on the simulator (always), compiled by NVRTC for
//! sm_80 and sm_90 (tier 2, when NVRTC is found) and run on a GPU against the simulator
//! (tier 3, when a GPU is present). `snapshots` compares the generated CUDA C with
//! `tests/out/cuda/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Says why a test (or a part of one) skipped, where `cargo test` shows it without
/// `--nocapture`: straight to the process's standard error, which the test harness does not
/// capture (it captures `print!` and `eprint!`).
macro_rules! skip {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

mod apps;
mod array_fields;
mod arrays;
mod async_copy;
mod attention;
mod blocks;
mod cases;
mod cfgs;
mod closures;
mod concurrency;
mod edges;
mod exhaustion;
mod gpu;
mod kernels;
mod large_shared;
mod layering;
mod ldmatrix;
mod math;
mod methods;
mod mma;
mod multi;
mod nvrtc;
mod options;
mod phases;
mod ports;
mod prints;
mod runtime;
mod samples;
pub mod sim;
mod snapshots;
mod specialize;
mod straight;
mod structs;
mod vectors;
mod wgmma;
