#!/usr/bin/env bash
# mpi_agree.sh CISPARSE SHARED: MPI ranks given different input refuse
# together (issue 40; labels cli and mpi): each rank hashes its integrals
# and options and the ranks compare them before any other collective
# (ci_ranks_agree, cis_dist_comm_agree), so that a job whose ranks differ
# in the integrals (one integral changed by 0.01 in the file of rank 1), in
# --tol, --count, --roots, --subspace, --method or --json (solve: the
# matrix, --tol, --eigs; cmd_dist.c's own check) exits 1 on every
# rank within seconds with one line "cisparse: ranks disagree on ..." naming
# what differs; before, these exited 0 with an energy of neither file, hung,
# or died inside MPICH ("Message truncated"). Ranks given the same input
# still agree and solve (the energy of one process). The ranks get their
# arguments from mpirun's MPMD form (-np 1 A : -np 1 B).
# Skipped (77) with the reason when mpirun is missing or cisparse has no MPI.
set -u
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
BIN=$1
CI=${2:-../shared}/ci
. "$(dirname "$0")/lib/prelude.sh"
H2O=$CI/h2o_sto3g.FCIDUMP

need_mpi "$BIN" "$H2O"

# The file of rank 1: H2O's with its first two-electron integral 0.01 larger.
awk 'BEGIN { done = 0 } /&END/ { print; body = 1; next }
     body && !done && NF == 5 && $2 != 0 && $4 != 0 { printf "%.12f %s %s %s %s\n", $1 + 0.01, $2, $3, $4, $5; done = 1; next }
     { print }' "$H2O" >"$tmp/h2o_changed.FCIDUMP"
cmp -s "$H2O" "$tmp/h2o_changed.FCIDUMP" && fail "the changed file equals the original"

# mpmd "ARGS OF RANK 0" "ARGS OF RANK 1" (the command first): the job under `timeout 60`, stdin
# from /dev/null; MPICH's launcher dying of SIGPIPE with nothing said (141)
# is run again (see mpi.sh)
mpmd() {
  local try rc
  for try in 1 2 3; do
    timeout 60 "$MPIRUN" -np 1 "$BIN" $1 --mpi : -np 1 "$BIN" $2 --mpi </dev/null >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 141 ] && [ ! -s "$tmp/err" ] || break
  done
  return $rc
}

# disagree NAME WANT "ARGS 0" "ARGS 1": exit 1 (never the timeout's 124),
# one stderr line "cisparse: ranks disagree on WANT"
disagree() {
  local name=$1 want=$2 rc t0=$SECONDS
  mpmd "$3" "$4"
  rc=$?
  [ $rc -ne 124 ] || { fail "$name: still running after 60 s (a hang)"; return; }
  [ $rc -eq 1 ] || fail "$name: exit $rc, want 1: $(head -3 "$tmp/err")"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: not one stderr line: $(cat "$tmp/err")"
  grep -qF "cisparse: ranks disagree on $want" "$tmp/err" || fail "$name: '$(cat "$tmp/err")' lacks 'ranks disagree on $want'"
  grep -q "^root" "$tmp/out" && fail "$name: printed roots: $(grep '^root' "$tmp/out")"
  [ $((SECONDS - t0)) -le 30 ] || fail "$name: took $((SECONDS - t0)) s"
}

disagree "integrals 0.01 apart, stored" "the integrals" "ci $H2O --method stored" "ci $tmp/h2o_changed.FCIDUMP --method stored"
disagree "integrals 0.01 apart, direct" "the integrals" "ci $H2O --method direct" "ci $tmp/h2o_changed.FCIDUMP --method direct"
disagree "--tol" "the options (tol)" "ci $H2O --tol 1e-6" "ci $H2O --tol 1e-9"
disagree "--count on one rank" "the options (count_only)" "ci $H2O --method stored" "ci $H2O --method stored --count"
disagree "--roots" "the options (roots)" "ci $H2O --roots 1" "ci $H2O --roots 2"
disagree "--roots, stored" "the options (roots)" "ci $H2O --roots 1 --method stored" "ci $H2O --roots 3 --method stored"
disagree "--subspace" "the options (max_sub)" "ci $H2O --subspace 8" "ci $H2O --subspace 12"
disagree "--method" "the options (method)" "ci $H2O --method direct" "ci $H2O --method stored"
disagree "--json on one rank" "the options (--json)" "ci $H2O" "ci $H2O --json"
disagree "integrals and --roots" "the integrals and the options (roots)" "ci $H2O --roots 1" "ci $tmp/h2o_changed.FCIDUMP --roots 2"

# solve (the tool's own check of the matrix and its options)
LAP=laplace3d:size=8,points=7
disagree "solve --tol" "the options (--tol)" "solve $LAP --tol 1e-8" "solve $LAP --tol 1e-10"
disagree "solve --eigs" "the options (--eigs)" "solve $LAP --eigs 2" "solve $LAP"
disagree "solve, another matrix" "the matrix" "solve $LAP" "solve laplace3d:size=8,points=27"

# the same input: they agree and solve (the one-process energy)
"$BIN" ci "$H2O" --tol 1e-9 >"$tmp/one.out" 2>&1 || fail "one process: exit $?"
e1=$(awk '$1 == "root" && $2 == 0 {print $5; exit}' "$tmp/one.out")
mpmd "ci $H2O --tol 1e-9" "ci $H2O --tol 1e-9" || fail "the same input: exit $? ($(tail -1 "$tmp/err"))"
en=$(awk '$1 == "root" && $2 == 0 {print $5; exit}' "$tmp/out")
close_to "$en" "$e1" 1e-10 || fail "the same input: E = '$en', one process $e1"
exit $((fails > 0))
