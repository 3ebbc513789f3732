#!/usr/bin/env bash
# On the GPU machine, after ../shared/tools/gpu-pack here (the staged binaries in .gpu/):
#   run(command="bash benches/gpu_sanitize_all.sh", carry=[".gpu"])
# The three sanitizers over the integration-test binary at once (racecheck without the 16-thread
# test, which deadlocks inside the driver under racecheck: see README "Not supported yet"),
# then all three over every example; with .gpu-fuzz/ carried too, the differential fuzzer runs
# beside them. Summaries on stdout, logs in $OUT (at most 8 files come back).
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp}
export CUPHASE_DEVICE=cuda CUPHASE_CACHE_DIR=/tmp/cache-san
fuzz=""
if [ -f .gpu-fuzz/differential.gz ]; then
  (bash fuzz/run.sh > /tmp/fuzz.out 2>&1) & fuzz=$!
fi
cd .gpu
main=bin/$(ls bin | grep '^main-' | head -1)
# The tests that fill the GPU's memory run in one of the three only.
timeout 330 compute-sanitizer --tool memcheck --error-exitcode 99 "$main" > "$OUT/memcheck-main.log" 2>&1 &
m=$!
timeout 330 compute-sanitizer --tool synccheck --error-exitcode 99 "$main" --skip exhaustion > "$OUT/synccheck-main.log" 2>&1 &
s=$!
timeout 330 compute-sanitizer --tool racecheck --error-exitcode 99 "$main" --skip exhaustion --skip concurrency::sixteen_threads_share_the_gpu > "$OUT/racecheck-main.log" 2>&1 &
r=$!
for p in $m $s $r; do wait $p; echo "exit $?"; done
for t in memcheck synccheck racecheck; do
  echo "== $t main: $(grep -E '^test result' "$OUT/$t-main.log" | tail -1) | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$t-main.log" | tail -1)"
done
: > "$OUT/examples.log"
for tool in racecheck synccheck memcheck; do
  for ex in bin/example-*; do
    name=$(basename "$ex")
    args=""
    case $name in example-bench_sim|example-bench_collective) continue ;; example-bench_gpu) args="--small" ;; esac
    res=$(timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 "$ex" $args 2>&1); rc=$?
    echo "== $tool $name rc=$rc" >> "$OUT/examples.log"; echo "$res" | tail -5 >> "$OUT/examples.log"
    echo "$tool $name rc=$rc $(echo "$res" | grep -E 'SUMMARY' | tail -1)"
  done
done
if [ -n "$fuzz" ]; then wait $fuzz; echo "== fuzzer"; tail -8 /tmp/fuzz.out; cp /tmp/fuzz.out "$OUT/fuzz.log"; fi
