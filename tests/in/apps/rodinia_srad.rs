//! Rodinia srad v2 (github: yuhc/gpu-rodinia, `cuda/srad/srad_v2/srad_kernel.cu`): speckle
//! reducing anisotropic diffusion over 16 x 16 tiles, ported as its authors wrote it, with
//! C's `int` arithmetic as `i32` and C's `double` literals computing in `f64`.

use cuphase::prelude::*;

/// srad's block size: blocks of `SRAD_BLOCK_SIZE` x `SRAD_BLOCK_SIZE` threads, one per pixel.
pub const SRAD_BLOCK_SIZE: usize = 16;

/// srad v2 `srad_cuda_1`: the four directional derivatives of each pixel (from the block's
/// tile, or at its edges from the neighbouring block's row or column, or at the image's edges
/// from the pixel's own row or column) and the saturated diffusion coefficient.
#[kernel]
pub fn srad_cuda_1(
    e_c: &mut [f32],
    w_c: &mut [f32],
    n_c: &mut [f32],
    s_c: &mut [f32],
    j_cuda: &[f32],
    c_cuda: &mut [f32],
    cols: i32,
    rows: i32,
    q0sqr: f32,
) {
    let _ = rows;
    let bx = block_idx().x as i32;
    let by = block_idx().y as i32;

    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;

    let bs = SRAD_BLOCK_SIZE as i32;
    let index = cols * bs * by + bs * bx + cols * ty + tx;
    let index_n = cols * bs * by + bs * bx + tx - cols;
    let index_s = cols * bs * by + bs * bx + cols * bs + tx;
    let index_w = cols * bs * by + bs * bx + cols * ty - 1;
    let index_e = cols * bs * by + bs * bx + cols * ty + bs;

    let temp = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let temp_result = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();

    let north = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let south = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let east = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let west = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();

    let (y, x) = (ty as u32, tx as u32);
    let gy = grid_dim().y as i32;
    let gx = grid_dim().x as i32;

    // changed from the original: the loads from the blocks above and below (and, next, left
    // and right) are made only where those blocks exist. The original loads them in every
    // block and overwrites the image's edges after: in the first block row `index_n` is
    // negative and in the last `index_s` is past the image, reads out of bounds (the
    // simulator reports them).
    if by > 0 {
        north[y][x] = j_cuda[index_n as u32];
    }
    if by < gy - 1 {
        south[y][x] = j_cuda[index_s as u32];
    }
    if by == 0 {
        north[y][x] = j_cuda[(bs * bx + tx) as u32];
    } else if by == gy - 1 {
        south[y][x] = j_cuda[(cols * bs * (gy - 1) + bs * bx + cols * (bs - 1) + tx) as u32];
    }
    sync_block_threads();

    if bx > 0 {
        west[y][x] = j_cuda[index_w as u32];
    }
    if bx < gx - 1 {
        east[y][x] = j_cuda[index_e as u32];
    }

    if bx == 0 {
        west[y][x] = j_cuda[(cols * bs * by + cols * ty) as u32];
    } else if bx == gx - 1 {
        east[y][x] = j_cuda[(cols * bs * by + bs * (gx - 1) + cols * ty + bs - 1) as u32];
    }

    sync_block_threads();

    temp[y][x] = j_cuda[index as u32];

    sync_block_threads();

    let jc = temp[y][x];
    let (n, s, w, e);

    if ty == 0 && tx == 0 {
        // nw
        n = north[y][x] - jc;
        s = temp[y + 1][x] - jc;
        w = west[y][x] - jc;
        e = temp[y][x + 1] - jc;
    } else if ty == 0 && tx == bs - 1 {
        // ne
        n = north[y][x] - jc;
        s = temp[y + 1][x] - jc;
        w = temp[y][x - 1] - jc;
        e = east[y][x] - jc;
    } else if ty == bs - 1 && tx == bs - 1 {
        // se
        n = temp[y - 1][x] - jc;
        s = south[y][x] - jc;
        w = temp[y][x - 1] - jc;
        e = east[y][x] - jc;
    } else if ty == bs - 1 && tx == 0 {
        // sw
        n = temp[y - 1][x] - jc;
        s = south[y][x] - jc;
        w = west[y][x] - jc;
        e = temp[y][x + 1] - jc;
    } else if ty == 0 {
        // n
        n = north[y][x] - jc;
        s = temp[y + 1][x] - jc;
        w = temp[y][x - 1] - jc;
        e = temp[y][x + 1] - jc;
    } else if tx == bs - 1 {
        // e
        n = temp[y - 1][x] - jc;
        s = temp[y + 1][x] - jc;
        w = temp[y][x - 1] - jc;
        e = east[y][x] - jc;
    } else if ty == bs - 1 {
        // s
        n = temp[y - 1][x] - jc;
        s = south[y][x] - jc;
        w = temp[y][x - 1] - jc;
        e = temp[y][x + 1] - jc;
    } else if tx == 0 {
        // w
        n = temp[y - 1][x] - jc;
        s = temp[y + 1][x] - jc;
        w = west[y][x] - jc;
        e = temp[y][x + 1] - jc;
    } else {
        // the data elements which are not on the borders
        n = temp[y - 1][x] - jc;
        s = temp[y + 1][x] - jc;
        w = temp[y][x - 1] - jc;
        e = temp[y][x + 1] - jc;
    }

    let g2 = (n * n + s * s + w * w + e * e) / (jc * jc);

    let l = (n + s + w + e) / jc;

    let num = (0.5 * g2 as f64) - ((1.0 / 16.0) * (l * l) as f64);
    let mut den = 1.0 + (0.25 * l as f64);
    let qsqr = (num / (den * den)) as f32;

    // diffusion coefficent (equ 33)
    den = ((qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr))) as f64;
    let c = (1.0 / (1.0 + den)) as f32;

    // saturate diffusion coefficent
    if c < 0.0 {
        temp_result[y][x] = 0.0;
    } else if c > 1.0 {
        temp_result[y][x] = 1.0;
    } else {
        temp_result[y][x] = c;
    }

    sync_block_threads();

    let index = index as u32;
    c_cuda[index] = temp_result[y][x];
    e_c[index] = e;
    w_c[index] = w;
    s_c[index] = s;
    n_c[index] = n;
}

/// srad v2 `srad_cuda_2`: the divergence of the diffusion (coefficients of the pixel, and of
/// its south and east neighbours, from the tile or the neighbouring blocks) and the update of
/// the image.
#[kernel]
pub fn srad_cuda_2(
    e_c: &[f32],
    w_c: &[f32],
    n_c: &[f32],
    s_c: &[f32],
    j_cuda: &mut [f32],
    c_cuda: &[f32],
    cols: i32,
    rows: i32,
    lambda: f32,
    q0sqr: f32,
) {
    let _ = rows;
    let _ = q0sqr;
    let bx = block_idx().x as i32;
    let by = block_idx().y as i32;

    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;

    let bs = SRAD_BLOCK_SIZE as i32;
    let index = cols * bs * by + bs * bx + cols * ty + tx;
    let index_s = cols * bs * by + bs * bx + cols * bs + tx;
    let index_e = cols * bs * by + bs * bx + cols * ty + bs;

    let south_c = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let east_c = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();

    let c_cuda_temp = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let c_cuda_result = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();
    let temp = shared::<[[f32; SRAD_BLOCK_SIZE]; SRAD_BLOCK_SIZE]>();

    let (y, x) = (ty as u32, tx as u32);
    let gy = grid_dim().y as i32;
    let gx = grid_dim().x as i32;

    temp[y][x] = j_cuda[index as u32];

    sync_block_threads();

    // changed from the original: the loads from the blocks below and right are made only
    // where those blocks exist (in the last block row, `index_s` is past the image).
    if by < gy - 1 {
        south_c[y][x] = c_cuda[index_s as u32];
    }

    if by == gy - 1 {
        south_c[y][x] = c_cuda[(cols * bs * (gy - 1) + bs * bx + cols * (bs - 1) + tx) as u32];
    }
    sync_block_threads();

    if bx < gx - 1 {
        east_c[y][x] = c_cuda[index_e as u32];
    }

    if bx == gx - 1 {
        east_c[y][x] = c_cuda[(cols * bs * by + bs * (gx - 1) + cols * ty + bs - 1) as u32];
    }

    sync_block_threads();

    c_cuda_temp[y][x] = c_cuda[index as u32];

    sync_block_threads();

    let cc = c_cuda_temp[y][x];
    let (cn, cs, cw, ce);

    if ty == bs - 1 && tx == bs - 1 {
        // se
        cn = cc;
        cs = south_c[y][x];
        cw = cc;
        ce = east_c[y][x];
    } else if tx == bs - 1 {
        // e
        cn = cc;
        cs = c_cuda_temp[y + 1][x];
        cw = cc;
        ce = east_c[y][x];
    } else if ty == bs - 1 {
        // s
        cn = cc;
        cs = south_c[y][x];
        cw = cc;
        ce = c_cuda_temp[y][x + 1];
    } else {
        // the data elements which are not on the borders
        cn = cc;
        cs = c_cuda_temp[y + 1][x];
        cw = cc;
        ce = c_cuda_temp[y][x + 1];
    }

    let i = index as u32;
    // divergence (equ 58)
    let d_sum = cn * n_c[i] + cs * s_c[i] + cw * w_c[i] + ce * e_c[i];

    // image update (equ 61)
    c_cuda_result[y][x] = (temp[y][x] as f64 + 0.25 * lambda as f64 * d_sum as f64) as f32;

    sync_block_threads();

    j_cuda[i] = c_cuda_result[y][x];
}
