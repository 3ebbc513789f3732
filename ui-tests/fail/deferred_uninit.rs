use cuphase::prelude::*;

// rustc's definite-initialisation check holds for a tuple `let` without values as for
// `let n: f32;`: a read on a path that assigned nothing is an error, and so is a second
// assignment of a name that is not `mut`.
#[kernel]
fn k(out: &mut [f32], x: f32) {
    if global_idx().x != 0 {
        return;
    }
    let (a, b): (f32, f32);
    if x > 0.0 {
        a = 1.0;
        b = 2.0;
    } else {
        a = 3.0;
    }
    out[0] = a + b;
    let (c, mut d);
    c = 1.0f32;
    d = 2.0f32;
    d += c;
    c = d;
    out[1] = c + d;
}

fn main() {}
