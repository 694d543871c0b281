#!/usr/bin/env bash
# ci_words_vs_pyscf.sh: CISD past 64 orbitals, cisparse beside PySCF's
# ci.CISD on the same cores: the FCIDUMP and PySCF's energy from
# tests/python/words_fcidump.py (RHF, ci.CISD with conv_tol 1e-10, all
# electrons), then `cisparse ci --level 2 --count` (sizes and memory) and, when
# it fits, `cisparse ci --level 2 --json`. Wall times of both, side by side.
# usage: bash bench/ci_words_vs_pyscf.sh PYTHON CISPARSE CASE [OUTDIR]
#   CASE: benzene-6-31g, lih-aug-cc-pvtz, or "ATOMS|BASIS|GROUP"
set -u
PY=$1 CIS=$2 CASE=$3 OUT=${4:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mkdir -p "$OUT"
name=$(printf %s "$CASE" | tr -c 'A-Za-z0-9.-' '_')
f=$OUT/$name.FCIDUMP
echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), host $(hostname), $(nproc) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "+ $PY tests/python/words_fcidump.py $CASE $f"
/usr/bin/time -f "pyscf wall %e s, max RSS %M KB" "$PY" "$here/tests/python/words_fcidump.py" "$CASE" "$f"
echo "+ $CIS ci $f --level 2 --count"
"$CIS" ci "$f" --level 2 --count
echo "+ $CIS ci $f --level 2 --json"
/usr/bin/time -f "cisparse wall %e s, max RSS %M KB" "$CIS" ci "$f" --level 2 --json
echo "exit $?"
