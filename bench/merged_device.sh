#!/usr/bin/env bash
# merged_device.sh: one device call that checks main after a merge of several
# branches (the GPU evidence for the closing note), in priority order under
# one deadline (BUDGET_S, default 300 s after the start):
#   1. build (CUDA, sm_90) and `ctest -L gpu` (every GPU test; multigpu ones
#      skip below two GPUs);
#   2. the Python GPU tests (PySCF from .pyscfsite/site.tar.xz when carried);
#   3. `cisparse ci --method direct --device gpu` on H2O 6-31G (roots, <S^2>);
#   4. CASSCF(12,12) of C2H4 with cisparse.fci.FCISolver beside PySCF's own
#      solver (bench/casscf_vs_pyscf.py), if the deadline leaves room.
# A step that would pass the deadline is skipped and says so.
# Output under $OUT: summary.txt, logs.tgz (every step's full log).
# Usage on the device: OUT=/dir [CMAKE_FLAGS=-DCISPARSE_SHARED_DIR=...] bash bench/merged_device.sh
set -u
OUT=${OUT:-bench/out/merged}
BUDGET_S=${BUDGET_S:-300}
JOBS=${JOBS:-16}
. "$(dirname "$0")/device_steps.sh"

say "merged_device.sh on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >>"$S" 2>&1 || say "(nvidia-smi not found)"

if ! step build 120 bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 ${CMAKE_FLAGS:-} && cmake --build build -j$JOBS"; then
  tail -n 30 "$L/build.log" >>"$S"
else
  step ctest_gpu 130 bash -c "cd build && ctest -L 'gpu|multigpu' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|\*\*\*|checks, [0-9]+ failures" "$L/ctest_gpu.log" | tail -n 40 >>"$S"
  grep -E "FAIL" "$L/ctest_gpu.log" | head -n 20 >>"$S"

  if [ -f .pyscfsite/site.tar.xz ]; then
    mkdir -p /tmp/site && tar xJf .pyscfsite/site.tar.xz -C /tmp/site
    export PYTHONPATH=/tmp/site
  fi
  step pytest_gpu 80 env CISPARSE_LIBRARY=$PWD/build/libcisparse.so.0.1 CISPARSE_CLI=$PWD/build/cisparse \
    PYTHONPATH=$PWD/python:${PYTHONPATH:-} python3 -m pytest -p no:cacheprovider -q -rs python/tests
  tail -n 15 "$L/pytest_gpu.log" >>"$S"

  H2O=${CISPARSE_SHARED_DIR:-.shared}/ci/h2o_631g.FCIDUMP
  step ci_h2o_direct_gpu 40 build/cisparse ci "$H2O" --method direct --device gpu --roots 3
  grep -E "^(root|  *[0-9]|sigma|time|method|determinants|energy|E\b)" "$L/ci_h2o_direct_gpu.log" | head -n 20 >>"$S"

  step casscf12 150 env CISPARSE_LIBRARY=$PWD/build/libcisparse.so.0.1 PYTHONPATH=$PWD/python:${PYTHONPATH:-} \
    OMP_NUM_THREADS=16 python3 -u bench/casscf_vs_pyscf.py 12 --max-cycle 30 --json "$OUT/casscf12.json"
  tail -n 12 "$L/casscf12.log" >>"$S"
fi
say "total $(elapsed) s"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
