use cuphase::prelude::*;

/// Thread-local arrays: a per-thread window of the input, sorted in registers (insertion sort),
/// then its median; a 2-D local array as a small per-thread table.
#[kernel]
pub fn local_median(out: &mut [f32], table: &mut [u32], input: &[f32]) {
    let i = global_idx().x;
    let n = out.len() as u32;
    if i < n {
        let mut w = [0.0f32; 5];
        for k in 0..5u32 {
            let j = (i + k) % n;
            w[k] = input[j];
        }
        for a in 1..w.len() as u32 {
            let mut b = a;
            while b > 0 && w[b - 1] > w[b] {
                let t = w[b];
                w[b] = w[b - 1];
                w[b - 1] = t;
                b -= 1;
            }
        }
        out[i] = w[2];
        let seed = i * 3 + 1;
        let mut m: [[u32; 3]; 2] = [[seed; 3]; 2];
        for r in 0..2u32 {
            for c in 0..3u32 {
                m[r][c] += r * 10 + c;
            }
        }
        table[i] = m[1][2] * m[0][1];
    }
}
