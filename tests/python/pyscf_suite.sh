#!/usr/bin/env bash
# pyscf_suite.sh: PySCF's own tests with cisparse's solver substituted
# (pyscf_suite.py) in the virtual environment `make venv` makes.
# Usage: bash pyscf_suite.sh SOURCE_DIR VENV_PYTHON LIBCISPARSE OUT_DIR DEVICE
set -u
SRC=$1 PY=$2
if [ ! -x "$PY" ]; then
  echo "skipped: no virtual environment at ${PY%/bin/python} (make venv, or make test, makes it)"
  exit 77
fi
exec "$PY" "$SRC/tests/python/pyscf_suite.py" "$@"
