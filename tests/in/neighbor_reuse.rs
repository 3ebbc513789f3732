use cuphase::prelude::*;

/// alpaka's chunk-reuse kernel.
#[kernel]
pub fn neighbor_reuse(out: &mut [i32], input: &[i32]) {
    let chunk = shared::<[i32; 256]>();
    let n = out.len() as u32;
    for chunk_offset in blocks_in_grid((0..n).step_by(256)) {
        // fill the shared chunk
        for idx in threads_in_block(0..256u32) {
            chunk[idx] = input[chunk_offset + idx];
        }
        sync_block_threads();
        for idx in threads_in_block(0..256u32) {
            let neighbor = (idx + 1) % 256;
            out[chunk_offset + idx] = chunk[idx] + chunk[neighbor];
        }
        // avoid a data race with the next chunk's writes
        sync_block_threads();
    }
}
