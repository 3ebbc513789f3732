"""The simulator benchmark's kernels on Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1).

Run by `cargo run --release --example bench_sim` when a Python with numba and numba-cuda is
found; prints one JSON object: kernel -> GPU threads simulated per second. The kernels are the
same algorithms as in benches/sim.rs; sizes are small because Numba's simulator runs every GPU
thread as a Python thread.
"""
import json
import os
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
from numba import cuda, float32  # noqa: E402


@cuda.jit
def reverse(out, inp):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    if i < inp.shape[0]:
        tile[t] = inp[i]
    cuda.syncthreads()
    r = cuda.blockDim.x - 1 - t
    if i < out.shape[0]:
        out[i] = tile[r]


@cuda.jit
def block_reduce(partial, inp):
    buf = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    buf[t] = inp[i] if i < inp.shape[0] else 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = buf[0]


@cuda.jit
def tiled_matmul(c, a, b, n):
    ta = cuda.shared.array((16, 16), float32)
    tb = cuda.shared.array((16, 16), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * 16 + ty
    col = cuda.blockIdx.x * 16 + tx
    acc = 0.0
    for t in range((n + 15) // 16):
        ac = t * 16 + tx
        br = t * 16 + ty
        ta[ty, tx] = a[row * n + ac] if (row < n and ac < n) else 0.0
        tb[ty, tx] = b[br * n + col] if (br < n and col < n) else 0.0
        cuda.syncthreads()
        for k in range(16):
            acc += ta[ty, k] * tb[k, tx]
        cuda.syncthreads()
    if row < n and col < n:
        c[row * n + col] = acc


def timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main():
    results = {}
    n = 4096
    inp = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    secs = timed(lambda: reverse[n // 256, 256](out, inp))
    assert (out[:256] == inp[:256][::-1]).all()
    results["reverse"] = n / secs
    partial = np.zeros(n // 256, dtype=np.float32)
    secs = timed(lambda: block_reduce[n // 256, 256](partial, inp))
    assert partial[0] == inp[:256].sum()
    results["block_reduce"] = n / secs
    m = 64
    a = np.ones(m * m, dtype=np.float32)
    b = np.ones(m * m, dtype=np.float32)
    c = np.zeros(m * m, dtype=np.float32)
    secs = timed(lambda: tiled_matmul[(m // 16, m // 16), (16, 16)](c, a, b, m))
    assert c[0] == m
    results["tiled_matmul"] = m * m / secs
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
