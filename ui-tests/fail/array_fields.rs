use cuphase::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Body {
    pos: [f32; 3],
    mass: f32,
}

// An array whose length the macro cannot read.
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Unknown {
    a: [f32; LEN],
}

const LEN: usize = len();

const fn len() -> usize {
    2
}

#[device]
fn body(m: f32) -> Body {
    Body {
        pos: [m; 3],
        mass: m,
    }
}

#[kernel]
fn values(out: &mut [f32], ks: &[u32]) {
    let i = global_idx().x as usize;
    // A helper's result is no place to assign.
    body(1.0).pos[0] = 2.0;
    body(1.0) = body(2.0);
    // Its array field is indexed by constants only.
    out[i] = body(2.0).pos[ks[i] as usize];
}

#[kernel]
fn uses(out: &mut [f32], bs: &mut [Body], us: &[Unknown], ks: &[i32]) {
    let i = global_idx().x as usize;
    // A constant index past the end.
    bs[i].pos[3] = 1.0;
    // A signed index.
    bs[i].pos[ks[i]] = 1.0;
    // A whole array field where a scalar is needed.
    out[i] = bs[i].pos;
    // A literal's array of the wrong length.
    bs[i] = Body {
        pos: [1.0, 2.0],
        mass: 0.0,
    };
    // A loop over an array field of a slice's element.
    for v in bs[i].pos {
        out[i] += v;
    }
    // A field of an array.
    out[i] = bs[i].pos.x;
    out[i] = us[i].a[0];
}

fn main() {}
