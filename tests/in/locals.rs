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

/// A thread-local array declared in a loop is filled afresh each iteration; a second one of
/// the same name in another scope is another array.
#[kernel]
pub fn local_scopes(out: &mut [i64]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        let mut total = 0i64;
        for r in 0..3i64 {
            let mut acc: [i64; 4] = [r; 4];
            acc[(i % 4) as usize] += 100;
            total += acc[0] + acc[1] + acc[2] + acc[3];
        }
        {
            let acc = [-1i64; 2];
            total += acc[0] * acc.len() as i64;
        }
        out[i] = total;
    }
}
