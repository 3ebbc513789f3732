use cuphase::prelude::*;

// A syntax error in a kernel's body is one error, at its span; the kernel's name stays defined,
// so its uses add no errors of their own.
#[kernel]
pub fn broken(out: &mut [f32]) {
    let i = global_idx().x;
    out[i] = ;
}

fn main() {
    let dev = Device::cpu().unwrap();
    let mut out = dev.zeros::<f32>(4).unwrap();
    let _ = broken.launch(&dev, Launch::new(1, 4), &mut out);
}
