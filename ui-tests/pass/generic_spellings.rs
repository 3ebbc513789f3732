//! A generic kernel launched with the instance inferred and named, and a helper from another
//! crate.
use cuphase::prelude::*;
use cuphase_blocks::block_reduce_sum;

#[kernel]
fn scale<T: Float>(out: &mut [T], a: T) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = out[i] * a;
    }
}

#[kernel(block = 64)]
fn sums(out: &mut [f32]) {
    let scratch = shared::<[f32; 64]>();
    let s = block_reduce_sum(&mut scratch, thread_idx().x as f32);
    if thread_idx().x == 0 {
        out[block_idx().x] = s;
    }
}

fn main() {
    let dev = Device::cpu().unwrap();
    let mut out = dev.upload(&[1.0f32, 2.0]).unwrap();
    scale.launch(&dev, Launch::new(1, 2), &mut out, 3.0f32).unwrap();
    scale::<f32>.launch(&dev, Launch::new(1, 2), &mut out, 0.5).unwrap();
    assert_eq!(out.to_vec().unwrap(), [1.5, 3.0]);
    let mut wide = dev.upload(&[1.0f64]).unwrap();
    scale::<f64>.launch(&dev, Launch::new(1, 1), &mut wide, 4.0).unwrap();
    assert_eq!(wide.to_vec().unwrap(), [4.0]);
    assert!(scale::<f64>.cuda_source().contains("scale_f64"));
    assert_eq!(scale::<f32>.name(), "scale_f32");
    let mut s = dev.zeros::<f32>(2).unwrap();
    sums.launch(&dev, Launch::new(2, 64), &mut s).unwrap();
    assert_eq!(s.to_vec().unwrap(), [2016.0, 2016.0]);
}
