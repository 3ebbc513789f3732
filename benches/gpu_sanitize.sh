#!/usr/bin/env bash
# On the GPU machine, after ../shared/tools/gpu-pack here: run(command="bash benches/gpu_sanitize.sh", carry=[".gpu"]).
# synccheck and memcheck over the main binary; all three sanitizers over every example
# and the benchmark suite at small sizes.
cd "$(dirname "$0")/../.gpu"
export CUPHASE_DEVICE=cuda CUPHASE_CACHE_DIR=/tmp/cache2
log=${OUT:-/tmp}/sanitize.log
OUT=${OUT:-/tmp}
exec > >(tee -a "$log") 2>&1
main=$(ls bin/main-* | head -1)
for tool in synccheck memcheck; do
  echo "== $tool main"; timeout 240 compute-sanitizer --tool $tool "$main" > $OUT/$tool-main.log 2>&1; echo "exit $?"
  grep -E "test result|ERROR SUMMARY|SUMMARY" $OUT/$tool-main.log | tail -2
done
for tool in racecheck synccheck memcheck; do
  for ex in bin/example-*; do
    name=$(basename $ex)
    args=""
    case $name in example-bench_sim) continue ;; example-bench_gpu) args="--small" ;; esac
    out=$(timeout 120 compute-sanitizer --tool $tool $ex $args 2>&1); rc=$?
    summ=$(echo "$out" | grep -E "SUMMARY" | tail -1)
    echo "$tool $name rc=$rc ${summ}"
    [ $rc -ne 0 ] && echo "$out" | tail -8
  done
done
