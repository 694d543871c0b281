#!/usr/bin/env bash
# exports.sh: libcisparse.so exports the public C API alone (cis_*; the
# version script cmake/libcisparse.map): no internal function, and none of
# the compiler's own globals (OpenMP's named critical sections' locks,
# .gomp_critical_user_*, were three leaks before); at most CIS_MAX_EXPORTS
# (default 180) functions (issue 42 item 5: 291 before 0.3).
# usage: bash exports.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail
LIB=$(dirname "$CIS")/libcisparse.so
command -v nm > /dev/null || { echo "SKIP: no nm"; exit 77; }
[ -e "$LIB" ] || { echo "SKIP: no $LIB (static build)"; exit 77; }
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' > "$tmp/all"
[ -s "$tmp/all" ] || fail "nm found no exported symbol in $LIB"
grep -v '^cis_' "$tmp/all" > "$tmp/other"
[ -s "$tmp/other" ] && fail "exported beside the C API: $(head -5 "$tmp/other" | tr '\n' ' ')"
grep -q '^cis_ci_solve$' "$tmp/all" || fail "cis_ci_solve is not exported"
max=${CIS_MAX_EXPORTS:-180}
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TW]$/ { print $3 }' > "$tmp/functions"
nfun=$(wc -l < "$tmp/functions")
[ "$nfun" -le "$max" ] || fail "$nfun functions exported, more than $max: internals belong off cis_ in src/ headers"
echo "exports.sh: $(wc -l < "$tmp/all") symbols exported ($nfun functions, at most $max); $fails failure(s)"
exit $((fails > 0))
