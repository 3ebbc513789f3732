"""A probe, not a cuphase kernel: does TMA (Hopper's tensor-memory copies, completed on
`mbarrier`s) close the gap between `gemm_bf16_wgmma` and cuBLAS? Hand-written CUDA C variants of
the reference `wgmma_ref_1d` (benches/wgmma_gemm.py: 128x256 block tiles of two warpgroups,
`wgmma_m64n256k16`, four 64-deep stages filled two ahead, one barrier a step) whose stages are
filled by TMA instead of `cp.async`:

- `tma_bar`: thread 0 issues each stage's two TMA copies (a 64x128 box of `a`, 64x256 of
  `bt`, 128-byte swizzle) on the stage's `mbarrier`; every thread waits on it; the step's
  barrier still guards the refill (the structure of cuphase's kernels);
- `persist`: `cp.async` as the reference, one block an SM walking tiles, the pipeline running
  on across them (the next tile's first stages load during this one's epilogue);
- `tma_ws`: warp-specialized, no block barrier in the loop: a third warpgroup's first thread
  produces (waits for a stage's `empty` barrier, issues its copies on its `full` one), the two
  consumer warpgroups wait on `full`, multiply, and arrive on `empty` once their multiplies of
  the stage are done (`wgmma.wait_group 1` a step later).

Timed against `wgmma_ref_1d` and cuBLAS in one process (CUDA events, warm-up, median of 20
batches, outputs poisoned, checked against the f32 product). The tensor maps are made with the
driver's `cuTensorMapEncodeTiled` (ctypes) into global memory. Here: `LD_LIBRARY_PATH=<nvrtc lib
dir> python3 benches/tma_probe.py build`; there: `python3 benches/tma_probe.py` (carry
`benches/ab`)."""

import ctypes
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import wgmma_gemm  # noqa: E402

ACC = 128
REGS = ", ".join(f"%{i}" for i in range(ACC))
OUTS = ", ".join(f'"+f"(d[{i}])' for i in range(ACC))

COMMON = r"""
typedef unsigned int u32;
typedef unsigned long long u64;
__device__ __forceinline__ u64 desc(const void* p) {
  u32 a = (u32)__cvta_generic_to_shared(p);
  return (u64)((a & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void mma(float* d, u64 da, u64 db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %P, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {REGS}, %A, %B, p, 1, 1, 0, 0;\n}\n"
    : OUTS : "l"(da), "l"(db), "r"(1));
}
__device__ __forceinline__ u32 sm(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(u64* b, u32 n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sm(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_expect(u64* b, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sm(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(u64* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sm(b)) : "memory");
}
__device__ __forceinline__ void bar_wait(u64* b, u32 parity) {
  asm volatile("{\n.reg .pred done;\nwait_%=:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n@!done bra wait_%=;\n}\n"
               :: "r"(sm(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void tma2d(void* dst, const void* map, int x, int y, u64* b) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(sm(dst)), "l"(map), "r"(x), "r"(y), "r"(sm(b)) : "memory");
}
""".replace("REGS", REGS).replace("OUTS", OUTS).replace("%P", f"%{ACC + 2}") \
    .replace("%A", f"%{ACC}").replace("%B", f"%{ACC + 1}")

# The accumulators stored in 8-byte pairs, as cuphase's kernel and the reference do.
STORE = r"""
  #pragma unroll
  for (int i = 0; i < ACC; i += 2) {
    int j = i / 4, q = i % 4;
    size_t row = row0 + wg * 64 + 16 * w + l / 4 + 8 * (q / 2);
    size_t col = col0 + 8 * j + 2 * (l % 4);
    *reinterpret_cast<float2*>(&c[row * n + col]) = make_float2(d[i], d[i + 1]);
  }
""".replace("ACC", str(ACC))

# Stage `s`: `a` at 16 KiB s, `bt` at 64 KiB + 32 KiB s; the barriers after 192 KiB.
TMA_BAR = COMMON + r"""
extern "C" __global__ void __launch_bounds__(256) tma_bar(float* c, const void* amap,
    const void* bmap, u32 n_, u32 k_) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* as = smem;
  unsigned char* bs = smem + 4 * 16384;
  u64* full = (u64*)(smem + 4 * 49152);
  int n = n_, k = k_;
  int t = threadIdx.x, wg = t / 128, w = (t % 128) / 32, l = t % 32;
  size_t row0 = (size_t)blockIdx.y * 128, col0 = (size_t)blockIdx.x * 256;
  int steps = k / 64;
  if (t == 0) {
    for (int s = 0; s < 4; s++) bar_init(&full[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  float d[ACC];
  #pragma unroll
  for (int i = 0; i < ACC; i++) d[i] = 0.f;
  auto load = [&](int tile, int s) {
    bar_expect(&full[s], 49152);
    tma2d(as + s * 16384, amap, tile * 64, (int)row0, &full[s]);
    tma2d(bs + s * 32768, bmap, tile * 64, (int)col0, &full[s]);
  };
  if (t == 0) for (int p = 0; p < 2 && p < steps; p++) load(p, p);
  for (int kt = 0; kt < steps; kt++) {
    int s = kt % 4;
    bar_wait(&full[s], (kt / 4) & 1);
    __syncthreads();
    if (t == 0 && kt + 2 < steps) load(kt + 2, (kt + 2) % 4);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < 4; kk++)
      mma(d, desc(as + s * 16384 + wg * 8192 + kk * 32), desc(bs + s * 32768 + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
""".replace("ACC", str(ACC)) + STORE + "}\n"

# Warp-specialized: warpgroups 0 and 1 consume, warpgroup 2's thread 256 produces.
TMA_WS = COMMON + r"""
extern "C" __global__ void __launch_bounds__(384) tma_ws(float* c, const void* amap,
    const void* bmap, u32 n_, u32 k_) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* as = smem;
  unsigned char* bs = smem + 4 * 16384;
  u64* full = (u64*)(smem + 4 * 49152);
  u64* empty = full + 4;
  int n = n_, k = k_;
  int t = threadIdx.x, wg = t / 128, w = (t % 128) / 32, l = t % 32;
  size_t row0 = (size_t)blockIdx.y * 128, col0 = (size_t)blockIdx.x * 256;
  int steps = k / 64;
  if (t == 0) {
    for (int s = 0; s < 4; s++) { bar_init(&full[s], 1); bar_init(&empty[s], 2); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg == 2) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (t == 256) {
      for (int kt = 0; kt < steps; kt++) {
        int s = kt % 4;
        if (kt >= 4) bar_wait(&empty[s], ((kt / 4) - 1) & 1);
        bar_expect(&full[s], 49152);
        tma2d(as + s * 16384, amap, kt * 64, (int)row0, &full[s]);
        tma2d(bs + s * 32768, bmap, kt * 64, (int)col0, &full[s]);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  float d[ACC];
  #pragma unroll
  for (int i = 0; i < ACC; i++) d[i] = 0.f;
  for (int kt = 0; kt < steps; kt++) {
    int s = kt % 4;
    bar_wait(&full[s], (kt / 4) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < 4; kk++)
      mma(d, desc(as + s * 16384 + wg * 8192 + kk * 32), desc(bs + s * 32768 + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    // The multiplies of the step before are done: its stage is free (one arrival a warpgroup).
    if (kt > 0 && (t % 128) == 0) bar_arrive(&empty[(kt - 1) % 4]);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
""".replace("ACC", str(ACC)) + STORE + "}\n"


# Persistent: one block an SM walks tiles `blockIdx.x + i gridDim.x`; the four-stage pipeline runs
# on across tiles, so the next tile's first stages load while this one's epilogue stores.
PERSIST = r"""
typedef unsigned int u32;
typedef unsigned long long u64;
__device__ __forceinline__ u32 swz(u32 c) { return c ^ ((c >> 3) & 7u); }
""" + COMMON.split("__device__ __forceinline__ u32 sm(")[0].replace("typedef unsigned int u32;\ntypedef unsigned long long u64;\n", "") + r"""
extern "C" __global__ void __launch_bounds__(256) persist(float* c, const uint4* a, const uint4* b,
    u32 m_, u32 n_, u32 k_) {
  extern __shared__ __align__(1024) uint4 smem[];
  uint4* as = smem;
  uint4* bs = smem + 4 * 1024;
  int m = m_, n = n_, k = k_;
  int t = threadIdx.x, wg = t / 128, w = (t % 128) / 32, l = t % 32;
  int kc = k / 8, steps = k / 64, tiles_n = n / 256, ntiles = (m / 128) * tiles_n;
  int mine = (ntiles - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;
  int total = mine * steps;
  float d[ACC];
  #pragma unroll
  for (int i = 0; i < ACC; i++) d[i] = 0.f;
  auto load = [&](int g, int s) {
    int tile = blockIdx.x + (g / steps) * gridDim.x, ks = g % steps;
    size_t r0 = (size_t)(tile / tiles_n) * 128, c0 = (size_t)(tile % tiles_n) * 256;
    #pragma unroll
    for (int i = 0; i < 4; i++) { int idx = t + 256 * i; int r = idx / 8, ch = idx % 8;
      u32 dst = (u32)__cvta_generic_to_shared(&as[s * 1024 + swz(idx)]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(&a[(r0 + r) * kc + ks * 8 + ch]) : "memory"); }
    #pragma unroll
    for (int i = 0; i < 8; i++) { int idx = t + 256 * i; int r = idx / 8, ch = idx % 8;
      u32 dst = (u32)__cvta_generic_to_shared(&bs[s * 2048 + swz(idx)]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(&b[(c0 + r) * kc + ks * 8 + ch]) : "memory"); }
  };
  #pragma unroll
  for (int p = 0; p < 2; p++) { if (p < total) load(p, p); asm volatile("cp.async.commit_group;" ::: "memory"); }
  for (int g = 0; g < total; g++) {
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (g + 2 < total) load(g + 2, (g + 2) % 4);
    asm volatile("cp.async.commit_group;" ::: "memory");
    int s = g % 4;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < 4; kk++)
      mma(d, desc(&as[s * 1024 + wg * 512 + kk * 2]), desc(&bs[s * 2048 + kk * 2]));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (g % steps == steps - 1) {
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      int tile = blockIdx.x + (g / steps) * gridDim.x;
      size_t row0 = (size_t)(tile / tiles_n) * 128, col0 = (size_t)(tile % tiles_n) * 256;
      #pragma unroll
      for (int i = 0; i < ACC; i += 2) {
        int j = i / 4, q = i % 4;
        size_t row = row0 + wg * 64 + 16 * w + l / 4 + 8 * (q / 2);
        size_t col = col0 + 8 * j + 2 * (l % 4);
        *reinterpret_cast<float2*>(&c[row * n + col]) = make_float2(d[i], d[i + 1]);
        d[i] = 0.f;
        d[i + 1] = 0.f;
      }
    } else {
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
  }
}
""".replace("ACC", str(ACC))

MMA_Z = r"""
__device__ __forceinline__ void mma_z(float* d, u64 da, u64 db, int acc) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %P, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {REGS}, %A, %B, p, 1, 1, 0, 0;\n}\n"
    : OUTS : "l"(da), "l"(db), "r"(acc));
}
""".replace("REGS", REGS).replace("OUTS", OUTS).replace("%P", f"%{ACC + 2}") \
    .replace("%A", f"%{ACC}").replace("%B", f"%{ACC + 1}")

PERSIST2 = PERSIST.replace("persist(", "persist2(").replace(
    "        d[i] = 0.f;\n        d[i + 1] = 0.f;\n", "").replace(
    "      mma(d, desc(&as[s * 1024 + wg * 512 + kk * 2]), desc(&bs[s * 2048 + kk * 2]));",
    "      mma_z(d, desc(&as[s * 1024 + wg * 512 + kk * 2]), desc(&bs[s * 2048 + kk * 2]), kk > 0 || g % steps != 0);"
).replace('extern "C"', MMA_Z + 'extern "C"', 1)

SHARED = 4 * 49152 + 64
VARIANTS = {"tma_bar": (TMA_BAR, 256), "tma_ws": (TMA_WS, 384), "persist": (PERSIST, 256), "persist2": (PERSIST2, 256)}


def build():
    for name, (source, _) in VARIANTS.items():
        wgmma_gemm.compile_cubin(name, source)


def tensor_map(cuda, ptr, rows, cols, box_rows):
    """A 2-D bf16 tensor map of a row-major `rows x cols` matrix: boxes of 64 columns (128
    bytes, the 128-byte swizzle) by `box_rows` rows."""
    tmap = (ctypes.c_uint64 * 16)()
    dims = (ctypes.c_uint64 * 2)(cols, rows)
    strides = (ctypes.c_uint64 * 1)(cols * 2)
    box = (ctypes.c_uint32 * 2)(64, box_rows)
    elem = (ctypes.c_uint32 * 2)(1, 1)
    # bf16 = 9; interleave none; swizzle 128B = 3; L2 promotion 256B = 3; no OOB fill.
    rc = cuda.cuTensorMapEncodeTiled(tmap, 9, 2, ctypes.c_void_p(ptr), dims, strides, box, elem,
                                     0, 3, 3, 0)
    assert rc == 0, f"cuTensorMapEncodeTiled: {rc}"
    return bytes(tmap)


def main(sizes):
    import cupy as cp
    import torch
    cuda = ctypes.CDLL("libcuda.so.1")
    ref = cp.RawModule(path=wgmma_gemm.cubin("wgmma_ref_1d")).get_function("wgmma_ref_1d")
    ref.max_dynamic_shared_size_bytes = wgmma_gemm.SHARED
    kernels = []
    for name, (_, threads) in VARIANTS.items():
        f = cp.RawModule(path=wgmma_gemm.cubin(name)).get_function(name)
        f.max_dynamic_shared_size_bytes = SHARED
        kernels.append((name, f, threads))
    print(f"# {torch.cuda.get_device_name()}")
    for n in sizes:
        m = k = n
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
        bt = torch.randn(n, k, device="cuda", generator=g).to(torch.bfloat16)
        want = a.float() @ bt.float().T
        ms_ref = wgmma_gemm.time_ms(torch, lambda: a @ bt.T)
        tf = lambda ms: 2 * m * n * k / ms / 1e9
        print(f"| {n}^3 | cuBLAS | {ms_ref:.3f} ms | {tf(ms_ref):.1f} | 1 |", flush=True)
        maps = cp.asarray(bytearray(tensor_map(cuda, a.data_ptr(), m, k, 128)
                                    + tensor_map(cuda, bt.data_ptr(), n, k, 256)),
                          dtype=cp.uint8)
        for name, f, threads in [("wgmma_ref_1d", ref, 256)] + kernels:
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
            cc = cp.from_dlpack(c)
            grid = (n // 256, m // 128)
            if name.startswith("persist"):
                ca, cb = (cp.from_dlpack(t) for t in (a.view(torch.int16), bt.view(torch.int16)))
                args = (cc, ca, cb, cp.uint32(m), cp.uint32(n), cp.uint32(k))
                shared = SHARED
                grid = (torch.cuda.get_device_properties(0).multi_processor_count,)
            elif name == "wgmma_ref_1d":
                ca, cb = (cp.from_dlpack(t) for t in (a.view(torch.int16), bt.view(torch.int16)))
                args = (cc, cp.uint64(m * n), ca, cp.uint64(m * k // 8), cb,
                        cp.uint64(n * k // 8), cp.uint32(n), cp.uint32(k))
                shared = wgmma_gemm.SHARED
            else:
                args = (cc, cp.uint64(maps.data.ptr), cp.uint64(maps.data.ptr + 128),
                        cp.uint32(n), cp.uint32(k))
                shared = SHARED
            run = lambda: f(grid, (threads,), args, shared_mem=shared)
            run()
            torch.cuda.synchronize()
            err = ((c - want).abs().max() / want.abs().max()).item()
            assert err < 4e-7 * (k // 16), f"{name} n={n}: max relative error {err}"
            ms = wgmma_gemm.time_ms(torch, run)
            print(f"| {n}^3 | {name} | {ms:.3f} ms | {tf(ms):.1f} | {ms_ref / ms:.2f} |",
                  flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["build"]:
        build()
        sys.exit(0)
    sizes = sys.argv[sys.argv.index("--sizes") + 1] if "--sizes" in sys.argv else "4096,8192"
    main(tuple(int(s) for s in sizes.split(",")))
