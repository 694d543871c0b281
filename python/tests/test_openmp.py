"""`import cisparse` takes the tool's OpenMP rules (issue 41 item 3): passive
waits unless the user chose a policy, set before libcisparse loads its
OpenMP runtime (and read by it: libgomp's GOMP_SPINCOUNT is then 0), a
RuntimeWarning where an OpenMP runtime was loaded first (libgomp itself, or
a wheel's renamed copy as PySCF's, which then spins), and the importing thread's
thread count capped at cis_cpu_limit() unless OMP_NUM_THREADS is set. Each
case runs in a fresh interpreter (this one imported cisparse already)."""
import ast
import ctypes
import os
import subprocess
import sys

import pytest

REPORT = """
import ctypes, os, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import cisparse
from cisparse import _lib
print(repr((os.environ.get("OMP_WAIT_POLICY"), _lib.lib.omp_get_max_threads(), _lib.lib.cis_cpu_limit(),
            [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)])))
"""


def fresh(env_changes, before=""):
    """(policy, threads, cpu limit, RuntimeWarnings, stderr) of a fresh
    `import cisparse` after `before`, in this environment changed by
    env_changes (None removes a variable), with OMP_DISPLAY_ENV=verbose."""
    env = dict(os.environ, OMP_DISPLAY_ENV="verbose")
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    out = subprocess.run([sys.executable, "-c", before + REPORT], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return (*ast.literal_eval(out.stdout.strip().splitlines()[-1]), out.stderr)


def spincount(stderr):
    """libgomp's spin count as its OMP_DISPLAY_ENV=verbose prints it (None
    for another OpenMP runtime)."""
    for line in stderr.splitlines():
        if "GOMP_SPINCOUNT" in line:
            return line.split("=")[1].strip().strip("'")
    return None


def test_import_sets_passive_waits_when_unset():
    policy, _, _, warned, stderr = fresh({"OMP_WAIT_POLICY": None})

    assert policy == "passive" and warned == []
    assert spincount(stderr) in ("0", None), stderr  # libgomp read it: no spinning


@pytest.mark.parametrize("value", ["active", "PASSIVE", ""])
def test_user_wait_policy_respected(value):
    policy, _, _, warned, stderr = fresh({"OMP_WAIT_POLICY": value})

    assert policy == value and warned == []
    if value == "active":
        assert spincount(stderr) != "0", stderr


def test_libgomp_loaded_first_warns_and_leaves_the_environment():
    try:
        ctypes.CDLL("libgomp.so.1")
    except OSError:
        pytest.skip("no libgomp.so.1 to load first")

    policy, _, _, warned, stderr = fresh({"OMP_WAIT_POLICY": None}, "import ctypes; ctypes.CDLL('libgomp.so.1')\n")

    assert policy is None, "the environment must not claim a policy the runtime did not take"
    assert len(warned) == 1 and "OMP_WAIT_POLICY=passive" in warned[0]
    assert spincount(stderr) != "0"


def test_pyscf_loaded_first_warns_and_ours_waits_passively():
    pytest.importorskip("pyscf", reason="PySCF is not installed")

    policy, _, _, warned, stderr = fresh({"OMP_WAIT_POLICY": None}, "import pyscf.lib\n")

    counts = [line.split("=")[1].strip() for line in stderr.splitlines() if "GOMP_SPINCOUNT" in line]
    if len(counts) != 2:
        pytest.skip(f"this PySCF does not carry its own libgomp ({len(counts)} runtimes started)")
    assert policy == "passive"
    assert len(warned) == 1 and "import cisparse before" in warned[0]
    assert counts == ["'300000'", "'0'"], stderr  # PySCF's spins (the default); libcisparse's waits passively


def test_threads_capped_unless_omp_num_threads():
    _, threads, limit, _, _ = fresh({"OMP_NUM_THREADS": None})
    assert threads == limit >= 1

    _, threads, _, _, _ = fresh({"OMP_NUM_THREADS": str(limit + 3)})
    assert threads == limit + 3
