use cuphase::prelude::*;

// The classic kernels written with no barrier at all: `sync = "auto"` places them.

/// `reverse` without its barrier.
#[kernel(sync = "auto")]
pub fn reverse_auto(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if i < input.len() as u32 {
        tile[t] = input[i];
    }
    let r = block_dim().x - 1 - t;
    if i < out.len() as u32 {
        out[i] = tile[r];
    }
}

/// alpaka's chunk reuse without its two barriers.
#[kernel(sync = "auto")]
pub fn neighbor_reuse_auto(out: &mut [i32], input: &[i32]) {
    let chunk = shared::<[i32; 256]>();
    let n = out.len() as u32;
    for chunk_offset in blocks_in_grid((0..n).step_by(256)) {
        for idx in threads_in_block(0..256u32) {
            chunk[idx] = input[chunk_offset + idx];
        }
        for idx in threads_in_block(0..256u32) {
            let neighbor = (idx + 1) % 256;
            out[chunk_offset + idx] = chunk[idx] + chunk[neighbor];
        }
    }
}

/// Tiled matmul without its two barriers per tile.
#[kernel(sync = "auto")]
pub fn tiled_matmul_auto(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
    let ta = shared::<[[f32; 16]; 16]>();
    let tb = shared::<[[f32; 16]; 16]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let row = block_idx().y * 16 + ty;
    let col = block_idx().x * 16 + tx;
    let mut acc = 0.0f32;
    for t in 0..(n + 15) / 16 {
        let a_col = t * 16 + tx;
        let b_row = t * 16 + ty;
        ta[ty][tx] = if row < n && a_col < n {
            a[row * n + a_col]
        } else {
            0.0
        };
        tb[ty][tx] = if b_row < n && col < n {
            b[b_row * n + col]
        } else {
            0.0
        };
        for k in 0..16u32 {
            acc += ta[ty][k] * tb[k][tx];
        }
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

/// Tree reduction without its barriers.
#[kernel(sync = "auto")]
pub fn block_reduce_auto(partial: &mut [f32], input: &[f32]) {
    let buf = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    buf[t] = if i < input.len() as u32 {
        input[i]
    } else {
        0.0
    };
    let mut s = block_dim().x / 2;
    while s > 0 {
        if t < s {
            buf[t] += buf[t + s];
        }
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x] = buf[0];
    }
}

/// Hillis–Steele scan without its barriers.
#[kernel(sync = "auto")]
pub fn scan_auto(out: &mut [u32], input: &[u32]) {
    let buf = shared::<[u32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    buf[t] = if i < input.len() as u32 { input[i] } else { 0 };
    let mut offset = 1u32;
    while offset < block_dim().x {
        let mut add = 0u32;
        if t >= offset {
            add = buf[t - offset];
        }
        buf[t] += add;
        offset *= 2;
    }
    if i < out.len() as u32 {
        out[i] = buf[t];
    }
}

/// Transpose without its barrier.
#[kernel(sync = "auto")]
pub fn transpose_auto(out: &mut [f32], input: &[f32], width: u32, height: u32) {
    let tile = shared::<[[f32; 33]; 32]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let x = block_idx().x * 32 + tx;
    let y = block_idx().y * 32 + ty;
    if x < width && y < height {
        tile[ty][tx] = input[y * width + x];
    }
    let ox = block_idx().y * 32 + tx;
    let oy = block_idx().x * 32 + ty;
    if ox < height && oy < width {
        out[oy * height + ox] = tile[tx][ty];
    }
}

/// Stencil without its barrier.
#[kernel(sync = "auto")]
pub fn stencil_auto(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 262]>();
    let t = thread_idx().x;
    let g = global_idx().x;
    let n = input.len() as u32;
    tile[t + 3] = if g < n { input[g] } else { 0.0 };
    if t < 3 {
        tile[t] = if g >= 3 && g - 3 < n {
            input[g - 3]
        } else {
            0.0
        };
        let right = g + block_dim().x;
        tile[t + block_dim().x + 3] = if right < n { input[right] } else { 0.0 };
    }
    let mut acc = 0.0f32;
    for o in 0..7u32 {
        acc += tile[t + o];
    }
    if g < n {
        out[g] = acc;
    }
}

/// Histogram without its barriers.
#[kernel(sync = "auto")]
pub fn histogram_auto(bins: &mut [u32], data: &[u32]) {
    let hist = shared::<[u32; 64]>();
    for b in threads_in_block(0..64u32) {
        hist[b] = 0;
    }
    for i in threads_in_grid(0..data.len() as u32) {
        let bin = data[i] % 64;
        hist.atomic_add(bin, 1);
    }
    for b in threads_in_block(0..64u32) {
        bins.atomic_add(b, hist[b]);
    }
}

/// A useless barrier and two adjacent ones: auto mode removes them.
#[kernel(sync = "auto")]
pub fn useless_barriers(out: &mut [u32]) {
    let i = global_idx().x;
    sync_block_threads();
    sync_block_threads();
    if i < out.len() as u32 {
        out[i] = i;
    }
}
