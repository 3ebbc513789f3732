#!/usr/bin/env bash
# Nsight Compute's view of the warpgroup kernels (run on the GPU machine, after
# `python3 benches/wgmma_gemm.py build` here and carrying `benches/ab`): the first launch of
# `gemm_bf16_wgmma` at 4096^3 and of `attention_wgmma` at seq 4096 and 1024 (beside the Triton
# attention kernel's at 1024 in its configuration (128, 64, 8, 4), the fourth it times: 84
# launches each), with the sections that say where the
# time goes (throughput against the peaks, warp stalls, issue, occupancy, memory).
# Usage: bash benches/profile_wgmma.sh OUT_DIR
set -u
out=${1:-.}
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats
          --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis
          --section LaunchStats)
ncu --kernel-name regex:'^gemm_bf16_wgmma$' --launch-count 1 "${sections[@]}" \
    python3 benches/wgmma_gemm.py --sizes 4096 --no-tf32 > "$out/ncu-gemm_bf16_wgmma.txt" 2>&1
echo "gemm_bf16_wgmma: rc=$?"
ncu --kernel-name regex:'^attention_wgmma$' --launch-count 1 "${sections[@]}" \
    python3 benches/attention.py --seqs 4096 > "$out/ncu-attention_wgmma.txt" 2>&1
echo "attention_wgmma: rc=$?"
ncu --kernel-name regex:'^attention_wgmma$' --launch-count 1 "${sections[@]}" \
    python3 benches/attention.py --seqs 1024 > "$out/ncu-attention_wgmma-1024.txt" 2>&1
echo "attention_wgmma at 1024: rc=$?"
ncu --kernel-name regex:'^fwd$' --launch-skip 252 --launch-count 1 "${sections[@]}" \
    python3 benches/attention.py --seqs 1024 > "$out/ncu-attention_triton-1024.txt" 2>&1
echo "Triton's attention at 1024: rc=$?"
