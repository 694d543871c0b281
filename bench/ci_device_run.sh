#!/usr/bin/env bash
# ci_device_run.sh OUTDIR [STEPS]: the CI part of a device call. Uses build-dev/cisparse
# and build-dev/tests/test_ci_gpu when they run (built elsewhere for sm_90),
# else configures and builds build-dev. Then: the CI GPU test, and H2O 6-31G
# full CI (1,656,369 determinants) with Davidson on the GPU (hyb, then csr),
# under /usr/bin/time -v for the peak host memory. Logs go to OUTDIR.
# STEPS (default "test gpu"): test = CI GPU test; gpu = FCI on the GPU (hyb,
# csr); gpu3 = three roots on the GPU; cpu = FCI on the host's cores (hyb,
# and --symmetric upper-triangle CSR).
set -u
OUT=${1:?usage: ci_device_run.sh OUTDIR [STEPS]}
STEPS=${2:-"test gpu"}
has() { [[ " $STEPS " == *" $1 "* ]]; }
B=build-dev
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores $(nproc)";
  free -g | sed -n 2p; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if ! "$B/cisparse" ci shared/ci/h4_sto3g.FCIDUMP --device gpu > "$OUT/probe.txt" 2>&1; then
  cat "$OUT/probe.txt"
  echo "prebuilt binary unusable: building"
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCISPARSE_SHARED_DIR="$PWD/shared" > "$OUT/build.log" 2>&1 &&
    cmake --build $B -j16 --target cisparse_cli test_ci_gpu >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
if has test; then
  "$B/tests/test_ci_gpu" > "$OUT/ci_gpu_test.log" 2>&1
  echo "test_ci_gpu exit $?"; tail -12 "$OUT/ci_gpu_test.log"
fi
run() { # name args...
  local name=$1; shift
  /usr/bin/time -v "$B/cisparse" ci shared/ci/h2o_631g.FCIDUMP "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "== $name: cisparse ci h2o_631g $* -> exit $?"
  cat "$OUT/$name.txt"
  grep -E "^davidson  *[0-9]+ |cisparse:|Maximum resident|Elapsed \(wall" "$OUT/$name.err" | tail -6
}
if has gpu; then
  run fci_gpu_hyb --device gpu --format hyb --verbose
  run fci_gpu_csr --device gpu --format csr --json
fi
has gpu3 && run fci_gpu_hyb_3roots --device gpu --roots 3 --json
if has cpu; then
  run fci_cpu_hyb --device cpu --format hyb --json
  run fci_cpu_symmetric --symmetric --json
fi
