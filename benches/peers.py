"""Peers of benches/gpu_vector.rs on the same GPU, timed the same way (CUDA events around each
batches of 8 launches, warm-up, median): torch's copy, SAXPY and cuBLAS SGEMM (TF32 off), and Triton's copy
and SAXPY. Run on the GPU machine beside `bench_gpu`: `python3 benches/peers.py`."""

import statistics

import torch

torch.backends.cuda.matmul.allow_tf32 = False


# Runs timed back to back in one sample, as bench_gpu does: the GPU stays busy, so the host's
# launch time is not counted.
BATCH = 8


def time_ms(f, warmup=5, reps=50):
    for _ in range(warmup):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(BATCH):
            f()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / BATCH)
    return statistics.median(times)


def main():
    n = 1 << 28
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(n, device="cuda", generator=gen) * 20 - 10
    y = torch.rand(n, device="cuda", generator=gen) * 20 - 10
    out = torch.full_like(x, float("nan"))
    print("| peer | ms | throughput |\n|---|---|---|")
    ms = time_ms(lambda: out.copy_(x))
    assert torch.equal(out, x)
    print(f"| torch copy_, 2^28 f32 | {ms:.3f} | {2 * n * 4 / ms / 1e6:.0f} GB/s |")
    y0 = y.clone()
    ms = time_ms(lambda: y.add_(x, alpha=0.5))
    y.copy_(y0)
    y.add_(x, alpha=0.5)
    assert torch.allclose(y, y0 + 0.5 * x)
    print(f"| torch add_(x, alpha), 2^28 f32 | {ms:.3f} | {3 * n * 4 / ms / 1e6:.0f} GB/s |")
    ms = time_ms(lambda: torch.flip(x.view(-1, 1024), dims=[1]))
    print(f"| torch flip (rows of 1024), 2^28 f32 | {ms:.3f} | {2 * n * 4 / ms / 1e6:.0f} GB/s |")
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def saxpy(y_ptr, x_ptr, a, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

        @triton.jit
        def copy(o_ptr, x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)

        grid = (triton.cdiv(n, 1024),)
        out.fill_(float("nan"))
        ms = time_ms(lambda: copy[grid](out, x, n, BLOCK=1024))
        assert torch.equal(out, x)
        print(f"| Triton copy, 2^28 f32 | {ms:.3f} | {2 * n * 4 / ms / 1e6:.0f} GB/s |")
        ms = time_ms(lambda: saxpy[grid](y, x, 0.5, n, BLOCK=1024))
        print(f"| Triton saxpy, 2^28 f32 | {ms:.3f} | {3 * n * 4 / ms / 1e6:.0f} GB/s |")
    except Exception as e:  # Triton missing or failing: say so, keep the torch rows.
        print(f"| Triton | skipped: {e} | |")
    s = torch.empty((), device="cuda")
    ms = time_ms(lambda: s.copy_(torch.sum(x)))
    assert abs(s.item() - x.double().sum().item()) < 1e-3 * x.abs().sum().item()
    print(f"| torch sum, 2^28 f32 | {ms:.3f} | {n * 4 / ms / 1e6:.0f} GB/s |")
    rows = x.view(8192, -1)[:, :8192].contiguous()
    sm = torch.empty_like(rows)
    ms = time_ms(lambda: torch.softmax(rows, dim=1, out=sm))
    assert torch.allclose(sm, torch.softmax(rows.double(), dim=1).float(), rtol=1e-4, atol=1e-7)
    print(f"| torch softmax, 8192 rows of 8192 f32 | {ms:.3f} | {2 * rows.numel() * 4 / ms / 1e6:.0f} GB/s |")
    t = torch.empty_like(rows)
    ms = time_ms(lambda: t.copy_(rows.t()))
    assert torch.equal(t, rows.t())
    print(f"| torch transpose (copy_ of .t()), 8192^2 f32 | {ms:.3f} | {2 * rows.numel() * 4 / ms / 1e6:.0f} GB/s |")
    data = (torch.rand(n, device="cuda", generator=gen) * 256).to(torch.uint8)
    ms = time_ms(lambda: torch.bincount(data, minlength=256))
    print(f"| torch bincount (256 bins), 2^28 u8 | {ms:.3f} | {n / ms / 1e6:.0f} GB/s |")
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def softmax_k(o_ptr, x_ptr, cols, BLOCK: tl.constexpr):
            r = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            v = tl.load(x_ptr + r * cols + offs, mask=offs < cols, other=-float("inf"))
            v = v - tl.max(v, axis=0)
            e = tl.exp(v)
            tl.store(o_ptr + r * cols + offs, e / tl.sum(e, axis=0), mask=offs < cols)

        sm.fill_(float("nan"))
        ms = time_ms(lambda: softmax_k[(8192,)](sm, rows, 8192, BLOCK=8192, num_warps=16))
        assert torch.allclose(sm, torch.softmax(rows.double(), dim=1).float(), rtol=1e-4, atol=1e-7)
        print(f"| Triton softmax (one row a program), 8192 rows of 8192 f32 | {ms:.3f} | {2 * rows.numel() * 4 / ms / 1e6:.0f} GB/s |")
    except Exception as e:
        print(f"| Triton softmax | skipped: {e} | |")
    m = 4096
    a = torch.rand(m, m, device="cuda", generator=gen) * 2 - 1
    b = torch.rand(m, m, device="cuda", generator=gen) * 2 - 1
    c = torch.empty(m, m, device="cuda")
    ms = time_ms(lambda: torch.matmul(a, b, out=c), warmup=3, reps=20)
    ref = a.double() @ b.double()
    assert torch.allclose(c.double(), ref, rtol=1e-3, atol=1e-2)
    print(f"| cuBLAS SGEMM (torch.matmul, TF32 off), 4096^3 | {ms:.3f} | {2 * m**3 / ms / 1e9:.1f} TFLOP/s |")


if __name__ == "__main__":
    main()
