#!/usr/bin/env bash
# On the GPU machine, after ../shared/tools/gpu-pack here: run(command="bash benches/gpu_reliability.sh", carry=[".gpu"]).
# Every test binary, first launch, launch overhead, racecheck of the whole main binary x3.
# NCCL from torch's wheel, so the multi-device tests run NCCL (one rank on one GPU).
source "$(dirname "$0")/nccl_env.sh"
cd "$(dirname "$0")/../.gpu"
export CUPHASE_DEVICE=cuda
log=${OUT:-/tmp}/reliability.log
OUT=${OUT:-/tmp}
exec > >(tee -a "$log") 2>&1
main=$(ls bin/main-* | head -1)
echo "== main binary, no sanitizer"; timeout 200 "$main" 2>&1 | grep -E "^test result|FAILED|panicked|16 threads|out of memory|waited" | head -30
echo "== multi-device (NCCL from ${nccl_lib:-nowhere})"; timeout 100 "$main" multi --nocapture 2>&1 | grep -E "^test |result|GPU|NCCL|skipped|panicked" | head -20
echo "== exhaustion, concurrency alone"; timeout 100 "$main" exhaustion concurrency --nocapture 2>&1 | grep -E "^test |result|Timeout|waited|out of memory|16 threads" | head -30
export CUPHASE_CACHE_DIR=/tmp/cache2
./bin/example-first_launch
for i in 1 2 3 4 5; do ./bin/example-first_launch; done
./bin/example-first_launch --stages
timeout 120 ./bin/example-bench_gpu --overhead | grep ratio
for r in 1 2 3; do
  echo "== racecheck full binary run $r"
  ( timeout 170 compute-sanitizer --tool racecheck "$main" > $OUT/race-$r.log 2>&1; echo "exit $?" >> $OUT/race-$r.log ) &
  sp=$!
  for s in $(seq 1 30); do sleep 5; kill -0 $sp 2>/dev/null || break; done
  if kill -0 $sp 2>/dev/null; then
    echo "STALLED after 150 s"; grep -E "^test " $OUT/race-$r.log | tail -3
    for pid in $(pgrep -f "bin/main-"); do
      comm=$(cat /proc/$pid/comm); echo "--- pid $pid $comm"
      if [ "$comm" != "compute-sanitiz" ]; then
        timeout 60 cuda-gdb -p $pid -batch -ex "info threads" -ex "thread apply all bt 25" > $OUT/stacks-$r.txt 2>&1; echo "cuda-gdb rc $?"
      fi
    done
    pkill -9 -f compute-sanitizer; pkill -9 -f "bin/main-"; sleep 2
  else
    grep -E "test result|SUMMARY|exit" $OUT/race-$r.log
  fi
done
