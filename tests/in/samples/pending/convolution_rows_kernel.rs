//! Pending (PENDING.md, P6): the CUDA samples' `convolutionRowsKernel` and
//! `convolutionColumnsKernel` as written (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu`). cuphase
//! rejects the 2-D tiles sized by constant expressions, and (with literal sizes) claims data
//! races for the tile columns `tx + i * ROWS_BLOCKDIM_X`; `tests/in/samples/
//! convolution_separable.rs` holds the compiled versions with literals. Not compiled by anything.

use cuphase::prelude::*;

pub const KERNEL_RADIUS: i32 = 8;
pub const KERNEL_LENGTH: usize = 2 * KERNEL_RADIUS as usize + 1;
pub const ROWS_BLOCKDIM_X: i32 = 16;
pub const ROWS_BLOCKDIM_Y: i32 = 4;
pub const ROWS_RESULT_STEPS: i32 = 8;
pub const ROWS_HALO_STEPS: i32 = 1;
pub const COLUMNS_BLOCKDIM_X: i32 = 16;
pub const COLUMNS_BLOCKDIM_Y: i32 = 8;
pub const COLUMNS_RESULT_STEPS: i32 = 8;
pub const COLUMNS_HALO_STEPS: i32 = 1;

/// `convolutionRowsKernel`.
#[kernel(block = (16, 4))]
pub fn convolution_rows_kernel(
    d_dst: &mut [f32],
    d_src: &[f32],
    c_kernel: &[f32],
    image_w: i32,
    _image_h: i32,
    pitch: i32,
) {
    let s_data = shared::<
        [[f32; ((ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X) as usize];
            ROWS_BLOCKDIM_Y as usize],
    >();
    let tx = thread_idx().x as i32;
    let ty = thread_idx().y;
    // Offset to the left halo edge.
    let base_x =
        (block_idx().x as i32 * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + tx;
    let base_y = block_idx().y as i32 * ROWS_BLOCKDIM_Y + ty as i32;
    let base = base_y * pitch + base_x;
    // Main data.
    for i in ROWS_HALO_STEPS..ROWS_HALO_STEPS + ROWS_RESULT_STEPS {
        s_data[ty][(tx + i * ROWS_BLOCKDIM_X) as u32] = d_src[(base + i * ROWS_BLOCKDIM_X) as u32];
    }
    // Left halo.
    for i in 0..ROWS_HALO_STEPS {
        s_data[ty][(tx + i * ROWS_BLOCKDIM_X) as u32] = if base_x >= -i * ROWS_BLOCKDIM_X {
            d_src[(base + i * ROWS_BLOCKDIM_X) as u32]
        } else {
            0.0
        };
    }
    // Right halo.
    for i in
        ROWS_HALO_STEPS + ROWS_RESULT_STEPS..ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS
    {
        s_data[ty][(tx + i * ROWS_BLOCKDIM_X) as u32] = if image_w - base_x > i * ROWS_BLOCKDIM_X {
            d_src[(base + i * ROWS_BLOCKDIM_X) as u32]
        } else {
            0.0
        };
    }
    // Compute and store results.
    sync_block_threads();
    for i in ROWS_HALO_STEPS..ROWS_HALO_STEPS + ROWS_RESULT_STEPS {
        let mut sum = 0.0f32;
        for j in -KERNEL_RADIUS..=KERNEL_RADIUS {
            sum += c_kernel[(KERNEL_RADIUS - j) as u32]
                * s_data[ty][(tx + i * ROWS_BLOCKDIM_X + j) as u32];
        }
        d_dst[(base + i * ROWS_BLOCKDIM_X) as u32] = sum;
    }
}

/// `convolutionColumnsKernel`.
#[kernel(block = (16, 8))]
pub fn convolution_columns_kernel(
    d_dst: &mut [f32],
    d_src: &[f32],
    c_kernel: &[f32],
    _image_w: i32,
    image_h: i32,
    pitch: i32,
) {
    let s_data = shared::<
        [[f32; ((COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + 1) as usize];
            COLUMNS_BLOCKDIM_X as usize],
    >();
    let tx = thread_idx().x;
    let ty = thread_idx().y as i32;
    // Offset to the upper halo edge.
    let base_x = block_idx().x as i32 * COLUMNS_BLOCKDIM_X + tx as i32;
    let base_y = (block_idx().y as i32 * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS)
        * COLUMNS_BLOCKDIM_Y
        + ty;
    let base = base_y * pitch + base_x;
    // Main data.
    for i in COLUMNS_HALO_STEPS..COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS {
        s_data[tx][(ty + i * COLUMNS_BLOCKDIM_Y) as u32] =
            d_src[(base + i * COLUMNS_BLOCKDIM_Y * pitch) as u32];
    }
    // Upper halo.
    for i in 0..COLUMNS_HALO_STEPS {
        s_data[tx][(ty + i * COLUMNS_BLOCKDIM_Y) as u32] = if base_y >= -i * COLUMNS_BLOCKDIM_Y {
            d_src[(base + i * COLUMNS_BLOCKDIM_Y * pitch) as u32]
        } else {
            0.0
        };
    }
    // Lower halo.
    for i in COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS
        ..COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS + COLUMNS_HALO_STEPS
    {
        s_data[tx][(ty + i * COLUMNS_BLOCKDIM_Y) as u32] =
            if image_h - base_y > i * COLUMNS_BLOCKDIM_Y {
                d_src[(base + i * COLUMNS_BLOCKDIM_Y * pitch) as u32]
            } else {
                0.0
            };
    }
    // Compute and store results.
    sync_block_threads();
    for i in COLUMNS_HALO_STEPS..COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS {
        let mut sum = 0.0f32;
        for j in -KERNEL_RADIUS..=KERNEL_RADIUS {
            sum += c_kernel[(KERNEL_RADIUS - j) as u32]
                * s_data[tx][(ty + i * COLUMNS_BLOCKDIM_Y + j) as u32];
        }
        d_dst[(base + i * COLUMNS_BLOCKDIM_Y * pitch) as u32] = sum;
    }
}
