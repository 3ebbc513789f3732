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
/// ([`WgmmaShape::at`]; [`WgmmaShape::at_kn`] for a `B` given `k x n`, `b_kn`), each element
/// read as this thread's read and made an `f32` by `to_f32`. Then both tiles stay in flight
/// until the warpgroup's wait ([`Shared::mma_issue`], recorded by its first thread). A tile
/// that does not start where the hardware needs ([`WgmmaShape::aligned`]) is a fault, as in the
/// GPU's checked variant.
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
    let shape = shape(n, tf32, b_kn);
    if !WgmmaShape::aligned(ra) {
        return Err(misaligned(loc));
    }
    let t = thread as usize % cuphase_contract::wgmma::THREADS;
    let rows = [
        tile_row(shape, a, ra, shape.c_at(t, 0).0, false, &to_f32, loc)?,
        tile_row(shape, a, ra, shape.c_at(t, 2).0, false, &to_f32, loc)?,
    ];
    multiply(shape, acc, &rows, b, rb, thread, &to_f32, loc)?;
    if t == 0 {
        a.mma_issue(
            ra,
            cuphase_contract::wgmma::M,
            WgmmaShape::ROW_READ,
            thread,
            loc,
        )?;
    }
    Ok(())
}

/// One thread's part of a warpgroup multiply with `A` in registers (16-bit inputs): as
/// [`wgmma`], with the two rows of `A` its accumulator values need (rows `g` and `g + 8` of its
/// warp's 16, each 16 values of `k`) given, gathered from its warp's fragments
/// ([`WgmmaShape::a_frag_at`]). Only the `B` tile is read from shared memory, and stays in
/// flight.
#[allow(clippy::too_many_arguments)]
pub fn wgmma_rs<T: Scalar>(
    n: u16,
    b_kn: bool,
    acc: &mut [f32],
    a_rows: &[[f32; 16]; 2],
    b: &Shared<T>,
    rb: usize,
    thread: u32,
    to_f32: impl Fn(T) -> f32,
    loc: &'static Loc,
) -> Result<(), Fault> {
    multiply(
        shape(n, false, b_kn),
        acc,
        a_rows,
        b,
        rb,
        thread,
        &to_f32,
        loc,
    )
}

fn shape(n: u16, tf32: bool, b_kn: bool) -> WgmmaShape {
    WgmmaShape {
        n,
        input: if tf32 {
            WgmmaInput::Tf32
        } else {
            WgmmaInput::Bf16
        },
        b_kn,
    }
}

fn misaligned(loc: &'static Loc) -> Fault {
    Fault::Panic {
        message: cuphase_contract::wgmma::MISALIGNED,
        loc,
    }
}

/// Row `r` of `A`, or of `Bᵀ` (`B`'s column `r` for a `B` given `k x n`, `kn`), from the tile
/// whose first chunk is `first`: its `k` values as this thread's reads.
fn tile_row<T: Scalar>(
    shape: WgmmaShape,
    s: &Shared<T>,
    first: usize,
    r: usize,
    kn: bool,
    to_f32: &impl Fn(T) -> f32,
    loc: &'static Loc,
) -> Result<[f32; 16], Fault> {
    let mut out = [0.0f32; 16];
    for (kk, o) in out.iter_mut().enumerate().take(shape.k()) {
        let (chunk, e) = if kn {
            shape.at_kn(first, kk, r)
        } else {
            shape.at(first, r, kk)
        };
        let v = to_f32(s.load2(chunk, e, loc)?);
        *o = if shape.input == WgmmaInput::Tf32 {
            tf32_truncated(v)
        } else {
            v
        };
    }
    Ok(out)
}

/// The thread's accumulator values from its two rows of `A` and the `B` tile; then the `B`
/// tile in flight (recorded by the warpgroup's first thread).
#[allow(clippy::too_many_arguments)]
fn multiply<T: Scalar>(
    shape: WgmmaShape,
    acc: &mut [f32],
    rows: &[[f32; 16]; 2],
    b: &Shared<T>,
    rb: usize,
    thread: u32,
    to_f32: &impl Fn(T) -> f32,
    loc: &'static Loc,
) -> Result<(), Fault> {
    let b_aligned = if shape.b_kn {
        WgmmaShape::aligned_kn(rb)
    } else {
        WgmmaShape::aligned(rb)
    };
    if !b_aligned {
        return Err(misaligned(loc));
    }
    let k = shape.k();
    let t = thread as usize % cuphase_contract::wgmma::THREADS;
    // A thread's values use two rows of `A` (8 apart) and two columns of `B` in each 8.
    let mut cols = Vec::with_capacity(usize::from(shape.n) / 4);
    for i in (0..shape.acc_len()).step_by(4) {
        cols.push([
            tile_row(shape, b, rb, shape.c_at(t, i).1, shape.b_kn, to_f32, loc)?,
            tile_row(
                shape,
                b,
                rb,
                shape.c_at(t, i + 1).1,
                shape.b_kn,
                to_f32,
                loc,
            )?,
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
    b.mma_issue(rb, b_rows, b_chunks, thread, loc)
}
