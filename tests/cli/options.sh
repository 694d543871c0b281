#!/usr/bin/env bash
# options.sh: the library's tuning options reach the tool through their
# environment variables (CISPARSE_<NAME>, read once at start by
# cis_options_from_env): a bad value or a value out of range is refused in
# one line naming the variable, exit 1, before any work; a good one runs.
# usage: bash options.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail
H2O=$SHARED/ci/h2o_sto3g.FCIDUMP
for bad in "CISPARSE_SIGMA=fast" "CISPARSE_HYB_G=64" "CISPARSE_DIST_RESPLIT=" ; do
  var=${bad%%=*}
  env "$bad" "$CIS" ci "$H2O" > "$tmp/out" 2> "$tmp/err"; rc=$?
  if [ -z "${bad#*=}" ]; then # empty: the default, as unset
    [ $rc = 0 ] || fail "$bad (empty) refused: $(cat "$tmp/err")"
    continue
  fi
  [ $rc = 1 ] || fail "$bad: exit $rc, want 1"
  [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "$var" "$tmp/err" || fail "$bad: message $(cat "$tmp/err")"
  [ -s "$tmp/out" ] && fail "$bad: output before the refusal: $(head -2 "$tmp/out")"
done
CISPARSE_SIGMA=unfused CISPARSE_HALF_SCATTER=all "$CIS" ci "$H2O" > "$tmp/out" 2> "$tmp/err" || fail "good options: $(cat "$tmp/err")"
grep -q "^root 0 .*E = -75.01257824" "$tmp/out" || fail "good options: $(grep root "$tmp/out")"
echo "options.sh: $fails failure(s)"
exit $((fails > 0))
