#!/usr/bin/env bash
# device_suite_kit.sh: the kit that runs PySCF's own tests with cisparse's solver
# (pyscf_suite.py, CTest python_pyscf_suite_gpu) on a GPU machine with Python 3.12
# (NumPy, SciPy, h5py; CuPy optional) but no PySCF, no pytest and no network.
#
#   usage: bash tests/python/device_suite_kit.sh OUT_DIR     (here, with network; ~2-7 min)
#
# Writes OUT_DIR/pyscf-suite-kit.tar.xz (refused above 45 MB), holding
#   site/    PySCF $KIT_PYSCF (the x86-64 manylinux wheel, unpacked, complete: libxc
#            included, which the suite's 44 pyscf.dft tests need; bytecode left out)
#   wheels/  pytest $KIT_PYTEST, pytest-timeout $KIT_PYTEST_TIMEOUT and their pure-Python
#            dependencies, for `pip install --no-index --find-links wheels`.
# On the device, tests/python/device_suite_run.sh unpacks it, installs the wheels into
# site/ and runs the suite (read its header). Versions: the test environment's.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
out=$(realpath -m "${1:?usage: $0 OUT_DIR}")
pyscf_v=${KIT_PYSCF:-2.14.0} pytest_v=${KIT_PYTEST:-9.2.0} timeout_v=${KIT_PYTEST_TIMEOUT:-2.4.0}
limit=$((45 * 1000 * 1000))
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pip=(python3 -m pip)
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
"${pip[@]}" download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${plat[@]}" \
  -d "$w/pyscf" "pyscf==$pyscf_v"
"${pip[@]}" download -q --only-binary=:all: --python-version 3.12 --implementation py --abi none --platform any \
  -d "$w/kit/wheels" "pytest==$pytest_v" "pytest-timeout==$timeout_v"
"${pip[@]}" install -q --no-deps --no-compile --target "$w/kit/site" "$w"/pyscf/*.whl
test -f "$w/kit/site/pyscf/lib/deps/lib/libxc.so" || { echo "error: the PySCF wheel has no libxc.so" >&2; exit 1; }
find "$w/kit/site" -name __pycache__ -type d -prune -exec rm -rf {} +
mkdir -p "$out"
tar cf - -C "$w/kit" site wheels | nice -n 10 xz -6 -T1 > "$out/pyscf-suite-kit.tar.xz"
size=$(stat -c %s "$out/pyscf-suite-kit.tar.xz")
if [ "$size" -gt "$limit" ]; then
  echo "error: $out/pyscf-suite-kit.tar.xz is $size bytes, over the $limit the device carry allows" >&2
  exit 1
fi
echo "wrote $out/pyscf-suite-kit.tar.xz ($size bytes): PySCF $pyscf_v with libxc; $(ls "$w/kit/wheels" | tr '\n' ' ')"
