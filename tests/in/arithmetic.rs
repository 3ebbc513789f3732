use cuphase::prelude::*;

/// Rust's integer and float semantics: wrapping `+ - *`, masked shifts, saturating casts.
#[kernel]
pub fn arithmetic(
    ints: &mut [i32],
    uints: &mut [u32],
    floats: &mut [f32],
    a: i32,
    b: u32,
    x: f32,
    shift: u32,
) {
    let g = global_idx().x;
    if g == 0 {
        ints[0] = a + i32::MAX;
        ints[1] = a * 1_000_000;
        ints[2] = -a;
        ints[3] = a << shift;
        ints[4] = a >> shift;
        ints[5] = a / 7 + a % 7;
        ints[6] = x as i32;
        ints[7] = (x * 1.0e10) as i32;
        ints[8] = (-x * 1.0e10) as i32;
        ints[9] = !a ^ (a & 0xff) | 3;
        uints[0] = b - 10;
        uints[1] = b << shift;
        uints[2] = b >> (shift + 1);
        uints[3] = (-x) as u32;
        uints[4] = (x * 1.0e10) as u32;
        uints[5] = (a as u32) % (b | 1);
        floats[0] = x * 2.5 + 1.0;
        floats[1] = (a as f32) / 3.0;
        floats[2] = x % 0.75;
        floats[3] = b as f32;
        floats[4] = -x;
    }
}

/// `abs` of narrow integers widened afterwards, with `MIN` chosen by a select (the shape the
/// differential test found: `i16::MIN.abs()` came back from the GPU as +32768 once widened).
#[kernel]
pub fn narrow_abs(out: &mut [i64], words: &[i16], bytes: &[i8]) {
    let i = global_idx().x;
    if i < out.len() as u32 / 2 {
        let w = words[i];
        let b = bytes[i];
        let pick = (if w < 0 { -32768i16 } else { w }).abs();
        out[2 * i] = pick as i64 + w.abs() as i64;
        out[2 * i + 1] = (if b < 0 { -128i8 } else { b }).abs() as i64 ^ (b.abs() as i64);
    }
}
