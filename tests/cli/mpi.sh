#!/usr/bin/env bash
# mpi.sh CISPARSE SHARED: `mpirun -np N cisparse ci|solve|bench ... --mpi`
# (src/cli/cli_mpi.c; cmd_dist.c, ci: cmd_ci.c): one host part per process over MPI
# (cis_dist_comm_mpi_host), on the CPU (labels cli and mpi):
#  - ci over 2 and 3 processes equals the one-process run to 1e-10, direct
#    and stored: H2O STO-3G (C1, MS2 = 0; 2 roots direct), N2 STO-3G D2h
#    (Ag, blocked by irreps) and O2 STO-3G triplet (MS2 = 2, D2h); the
#    direct runs also equal --cpu-parts N (the same parts in one process);
#  - only rank 0 prints: one report, one JSON object with --json;
#  - solve CG + Jacobi over 2 processes: the iterations of --cpu-parts 2 and
#    x = ones to 1e-8; Davidson (--eigs 2) its eigenvalues to 1e-9; bench runs;
#  - refusals, each one stderr line "cisparse: ..." for the whole job and
#    the same nonzero exit: --mpi with --gpus or --cpu-parts, --device without
#    --mpi, --device tpu, a missing file, more processes than alpha strings,
#    --device gpu where cisparse has no GPU communicator.
# Skipped (77) with the reason when mpirun is missing (MPIRUN overrides it);
# in a binary built without MPI it checks the refusal and then skips.
set -u
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
BIN=$1
CI=${2:-../shared}/ci
DATA=tests/data/ci
. "$(dirname "$0")/lib/prelude.sh"
H2O=$CI/h2o_sto3g.FCIDUMP

need_mpi "$BIN" "$H2O"

# energy KEY FILE: root KEY's energy from a text report
energy() { awk -v k="$1" '$1 == "root" && $2 == k {print $5}' "$2"; }
# mpi NP ARGS...: the launcher on the tool, stdin from /dev/null, its output
# passed on when it ends. MPICH's mpiexec itself now and then dies of SIGPIPE
# under load (exit 141 with nothing on stderr, seen here even when its proxy
# could not start the program at all): that launcher failure, and only it, is
# run again, twice at most; the tool's own exit codes and messages are what
# the checks below judge.
mpi() {
  local np=$1 try rc
  shift
  for try in 1 2 3; do
    "$MPIRUN" -np "$np" "$BIN" "$@" </dev/null >"$tmp/launch.out" 2>"$tmp/launch.err"
    rc=$?
    [ $rc -eq 141 ] && [ ! -s "$tmp/launch.err" ] || break
  done
  cat "$tmp/launch.out"
  cat "$tmp/launch.err" >&2
  return $rc
}

for spec in "$H2O direct 2" "$H2O stored 1" "$DATA/n2_sto3g_d2h.FCIDUMP direct 1" \
            "$DATA/n2_sto3g_d2h.FCIDUMP stored 1" "$DATA/o2_sto3g_triplet_pyscf.FCIDUMP direct 1" \
            "$DATA/o2_sto3g_triplet_pyscf.FCIDUMP stored 1"; do
  set -- $spec
  f=$1 m=$2 roots=$3 name=$(basename "$1" .FCIDUMP)
  "$BIN" ci "$f" --method $m --roots $roots --tol 1e-9 >"$tmp/one.out" 2>"$tmp/one.err" ||
    fail "$name $m one process: exit $? ($(tail -1 "$tmp/one.err"))"
  for np in 2 3; do
    mpi $np ci "$f" --mpi --method $m --roots $roots --tol 1e-9 >"$tmp/mpi.out" 2>"$tmp/mpi.err"
    rc=$?
    [ $rc -eq 0 ] || fail "$name $m -np $np: exit $rc ($(tail -1 "$tmp/mpi.err"))"
    [ "$(grep -c "^parts $np over mpi " "$tmp/mpi.out")" -eq 1 ] || fail "$name $m -np $np: not one report of $np parts over mpi"
    [ "$(grep -c "^root 0 " "$tmp/mpi.out")" -eq 1 ] || fail "$name $m -np $np: printed by more than rank 0"
    if [ $m = direct ]; then
      grep -q "direct sigma" "$tmp/mpi.out" || fail "$name -np $np: not the direct sigma"
      "$BIN" ci "$f" --cpu-parts $np --method $m --roots $roots --tol 1e-9 >"$tmp/parts.out" 2>&1
    fi
    for k in $(seq 0 $((roots - 1))); do
      e1=$(energy $k "$tmp/one.out") en=$(energy $k "$tmp/mpi.out")
      close_to "$en" "$e1" 1e-10 || fail "$name $m root $k: -np $np $en, one process $e1"
      if [ $m = direct ]; then
        ep=$(energy $k "$tmp/parts.out")
        close_to "$en" "$ep" 1e-10 || fail "$name root $k: -np $np $en, --cpu-parts $np $ep"
      fi
    done
  done
done

# the stored Hamiltonian with each entry once (csr-sym blocks: the upper rows
# over the processes, the diagonal shared, the mirror terms summed in rank
# order over MPI) equals one process's
"$BIN" ci "$DATA/n2_sto3g_d2h.FCIDUMP" --method stored --tol 1e-9 >"$tmp/one.out" 2>&1 || fail "n2 stored one process"
for np in 2 3; do
  mpi $np ci "$DATA/n2_sto3g_d2h.FCIDUMP" --mpi --method stored --format csr-sym --tol 1e-9 >"$tmp/up.out" 2>"$tmp/up.err" ||
    fail "n2 stored once -np $np: exit $? ($(tail -1 "$tmp/up.err"))"
  grep -q "dist upper csr-sym x$np (mpi" "$tmp/up.out" || fail "n2 stored once -np $np: not the upper rows ($(grep '^parts' "$tmp/up.out"))"
  e1=$(energy 0 "$tmp/one.out") en=$(energy 0 "$tmp/up.out")
  close_to "$en" "$e1" 1e-10 || fail "n2 stored once -np $np: $en, one process $e1"
done

mpi 2 ci "$H2O" --mpi --json --tol 1e-9 >"$tmp/j.out" 2>"$tmp/j.err" || fail "--json -np 2: exit $?"
python3 - "$tmp/j.out" "$(energy 0 "$tmp/one.out" 2>/dev/null)" <<'EOF' || fail "--json -np 2: $(head -c 300 "$tmp/j.out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, f"{len(lines)} lines"
d = json.loads(lines[0])
assert d["parts"] == 2 and d["comm"] == "mpi" and d["method"] == "direct", d
assert abs(d["energies"][0] - (-75.0125782412)) < 1e-9, d["energies"]
EOF

LAP=laplace3d:size=10,points=7
"$BIN" solve $LAP --cpu-parts 2 --method cg --precond jacobi --tol 1e-10 >"$tmp/s1.out" 2>&1 || fail "solve --cpu-parts 2: exit $?"
mpi 2 solve $LAP --mpi --method cg --precond jacobi --tol 1e-10 >"$tmp/s2.out" 2>"$tmp/s2.err" ||
  fail "solve -np 2: exit $? ($(tail -1 "$tmp/s2.err"))"
it1=$(sed -n 's/.*converged in \([0-9]*\) iterations.*/\1/p' "$tmp/s1.out")
it2=$(sed -n 's/.*converged in \([0-9]*\) iterations.*/\1/p' "$tmp/s2.out")
[ -n "$it2" ] && [ "$it2" = "$it1" ] || fail "solve -np 2: '$it2' iterations, --cpu-parts 2 '$it1'"
err=$(awk '/converged in/ {print $NF}' "$tmp/s2.out")
close_to "$err" 0 1e-8 || fail "solve -np 2: max |x - 1| = '$err'"
grep -q "^parts 2 over mpi" "$tmp/s2.out" || fail "solve -np 2: not 2 parts over mpi"
"$BIN" solve $LAP --cpu-parts 2 --eigs 2 --tol 1e-7 --maxit 400 >"$tmp/e1.out" 2>&1
mpi 2 solve $LAP --mpi --eigs 2 --tol 1e-7 --maxit 400 >"$tmp/e2.out" 2>&1 || fail "solve --eigs -np 2: exit $?"
for k in 0 1; do
  a=$(awk -v k="$k:" '$1 == "eigenvalue" && $2 == k {print $3}' "$tmp/e1.out")
  b=$(awk -v k="$k:" '$1 == "eigenvalue" && $2 == k {print $3}' "$tmp/e2.out")
  close_to "$b" "$a" 1e-9 || fail "Davidson eigenvalue $k: -np 2 '$b', --cpu-parts 2 '$a'"
done
mpi 3 bench $LAP --mpi --runs 3 >"$tmp/b.out" 2>&1 || fail "bench -np 3: exit $?"
[ "$(grep -c "^spmv: " "$tmp/b.out")" -eq 1 ] || fail "bench -np 3: not one spmv line"

# refuse NAME WANT NP ARGS...: the job's exit WANT, one stderr line "cisparse: ..."
refuse() {
  local name=$1 want=$2 np=$3
  shift 3
  mpi "$np" "$@" >"$tmp/r.out" 2>"$tmp/r.err"
  local rc=$?
  [ $rc -eq "$want" ] || fail "$name: exit $rc (want $want): $(head -3 "$tmp/r.err")"
  [ "$(wc -l <"$tmp/r.err")" -eq 1 ] && grep -q "^cisparse: " "$tmp/r.err" || fail "$name: stderr $(cat "$tmp/r.err")"
}
refuse "ci --mpi --gpus" 2 2 ci "$H2O" --mpi --gpus 2
refuse "ci --mpi --cpu-parts" 2 2 ci "$H2O" --mpi --cpu-parts 2
refuse "solve --mpi --cpu-parts" 2 2 solve $LAP --mpi --cpu-parts 2
refuse "ci --device without --mpi" 2 1 ci "$H2O" --cpu-parts 2 --device cpu
refuse "ci --device tpu" 2 2 ci "$H2O" --mpi --device tpu
refuse "ci --mpi missing file" 1 2 ci "$tmp/missing.FCIDUMP" --mpi
refuse "ci --mpi: more processes than alpha strings" 1 7 ci "$CI/h4_sto3g.FCIDUMP" --mpi --method direct
refuse "ci --json --count" 2 2 ci "$H2O" --mpi --json --count
if ! "$BIN" --version 2>&1 | grep -q "CUDA kernels built"; then
  refuse "ci --mpi --device gpu without CUDA" 1 2 ci "$H2O" --mpi --device gpu
  grep -q -e CUDA -e NCCL "$tmp/r.err" || fail "--device gpu message: $(cat "$tmp/r.err")"
fi
exit $((fails > 0))
