#!/usr/bin/env bash
# doc_examples.sh: the shell examples of README.md and docs/*.md marked `cpu`
# run as printed (tests/docs/doc_examples.py: the marker convention, the
# checks); every block of shell examples carries a marker. What the examples
# write (r.json, y.mtx, ...) stays in the run's scratch directory, which is
# removed: nothing is left in the temporary directory or the source root.
# usage: bash doc_examples.sh /path/to/cisparse /path/to/shared   (from the source root)
set -u
command -v python3 > /dev/null || { echo "skipped: no python3"; exit 77; }
[ -d "$2/ci" ] || { echo "skipped: no $2/ci (the examples read ../shared)"; exit 77; }
scratch=$(mktemp -d)
before=$(ls -A)
TMPDIR=$scratch python3 tests/docs/doc_examples.py "$PWD" "$1" "$2"
rc=$?
left=$(ls -A "$scratch")
rm -rf "$scratch"
[ -z "$left" ] || { echo "FAIL: the examples left $left in the temporary directory"; rc=1; }
[ "$(ls -A)" = "$before" ] || { echo "FAIL: the examples wrote into the source root: $(ls -A)"; rc=1; }
exit $rc
