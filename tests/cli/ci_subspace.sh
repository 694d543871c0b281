#!/usr/bin/env bash
# ci_subspace.sh: Davidson's subspace in `cisparse ci`: --subspace N is
# honoured (the JSON's "subspace") and gives the same energies as the default
# to 1e-9 for one and three roots, direct and stored; --count with --method
# direct prints the subspace and its vectors; under a small address-space
# limit (ulimit -v) the default subspace is lowered to fit and says so; bad
# values are refused.
# usage: bash ci_subspace.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
CI=$2/ci
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to
energies() { grep -o '"energy": *-\?[0-9.]*' "$1" | sed 's/.*: *//'; }
field() { grep -o "\"$2\": *[0-9a-z]*" "$1" | head -1 | sed 's/.*: *//'; }

for name in n2_sto3g h2o_sto3g; do
  for method in direct stored; do
    for case in "1 6" "3 10"; do
      set -- $case
      r=$1 s=$2
      "$CIS" ci "$CI/$name.FCIDUMP" --method $method --roots $r --tol 1e-9 --json > "$tmp/d" 2> "$tmp/err" \
        || { fail "$name $method roots $r default: $(cat "$tmp/err")"; continue; }
      "$CIS" ci "$CI/$name.FCIDUMP" --method $method --roots $r --tol 1e-9 --subspace $s --json > "$tmp/s" 2> "$tmp/err" \
        || { fail "$name $method roots $r --subspace $s: $(cat "$tmp/err")"; continue; }
      [ "$(field "$tmp/d" subspace)" = 24 ] || fail "$name $method roots $r: default subspace $(field "$tmp/d" subspace), not 24"
      [ "$(field "$tmp/s" subspace)" = "$s" ] || fail "$name $method roots $r: --subspace $s gave $(field "$tmp/s" subspace)"
      paste <(energies "$tmp/d") <(energies "$tmp/s") > "$tmp/e"
      [ "$(wc -l < "$tmp/e")" = "$r" ] || fail "$name $method roots $r: $(wc -l < "$tmp/e") energies"
      while read -r a b; do close_to "$a" "$b" 1e-9 || fail "$name $method roots $r: $a (subspace 24) vs $b (subspace $s)"; done < "$tmp/e"
    done
  done
done

# below room for both alpha <-> beta parities' watches (MS2 = 0: 2 x (roots
# + 2)) the subspace is raised to it, never a parity left unwatched
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --subspace 3 --json > "$tmp/s3" 2> "$tmp/err" || fail "--subspace 3: $(cat "$tmp/err")"
[ "$(field "$tmp/s3" subspace)" = 6 ] || fail "--subspace 3 with one root gave $(field "$tmp/s3" subspace), not 6"

# --count for the direct method: the subspace and its vectors
"$CIS" ci "$CI/h2o_631g.FCIDUMP" --method direct --count > "$tmp/c" 2> "$tmp/err" || fail "direct --count: $(cat "$tmp/err")"
grep -q 'Davidson: subspace 24 for 1 root, its vectors [0-9.]* GiB' "$tmp/c" || fail "direct --count text: $(cat "$tmp/c")"
"$CIS" ci "$CI/h2o_631g.FCIDUMP" --method direct --count --json > "$tmp/cj" 2> "$tmp/err" || fail "direct --count --json"
grep -q '"subspace": 24}' "$tmp/cj" || fail "direct --count json: $(cat "$tmp/cj")"

# a process limit that holds the space but not 24 subspace vectors (13 MB
# each): the default is lowered to fit, and said; an instrumented binary
# (AddressSanitizer reserves terabytes of address space) cannot run under it
if nm -D "$CIS" 2>/dev/null | grep -q __asan_init || ldd "$CIS" 2>/dev/null | grep -q libasan; then
  echo "ci_subspace.sh: the ulimit -v case skipped (sanitizer build)"
else
  (ulimit -v 450000; "$CIS" ci "$CI/h2o_631g.FCIDUMP" --method direct --count) > "$tmp/l" 2> "$tmp/err"
  rc=$?
  if grep -q 'error while loading shared libraries' "$tmp/err"; then # a BLAS or CUDA library reserving more
    echo "ci_subspace.sh: the ulimit -v case skipped (the libraries alone exceed it: $(head -1 "$tmp/err"))"
  else
    [ $rc = 0 ] || fail "direct --count under ulimit -v: $(cat "$tmp/err")"
    sub=$(grep -o 'Davidson: subspace [0-9]*' "$tmp/l" | grep -o '[0-9]*$')
    [ -n "$sub" ] && [ "$sub" -lt 24 ] && [ "$sub" -ge 2 ] || fail "under ulimit -v the subspace is '$sub': $(cat "$tmp/l")"
    grep -q '(lowered to fit)' "$tmp/l" || fail "under ulimit -v: not said to be lowered: $(cat "$tmp/l")"
  fi
fi

for bad in 1 0 5000 x; do
  "$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --subspace $bad > /dev/null 2> "$tmp/err" && fail "--subspace $bad accepted"
  grep -q -- '--subspace' "$tmp/err" || fail "--subspace $bad: message does not name it: $(cat "$tmp/err")"
done

[ $fails = 0 ] && echo "ci_subspace.sh: ok" || echo "ci_subspace.sh: $fails failures"
[ $fails = 0 ]
