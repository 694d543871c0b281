#!/usr/bin/env bash
# ci_irrep_gpu_run.sh: one device round for the GPU direct sigma blocked by
# irreps (point-group symmetry on compact device vectors, issue 9): build, the
# GPU tests of the direct sigma, the CLI on C2H4 cc-pVDZ CAS(16,16) in D2h
# (Ag) with and without the blocking (--symmetry-projection: the C1-cost
# GPU path), with BIG=1 all 16 electrons in 18 orbitals (D2h, Ag), an nsys
# kernel summary of the CAS(16,16) run, compute-sanitizer memcheck +
# racecheck on small D2h cases. Logs into $OUT (8 files at most).
# FCIDUMPs: .data/c2h4_cas16_d2h.FCIDUMP and .data/c2h4_16e18o_d2h.FCIDUMP
# (made by `python3 bench/make_c2h4_fcidump.py 16 OUT --symmetry` and
# `... 18 OUT --symmetry --nelec 16`), else made here with PySCF (../.pyscfsite).
# usage (device machine, repository root = the .dev copy, ../.shared carried):
#   bash bench/ci_irrep_gpu_run.sh [TOTAL_SECONDS] [BIG]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
cd "$(dirname "$0")/.."
S=$(realpath ../.shared); D=$PWD/.data; mkdir -p "$D"
TOTAL=${1:-200}; BIG=${2:-0}
t0=$(date +%s); left() { echo $(( TOTAL - ($(date +%s) - t0) )); }
stamp() { echo "$1 at $(( $(date +%s) - t0 )) s" >> "$OUT/env.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u; nproc; } > "$OUT/env.txt" 2>&1
{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 -DCISPARSE_SHARED_DIR="$S" &&
  cmake --build build -j16 --target cisparse_cli test_ci_irrep_gpu test_ci_direct_gpu; } > "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
stamp "build done"
(cd build && timeout 60 ctest -R "test_ci_irrep_gpu|test_ci_direct_gpu" --output-on-failure -V) > "$OUT/ctest.log" 2>&1
stamp "ctest done"
F16="$D/c2h4_cas16_d2h.FCIDUMP"; F18="$D/c2h4_16e18o_d2h.FCIDUMP"
if [ ! -f "$F16" ]; then
  mkdir -p /tmp/site && tar xJf ../.pyscfsite/site.tar.xz -C /tmp/site
  PYTHONPATH=/tmp/site timeout 60 python3 -u bench/make_c2h4_fcidump.py 16 "$F16" --symmetry > "$OUT/fcidump.txt" 2>&1
  [ "$BIG" = 1 ] && PYTHONPATH=/tmp/site timeout 60 python3 -u bench/make_c2h4_fcidump.py 18 "$F18" --symmetry --nelec 16 >> "$OUT/fcidump.txt" 2>&1
fi
{ echo "== CAS(16,16) D2h Ag, text"; timeout 60 ./build/cisparse ci "$F16" --method direct --device gpu --verbose
  for k in 1 2; do echo "== json, process $k"; timeout 30 ./build/cisparse ci "$F16" --method direct --device gpu --json --no-s2; done
  echo "== the C1-cost GPU path (--symmetry-projection), json"
  timeout 40 ./build/cisparse ci "$F16" --method direct --device gpu --json --no-s2 --symmetry-projection; } > "$OUT/cli.txt" 2>&1
stamp "cli done"
if [ "$BIG" = 1 ] && [ "$(left)" -gt 40 ]; then
  timeout $(( $(left) - 30 )) ./build/cisparse ci "$F18" --method direct --device gpu --verbose --no-s2 > "$OUT/big.txt" 2>&1
  stamp "big done"
fi
[ "$(left)" -gt 25 ] && timeout $(( $(left) - 12 )) nsys profile -o /tmp/cas16 --force-overwrite true \
  ./build/cisparse ci "$F16" --method direct --device gpu --no-s2 > /dev/null 2>&1 &&
  nsys stats --report cuda_gpu_kern_sum /tmp/cas16.nsys-rep > "$OUT/nsys.txt" 2>&1
stamp "nsys done"
[ "$(left)" -gt 8 ] && { timeout $(( $(left) / 2 )) compute-sanitizer --tool memcheck ./build/cisparse ci tests/data/ci/n2_sto3g_d2h.FCIDUMP --method direct --device gpu | tail -3
  timeout $(( $(left) - 2 )) compute-sanitizer --tool racecheck ./build/cisparse ci tests/data/ci/c2_sto3g_d2h_pyscf.FCIDUMP --method direct --device gpu | tail -3; } > "$OUT/sanit.txt" 2>&1
stamp "end"
tail -3 "$OUT/ctest.log"; cat "$OUT/env.txt"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanit.txt"
grep -E "^gpu|^davidson|^time|^root 0|^setup|to_solution" "$OUT/cli.txt" | cut -c1-400; [ -f "$OUT/big.txt" ] && tail -8 "$OUT/big.txt"
