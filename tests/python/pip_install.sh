#!/usr/bin/env bash
# pip_install.sh: `pip install .` from the source tree into a folder of the
# build tree (scikit-build-core runs the project's CMake; its build folder is
# kept there, so a second run is incremental), then the installed package is
# imported from that folder alone and runs a product and a solve.
# Usage: bash pip_install.sh SOURCE_DIR BUILD_DIR VENV_PYTHON CUDA(ON|OFF)
set -u
SRC=$1 BUILD=$2 PY=$3 CUDA=$4
if [ ! -x "$PY" ]; then
  echo "skipped: no virtual environment at ${PY%/bin/python} (make venv, or make test, makes it)"
  exit 77
fi
if ! missing=$("$PY" -c "import numpy, scikit_build_core" 2>&1); then
  echo "skipped: the test environment lacks a package: ${missing##*$'\n'}"
  exit 77
fi
W=$BUILD/pip-test
rm -rf "$W/site"
mkdir -p "$W"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
if ! "$PY" -m pip install --no-build-isolation --no-deps --quiet --target "$W/site" \
     -C build-dir="$W/build" -C cmake.define.CISPARSE_CUDA="$CUDA" "$SRC" > "$W/pip.log" 2>&1; then
  tail -40 "$W/pip.log"; echo "FAIL: pip install ."; exit 1
fi
ls "$W/site/cisparse"
cd "$W" && env -u CISPARSE_LIBRARY PYTHONPATH="$W/site" "$PY" - "$W/site" <<'PYEOF'
import os, sys
import numpy as np
import cisparse
site = os.path.realpath(sys.argv[1])
assert os.path.realpath(cisparse.__file__).startswith(site), cisparse.__file__
assert os.path.realpath(cisparse.library_path).startswith(site), cisparse.library_path
A = cisparse.load("laplace3d:size=10", format="hyb")
x, r = cisparse.solve(A, A.spmv(np.ones(A.shape[1])), M="jacobi", rtol=1e-10)
assert r == 0 and r.converged and np.abs(x - 1).max() < 1e-8, repr(r)
print(f"ok   pip-installed cisparse {cisparse.__version__} (CUDA {cisparse.with_cuda}) from {cisparse.library_path}: "
      f"{r.method} {r.iterations} iterations")
PYEOF
