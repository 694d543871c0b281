#!/usr/bin/env bash
# ci_progress.sh: `cisparse ci` talks while it works. --progress: one line per
# Davidson iteration on stderr in the form `ci --help` documents (iteration,
# total energy in Eh, residual, s/it, ETA), as many as the report's
# iterations, the last energy the report's; the header (space, method,
# memory) before the first of them and the rest of the report after the last
# (stdout and stderr into one file: the header is flushed before the work);
# --quiet and a short run on a non-terminal print none; --json keeps stdout
# one JSON object and puts the header on stderr; --verbose's Davidson lines
# carry the total energy and the seconds of each iteration. The stored H's
# build on the CPU talks too: lines "build pass 1/2 (count) ..." then
# "build pass 2/2 (fill, sort) ...", each pass ending at all its rows, after
# the header's estimate and before the first iteration; none with --quiet,
# none on the direct path.
# usage: bash ci_progress.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
H2O=$2/ci/h2o_sto3g.FCIDUMP
C2=tests/data/ci/c2_sto3g.FCIDUMP
[ -e "$H2O" ] || { echo "skipped: no $H2O"; exit 77; }
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to
# the documented line (ci --help)
LINE='^iteration +[0-9]+  E -?[0-9]+\.[0-9]{10} Eh  residual [0-9]\.[0-9]{2}e[-+][0-9]+  [0-9]+\.[0-9]{3} s/it(  converged [0-9]+/[0-9]+)?(  ETA ~[0-9]+\.[0-9] s)?$'
first() { grep -n -m1 -E "$1" "$2" | cut -d: -f1; }
last() { grep -n -E "$1" "$2" | tail -1 | cut -d: -f1; }

# direct (auto) and stored (--level 2, 2 roots): lines, count, energy, order
for args in "$H2O" "$H2O --level 2 --roots 2"; do
  # shellcheck disable=SC2086
  "$CIS" ci $args --progress > "$tmp/out" 2> "$tmp/err" || { fail "ci $args --progress: exit $?"; continue; }
  n=$(grep -c '^iteration' "$tmp/err")
  bad=$(grep '^iteration' "$tmp/err" | grep -cvE "$LINE")
  it=$(sed -n 's/^davidson  *\([0-9]*\) iterations.*/\1/p' "$tmp/out")
  [ "$n" -gt 0 ] && [ "$n" = "$it" ] || fail "ci $args: $n progress lines, $it iterations"
  [ "$bad" = 0 ] || fail "ci $args: lines not of the documented form: $(grep '^iteration' "$tmp/err" | grep -vE "$LINE")"
  e_last=$(grep '^iteration' "$tmp/err" | tail -1 | awk '{print $4}')
  e_root=$(sed -n 's/^root 0 *E = \(-[0-9.]*\) Eh.*/\1/p' "$tmp/out")
  awk -v a="$e_last" -v b="$e_root" 'BEGIN { d = a - b; exit !(a != "" && (d < 0 ? -d : d) < 1e-9) }' \
    || fail "ci $args: last progress energy '$e_last', root 0 '$e_root' (core energy included in both)"
  grep -q '^root 0 .*E = -[0-9.]* Eh   E_corr = -[0-9.]* Eh' "$tmp/out" || fail "ci $args: root line without Eh"
  # order: one file for both streams
  # shellcheck disable=SC2086
  "$CIS" ci $args --progress > "$tmp/both" 2>&1 || fail "ci $args --progress 2>&1: exit $?"
  s=$(first '^space ' "$tmp/both") m=$(first '^method ' "$tmp/both") i1=$(first '^iteration' "$tmp/both")
  i9=$(last '^iteration' "$tmp/both") d=$(first '^davidson ' "$tmp/both") r=$(first '^root 0' "$tmp/both")
  [ -n "$s" ] && [ -n "$m" ] && [ -n "$i1" ] && [ "$s" -lt "$i1" ] && [ "$m" -lt "$i1" ] && [ "$i9" -lt "$d" ] &&
    [ "$d" -lt "$r" ] || fail "ci $args: order space $s method $m, iterations $i1..$i9, davidson $d, root $r"
  # --quiet: none; the report unchanged
  # shellcheck disable=SC2086
  "$CIS" ci $args --quiet > "$tmp/q" 2> "$tmp/qerr" || fail "ci $args --quiet: exit $?"
  grep -qE '^(iteration|build)' "$tmp/qerr" && fail "ci $args --quiet printed progress lines"
  grep -q '^root 0' "$tmp/q" || fail "ci $args --quiet: no report"
done
grep -q '^estimate  .*nonzeros.*MiB' "$tmp/both" || fail "stored header: no estimate line before the build"
grep -A1 '^estimate ' "$tmp/both" | grep -qE '^ +build about [0-9.e+-]+ s ' || fail "stored header: no build time estimate"
e=$(first '^estimate ' "$tmp/both") h=$(first '^hamiltonian ' "$tmp/both") i1=$(first '^iteration' "$tmp/both")
[ -n "$e" ] && [ -n "$h" ] && [ "$e" -lt "$i1" ] && [ "$i1" -lt "$h" ] || fail "stored: estimate $e, iteration $i1, hamiltonian $h"
grep -E '^iteration' "$tmp/both" | grep -qE 'converged [0-9]+/2' || fail "two roots: no 'converged k/2'"
# the build's lines (the stored run above): the documented form, both passes ended, in order
BUILD='^build pass [12]/2 \((count|fill, sort)\)  [0-9]+/[0-9]+ rows \([0-9]+%\)  [0-9.e+]+ nonzeros  [0-9]+\.[0-9] s(  ETA ~[0-9]+\.[0-9] s)?$'
grep -q '^build ' "$tmp/err" || fail "stored --progress: no build lines"
bad=$(grep '^build ' "$tmp/err" | grep -cvE "$BUILD")
[ "$bad" = 0 ] || fail "build lines not of the documented form: $(grep '^build ' "$tmp/err" | grep -vE "$BUILD" | head -2)"
for p in '1/2 (count)' '2/2 (fill, sort)'; do
  grep -F "build pass $p" "$tmp/err" | tail -1 | grep -qE '  ([0-9]+)/\1 rows \(100%\)' || fail "build pass $p does not end at all rows"
done
b1=$(first '^build pass 1/2' "$tmp/both") b9=$(last '^build pass 2/2' "$tmp/both")
[ -n "$b1" ] && [ -n "$b9" ] && [ "$e" -lt "$b1" ] && [ "$b9" -lt "$i1" ] || fail "stored: estimate $e, build lines $b1..$b9, iteration $i1"
"$CIS" ci "$H2O" --progress 2> "$tmp/err" > /dev/null || fail "direct --progress: exit $?"
grep -q '^build ' "$tmp/err" && fail "the direct path printed build lines"
"$CIS" ci "$H2O" --method stored --json --quiet > /dev/null 2> "$tmp/jerr" || fail "stored --json --quiet: exit $?"
[ -s "$tmp/jerr" ] && fail "stored --json --quiet wrote to stderr: $(head -3 "$tmp/jerr")"

# a short run, stderr not a terminal, no --progress: no lines
"$CIS" ci "$H2O" --tol 1e-4 > "$tmp/out" 2> "$tmp/err" || fail "ci default: exit $?"
# (a loaded machine may take past 2 s: then the lines are right to appear)
t=$(sed -n 's/^time .* \([0-9.]*\) s in all.*/\1/p' "$tmp/out")
if awk -v t="$t" 'BEGIN { exit !(t != "" && t < 1.5) }'; then
  grep -q '^iteration' "$tmp/err" && fail "a short run on a non-terminal printed progress lines"
fi

# --json: stdout one JSON object, header and lines on stderr
"$CIS" ci "$C2" --json --progress > "$tmp/j" 2> "$tmp/jerr" || fail "ci --json --progress: exit $?"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j" 2>/dev/null || fail "--json --progress: stdout not one JSON object"
[ "$(first '^space ' "$tmp/jerr")" -lt "$(first '^iteration' "$tmp/jerr")" ] 2>/dev/null || fail "--json: header not on stderr before the lines"
"$CIS" ci "$C2" --json --quiet > "$tmp/j" 2> "$tmp/jerr" || fail "ci --json --quiet: exit $?"
[ -s "$tmp/jerr" ] && fail "--json --quiet wrote to stderr: $(cat "$tmp/jerr")"

# --verbose: Davidson's lines with the total energy and the iteration's seconds
"$CIS" ci "$H2O" --verbose > "$tmp/out" 2> "$tmp/err" || fail "ci --verbose: exit $?"
grep -qE '^davidson +[0-9]+  subspace +[0-9]+  E0 -75\.0125[0-9]+  max residual .*  [0-9]+\.[0-9]{4} s$' "$tmp/err" ||
  fail "--verbose lines without the total energy (-75.0125...) or the seconds: $(grep '^davidson' "$tmp/err" | tail -1)"
grep -q '^iteration' "$tmp/err" && fail "--verbose printed progress lines besides Davidson's own"

# refusals
"$CIS" ci "$H2O" --quiet --progress > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q -- '--quiet cannot be combined' "$tmp/err" || fail "--quiet --progress: not a usage error"

echo "$fails failure(s)"
exit $((fails > 0))
