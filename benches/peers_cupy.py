"""The suite's hand-written CUDA C (the `HANDWRITTEN` strings of benches/gpu_vector.rs and
benches/gpu_suite.rs) launched through CuPy's RawModule on the same GPU, timed as bench_gpu
times (CUDA events around batches of 8 launches, warm-up, median) and checked against NumPy/CuPy
references: the CuPy column of the suite. Run there: `python3 benches/peers_cupy.py`."""

import os
import re
import statistics

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def source(name):
    text = open(os.path.join(HERE, name)).read()
    return re.search(r'pub const HANDWRITTEN: &str = r#"(.*?)"#;', text, re.S).group(1)


# Runs timed back to back in one sample, as bench_gpu does: the GPU stays busy, so the host's
# launch time is not counted.
BATCH = 8


def time_ms(f, warmup=5, reps=30):
    for _ in range(warmup):
        f()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(BATCH):
            f()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / BATCH)
    return statistics.median(times)


def main():
    opts = ("--fmad=false", "--std=c++17")
    vec = cp.RawModule(code=source("gpu_vector.rs"), options=opts)
    suite = cp.RawModule(code=source("gpu_suite.rs"), options=opts)
    rng = np.random.default_rng(1)
    n = 1 << 28
    x = cp.asarray(rng.uniform(-10, 10, n).astype(np.float32))
    out = cp.full(n, cp.nan, dtype=cp.float32)
    q = np.uint64(n // 4)
    grid = ((n // 4 + 255) // 256,)
    print("| CuPy RawKernel (the hand-written CUDA C) | ms | throughput |\n|---|---|---|")
    f = vec.get_function("copy4_ref")
    ms = time_ms(lambda: f(grid, (256,), (out, x, q)))
    assert cp.array_equal(out, x)
    print(f"| copy4_ref, 2^28 f32 | {ms:.3f} | {2 * n * 4 / ms / 1e6:.0f} GB/s |")
    y = x.copy()
    f = vec.get_function("saxpy4_ref")
    ms = time_ms(lambda: f(grid, (256,), (y, x, np.float32(0.5), q)))
    print(f"| saxpy4_ref, 2^28 f32 | {ms:.3f} | {3 * n * 4 / ms / 1e6:.0f} GB/s |")
    f = vec.get_function("reverse4_ref")
    out.fill(cp.nan)
    ms = time_ms(lambda: f(grid, (256,), (out, x, q)))
    want = x.reshape(-1, 256, 4)[:, ::-1, :].reshape(-1)
    assert cp.array_equal(out, want)
    print(f"| reverse4_ref, 2^28 f32 | {ms:.3f} | {2 * n * 4 / ms / 1e6:.0f} GB/s |")
    blocks = 132 * 16
    partials = cp.full(blocks, cp.nan, dtype=cp.float32)
    f = suite.get_function("reduce_sum_ref")
    ms = time_ms(lambda: f((blocks,), (256,), (partials, x, np.uint32(n // 4))))
    assert abs(float(partials.astype(cp.float64).sum()) - float(x.astype(cp.float64).sum())) < 1e-4 * float(cp.abs(x).sum())
    print(f"| reduce_sum_ref, 2^28 f32 | {ms:.3f} | {n * 4 / ms / 1e6:.0f} GB/s |")
    rows = x[: 8192 * 8192].reshape(8192, 8192)
    sm = cp.full_like(rows, cp.nan)
    f = suite.get_function("softmax_ref")
    ms = time_ms(lambda: f((8192,), (256,), (sm, rows)))
    r = rows[:4].astype(cp.float64)
    e = cp.exp(r - r.max(axis=1, keepdims=True))
    assert cp.allclose(sm[:4], e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)
    print(f"| softmax_ref, 8192 rows of 8192 f32 | {ms:.3f} | {2 * rows.size * 4 / ms / 1e6:.0f} GB/s |")
    g = cp.asarray(rng.uniform(-1, 1, 8192).astype(np.float32))
    b = cp.asarray(rng.uniform(-1, 1, 8192).astype(np.float32))
    f = suite.get_function("layernorm_ref")
    ms = time_ms(lambda: f((8192,), (256,), (sm, rows, g, b)))
    m = r.mean(axis=1, keepdims=True)
    want = (r - m) / cp.sqrt(((r - m) ** 2).mean(axis=1, keepdims=True) + 1e-5) * g + b
    assert cp.allclose(sm[:4], want, rtol=1e-3, atol=1e-3)
    print(f"| layernorm_ref, 8192 rows of 8192 f32 | {ms:.3f} | {2 * rows.size * 4 / ms / 1e6:.0f} GB/s |")
    t = cp.full_like(rows, cp.nan)
    f = suite.get_function("transpose_ref")
    ms = time_ms(lambda: f((256, 256), (32, 8), (t, rows, np.uint32(8192))))
    assert cp.array_equal(t, rows.T)
    print(f"| transpose_ref, 8192^2 f32 | {ms:.3f} | {2 * rows.size * 4 / ms / 1e6:.0f} GB/s |")
    f = suite.get_function("stencil_ref")
    t.fill(cp.nan)
    ms = time_ms(lambda: f((64, 1024), (32, 8), (t, rows, np.uint32(8192))))
    want = rows.copy()
    want[1:-1, 1:-1] = 0.5 * rows[1:-1, 1:-1] + 0.125 * (
        (rows[1:-1, :-2] + rows[1:-1, 2:]) + (rows[:-2, 1:-1] + rows[2:, 1:-1])
    )
    assert cp.allclose(t, want, rtol=1e-6, atol=1e-6)
    print(f"| stencil_ref, 8192^2 f32 | {ms:.3f} | {2 * rows.size * 4 / ms / 1e6:.0f} GB/s |")
    data = cp.asarray(rng.integers(0, 256, n, dtype=np.uint8))
    bins = cp.zeros(256, dtype=cp.uint32)
    f = suite.get_function("histogram_ref")
    ms = time_ms(lambda: f((132 * 8,), (256,), (bins, data, np.uint32(n // 4))))
    print(f"| histogram_ref (256 bins), 2^28 u8 | {ms:.3f} | {n / ms / 1e6:.0f} GB/s |")
    u = cp.asarray(rng.integers(0, 1000, n, dtype=np.uint32))
    s = cp.zeros_like(u)
    f = suite.get_function("block_scan_ref")
    ms = time_ms(lambda: f((n // 1024,), (256,), (s, u)))
    assert cp.array_equal(s[:1024], cp.cumsum(u[:1024]).astype(cp.uint32))
    print(f"| block_scan_ref, 2^28 u32 | {ms:.3f} | {2 * n * 4 / ms / 1e6:.0f} GB/s |")
    k = 4096
    a = cp.asarray(rng.uniform(-1, 1, (k, k)).astype(np.float32))
    bb = cp.asarray(rng.uniform(-1, 1, (k, k)).astype(np.float32))
    c = cp.full((k, k), cp.nan, dtype=cp.float32)
    f = vec.get_function("sgemm_ref")
    ms = time_ms(lambda: f((32, 32), (256,), (c, a, bb, np.uint32(k))), warmup=3, reps=20)
    assert cp.allclose(c[:8].astype(cp.float64), a[:8].astype(cp.float64) @ bb.astype(cp.float64), rtol=1e-3, atol=1e-2)
    print(f"| sgemm_ref, 4096^3 | {ms:.3f} | {2 * k**3 / ms / 1e9:.1f} TFLOP/s |")


if __name__ == "__main__":
    main()
