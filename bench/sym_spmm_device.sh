#!/usr/bin/env bash
# sym_spmm_device.sh OUT PART...: the device runs of issue 10 items 1-2
# (symmetric storage, SpMM) on the GPU machine, from the source tree root,
# shared data in ../.shared. Build dir $BUILD (default /tmp/symbuild, kept
# while the machine stays warm). Parts:
#   test   ctest -L gpu, the symmetric/SpMM test under compute-sanitizer memcheck
#   lap    bench laplace3d:size=160 (symmetric vs full vs cuSPARSE, SpMM k<=16)
#   ci     bench ci:rows=524288,seed=1 (not symmetric: --symmetric is refused;
#          SpMM k<=16 on csr)
#   h2o    bench on the H2O 6-31G full-CI Hamiltonian (from the FCIDUMP),
#          then `cisparse ci --device gpu --build gpu` full and --symmetric
set -u
out=$1
shift
B=${BUILD:-/tmp/symbuild}
S=$PWD/../.shared
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } >"$out/device.txt" 2>&1
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 -DCISPARSE_SHARED_DIR="$S" >"$out/build.log" 2>&1 &&
  cmake --build "$B" -j16 >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build done $(date -u)"
cli=$B/cisparse
kern=csr-vector,hyb,cusparse-csr-alg1,cusparse-csr-alg2,cusparse-sell-alg1
for part in "$@"; do
  case $part in
  test)
    (cd "$B" && ctest -L gpu --output-on-failure) >"$out/ctest.log" 2>&1
    tail -25 "$out/ctest.log"
    timeout 90 compute-sanitizer --tool memcheck --leak-check full "$B/tests/test_gpu_sym_spmm" quick \
      >"$out/sanitizer.log" 2>&1
    echo "sanitizer rc=$?"; tail -6 "$out/sanitizer.log"
    bash tests/cli/symmetric.sh "$cli" "$S" >>"$out/ctest.log" 2>&1; echo "cli symmetric rc=$?"
    ;;
  lap)
    "$cli" bench laplace3d:size=160 --symmetric --spmm 16 --kernels $kern --runs 30 --warmup 5 \
      >"$out/bench_laplace160.txt" 2>&1
    echo "lap rc=$?"; cat "$out/bench_laplace160.txt" | grep -v "^  " | tail -60
    ;;
  ci)
    { "$cli" bench ci:rows=524288,seed=1 --symmetric --runs 2; echo "--symmetric rc=$?";
      "$cli" bench ci:rows=524288,seed=1 --spmm 16 --kernels $kern --runs 30 --warmup 5; echo "rc=$?"; } \
      >"$out/bench_ci524k.txt" 2>&1
    grep -v "^  " "$out/bench_ci524k.txt" | tail -60
    ;;
  symtest)
    "$B/tests/test_gpu_sym_spmm" >"$out/symtest.log" 2>&1; echo "test_gpu_sym_spmm rc=$?"; tail -3 "$out/symtest.log"
    ;;
  sanitizer)
    timeout 60 compute-sanitizer --tool memcheck --leak-check full "$B/tests/test_gpu_sym_spmm" quick \
      >"$out/sanitizer.log" 2>&1
    echo "sanitizer rc=$?"; tail -4 "$out/sanitizer.log"
    ;;
  lapmm)
    "$cli" bench laplace3d:size=160 --spmm 16 --kernels csr-vector,hyb,cusparse-sell-alg1 --runs 20 --warmup 3 \
      >"$out/bench_laplace160_spmm.txt" 2>&1
    echo "lapmm rc=$?"; grep -v "^  " "$out/bench_laplace160_spmm.txt" | tail -40
    ;;
  cimm)
    "$cli" bench ci:rows=524288,seed=1 --spmm 16 --kernels csr-vector,cusparse-sell-alg1 --runs 10 --warmup 2 \
      >"$out/bench_ci524k_spmm.txt" 2>&1
    echo "cimm rc=$?"; grep -v "^  " "$out/bench_ci524k_spmm.txt" | tail -40
    ;;
  h2o)
    "$cli" bench "$S/ci/h2o_631g.FCIDUMP" --symmetric --spmm 16 --kernels csr-vector,cusparse-csr-alg1,cusparse-sell-alg1 \
      --runs 10 --warmup 2 >"$out/bench_h2o.txt" 2>&1
    echo "h2o rc=$?"; grep -v "^  " "$out/bench_h2o.txt" | tail -60
    for k in "" "--symmetric"; do
      echo "== cisparse ci h2o_631g --device gpu --build gpu $k"
      "$cli" ci "$S/ci/h2o_631g.FCIDUMP" --device gpu --build gpu $k
    done >"$out/ci_h2o.txt" 2>&1
    grep -E "^==|hamiltonian|memory|format|davidson|gpu  |root|energy|E =" "$out/ci_h2o.txt" | head -40
    ;;
  esac
done
