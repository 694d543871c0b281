#!/usr/bin/env bash
# ci_device_run.sh OUTDIR: the CI part of a device call: build (unless a
# working build-dev/cisparse is there), the CI GPU test, then H2O 6-31G full
# CI (1,656,369 determinants) with the SpMV on the GPU in the hybrid format,
# under /usr/bin/time -v (peak host memory). Logs go to OUTDIR.
set -u
OUT=${1:?usage: ci_device_run.sh OUTDIR}
B=build-dev
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; free -g | head -2; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if ! "$B/cisparse" --help > /dev/null 2>&1; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCISPARSE_SHARED_DIR="$PWD/shared" > "$OUT/build.log" 2>&1 &&
    cmake --build $B -j16 >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
(cd $B && ctest -R ci_gpu -V --timeout 120) > "$OUT/ci_gpu_test.log" 2>&1
grep -E "FAIL|GPU -|checks,|SKIPPED|tests passed" "$OUT/ci_gpu_test.log" | head -20
/usr/bin/time -v "$B/cisparse" ci shared/ci/h2o_631g.FCIDUMP --device gpu --format hyb --verbose \
  > "$OUT/h2o_631g_fci.txt" 2> "$OUT/h2o_631g_fci.err"
echo "exit $?"
cat "$OUT/h2o_631g_fci.txt"
grep -E "davidson|Maximum resident|Elapsed|cisparse:" "$OUT/h2o_631g_fci.err" | tail -25
