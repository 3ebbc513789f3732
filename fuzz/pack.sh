#!/usr/bin/env bash
# Builds the differential fuzzer (2,000 generated kernels; 17 to 23 minutes on 2 cores) and
# stages it, stripped and gzipped (about 23 MB; the binary is 125 MB, over what a device call
# carries), in .gpu-fuzz/. Then, with the device tool:
#   run(command="bash fuzz/run.sh", carry=[".gpu-fuzz"])
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --manifest-path fuzz/Cargo.toml
rm -rf .gpu-fuzz && mkdir -p .gpu-fuzz
strip --strip-all -o .gpu-fuzz/differential fuzz/target/release/cuphase-differential
gzip -9 .gpu-fuzz/differential
ls -la .gpu-fuzz
