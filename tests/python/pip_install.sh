#!/usr/bin/env bash
# pip_install.sh: `pip install .` from the source tree into a folder of the
# build tree (scikit-build-core runs the project's CMake; its build folder is
# kept there, so a second run is incremental), then the installed package is
# imported from that folder alone and runs a product and a solve. The CUDA
# choice: the environment variable CISPARSE_CUDA=OFF is honoured and said
# ("cisparse: building without CUDA (CISPARSE_CUDA=OFF)"); on a machine
# without an NVIDIA GPU the default (AUTO) builds no CUDA and says why (no
# GPU found, how to force it). With a GPU the default would compile the
# kernels for minutes: only the OFF build runs there.
# Usage: bash pip_install.sh SOURCE_DIR BUILD_DIR VENV_PYTHON
set -u
SRC=$1 BUILD=$2 PY=$3
if [ ! -x "$PY" ]; then
  echo "skipped: no virtual environment at ${PY%/bin/python} (make venv, or make test, makes it)"
  exit 77
fi
if ! missing=$("$PY" -c "import numpy, scikit_build_core" 2>&1); then
  echo "skipped: the test environment lacks a package: ${missing##*$'\n'}"
  exit 77
fi
W=$BUILD/pip-test
mkdir -p "$W"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
# pip_into [env arguments]: pip install . into $W/site with that environment (-v: CMake's lines in $W/pip.log)
pip_into() {
  rm -rf "$W/site"
  if ! env "$@" "$PY" -m pip install -v --no-build-isolation --no-deps --target "$W/site" -C build-dir="$W/build" \
       "$SRC" > "$W/pip.log" 2>&1; then
    tail -40 "$W/pip.log"; echo "FAIL: pip install . ($*)"; exit 1
  fi
}
# said LINE: the build printed LINE
said() { grep -qF "$1" "$W/pip.log" || { grep -F "cisparse: building" "$W/pip.log"; echo "FAIL: pip install . did not say '$1'"; exit 1; }; }

pip_into CISPARSE_CUDA=OFF
said "cisparse: building without CUDA (CISPARSE_CUDA=OFF)"
if ls /dev/nvidia[0-9]* /proc/driver/nvidia/gpus/* > /dev/null 2>&1 || nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
  echo "note: an NVIDIA GPU is present: the default build (CUDA kernels) is not run here"
else
  pip_into -u CISPARSE_CUDA
  said "cisparse: building without CUDA (no GPU found; set CISPARSE_CUDA=ON to force)"
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
assert not cisparse.with_cuda, "built without CUDA, but cisparse.with_cuda is true"
print(f"ok   pip-installed cisparse {cisparse.__version__} (CUDA {cisparse.with_cuda}) from {cisparse.library_path}: "
      f"{r.method} {r.iterations} iterations")
PYEOF
