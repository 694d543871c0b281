#!/usr/bin/env bash
# build.sh: build and run the host emulation of the blocked GPU sigma
# (ci_sigma_irrep.cu kernels + ci_sigma_irrep_dev.c with fake CUDA/cuBLAS)
# against the CPU compact sigma on the D2h FCIDUMPs of tests/data/ci (MS2 0
# and 2, several irreps, one and many passes, symmetric/antisymmetric
# vectors: the half sigma), and the C1-order entry point. Needs a configured
# and built build/ (libcisparse.a) and the CUDA toolkit headers/libraries
# (no GPU). usage: bash bench/ci_irrep_emulate/build.sh
set -eu
W=$(cd "$(dirname "$0")/../.." && pwd); T=$(mktemp -d); L=${CUDA_LIB:-/usr/local/cuda/lib}
INC="-I$W/src -I$W/include -I$W/build/include -I/usr/local/cuda/include -DEMU_FREE=(1ull<<34)"
python3 - "$W" "$T" <<'PY'
import sys
s = open(sys.argv[1] + '/src/ci/gpu/ci_sigma_irrep.cu').read()
s = s[:s.index('static cis_status ir_grid')].replace('#include "kernels/kernel_common.cuh"', '')
open(sys.argv[2] + '/kern.inc', 'w').write(s)
PY
g++ -std=c++20 -O1 $INC -I"$T" -c "$W/bench/ci_irrep_emulate/emu.cpp" -o "$T/emu.o"
gcc -O1 $INC -c "$W/src/ci/gpu/ci_sigma_irrep_dev.c" -o "$T/dev.o"
sed "s|/work/wt-girrep|$W|g" "$W/bench/ci_irrep_emulate/main.c" > "$T/main.c"
gcc -O1 $INC -c "$T/main.c" -o "$T/main.o"
g++ "$T/main.o" "$T/dev.o" "$T/emu.o" "$W/build/libcisparse.a" -fopenmp -lopenblas "$L/libcudart.so" "$L/libcusparse.so" \
  "$L/libcublas.so" "$L/libcublasLt.so" "$L/libnccl.so" -lm -lpthread -ldl -o "$T/emu" 2>&1 | grep -v "^/usr/bin/ld: /" || true
OMP_NUM_THREADS=1 LD_LIBRARY_PATH=$L "$T/emu"
