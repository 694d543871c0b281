#!/usr/bin/env bash
# davidson_device.sh: the device call that measured Davidson's time to
# solution on the GPU direct sigma (issue 9; bench/results/ci_direct_gpu.md,
# third session): build the CLI and the GPU tests that run Davidson, run
# them, then `cisparse ci --method direct --device gpu --verbose --repeat 3`
# on H2O 6-31G and C2H4 CAS(12,12)/(14,14) (FCIDUMPs in .data, made by
# bench/make_c2h4_fcidump.py on the host and carried), H2O with
# CUDA_MODULE_LOADING=EAGER, three roots, and bench/ci_vs_gpu4pyscf.py beside
# gpu4pyscf in the same run (.pyscfsite carried), under one deadline.
# Output under $OUT: summary.txt, logs.tgz, bench.json.
# Usage on the device (repository root; .shared, .pyscfsite, .data carried):
#   bash bench/davidson_device.sh
set -u
export CMAKE_FLAGS=-DCISPARSE_SHARED_DIR=$PWD/.shared BUDGET_S=270
OUT0=$OUT; . bench/device_steps.sh
H2O=.shared/ci/h2o_631g.FCIDUMP
step build 100 bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 $CMAKE_FLAGS && cmake --build build -j16 --target cisparse_cli test_davidson_gpu test_ci_direct_gpu test_krylov_gpu test_dist_gpu test_ci_gpu test_krylov_kernels"
step ctest 60 bash -c "cd build && ctest -R 'davidson_gpu|ci_direct_gpu|krylov_gpu|dist_gpu|test_ci_gpu|krylov_kernels' --output-on-failure"
grep -E "tests passed|tests failed|Test +#|FAIL" $L/ctest.log | head -20 >> $S
for f in $H2O .data/c2h4_cas12.FCIDUMP .data/c2h4_cas14.FCIDUMP; do b=$(basename $f .FCIDUMP)
 step $b 40 build/cisparse ci $f --method direct --device gpu --verbose --repeat 3
 grep -E "phases|^guess|^setup|^time|^repeats|^root|^davidson  " $L/$b.log | grep -v "^davidson  *[0-9]" >> $S; done
step h2o_eager 30 env CUDA_MODULE_LOADING=EAGER build/cisparse ci $H2O --method direct --device gpu --repeat 2
grep -E "^repeats|^time" $L/h2o_eager.log >> $S
step h2o_r3 30 build/cisparse ci $H2O --method direct --device gpu --roots 3 --repeat 2 --json
grep -o '"products": [0-9]*\|"half_sigmas": [0-9]*\|"to_solution_runs": [^]]*' $L/h2o_r3.log >> $S
mkdir -p /tmp/site && tar xJf .pyscfsite/site.tar.xz -C /tmp/site
step peer 80 env PYTHONPATH=/tmp/site python3 -u bench/ci_vs_gpu4pyscf.py --cisparse build/cisparse --solves 3 --repeats 5 --json $OUT/bench.json $H2O .data/c2h4_cas12.FCIDUMP .data/c2h4_cas14.FCIDUMP
tail -n 6 $L/peer.log >> $S
tar czf $OUT/logs.tgz -C $OUT logs; cat $S
