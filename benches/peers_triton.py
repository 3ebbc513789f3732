"""Triton versions of the suite's kernels (benches/gpu_suite.rs and benches/gpu_vector.rs), on
the same GPU and sizes, timed as bench_gpu times (CUDA events around batches of 8 launches,
warm-up, median) and checked against torch on random inputs with poisoned outputs. Each kernel
is the one a Triton user would write (the tutorial matmul for SGEMM, fp32 with
`input_precision="ieee"`). Run on the GPU machine: `python3 benches/peers_triton.py`."""

import traceback

import torch
import triton
import triton.language as tl

from peers import time_ms  # the same timing as the other peers (batches of 8 launches)

torch.backends.cuda.matmul.allow_tf32 = False


@triton.jit
def reverse_k(o_ptr, x_ptr, BLOCK: tl.constexpr):
    # The 4-float chunks of each block of BLOCK floats, in reverse order (reverse4).
    base = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    src = base + (BLOCK - 4) - (offs // 4) * 4 + offs % 4
    tl.store(o_ptr + base + offs, tl.load(x_ptr + src))


@triton.jit
def sum_k(p_ptr, x_ptr, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(ITERS):
        acc += tl.load(x_ptr + (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK))
    tl.store(p_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def layernorm_k(o_ptr, x_ptr, g_ptr, b_ptr, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * cols + offs)
    mean = tl.sum(x, axis=0) / cols
    d = x - mean
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / cols + 1e-5)
    tl.store(o_ptr + r * cols + offs, d * rstd * tl.load(g_ptr + offs) + tl.load(b_ptr + offs))


@triton.jit
def transpose_k(o_ptr, x_ptr, n, B: tl.constexpr):
    ri = tl.program_id(0) * B + tl.arange(0, B)
    rj = tl.program_id(1) * B + tl.arange(0, B)
    v = tl.load(x_ptr + ri[:, None] * n + rj[None, :])
    tl.store(o_ptr + rj[:, None] * n + ri[None, :], tl.trans(v))


@triton.jit
def histogram_k(bins_ptr, x_ptr, BLOCK: tl.constexpr):
    v = tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int32)
    tl.atomic_add(bins_ptr + tl.arange(0, 256), tl.histogram(v, 256))


@triton.jit
def scan_k(o_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


@triton.jit
def stencil_k(o_ptr, x_ptr, n, BY: tl.constexpr, BX: tl.constexpr):
    y = tl.program_id(1) * BY + tl.arange(0, BY)[:, None]
    x = tl.program_id(0) * BX + tl.arange(0, BX)[None, :]
    i = y * n + x
    c = tl.load(x_ptr + i)
    inner = (x > 0) & (y > 0) & (x + 1 < n) & (y + 1 < n)
    lft = tl.load(x_ptr + i - 1, mask=inner, other=0.0)
    rgt = tl.load(x_ptr + i + 1, mask=inner, other=0.0)
    up = tl.load(x_ptr + i - n, mask=inner, other=0.0)
    dn = tl.load(x_ptr + i + n, mask=inner, other=0.0)
    tl.store(o_ptr + i, tl.where(inner, 0.5 * c + 0.125 * ((lft + rgt) + (up + dn)), c))


@triton.jit
def matmul_k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = GROUP * num_n
    first_m = (pid // group) * GROUP
    size = tl.minimum(num_m - first_m, GROUP)
    pm = first_m + (pid % group) % size
    pn = (pid % group) // size
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b), input_precision="ieee")
        a += BK
        b += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def row(name, ms, throughput):
    print(f"| Triton {name} | {ms:.3f} | {throughput} |")


def gbs(nbytes, ms):
    return f"{nbytes / ms / 1e6:.0f} GB/s"


def case(name, f):
    """Runs one kernel's check and timing; a failure costs its row, not the others."""
    try:
        f()
    except Exception as e:  # noqa: BLE001 - report and go on
        print(f"| Triton {name} | failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} | |")
        traceback.print_exc()


def main():
    gen = torch.Generator(device="cuda").manual_seed(3)
    n = 1 << 28
    x = torch.rand(n, device="cuda", generator=gen) * 20 - 10
    print("| peer (Triton) | ms | throughput |\n|---|---|---|")

    def reverse():
        out = torch.full_like(x, float("nan"))
        ms = time_ms(lambda: reverse_k[(n // 1024,)](out, x, BLOCK=1024))
        assert torch.equal(out.view(-1, 256, 4), x.view(-1, 256, 4).flip(1))
        row("reverse4 (reversed-index load), 2^28 f32", ms, gbs(2 * n * 4, ms))

    def reduce_sum():
        block, iters = 4096, 16
        p = torch.full((n // (block * iters),), float("nan"), device="cuda")
        ms = time_ms(lambda: sum_k[(p.numel(),)](p, x, BLOCK=block, ITERS=iters))
        want = x.double().sum().item()
        assert abs(p.double().sum().item() - want) <= 1e-4 * x.abs().double().sum().item()
        row("reduce_sum (partials), 2^28 f32", ms, gbs(n * 4, ms))

    rows = x.view(8192, -1)[:, :8192].contiguous()

    def layernorm():
        g = torch.rand(8192, device="cuda", generator=gen) + 0.5
        b = torch.rand(8192, device="cuda", generator=gen) - 0.5
        out = torch.full_like(rows, float("nan"))
        ms = time_ms(lambda: layernorm_k[(8192,)](out, rows, g, b, 8192, BLOCK=8192, num_warps=16))
        want = torch.nn.functional.layer_norm(rows.double(), (8192,), g.double(), b.double(), 1e-5)
        assert torch.allclose(out.double(), want, rtol=1e-4, atol=1e-4)
        row("layernorm (one row a program), 8192 rows of 8192 f32", ms, gbs(2 * rows.numel() * 4, ms))

    def transpose():
        out = torch.full_like(rows, float("nan"))
        ms = time_ms(lambda: transpose_k[(128, 128)](out, rows, 8192, B=64))
        assert torch.equal(out, rows.t())
        row("transpose (64 x 64 tiles), 8192^2 f32", ms, gbs(2 * rows.numel() * 4, ms))

    def histogram():
        data = (torch.rand(n, device="cuda", generator=gen) * 256).to(torch.uint8)
        bins = torch.zeros(256, dtype=torch.int32, device="cuda")
        block = 8192
        run = lambda: histogram_k[(n // block,)](bins, data, BLOCK=block)
        run()
        assert torch.equal(bins.long(), torch.bincount(data, minlength=256))
        ms = time_ms(run)
        row("histogram (tl.histogram), 2^28 u8", ms, gbs(n, ms))

    def scan():
        v = torch.randint(-(1 << 31), (1 << 31) - 1, (n,), dtype=torch.int32, device="cuda", generator=gen)
        out = torch.zeros_like(v)
        ms = time_ms(lambda: scan_k[(n // 1024,)](out, v, BLOCK=1024))
        want = torch.cumsum(v.view(-1, 1024).long(), dim=1) & 0xFFFFFFFF
        assert torch.equal(out.view(-1, 1024).long() & 0xFFFFFFFF, want)
        row("block_scan (tl.cumsum, 1024 a block), 2^28 u32", ms, gbs(2 * n * 4, ms))

    def stencil():
        out = torch.full_like(rows, float("nan"))
        ms = time_ms(lambda: stencil_k[(8192 // 128, 8192 // 8)](out, rows, 8192, BY=8, BX=128))
        want = rows.clone()
        want[1:-1, 1:-1] = 0.5 * rows[1:-1, 1:-1] + 0.125 * (
            (rows[1:-1, :-2] + rows[1:-1, 2:]) + (rows[:-2, 1:-1] + rows[2:, 1:-1])
        )
        assert torch.allclose(out, want, rtol=1e-6, atol=1e-6)
        row("stencil (5-point, 8 x 128 a program), 8192^2 f32", ms, gbs(2 * rows.numel() * 4, ms))

    def sgemm():
        m = 4096
        a = torch.rand(m, m, device="cuda", generator=gen) * 2 - 1
        b = torch.rand(m, m, device="cuda", generator=gen) * 2 - 1
        ref = a.double() @ b.double()
        best = None
        for bm, bn, bk, warps, stages in [(128, 128, 32, 8, 3), (128, 128, 16, 8, 4), (128, 256, 16, 8, 3), (64, 128, 32, 4, 4)]:
            c = torch.full((m, m), float("nan"), device="cuda")
            run = lambda: matmul_k[((m // bm) * (m // bn),)](
                a, b, c, m, m, m, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)
            try:
                run()
            except Exception as e:  # noqa: BLE001 - a configuration that does not fit
                print(f"| Triton sgemm {bm}x{bn}x{bk} | failed: {type(e).__name__} | |")
                continue
            err = ((c.double() - ref).norm() / ref.norm()).item()
            assert err < 1e-5, err
            ms = time_ms(run, warmup=3, reps=10)
            tf = 2 * m ** 3 / ms / 1e9
            print(f"| Triton sgemm (tutorial, ieee) {bm}x{bn}x{bk}, {warps} warps, {stages} stages, 4096^3 | {ms:.3f} | {tf:.1f} TFLOP/s |")
            if best is None or ms < best[0]:
                best = (ms, tf)
        if best:
            row("sgemm (tutorial, ieee, best of 4 configurations), 4096^3", best[0], f"{best[1]:.1f} TFLOP/s")

    for name, f in [("reverse4", reverse), ("reduce_sum", reduce_sum), ("layernorm", layernorm),
                    ("transpose", transpose), ("histogram", histogram), ("block_scan", scan),
                    ("stencil", stencil), ("sgemm", sgemm)]:
        case(name, f)


if __name__ == "__main__":
    main()
