#!/usr/bin/env bash
# davidson_device.sh: one device call for Davidson's time to solution on the
# GPU direct sigma (issue 9): build the CLI and the GPU tests that run
# Davidson, run them, then `cisparse ci --method direct --device gpu
# --verbose` on H2O 6-31G and the C2H4 CAS(n,n) files of .data (made by
# bench/make_c2h4_fcidump.py on the host and carried), and
# bench/ci_vs_gpu4pyscf.py beside gpu4pyscf in the same run, under one
# deadline (BUDGET_S, default 300 s).
# Output under $OUT: summary.txt, logs.tgz, bench.json.
# Usage on the device: OUT=/dir CMAKE_FLAGS=-DCISPARSE_SHARED_DIR=$PWD/.shared bash bench/davidson_device.sh
set -u
OUT=${OUT:-bench/out/davidson}
BUDGET_S=${BUDGET_S:-300}
. "$(dirname "$0")/device_steps.sh"
say "davidson_device.sh on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >>"$S" 2>&1
H2O=${CISPARSE_SHARED_DIR:-.shared}/ci/h2o_631g.FCIDUMP
if ! step build 150 bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 ${CMAKE_FLAGS:-} && \
    cmake --build build -j16 --target cisparse_cli test_davidson_gpu test_ci_direct_gpu test_krylov_gpu test_dist_gpu test_ci_gpu test_krylov_kernels"; then
  tail -n 30 "$L/build.log" >>"$S"
else
  step ctest 90 bash -c "cd build && ctest -R 'davidson_gpu|ci_direct_gpu|krylov_gpu|dist_gpu|test_ci_gpu|krylov_kernels' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest.log" | head -n 20 >>"$S"
  for roots in 1 3; do
    step h2o_r$roots 30 build/cisparse ci "$H2O" --method direct --device gpu --verbose --roots $roots
    grep -E "^(davidson  |guess|setup|time|root|gpu)" "$L/h2o_r$roots.log" >>"$S"
  done
  for n in 12 14 16; do
    step cas$n 40 build/cisparse ci .data/c2h4_cas$n.FCIDUMP --method direct --device gpu
    grep -E "^(davidson|guess|setup|time|root|gpu)" "$L/cas$n.log" >>"$S"
  done
  if [ -f .pyscfsite/site.tar.xz ]; then
    mkdir -p /tmp/site && tar xJf .pyscfsite/site.tar.xz -C /tmp/site
    step peer 150 env PYTHONPATH=/tmp/site python3 -u bench/ci_vs_gpu4pyscf.py --cisparse build/cisparse --solves 3 \
      --repeats 5 --json "$OUT/bench.json" "$H2O" .data/c2h4_cas12.FCIDUMP .data/c2h4_cas14.FCIDUMP
    tail -n 25 "$L/peer.log" >>"$S"
  fi
fi
say "total $(elapsed) s"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
