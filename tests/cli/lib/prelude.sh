# prelude.sh: what the CLI test scripts share (sourced; tests/cli/*.sh are
# the tests, this folder is not globbed by tests/CMakeLists.txt):
#   fails   the failure count the script exits with
#   tmp     a scratch folder, removed on exit
#   fail    MESSAGE: print "FAIL: MESSAGE" and count it
#   close_to A B TOL: true when |A - B| < TOL (A not empty)
#   need_mpi BIN FILE: sets MPIRUN (MPIRUN overrides); skips the script
#           (77) when BIN was built without MPI (after checking that --mpi
#           is refused in one line, exit 1) or no mpirun is on the PATH
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < t) }'; }
need_mpi() {
  local rc
  "$1" ci "$2" --mpi </dev/null >"$tmp/no.out" 2>"$tmp/no.err"
  rc=$?
  if grep -q "built without MPI" "$tmp/no.err"; then
    [ $rc -eq 1 ] || fail "--mpi without MPI: exit $rc, want 1"
    [ "$(wc -l <"$tmp/no.err")" -eq 1 ] && grep -q "^cisparse: " "$tmp/no.err" || fail "--mpi without MPI: $(cat "$tmp/no.err")"
    [ $fails -eq 0 ] || exit 1
    echo "SKIP: cisparse was built without MPI (--mpi refused as it should be)"
    exit 77
  fi
  MPIRUN=${MPIRUN:-$(command -v mpirun || command -v mpiexec || true)}
  if [ -z "$MPIRUN" ]; then
    echo "SKIP: no mpirun or mpiexec on the PATH (Debian: apt-get install mpich; make test installs it where it can)"
    exit 77
  fi
}
