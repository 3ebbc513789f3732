use cuphase::prelude::*;

// The forms `cp_async` takes, and what is wrong with each of these.
#[kernel]
fn forms(out: &mut [f32], x: &[f32], y: &[f64], rows: &[[f32; 3]], w: &mut [f32]) {
    let tile = shared::<[f32; 64]>();
    let wide = shared::<[[f32; 3]; 64]>();
    let t = thread_idx().x as usize;
    let mut local = [0.0f32; 4];
    cp_async(&tile[t], &x[t]);
    cp_async(&mut local[0], &x[t]);
    cp_async(&mut tile[t], &y[t]);
    cp_async(&mut wide[t], &rows[t]);
    cp_async(&mut tile[t], &tile[0]);
    cp_async(&mut tile[t], &w[t]);
    cp_async_wait(t as u32);
    let v = cp_async_commit();
    out[t] = tile[t] + local[0];
}

fn main() {}
