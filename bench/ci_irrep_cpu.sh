#!/bin/bash
# ci_irrep_cpu.sh: point-group symmetry in the CPU direct sigma, blocked by
# irreps (default) vs projection (--symmetry-projection) vs C1 (the same
# integrals with every ORBSYM set to 1), and PySCF's direct_spin1_symm on the
# same FCIDUMP, alternating, ROUNDS rounds; wall and CPU seconds and the load.
# usage: bench/ci_irrep_cpu.sh CISPARSE FCIDUMP PYTHON [ROUNDS]
# (FCIDUMP e.g. from `bench/make_c2h4_fcidump.py 12 OUT --symmetry`)
set -u
CIS=$1; FILE=$2; PY=$3; ROUNDS=${4:-2}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the C1 copy: ORBSYM line(s) all 1 (PySCF writes one ORBSYM line)
awk '/ORBSYM=/{n=split($0,a,/[=,]/); s="  ORBSYM="; for(i=2;i<=n;i++) if(a[i]!="") s=s (i>2?",":"") "1"; print s; next}{print}' "$FILE" > "$tmp/c1.FCIDUMP"
cat > "$tmp/pyscf_symm.py" <<'PY'
import sys, time
import numpy as np
from pyscf import fci
from pyscf.tools import fcidump
d = fcidump.read(sys.argv[1])
n, ne = d['NORB'], d['NELEC']
orbsym = np.asarray(d['ORBSYM'])
t = time.perf_counter()
cis = fci.direct_spin1_symm.FCI()
cis.conv_tol = 1e-10
e, c = cis.kernel(d['H1'], d['H2'], n, ne, ecore=d['ECORE'], orbsym=orbsym, wfnsym=0)
t1 = time.perf_counter() - t
h2 = cis.absorb_h1e(d['H1'], d['H2'], n, ne, .5)
cis.orbsym = orbsym
x = np.random.default_rng(1).standard_normal(c.shape)
t = time.perf_counter()
for _ in range(3): cis.contract_2e(h2, x, n, ne)
print(f"pyscf direct_spin1_symm: E = {e:.10f}, kernel {t1:.3f} s, contract_2e {(time.perf_counter()-t)/3:.4f} s, "
      f"{c.size} determinants")
PY
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $FILE"
for r in $(seq 1 "$ROUNDS"); do
  for m in blocked projection c1 pyscf; do
    echo "## round $r: $m (load $(cut -d' ' -f1 /proc/loadavg))"
    case $m in
      blocked) /usr/bin/time -f "cpu %U user %S sys %e wall" "$CIS" ci "$FILE" --method direct 2>&1 ;;
      projection) /usr/bin/time -f "cpu %U user %S sys %e wall" "$CIS" ci "$FILE" --method direct --symmetry-projection 2>&1 ;;
      c1) /usr/bin/time -f "cpu %U user %S sys %e wall" "$CIS" ci "$tmp/c1.FCIDUMP" --method direct 2>&1 ;;
      pyscf) OMP_NUM_THREADS=2 /usr/bin/time -f "cpu %U user %S sys %e wall" "$PY" "$tmp/pyscf_symm.py" "$FILE" 2>&1 ;;
    esac | grep -E "^(space|davidson|sigma|time|root 0|cpu|pyscf)"
  done
done
