# Sourced by the GPU scripts: NCCL from the Python environment's wheel (torch's
# nvidia-nccl) on the library path as $nccl_lib (empty where none is found), and NVLink
# multicast off (the device notes say why).
nccl_lib=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
if [ ! -e "$nccl_lib/libnccl.so.2" ]; then
  nccl_so=$(find $(python3 -c "import site; print(' '.join(site.getsitepackages()))" 2>/dev/null) -name 'libnccl.so.2' 2>/dev/null | head -1)
  nccl_lib=${nccl_so:+$(dirname "$nccl_so")}
fi
export LD_LIBRARY_PATH=${nccl_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0
