#!/usr/bin/env bash
# ci_strings.sh: `cisparse ci FILE --strings SETS` (selected CI in string
# sets): every string of each spin gives the full-CI energies and <S^2>; a
# subset that holds the aufbau determinant lies between full CI and E_RHF
# (variational), with the sets' sizes in --json; malformed string files,
# wrong electron counts and options that do not apply are refused in one
# line, exit 1 (2 for usage), nothing on stdout.
# usage: bash ci_strings.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail
H2O=$SHARED/ci/h2o_sto3g.FCIDUMP # 7 orbitals, 5 alpha, 5 beta
# every 5-electron string of 7 orbitals, in decimal, hex and binary by turns
n=0
: > "$tmp/all"
for ((x = 0; x < 128; ++x)); do
  b=0; for ((p = 0; p < 7; ++p)); do b=$((b + ((x >> p) & 1))); done
  [ $b = 5 ] || continue
  case $((n % 3)) in
    0) echo "ab $x" ;;
    1) printf 'ab 0x%x\n' $x ;;
    2) echo "ab 0b$(echo "obase=2; $x" | bc)" ;;
  esac >> "$tmp/all"
  n=$((n + 1))
done
[ $n = 21 ] || fail "expected 21 strings, made $n"
"$CIS" ci "$H2O" --roots 2 > "$tmp/fci" 2> "$tmp/err" || fail "full CI: $(cat "$tmp/err")"
"$CIS" ci "$H2O" --roots 2 --strings "$tmp/all" > "$tmp/sci" 2> "$tmp/err" || fail "full sets: $(cat "$tmp/err")"
for k in 0 1; do
  f=$(grep "^root $k " "$tmp/fci" | sed 's/.*E = \([-0-9.]*\).*S = \([0-9.]*\).*/\1 \2/')
  s=$(grep "^root $k " "$tmp/sci" | sed 's/.*E = \([-0-9.]*\).*S = \([0-9.]*\).*/\1 \2/')
  [ -n "$f" ] && [ "$f" = "$s" ] || fail "root $k: full sets '$s', full CI '$f'"
done
grep -q "^space  *selected CI: 441 determinants from 21 alpha x 21 beta" "$tmp/sci" || fail "space line: $(grep space "$tmp/sci")"
# a subset with the aufbau determinant (orbitals 1-5: 31), repeats and a comment
printf '# a subset\nab 31\nab 31\na 47\na 55\nb 59\nab 79 # with a comment\nb 0x6b\n\n' > "$tmp/sub"
"$CIS" ci "$H2O" --strings "$tmp/sub" --json > "$tmp/json" 2> "$tmp/err" || fail "subset: $(cat "$tmp/err")"
python3 - "$tmp/json" "$tmp/fci" <<'PY' || fail "subset json"
import json, re, sys
r = json.load(open(sys.argv[1]))
efci = float(re.search(r"^root 0 .*E = ([-0-9.]+)", open(sys.argv[2]).read(), re.M).group(1))
e = r["roots"][0]["energy"]
assert r["method"] == "selected" and r["alpha_strings"] == 4 and r["beta_strings"] == 4 and r["determinants"] == 16, r
assert efci - 1e-9 <= e <= r["e_rhf"] + 1e-9, (efci, e, r["e_rhf"])
PY
# refusals: one line on stderr, nothing on stdout
refuse() { # want-rc what args...
  local want=$1 what=$2; shift 2
  "$CIS" ci "$H2O" "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
  [ $rc = "$want" ] || fail "$what: exit $rc, want $want ($(cat "$tmp/err"))"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$what: not one line: $(cat "$tmp/err")"
  [ -s "$tmp/out" ] && fail "$what: output: $(head -2 "$tmp/out")"
}
printf 'ab 31\nc 47\n' > "$tmp/b1"; refuse 1 "unknown tag" --strings "$tmp/b1"
printf 'a 31\n' > "$tmp/b2"; refuse 1 "no beta string" --strings "$tmp/b2"
printf 'ab 15\n' > "$tmp/b3"; refuse 1 "four electrons" --strings "$tmp/b3"
printf 'ab thirty\n' > "$tmp/b4"; refuse 1 "not a number" --strings "$tmp/b4"
printf 'ab 18446744073709551616\n' > "$tmp/b5"; refuse 1 "above 64 bits" --strings "$tmp/b5"
printf 'ab 31 47\n' > "$tmp/b6"; refuse 1 "two numbers" --strings "$tmp/b6"
printf 'ab 159\n' > "$tmp/b7"; refuse 1 "orbital 8 of 7" --strings "$tmp/b7"
refuse 1 "no such file" --strings "$tmp/none"
refuse 2 "--level" --strings "$tmp/sub" --level 2
refuse 2 "--device gpu" --strings "$tmp/sub" --device gpu
echo "ci_strings.sh: $fails failure(s)"
exit $((fails > 0))
