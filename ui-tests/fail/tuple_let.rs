use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32], x: f32) {
    let (a, a);
    let (b, c): f32;
    let (d, e): (f32, u32, f32);
    let (f, (g, h));
    if x > 0.0 {
        a = 1.0;
        b = 1.0;
        c = 2.0;
        d = 3.0;
        e = 4;
        f = 5.0;
    } else {
        a = 1.0;
        b = 1.0;
        c = 2.0;
        d = 3.0;
        e = 4;
        f = 5.0;
    }
    out[0] = a + b + c + d + e as f32 + f;
}

fn main() {}
