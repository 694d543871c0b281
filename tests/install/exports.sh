#!/usr/bin/env bash
# exports.sh: the shared library exports exactly the functions the public
# headers declare (CIS_API), nothing internal.
# Usage: bash exports.sh LIBCISPARSE_SO INCLUDE_DIR
set -u
LIB=$1 INC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# declared: every `CIS_API ... cis_name(` in the public headers
grep -ho 'CIS_API[^(]*\bcis_[A-Za-z0-9_]*[ ]*(' "$INC"/cisparse/*.h |
  sed -E 's/.*\b(cis_[A-Za-z0-9_]*)[ ]*\($/\1/' | sort -u > "$T/declared"
# declared without CIS_API: a function prototype line that lacks the mark
grep -hE '^[a-z_ ]+[ *]cis_[A-Za-z0-9_]+\(' "$INC"/cisparse/*.h | grep -v 'static inline' |
  grep -v '^CIS_API' > "$T/unmarked"
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u > "$T/exported"
fails=0
if [ -s "$T/unmarked" ]; then
  echo "FAIL: public declarations without CIS_API:"; cat "$T/unmarked"; fails=1
fi
missing=$(comm -23 "$T/declared" "$T/exported")
extra=$(comm -13 "$T/declared" "$T/exported" | grep -v '^_' )
[ -n "$missing" ] && { echo "FAIL: declared CIS_API but not exported (does the defining file see the header?):"; echo "$missing"; fails=1; }
[ -n "$extra" ] && { echo "FAIL: exported but not declared in include/cisparse (internal symbols leak):"; echo "$extra"; fails=1; }
echo "$(wc -l < "$T/declared") functions declared, $(wc -l < "$T/exported") exported"
exit $fails
