"""The warpgroup bf16 GEMM of tests/in/wgmma.rs (`gemm_bf16_wgmma`: `c = a btᵀ`, 128x256 block
tiles of two warpgroups, `wgmma_m64n256k16` from four `cp.async` stages of 64-deep tiles in
192 KiB of shared memory) as cuphase generated it (tests/out/cuda/wgmma.cu), against the same
algorithm hand-written in CUDA C (`wgmma_ref` below: the same tiles, stages, swizzle, fences and
waits), cuBLAS on the same layout (torch `a @ bt.T`) and Triton's tutorial `tl.dot` GEMM (on
`b = btᵀ` copied, its layout), bf16 in, f32 accumulate: CUDA events around batches of
launches, warm-up, median of many, random inputs checked against the f32 product first,
outputs poisoned.

Both CUDA C kernels need the `sm_90a` target (cuphase's runtime picks it for kernels that use
`wgmma`), which CuPy's NVRTC call does not take: `build` compiles them here with NVRTC into
`benches/ab/<kernel>.cubin` (ignored by git; NVRTC 13.0, as on the GPU machine), which the
run loads (carry them). Here: `LD_LIBRARY_PATH=<nvrtc lib dir> python3 benches/wgmma_gemm.py build`; there:
`python3 benches/wgmma_gemm.py [--sizes 4096,8192] [--no-tf32 | --tf32-only] [--cubin PATH:NAME]..`; then the TF32
GEMM (`gemm_tf32_wgmma`) the same way against cuBLAS TF32 and Triton in TF32."""

import ctypes
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "gemm_bf16_wgmma"
SHARED = 4 * (1024 + 2048) * 16
BATCH = 4


def reference_source():
    """`wgmma_ref`: the GEMM written by hand, with cuphase's parameter list (its output
    stored in 8-byte pairs, as cuphase's `[[f32; 2]]`)."""
    acc = 128
    regs = ", ".join(f"%{i}" for i in range(acc))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(acc))
    return r"""
typedef unsigned int u32;
typedef unsigned long long u64;
struct __align__(16) chunk { unsigned short v[8]; };
__device__ __forceinline__ u32 swz(u32 c) { return c ^ ((c >> 3) & 7u); }
__device__ __forceinline__ u64 desc(const void* p) {
  u32 a = (u32)__cvta_generic_to_shared(p);
  return (u64)((a & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void mma(float* d, u64 da, u64 db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %P, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {REGS}, %A, %B, p, 1, 1, 0, 0;\n}\n"
    : OUTS : "l"(da), "l"(db), "r"(1));
}
__device__ __forceinline__ void cp16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((u32)__cvta_generic_to_shared(dst)), "l"(src) : "memory");
}
extern "C" __global__ void __launch_bounds__(256) wgmma_ref(float* c, u64 c_len, const chunk* a,
    u64 a_len, const chunk* b, u64 b_len, u32 n, u32 k) {
  extern __shared__ __align__(1024) chunk smem[];
  chunk* as = smem;
  chunk* bs = smem + 4 * 1024;
  int t = threadIdx.x + 32 * threadIdx.y + 128 * threadIdx.z, wg = threadIdx.z;
  int w = threadIdx.y, l = threadIdx.x;
  u64 row0 = (u64)blockIdx.y * 128, col0 = (u64)blockIdx.x * 256;
  int kc = k / 8, steps = k / 64;
  float d[ACC];
  #pragma unroll
  for (int i = 0; i < ACC; i++) d[i] = 0.f;
  #pragma unroll
  for (int p = 0; p < 2; p++) {
    if (p < steps) {
      #pragma unroll
      for (int i = 0; i < 4; i++) { int x = t + 256 * i; cp16(&as[p * 1024 + swz(x)], &a[(row0 + x / 8) * kc + p * 8 + x % 8]); }
      #pragma unroll
      for (int i = 0; i < 8; i++) { int x = t + 256 * i; cp16(&bs[p * 2048 + swz(x)], &b[(col0 + x / 8) * kc + p * 8 + x % 8]); }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  for (int kt = 0; kt < steps; kt++) {
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (kt + 2 < steps) {
      int s = (kt + 2) % 4, p = kt + 2;
      #pragma unroll
      for (int i = 0; i < 4; i++) { int x = t + 256 * i; cp16(&as[s * 1024 + swz(x)], &a[(row0 + x / 8) * kc + p * 8 + x % 8]); }
      #pragma unroll
      for (int i = 0; i < 8; i++) { int x = t + 256 * i; cp16(&bs[s * 2048 + swz(x)], &b[(col0 + x / 8) * kc + p * 8 + x % 8]); }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    int s = kt % 4;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < 4; kk++)
      mma(d, desc(&as[s * 1024 + wg * 512 + kk * 2]), desc(&bs[s * 2048 + kk * 2]));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  #pragma unroll
  for (int i = 0; i < ACC; i += 2) {
    int j = i / 4, q = i % 4;
    u64 row = row0 + wg * 64 + 16 * w + l / 4 + 8 * (q / 2);
    u64 col = col0 + 8 * j + 2 * (l % 4);
    *reinterpret_cast<float2*>(&c[row * n + col]) = make_float2(d[i], d[i + 1]);
  }
}
""".replace("REGS", regs).replace("OUTS", outs).replace("%P", f"%{acc + 2}") \
        .replace("%A", f"%{acc}").replace("%B", f"%{acc + 1}").replace("ACC", str(acc))


# The cuphase kernels timed, with their block tile's columns and their shared memory (the
# reference has `gemm_bf16_wgmma`'s).
KERNELS = {NAME: (256, SHARED)}


def reference_1d_source():
    """`wgmma_ref_1d`: the reference as first written (blocks of 256 threads in x, `int`
    indices), with the common parameter list."""
    acc = 128
    regs = ", ".join(f"%{i}" for i in range(acc))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(acc))
    return r"""
typedef unsigned int u32;
typedef unsigned long long u64;
__device__ __forceinline__ u32 swz(u32 c) { return c ^ ((c >> 3) & 7u); }
__device__ __forceinline__ u64 desc(const void* p) {
  u32 a = (u32)__cvta_generic_to_shared(p);
  return (u64)((a & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void mma(float* d, u64 da, u64 db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %P, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {REGS}, %A, %B, p, 1, 1, 0, 0;\n}\n"
    : OUTS : "l"(da), "l"(db), "r"(1));
}
extern "C" __global__ void __launch_bounds__(256) wgmma_ref_1d(float* c, u64 c_len, const uint4* a,
    u64 a_len, const uint4* b, u64 b_len, u32 n_, u32 k_) {
  extern __shared__ __align__(1024) uint4 smem[];
  uint4* as = smem;
  uint4* bs = smem + 4 * 1024;
  int n = n_, k = k_;
  int t = threadIdx.x, wg = t / 128, w = (t % 128) / 32, l = t % 32;
  size_t row0 = (size_t)blockIdx.y * 128, col0 = (size_t)blockIdx.x * 256;
  int kc = k / 8, steps = k / 64;
  float d[ACC];
  #pragma unroll
  for (int i = 0; i < ACC; i++) d[i] = 0.f;
  auto load = [&](int tile, int s) {
    #pragma unroll
    for (int i = 0; i < 4; i++) { int idx = t + 256 * i; int r = idx / 8, ch = idx % 8;
      u32 dst = (u32)__cvta_generic_to_shared(&as[s * 1024 + swz(idx)]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(&a[(row0 + r) * kc + tile * 8 + ch]) : "memory"); }
    #pragma unroll
    for (int i = 0; i < 8; i++) { int idx = t + 256 * i; int r = idx / 8, ch = idx % 8;
      u32 dst = (u32)__cvta_generic_to_shared(&bs[s * 2048 + swz(idx)]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(&b[(col0 + r) * kc + tile * 8 + ch]) : "memory"); }
  };
  #pragma unroll
  for (int p = 0; p < 2; p++) { if (p < steps) load(p, p); asm volatile("cp.async.commit_group;" ::: "memory"); }
  for (int kt = 0; kt < steps; kt++) {
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (kt + 2 < steps) load(kt + 2, (kt + 2) % 4);
    asm volatile("cp.async.commit_group;" ::: "memory");
    int s = kt % 4;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < 4; kk++)
      mma(d, desc(&as[s * 1024 + wg * 512 + kk * 2]), desc(&bs[s * 2048 + kk * 2]));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  #pragma unroll
  for (int i = 0; i < ACC; i += 2) {
    int j = i / 4, q = i % 4;
    size_t row = row0 + wg * 64 + 16 * w + l / 4 + 8 * (q / 2);
    size_t col = col0 + 8 * j + 2 * (l % 4);
    *reinterpret_cast<float2*>(&c[row * n + col]) = make_float2(d[i], d[i + 1]);
  }
}
""".replace("REGS", regs).replace("OUTS", outs).replace("%P", f"%{acc + 2}") \
        .replace("%A", f"%{acc}").replace("%B", f"%{acc + 1}").replace("ACC", str(acc))


def generated_source(name):
    text = open(os.path.join(HERE, "..", "tests", "out", "cuda", "wgmma.cu")).read()
    marker = "// CUDA C generated by cuphase from the Rust kernel "
    for chunk in re.split(f"(?={re.escape(marker)})", text):
        if chunk.startswith(f"{marker}`{name}`"):
            return chunk
    return None


def variants():
    """The kernels timed: cuphase's and the reference (their copies through L2 only,
    `cp.async.cg`, as cuphase writes copies into a warpgroup multiply's tiles), each also with
    `cp.async.ca` (through L1 too), named `_ca`; and the reference as first written, with
    one-dimensional blocks and `int` indices (`wgmma_ref_1d`)."""
    out = []
    sources = [(name, generated_source(name)) for name in KERNELS]
    sources = [(name, src) for name, src in sources if src is not None]
    for name, source in sources + [("wgmma_ref", reference_source())]:
        out.append((name, source))
        ca = source.replace("cp.async.cg.shared.global", "cp.async.ca.shared.global")
        out.append((name + "_ca", ca.replace(f" {name}(", f" {name}_ca(")))
    out.append(("wgmma_ref_1d", reference_1d_source()))
    return out


# Other kernels of tests/in/wgmma.rs that `build` compiles for the other benchmarks, with
# their NVRTC options beyond the target (`fast_math` ones get cuphase's `--use_fast_math`).
OTHERS = {"attention_wgmma": ["--use_fast_math"], "gemm_tf32_wgmma": []}


def cubin(name):
    return os.path.join(HERE, "ab", f"{name}.cubin")


def build(files=()):
    """Compiles each kernel of `variants()` into benches/ab/`name`.cubin, and each CUDA C file
    of `files` (hand-written A/B variants, `fast_math`) into the `.cubin` beside it."""
    others = [(name, generated_source(name), opts) for name, opts in OTHERS.items()]
    todo = [(n, s, []) for n, s in variants()] + others
    if files:
        todo = [(os.path.splitext(os.path.basename(f))[0], open(f).read(), ["--use_fast_math"])
                for f in files]
    for name, source, extra in todo:
        compile_cubin(name, source, extra)


def compile_cubin(name, source, extra=()):
    """NVRTC (here, `libnvrtc.so.13` on the library path) compiles `source` for `sm_90a` with
    the options `extra` into benches/ab/`name`.cubin; its log is printed when not empty."""
    lib = ctypes.CDLL("libnvrtc.so.13")
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"k.cu", 0, None,
                                  None) == 0
    opts = [b"--gpu-architecture=sm_90a", b"--std=c++17", b"-lineinfo"]
    opts += [o.encode() for o in extra]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        sys.exit(f"NVRTC failed on {name}:\n{log.value.decode()}")
    if log.value.strip():
        print(f"{name}:\n{log.value.decode()}")
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    image = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetCUBIN(prog, image)
    with open(cubin(name), "wb") as f:
        f.write(image.raw)
    print(f"wrote {cubin(name)}")


def time_ms(torch, f, warmup=3, reps=20):
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


CUBINS = []


def main(sizes):
    import cupy as cp
    import torch
    sys.path.insert(0, HERE)
    from mma_gemm import triton_gemm, TRITON_CONFIGS

    kernels = []
    for name, source in variants():
        f = cp.RawModule(path=cubin(name)).get_function(name)
        tile_n, shared = KERNELS.get(name.removesuffix("_ca"), (256, SHARED))
        f.max_dynamic_shared_size_bytes = shared
        # A kernel whose code checks something at run time (a division by a value not known
        # to be nonzero) takes cuphase's fault record and its id after its parameters.
        head = re.search(r"\b" + name + r"\((.*?)\) \{", source, re.S)
        record = cp.zeros(64, dtype=cp.uint32) if "cuphase_record" in head.group(1) else None
        kernels.append((name, f, record, tile_n, shared))
    # `--cubin PATH:NAME` (repeatable): hand-written A/B variants of `gemm_bf16_wgmma`, with
    # its parameters, block and shared memory, compiled by `build-ab PATH.cu`.
    for path, name in CUBINS:
        f = cp.RawModule(path=path).get_function(name)
        f.max_dynamic_shared_size_bytes = SHARED
        kernels.append((name, f, None, 256, SHARED))
    tri = triton_gemm()
    print(f"# {torch.cuda.get_device_name()}")
    print("| bf16 GEMM c = a btᵀ, f32 accumulate | kernel | time | cuBLAS (torch a @ bt.T, bf16 out) | ratio |")
    print("|---|---|---|---|---|")
    for n in sizes:
        m = k = n
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
        bt = torch.randn(n, k, device="cuda", generator=g).to(torch.bfloat16)
        ref = a.float() @ bt.float().T
        ms_ref = time_ms(torch, lambda: a @ bt.T)
        tf_ref = 2 * m * n * k / ms_ref / 1e9
        row = lambda what, ms: print(
            f"| {n}^3 | {what} | {ms:.3f} ms, {2 * m * n * k / ms / 1e9:.1f} TFLOP/s | "
            f"{ms_ref:.3f} ms, {tf_ref:.1f} TFLOP/s | {ms_ref / ms:.2f} |", flush=True)
        for name, f, record, tile_n, shared in kernels:
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
            ca, cb, cc = (cp.from_dlpack(t) for t in (a.view(torch.int16), bt.view(torch.int16), c))
            # `c` is `[[f32; 2]]` to cuphase's kernels (pairs, 8-byte stores); the references
            # take the same pointer and ignore the length.
            args = (cc, cp.uint64(m * n // 2), ca, cp.uint64(m * k // 8), cb, cp.uint64(n * k // 8),
                    cp.uint32(n), cp.uint32(k))
            if record is not None:
                args += (record, cp.uint32(0))
            grid = (n // tile_n, m // 128)
            block = (256,) if name == "wgmma_ref_1d" else (32, 4, 2)
            run = lambda: f(grid, block, args, shared_mem=shared)
            run()
            torch.cuda.synchronize()
            assert record is None or not record.any(), f"{name} n={n}: a fault was recorded"
            err = ((c - ref).abs().max() / ref.abs().max()).item()
            assert err < 4e-7 * (k // 16), f"{name} n={n}: max relative error {err}"
            row(name, time_ms(torch, run))
        if tri is not None:
            b_kn = bt.T.contiguous()
            best = None
            for cfg in TRITON_CONFIGS:
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
                try:
                    tri(a, b_kn, c, cfg)
                    torch.cuda.synchronize()
                except Exception as e:  # a configuration this GPU cannot run
                    print(f"triton {cfg}: {e}", file=sys.stderr)
                    continue
                err = ((c - ref).abs().max() / ref.abs().max()).item()
                assert err < 4e-7 * (k // 16), f"triton {cfg} n={n}: max relative error {err}"
                ms = time_ms(torch, lambda: tri(a, b_kn, c, cfg))
                if best is None or ms < best[0]:
                    best = (ms, cfg)
            if best is not None:
                row(f"Triton tl.dot {best[1]} (b = btᵀ copied)", best[0])


def main_tf32(sizes):
    """`gemm_tf32_wgmma` (`c = a btᵀ`, f32 in, TF32 multiplies) against cuBLAS TF32 on the same
    layout (`a @ bt.T` with TF32 allowed) and Triton's `tl.dot` (TF32 by default) on `b = btᵀ`
    copied."""
    import cupy as cp
    import torch
    sys.path.insert(0, HERE)
    from mma_gemm import triton_gemm

    torch.backends.cuda.matmul.allow_tf32 = True
    f = cp.RawModule(path=cubin("gemm_tf32_wgmma")).get_function("gemm_tf32_wgmma")
    f.max_dynamic_shared_size_bytes = SHARED
    tri = triton_gemm()
    print("| TF32 GEMM c = a btᵀ, f32 accumulate | kernel | time | cuBLAS TF32 (torch a @ bt.T) | ratio |")
    print("|---|---|---|---|---|")
    for n in sizes:
        m = k = n
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(m, k, device="cuda", generator=g)
        bt = torch.randn(n, k, device="cuda", generator=g)
        ref = (a.double() @ bt.double().T).float()
        ms_ref = time_ms(torch, lambda: a @ bt.T)
        tf_ref = 2 * m * n * k / ms_ref / 1e9
        row = lambda what, ms: print(
            f"| {n}^3 | {what} | {ms:.3f} ms, {2 * m * n * k / ms / 1e9:.1f} TFLOP/s | "
            f"{ms_ref:.3f} ms, {tf_ref:.1f} TFLOP/s | {ms_ref / ms:.2f} |", flush=True)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        ca, cb, cc = (cp.from_dlpack(t) for t in (a, bt, c))
        args = (cc, cp.uint64(m * n // 2), ca, cp.uint64(m * k // 4), cb, cp.uint64(n * k // 4),
                cp.uint32(n), cp.uint32(k))
        run = lambda: f((n // 256, m // 128), (32, 4, 2), args, shared_mem=SHARED)
        run()
        torch.cuda.synchronize()
        err = ((c - ref).abs().max() / ref.abs().max()).item()
        # TF32 keeps 10 mantissa bits: the inputs' truncation dominates.
        assert err < 4e-3, f"gemm_tf32_wgmma n={n}: max relative error {err}"
        row("gemm_tf32_wgmma", time_ms(torch, run))
        if tri is not None:
            b_kn = bt.T.contiguous()
            best = None
            for cfg in ((128, 128, 32, 4, 3), (128, 128, 32, 8, 3), (128, 256, 32, 8, 3)):
                c2 = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
                try:
                    tri(a, b_kn, c2, cfg)
                    torch.cuda.synchronize()
                except Exception as e:  # a configuration this GPU cannot run
                    print(f"triton tf32 {cfg}: {e}", file=sys.stderr)
                    continue
                ms = time_ms(torch, lambda: tri(a, b_kn, c2, cfg))
                if best is None or ms < best[0]:
                    best = (ms, cfg)
            if best is not None:
                row(f"Triton tl.dot {best[1]}, TF32 (b = btᵀ copied)", best[0])


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["build"]:
        build()
        sys.exit(0)
    if args[:1] == ["build-ab"]:
        build(args[1:])
        sys.exit(0)
    CUBINS = [tuple(args[i + 1].split(":")) for i, a in enumerate(args) if a == "--cubin"]
    sizes = args[args.index("--sizes") + 1] if "--sizes" in args else "2048,4096,8192"
    sizes = tuple(int(s) for s in sizes.split(","))
    if "--tf32-only" not in args:
        main(sizes)
    if "--no-tf32" not in args:
        main_tf32(sizes)
