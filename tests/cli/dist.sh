#!/usr/bin/env bash
# dist.sh CISPARSE SHARED: `cisparse bench|solve --gpus N / --cpu-parts N`
# (src/cli/cmd_dist.c) on the CPU:
#  - bench over 3 CPU parts prints the parts, the exchange and the SpMV time;
#  - solve CG + Jacobi over 4 CPU parts converges, x = ones to 1e-8, the same
#    iteration count as the serial CPU solve; --exchange p2p, allgather and gather;
#  - Davidson (--eigs 2) over 2 parts gives the serial eigenvalues;
#  - `ci --cpu-parts N`, the Hamiltonian built part by part (each part its own
#    rows): H2O 6-31G CISD and CISDT over 1, 3 and 4 parts equal the one-part
#    run to 1e-10 and the reference CISD energy (ci/reference.tsv) to 1e-8;
#  - `ci --cpu-parts N` in full CI goes direct (auto): the sigma split by
#    alpha strings over 2 and 3 parts equals the one-process direct run to
#    1e-10 and the reference FCI energy to 1e-8 (H2O STO-3G);
#  - refusals, each a nonzero exit and one stderr line "cisparse: ...":
#    --gpus -1, --gpus with --cpu-parts, an unknown option with --gpus, a
#    solve option on bench, an unknown exchange, and --gpus where there is
#    no GPU (or more GPUs than the host has).
set -u
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
LAP=laplace3d:size=10,points=7

"$BIN" bench ci:rows=600,seed=2 --cpu-parts 3 --runs 3 >"$T/b.out" 2>"$T/b.err"
rc=$?
check "bench --cpu-parts 3 exits 0" '[ $rc -eq 0 ] && grep -q "^spmv: " "$T/b.out"'
check "bench lists 3 parts" '[ "$(grep -c "^  part " "$T/b.out")" -eq 3 ]'
check "bench reports the exchange" 'grep -q "MB per product" "$T/b.out" && grep -q "% of the product time" "$T/b.out"'

serial_it=$("$BIN" solve $LAP --device cpu --method cg --precond jacobi --tol 1e-10 | awk '/^iterations/ {print $2}')
for x in p2p allgather gather; do
  "$BIN" solve $LAP --cpu-parts 4 --method cg --precond jacobi --tol 1e-10 --exchange $x >"$T/s.out" 2>&1
  rc=$?
  check "solve --cpu-parts 4 --exchange $x exits 0" '[ $rc -eq 0 ]'
  check "solve $x reports exchange $x" 'grep -q "exchange $x" "$T/s.out"'
  it=$(sed -n 's/.*converged in \([0-9]*\) iterations.*/\1/p' "$T/s.out")
  check "solve $x: $it iterations, serial $serial_it" '[ "$it" = "$serial_it" ]'
  err=$(awk '/converged in/ {print $NF}' "$T/s.out")
  check "solve $x: max |x - 1| = $err <= 1e-8" 'python3 -c "import sys; sys.exit(0 if float(\"$err\") <= 1e-8 else 1)"'
done

# a symmetric format with no exchange named: each entry stored once
for f in csr-sym sym-seg; do
  "$BIN" solve $LAP --cpu-parts 3 --method cg --precond jacobi --tol 1e-10 --format $f >"$T/s.out" 2>&1
  rc=$?
  check "solve --cpu-parts 3 --format $f exits 0 and stores each entry once" \
    '[ $rc -eq 0 ] && grep -q "dist upper $f x3" "$T/s.out"'
  it=$(sed -n 's/.*converged in \([0-9]*\) iterations.*/\1/p' "$T/s.out")
  check "solve stored once ($f): $it iterations, serial $serial_it" '[ "$it" = "$serial_it" ]'
  err=$(awk '/converged in/ {print $NF}' "$T/s.out")
  check "solve stored once ($f): max |x - 1| = $err <= 1e-8" 'python3 -c "import sys; sys.exit(0 if float(\"$err\") <= 1e-8 else 1)"'
done
"$BIN" bench ci:rows=600,seed=2 --cpu-parts 2 --format csr-sym --runs 2 >"$T/ns.out" 2>&1
rc=$?
check "bench of a non-symmetric matrix in a symmetric format: refused in one line" \
  '[ $rc -ne 0 ] && grep -q "not symmetric" "$T/ns.out" && [ "$(wc -l < "$T/ns.out")" -eq 1 ]'

"$BIN" solve $LAP --cpu-parts 2 --eigs 2 --tol 1e-7 --maxit 400 >"$T/e.out" 2>&1
rc=$?
check "Davidson over 2 parts exits 0" '[ $rc -eq 0 ]'
e0=$(awk '/^eigenvalue 0/ {print $3}' "$T/e.out")
"$BIN" solve $LAP --cpu-parts 1 --eigs 2 --tol 1e-7 --maxit 400 >"$T/e1.out" 2>&1
e0s=$(awk '/^eigenvalue 0/ {print $3}' "$T/e1.out")
check "Davidson eigenvalue $e0 equals one part's $e0s to 1e-9" \
  'python3 -c "import sys; sys.exit(0 if abs(float(\"$e0\") - float(\"$e0s\")) <= 1e-9 else 1)"'

CI=${2:-../shared}/ci
ref_cisd=$(awk '$1 == "h2o_631g" {print $10}' "$CI/reference.tsv")
for lvl in 2 3; do
  for p in 1 3 4; do
    "$BIN" ci "$CI/h2o_631g.FCIDUMP" --level $lvl --cpu-parts $p --tol 1e-9 >"$T/ci$p.out" 2>"$T/ci$p.err"
    rc=$?
    check "ci level $lvl --cpu-parts $p exits 0" '[ $rc -eq 0 ]'
    check "ci level $lvl --cpu-parts $p built by parts" 'grep -q "built by parts" "$T/ci$p.out"'
  done
  e1=$(awk '/^root 0/ {print $5}' "$T/ci1.out")
  for p in 3 4; do
    ep=$(awk '/^root 0/ {print $5}' "$T/ci$p.out")
    check "ci level $lvl: $p parts $ep equals 1 part $e1 to 1e-10" \
      'python3 -c "import sys; sys.exit(0 if abs(float(\"$ep\") - float(\"$e1\")) <= 1e-10 else 1)"'
  done
  if [ $lvl -eq 2 ]; then
    check "ci CISD over 4 parts $ep equals the reference $ref_cisd to 1e-8" \
      'python3 -c "import sys; sys.exit(0 if abs(float(\"$ep\") - float(\"$ref_cisd\")) <= 1e-8 else 1)"'
  fi
done

# each entry stored once over the parts (a symmetric format, no exchange
# named): the same CISD energy as one part's full rows (e1 of level 3 above
# is CISDT: rerun CISD with full rows on one part)
"$BIN" ci "$CI/h2o_631g.FCIDUMP" --level 2 --cpu-parts 1 --tol 1e-9 >"$T/cu1.out" 2>&1
e1=$(awk '/^root 0/ {print $5}' "$T/cu1.out")
for f in csr-sym sym-seg; do
  for p in 2 3; do
    "$BIN" ci "$CI/h2o_631g.FCIDUMP" --level 2 --cpu-parts $p --format $f --tol 1e-9 >"$T/cu.out" 2>"$T/cu.err"
    rc=$?
    check "ci CISD --cpu-parts $p --format $f exits 0 and stores each entry once" \
      '[ $rc -eq 0 ] && grep -q "dist upper $f x$p" "$T/cu.out"'
    ep=$(awk '/^root 0/ {print $5}' "$T/cu.out")
    check "ci CISD stored once ($f, $p parts) $ep equals full rows on 1 part $e1 to 1e-10" \
      'python3 -c "import sys; sys.exit(0 if abs(float(\"$ep\") - float(\"$e1\")) <= 1e-10 else 1)"'
  done
done
"$BIN" ci "$CI/h2o_631g.FCIDUMP" --level 2 --cpu-parts 2 --format sym-seg --exchange p2p --tol 1e-9 >"$T/cx.out" 2>&1
check "ci --format sym-seg --exchange p2p keeps full rows" 'grep -q "dist sym-seg x2 (fake, p2p)" "$T/cx.out"'

ref_fci=$(awk '$1 == "h2o_sto3g" {print $11}' "$CI/reference.tsv")
"$BIN" ci "$CI/h2o_sto3g.FCIDUMP" --method direct --tol 1e-9 >"$T/d1.out" 2>&1
e1=$(awk '/^root 0/ {print $5}' "$T/d1.out")
for p in 2 3; do
  "$BIN" ci "$CI/h2o_sto3g.FCIDUMP" --cpu-parts $p --tol 1e-9 >"$T/dp.out" 2>"$T/dp.err"
  rc=$?
  check "ci full CI --cpu-parts $p exits 0 and goes direct" '[ $rc -eq 0 ] && grep -q "direct sigma" "$T/dp.out"'
  ep=$(awk '/^root 0/ {print $5}' "$T/dp.out")
  check "ci direct over $p parts $ep equals one process $e1 to 1e-10" \
    'python3 -c "import sys; sys.exit(0 if abs(float(\"$ep\") - float(\"$e1\")) <= 1e-10 else 1)"'
  check "ci direct over $p parts $ep equals the reference $ref_fci to 1e-8" \
    'python3 -c "import sys; sys.exit(0 if abs(float(\"$ep\") - float(\"$ref_fci\")) <= 1e-8 else 1)"'
done

for p in 2 4; do
  "$BIN" ci "$CI/h2o_631g.FCIDUMP" --cpu-parts $p --method direct --count >"$T/cnt$p.out" 2>&1
  check "ci --count over $p parts prints the memory per part" 'grep -q "^direct over $p CPU parts: per part" "$T/cnt$p.out"'
done
m2=$(sed -n 's/.*per part \([0-9.]*\) GiB.*/\1/p' "$T/cnt2.out")
m4=$(sed -n 's/.*per part \([0-9.]*\) GiB.*/\1/p' "$T/cnt4.out")
check "ci --count: 4 parts need less per part ($m4 GiB) than 2 ($m2 GiB)" \
  'python3 -c "import sys; sys.exit(0 if 0 < float(\"$m4\") < float(\"$m2\") else 1)"'

refuse() { # name, expected exit, command...
  local name=$1 want=$2
  shift 2
  "$@" >"$T/r.out" 2>"$T/r.err"
  local rc=$?
  check "$name: exit $rc (want $want)" '[ $rc -eq $want ]'
  check "$name: one stderr line cisparse: ..." '[ "$(wc -l <"$T/r.err")" -eq 1 ] && grep -q "^cisparse: " "$T/r.err"'
}
refuse "--gpus -1" 2 "$BIN" bench $LAP --gpus -1
refuse "--gpus with --cpu-parts" 2 "$BIN" solve $LAP --gpus 1 --cpu-parts 2
refuse "unknown option with --gpus" 2 "$BIN" solve $LAP --cpu-parts 2 --sweep
refuse "solve option on bench" 2 "$BIN" bench $LAP --cpu-parts 2 --method cg
refuse "unknown exchange" 2 "$BIN" bench $LAP --cpu-parts 2 --exchange ring
refuse "unknown --host-vectors" 2 "$BIN" ci "$CI/h2o_631g.FCIDUMP" --gpus 2 --host-vectors sometimes
# --count needs no GPU: Davidson's vectors on the host when asked, the GPUs then holding the whole vectors
"$BIN" ci "$CI/h2o_631g.FCIDUMP" --gpus 2 --method direct --host-vectors always --count >"$T/hv.out" 2>&1
check "ci --count --host-vectors always prints the GPUs' share and the host's vectors" \
  'grep -q "^direct over 2 GPUs, Davidson.s vectors on the host: per GPU [0-9.]* GiB = 2 whole vectors" "$T/hv.out"'
refuse "--cpu-parts 0" 2 "$BIN" bench $LAP --cpu-parts 0
refuse "more parts than rows" 1 "$BIN" bench laplace3d:size=2,points=7 --cpu-parts 9
refuse "ci --cpu-parts 0" 2 "$BIN" ci "$CI/h2o_631g.FCIDUMP" --level 2 --cpu-parts 0
refuse "ci --gpus with --cpu-parts" 2 "$BIN" ci "$CI/h2o_631g.FCIDUMP" --gpus 1 --cpu-parts 2
refuse "ci: more parts than determinants" 1 "$BIN" ci "$CI/h2o_631g.FCIDUMP" --level 0 --cpu-parts 2
refuse "ci direct: more parts than alpha strings" 1 "$BIN" ci "$CI/h4_sto3g.FCIDUMP" --method direct --cpu-parts 9
refuse "ci direct over parts with --level" 1 "$BIN" ci "$CI/h2o_631g.FCIDUMP" --method direct --level 2 --cpu-parts 2
refuse "ci --method bogus" 2 "$BIN" ci "$CI/h2o_sto3g.FCIDUMP" --method bogus --cpu-parts 2
refuse "--gpus 4096 (more than the host has)" 1 "$BIN" bench $LAP --gpus 4096
grep -q -e "GPU" -e "CUDA" -e "NCCL" "$T/r.err" || { echo "FAIL: --gpus 4096 message: $(cat "$T/r.err")"; fail=1; }
exit $fail
