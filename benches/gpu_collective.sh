#!/usr/bin/env bash
# On the 2-GPU machine (the device tool's nvidia-h200-x2), after ../shared/tools/gpu-pack here:
#   run(command="bash benches/gpu_collective.sh", carry=[".gpu"], kind="nvidia-h200-x2")
# The multi-device tests, cuphase's all-reduce bandwidth against torch.distributed's, and the
# data_parallel example's scaling, with NCCL from torch's wheel and NVLink multicast off.
export CUPHASE_DEVICE=cuda
source "$(dirname "$0")/nccl_env.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
log=${OUT:-/tmp}/collective.log
exec > >(tee -a "$log") 2>&1
nvidia-smi topo -m
echo "NCCL library folder: ${nccl_lib:-not found}"
main=$(ls "$root"/.gpu/bin/main-* | head -1)
echo "== multi-device tests"; timeout 200 "$main" multi --nocapture 2>&1 | grep -E "^test |result|GPU|NCCL|skipped|panicked"
echo "== cuphase"; timeout 200 "$root/.gpu/bin/example-bench_collective"
echo "== torch.distributed"; timeout 200 python3 "$root/benches/peers_nccl.py"
echo "== data_parallel"; timeout 120 "$root/.gpu/bin/example-data_parallel"
