#!/usr/bin/env bash
# solve.sh CISPARSE SHARED: `cisparse solve` end to end on the CPU (and a
# quick GPU solve where there is a GPU):
#  - CG + Jacobi on laplace3d:size=12 converges with true relative residual
#    <= tol; CG, BiCG, BiCGStab, each with and without Jacobi;
#  - BiCG and BiCGStab (± Jacobi) converge on unsymmetric SuiteSparse
#    matrices from SHARED/matrices: cage8 (1015 rows, DNA electrophoresis)
#    and add32 (4960 rows, circuit simulation), both with a nonzero diagonal
#    (SHARED/matrices/README.md: BiCGStab converges on both; olm1000 breaks
#    down, west0479 diverges and has zero diagonal entries, so neither is used);
#  - --json fields present and numeric; --write-x, --rhs, single precision,
#    mixed precision to a true residual <= 1e-12, and the CPU sweep table of
#    `cisparse bench --solvers` (the paper's grid, on solve's pieces);
#  - every refusal and every failed solve is a nonzero exit and exactly one
#    stderr line "cisparse: ...": unknown names, tol <= 0, maxit < 1, GPU-only
#    options on the CPU, a non-square matrix, Jacobi with a zero diagonal
#    (tests/data/zero_diag.mtx), CG on an indefinite matrix
#    (tests/data/indefinite.mtx: "p^T A p"), maxit too small ("maxit"),
#    --device gpu without a GPU;
#  - a matrix scaled by 1e+-170, 1e-155, 1e+-300 takes the unscaled one's
#    iterations to the same true residual (CG, BiCGStab, +- Jacobi).
set -u
# The problems are tiny (thousands of rows, hundreds of parallel regions per
# solve): OpenMP threads that spin at every barrier make the test several
# times slower on a loaded CI machine; let them sleep instead.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
BIN=$1
SHARED=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
LAP=laplace3d:size=12

# JSON field as a number (exit 1 if absent, null or not numeric).
jnum() { python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
assert isinstance(v, (int, float)) and not isinstance(v, bool), v
print(v)' "$1" "$2"; }

# A converging solve: exit 0, the report names the true relative residual,
# and the JSON's true residual is <= tol.
converges() { # label tol args...
  local label=$1 tol=$2
  shift 2
  "$BIN" solve "$@" --tol "$tol" --json "$T/c.json" >"$T/c.out" 2>"$T/c.err"
  local rc=$? res
  if [ $rc -ne 0 ]; then echo "FAIL: $label exits $rc: $(cat "$T/c.err")"; fail=1; return; fi
  check "$label: report names the true relative residual" 'grep -q "true relative residual" "$T/c.out"'
  res=$(jnum "$T/c.json" true_relative_residual) || { echo "FAIL: $label: no numeric true_relative_residual"; fail=1; return; }
  check "$label: true relative residual $res <= $tol" 'python3 -c "import sys; sys.exit(not float(\"$res\") <= float(\"$tol\"))"'
}

# A refusal or failed solve: exit status, exactly one line "cisparse: ...", text in it.
refuses() { # label code text args... (SUB=bench: `cisparse bench` instead of solve)
  local label=$1 code=$2 text=$3
  shift 3
  "$BIN" ${SUB:-solve} "$@" >"$T/r.out" 2>"$T/r.err" </dev/null
  local rc=$? lines
  lines=$(wc -l <"$T/r.err")
  if [ $rc -ne "$code" ] || [ "$lines" -ne 1 ] || ! grep -q "^cisparse: " "$T/r.err" || ! grep -qF -- "$text" "$T/r.err"; then
    echo "FAIL: $label: exit $rc (expected $code), $lines stderr lines (expected 1 with '$text'):"
    sed 's/^/    /' "$T/r.err"
    fail=1
  fi
  check "$label: no NaN reported as a result" '! grep -qi "nan" "$T/r.out"'
}

# ---- converging solves on the CPU --------------------------------------------
converges "cg+jacobi $LAP" 1e-8 $LAP --device cpu --method cg --precond jacobi
for m in cg bicg bicgstab; do
  for p in none jacobi; do
    converges "$m+$p $LAP" 1e-8 $LAP --device cpu --method $m --precond $p
  done
done
converges "cg on hyb format" 1e-8 $LAP --device cpu --format hyb
converges "cg on sellcs format" 1e-8 $LAP --device cpu --format sellcs
converges "single precision cg" 1e-5 $LAP --device cpu --precision single
converges "--verbose on one device (accepted, as with --gpus)" 1e-8 $LAP --device cpu --verbose

if [ -r "$SHARED/matrices/cage8.mtx" ] && [ -r "$SHARED/matrices/add32.mtx" ]; then
  for mat in cage8 add32; do
    for m in bicg bicgstab; do
      for p in none jacobi; do
        converges "$m+$p $mat" 1e-8 "$SHARED/matrices/$mat.mtx" --device cpu --method $m --precond $p --maxit 2000
      done
    done
  done
else
  echo "note: $SHARED/matrices/cage8.mtx or add32.mtx missing: the unsymmetric checks did not run"
  fail=1
fi

# ---- JSON fields -----------------------------------------------------------------
"$BIN" solve $LAP --device cpu --method bicgstab --precond jacobi --json "$T/j.json" >/dev/null 2>"$T/j.err"
check "json run exits 0 ($(cat "$T/j.err"))" '[ -s "$T/j.json" ]'
for k in iterations true_relative_residual error ms_per_iteration; do
  check "json field $k numeric" 'jnum "$T/j.json" $k >/dev/null'
done
check "json status converged, energy fields present (null where n/a), launches n/a on the CPU" 'python3 - "$T/j.json" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "converged" and r["iterations"] > 0, r
assert r["error"] < 1e-6 and r["ms_per_iteration"] > 0, r
for k in ("joules_per_iteration", "launches_per_iteration", "gpu_joules_per_iteration", "cpu_joules_per_iteration"):
    assert k in r and (r[k] is None or isinstance(r[k], float)), (k, r)
assert r["launches_per_iteration"] is None, r
assert r["joules_per_iteration"] is not None or r["cpu_energy_note"], r
PY'
out=$("$BIN" solve $LAP --device cpu --json - 2>"$T/stdout_json.err")
check "--json - writes only JSON to stdout" 'python3 -c "import json,sys; json.loads(sys.argv[1])" "$out"'
check "--json - moves the report to stderr" 'grep -q "true relative residual" "$T/stdout_json.err"'

# ---- --write-x and --rhs ----------------------------------------------------------
check "--write-x" '"$BIN" solve $LAP --device cpu --precond jacobi --write-x "$T/x.mtx" >/dev/null 2>&1 && [ $(grep -vc "^%" "$T/x.mtx") -eq 1729 ]'
python3 -c 'print("\n".join(["1"] * 1728))' >"$T/b.txt"
converges "--rhs file" 1e-8 $LAP --device cpu --rhs "$T/b.txt"
check "--rhs: error is null (no x*)" 'python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"error\"] is None" "$T/c.json"'

# ---- mixed precision ---------------------------------------------------------------
"$BIN" solve $LAP --device cpu --precision mixed --tol 1e-12 --json "$T/m.json" >"$T/m.out" 2>"$T/m.err"
rc=$?
check "mixed precision exits 0 ($rc: $(cat "$T/m.err"))" '[ $rc -eq 0 ]'
check "mixed precision: true residual <= 1e-12, inner and double iterations reported" 'python3 - "$T/m.json" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "converged" and r["true_relative_residual"] <= 1e-12, r
assert r["inner_iterations"] > 0 and r["refinement_steps"] >= 1 and r["double"]["iterations"] > 0, r
PY'
check "mixed precision: report compares with the double solve" 'grep -q "inner (float) iterations" "$T/m.out" && grep -q "^double " "$T/m.out"'

# ---- the sweep on the CPU (bench --solvers: 3 solvers x 2 preconditioners) ------------------------------
"$BIN" bench $LAP --solvers --device cpu --repeat 2 --json "$T/s.json" --plot "$T/fig" >"$T/s.out" 2>"$T/s.err"
rc=$?
check "sweep exits 0 ($rc: $(tail -n 1 "$T/s.err"))" '[ $rc -eq 0 ]'
check "sweep table rows" '[ $(grep -cE "^(cg|bicg|bicgstab) +(none|jacobi) +host" "$T/s.out") -eq 6 ]'
check "sweep json: 6 converged rows relative to themselves" 'python3 - "$T/s.json" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["results"]
assert len(rows) == 6, len(rows)
for x in rows:
    assert x["status"] == "converged" and x["ms_per_iteration"] > 0 and x["runs"] >= 2, x
    assert abs(x["time_vs_cublasL_spin"] - 1) < 1e-12, x
PY'
check "sweep --plot: PNGs or a clear skip" 'ls "$T"/fig*.png >/dev/null 2>&1 || grep -qi "matplotlib" "$T/s.out" "$T/s.err"'

# ---- refusals: one line, exit 2 for usage, 1 at run time -----------------------------
refuses "unknown method" 2 "frob" $LAP --method frob
refuses "unknown version" 2 "nope" $LAP --version nope
refuses "unknown precond" 2 "--precond" $LAP --precond ilu
refuses "unknown precision" 2 "--precision" $LAP --precision half
refuses "unknown option" 2 "--frobnicate" $LAP --frobnicate
refuses "tol 0" 2 "--tol" $LAP --tol 0
refuses "tol negative" 2 "--tol" $LAP --tol -1e-3
refuses "maxit 0" 2 "--maxit" $LAP --maxit 0
refuses "no matrix" 2 "no matrix" --method cg
refuses "bicg cublasL on the cpu" 2 "--device gpu only" $LAP --device cpu --method bicg --version cublasL
refuses "--sync on the cpu" 2 "--device gpu only" $LAP --device cpu --sync blocking
refuses "--plot is bench --solvers" 2 "--plot" $LAP --plot "$T/p"
refuses "--repeat 0" 2 "--repeat" $LAP --repeat 0
SUB=bench refuses "--energy-seconds negative" 2 "--energy-seconds" $LAP --solvers --energy-seconds -1
refuses "--inner-tol without mixed" 2 "--inner-tol" $LAP --inner-tol 1e-3
refuses "--kernel with --cusparse" 2 "exclude" $LAP --kernel csr-vector --cusparse csr-alg1
SUB=bench refuses "--solvers with mixed" 2 "mixed" $LAP --solvers --precision mixed
refuses "--sweep is bench --solvers" 2 "--sweep" $LAP --sweep
refuses "unknown format" 1 "nosuchformat" $LAP --device cpu --format nosuchformat
refuses "missing file" 1 "missing.mtx" "$T/missing.mtx" --device cpu
refuses "non-square" 1 "square" random:rows=20,cols=10,density=0.3,seed=1 --device cpu
refuses "jacobi with a zero diagonal" 1 "zero diagonal" tests/data/zero_diag.mtx --device cpu --method bicgstab --precond jacobi
refuses "cg on an indefinite matrix" 1 "p^T A p" tests/data/indefinite.mtx --device cpu --method cg
refuses "maxit too small" 1 "maxit" $LAP --device cpu --method cg --maxit 3
refuses "mixed, maxit too small" 1 "maxit" $LAP --device cpu --precision mixed --tol 1e-12 --maxit 3
refuses "unwritable json" 1 "nonexistent" $LAP --device cpu --json /nonexistent/dir/s.json

# ---- the GPU: a clear line without one, a converged solve with one ---------------------------
"$BIN" solve $LAP --device gpu --precond jacobi --json "$T/g.json" >"$T/g.out" 2>"$T/g.err"
rc=$?
if [ $rc -eq 0 ]; then
  check "gpu solve: true residual <= 1e-8" 'python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"true_relative_residual\"] <= 1e-8" "$T/g.json"'
else
  check "--device gpu without a GPU: exit 1, one line naming it ($rc: $(cat "$T/g.err"))" \
    '[ $rc -eq 1 ] && [ $(wc -l < "$T/g.err") -eq 1 ] && grep -q "^cisparse: --device gpu: no usable GPU" "$T/g.err"'
fi

# ---- scale invariance: s A (b = s A ones) takes A's iterations ----------------
# 1e-170 once "converged in 0 iterations" (||b|| underflowed), 1e-155 was "not
# positive definite", 1e170 "NaN or Inf in b" (only its norm overflowed).
"$BIN" gen laplace3d:size=8 -o "$T/lap.mtx" >/dev/null 2>&1
iters() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iterations"])' "$1"; }
for m in cg bicgstab; do
  for p in none jacobi; do
    converges "$m+$p unscaled" 1e-8 "$T/lap.mtx" --device cpu --method $m --precond $p
    it0=$(iters "$T/c.json")
    for s in 1e-300 1e-170 1e-155 1e170 1e300; do
      awk -v s=$s '/^%/ {print; next} !h {print; h = 1; next} {printf "%d %d %.17g\n", $1, $2, $3 * s}' \
        "$T/lap.mtx" >"$T/lap_s.mtx"
      converges "$m+$p scaled by $s" 1e-8 "$T/lap_s.mtx" --device cpu --method $m --precond $p
      it=$(iters "$T/c.json")
      check "$m+$p scaled by $s: $it iterations, unscaled $it0" '[ $((it - it0)) -le 1 ] && [ $((it0 - it)) -le 1 ]'
    done
  done
done

# PCG's breakdown in CG's terms: diag(1, -1), b = A ones = (1, -1):
# (r, M^-1 r) = 1 - 1 = 0 (BiCG's "rho = (r~, r)" is not CG's language)
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -1\n' > "$T/pm.mtx"
refuses "pcg rho breakdown" 1 "cg broke down in iteration 1: breakdown: (r, M^-1 r) = 0 with r != 0, the Jacobi preconditioner" \
  "$T/pm.mtx" --device cpu --method cg --precond jacobi
check "pcg rho breakdown: no BiCG terms" '! grep -q "r~" "$T/r.err"'

# --format auto: cis_format_auto's rule names its choice on stderr; the solve converges
"$BIN" solve $LAP --format auto --precond jacobi --tol 1e-8 >"$T/a.out" 2>"$T/a.err"
check "--format auto solves ($(tail -n 1 "$T/a.err"))" '[ $? -eq 0 ] && grep -q "^--format auto: .*csr" "$T/a.err" && grep -q "true relative residual" "$T/a.out"'

[ $fail -eq 0 ] && echo "solve.sh: all checks passed"
exit $fail
