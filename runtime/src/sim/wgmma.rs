//! The simulator's warpgroup multiply-accumulate (`wgmma_m64n{N}k16`, `wgmma_m64n{N}k8_tf32`):
//! each thread's accumulator values from the tiles in shared memory, rounded as
//! [`mma_dot`] rounds `mma_sync`'s, and the tiles' reads kept in flight for race detection
//! until the warpgroup's wait.

use super::memory::Shared;
use super::mma::mma_dot;
use super::{Fault, Loc};
use crate::Scalar;
use cuphase_contract::{WgmmaInput, WgmmaShape};

/// `x` as a warpgroup multiply reads a TF32 input from shared memory: its low 13 mantissa bits
/// ignored (truncated toward zero; `wgmma` cannot round what it reads, unlike
/// `mma_m16n8k8_tf32`, whose inputs pass through `cvt.rna`).
#[inline]
pub fn tf32_truncated(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits(x.to_bits() & 0xffff_e000)
}

/// One thread's part of a warpgroup multiply (`wgmma_m64n{n}k16`, or `k8_tf32` when `tf32`):
/// for each of its accumulator values `acc[i]` (at [`WgmmaShape::c_at`] of its place `thread %
/// 128` in its warpgroup), `acc[i] + sum_k A[row][k] * B[col][k]` with one rounding, as
/// [`mma_dot`]; `A`'s tile from chunk `ra` of `a`, `B`'s from chunk `rb` of `b`
/// ([`WgmmaShape::at`]; [`WgmmaShape::at_kn`] for a `B` given `k x n`, `b_kn`), each element read as this thread's read and made an `f32` by
/// `to_f32`. Then both tiles stay in flight until the warpgroup's wait
/// ([`Shared::mma_issue`], recorded by its first thread). A tile that does not start where the hardware needs
/// ([`WgmmaShape::aligned`]) is a fault, as in the GPU's checked variant.
#[allow(clippy::too_many_arguments)]
pub fn wgmma<T: Scalar>(
    n: u16,
    tf32: bool,
    b_kn: bool,
    acc: &mut [f32],
    a: &Shared<T>,
    ra: usize,
    b: &Shared<T>,
    rb: usize,
    thread: u32,
    to_f32: impl Fn(T) -> f32,
    loc: &'static Loc,
) -> Result<(), Fault> {
    let shape = WgmmaShape {
        n,
        input: if tf32 {
            WgmmaInput::Tf32
        } else {
            WgmmaInput::Bf16
        },
        b_kn,
    };
    let b_aligned = if b_kn {
        WgmmaShape::aligned_kn(rb)
    } else {
        WgmmaShape::aligned(rb)
    };
    if !WgmmaShape::aligned(ra) || !b_aligned {
        return Err(Fault::Panic {
            message: cuphase_contract::wgmma::MISALIGNED,
            loc,
        });
    }
    let k = shape.k();
    let t = thread as usize % cuphase_contract::wgmma::THREADS;
    // Row `r` of `A`, or of `Bᵀ` (`B`'s column `r` for a `B` given `k x n`).
    let read = |s: &Shared<T>, first: usize, r: usize, kn: bool| {
        let mut out = [0.0f32; 16];
        for (kk, o) in out.iter_mut().enumerate().take(k) {
            let (chunk, e) = if kn {
                shape.at_kn(first, kk, r)
            } else {
                shape.at(first, r, kk)
            };
            let v = to_f32(s.load2(chunk, e, loc)?);
            *o = if tf32 { tf32_truncated(v) } else { v };
        }
        Ok::<[f32; 16], Fault>(out)
    };
    // A thread's values use two rows of `A` (8 apart) and two columns of `B` in each 8.
    let rows = [
        read(a, ra, shape.c_at(t, 0).0, false)?,
        read(a, ra, shape.c_at(t, 2).0, false)?,
    ];
    let mut cols = Vec::with_capacity(usize::from(n) / 4);
    for i in (0..shape.acc_len()).step_by(4) {
        cols.push([
            read(b, rb, shape.c_at(t, i).1, b_kn)?,
            read(b, rb, shape.c_at(t, i + 1).1, b_kn)?,
        ]);
    }
    for (i, d) in acc.iter_mut().enumerate().take(shape.acc_len()) {
        let (q, j) = (i % 4, i / 4);
        *d = mma_dot(*d, &rows[q / 2][..k], &cols[j][q % 2][..k]);
    }
    // The warpgroup's threads issue and wait together (block-uniform control flow), so its
    // first thread's record of the reads in flight stands for all of them.
    if t != 0 {
        return Ok(());
    }
    let (b_rows, b_chunks) = shape.b_region();
    a.mma_issue(
        ra,
        cuphase_contract::wgmma::M,
        WgmmaShape::ROW_READ,
        thread,
        loc,
    )?;
    b.mma_issue(rb, b_rows, b_chunks, thread, loc)
}
