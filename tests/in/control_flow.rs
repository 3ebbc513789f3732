use cuphase::prelude::*;

/// Loops of every kind, labels, early exits, `if` and block expressions.
#[kernel]
pub fn control_flow(out: &mut [i64], n: u32, limit: i64) {
    let g = global_idx().x;
    if g >= out.len() as u32 {
        return;
    }
    let mut acc: i64 = 0;
    'outer: for j in 0..n {
        for k in (0..n).step_by(3) {
            if k == g % 7 {
                continue 'outer;
            }
            if acc > limit {
                break 'outer;
            }
            acc += (j * k) as i64;
        }
    }
    let mut w = g;
    while w > 1 {
        w = if w % 2 == 0 { w / 2 } else { 3 * w + 1 };
        acc += 1;
    }
    let mut steps = 0u32;
    loop {
        steps += 1;
        if steps >= g % 5 {
            break;
        }
    }
    let bonus = {
        let half = steps / 2;
        half as i64 * 10
    };
    let sign = if acc % 2 == 0 {
        let x = acc / 2;
        x
    } else if acc % 3 == 0 {
        -acc
    } else {
        acc - 1
    };
    out[g] = sign + bonus;
}
