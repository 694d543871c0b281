#!/usr/bin/env bash
# ci_words_overhead.sh: does the two-word-capable build slow the <= 64-orbital
# path? The same FCIDUMPs through two cisparse binaries (before and after),
# interleaved run by run, the stored Hamiltonian build time (--json
# build_seconds) and the whole run (total_seconds) of each; medians printed.
# usage: bash bench/ci_words_overhead.sh BEFORE/cisparse AFTER/cisparse RUNS [FILE:LEVEL ...]
set -eu
A=$1 B=$2 RUNS=$3
shift 3
CASES=${*:-../shared/ci/h2o_631g.FCIDUMP:2 ../shared/ci/h2o_631g.FCIDUMP:3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
field() { tr ',' '\n' < "$1" | grep "\"$2\"" | head -1 | sed 's/.*: *//'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in $CASES; do
  f=${c%:*} l=${c##*:}
  : > "$tmp/a.build"; : > "$tmp/b.build"; : > "$tmp/a.total"; : > "$tmp/b.total"
  for r in $(seq "$RUNS"); do
    for side in a b; do
      bin=$A; [ $side = b ] && bin=$B
      "$bin" ci "$f" --level "$l" --json > "$tmp/out.json"
      field "$tmp/out.json" build_seconds >> "$tmp/$side.build"
      field "$tmp/out.json" total_seconds >> "$tmp/$side.total"
      e=$(sed 's/.*"roots": \[{"energy": *\([-0-9.eE+]*\).*/\1/' "$tmp/out.json")
      echo "$(basename "$f") level $l run $r $side: build $(tail -1 "$tmp/$side.build") s total $(tail -1 "$tmp/$side.total") s E $e"
    done
  done
  ba=$(median < "$tmp/a.build") bb=$(median < "$tmp/b.build") ta=$(median < "$tmp/a.total") tb=$(median < "$tmp/b.total")
  echo "SUMMARY $(basename "$f") level $l, $RUNS runs each: build median before $ba s after $bb s ($(awk -v a="$ba" -v b="$bb" 'BEGIN { printf "%+.1f%%", 100 * (b - a) / a }')); total median before $ta s after $tb s ($(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%+.1f%%", 100 * (b - a) / a }'))"
  echo "  build before: $(sort -g "$tmp/a.build" | tr '\n' ' ')"
  echo "  build after:  $(sort -g "$tmp/b.build" | tr '\n' ' ')"
done
