#!/usr/bin/env bash
# session3_device.sh: the last device call of the third session of
# 2026-11-23, main after merging the Davidson, GPU-irrep and GPU-RDM work,
# in priority order under one deadline (BUDGET_S, default 480 s):
#   1. full build, `ctest -L 'gpu|multigpu'`, the Python GPU tests;
#   2. H2O 6-31G, 3 roots on the GPU: half sigmas of 60 products (the device
#      corrections); H2O and CAS(12,12) warm (--repeat 3) at gpu4pyscf's
#      residual test (--tol 1e-5);
#   3. C2H4 CAS(16,16) in D2h (Ag) blocked by irreps on the GPU, twice in one
#      process, against the C1 energy; and C1 once (--no-s2) for the time;
#   4. `cisparse bench ci:rows=32768,seed=1` (sell16 and every format beside
#      cuSPARSE);
#   5. CASSCF(14,14) with cisparse.fci.FCISolver alone (warm Davidson);
#   6. all 16 electrons of C2H4 in 18 orbitals, D2h Ag (2.4e8 determinants).
# FCIDUMPs in .data (bench/make_c2h4_fcidump.py on the host). Output under
# $OUT: summary.txt, logs.tgz.
set -u
OUT=${OUT:-bench/out/session3}
BUDGET_S=${BUDGET_S:-480}
. "$(dirname "$0")/device_steps.sh"
prelude session3_device.sh
if ! step_build 120; then
  tail -n 30 "$L/build.log" >>"$S"
else
  step ctest_gpu 120 bash -c "cd build && ctest -L 'gpu|multigpu' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest_gpu.log" | tail -n 30 >>"$S"
  mkdir -p /tmp/site && tar xJf .pyscfsite/site.tar.xz -C /tmp/site
  step pytest_gpu 100 env CISPARSE_LIBRARY=$PWD/build/libcisparse.so.0.1 CISPARSE_CLI=$PWD/build/cisparse \
    PYTHONPATH=$PWD/python:/tmp/site python3 -m pytest -p no:cacheprovider -q -rs python/tests
  tail -n 8 "$L/pytest_gpu.log" >>"$S"
  step h2o_r3 30 build/cisparse ci "$H2O" --method direct --device gpu --roots 3 --json
  grep -o '"products": [0-9]*\|"half_sigmas": [0-9]*\|"energy": [-0-9.]*' "$L/h2o_r3.log" | tr '\n' ' ' >>"$S"; echo >>"$S"
  for f in "$H2O" .data/c2h4_cas12.FCIDUMP; do b=$(basename "$f" .FCIDUMP)
    step ${b}_tol5 30 build/cisparse ci "$f" --method direct --device gpu --tol 1e-5 --repeat 3 --verbose
    grep -E "^repeats|^davidson  |phases" "$L/${b}_tol5.log" | grep -v "^davidson  *[0-9]" | tail -n 3 >>"$S"
  done
  step cas16_ag 60 build/cisparse ci .data/c2h4_cas16_d2h.FCIDUMP --method direct --device gpu --no-s2 --repeat 2 --verbose
  grep -E "^space|^gpu|^setup|^guess|^time|^repeats|^root|phases" "$L/cas16_ag.log" | cut -c1-300 >>"$S"
  step cas16_c1 40 build/cisparse ci .data/c2h4_cas16.FCIDUMP --method direct --device gpu --no-s2 --verbose
  grep -E "^setup|^guess|^time|^root|phases" "$L/cas16_c1.log" | cut -c1-300 >>"$S"
  step bench32k 40 build/cisparse bench ci:rows=32768,seed=1
  grep -iE "sell16|cusparse|best|hyb " "$L/bench32k.log" | head -n 12 >>"$S"
  step casscf14 110 env CISPARSE_LIBRARY=$PWD/build/libcisparse.so.0.1 PYTHONPATH=$PWD/python:/tmp/site \
    OMP_NUM_THREADS=16 python3 -u bench/casscf_vs_pyscf.py 14 --max-cycle 30 --solvers cisparse --json "$OUT/casscf14.json"
  tail -n 12 "$L/casscf14.log" >>"$S"
  step big_ag 150 build/cisparse ci .data/c2h4_16e18o_d2h.FCIDUMP --method direct --device gpu --no-s2 --verbose
  grep -E "^space|^gpu|^setup|^guess|^time|^root|^davidson  |phases" "$L/big_ag.log" | grep -v "^davidson  *[0-9]" | cut -c1-300 >>"$S"
  tail -n 3 "$L/big_ag.log" >>"$S"
fi
say "total $(elapsed) s"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
