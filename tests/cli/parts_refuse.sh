#!/usr/bin/env bash
# parts_refuse.sh CISPARSE SHARED: a request no method can give is refused
# over CPU parts and over MPI ranks exactly as one process refuses it (issue
# 40): the same one stderr line and exit status, at once (the closed-form
# counts checked before the paths part, cis_ci_solve's check_request), for
# more roots than determinants (full CI, direct, stored, truncated), where
# the stored Hamiltonian over parts used to return fewer roots with exit 0.
# The MPI runs are skipped when mpirun or MPI is missing.
set -u
CIS=$1
CI=${2:-../shared}/ci
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
H4=$CI/h4_sto3g.FCIDUMP
MPIRUN=${MPIRUN:-$(command -v mpirun || command -v mpiexec || true)}
"$CIS" ci "$H4" --mpi </dev/null >/dev/null 2>"$tmp/no.err"
grep -q "built without MPI" "$tmp/no.err" && MPIRUN=

# same NAME ARGS...: one process, --cpu-parts 2 and 3 and (with MPI) -np 2
# give the same exit status (not 0) and the same one stderr line, no roots
same() {
  local name=$1 rc1 rc
  shift
  timeout 60 "$CIS" ci "$@" >"$tmp/one.out" 2>"$tmp/one.err"
  rc1=$?
  [ $rc1 -ne 0 ] && [ $rc1 -ne 124 ] || fail "$name, one process: exit $rc1 (a refusal expected)"
  [ "$(wc -l <"$tmp/one.err")" -eq 1 ] || fail "$name, one process: not one line: $(cat "$tmp/one.err")"
  for how in "--cpu-parts 2" "--cpu-parts 3" "mpi 2"; do
    if [ "${how%% *}" = mpi ]; then
      [ -n "$MPIRUN" ] || continue
      timeout 60 "$MPIRUN" -np 2 "$CIS" ci "$@" --mpi </dev/null >"$tmp/p.out" 2>"$tmp/p.err"
    else
      timeout 60 "$CIS" ci "$@" $how >"$tmp/p.out" 2>"$tmp/p.err"
    fi
    rc=$?
    [ $rc -eq $rc1 ] || fail "$name, $how: exit $rc, one process $rc1 ($(head -2 "$tmp/p.err"))"
    cmp -s "$tmp/p.err" "$tmp/one.err" || fail "$name, $how: '$(cat "$tmp/p.err")', one process '$(cat "$tmp/one.err")'"
    grep -q "^root" "$tmp/p.out" && fail "$name, $how: printed $(grep -c '^root' "$tmp/p.out") roots"
  done
}

same "40 roots of 36 determinants" "$H4" --roots 40
same "40 roots of 36 determinants, direct" "$H4" --roots 40 --method direct
same "40 roots of 36 determinants, stored" "$H4" --roots 40 --method stored
same "40 roots of 36 determinants, stored csr-sym" "$H4" --roots 40 --method stored --format csr-sym
same "10 roots of CIS's 9 determinants" "$H4" --roots 10 --level 1
same "2 roots of the reference alone" "$H4" --roots 2 --level 0

# as many roots as determinants: solved over parts as in one process
"$CIS" ci "$H4" --roots 36 --method stored >"$tmp/one.out" 2>&1 || fail "36 roots, one process: exit $?"
"$CIS" ci "$H4" --roots 36 --method stored --cpu-parts 2 >"$tmp/p.out" 2>&1 || fail "36 roots, --cpu-parts 2: exit $?"
[ "$(grep -c '^root' "$tmp/p.out")" -eq 36 ] || fail "36 roots over parts: $(grep -c '^root' "$tmp/p.out") printed"
e1=$(awk '$1 == "root" && $2 == 35 {print $5}' "$tmp/one.out") ep=$(awk '$1 == "root" && $2 == 35 {print $5}' "$tmp/p.out")
close_to "$ep" "$e1" 1e-7 || fail "root 35: --cpu-parts 2 '$ep', one process '$e1'"
exit $((fails > 0))
