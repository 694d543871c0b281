#!/bin/bash
# ci_gpubuild_run.sh: device run of the GPU-built CI Hamiltonian (run 20): the GPU build test,
# test_ci_gpu, H2O 6-31G FCI with --build gpu (default) and --build cpu, and tests/cli/ci.sh.
# From a copy of the tree with prebuilt bin/{cisparse,test_ci_gpu_build,test_ci_gpu} (configured with
# -DCISPARSE_SHARED_DIR=/work/shared) and shared/ci; logs under $OUT.
set -u
mkdir -p /work && ln -sfn "$PWD/shared" /work/shared
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
date -u > "$OUT/date.txt"
for t in test_ci_gpu_build test_ci_gpu; do
  ( time ./bin/$t ) > "$OUT/$t.log" 2>&1; echo "rc=$?" >> "$OUT/$t.log"; tail -12 "$OUT/$t.log"
done
./bin/cisparse ci shared/ci/h2o_631g.FCIDUMP --device gpu > "$OUT/h2o_gpu_build.txt" 2>&1; echo "rc=$?" >> "$OUT/h2o_gpu_build.txt"
cat "$OUT/h2o_gpu_build.txt"
./bin/cisparse ci shared/ci/h2o_631g.FCIDUMP --device gpu --build cpu > "$OUT/h2o_cpu_build.txt" 2>&1; echo "rc=$?" >> "$OUT/h2o_cpu_build.txt"
cat "$OUT/h2o_cpu_build.txt"
bash tests/cli/ci.sh ./bin/cisparse /work/shared > "$OUT/cli_ci.log" 2>&1; echo "cli rc=$?" >> "$OUT/cli_ci.log"; tail -3 "$OUT/cli_ci.log"
