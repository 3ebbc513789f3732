use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32], wide: &[f64], n: i32) {
    let g = global_idx();
    // A path call takes a value of its type.
    let a = f32::max(wide[g.x], 1.0);
    // `From` only where Rust converts without loss.
    let m = u32::from(n);
    // A name for an index builtin is read by component, and not assigned.
    let h = g + 1;
    g = global_idx();
    out[g.x] = a + m as f32 + h as f32;
}

fn main() {}
