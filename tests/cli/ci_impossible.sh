#!/usr/bin/env bash
# ci_impossible.sh: requests that cannot succeed, or would take hours for
# nothing, are refused at once with one line (issue 26): a stored build over
# a file of all-zero integrals (it passes the memory check: about 0 nonzeros,
# yet visits every connection of every row), roots beyond the space and
# roots of a spin beyond the states of that spin (closed-form counts); a
# small all-zero file is still solved (E = ECORE).
# usage: bash ci_impossible.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to

# zero_fcidump NORB NELEC ORBSYM_PATTERN FILE: every integral zero, ECORE 0.5
zero_fcidump() {
  local orbsym
  orbsym=$(awk -v n="$1" -v p="$3" 'BEGIN { split(p, s, ","); for (i = 0; i < n; i++) printf "%s%s", (i ? "," : ""), s[i % length(s) + 1] }')
  printf ' &FCI NORB=%d,NELEC=%d,MS2=0,\n  ORBSYM=%s,\n  ISYM=1,\n &END\n  0.5  0 0 0 0\n' "$1" "$2" "$orbsym" > "$4"
}

# refused_fast NAME SECONDS PATTERN ARGS...: exit 1 within SECONDS, one line matching PATTERN
refused_fast() {
  local name=$1 limit=$2 pattern=$3 rc
  shift 3
  timeout "$limit" "$CIS" ci "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc = 124 ]; then fail "$name: still running after $limit s"; return; fi
  [ $rc = 1 ] || fail "$name: exit $rc, expected 1 ($(cat "$tmp/err"))"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$name: not one line: $(cat "$tmp/err")"
  grep -q "$pattern" "$tmp/err" || fail "$name: message '$(cat "$tmp/err")' lacks '$pattern'"
}

# 16 orbitals in two irreps, 8 electrons, --method stored (auto goes
# direct); before, the build visited 5e9 connections for 0 nonzeros (minutes).
zero_fcidump 16 8 1,2 "$tmp/zero_sym.FCIDUMP"
refused_fast "all-zero, D2 irreps" 60 "integrals are (almost) all zero; use the direct method" "$tmp/zero_sym.FCIDUMP" \
  --method stored
# C1, --method stored: 3.3e6 determinants x 3193 connections, 0 nonzeros
zero_fcidump 16 8 1 "$tmp/zero_c1.FCIDUMP"
refused_fast "all-zero, C1 stored" 60 "would visit 1.06e+10 connections (3312400 determinants x 3193)" \
  "$tmp/zero_c1.FCIDUMP" --method stored
# the same file with the direct method: nothing is built (not refused;
# checked on a smaller one to keep the test short)
zero_fcidump 8 4 1 "$tmp/zero_small.FCIDUMP"
for m in direct stored auto; do
  timeout 120 "$CIS" ci "$tmp/zero_small.FCIDUMP" --method $m > "$tmp/out" 2> "$tmp/err" ||
    fail "all-zero 8 orbitals --method $m: exit $? ($(cat "$tmp/err"))"
  grep -q "E = 0.5000000000" "$tmp/out" || fail "all-zero 8 orbitals --method $m: E != ECORE: $(grep root "$tmp/out")"
done

# roots beyond the space: refused before any build, for every method
H4=$SHARED/ci/h4_sto3g.FCIDUMP
if [ -r "$H4" ]; then
  for m in direct stored auto; do
    refused_fast "roots beyond full CI ($m)" 30 "40 roots asked; the space has 36 determinants" "$H4" --roots 40 --method $m
  done
  refused_fast "roots beyond the reference" 30 "2 roots asked; the space has 1 determinants" "$H4" --level 0 --roots 2
  # 4 electrons in 4 orbitals: one quintet (closed form: 1 determinant of MS = 2, 0 of MS = 3);
  # before, 36 roots were computed (seconds), then "only 1 root(s) of spin S=2"
  for m in direct stored; do
    refused_fast "roots beyond the spin-S states ($m)" 5 "holds only 1 state(s) of spin S = 2 (1 determinants of MS = S minus 0" \
      "$H4" --spin 2 --roots 3 --method $m
  done
else
  echo "note: $H4 not found, roots-beyond-space cases skipped"
fi

if [ $fails = 0 ]; then echo "ci_impossible: all passed"; else echo "ci_impossible: $fails failure(s)"; fi
[ $fails = 0 ]
