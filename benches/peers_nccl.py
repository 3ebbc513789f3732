"""torch.distributed's NCCL all-reduce over every GPU, the peer of benches/collective.rs, timed
the same way: the same sizes (8 MiB to 1 GiB of f32), the same check of a sum first, 5 warm-up
rounds, then the median of 5 samples of 20 back-to-back max all-reduces, each timed on rank
0's host clock from a barrier to the end of its GPU's work; prints the algorithm and bus
bandwidth (busbw = algbw * 2 (k - 1) / k). One process per GPU.

Run on the GPU machine: `NCCL_NVLS_ENABLE=0 python3 benches/peers_nccl.py [--quick]`."""

import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def sizes():
    if "--quick" in sys.argv:
        return [8 << 20, 64 << 20]
    return [8 << 20, 32 << 20, 128 << 20, 512 << 20, 1 << 30]


def worker(rank, world):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    if rank == 0:
        print(f"torch.distributed all-reduce (f32 max) over {world} GPU(s); medians of 5 x 20")
        print("| bytes | time (us) | algbw (GB/s) | busbw (GB/s) |")
        print("|---|---|---|---|")
    for nbytes in sizes():
        x = torch.full((nbytes // 4,), float(rank + 1), device="cuda")
        dist.all_reduce(x)
        want = world * (world + 1) / 2
        assert bool((x == want).all()), f"rank {rank}: wrong all-reduce of {nbytes} bytes"
        for _ in range(5):
            dist.all_reduce(x, op=dist.ReduceOp.MAX)
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(20):
                dist.all_reduce(x, op=dist.ReduceOp.MAX)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - t0) / 20)
        secs = statistics.median(samples)
        if rank == 0:
            algbw = nbytes / secs / 1e9
            busbw = algbw * 2 * (world - 1) / world
            print(f"| {nbytes} | {secs * 1e6:.1f} | {algbw:.1f} | {busbw:.1f} |")
    dist.destroy_process_group()


if __name__ == "__main__":
    world = torch.cuda.device_count()
    mp.spawn(worker, args=(world,), nprocs=world)
