use cuphase::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Pair {
    a: u32,
    b: u32,
}

// Not `#[repr(C)]`: the derive says so.
#[derive(Clone, Copy, DeviceStruct)]
struct Loose {
    a: u32,
}

// A field that is no buffer element.
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct WithRef {
    a: &'static u32,
}

// A struct kernels do not know (no derive).
#[repr(C)]
#[derive(Clone, Copy)]
struct Plain {
    a: u32,
}

#[device]
fn pair(a: u32) -> Pair {
    Pair { a, b: a + 1 }
}

#[device]
fn scalar(a: u32) -> u32 {
    a
}

#[kernel]
fn results(out: &mut [Pair]) {
    let i = global_idx().x as usize;
    // A struct result used as a scalar.
    let x = pair(1) + 1;
    // A scalar result where a struct is needed.
    out[i] = scalar(2);
}

#[kernel]
fn uses(out: &mut [Pair], inp: &[Pair], other: &[Plain]) {
    let i = global_idx().x as usize;
    // A field that does not exist.
    out[i].c = 1;
    // An element used as a scalar.
    let x = inp[i] + 1;
    // Writing a read-only slice of structs.
    inp[i].a = 2;
    // A literal without all its fields.
    out[i] = Pair { a: 1 };
}

fn main() {}
