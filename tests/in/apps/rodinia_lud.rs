//! Rodinia lud (github: yuhc/gpu-rodinia, `cuda/lud/cuda/lud_kernel.cu`): blocked LU
//! decomposition without pivoting, in place, over 16 x 16 tiles, ported as its authors wrote
//! it. Indices mix C's `int` offsets with `unsigned` thread ids, as the original does.

use cuphase::prelude::*;

/// lud's tile size.
pub const LUD_BLOCK_SIZE: usize = 16;

/// lud `lud_diagonal`: one block of `BLOCK_SIZE` threads factors the diagonal tile at
/// (`offset`, `offset`) in shared memory, a column of L then a row of U per step.
#[kernel]
pub fn lud_diagonal(m: &mut [f32], matrix_dim: i32, offset: i32) {
    let shadow = shared::<[[f32; LUD_BLOCK_SIZE]; LUD_BLOCK_SIZE]>();
    let bs = LUD_BLOCK_SIZE as u32;
    let tx = thread_idx().x;

    let mut array_offset = offset * matrix_dim + offset;
    for i in 0..bs {
        shadow[i][tx] = m[array_offset as u32 + tx];
        array_offset += matrix_dim;
    }
    sync_block_threads();
    for i in 0..bs - 1 {
        if tx > i {
            for j in 0..i {
                shadow[tx][i] -= shadow[tx][j] * shadow[j][i];
            }
            shadow[tx][i] /= shadow[i][i];
        }

        sync_block_threads();
        if tx > i {
            for j in 0..i + 1 {
                shadow[i + 1][tx] -= shadow[i + 1][j] * shadow[j][tx];
            }
        }
        sync_block_threads();
    }

    // The first row is not modified: it is not written back.
    array_offset = (offset + 1) * matrix_dim + offset;
    for i in 1..bs {
        m[array_offset as u32 + tx] = shadow[i][tx];
        array_offset += matrix_dim;
    }
}

/// lud `lud_perimeter`: block `bx` of `2 * BLOCK_SIZE` threads solves the tile right of the
/// diagonal tile (rows of U, first half of the threads) and the tile below it (columns of L,
/// second half), each thread one column or row.
#[kernel]
pub fn lud_perimeter(m: &mut [f32], matrix_dim: i32, offset: i32) {
    let dia = shared::<[[f32; LUD_BLOCK_SIZE]; LUD_BLOCK_SIZE]>();
    let peri_row = shared::<[[f32; LUD_BLOCK_SIZE]; LUD_BLOCK_SIZE]>();
    let peri_col = shared::<[[f32; LUD_BLOCK_SIZE]; LUD_BLOCK_SIZE]>();

    let bs = LUD_BLOCK_SIZE as u32;
    let bx = block_idx().x;

    if thread_idx().x < bs {
        let idx = thread_idx().x;

        let mut array_offset = offset * matrix_dim + offset;
        for i in 0..bs / 2 {
            dia[i][idx] = m[array_offset as u32 + idx];
            array_offset += matrix_dim;
        }

        array_offset = offset * matrix_dim + offset;
        for i in 0..bs {
            peri_row[i][idx] = m[array_offset as u32 + (bx + 1) * bs + idx];
            array_offset += matrix_dim;
        }
    } else {
        let idx = thread_idx().x - bs;

        let mut array_offset = (offset + bs as i32 / 2) * matrix_dim + offset;
        for i in bs / 2..bs {
            dia[i][idx] = m[array_offset as u32 + idx];
            array_offset += matrix_dim;
        }

        array_offset = (offset + ((bx + 1) * bs) as i32) * matrix_dim + offset;
        for i in 0..bs {
            peri_col[i][idx] = m[array_offset as u32 + idx];
            array_offset += matrix_dim;
        }
    }
    sync_block_threads();

    if thread_idx().x < bs {
        // peri-row
        let idx = thread_idx().x;
        for i in 1..bs {
            for j in 0..i {
                peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
            }
        }
    } else {
        // peri-col
        let idx = thread_idx().x - bs;
        for i in 0..bs {
            for j in 0..i {
                peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
            }
            peri_col[idx][i] /= dia[i][i];
        }
    }

    sync_block_threads();

    if thread_idx().x < bs {
        // peri-row
        let idx = thread_idx().x;
        let mut array_offset = (offset + 1) * matrix_dim + offset;
        for i in 1..bs {
            m[array_offset as u32 + (bx + 1) * bs + idx] = peri_row[i][idx];
            array_offset += matrix_dim;
        }
    } else {
        // peri-col
        let idx = thread_idx().x - bs;
        let mut array_offset = (offset + ((bx + 1) * bs) as i32) * matrix_dim + offset;
        for i in 0..bs {
            m[array_offset as u32 + idx] = peri_col[i][idx];
            array_offset += matrix_dim;
        }
    }
}

/// lud `lud_internal`: block (`bx`, `by`) of 16 x 16 threads updates its tile of the trailing
/// matrix by the product of its tile of L and its tile of U.
#[kernel]
pub fn lud_internal(m: &mut [f32], matrix_dim: i32, offset: i32) {
    let peri_row = shared::<[[f32; LUD_BLOCK_SIZE]; LUD_BLOCK_SIZE]>();
    let peri_col = shared::<[[f32; LUD_BLOCK_SIZE]; LUD_BLOCK_SIZE]>();

    let bs = LUD_BLOCK_SIZE as u32;
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (offset, matrix_dim) = (offset as u32, matrix_dim as u32);

    let global_row_id = offset + (block_idx().y + 1) * bs;
    let global_col_id = offset + (block_idx().x + 1) * bs;

    peri_row[ty][tx] = m[(offset + ty) * matrix_dim + global_col_id + tx];
    peri_col[ty][tx] = m[(global_row_id + ty) * matrix_dim + offset + tx];

    sync_block_threads();

    let mut sum = 0.0f32;
    for i in 0..bs {
        sum += peri_col[ty][i] * peri_row[i][tx];
    }
    m[(global_row_id + ty) * matrix_dim + global_col_id + tx] -= sum;
}
