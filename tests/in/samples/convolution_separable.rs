//! The CUDA samples' separable convolution (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu`):
//! `convolutionRowsKernel` (16 x 4 blocks, each row of a block computing 8 outputs 16 apart
//! with a 16-wide halo on each side) and `convolutionColumnsKernel` (16 x 8 blocks, the same
//! along columns, its tile padded by one column), with `KERNEL_RADIUS = 8`. The sample keeps
//! the filter in `__constant__` memory (`c_Kernel`); here it is a read-only slice parameter,
//! read at block-uniform indices. The sample moves `d_Src`/`d_Dst` to the thread's first
//! element (`d_Src += baseY * pitch + baseX`); here that offset is a signed index base, as
//! `baseX` is negative in the first block. As in the sample, the image's width and height are
//! multiples of the blocks' extents (no bounds tests; the halos are tested).

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
