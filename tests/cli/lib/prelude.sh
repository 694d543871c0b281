# prelude.sh: what the CLI test scripts share (sourced; tests/cli/*.sh are
# the tests, this folder is not globbed by tests/CMakeLists.txt):
#   fails   the failure count the script exits with
#   tmp     a scratch folder, removed on exit
#   fail    MESSAGE: print "FAIL: MESSAGE" and count it
#   close_to A B TOL: true when |A - B| < TOL (A not empty)
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < t) }'; }
