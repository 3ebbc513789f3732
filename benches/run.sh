#!/usr/bin/env bash
# The benchmark suite in one command on the GPU machine: cuphase against hand-written CUDA C
# (bench_gpu), then the peers on the same GPU (torch, Triton, cuBLAS; CuPy launching the
# hand-written CUDA C; Triton versions of the suite's kernels), then the plot when
# matplotlib is there. Built here with ../shared/tools/gpu-pack; run there as
#   bash benches/run.sh [OUT_DIR]     (default: the current directory)
set -uo pipefail
out=${1:-.}
bin=${BENCH_GPU:-.gpu/bin/example-bench_gpu}
[ -x "$bin" ] || bin=target/release/examples/bench_gpu
"$bin" | tee "$out/bench-h200.log"
rc=${PIPESTATUS[0]}
python3 "$(dirname "$0")/peers.py" | tee "$out/peers-h200.log"
rc=$(( rc | PIPESTATUS[0] ))
python3 "$(dirname "$0")/peers_cupy.py" | tee "$out/cupy-h200.log"
rc=$(( rc | PIPESTATUS[0] ))
python3 "$(dirname "$0")/peers_triton.py" | tee "$out/triton-h200.log"
rc=$(( rc | PIPESTATUS[0] ))
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 "$(dirname "$0")/plot.py" "$out/bench-h200.log" "$out/bench-h200.png" "$out/peers-h200.log" "$out/triton-h200.log"
fi
exit "$rc"
