#!/usr/bin/env bash
# On the 2-GPU machine (the device tool's nvidia-h200-x2), after ../shared/tools/gpu-pack here:
#   run(command="bash benches/gpu_collective.sh", carry=[".gpu"], kind="nvidia-h200-x2")
# The multi-device tests, cuphase's all-reduce bandwidth against torch.distributed's, and the
# data_parallel example's scaling, with NCCL from torch's wheel and NVLink multicast off.
export NCCL_NVLS_ENABLE=0
export CUPHASE_DEVICE=cuda
nccl_lib=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
if [ ! -e "$nccl_lib/libnccl.so.2" ]; then
  nccl_so=$(find $(python3 -c "import site; print(' '.join(site.getsitepackages()))" 2>/dev/null) -name 'libnccl.so.2' 2>/dev/null | head -1)
  nccl_lib=${nccl_so:+$(dirname "$nccl_so")}
fi
export LD_LIBRARY_PATH=${nccl_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
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
