#!/usr/bin/env bash
# sell_study.sh OUTDIR [BIN] [MATRIX_DIR]: the SELL report's slice-size study
# (IPSJ 2018-HPC-164, its GFLOP/s figure) on today's GPU, in one device call.
# For every matrix: our sell and sellcs (split kernel) at S = 16, 32, ..., 1024
# (`cisparse bench --sweep-slice`), cuSPARSE CSR (ALG1) and SELL (ALG1, slice
# 32), double, median of RUNS (default 20) CUDA-event timings; one CSV per
# matrix in OUTDIR/study/. Matrices: the 19 of MATRIX_DIR (default
# ../shared/matrices) and two 27-point 3D Laplacians standing in for the
# report's large 3D FEM matrices (ldoor 952k rows / audikw_1 944k: size 98 =
# 941,192 rows; Hook_1498 1.50M / ML_Geer 1.50M: size 114 = 1,481,544 rows).
# Also every other cisparse kernel and `auto` (cis_format_auto's choice), so
# that the automatic choice can be compared with the best kernel per matrix.
# DEADLINE (epoch seconds, optional): matrices not started by then are skipped.
# Table and figure: python3 bench/sell_study.py OUTDIR/study (on any machine).
set -u
OUT=${1:?usage: sell_study.sh OUTDIR [BIN] [MATRIX_DIR]}
BIN=${2:-build/cisparse}
MDIR=${3:-../shared/matrices}
RUNS=${RUNS:-20}
S=$OUT/study
mkdir -p "$S"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$S/env.txt" 2>&1
mats=()
for f in "$MDIR"/*.mtx; do mats+=("$f"); done
mats+=("laplace3d:size=98,points=27" "laplace3d:size=114,points=27")
K=cusparse-csr-alg1,cusparse-sell-alg1,auto,csr-scalar,csr-vector,ell,ellr,sellr,csb,csr5,hyb
for m in "${mats[@]}"; do
  name=$(basename "$m" .mtx | tr ':=,' '_-_')
  if [ -n "${DEADLINE:-}" ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then
    echo "SKIPPED (time): $m" >> "$S/commands.txt"; continue
  fi
  echo "$BIN bench $m --kernels $K --sweep-slice --runs $RUNS --warmup 3" >> "$S/commands.txt"
  timeout 60 "$BIN" bench "$m" --kernels "$K" --sweep-slice --runs "$RUNS" \
    --warmup 3 --csv "$S/$name.csv" > "$S/$name.log" 2>&1 || echo "FAILED: $m" | tee -a "$S/commands.txt"
done
ls "$S"/*.csv | wc -l
