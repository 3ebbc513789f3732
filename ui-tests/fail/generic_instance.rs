use cuphase::prelude::*;

/// Instances for `f32` and `f64` only.
#[kernel]
fn scale<T: Float>(out: &mut [T], a: T) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = out[i] * a;
    }
}

fn main() {
    let dev = Device::cpu().unwrap();
    let mut out = dev.zeros::<u32>(4).unwrap();
    scale::<u32>.launch(&dev, Launch::new(1, 4), &mut out, 2).unwrap();
}
