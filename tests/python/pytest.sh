#!/usr/bin/env bash
# pytest.sh: the Python tests (python/tests) on the build tree's library, in
# the virtual environment `make venv` makes (numpy, scipy, pytest).
# Usage: bash pytest.sh SOURCE_DIR VENV_PYTHON LIBCISPARSE CISPARSE_TOOL
set -u
SRC=$1 PY=$2 LIB=$3 CLI=$4
if [ ! -x "$PY" ]; then
  echo "skipped: no virtual environment at ${PY%/bin/python} (make venv, or make test, makes it)"
  exit 77
fi
if ! missing=$("$PY" -c "import numpy, scipy, pytest" 2>&1); then
  echo "skipped: the test environment lacks a package: ${missing##*$'\n'}"
  exit 77
fi
export CISPARSE_LIBRARY=$LIB CISPARSE_CLI=$CLI PYTHONPATH=$SRC/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONFAULTHANDLER=1  # a crash in the library names the Python line that called it
cd "$SRC" && exec "$PY" -m pytest -p no:cacheprovider -q -rs python/tests
