//! The simulator's warp-level matrix multiply-accumulate (`mma_m16n8k16`, `mma_m16n8k8_tf32`).
//!
//! Each element of `D` is `C + sum_k A[row][k] * B[k][col]` computed exactly and rounded to
//! `f32` once: the products of 16-bit or TF32 inputs are exact, the sum is taken in `f64` in
//! `k` order (exact unless the products span more than about 30 binades) and rounded with
//! `C` added. The tensor cores' internal order and rounding are not specified by NVIDIA, so a
//! GPU's result may differ from this one in its last bits: by at most a few units in the last
//! place of `sum_k |A[row][k] * B[k][col]| + |C|`, which is what the tests compare within.
//!
//! The phase-split code gathers the warp's fragments and calls [`mma`]; the one-future-a-thread
//! code moves the elements each lane needs with shuffles, as [`MmaShape::a_owner`] and
//! [`MmaShape::b_owner`] say, and calls [`mma_dot`] for each of its own elements. Both reduce
//! to [`mma_dot`], so the two give the same bits.

use crate::Scalar;
use cuphase_contract::MmaShape;

/// `x` rounded to TF32 as `cvt.rna.tf32.f32` rounds it: 10 mantissa bits, to nearest, ties
/// away from zero (the low 13 bits of the result are zero). Infinities and NaN pass unchanged.
/// This is what `mma_m16n8k8_tf32` does to its inputs on the GPU and on the simulator, so a
/// host reference rounds its inputs with it.
#[inline]
pub fn tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits(x.to_bits().wrapping_add(0x1000) & 0xffff_e000)
}

/// One element of `D`: `c + sum_k a_row[k] * b_col[k]`, rounded to `f32` once.
#[inline]
pub fn mma_dot(c: f32, a_row: &[f32], b_col: &[f32]) -> f32 {
    let sum = a_row
        .iter()
        .zip(b_col)
        .fold(0.0f64, |s, (a, b)| s + f64::from(*a) * f64::from(*b));
    (sum + f64::from(c)) as f32
}

/// The `D` fragments of a whole warp from its `A`, `B` and `C` fragments (`[lane][i]`, as
/// `f32` values, TF32 inputs already rounded; elements past the shape's fragment lengths are
/// ignored).
pub fn mma(
    shape: MmaShape,
    a: &[[f32; 8]; 32],
    b: &[[f32; 4]; 32],
    c: &[[f32; 4]; 32],
) -> [[f32; 4]; 32] {
    let (_, _, k) = shape.mnk();
    // `A` by rows and `B` by columns, so each element of `D` is one `mma_dot` of two slices.
    let mut rows = [[0.0f32; 16]; 16];
    let mut cols = [[0.0f32; 16]; 8];
    for lane in 0..32 {
        for (i, v) in a[lane].iter().enumerate().take(shape.a_len()) {
            let (r, kk) = shape.a_at(lane, i);
            rows[r][kk] = *v;
        }
        for (i, v) in b[lane].iter().enumerate().take(shape.b_len()) {
            let (kk, col) = shape.b_at(lane, i);
            cols[col][kk] = *v;
        }
    }
    let mut d = [[0.0f32; 4]; 32];
    for (lane, out) in d.iter_mut().enumerate() {
        for (i, o) in out.iter_mut().enumerate() {
            let (r, col) = shape.c_at(lane, i);
            *o = mma_dot(c[lane][i], &rows[r][..k], &cols[col][..k]);
        }
    }
    d
}

/// A 16-byte row of a fragment load (`ldmatrix`) as two 64-bit words, the values one-future-a-
/// thread code moves by shuffles: element `e` of the row's `n` in bits `128 / n * (e % (n /
/// 2))` up of word `e / (n / 2)`.
#[inline]
pub fn row_words<T: Scalar>(row: &[T]) -> [u64; 2] {
    let half = row.len() / 2;
    let bits = 64 / half.max(1);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut words = [0u64; 2];
    for (e, v) in row.iter().enumerate() {
        words[e / half] |= (v.to_lane_bits() & mask) << (bits * (e % half));
    }
    words
}

/// Element `e` of a row of `n` elements from its word (see [`row_words`]).
#[inline]
pub fn row_element<T: Scalar>(word: u64, e: usize, n: usize) -> T {
    let half = n / 2;
    let bits = 64 / half.max(1);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    T::from_lane_bits((word >> (bits * (e % half))) & mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf32_rounds_to_nearest_ties_away() {
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: away from zero.
        assert_eq!(tf32(1.0 + f32::EPSILON * 4096.0), 1.0 + 2.0f32.powi(-10));
        assert_eq!(
            tf32(-(1.0 + f32::EPSILON * 4096.0)),
            -(1.0 + 2.0f32.powi(-10))
        );
        // Just below the tie: down.
        assert_eq!(tf32(1.0 + f32::EPSILON * 4095.0), 1.0);
        assert_eq!(tf32(3.0), 3.0);
        assert!(tf32(f32::NAN).is_nan());
        assert_eq!(tf32(f32::INFINITY), f32::INFINITY);
        assert_eq!(tf32(f32::MAX), f32::INFINITY);
    }

    /// The warp's fragments of small integer matrices give the exact product, for every shape.
    #[test]
    fn whole_warp_product_is_the_matrix_product() {
        for &s in MmaShape::ALL {
            let (m, n, k) = s.mnk();
            let am = |r: usize, kk: usize| ((r * 3 + kk * 5) % 7) as f32 - 3.0;
            let bm = |kk: usize, c: usize| ((kk * 2 + c * 7) % 5) as f32 - 2.0;
            let cm = |r: usize, c: usize| (r * 8 + c) as f32;
            let mut a = [[0.0f32; 8]; 32];
            let mut b = [[0.0f32; 4]; 32];
            let mut c = [[0.0f32; 4]; 32];
            for (lane, ((fa, fb), fc)) in a.iter_mut().zip(&mut b).zip(&mut c).enumerate() {
                for (i, x) in fa.iter_mut().enumerate().take(s.a_len()) {
                    let (r, kk) = s.a_at(lane, i);
                    *x = am(r, kk);
                }
                for (i, x) in fb.iter_mut().enumerate().take(s.b_len()) {
                    let (kk, col) = s.b_at(lane, i);
                    *x = bm(kk, col);
                }
                for (i, x) in fc.iter_mut().enumerate().take(s.c_len()) {
                    let (r, col) = s.c_at(lane, i);
                    *x = cm(r, col);
                }
            }
            let d = mma(s, &a, &b, &c);
            for (lane, out) in d.iter().enumerate() {
                for (i, got) in out.iter().enumerate() {
                    let (r, col) = s.c_at(lane, i);
                    assert!(r < m && col < n);
                    let want = cm(r, col) + (0..k).map(|kk| am(r, kk) * bm(kk, col)).sum::<f32>();
                    assert_eq!(*got, want, "{s:?} lane {lane} element {i}");
                }
            }
        }
    }

    #[test]
    fn rows_travel_in_two_words() {
        let row: Vec<half::bf16> = (0..8)
            .map(|i| half::bf16::from_f32(i as f32 - 3.5))
            .collect();
        let w = row_words(&row);
        for (e, v) in row.iter().enumerate() {
            assert_eq!(row_element::<half::bf16>(w[e / 4], e, 8), *v);
        }
        let row = [1.5f32, -2.0, f32::MAX, -0.0];
        let w = row_words(&row);
        for (e, v) in row.iter().enumerate() {
            assert_eq!(row_element::<f32>(w[e / 2], e, 4).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn one_rounding() {
        // 2^24 + 1 + 1 is 2^24 + 2 exactly; adding the products one at a time in `f32` would
        // round each `+ 1` away and give 2^24.
        let d = mma_dot(16_777_216.0, &[1.0, 1.0], &[1.0, 1.0]);
        assert_eq!(d, 16_777_218.0);
    }
}
