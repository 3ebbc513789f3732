use cuphase::prelude::*;

/// Float methods whose results are correctly rounded on both back ends.
#[kernel]
pub fn float_exact(out: &mut [f32], x: f32, y: f32) {
    if global_idx().x == 0 {
        out[0] = x.sqrt();
        out[1] = x.floor();
        out[2] = x.ceil();
        out[3] = x.round();
        out[4] = x.trunc();
        out[5] = x.mul_add(y, 1.5);
        out[6] = (-x).abs();
        out[7] = x.min(y);
        out[8] = x.max(y);
        out[9] = x.clamp(-1.0, 1.0);
        out[10] = x.recip();
        out[11] = (x - 0.5).round();
    }
}

/// Transcendental functions: CUDA's and the host's libm may differ in the last bits.
#[kernel]
pub fn float_approx(out: &mut [f64], x: f64, y: f64, n: i32) {
    if global_idx().x == 0 {
        out[0] = x.exp();
        out[1] = x.exp2();
        out[2] = x.ln();
        out[3] = x.log2();
        out[4] = x.log10();
        out[5] = x.sin();
        out[6] = x.cos();
        out[7] = x.tan();
        out[8] = x.tanh();
        out[9] = x.powf(y);
        out[10] = x.powi(n);
    }
}

/// Integer methods with Rust's (release-build) meaning.
#[kernel]
pub fn int_methods(ints: &mut [i32], uints: &mut [u32], a: i32, b: u32, e: u32) {
    if global_idx().x == 0 {
        ints[0] = a.abs();
        ints[1] = a.min(7);
        ints[2] = a.max(7);
        ints[3] = a.pow(e);
        ints[4] = a.wrapping_mul(a);
        ints[5] = a.clamp(-5, 5);
        ints[6] = i32::MIN.abs();
        uints[0] = b.count_ones();
        uints[1] = b.leading_zeros();
        uints[2] = b.trailing_zeros();
        uints[3] = 0u32.trailing_zeros();
        uints[4] = 0u32.leading_zeros();
        uints[5] = b.rotate_left(e);
        uints[6] = b.rotate_right(e);
        uints[7] = b.pow(e);
        uints[8] = b.min(3);
        uints[9] = b.wrapping_sub(b + 1);
    }
}

/// `assert!`, `debug_assert!` and `panic!` become kernel panics.
#[kernel]
pub fn asserting(out: &mut [u32], limit: u32) {
    debug_assert!(limit > 0);
    let i = global_idx().x;
    assert!(i < limit, "thread index over the limit");
    if i == 1000 {
        panic!("thread 1000 reached");
    }
    if i < out.len() as u32 {
        out[i] = i;
    }
}

/// `clamp` with its bounds the wrong way round panics, as in Rust.
#[kernel]
pub fn bad_clamp(out: &mut [f32], lo: f32, hi: f32) {
    if global_idx().x == 0 {
        out[0] = 0.5f32.clamp(lo, hi);
    }
}

/// `lane_id()`, `warp_size()` and the fences.
#[kernel]
pub fn warp_ids(out: &mut [u32]) {
    let g = global_idx().x;
    let v = lane_id() + warp_size() * 1000;
    fence_block();
    fence_device();
    fence_system();
    if g < out.len() as u32 {
        out[g] = v;
    }
}

/// Float-to-integer `as` at the edges (NaN, infinities, out of range, negative to unsigned) and
/// `min`/`max` of signed zeros: one input per thread, every target type.
#[kernel]
pub fn float_edges(out: &mut [i64], zeros: &mut [f64], xs: &[f32], ys: &[f64]) {
    let i = global_idx().x as usize;
    if i < xs.len() {
        let x = xs[i];
        let y = ys[i];
        let o = i * 16;
        out[o] = (x as i8) as i64;
        out[o + 1] = (x as i16) as i64;
        out[o + 2] = (x as i32) as i64;
        out[o + 3] = x as i64;
        out[o + 4] = (x as u8) as i64;
        out[o + 5] = (x as u16) as i64;
        out[o + 6] = (x as u32) as i64;
        out[o + 7] = (x as u64) as i64;
        out[o + 8] = (y as i8) as i64;
        out[o + 9] = (y as i16) as i64;
        out[o + 10] = (y as i32) as i64;
        out[o + 11] = y as i64;
        out[o + 12] = (y as u8) as i64;
        out[o + 13] = (y as u16) as i64;
        out[o + 14] = (y as u32) as i64;
        out[o + 15] = (y as u64) as i64;
    }
    if i == 0 {
        zeros[0] = 0.0f64.min(-0.0);
        zeros[1] = (-0.0f64).min(0.0);
        zeros[2] = 0.0f64.max(-0.0);
        zeros[3] = (-0.0f64).max(0.0);
    }
}
