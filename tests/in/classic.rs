use cuphase::prelude::*;

/// Hillis–Steele inclusive scan of each block's elements, two barriers per step.
#[kernel]
pub fn scan(out: &mut [u32], input: &[u32]) {
    let buf = shared::<[u32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    buf[t] = if i < input.len() as u32 { input[i] } else { 0 };
    sync_block_threads();
    let mut offset = 1u32;
    while offset < block_dim().x {
        let mut add = 0u32;
        if t >= offset {
            add = buf[t - offset];
        }
        sync_block_threads();
        buf[t] += add;
        sync_block_threads();
        offset *= 2;
    }
    if i < out.len() as u32 {
        out[i] = buf[t];
    }
}

/// Matrix transpose through a 32x33 tile (the padding column avoids bank conflicts);
/// launch with 32x32 blocks.
#[kernel]
pub fn transpose(out: &mut [f32], input: &[f32], width: u32, height: u32) {
    let tile = shared::<[[f32; 33]; 32]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let x = block_idx().x * 32 + tx;
    let y = block_idx().y * 32 + ty;
    if x < width && y < height {
        tile[ty][tx] = input[y * width + x];
    }
    sync_block_threads();
    let ox = block_idx().y * 32 + tx;
    let oy = block_idx().x * 32 + ty;
    if ox < height && oy < width {
        out[oy * height + ox] = tile[tx][ty];
    }
}

/// 1-D stencil of radius 3: each block loads its elements and a halo on each side.
#[kernel]
pub fn stencil(out: &mut [f32], input: &[f32]) {
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
    sync_block_threads();
    let mut acc = 0.0f32;
    for o in 0..7u32 {
        acc += tile[t + o];
    }
    if g < n {
        out[g] = acc;
    }
}

/// Histogram of `data % 64` with shared-memory atomics, merged into `bins` atomically.
#[kernel]
pub fn histogram(bins: &mut [u32], data: &[u32]) {
    let hist = shared::<[u32; 64]>();
    for b in threads_in_block(0..64u32) {
        hist[b] = 0;
    }
    sync_block_threads();
    for i in threads_in_grid(0..data.len() as u32) {
        let bin = data[i] % 64;
        hist.atomic_add(bin, 1);
    }
    sync_block_threads();
    for b in threads_in_block(0..64u32) {
        bins.atomic_add(b, hist[b]);
    }
}
