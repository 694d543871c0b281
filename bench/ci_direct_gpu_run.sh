#!/usr/bin/env bash
# ci_direct_gpu_run.sh: one device round for the GPU direct CI sigma (issue 9):
# build, the CI GPU tests, compute-sanitizer (memcheck + racecheck) on a small
# case, bench/ci_vs_gpu4pyscf.py (H2O 6-31G, C2H4 CAS(12..16)), the CLI text on H2O and
# CAS(14,14) with and without the half sigma,
# an nsys kernel and API summary of a CAS(14,14) run. Logs into $OUT (8 files at most).
# usage (device machine, repository root = the .dev copy, FCIDUMPs in .data/):
#   bash bench/ci_direct_gpu_run.sh [SOLVES] [TOTAL_SECONDS]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
cd "$(dirname "$0")/.."
S=$(realpath ../.shared); D=$PWD/.data
SOLVES=${1:-1}; TOTAL=${2:-200}
t0=$(date +%s); left() { echo $(( TOTAL - ($(date +%s) - t0) )); }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u; nproc; } > "$OUT/env.txt" 2>&1
{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 -DCISPARSE_SHARED_DIR="$S" &&
  cmake --build build -j16; } > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build done at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"
(cd build && timeout 90 ctest -R "test_ci_direct_gpu|test_ci_gpu|test_ci_direct$" --output-on-failure -V) > "$OUT/ctest.log" 2>&1
echo "ctest done at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"
{ timeout 30 compute-sanitizer --tool memcheck ./build/cisparse ci "$S/ci/h2o_sto3g.FCIDUMP" --method direct --device gpu
  timeout 30 compute-sanitizer --tool racecheck ./build/cisparse ci "$S/ci/h2o_sto3g.FCIDUMP" --method direct --device gpu
  timeout 30 compute-sanitizer --tool memcheck ./build/tests/test_ci_direct_gpu 2>&1 | tail -5; } > "$OUT/sanit.txt" 2>&1
echo "sanitizer done at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"
export PYTHONPATH=/tmp/site
mkdir -p /tmp/site && tar xJf ../.pyscfsite/site.tar.xz -C /tmp/site
[ "$(left)" -gt 40 ] && timeout $(( $(left) - 45 )) python3 -u bench/ci_vs_gpu4pyscf.py --cisparse build/cisparse \
  --solves "$SOLVES" --repeats 7 --json "$OUT/bench.json" "$S/ci/h2o_631g.FCIDUMP" "$D/c2h4_cas12.FCIDUMP" \
  "$D/c2h4_cas14.FCIDUMP" "$D/c2h4_cas16.FCIDUMP" > "$OUT/bench.txt" 2>&1
echo "bench done at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"
{ timeout 20 ./build/cisparse ci "$S/ci/h2o_631g.FCIDUMP" --method direct --device gpu
  timeout 20 ./build/cisparse ci "$D/c2h4_cas14.FCIDUMP" --method direct --device gpu
  timeout 20 ./build/cisparse ci "$D/c2h4_cas14.FCIDUMP" --method direct --device gpu --no-time-reversal; } > "$OUT/cli.txt" 2>&1
echo "cli done at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"
[ "$(left)" -gt 15 ] && timeout $(( $(left) - 3 )) nsys profile -o /tmp/cas14 --force-overwrite true \
  ./build/cisparse ci "$D/c2h4_cas14.FCIDUMP" --method direct --device gpu > /dev/null 2>&1 &&
  nsys stats --report cuda_gpu_kern_sum --report cuda_api_sum /tmp/cas14.nsys-rep > "$OUT/nsys.txt" 2>&1
echo "end at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"
tail -3 "$OUT/ctest.log"; cat "$OUT/env.txt"; grep -E "one sigma|^root 0|time  " "$OUT/cli.txt"; tail -8 "$OUT/bench.txt"
