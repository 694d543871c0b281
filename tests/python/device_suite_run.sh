#!/usr/bin/env bash
# device_suite_run.sh: PySCF's own tests with cisparse's solver (pyscf_suite.py) on an
# offline machine, from the kit that device_suite_kit.sh makes.
#
#   usage: bash tests/python/device_suite_run.sh KIT LIBCISPARSE OUT_DIR [DEVICE [JOBS]]
#     KIT          pyscf-suite-kit.tar.xz (device_suite_kit.sh)
#     LIBCISPARSE  the library to test (a CUDA build for DEVICE gpu)
#     DEVICE       gpu (default) or cpu;  JOBS: modules side by side (default 2)
#   $PYTHON: the Python 3.12 to use (default python3; it must have NumPy, SciPy, h5py)
#   $CISPARSE_PYSCF_SUITE: the suite's folder (default .devshared/shared/pyscf-suite of
#   this tree, where the device carry puts a copy of ../shared/pyscf-suite)
#   $KIT_DIR: where the kit is unpacked (default /tmp/pyscf-suite-kit)
#
# Unpacks the kit, installs its wheels (pytest, pytest-timeout) into its site folder with
# `pip install --no-index --find-links` (or unzips them where the Python has no pip),
# puts that folder on PYTHONPATH and runs pyscf_suite.py; its exit status is this one's
# (0 pass, 1 fail, 77 skipped). Nothing is fetched from the network.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
kit=$(realpath "${1:?usage: $0 KIT LIBCISPARSE OUT_DIR [DEVICE [JOBS]]}")
lib=$(realpath "${2:?usage: $0 KIT LIBCISPARSE OUT_DIR [DEVICE [JOBS]]}")
out=$(realpath -m "${3:?usage: $0 KIT LIBCISPARSE OUT_DIR [DEVICE [JOBS]]}")
device=${4:-gpu} jobs=${5:-2}
src=$(cd "$(dirname "$0")/../.." && pwd)
py=$(command -v "${PYTHON:-python3}") || { echo "error: no ${PYTHON:-python3} on PATH" >&2; exit 1; }
dir=${KIT_DIR:-/tmp/pyscf-suite-kit}
export CISPARSE_PYSCF_SUITE=${CISPARSE_PYSCF_SUITE:-$src/.devshared/shared/pyscf-suite}
[ -f "$CISPARSE_PYSCF_SUITE/run.py" ] || { echo "error: no PySCF suite at $CISPARSE_PYSCF_SUITE" >&2; exit 1; }

rm -rf "$dir" && mkdir -p "$dir"
tar xJf "$kit" -C "$dir"
if "$py" -m pip --version >/dev/null 2>&1; then
  "$py" -m pip install -q --no-index --find-links "$dir/wheels" --target "$dir/site" pytest pytest-timeout
else  # pure-Python wheels: unpacking one into a folder on sys.path installs it
  for w in "$dir"/wheels/*.whl; do "$py" -m zipfile -e "$w" "$dir/site"; done
fi
export PYTHONPATH="$dir/site${PYTHONPATH:+:$PYTHONPATH}"
missing=$("$py" -c "
import importlib.util as u
print(' '.join(m for m in ('numpy', 'scipy', 'h5py', 'pytest', 'pytest_timeout', 'pyscf') if u.find_spec(m) is None))")
[ -z "$missing" ] || { echo "error: $py lacks $missing (NumPy, SciPy and h5py are not in the kit: the machine's own)" >&2; exit 1; }
"$py" -c "import pyscf, pyscf.dft; print('PySCF', pyscf.__version__, 'and its libxc load from', pyscf.__path__[0])"
exec "$py" "$src/tests/python/pyscf_suite.py" "$src" "$py" "$lib" "$out" "$device" "$jobs"
