#!/usr/bin/env bash
# bad_input.sh CISPARSE SHARED_DIR: `cisparse info FILE` on every fixture in
# tests/data/bad/ (listed in EXPECTED.tsv with the text its error must hold)
# exits 1 with exactly one stderr line "cisparse: ...FILE...: problem".
set -u
cli=$1
dir=tests/data/bad
err=$(mktemp)
trap 'rm -f "$err"' EXIT
fail=0 n=0
while IFS=$'\t' read -r file code text; do
  case "$file" in '#'* | '') continue ;; esac
  n=$((n + 1))
  "$cli" info "$dir/$file" >/dev/null 2>"$err" </dev/null
  rc=$?
  lines=$(wc -l <"$err")
  first=$(head -n 1 "$err")
  problem=""
  [ "$rc" -eq 1 ] || problem="exit status $rc, expected 1"
  [ "$lines" -eq 1 ] || problem="$problem; $lines stderr lines, expected 1"
  case "$first" in "cisparse: "*) ;; *) problem="$problem; stderr does not start with 'cisparse: '" ;; esac
  case "$first" in *"$dir/$file"*) ;; *) problem="$problem; stderr does not name $dir/$file" ;; esac
  case "$first" in *"$text"*) ;; *) problem="$problem; stderr lacks '$text'" ;; esac
  if [ -n "$problem" ]; then
    echo "FAIL $file ($code): ${problem#; }"
    sed 's/^/    stderr: /' "$err"
    fail=$((fail + 1))
  fi
done <"$dir/EXPECTED.tsv"
echo "bad_input: $n fixtures, $fail failures"
[ "$n" -ge 30 ] && [ "$fail" -eq 0 ]
