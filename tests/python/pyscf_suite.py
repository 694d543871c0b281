#!/usr/bin/env python3
"""pyscf_suite.py: PySCF's own mcscf/fci tests with cisparse.fci.FCISolver
substituted for PySCF's solvers (the harness in ../shared/pyscf-suite, its
mode b), and a verdict: every test that fails there and passes with PySCF's
own solver (mode a, re-run for those tests only) must be listed, with its
reason, in python/tests/pyscf_suite_expected_failures.txt.

usage: pyscf_suite.py SOURCE_DIR VENV_PYTHON LIBCISPARSE OUT_DIR DEVICE [JOBS]
  DEVICE cpu or gpu: the substituted solvers' device ($CISPARSE_FCI_DEVICE);
  JOBS: modules run side by side (default 2). $CISPARSE_PYSCF_SUITE: the
  suite's folder (default SOURCE_DIR/../shared/pyscf-suite), run from a copy
  in OUT_DIR/harness that passes direct_spin0's singlet rule on (harness_copy).
Exit 0 pass, 1 fail, 77 skipped (no suite, no PySCF 2.14.0 / pytest /
pytest-timeout in VENV_PYTHON, or DEVICE gpu without a usable GPU).
"""
import concurrent.futures
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

SKIP = 77
PYSCF_VERSION = "2.14.0"
SRC_TAG = "src_v2.14.0"
SUITE_ENV = "CISPARSE_PYSCF_SUITE"  # another copy of the suite than ../shared/pyscf-suite


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def env_for(src, lib, device):
    """The suite's environment: this tree's package and library, the device,
    and a per-test limit ($SUITE_TIMEOUT, default 1200 s: the harness's 300 s
    is short on a loaded 2-core machine, where PySCF's own UCASSCF setup took
    longer)."""
    return dict(os.environ, CISPARSE_LIBRARY=lib, CISPARSE_FCI_DEVICE=device,
                SUITE_TIMEOUT=os.environ.get("SUITE_TIMEOUT", "1200"),
                PYTHONPATH=os.pathsep.join(p for p in (os.path.join(src, "python"), os.environ.get("PYTHONPATH")) if p))


def check_environment(py, env, device):
    probe = ("import pytest, pytest_timeout, pyscf, cisparse\n"
             "print(pyscf.__version__, cisparse.gpu_count()[0])")
    r = subprocess.run([py, "-c", probe], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        skip(f"{py} lacks a package the suite needs: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    version, gpus = r.stdout.split()
    if version != PYSCF_VERSION:
        skip(f"the suite is PySCF {PYSCF_VERSION}'s; {py} has PySCF {version}")
    if device == "gpu" and int(gpus) == 0:
        skip("no usable GPU (cisparse.gpu_count() is 0)")


def node_id(suite, classname, name):
    """pytest's node id (path::Class::test) of a junit testcase, the path
    relative to the suite's source folder."""
    parts = classname[len(SRC_TAG) + 1:].split(".") if classname.startswith(SRC_TAG + ".") else classname.split(".")
    for k in range(len(parts), 0, -1):
        path = os.path.join(*parts[:k]) + ".py"
        if os.path.exists(os.path.join(suite, SRC_TAG, path)):
            return "::".join([path, *parts[k:], name])
    return "::".join([classname, name])


def results(suite, xml):
    """{node id: (status, message)} of one module's junit file."""
    out = {}
    for tc in ET.parse(xml).iter("testcase"):
        status, msg = "passed", ""
        for child in tc:
            if child.tag in ("failure", "error", "skipped"):
                status, msg = child.tag, (child.get("message") or "").strip().split("\n")[0][:160]
                break
        out[node_id(suite, tc.get("classname", ""), tc.get("name"))] = (status, msg)
    return out


# The harness's conversion copies a PySCF solver's attributes onto a new
# cisparse.fci.FCISolver, and a direct_spin0 solver (fci.solver(mol,
# singlet=True)) has no attribute that says it is singlet-only: the copy the
# suite runs from says so (FCISolver.singlet), two lines, nothing else changed.
CONVERT_LINE = "        new = cf.FCISolver(mol)\n"
SINGLET_LINES = ("        if isinstance(old, (direct_spin0.FCISolver, direct_spin0_symm.FCISolver)):\n"
                 "            new.singlet = True  # direct_spin0: singlet-only roots (added by cisparse's CTest)\n")


def harness_copy(suite, out):
    """OUT/harness: run.py, modules.txt and cisparse_sub.py of the suite (the
    latter with SINGLET_LINES after CONVERT_LINE), the test sources linked."""
    dst = os.path.join(out, "harness")
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(suite):
        src, to = os.path.join(suite, name), os.path.join(dst, name)
        if os.path.lexists(to):
            os.remove(to) if not os.path.isdir(to) or os.path.islink(to) else None
        if os.path.isdir(src):
            if not os.path.lexists(to):
                os.symlink(src, to)
            continue
        text = open(src).read()
        if name == "cisparse_sub.py":
            if CONVERT_LINE not in text:
                print(f"note: {src} has no line {CONVERT_LINE.strip()!r}: run unchanged (singlet solvers not said)")
            elif SINGLET_LINES not in text:
                text = text.replace(CONVERT_LINE, CONVERT_LINE + SINGLET_LINES, 1)
        with open(to, "w") as f:
            f.write(text)
    return dst


def run_mode_b(suite, py, env, out, modules, jobs):
    """run.py's mode b, one module per call, `jobs` calls side by side (each
    worker takes the next module when its last one ends)."""
    envb = dict(env, SUITE_PYTHON=py, SUITE_OUT=out)
    run = lambda mod: subprocess.call([py, os.path.join(suite, "run.py"), "run", "b", mod], env=envb)  # noqa: E731
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(run, modules))


def passes_with_pyscf(suite, py, env, ids):
    """The ids (path::Class::test) that pass in mode a (PySCF's own solver)."""
    if not ids:
        return set()
    xml = os.path.join(env["SUITE_OUT"], "a_recheck.xml")
    enva = dict(env, SUITE_MODE="a", OMP_NUM_THREADS="2", PYTHONDONTWRITEBYTECODE="1",
                PYTHONPATH=os.pathsep.join((suite, env["PYTHONPATH"])))
    subprocess.call([py, "-m", "pytest", *[os.path.join(SRC_TAG, i) for i in ids], "-p", "no:cacheprovider", "-p",
                     "cisparse_sub", "--import-mode=importlib", "--timeout=" + env["SUITE_TIMEOUT"], "--junitxml=" + xml, "-q"],
                    cwd=suite, env=enva, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    if not os.path.exists(xml):
        return set()
    return {k for k, (st, _) in results(suite, xml).items() if st == "passed"}


def expected_failures(path):
    """{node id: reason} of the listed tests (`path::Class::test  reason`)."""
    out = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            nid, _, reason = line.partition(" ")
            if not reason.strip():
                sys.exit(f"{path}: {nid} is listed without a reason")
            out[nid] = reason.strip()
    return out


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    src, py, lib, out, device = sys.argv[1:6]
    jobs = int(sys.argv[6]) if len(sys.argv) == 7 else 2
    suite = os.environ.get(SUITE_ENV) or os.path.normpath(os.path.join(src, "..", "shared", "pyscf-suite"))
    if not os.path.exists(os.path.join(suite, "run.py")):
        skip(f"no PySCF test suite at {suite}")
    if not os.access(py, os.X_OK):
        skip(f"no virtual environment at {py} (make venv, or make test, makes it)")
    env = env_for(src, lib, device)
    check_environment(py, env, device)
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    env["SUITE_OUT"] = out
    suite = harness_copy(suite, out)
    modules = [m.strip() for m in open(os.path.join(suite, "modules.txt")) if m.strip()]
    t0 = time.time()
    run_mode_b(suite, py, env, out, sorted(modules, key=lambda m: "/mcscf/" not in m), jobs)  # CASSCF's longest first
    failed, total, passed, missing = {}, 0, 0, []
    for mod in modules:
        tag = mod.replace(SRC_TAG + "/", "").replace("/test/", "_").replace(".py", "").replace("/", "_")
        xml = os.path.join(out, "b", tag + ".xml")
        if not os.path.exists(xml):
            missing.append(mod)
            continue
        for k, (st, msg) in results(suite, xml).items():
            total += 1
            passed += st == "passed"
            if st in ("failure", "error"):
                failed[k] = msg
    print(f"mode b ({device}): {passed}/{total} passed in {time.time() - t0:.0f} s; results in {out}/b")
    expected = expected_failures(os.path.join(src, "python", "tests", "pyscf_suite_expected_failures.txt"))
    unlisted = [k for k in failed if k not in expected]
    regressions = sorted(passes_with_pyscf(suite, py, env, unlisted))
    for k in sorted(failed):
        why = f"listed: {expected[k]}" if k in expected else \
            "REGRESSION (passes with PySCF's solver)" if k in regressions else "fails with PySCF's solver too"
        print(f"  failed {k}: {failed[k]}\n         {why}")
    for k in sorted(set(expected) - set(failed)):
        print(f"  listed but passes now: {k}")
    for mod in missing:
        print(f"  no results for {mod} (crashed?)")
    sys.exit(1 if regressions or missing else 0)


if __name__ == "__main__":
    main()
