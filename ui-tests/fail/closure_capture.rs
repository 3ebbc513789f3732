use cuphase::prelude::*;

fn main() {
    let scale = 2.0f32;
    let _k = kernel_closure!(|out: &mut [f32]| {
        let i = global_idx().x;
        out[i] = out[i] * scale;
    });
    let _untyped = kernel_closure!(|out| {
        out[0] = 1.0;
    });
}
