use cuphase::prelude::*;

// Constructs ports from public suites need (issue 11 §3): the scalar types' constants and
// `std::f32::consts`, tuple `let`, written as a CUDA programmer writes them in Rust.

/// C's reference parameters: `&mut s[i]` of a shared, a thread-local and a global array
/// passed to a helper's `&mut T` (the index held when the element is borrowed, as in Rust),
/// a borrowed element passed on to another helper, and a temporary (`&mut 7`).
#[device]
fn order(a: &mut u32, b: &mut u32) {
    if *a > *b {
        let t = *a;
        *a = *b;
        *b = t;
    }
}

#[device]
fn bump_by(x: &mut u32, by: u32) {
    *x += by;
    order(&mut 7, x);
}

#[kernel(block = 64)]
pub fn borrowed_elements(out: &mut [u32], xs: &[u32]) {
    let s = shared::<[u32; 128]>();
    let t = thread_idx().x;
    s[t] = xs[t];
    s[t + 64] = xs[t + 64];
    sync_block_threads();
    let mut i = 2 * t;
    order(&mut s[i], &mut s[i + 1]);
    i = 0;
    sync_block_threads();
    let mut pair = [0u32; 2];
    pair[0] = s[2 * t];
    pair[1] = s[2 * t + 1];
    bump_by(&mut pair[i as usize], 1);
    out[t] = pair[0] * 1000 + pair[1];
    bump_by(&mut out[t], i + 1);
}

/// Ordinary Rust (issue 12 §3): a `Dim3` bound by `let`, scalar methods called through their
/// type's path (`f32::max(a, b)`), lossless `From` conversions, a `const` in the body sizing a
/// shared array.
#[kernel]
pub fn path_calls(out: &mut [f32], wide: &mut [f64], xs: &[f32], small: &[u16]) {
    const B: usize = 64;
    let tile = shared::<[f32; B]>();
    let g = global_idx();
    let t = thread_idx();
    tile[t.x] = xs[g.x];
    sync_block_threads();
    if g.x < xs.len() as u32 {
        let a = f32::max(xs[g.x], tile[(t.x + 1) % B as u32]);
        let b = f32::min(a, 2.5);
        let c = f32::mul_add(a, b, 1.0);
        let n = u32::from(small[g.x]) + u32::min(g.x, 7) + u32::from(g.x > 3);
        out[g.x] = c + n as f32 + f32::from(small[g.x]) + f32::from(a > 1.0);
        wide[g.x] = f64::from(a) * 0.5 + f64::from(n);
    }
}

/// Array literals (issue 12 §2): a 3-tap stencil's weights, a 2-D table with a computed
/// element, a mutable list changed afterwards.
#[kernel]
pub fn array_literals(out: &mut [f32], counts: &mut [u32], xs: &[f32]) {
    let i = global_idx().x;
    let n = xs.len() as u32;
    if i >= 1 && i + 1 < n {
        let w = [0.25f32, 0.5, 0.25];
        let mut acc = 0.0;
        for k in 0..3u32 {
            acc += w[k] * xs[i + k - 1];
        }
        out[i] = acc;
    }
    if i < counts.len() as u32 {
        let table = [[1u32, 2, 3], [4, i % 7, 6]];
        let mut picks = [i, i + 1, 2];
        picks[2] = table[1][1] + table[0][2];
        counts[i] = picks[0] * 100 + picks[1] * 10 + picks[2];
    }
}

/// C's pointer arithmetic as sub-slices: a row of a global matrix (`float* x = inp + i * c`),
/// a sub-slice of it, a warp's part of a shared array passed to a helper, and `len()`.
#[device]
fn row_sum(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    let mut j = 0usize;
    while j < 4 {
        s += x[j];
        j += 1;
    }
    s
}

#[device]
fn count(part: &mut [u32], v: u32) {
    part.atomic_add(v % 8, 1);
}

#[kernel(block = 64)]
pub fn sub_slices(out: &mut [f32], counts: &mut [u32], inp: &[f32], c: u32) {
    let bins = shared::<[u32; 16]>();
    let t = thread_idx().x;
    if t < 16 {
        bins[t] = 0;
    }
    sync_block_threads();
    let x = &inp[(t * c) as usize..];
    let tail = &x[1..];
    let mine = &mut bins[((t / 32) * 8) as usize..];
    count(mine, t);
    out[t] = row_sum(x) + tail[0] + (tail.len() as f32) + (mine.len() as f32);
    sync_block_threads();
    if t < 16 {
        counts[t] = bins[t];
    }
}

/// Every float constant kernels know, and tuple bindings (a swap among them).
#[kernel]
pub fn float_consts(out: &mut [f32], wide: &mut [f64], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let (lo, hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let (mut a, b) = (x.max(lo), x.min(hi));
        a *= core::f32::consts::PI;
        let (a, b) = (b, a);
        let o = i * 10;
        out[o] = a;
        out[o + 1] = b + f32::EPSILON;
        out[o + 2] = f32::MAX;
        out[o + 3] = f32::MIN;
        out[o + 4] = f32::MIN_POSITIVE * x;
        out[o + 5] = if x != x {
            f32::NAN
        } else {
            std::f32::consts::E * x
        };
        out[o + 6] = lo;
        out[o + 7] = hi;
        out[o + 8] = std::f32::consts::FRAC_1_SQRT_2 + std::f32::consts::TAU;
        // (Arithmetic on NaN gives the GPU's canonical NaN, not the operand's bits: a NaN is
        // only stored or negated here.)
        out[o + 9] = if x > 0.0 { f32::NAN } else { -f32::NAN };
        let (w, _, z): (f64, u32, f64) = (x as f64, 7, std::f64::consts::LN_2);
        wide[i * 4] = w * z;
        wide[i * 4 + 1] = f64::MAX / 2.0;
        wide[i * 4 + 2] = f64::NEG_INFINITY;
        wide[i * 4 + 3] = f64::EPSILON + core::f64::consts::SQRT_2;
    }
}

/// The block size, the stencil's radius, a scale and a shift, as a port writes them.
pub const BLOCK: usize = 64;
const RADIUS: u32 = 2;
const SCALE: f32 = 0.5;
const SHIFT: i64 = -3;

/// A 1-D box stencil over one block's tile, sized and shaped by module constants (and a
/// `const` in the body).
#[kernel]
pub fn module_consts(out: &mut [f32], input: &[f32], wide: &mut [i64]) {
    let tile = shared::<[f32; BLOCK]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if i < input.len() as u32 {
        tile[t] = input[i];
    }
    sync_block_threads();
    const BIAS: u32 = 1;
    if i < out.len() as u32 {
        let mut acc = 0.0f32;
        let lo = if t >= RADIUS { t - RADIUS } else { 0 };
        let hi = (t + RADIUS).min(BLOCK as u32 - 1);
        for j in lo..=hi {
            acc += tile[j];
        }
        out[i] = acc * SCALE + BIAS as f32;
        wide[i] = (i as i64) * SHIFT;
    }
}

/// CUDA samples' `transposeNoBankConflicts`: a 32x33 tile, 32x8 blocks, each thread moving
/// four elements through strided loops. Race-free for its launch shape only, which it declares.
#[kernel(block = (32, 8))]
pub fn transpose_samples(out: &mut [f32], input: &[f32], width: u32, height: u32) {
    let tile = shared::<[[f32; 33]; 32]>();
    let mut x = block_idx().x * 32 + thread_idx().x;
    let mut y = block_idx().y * 32 + thread_idx().y;
    for j in (0..32).step_by(8) {
        if x < width && y + j < height {
            tile[thread_idx().y + j][thread_idx().x] = input[(y + j) * width + x];
        }
    }
    sync_block_threads();
    x = block_idx().y * 32 + thread_idx().x;
    y = block_idx().x * 32 + thread_idx().y;
    for j in (0..32).step_by(8) {
        if x < height && y + j < width {
            out[(y + j) * height + x] = tile[thread_idx().x][thread_idx().y + j];
        }
    }
}

const HALO: usize = 2;

/// A 1-D stencil whose tile holds the block and a halo on each side: the tile's length is an
/// expression of module constants, which the launch evaluates.
#[kernel(block = 64)]
pub fn halo_stencil(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; BLOCK + 2 * HALO]>();
    let t = thread_idx().x;
    let i = block_idx().x * 64 + t;
    let n = input.len() as u32;
    tile[t + 2] = if i < n { input[i] } else { 0.0 };
    if t < 2 {
        tile[t] = if i >= 2 && i - 2 < n {
            input[i - 2]
        } else {
            0.0
        };
        tile[t + 66] = if i + 64 < n { input[i + 64] } else { 0.0 };
    }
    sync_block_threads();
    if i < n {
        out[i] = tile[t] + tile[t + 1] + tile[t + 2] + tile[t + 3] + tile[t + 4];
    }
}

/// The CUDA samples' reduction with a warp-shuffle tail: a shared tree down to 64 values, then
/// the first warp finishes under `if tid < 32` (warp-uniform when blocks are whole warps).
#[kernel]
pub fn reduce_warp_tail(out: &mut [f32], input: &[f32]) {
    let sdata = shared::<[f32; 256]>();
    let tid = thread_idx().x;
    let i = block_idx().x * 256 + tid;
    sdata[tid] = if i < input.len() as u32 {
        input[i]
    } else {
        0.0
    };
    sync_block_threads();
    let mut s = 128u32;
    while s > 32 {
        if tid < s {
            sdata[tid] = sdata[tid] + sdata[tid + s];
        }
        sync_block_threads();
        s /= 2;
    }
    if tid < 32 {
        let mut sum = sdata[tid] + sdata[tid + 32];
        let mut offset = 16u32;
        while offset > 0 {
            sum += warp_shuffle_down(sum, offset);
            offset /= 2;
        }
        if tid == 0 {
            out[block_idx().x] = sum;
        }
    }
}

/// Whether `i` is an index of a slice of length `n`.
#[device]
fn in_range(i: u32, n: u32) -> bool {
    if i >= n {
        return false;
    }
    true
}

/// The element at `i`: a helper call that faults if it is evaluated out of range.
#[device]
fn at(xs: &[f32], i: u32) -> f32 {
    let v = xs[i];
    v
}

/// Helper calls on the right of `&&` and `||` (Rodinia's `IN_RANGE(..) && IN_RANGE(..)`):
/// evaluated only when the left side does not decide.
#[kernel]
pub fn short_circuit_helpers(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    let n = xs.len() as u32;
    if i < out.len() as u32 {
        let positive = in_range(i, n) && at(xs, i) > 0.0;
        let outside_or_small = !in_range(i, n) || at(xs, i) < 2.0;
        let a = if positive { 1.0 } else { 0.0 };
        let b = if outside_or_small { 2.0 } else { 0.0 };
        out[i] = a + b;
    }
}

/// Deferred initialisation (Rodinia's srad: `float n; if (..) n = ..; else n = ..;`).
#[kernel]
pub fn deferred_init(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let scale: f32;
        if xs[i] > 0.0 {
            scale = 2.0;
        } else {
            scale = -1.0;
        }
        out[i] = xs[i] * scale;
    }
}

/// A loop whose counter nothing names (`for _ in 0..n`).
#[kernel]
pub fn unnamed_counter(out: &mut [u32], n: u32) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        let mut acc = i;
        for _ in 0..n {
            acc = acc * 3 + 1;
        }
        out[i] = acc;
    }
}

/// Deferred tuple initialisation (Rodinia's srad: `float n, s, w, e; if (..) { n = ..; .. }`):
/// `let (a, mut b);` is `let a; let mut b;`, each assigned once on each path; with a tuple
/// type the names take its types.
#[kernel]
pub fn deferred_tuple(out: &mut [f32], steps: &mut [u32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let (lo, mut hi);
        let (count, bias): (u32, f32);
        if xs[i] > 0.0 {
            lo = xs[i] - 1.0;
            hi = xs[i] + 1.0;
            count = 2;
            bias = 0.5;
        } else if xs[i] < 0.0 {
            lo = xs[i] * 2.0;
            hi = 0.0f32;
            count = 1;
            bias = -0.5;
        } else {
            lo = 0.0;
            hi = 0.0;
            count = 0;
            bias = 0.0;
        }
        hi += bias;
        out[i] = lo + hi;
        steps[i] = count + i;
    }
}

/// `let _ = (a, b);` drops each element, as `let _ = a; let _ = b;` (the C original's unused
/// parameters); an element with an effect still has it.
#[kernel]
pub fn tuple_discard(out: &mut [u32], counter: &mut [u32], a: f32, b: u32) {
    let _ = (a, b);
    let i = global_idx().x;
    if i < out.len() as u32 {
        let _ = (counter.atomic_add(0, 1), (a, counter.atomic_add(1, i)));
        out[i] = i + b;
    }
}

/// Adds one to `*n` and returns its old value.
#[device]
fn bump(n: &mut u32) -> u32 {
    let old = *n;
    *n = old + 1;
    old
}

/// A helper call dropped in a tuple (`let _ = (f(&mut n), ..)`) still runs.
#[kernel]
pub fn tuple_discard_helper(out: &mut [u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        let mut n = i;
        let _ = (bump(&mut n), (1.0f32, bump(&mut n)));
        out[i] = n;
    }
}

/// Sums `xs[..n]` by one thread.
#[device(trailing_sync = false)]
fn prefix_sum(xs: &[f32], n: u32) -> f32 {
    let mut s = 0.0f32;
    for k in 0..n {
        s += xs[k];
    }
    s
}

/// A shared array under a second name (llm.c's softmax 4: `extern __shared__ float shared[];
/// float* max_or_sum_storage = shared;`): the same array, indexed, measured and passed to a
/// helper through either name.
#[kernel]
pub fn shared_alias(out: &mut [f32], xs: &[f32]) {
    let shared = shared_slice::<f32>();
    let storage = shared;
    let tile = shared::<[f32; 64]>();
    let rows = tile;
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    let len = storage.len() as u32;
    if t < len {
        storage[t] = if i < xs.len() as u32 { xs[i] } else { 0.0 };
    }
    if t < 64 {
        rows[t] = t as f32;
    }
    sync_block_threads();
    if i < out.len() as u32 && t < len {
        let before = prefix_sum(storage, t + 1);
        out[i] = before + shared[len - 1 - t] + tile[t / 2] + len as f32;
    }
}
