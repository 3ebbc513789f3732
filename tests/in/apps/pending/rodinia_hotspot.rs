//! PENDING, compiled by nothing: Rodinia hotspot `calculate_temp`, as written.
//! `../PENDING.md` says why it does not compile or run as it stands; the changed version
//! that is compiled and tested is in `../rodinia.rs`.

use cuphase::prelude::*;

/// Rodinia's `IN_RANGE(x, min, max)` macro.
#[device]
fn in_range(x: i32, min: i32, max: i32) -> bool {
    x >= min && x <= max
}

/// hotspot's block size: blocks are `HS_BLOCK_SIZE` x `HS_BLOCK_SIZE` threads.
pub const HS_BLOCK_SIZE: usize = 16;

/// Rodinia hotspot (`cuda/hotspot/hotspot.cu`, `calculate_temp`): `iteration` steps of the
/// thermal stencil in one launch over 16 x 16 tiles with a pyramid of halos. The literals
/// `2.0` make C compute the stencil's sums in `double`; the port does too.
#[kernel]
pub fn calculate_temp(
    iteration: i32,
    power: &[f32],
    temp_src: &[f32],
    temp_dst: &mut [f32],
    grid_cols: i32,
    grid_rows: i32,
    border_cols: i32,
    border_rows: i32,
    cap: f32,
    rx: f32,
    ry: f32,
    rz: f32,
    step: f32,
    time_elapsed: f32,
) {
    let temp_on_cuda = shared::<[[f32; HS_BLOCK_SIZE]; HS_BLOCK_SIZE]>();
    let power_on_cuda = shared::<[[f32; HS_BLOCK_SIZE]; HS_BLOCK_SIZE]>();
    let temp_t = shared::<[[f32; HS_BLOCK_SIZE]; HS_BLOCK_SIZE]>();
    let _ = time_elapsed;

    let amb_temp = 80.0f32;

    let bx = block_idx().x as i32;
    let by = block_idx().y as i32;
    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;

    let step_div_cap = step / cap;
    let rx_1 = 1.0 / rx;
    let ry_1 = 1.0 / ry;
    let rz_1 = 1.0 / rz;

    let small_block_rows = HS_BLOCK_SIZE as i32 - iteration * 2;
    let small_block_cols = HS_BLOCK_SIZE as i32 - iteration * 2;

    let blk_y = small_block_rows * by - border_rows;
    let blk_x = small_block_cols * bx - border_cols;
    let blk_y_max = blk_y + HS_BLOCK_SIZE as i32 - 1;
    let blk_x_max = blk_x + HS_BLOCK_SIZE as i32 - 1;

    let yidx = blk_y + ty;
    let xidx = blk_x + tx;

    let (load_yidx, load_xidx) = (yidx, xidx);
    let index = grid_cols * load_yidx + load_xidx;

    if in_range(load_yidx, 0, grid_rows - 1) && in_range(load_xidx, 0, grid_cols - 1) {
        temp_on_cuda[ty as u32][tx as u32] = temp_src[index as u32];
        power_on_cuda[ty as u32][tx as u32] = power[index as u32];
    }
    sync_block_threads();

    let valid_y_min = if blk_y < 0 { -blk_y } else { 0 };
    let valid_y_max = if blk_y_max > grid_rows - 1 {
        HS_BLOCK_SIZE as i32 - 1 - (blk_y_max - grid_rows + 1)
    } else {
        HS_BLOCK_SIZE as i32 - 1
    };
    let valid_x_min = if blk_x < 0 { -blk_x } else { 0 };
    let valid_x_max = if blk_x_max > grid_cols - 1 {
        HS_BLOCK_SIZE as i32 - 1 - (blk_x_max - grid_cols + 1)
    } else {
        HS_BLOCK_SIZE as i32 - 1
    };

    let mut n = ty - 1;
    let mut s = ty + 1;
    let mut w = tx - 1;
    let mut e = tx + 1;

    n = if n < valid_y_min { valid_y_min } else { n };
    s = if s > valid_y_max { valid_y_max } else { s };
    w = if w < valid_x_min { valid_x_min } else { w };
    e = if e > valid_x_max { valid_x_max } else { e };

    let (ty, tx, n, s, w, e) = (ty as u32, tx as u32, n as u32, s as u32, w as u32, e as u32);
    let mut computed = false;
    for i in 0..iteration {
        computed = false;
        if in_range(tx as i32, i + 1, HS_BLOCK_SIZE as i32 - i - 2)
            && in_range(ty as i32, i + 1, HS_BLOCK_SIZE as i32 - i - 2)
            && in_range(tx as i32, valid_x_min, valid_x_max)
            && in_range(ty as i32, valid_y_min, valid_y_max)
        {
            computed = true;
            temp_t[ty][tx] = (temp_on_cuda[ty][tx] as f64
                + step_div_cap as f64
                    * (power_on_cuda[ty][tx] as f64
                        + ((temp_on_cuda[s][tx] + temp_on_cuda[n][tx]) as f64
                            - 2.0 * temp_on_cuda[ty][tx] as f64)
                            * ry_1 as f64
                        + ((temp_on_cuda[ty][e] + temp_on_cuda[ty][w]) as f64
                            - 2.0 * temp_on_cuda[ty][tx] as f64)
                            * rx_1 as f64
                        + ((amb_temp - temp_on_cuda[ty][tx]) * rz_1) as f64))
                as f32;
        }
        sync_block_threads();
        if i == iteration - 1 {
            break;
        }
        if computed {
            temp_on_cuda[ty][tx] = temp_t[ty][tx];
        }
        sync_block_threads();
    }

    if computed {
        temp_dst[index as u32] = temp_t[ty][tx];
    }
}
