#!/usr/bin/env bash
# rdm_device.sh: the device calls of the GPU-RDM work (issue 12), in priority
# order under one deadline (BUDGET_S after the start; device_steps.sh):
#   STAGE=1: build (library + the RDM and direct-sigma tests), test_ci_rdm_gpu,
#            test_ci_rdm, the Python FCI tests (GPU ones included), and
#            CASSCF(12,12) of C2H4/cc-pVDZ with cisparse and with PySCF's solver;
#   STAGE=2: test_ci_rdm_gpu, CASSCF(14,14) with cisparse, then PySCF's
#            per-call costs for CAS(14,14) (contract_2e, make_rdm12),
#            cisparse's (bench/fci_rdm_percall.py), and a cold PySCF FCI
#            kernel with what time is left.
# The build goes to $BUILD (default ../build-rdm: kept on a warm machine).
# Usage on the device, from the source tree: OUT=/dir STAGE=1 bash bench/rdm_device.sh
set -u
OUT=${OUT:-bench/out/rdm}
BUDGET_S=${BUDGET_S:-200}
STAGE=${STAGE:-1}
BUILD=${BUILD:-$(cd .. && pwd)/build-rdm}
SHARED=${SHARED:-$PWD/../.shared}
. "$(dirname "$0")/device_steps.sh"

say "rdm_device.sh stage $STAGE on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >>"$S" 2>&1 || say "(nvidia-smi not found)"
if [ -f ../.pyscfsite/site.tar.xz ] && [ ! -d /tmp/site/pyscf ]; then
  mkdir -p /tmp/site && tar xJf ../.pyscfsite/site.tar.xz -C /tmp/site
fi
export PYTHONPATH=$PWD/python:/tmp/site CISPARSE_LIBRARY=$BUILD/libcisparse.so.0.1 OMP_NUM_THREADS=16

step build 120 bash -c "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 \
  -DCISPARSE_SHARED_DIR=$SHARED && cmake --build $BUILD -j16 --target cisparse_shared test_ci_rdm_gpu \
  $([ "$STAGE" = 1 ] && echo test_ci_rdm)" \
  || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }

if [ "$STAGE" = 1 ]; then
  step test_ci_rdm_gpu 60 "$BUILD/tests/test_ci_rdm_gpu"
  grep -E "GPU vs CPU|checks" "$L/test_ci_rdm_gpu.log" | tail -n 45 >>"$S"
  step test_ci_rdm 30 "$BUILD/tests/test_ci_rdm"
  tail -n 1 "$L/test_ci_rdm.log" >>"$S"
  step pytest_fci 100 python3 -m pytest -p no:cacheprovider -q -rs python/tests/test_fci.py \
    -k "gpu or rdm or contract"
  tail -n 6 "$L/pytest_fci.log" >>"$S"
  step casscf12 150 python3 -u bench/casscf_vs_pyscf.py 12 --max-cycle 30 --json "$OUT/casscf12.json"
  tail -n 4 "$L/casscf12.log" >>"$S"
else
  step test_ci_rdm_gpu 40 "$BUILD/tests/test_ci_rdm_gpu"
  grep -E "GPU vs CPU|checks" "$L/test_ci_rdm_gpu.log" | tail -n 45 >>"$S"
  step casscf14 110 python3 -u bench/casscf_vs_pyscf.py 14 --max-cycle 30 --solvers cisparse \
    --json "$OUT/casscf14_cisparse.json"
  tail -n 3 "$L/casscf14.log" >>"$S"
  step percall14_pyscf 45 python3 -u bench/fci_rdm_percall.py 14 --solvers pyscf --steps sigma,rdm \
    --json "$OUT/percall14_pyscf.json"
  tail -n 4 "$L/percall14_pyscf.log" >>"$S"
  step percall14_cisparse 30 python3 -u bench/fci_rdm_percall.py 14 --solvers cisparse \
    --json "$OUT/percall14_cisparse.json"
  tail -n 6 "$L/percall14_cisparse.log" >>"$S"
  step percall14_pyscf_kernel 200 python3 -u bench/fci_rdm_percall.py 14 --solvers pyscf --steps cold \
    --json "$OUT/percall14_pyscf_kernel.json"
  tail -n 3 "$L/percall14_pyscf_kernel.log" >>"$S"
fi
say "total $(elapsed) s"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
