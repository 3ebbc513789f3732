use cuphase::prelude::*;

fn main() {
    let dev = Device::cpu().unwrap();
    let table = dev.upload(&[1.0f32, 2.0]).unwrap();
    // A captured buffer: a launch must borrow it, so it is a parameter.
    let _buffer = kernel_closure!(|out: &mut [f32]| {
        let i = global_idx().x;
        out[i] = table[i];
    });
    // The body does not fix the captured integer's type.
    let rounds = 4;
    let _untyped_capture = kernel_closure!(|out: &mut [u32]| {
        let mut s = 0u32;
        for _ in 0..rounds {
            s += 1;
        }
        out[0] = s;
    });
    // The body uses the capture as an `f32`; the variable is an `f64` (rustc's error).
    let scale = 2.0f64;
    let _mismatch = kernel_closure!(|out: &mut [f32]| {
        let i = global_idx().x;
        out[i] = out[i] * scale;
    });
    let _untyped = kernel_closure!(|out| {
        out[0] = 1.0;
    });
}
