"""The same FCIDUMP through `cisparse ci` and through cisparse.fci.FCISolver:
both are one call of the library's CI driver (cis_ci_solve), so they must do
the same work (products, iterations) in about the same time.

    python bench/ci_cli_vs_fcisolver.py FCIDUMP [--roots K] [--device cpu|gpu] [--cli build/cisparse] [--runs N]

FCISolver's conv_tol 1e-10 is the CLI's --tol 1e-7 (residual sqrt(conv_tol) * 1e-2,
energy change 1e-10 in both). Both in C1 (FCISolver gets no orbsym). Times, medians of
--runs, both in a warm process: the CLI's `--repeat runs+1` (direct; each run's time to
solution: setup, guess, Davidson, without the first run, which pays CUDA's lazy module
loading and first allocations) plus its <S^2> time, or total_seconds of separate processes
(stored: the build dominates); FCISolver.kernel's wall time on a fresh solver each run (the
integrals' header, the same driver call, the vectors put in PySCF's order) after one
warm-up call.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np


def cli_run(cli, path, roots, device, runs):
    base = [cli, "ci", path, "--roots", str(roots), "--device", device, "--tol", "1e-7", "--json"]
    j = json.loads(subprocess.run(base, capture_output=True, text=True, check=True).stdout)
    if j["method"] == "direct":  # a warm process, as FCISolver's: --repeat, the first run left out
        j = json.loads(subprocess.run(base + ["--repeat", str(runs + 1)], capture_output=True, text=True,
                                      check=True).stdout)
        sec = statistics.median(j["to_solution_runs"][1:]) + j["s2_seconds"]
    else:  # stored: everything from the read, median of runs processes (the build dominates)
        out = [json.loads(subprocess.run(base, capture_output=True, text=True, check=True).stdout) for _ in range(runs)]
        sec = statistics.median(x["total_seconds"] for x in out)
    return dict(method=j["method"], products=j["products"], iterations=j["iterations"], seconds=sec,
                energies=[r["energy"] for r in j["roots"]])


def read_fcidump(path):
    """(norb, nelec, ms2, h1, eri (8-fold packed), ecore) of a restricted FCIDUMP."""
    from pyscf import ao2mo
    text = open(path).read()
    head, body = text.split("&END", 1) if "&END" in text else text.split("/", 1)
    head = head.replace("&FCI", "").replace("\n", " ")
    val = {}
    for key in ("NORB", "NELEC", "MS2"):
        val[key] = int(head.split(key + "=")[1].split(",")[0])
    n = val["NORB"]
    h1, eri, ecore = np.zeros((n, n)), np.zeros((n, n, n, n)), 0.0
    for line in body.split("\n"):
        f = line.split()
        if len(f) != 5:
            continue
        x, (i, j, k, l) = float(f[0].replace("D", "E")), (int(t) - 1 for t in f[1:])
        if k >= 0:
            for p, q, r, s in ((i, j, k, l), (j, i, k, l), (i, j, l, k), (j, i, l, k)):
                eri[p, q, r, s] = eri[r, s, p, q] = x
        elif i >= 0:
            h1[i, j] = h1[j, i] = x
        else:
            ecore = x
    return n, val["NELEC"], val["MS2"], h1, ao2mo.restore(8, eri, n), ecore


def python_run(path, roots, device, runs):
    import cisparse.fci
    norb, nelec, ms2, h1, h2, ecore = read_fcidump(path)
    nel = ((nelec + ms2) // 2, (nelec - ms2) // 2)
    times, s = [], None
    for k in range(runs + 1):
        s = cisparse.fci.FCISolver(device=device)
        s.nroots, s.conv_tol = roots, 1e-10
        t0 = time.perf_counter()
        e, _ = s.kernel(h1, h2, norb, nel, ecore=ecore)
        if k:  # the first call made the CUDA context and loaded the modules
            times.append(time.perf_counter() - t0)
    st = s.stats
    return dict(method=st["method"], products=st["products"], iterations=st["iterations"],
                seconds=statistics.median(times), energies=list(np.atleast_1d(e)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fcidump")
    ap.add_argument("--roots", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--cli", default=os.environ.get("CISPARSE_CLI", "build/cisparse"))
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    c = cli_run(a.cli, a.fcidump, a.roots, a.device, a.runs)
    p = python_run(a.fcidump, a.roots, a.device, a.runs)
    de = max(abs(x - y) for x, y in zip(c["energies"], p["energies"]))
    print(f"{os.path.basename(a.fcidump)} roots {a.roots} device {a.device}")
    print(f"  cisparse ci   : {c['method']:6s} {c['iterations']:3d} it {c['products']:4d} products {c['seconds']:.3f} s")
    print(f"  FCISolver     : {p['method']:6s} {p['iterations']:3d} it {p['products']:4d} products {p['seconds']:.3f} s")
    print(f"  time ratio python/cli {p['seconds'] / c['seconds']:.2f}, max |dE| {de:.1e}")


if __name__ == "__main__":
    main()
