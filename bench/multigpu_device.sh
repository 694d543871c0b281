#!/usr/bin/env bash
# multigpu_device.sh: the distributed layer's evidence (issue 13) in one
# device call on a host with 2, 4 or 8 GPUs (NCCL, one process driving every
# GPU; NCCL_NVLS_ENABLE=0 exported here and set by the library anyway).
#   1. build (CUDA, sm_90, NCCL) and `ctest -L "gpu|multigpu" -R dist`;
#   2. topology: nvidia-smi topo -m;
#   3. weak scaling of the SpMV: `cisparse bench ci:rows=R*N,seed=1 --gpus N`
#      for N = 1, 2, 4, 8 (<= GPUs), R rows per GPU (default 65536, ~62 M
#      nonzeros per GPU), median of 50; efficiency = t(1) / t(N) (the work
#      per GPU is constant); the exchange volume per product and its share of
#      the product time from the same run; both exchanges (all-gather, p2p);
#   4. strong scaling of a Krylov solve: CG + Jacobi on laplace3d:size=160
#      (4.1 M rows) with --gpus N;
#   5. strong scaling of Davidson on the H2O 6-31G Hamiltonian
#      (`cisparse ci h2o_631g.FCIDUMP --gpus N`; LEVEL=full is the FCI, 1.66 M
#      determinants; each GPU's rows are built on the host part by part, the
#      whole Hamiltonian never held, see README "Several GPUs"); default LEVEL=4 (149,661 determinants, 44.6 M
#      nonzeros) so that the step fits a short device call, LEVEL=full when
#      the call may last long enough.
# Every step has a time cap and the whole run a deadline (BUDGET_S, default
# 220 s): a step that would pass it is skipped and says so.
# Output under $OUT: summary.txt (every step's exit status, time, key lines)
# and logs.tgz (each step's full log).
# Usage on the device, from the repository root:
#   OUT=/some/dir [SHARED=path/to/shared] [ROWS=65536] [LEVEL=4|full] bash bench/multigpu_device.sh
set -u
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
OUT=${OUT:-bench/out/multigpu}
SHARED=${SHARED:-../.shared}
BUDGET_S=${BUDGET_S:-220}
JOBS=${JOBS:-16}
ROWS=${ROWS:-65536}
LEVEL=${LEVEL:-4}
. "$(dirname "$0")/device_steps.sh"

say "multigpu_device.sh on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv >>"$S" 2>&1 || say "(nvidia-smi not found)"
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "GPUs: $NGPU"
nvidia-smi topo -m >"$L/topo.log" 2>&1 && sed 's/^/   /' "$L/topo.log" | head -n 12 >>"$S"

step build 150 bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 -DCISPARSE_SHARED_DIR=$SHARED && cmake --build build -j$JOBS"
if [ $? -ne 0 ]; then
  say "build failed: last lines"
  tail -n 30 "$L/build.log" >>"$S"
  exit 1
fi
grep -E "cisparse: NCCL" "$L/build.log" | head -n 1 >>"$S"

step ctest 60 bash -c "cd build && ctest -L 'gpu|multigpu' -R dist --output-on-failure"
grep -E "tests passed|tests failed|Failed|Skipped|\*\*\*|rank" "$L/ctest.log" | tail -n 10 >>"$S"

B=build/cisparse
ns=""
for n in 1 2 4 8; do [ "$n" -le "$NGPU" ] && ns="$ns $n"; done

say "-- weak scaling of the SpMV: ci:rows=$ROWS*N, median of 50 (ms), GFLOP/s, exchange"
for x in allgather p2p; do
  t1=""
  for n in $ns; do
    step "weak_${x}_$n" 40 $B bench "ci:rows=$((ROWS * n)),seed=1" --gpus "$n" --runs 50 --exchange "$x"
    line=$(grep '^spmv:' "$L/weak_${x}_$n.log")
    ms=$(echo "$line" | awk '{print $2}')
    mb=$(sed -n 's/.*exchange \([0-9.]*\) MB per product.*/\1/p' "$L/weak_${x}_$n.log")
    [ -z "$t1" ] && t1=$ms
    eff=$(python3 -c "print('%.1f%%' % (100 * float('$t1') / float('$ms')))" 2>/dev/null || echo "?")
    say "   $x N=$n: $line | exchange $mb MB/product | weak efficiency $eff"
  done
done

say "-- strong scaling of CG + Jacobi, laplace3d:size=160 (tol 1e-8)"
for n in $ns; do
  step "cg_$n" 40 $B solve laplace3d:size=160,points=7 --gpus "$n" --method cg --precond jacobi --tol 1e-8
  grep -E "^(cg|solve|parts|setup)" "$L/cg_$n.log" | sed "s/^/   N=$n: /" >>"$S"
done

say "-- strong scaling of Davidson, H2O 6-31G level $LEVEL (stored Hamiltonian built part by part)"
for n in $ns; do
  step "dav_$n" 60 $B ci "$SHARED/ci/h2o_631g.FCIDUMP" --level "$LEVEL" --gpus "$n" --roots 1 --tol 1e-6
  grep -E "^(ci |parts|root|davidson)" "$L/dav_$n.log" | sed "s/^/   N=$n: /" >>"$S"
done
say "done in $(elapsed) s"
# few files come back from a device call: the logs as one archive
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
