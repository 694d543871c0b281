#!/usr/bin/env bash
# conventions.sh: the conventions every command shares (issue 41 item 5, issue
# 43 item 1): --name=value is --name value (a flag given =x refused in one
# line), --json [FILE] alike in ci, info, solve, spmv and bench, the sigma
# timed only when asked (--time-sigma), ci --save writes H with the core
# energy (the saved matrix's eigenvalues are the printed energies), excited
# roots print E - E0 in Eh and eV, irreps 1-based as FCIDUMP's ISYM with
# their D2h names in input, report, --count and JSON, and an FCIDUMP given
# to info/solve/spmv refused in words.
# usage: bash conventions.sh /path/to/cisparse /path/to/shared   (from the source root)
set -u
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
CIS=$1
CI=$2/ci
case $CIS in /*) ;; *) CIS=$PWD/$CIS ;; esac
[ -e "$CI/h4_sto3g.FCIDUMP" ] || { echo "skipped: no $CI/h4_sto3g.FCIDUMP"; exit 77; }
command -v python3 > /dev/null || { echo "skipped: no python3"; exit 77; }
. "$(dirname "$0")/lib/prelude.sh"
H4=$CI/h4_sto3g.FCIDUMP
H2O=$CI/h2o_sto3g.FCIDUMP
O2=tests/data/ci/o2_sto3g_triplet_pyscf.FCIDUMP

# usage_error NAME PATTERN CMD...: exit 2, one stderr line "cisparse: ..." matching PATTERN
usage_error() {
  local name=$1 pat=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
  local rc=$?
  [ $rc = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '^cisparse: ' "$tmp/err" && grep -qE -- "$pat" "$tmp/err" ||
    fail "$name: exit $rc (expected 2), stderr: $(cat "$tmp/err")"
}
# json_get FILE EXPR: python expression on d (the JSON of FILE), printed
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2> /dev/null; }
roots() { grep '^root' "$1" | awk '{print $5}'; }

# ---- --name=value is --name value, in every command -------------------------------------
"$CIS" ci "$H4" --roots 2 --method stored --quiet > "$tmp/sp" 2>&1 || fail "ci --roots 2: $(cat "$tmp/sp")"
"$CIS" ci "$H4" --roots=2 --method=stored --quiet > "$tmp/eq" 2>&1 || fail "ci --roots=2 --method=stored: $(cat "$tmp/eq")"
[ -n "$(roots "$tmp/sp")" ] && [ "$(roots "$tmp/sp")" = "$(roots "$tmp/eq")" ] ||
  fail "ci --roots=2: $(roots "$tmp/eq") vs --roots 2: $(roots "$tmp/sp")"
"$CIS" ci "$H4" --method=direct --quiet > "$tmp/out" 2> "$tmp/err" && grep -q '^method        direct (--method direct)' "$tmp/out" ||
  fail "ci --method=direct: $(cat "$tmp/err") $(grep '^method' "$tmp/out")"
"$CIS" ci "$H4" --cpu-parts=2 --method=stored > "$tmp/out" 2> "$tmp/err" && grep -q '^parts 2 ' "$tmp/out" ||
  fail "ci --cpu-parts=2: $(cat "$tmp/err")"
"$CIS" solve laplace3d:size=6 --device=cpu --method=bicgstab --tol=1e-9 > "$tmp/out" 2> "$tmp/err" &&
  grep -q '^solve       bicgstab + none' "$tmp/out" || fail "solve --method=bicgstab: $(cat "$tmp/err") $(head -3 "$tmp/out")"
"$CIS" spmv laplace3d:size=4 --format=ell --out="$tmp/y.mtx" > "$tmp/out" 2> "$tmp/err" &&
  grep -q '(ell, cpu' "$tmp/out" && [ -s "$tmp/y.mtx" ] || fail "spmv --format=ell --out=FILE: $(cat "$tmp/err" "$tmp/out")"
"$CIS" info laplace3d:size=2 --dump=ell > "$tmp/out" 2> "$tmp/err" && grep -q '^# ell rows=8' "$tmp/out" ||
  fail "info --dump=ell: $(cat "$tmp/err")"
"$CIS" gen laplace3d:size=3 --out="$tmp/g.mtx" > /dev/null 2> "$tmp/err" && [ -s "$tmp/g.mtx" ] || fail "gen --out=FILE: $(cat "$tmp/err")"
"$CIS" bench laplace3d:size=4 --runs=2 --warmup=0 --kernels=csr > "$tmp/out" 2> "$tmp/err" || fail "bench --runs=2: $(cat "$tmp/err")"
usage_error "--roots= (empty value)" "--roots: '' is not an integer" "$CIS" ci "$H4" --roots=
# a flag that takes no value, given one: refused, not read as the input file
usage_error "ci --quiet=1" "--quiet takes no value, got '--quiet=1'" "$CIS" ci "$H4" --quiet=1
usage_error "ci --quiet=FILE first" "--quiet takes no value" "$CIS" ci --quiet="$H4"
usage_error "ci --time-sigma=yes" "--time-sigma takes no value" "$CIS" ci "$H4" --time-sigma=yes
usage_error "ci --count=1 over parts" "--count takes no value" "$CIS" ci "$H4" --cpu-parts 2 --count=1
usage_error "bench --solvers=1" "--solvers takes no value" "$CIS" bench laplace3d:size=4 --solvers=1
usage_error "bench --symmetric=yes" "--symmetric takes no value" "$CIS" bench laplace3d:size=4 --symmetric=yes
usage_error "info --rows-detail=x" "--rows-detail takes no value" "$CIS" info laplace3d:size=2 --rows-detail=x
usage_error "spmv --symmetric=x" "--symmetric takes no value" "$CIS" spmv laplace3d:size=2 --out "$tmp/y2.mtx" --symmetric=x
usage_error "bench --mpi=1" "--mpi takes no value" "$CIS" bench laplace3d:size=4 --mpi=1
usage_error "unknown --x=1" "unknown option '--x'" "$CIS" ci "$H4" --x=1

# ---- --json [FILE] alike ---------------------------------------------------------------------
# ci: --json alone (stdout, also before the file), --json FILE after it, --json=FILE before it
"$CIS" ci "$H4" --quiet --json > "$tmp/a.json" 2> "$tmp/err" && [ "$(json_get "$tmp/a.json" 'd["method"]')" = direct ] ||
  fail "ci FILE --json: $(cat "$tmp/err") $(head -c 200 "$tmp/a.json")"
"$CIS" ci --json "$H4" --quiet > "$tmp/b.json" 2> "$tmp/err" && [ "$(json_get "$tmp/b.json" 'd["file"]')" = "$H4" ] ||
  fail "ci --json FILE (the FCIDUMP): $(cat "$tmp/err") $(head -c 200 "$tmp/b.json")"
"$CIS" ci "$H4" --json "$tmp/c.json" --quiet > "$tmp/out" 2> "$tmp/err" || fail "ci FILE --json OUT: $(cat "$tmp/err")"
grep -q '^root 0        E = ' "$tmp/out" || fail "ci --json OUT: no text report on stdout: $(head -3 "$tmp/out")"
[ "$(json_get "$tmp/c.json" 'd["roots"][0]["energy"]')" = "$(json_get "$tmp/a.json" 'd["roots"][0]["energy"]')" ] ||
  fail "ci --json OUT: $(head -c 200 "$tmp/c.json")"
"$CIS" ci --json="$tmp/d.json" "$H4" --count > "$tmp/out" 2> "$tmp/err" && grep -q '^determinants  36' "$tmp/out" &&
  [ "$(json_get "$tmp/d.json" 'd["determinants"]')" = 36 ] || fail "ci --json=OUT --count: $(cat "$tmp/err" "$tmp/out")"
"$CIS" ci "$H4" --cpu-parts 2 --json "$tmp/e.json" > "$tmp/out" 2> "$tmp/err" && grep -q '^parts 2' "$tmp/out" &&
  [ "$(json_get "$tmp/e.json" 'd["parts"]')" = 2 ] || fail "ci --cpu-parts 2 --json OUT: $(cat "$tmp/err")"
usage_error "--json= (empty)" "--json= needs a file name" "$CIS" ci "$H4" --json=
# info, solve, spmv, bench: --json alone on stdout (the report on stderr), FILE and =FILE
for form in stdout file joined; do
  for cmd in "info laplace3d:size=3" "solve laplace3d:size=4 --device cpu" "spmv laplace3d:size=3 --out $tmp/ys.mtx" \
             "bench laplace3d:size=3 --runs 2 --warmup 0 --kernels csr"; do
    name=${cmd%% *}
    rm -f "$tmp/j.json"
    case $form in
      stdout) $CIS $cmd --json > "$tmp/j.json" 2> "$tmp/err" ;;
      file) $CIS $cmd --json "$tmp/j.json" > "$tmp/out" 2> "$tmp/err" ;;
      joined) $CIS $name --json="$tmp/j.json" ${cmd#* } > "$tmp/out" 2> "$tmp/err" ;; # before the matrix
    esac
    rc=$?
    [ $rc = 0 ] && [ -n "$(json_get "$tmp/j.json" 'sorted(d)[0]')" ] || fail "$name --json ($form): exit $rc, $(tail -1 "$tmp/err") $(head -c 120 "$tmp/j.json")"
    [ $form = stdout ] || [ -s "$tmp/out" ] || fail "$name --json FILE ($form): no report on stdout"
  done
done
"$CIS" info --json laplace3d:size=2 > "$tmp/j.json" 2> "$tmp/err" && [ "$(json_get "$tmp/j.json" 'd["rows"]')" = 8 ] ||
  fail "info --json MATRIX: $(cat "$tmp/err")"

# ---- the sigma timed only with --time-sigma --------------------------------------------------
# a plain run times nothing apart (JSON sigma_ms null, no timing line); --time-sigma does, on the
# CPU, over CPU parts and, where there is one, on the GPU
"$CIS" ci "$H2O" --method direct --quiet --json > "$tmp/t0.json" 2> "$tmp/err" || fail "ci direct --json: $(cat "$tmp/err")"
[ "$(json_get "$tmp/t0.json" 'd["sigma_ms"]')" = None ] || fail "plain ci timed the sigma: sigma_ms $(json_get "$tmp/t0.json" 'd["sigma_ms"]')"
"$CIS" ci "$H2O" --method direct --quiet > "$tmp/t0.txt" 2>&1
grep -q '^timing' "$tmp/t0.txt" && fail "plain ci printed a timing line: $(grep '^timing' "$tmp/t0.txt")"
grep -q 'sigma timing' "$tmp/t0.txt" && fail "plain ci: $(grep 'sigma timing' "$tmp/t0.txt")"
"$CIS" ci "$H2O" --method direct --quiet --time-sigma --json > "$tmp/t1.json" 2> "$tmp/err" || fail "--time-sigma: $(cat "$tmp/err")"
[ "$(json_get "$tmp/t1.json" 'int(d["sigma_ms"] > 0)')" = 1 ] || fail "--time-sigma: sigma_ms $(json_get "$tmp/t1.json" 'd["sigma_ms"]')"
[ "$(json_get "$tmp/t1.json" 'd["products"]')" = "$(json_get "$tmp/t0.json" 'd["products"]')" ] ||
  fail "--time-sigma changed Davidson's product count"
"$CIS" ci "$H2O" --method direct --quiet --time-sigma > "$tmp/t1.txt" 2>&1
grep -q '^timing        one sigma [0-9.]* ms (--time-sigma' "$tmp/t1.txt" || fail "--time-sigma: no timing line: $(cat "$tmp/t1.txt")"
"$CIS" ci "$H2O" --cpu-parts 2 --json > "$tmp/p0.json" 2> "$tmp/err" || fail "ci --cpu-parts 2: $(cat "$tmp/err")"
[ "$(json_get "$tmp/p0.json" 'd["sigma_ms"]')" = None ] || fail "ci --cpu-parts 2 timed the sigma unasked"
"$CIS" ci "$H2O" --cpu-parts 2 --time-sigma --json > "$tmp/p1.json" 2> "$tmp/err" || fail "--cpu-parts --time-sigma: $(cat "$tmp/err")"
[ "$(json_get "$tmp/p1.json" 'int(d["sigma_ms"] > 0)')" = 1 ] || fail "--cpu-parts --time-sigma: $(head -c 300 "$tmp/p1.json")"
if "$CIS" ci "$H2O" --method direct --device gpu --quiet --json > "$tmp/g0.json" 2> /dev/null; then
  [ "$(json_get "$tmp/g0.json" '(d["sigma_ms"], d["gpu"]["sigma_ms"], d["gpu"]["sigma_half_ms"])')" = "(None, None, None)" ] ||
    fail "plain ci --device gpu timed the sigma: $(json_get "$tmp/g0.json" 'd["gpu"]')"
  "$CIS" ci "$H2O" --method direct --device gpu --quiet --json --time-sigma > "$tmp/g1.json" 2> "$tmp/err"
  [ "$(json_get "$tmp/g1.json" 'int(d["gpu"]["sigma_ms"] > 0 and d["sigma_ms"] > 0)')" = 1 ] || fail "gpu --time-sigma: $(cat "$tmp/err")"
fi

# ---- --save: H with the core energy, its eigenvalues the printed energies ---------------------
"$CIS" ci "$H4" --method stored --roots 3 --save "$tmp/h4.mtx" > "$tmp/s.txt" 2> "$tmp/err" || fail "--save: $(cat "$tmp/err")"
python3 - "$tmp/h4.mtx" $(roots "$tmp/s.txt") << 'EOF' || fail "--save: the saved matrix's eigenvalues are not the printed energies"
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith('%')]
n = int(rows[0][0])
A = [[0.0] * n for _ in range(n)]
for i, j, v in rows[1:]:
    A[int(i) - 1][int(j) - 1] = float(v)
for sweep in range(60):  # cyclic Jacobi: every eigenvalue of the small dense matrix
    if sum(A[i][j] ** 2 for i in range(n) for j in range(n) if i != j) < 1e-26:
        break
    for p in range(n):
        for q in range(p + 1, n):
            if A[p][q] == 0.0:
                continue
            th = (A[q][q] - A[p][p]) / (2 * A[p][q])
            t = (1 if th >= 0 else -1) / (abs(th) + math.sqrt(th * th + 1))
            c = 1 / math.sqrt(t * t + 1); s = t * c
            for k in range(n):
                A[k][p], A[k][q] = c * A[k][p] - s * A[k][q], s * A[k][p] + c * A[k][q]
            for k in range(n):
                A[p][k], A[q][k] = c * A[p][k] - s * A[q][k], s * A[p][k] + c * A[q][k]
ev = sorted(A[i][i] for i in range(n))
printed = [float(x) for x in sys.argv[2:]]
bad = len(printed) != 3 or any(abs(a - b) > 1e-8 for a, b in zip(ev, printed))
print(f"saved H eigenvalues {ev[:3]}, printed {printed}")
sys.exit(1 if bad else 0)
EOF

# ---- excited roots: E - E0 in Eh and eV; E_corr for the ground state only ----------------------
grep -q '^root 0        E = -[0-9.]* Eh   E_corr = -[0-9.]* Eh' "$tmp/s.txt" || fail "root 0 line: $(grep '^root 0' "$tmp/s.txt")"
grep '^root [12]' "$tmp/s.txt" | grep -q 'E_corr' && fail "an excited root prints E_corr: $(grep '^root' "$tmp/s.txt")"
e0=$(grep '^root 0' "$tmp/s.txt" | awk '{print $5}')
e2=$(grep '^root 2' "$tmp/s.txt" | awk '{print $5}')
de=$(grep '^root 2' "$tmp/s.txt" | sed -n 's/.*E - E0 = \([0-9.]*\) Eh = \([0-9.]*\) eV.*/\1/p')
ev=$(grep '^root 2' "$tmp/s.txt" | sed -n 's/.*E - E0 = \([0-9.]*\) Eh = \([0-9.]*\) eV.*/\2/p')
close_to "$de" "$(awk -v a="$e2" -v b="$e0" 'BEGIN { printf "%.10f", a - b }')" 2e-10 && close_to "$ev" "$(awk -v d="$de" 'BEGIN { print d * 27.211386245988 }')" 1e-4 ||
  fail "root 2: E - E0 = '$de' Eh = '$ev' eV against E0 $e0, E2 $e2"
"$CIS" ci "$H4" --method stored --roots 2 --quiet --json > "$tmp/x.json" 2> "$tmp/err"
[ "$(json_get "$tmp/x.json" '[r["excitation"] for r in d["roots"]][0]')" = None ] &&
  close_to "$(json_get "$tmp/x.json" 'd["roots"][1]["excitation"]')" "$(json_get "$tmp/x.json" 'd["roots"][1]["energy"] - d["roots"][0]["energy"]')" 1e-11 &&
  close_to "$(json_get "$tmp/x.json" 'd["roots"][1]["excitation_ev"] / d["roots"][1]["excitation"]')" 27.211386245988 1e-6 ||
  fail "JSON excitation: $(json_get "$tmp/x.json" 'd["roots"]')"

# ---- irreps: 1-based as FCIDUMP's ISYM everywhere, D2h names where the file is D2h's ------------
# O2 (a PySCF file, 0-based ids): --isym 2 is id 1, B1g: the triplet ground state
"$CIS" ci "$O2" --isym 2 > "$tmp/o2.txt" 2> "$tmp/err" || fail "O2 --isym 2: $(cat "$tmp/err")"
grep -q '^orbitals .* ISYM 2 (B1g), core' "$tmp/o2.txt" || fail "O2 --isym 2: $(grep '^orbitals' "$tmp/o2.txt")"
grep -q 'irreps shown 1-based (id + 1); target irrep ISYM=2 (B1g)$' "$tmp/o2.txt" || fail "O2 --isym 2: $(grep '^symmetry' "$tmp/o2.txt")"
grep -q '^root 0        E = -147.74403543' "$tmp/o2.txt" || fail "O2 --isym 2 is not B1g's triplet: $(grep '^root' "$tmp/o2.txt")"
"$CIS" ci "$O2" --isym 2 --count > "$tmp/o2c.txt" 2> "$tmp/err" || fail "O2 --count: $(cat "$tmp/err")"
grep -q '^by irrep      1 (Ag): 160, 2 (B1g): 136, .*, 8 (B3u): 152; ISYM 2 (B1g)$' "$tmp/o2c.txt" || fail "O2 --count: $(grep '^by irrep' "$tmp/o2c.txt")"
"$CIS" ci "$O2" --isym 2 --quiet --json > "$tmp/o2.json" 2> "$tmp/err"
[ "$(json_get "$tmp/o2.json" '(d["isym"], d["isym_name"])')" = "(2, 'B1g')" ] || fail "O2 JSON isym: $(json_get "$tmp/o2.json" '(d["isym"], d["isym_name"])')"
"$CIS" ci "$O2" --isym 2 --method direct --quiet --json > "$tmp/o2d.json" 2> "$tmp/err"
[ "$(json_get "$tmp/o2d.json" '(d["isym"], d["isym_name"])')" = "(2, 'B1g')" ] || fail "O2 direct JSON isym: $(cat "$tmp/err")"
"$CIS" ci "$O2" --isym 2 --count --json > "$tmp/o2c.json" 2> "$tmp/err"
[ "$(json_get "$tmp/o2c.json" '(d["isym"], d["isym_name"], d["by_irrep"][1])')" = "(2, 'B1g', 136)" ] || fail "O2 --count JSON: $(head -c 300 "$tmp/o2c.json")"
# an irrep no determinant has: refused naming the same 1-based irrep
printf '&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=0,0,ISYM=1 &END\n 0.5 1 1 1 1\n -1.0 1 1 0 0\n -0.5 2 2 0 0\n' > "$tmp/p0.FCIDUMP"
"$CIS" ci "$tmp/p0.FCIDUMP" --isym 5 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'ISYM=5' "$tmp/err" && ! grep -q '0-based' "$tmp/err" || fail "--isym 5 of an Ag-only file: exit $rc, $(cat "$tmp/err")"
usage_error "--isym 0" "--isym must be an irrep 1..8, 1-based" "$CIS" ci "$O2" --isym 0
usage_error "--isym 9" "--isym must be an irrep 1..8" "$CIS" ci "$O2" --isym 9
# no names where the group is not known to be D2h (irreps 1..4 only)
"$CIS" ci "$tmp/p0.FCIDUMP" --count > "$tmp/out" 2>&1
grep -q '^by irrep      1: 4; ISYM 1$' "$tmp/out" || fail "a file of irrep 1 only: $(grep '^by irrep' "$tmp/out")"

# ---- an FCIDUMP given where a matrix is read: refused in words ---------------------------------
cp "$H4" "$tmp/integrals.txt"
for cmd in info solve spmv; do
  extra=; [ $cmd = spmv ] && extra="--out $tmp/y3.mtx"
  for f in "$H4" "$tmp/integrals.txt"; do
    "$CIS" $cmd "$f" $extra > /dev/null 2> "$tmp/err" < /dev/null; rc=$?
    [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "is an FCIDUMP file (integrals, not a matrix): \`cisparse ci " "$tmp/err" ||
      fail "$cmd on an FCIDUMP ($f): exit $rc, $(cat "$tmp/err")"
  done
done
"$CIS" bench "$tmp/integrals.txt" --runs 2 --warmup 0 --kernels csr > "$tmp/out" 2> "$tmp/err" &&
  grep -q 'full-CI Hamiltonian, 36 determinants' "$tmp/out" || fail "bench on an FCIDUMP without the name: $(cat "$tmp/err")"

echo "$fails failure(s)"
exit $((fails > 0))
