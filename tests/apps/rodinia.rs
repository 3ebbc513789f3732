//! The cases of the Rodinia kernels (`tests/in/apps/rodinia*.rs`).

use super::{bits_f32, bits_i32, lcg};
use crate::cases::Case;
use crate::kernels::{rodinia, rodinia_lud, rodinia_srad};
use cuphase::prelude::*;

/// The Rodinia kernels, for the NVRTC tier.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            rodinia::dynproc_kernel.name(),
            rodinia::dynproc_kernel.cuda_source(),
        ),
        (
            rodinia::calculate_temp.name(),
            rodinia::calculate_temp.cuda_source(),
        ),
        (
            rodinia::needle_cuda_shared_1.name(),
            rodinia::needle_cuda_shared_1.cuda_source(),
        ),
        (
            rodinia::needle_cuda_shared_2.name(),
            rodinia::needle_cuda_shared_2.cuda_source(),
        ),
        (
            rodinia::bpnn_layerforward_cuda.name(),
            rodinia::bpnn_layerforward_cuda.cuda_source(),
        ),
        (
            rodinia::bpnn_adjust_weights_cuda.name(),
            rodinia::bpnn_adjust_weights_cuda.cuda_source(),
        ),
        (
            rodinia_srad::srad_cuda_1.name(),
            rodinia_srad::srad_cuda_1.cuda_source(),
        ),
        (
            rodinia_srad::srad_cuda_2.name(),
            rodinia_srad::srad_cuda_2.cuda_source(),
        ),
        (
            rodinia_lud::lud_diagonal.name(),
            rodinia_lud::lud_diagonal.cuda_source(),
        ),
        (
            rodinia_lud::lud_perimeter.name(),
            rodinia_lud::lud_perimeter.cuda_source(),
        ),
        (
            rodinia_lud::lud_internal.name(),
            rodinia_lud::lud_internal.cuda_source(),
        ),
    ]
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "rodinia_pathfinder",
            run: run_pathfinder,
            expected: pathfinder_expected,
        },
        Case {
            name: "rodinia_hotspot",
            run: run_hotspot,
            expected: hotspot_expected,
        },
        Case {
            name: "rodinia_nw",
            run: run_nw,
            expected: nw_expected,
        },
        Case {
            name: "rodinia_backprop_layerforward",
            run: run_bp_forward,
            expected: bp_forward_expected,
        },
        Case {
            name: "rodinia_backprop_adjust_weights",
            run: run_bp_adjust,
            expected: bp_adjust_expected,
        },
        Case {
            name: "rodinia_srad",
            run: run_srad,
            expected: srad_expected,
        },
        Case {
            name: "rodinia_lud",
            run: run_lud,
            expected: lud_expected,
        },
    ]
}

// pathfinder: a wall of `PF_ROWS` x `PF_COLS` digits; the result row is the cheapest path
// cost from the top row to each cell of the bottom row, moving down, down-left or down-right.
const PF_ROWS: usize = 20;
const PF_COLS: usize = 900;
const PF_PYRAMID: i32 = 3;

fn pathfinder_wall() -> Vec<i32> {
    lcg(9, PF_ROWS * PF_COLS)
        .iter()
        .map(|v| (v % 10) as i32)
        .collect()
}

/// `calc_path` of pathfinder.cu: launches of `pyramid_height` rows each, the two result rows
/// swapping roles.
fn run_pathfinder(dev: &Device) -> Result<Vec<u64>, Error> {
    let data = pathfinder_wall();
    let (rows, cols) = (PF_ROWS as i32, PF_COLS as i32);
    let block = rodinia::PF_BLOCK_SIZE as i32;
    let border = PF_PYRAMID;
    let small_block_col = block - PF_PYRAMID * 2;
    let block_cols = cols / small_block_col + i32::from(cols % small_block_col != 0);
    let wall = dev.upload(&data[PF_COLS..])?;
    let mut results = [dev.upload(&data[..PF_COLS])?, dev.zeros::<i32>(PF_COLS)?];
    let (mut src, mut dst) = (1, 0);
    let mut t = 0;
    while t < rows - 1 {
        (src, dst) = (dst, src);
        let [r0, r1] = &mut results;
        let (from, to) = if src == 0 { (&*r0, r1) } else { (&*r1, r0) };
        rodinia::dynproc_kernel.launch(
            dev,
            Launch::new(block_cols as u32, block as u32),
            PF_PYRAMID.min(rows - t - 1),
            &wall,
            from,
            to,
            cols,
            rows,
            t,
            border,
        )?;
        t += PF_PYRAMID;
    }
    Ok(bits_i32(&results[dst].to_vec()?))
}

fn pathfinder_expected() -> Vec<u64> {
    let data = pathfinder_wall();
    let mut row: Vec<i32> = data[..PF_COLS].to_vec();
    for r in 1..PF_ROWS {
        let next = (0..PF_COLS)
            .map(|x| {
                let left = row[x.saturating_sub(1)];
                let right = row[(x + 1).min(PF_COLS - 1)];
                left.min(row[x]).min(right) + data[r * PF_COLS + x]
            })
            .collect();
        row = next;
    }
    bits_i32(&row)
}

// hotspot: a `HS_ROWS` x `HS_COLS` chip (not square, not a multiple of the small blocks),
// `HS_ITERATIONS` steps in launches of `HS_PYRAMID` steps.
const HS_ROWS: usize = 37;
const HS_COLS: usize = 45;
const HS_PYRAMID: i32 = 2;
const HS_ITERATIONS: i32 = 5;

fn hotspot_inputs() -> (Vec<f32>, Vec<f32>) {
    let temp = lcg(3, HS_ROWS * HS_COLS)
        .iter()
        .map(|v| 320.0 + (v % 2000) as f32 / 100.0)
        .collect();
    let power = lcg(5, HS_ROWS * HS_COLS)
        .iter()
        .map(|v| (v % 1000) as f32 * 1.0e-5)
        .collect();
    (temp, power)
}

/// The scalars of `compute_tran_temp` (in C's `double` arithmetic, stored as `float`):
/// `(cap, rx, ry, rz, step)`.
fn hotspot_scalars() -> (f32, f32, f32, f32, f32) {
    let (t_chip, chip_height, chip_width) = (0.0005f32, 0.016f32, 0.016f32);
    let grid_height = chip_height / HS_ROWS as f32;
    let grid_width = chip_width / HS_COLS as f32;
    let (t_chip, gh, gw) = (
        f64::from(t_chip),
        f64::from(grid_height),
        f64::from(grid_width),
    );
    let (factor_chip, spec_heat_si, k_si, max_pd, precision) = (0.5, 1.75e6, 100.0, 3.0e6, 0.001);
    let cap = factor_chip * spec_heat_si * t_chip * gw * gh;
    let rx = gw / (2.0 * k_si * t_chip * gh);
    let ry = gh / (2.0 * k_si * t_chip * gw);
    let rz = t_chip / (k_si * gh * gw);
    let max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
    let step = precision / max_slope;
    (cap as f32, rx as f32, ry as f32, rz as f32, step as f32)
}

/// `compute_tran_temp` of hotspot.cu.
fn run_hotspot(dev: &Device) -> Result<Vec<u64>, Error> {
    let (temp, power) = hotspot_inputs();
    let (cap, rx, ry, rz, step) = hotspot_scalars();
    let (rows, cols) = (HS_ROWS as i32, HS_COLS as i32);
    let block = rodinia::HS_BLOCK_SIZE as i32;
    let border = HS_PYRAMID;
    let small_block = block - HS_PYRAMID * 2;
    let block_cols = cols / small_block + i32::from(cols % small_block != 0);
    let block_rows = rows / small_block + i32::from(rows % small_block != 0);
    let power = dev.upload(&power)?;
    let mut temps = [dev.upload(&temp)?, dev.zeros::<f32>(temp.len())?];
    let (mut src, mut dst) = (1, 0);
    let mut t = 0;
    while t < HS_ITERATIONS {
        (src, dst) = (dst, src);
        let [t0, t1] = &mut temps;
        let (from, to) = if src == 0 { (&*t0, t1) } else { (&*t1, t0) };
        rodinia::calculate_temp.launch(
            dev,
            Launch::new(
                (block_cols as u32, block_rows as u32),
                (block as u32, block as u32),
            ),
            HS_PYRAMID.min(HS_ITERATIONS - t),
            &power,
            from,
            to,
            cols,
            rows,
            border,
            border,
            cap,
            rx,
            ry,
            rz,
            step,
            0.001,
        )?;
        t += HS_PYRAMID;
    }
    Ok(bits_f32(&temps[dst].to_vec()?))
}

/// The stencil step by step over the whole chip, a cell's missing neighbours being itself.
fn hotspot_expected() -> Vec<u64> {
    let (mut temp, power) = hotspot_inputs();
    let (cap, rx, ry, rz, step) = hotspot_scalars();
    let amb_temp = 80.0f32;
    let step_div_cap = step / cap;
    let (rx_1, ry_1, rz_1) = (1.0 / rx, 1.0 / ry, 1.0 / rz);
    let (rows, cols) = (HS_ROWS, HS_COLS);
    for _ in 0..HS_ITERATIONS {
        let at = |r: usize, c: usize| temp[r * cols + c];
        let next = (0..rows * cols)
            .map(|k| {
                let (r, c) = (k / cols, k % cols);
                let t = at(r, c);
                let n = at(r.saturating_sub(1), c);
                let s = at((r + 1).min(rows - 1), c);
                let w = at(r, c.saturating_sub(1));
                let e = at(r, (c + 1).min(cols - 1));
                (f64::from(t)
                    + f64::from(step_div_cap)
                        * (f64::from(power[k])
                            + (f64::from(s + n) - 2.0 * f64::from(t)) * f64::from(ry_1)
                            + (f64::from(e + w) - 2.0 * f64::from(t)) * f64::from(rx_1)
                            + f64::from((amb_temp - t) * rz_1))) as f32
            })
            .collect();
        temp = next;
    }
    bits_f32(&temp)
}

// nw: the score matrix of two sequences of `NW_N` symbols, `NW_N + 1` columns with the gap
// penalties in row and column 0.
const NW_N: usize = 48;
const NW_PENALTY: i32 = 10;

/// The similarity scores (BLOSUM-like, -4 to 11) and the matrix with its first row and column.
fn nw_inputs() -> (Vec<i32>, Vec<i32>) {
    let cols = NW_N + 1;
    let reference = lcg(7, cols * cols)
        .iter()
        .map(|v| (v % 16) as i32 - 4)
        .collect();
    let mut matrix = vec![0i32; cols * cols];
    for i in 1..cols {
        matrix[i * cols] = -(i as i32) * NW_PENALTY;
        matrix[i] = -(i as i32) * NW_PENALTY;
    }
    (reference, matrix)
}

/// The two sweeps of needle.cu: tiles' anti-diagonals growing, then shrinking.
fn run_nw(dev: &Device) -> Result<Vec<u64>, Error> {
    let (reference, matrix) = nw_inputs();
    let cols = (NW_N + 1) as i32;
    let block = rodinia::NW_BLOCK_SIZE as i32;
    let block_width = (cols - 1) / block;
    let reference = dev.upload(&reference)?;
    let mut matrix = dev.upload(&matrix)?;
    for i in 1..=block_width {
        rodinia::needle_cuda_shared_1.launch(
            dev,
            Launch::new(i as u32, block as u32),
            &reference,
            &mut matrix,
            cols,
            NW_PENALTY,
            i,
            block_width,
        )?;
    }
    for i in (1..block_width).rev() {
        rodinia::needle_cuda_shared_2.launch(
            dev,
            Launch::new(i as u32, block as u32),
            &reference,
            &mut matrix,
            cols,
            NW_PENALTY,
            i,
            block_width,
        )?;
    }
    Ok(bits_i32(&matrix.to_vec()?))
}

fn nw_expected() -> Vec<u64> {
    let (reference, mut m) = nw_inputs();
    let cols = NW_N + 1;
    for i in 1..cols {
        for j in 1..cols {
            let k = i * cols + j;
            m[k] = (m[k - cols - 1] + reference[k])
                .max(m[k - 1] - NW_PENALTY)
                .max(m[k - cols] - NW_PENALTY);
        }
    }
    bits_i32(&m)
}

// backprop: `BP_IN` input units (a multiple of 16: one block of 16 x 16 threads per 16
// inputs), `BP_HID` = 16 hidden units; weights `(BP_IN + 1) x (BP_HID + 1)`, row and column 0
// for the biases.
const BP_IN: usize = 64;
const BP_HID: usize = 16;

fn bp_floats(seed: u32, n: usize) -> Vec<f32> {
    lcg(seed, n)
        .iter()
        .map(|v| (v % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

fn run_bp_forward(dev: &Device) -> Result<Vec<u64>, Error> {
    let blocks = BP_IN / 16;
    let input = dev.upload(&bp_floats(11, BP_IN + 1))?;
    let mut weights = dev.upload(&bp_floats(13, (BP_IN + 1) * (BP_HID + 1)))?;
    let mut output_hidden = dev.zeros::<f32>(BP_HID + 1)?;
    let mut partial = dev.zeros::<f32>(blocks * rodinia::BP_WIDTH)?;
    rodinia::bpnn_layerforward_cuda.launch(
        dev,
        Launch::new((1, blocks as u32), (16, 16)),
        &input,
        &mut output_hidden,
        &mut weights,
        &mut partial,
        BP_IN as i32,
        BP_HID as i32,
    )?;
    let mut out = bits_f32(&weights.to_vec()?);
    out.extend(bits_f32(&partial.to_vec()?));
    Ok(out)
}

/// The products, then the tree in the kernel's order: at stride `p = 2^i`, row `ty` (a
/// multiple of `p`) adds row `ty + p / 2`; the weights keep the tree's partial sums, as the
/// kernel writes them back.
fn bp_forward_expected() -> Vec<u64> {
    let input = bp_floats(11, BP_IN + 1);
    let mut weights = bp_floats(13, (BP_IN + 1) * (BP_HID + 1));
    let hid = BP_HID;
    let mut partial = vec![0.0f32; BP_IN / 16 * 16];
    for by in 0..BP_IN / 16 {
        let index = |ty: usize, tx: usize| (hid + 1) * 16 * by + (hid + 1) * ty + tx + 1 + hid + 1;
        let mut m = [[0.0f32; 16]; 16];
        for (ty, row) in m.iter_mut().enumerate() {
            for (tx, v) in row.iter_mut().enumerate() {
                *v = weights[index(ty, tx)] * input[16 * by + ty + 1];
            }
        }
        for i in 1..=4 {
            let p = 1 << i;
            for ty in (0..16).step_by(p) {
                let below = m[ty + p / 2];
                for (v, w) in m[ty].iter_mut().zip(below) {
                    *v += w;
                }
            }
        }
        for (ty, row) in m.iter().enumerate() {
            for (tx, v) in row.iter().enumerate() {
                weights[index(ty, tx)] = *v;
            }
            partial[by * hid + ty] = m[0][ty];
        }
    }
    let mut out = bits_f32(&weights);
    out.extend(bits_f32(&partial));
    out
}

fn run_bp_adjust(dev: &Device) -> Result<Vec<u64>, Error> {
    let blocks = BP_IN / 16;
    let delta = dev.upload(&bp_floats(17, BP_HID + 1))?;
    let ly = dev.upload(&bp_floats(19, BP_IN + 1))?;
    let mut w = dev.upload(&bp_floats(23, (BP_IN + 1) * (BP_HID + 1)))?;
    let mut oldw = dev.upload(&bp_floats(29, (BP_IN + 1) * (BP_HID + 1)))?;
    rodinia::bpnn_adjust_weights_cuda.launch(
        dev,
        Launch::new((1, blocks as u32), (16, 16)),
        &delta,
        BP_HID as i32,
        &ly,
        BP_IN as i32,
        &mut w,
        &mut oldw,
    )?;
    let mut out = bits_f32(&w.to_vec()?);
    out.extend(bits_f32(&oldw.to_vec()?));
    Ok(out)
}

/// `bpnn_adjust_weights` of backprop.c for the input layer, in the kernel's `double`s.
#[allow(clippy::needless_range_loop)] // indexed as backprop.c indexes them
fn bp_adjust_expected() -> Vec<u64> {
    let delta = bp_floats(17, BP_HID + 1);
    let ly = bp_floats(19, BP_IN + 1);
    let mut w = bp_floats(23, (BP_IN + 1) * (BP_HID + 1));
    let mut oldw = bp_floats(29, (BP_IN + 1) * (BP_HID + 1));
    let (eta, momentum) = (0.3f64, 0.3f64);
    let cols = BP_HID + 1;
    for k in 1..=BP_IN {
        for j in 1..=BP_HID {
            let i = k * cols + j;
            let change =
                eta * f64::from(delta[j]) * f64::from(ly[k]) + momentum * f64::from(oldw[i]);
            w[i] = (f64::from(w[i]) + change) as f32;
            oldw[i] = change as f32;
        }
    }
    for j in 1..=BP_HID {
        let change = eta * f64::from(delta[j]) + momentum * f64::from(oldw[j]);
        w[j] = (f64::from(w[j]) + change) as f32;
        oldw[j] = change as f32;
    }
    let mut out = bits_f32(&w);
    out.extend(bits_f32(&oldw));
    out
}

// srad v2: a `SRAD_ROWS` x `SRAD_COLS` image (multiples of 16, as srad.cu requires; 3 x 2
// blocks, so that every kind of block edge occurs), two iterations of both kernels.
const SRAD_ROWS: usize = 48;
const SRAD_COLS: usize = 32;
const SRAD_LAMBDA: f32 = 0.5;
const SRAD_ITERATIONS: usize = 2;

/// The image as srad.cu makes it, `exp` of pixel values in [0, 1] (here `1 + v`, which needs
/// no libm), and q0sqr from its statistics.
fn srad_inputs() -> (Vec<f32>, f32) {
    let j: Vec<f32> = lcg(31, SRAD_ROWS * SRAD_COLS)
        .iter()
        .map(|v| 1.0 + (v % 256) as f32 / 255.0)
        .collect();
    let size = j.len() as f32;
    let sum: f32 = j.iter().sum();
    let sum2: f32 = j.iter().map(|v| v * v).sum();
    let mean = sum / size;
    let var = sum2 / size - mean * mean;
    (j, var / (mean * mean))
}

fn run_srad(dev: &Device) -> Result<Vec<u64>, Error> {
    let (j, q0sqr) = srad_inputs();
    let (rows, cols) = (SRAD_ROWS as i32, SRAD_COLS as i32);
    let bs = rodinia_srad::SRAD_BLOCK_SIZE;
    let launch = Launch::new(
        ((SRAD_COLS / bs) as u32, (SRAD_ROWS / bs) as u32),
        (bs as u32, bs as u32),
    );
    let size = j.len();
    let mut j = dev.upload(&j)?;
    let mut c = dev.zeros::<f32>(size)?;
    let [mut e, mut w, mut n, mut s] = [
        dev.zeros::<f32>(size)?,
        dev.zeros::<f32>(size)?,
        dev.zeros::<f32>(size)?,
        dev.zeros::<f32>(size)?,
    ];
    for _ in 0..SRAD_ITERATIONS {
        rodinia_srad::srad_cuda_1.launch(
            dev, launch, &mut e, &mut w, &mut n, &mut s, &j, &mut c, cols, rows, q0sqr,
        )?;
        rodinia_srad::srad_cuda_2.launch(
            dev,
            launch,
            &e,
            &w,
            &n,
            &s,
            &mut j,
            &c,
            cols,
            rows,
            SRAD_LAMBDA,
            q0sqr,
        )?;
    }
    let mut out = bits_f32(&j.to_vec()?);
    for b in [&c, &e, &w, &n, &s] {
        out.extend(bits_f32(&b.to_vec()?));
    }
    Ok(out)
}

/// srad.cu's CPU loop (a pixel's missing neighbours are itself) in the kernels' arithmetic.
fn srad_expected() -> Vec<u64> {
    let (mut j, q0sqr) = srad_inputs();
    let (rows, cols) = (SRAD_ROWS, SRAD_COLS);
    let size = rows * cols;
    let (mut c, mut d_e, mut d_w, mut d_n, mut d_s) = (
        vec![0.0f32; size],
        vec![0.0f32; size],
        vec![0.0f32; size],
        vec![0.0f32; size],
        vec![0.0f32; size],
    );
    for _ in 0..SRAD_ITERATIONS {
        for i in 0..rows {
            for k in 0..cols {
                let idx = i * cols + k;
                let jc = j[idx];
                let n = j[i.saturating_sub(1) * cols + k] - jc;
                let s = j[(i + 1).min(rows - 1) * cols + k] - jc;
                let w = j[i * cols + k.saturating_sub(1)] - jc;
                let e = j[i * cols + (k + 1).min(cols - 1)] - jc;
                let g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
                let l = (n + s + w + e) / jc;
                let num = 0.5 * f64::from(g2) - (1.0 / 16.0) * f64::from(l * l);
                let den = 1.0 + 0.25 * f64::from(l);
                let qsqr = (num / (den * den)) as f32;
                let den = f64::from((qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr)));
                let cv = (1.0 / (1.0 + den)) as f32;
                c[idx] = cv.clamp(0.0, 1.0);
                (d_n[idx], d_s[idx], d_w[idx], d_e[idx]) = (n, s, w, e);
            }
        }
        for i in 0..rows {
            for k in 0..cols {
                let idx = i * cols + k;
                let cc = c[idx];
                let cs = c[(i + 1).min(rows - 1) * cols + k];
                let ce = c[i * cols + (k + 1).min(cols - 1)];
                let d_sum = cc * d_n[idx] + cs * d_s[idx] + cc * d_w[idx] + ce * d_e[idx];
                j[idx] =
                    (f64::from(j[idx]) + 0.25 * f64::from(SRAD_LAMBDA) * f64::from(d_sum)) as f32;
            }
        }
    }
    let mut out = bits_f32(&j);
    for b in [&c, &d_e, &d_w, &d_n, &d_s] {
        out.extend(bits_f32(b));
    }
    out
}

// lud: a `LUD_DIM` x `LUD_DIM` matrix (3 x 3 tiles), made as `L * U` of small integers with
// U's diagonal 1 or 2: every intermediate value of the elimination is an integer (or an
// integer multiple of U's diagonal divided by it), so any order of the sums is exact and the
// result is `L` (below the diagonal) and `U` (on and above it), packed.
const LUD_DIM: usize = 48;

fn lud_factors() -> (Vec<f32>, Vec<f32>) {
    let n = LUD_DIM;
    let r = lcg(37, 2 * n * n);
    let mut l = vec![0.0f32; n * n];
    let mut u = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let k = i * n + j;
            if j < i {
                l[k] = (r[k] % 3) as f32 - 1.0;
            } else {
                u[k] = if j == i {
                    1.0 + (r[n * n + k] % 2) as f32
                } else {
                    (r[n * n + k] % 5) as f32 - 2.0
                };
            }
        }
        l[i * n + i] = 1.0;
    }
    (l, u)
}

fn lud_matrix() -> Vec<f32> {
    let n = LUD_DIM;
    let (l, u) = lud_factors();
    (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            (0..n).map(|p| l[i * n + p] * u[p * n + j]).sum()
        })
        .collect()
}

/// `lud_cuda` of lud_kernel.cu.
fn run_lud(dev: &Device) -> Result<Vec<u64>, Error> {
    let dim = LUD_DIM as i32;
    let bs = rodinia_lud::LUD_BLOCK_SIZE as i32;
    let mut m = dev.upload(&lud_matrix())?;
    let mut i = 0;
    while i < dim - bs {
        rodinia_lud::lud_diagonal.launch(dev, Launch::new(1, bs as u32), &mut m, dim, i)?;
        let tiles = ((dim - i) / bs - 1) as u32;
        rodinia_lud::lud_perimeter.launch(
            dev,
            Launch::new(tiles, 2 * bs as u32),
            &mut m,
            dim,
            i,
        )?;
        rodinia_lud::lud_internal.launch(
            dev,
            Launch::new((tiles, tiles), (bs as u32, bs as u32)),
            &mut m,
            dim,
            i,
        )?;
        i += bs;
    }
    rodinia_lud::lud_diagonal.launch(dev, Launch::new(1, bs as u32), &mut m, dim, i)?;
    Ok(bits_f32(&m.to_vec()?))
}

fn lud_expected() -> Vec<u64> {
    let n = LUD_DIM;
    let (l, u) = lud_factors();
    let packed: Vec<f32> = (0..n * n)
        .map(|k| if k % n < k / n { l[k] } else { u[k] })
        .collect();
    bits_f32(&packed)
}
