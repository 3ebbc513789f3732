use cuphase::prelude::*;

mod coop {
    use cuphase::prelude::*;

    /// Every thread of the block must call this: it waits at a barrier.
    #[device]
    pub fn publish(tile: &mut [f32; 64], v: f32) -> f32 {
        let t = thread_idx().x;
        tile[t] = v;
        sync_block_threads();
        tile[63 - t]
    }
}

#[kernel]
fn k(out: &mut [f32]) {
    let tile = shared::<[f32; 64]>();
    let t = thread_idx().x;
    if t < 32 {
        out[t] = coop::publish(&mut tile, 1.0);
    }
}

fn main() {}
