//! `#[device]` helpers: generic, with `&mut` and array parameters, calling each other across
//! modules, with barriers inside and trailing sync.

use cuphase::prelude::*;

/// Arithmetic helpers.
pub mod math {
    use cuphase::prelude::*;

    #[device]
    pub fn square<T: Num>(x: T) -> T {
        x * x
    }

    /// Calls `square`, found from this module whatever module the kernel is in.
    #[device]
    pub fn sum_sq<T: Num>(a: T, b: T) -> T {
        square(a) + square(b)
    }

    #[device]
    pub fn clamp01<T: Float>(x: T) -> T {
        if x < 0.0 {
            return 0.0;
        }
        x.min(1.0)
    }

    #[device]
    pub fn accumulate(acc: &mut f32, v: f32) {
        *acc += v;
    }

    /// An early `return`, and a loop.
    #[device]
    pub fn lowest_set_bit(x: u32) -> u32 {
        if x == 0 {
            return 32;
        }
        let mut i = 0u32;
        while (x >> i) & 1 == 0 {
            i += 1;
        }
        i
    }
}

/// Cooperative helpers over a shared tile.
pub mod tiles {
    use cuphase::prelude::*;

    /// Writes shared memory: ends on a barrier (trailing sync).
    #[device]
    pub fn load_tile(tile: &mut [f32; 256], input: &[f32], i: u32) {
        let t = thread_idx().x;
        tile[t] = if i < input.len() as u32 {
            input[i]
        } else {
            0.0
        };
    }

    /// A tree reduction with barriers inside; every thread gets the sum.
    #[device]
    pub fn tile_sum<const N: usize>(tile: &mut [f32; N]) -> f32 {
        let t = thread_idx().x;
        let mut s = N as u32 / 2;
        while s > 0 {
            if t < s {
                tile[t] += tile[t + s];
            }
            sync_block_threads();
            s /= 2;
        }
        uniform_load(&tile[0])
    }
}

use math::{accumulate, clamp01, lowest_set_bit, sum_sq};

/// Scalar helpers, generic ones instantiated for `f32` and `u32`.
#[kernel]
pub fn helper_math(out: &mut [f32], bits: &mut [u32], input: &[f32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        let x = input[i];
        let mut acc = 0.0f32;
        accumulate(&mut acc, sum_sq(x, 1.0f32));
        accumulate(&mut acc, clamp01(x));
        out[i] = acc;
        bits[i] = lowest_set_bit(i) + math::sum_sq(i % 7, 2u32);
    }
}

/// A block sum through cooperative helpers (by path, across modules).
#[kernel]
pub fn helper_reduce(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let i = global_idx().x;
    tiles::load_tile(&mut tile, input, i);
    let total = tiles::tile_sum(&mut tile);
    if thread_idx().x == 0 {
        out[block_idx().x] = total;
    }
}

/// A generic kernel: instantiated for `f32` and `f64`, each instance checked and compiled.
#[kernel]
pub fn generic_axpy<T: Float>(out: &mut [T], x: &[T], a: T) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = math::square(a) * x[i] + out[i] + 1 as T;
    }
}

/// Local closures: inlined at each call, seeing the variables of where they are written.
#[kernel]
pub fn local_closures(out: &mut [i64], input: &[i64]) {
    let i = global_idx().x;
    let base = 10i64;
    let scale = |x: i64| x * 3 + base;
    let base = 1000i64;
    let mut count = 0i64;
    let mut bump = |d: i64| {
        count += d;
    };
    if i < out.len() as u32 {
        let v = input[i];
        bump(v);
        bump(2);
        let clamp = |x: i64| -> i64 {
            if x > 50 {
                return 50;
            }
            x
        };
        out[i] = scale(v) + clamp(v) + count + base;
    }
}

/// A const generic kernel: `N` is the block size and the length of its shared array (the
/// launch's dynamic shared memory, sized by the kernel value: `const_block_sum::<128>`).
#[kernel]
pub fn const_block_sum<const N: u32>(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; N]>();
    let t = thread_idx().x;
    let i = block_idx().x * N + t;
    tile[t] = if i < input.len() as u32 {
        input[i]
    } else {
        0.0
    };
    sync_block_threads();
    let mut s = N / 2;
    while s > 0 {
        if t < s {
            tile[t] += tile[t + s];
        }
        sync_block_threads();
        s /= 2;
    }
    if t == 0 {
        out[block_idx().x] = tile[0];
    }
}
