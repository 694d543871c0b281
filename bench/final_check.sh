#!/usr/bin/env bash
# final_check.sh OUTDIR: the last device call of a session, on binaries built
# on the CI machine (B=build): every CTest (CPU and GPU; test_io_shared needs
# all 19 shared matrices and runs in CI), H2O 6-31G full CI on the GPU, and
# `cisparse bench` on real CI Hamiltonians (H2O 6-31G CISDTQ and FCI, saved by
# `cisparse ci --save`) against cuSPARSE on the same matrices.
set -u
OUT=${1:?usage: final_check.sh OUTDIR}
R=$OUT/results
B=${B:-build}
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } | tee "$R/env.txt"
(cd $B && ctest -j8 -E test_io_shared --output-on-failure --timeout 300) > "$R/ctest.log" 2>&1
grep -E "checks,|tests passed|Failed|SKIPPED" "$R/ctest.log" | head -40
F=/work/shared/ci/h2o_631g.FCIDUMP
$B/cisparse ci $F --device gpu > "$R/h2o_fci_gpu.txt" 2>&1; tail -6 "$R/h2o_fci_gpu.txt"
K=csr-vector,sell,sellcs,csr5,hyb-paper,hyb,cusparse-csr-alg1,cusparse-csr-alg2,cusparse-coo-alg1,cusparse-sell-alg1
for lv in 4 full; do
  $B/cisparse ci $F --level $lv --save /tmp/h2o_$lv.cisb > "$R/h2o_${lv}_save.txt" 2>&1
  { echo "# $(date -u) | cisparse bench h2o_631g level $lv (saved by cisparse ci --save)"
    timeout 300 $B/cisparse bench /tmp/h2o_$lv.cisb --runs 30 --warmup 3 --kernels $K \
      --json "$R/h2o_${lv}_bench.json"; } > "$R/h2o_${lv}_bench.txt" 2>&1
  grep -v "^  " "$R/h2o_${lv}_bench.txt" | tail -16
  rm -f /tmp/h2o_$lv.cisb
done
tar czf "$OUT/results.tar.gz" -C "$OUT" results
