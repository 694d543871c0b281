#!/usr/bin/env bash
# doc_examples.sh: the shell examples of README.md and docs/*.md marked `cpu`
# run as printed (tests/docs/doc_examples.py: the marker convention, the
# checks); every block of shell examples carries a marker.
# usage: bash doc_examples.sh /path/to/cisparse /path/to/shared   (from the source root)
set -u
command -v python3 > /dev/null || { echo "skipped: no python3"; exit 77; }
[ -d "$2/ci" ] || { echo "skipped: no $2/ci (the examples read ../shared)"; exit 77; }
exec python3 tests/docs/doc_examples.py "$PWD" "$1" "$2"
