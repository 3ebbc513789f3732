#!/usr/bin/env bash
# On the GPU machine, after fuzz/pack.sh here: the 2,000 kernels on the GPU and the simulator,
# results compared (the summary line is the figure issue 14 asks for). Log in $OUT.
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
gunzip -c .gpu-fuzz/differential.gz > /tmp/differential && chmod +x /tmp/differential
CUPHASE_DEVICE=cuda timeout 560 /tmp/differential 2>&1 | tee "$out/differential.log" | tail -20
