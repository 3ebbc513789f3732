use cuphase::prelude::*;

#[kernel]
pub fn reverse(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if i < input.len() as u32 {
        tile[t] = input[i];
    }
    sync_block_threads();
    let r = block_dim().x - 1 - t;
    if i < out.len() as u32 {
        out[i] = tile[r];
    }
}

fn main() {
    let dev = Device::cpu().unwrap();
    let input = dev.upload(&(0..512).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let mut out = dev.zeros::<f32>(512).unwrap();
    reverse.launch(&dev, Launch::new(2, 256), &mut out, &input).unwrap();
    assert_eq!(out.to_vec().unwrap()[0], 255.0);
    assert!(reverse.cuda_source().contains("__syncthreads();"));
}
