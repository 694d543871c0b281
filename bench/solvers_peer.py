#!/usr/bin/env python3
"""solvers_peer.py: cisparse's Krylov solvers beside CuPy's on the same 3D
Laplacians, one side-by-side table (and JSON).

Peer: cupyx.scipy.sparse.linalg.cg, unpreconditioned, float32 and float64, on
the 7-point Laplacian of an N^3 grid built with scipy.sparse exactly as
cisparse's `laplace3d:size=N` generator builds it (src/gen/gen_laplace3d.c:
6 on the diagonal, -1 for the six face neighbours, Dirichlet boundaries,
natural ordering row = x + N*(y + N*z), columns ascending; checked against
`cisparse gen` on a small grid when scipy is present). x* = ones, b = A x*,
x0 = 0. ms per iteration: CUDA events around cg() with a fixed iteration
count (maxiter = --iters, tolerance 1e-30 so that it never stops early),
after one warm-up call, median of --runs calls.

cisparse: `cisparse bench laplace3d:size=N --solvers --device gpu --method M
--precond P --sync spin --json -` (one process per solver: every version on
one matrix build) for CG without a preconditioner (CuPy's peer) and PCG,
PBiCG, PBiCGStab (Jacobi), keeping the versions merge_10, cublasL, cuda and
graph, float and double, to convergence (tol 1e-8 in double, 1e-6 in
float); ms per iteration is the median of --repeat solves. The table puts
CuPy's CG beside cisparse's unpreconditioned CG and lists the
preconditioned solvers below.

Usage: bench/solvers_peer.py [--bin build/cisparse] [--sizes 64,128,160]
       [--iters 200] [--runs 5] [--repeat 3] [--json FILE] [--no-cupy]
       [--versions merge_10,cublasL,cuda,graph] [--timeout 150] [--device gpu|cpu]
Missing CuPy or scipy is reported, not fatal: the rows that need them say why."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def laplace3d_scipy(n, dtype):
    """The 7-point Laplacian of laplace3d:size=n (CSR, sorted columns)."""
    import numpy as np
    import scipy.sparse as sp

    t = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    i = sp.identity(n, format="csr")
    # row = x + n*(y + n*z): x varies fastest, so T acts on the last kron factor
    def k3(a, b, c):
        return sp.kron(sp.kron(a, b, format="csr"), c, format="csr")

    a = (k3(i, i, t) + k3(i, t, i) + k3(t, i, i)).tocsr().astype(dtype)
    a.eliminate_zeros()  # kron of small factors may go through BSR blocks with stored zeros
    a.sum_duplicates()
    a.sort_indices()
    assert a.nnz == 7 * n**3 - 6 * n**2, (a.nnz, n)
    return a


def check_against_cisparse(binary, n=6):
    """The scipy matrix equals `cisparse gen laplace3d:size=n` entry for entry."""
    import numpy as np
    import scipy.io

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "lap.mtx")
        subprocess.run([binary, "gen", f"laplace3d:size={n}", "-o", path], check=True,
                       capture_output=True, text=True)
        ref = scipy.io.mmread(path).tocsr()
    ours = laplace3d_scipy(n, np.float64)
    diff = abs(ref - ours)
    return diff.nnz == 0 or diff.max() == 0


def cupy_cg_ms(n, dtype_name, iters, runs):
    """Median ms per iteration of cupyx cg on laplace3d:size=n, or (None, why)."""
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
        import numpy as np
    except Exception as e:  # noqa: BLE001 - any import failure means "no CuPy here"
        return None, f"cupy not available ({type(e).__name__}: {e})"
    try:
        a_host = laplace3d_scipy(n, np.float32 if dtype_name == "float" else np.float64)
    except ImportError as e:
        return None, f"scipy not available ({e})"
    a = csp.csr_matrix(a_host)
    xstar = cp.ones(a.shape[0], dtype=a.dtype)
    b = a @ xstar

    def solve():
        try:
            return cla.cg(a, b, x0=cp.zeros_like(b), tol=1e-30, maxiter=iters)
        except TypeError:  # newer CuPy: rtol instead of tol
            return cla.cg(a, b, x0=cp.zeros_like(b), rtol=1e-30, maxiter=iters)

    solve()  # warm-up (kernel compilation, cuSPARSE handles)
    cp.cuda.runtime.deviceSynchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    ms = []
    x = None
    for _ in range(runs):
        start.record()
        x, _info = solve()
        stop.record()
        stop.synchronize()
        ms.append(cp.cuda.get_elapsed_time(start, stop) / iters)
    r = b - a @ x
    rel = float(cp.linalg.norm(r) / cp.linalg.norm(b))
    return {"ms_per_iteration": statistics.median(ms), "iterations": iters,
            "true_relative_residual": rel, "runs": runs}, ""


def cisparse_sweep(binary, n, method, precond, precision, repeat, timeout, device="gpu", fmt_name="ell"):
    """One `cisparse bench --solvers` narrowed to one solver, preconditioner and
    spin mode: every device version in one process (one matrix build)."""
    tol = "1e-6" if precision == "single" else "1e-8"
    cmd = [binary, "bench", f"laplace3d:size={n}", "--solvers", "--device", device, "--method", method,
           "--precond", precond, "--format", fmt_name] + (["--sync", "spin"] if device == "gpu" else []) + ["--precision", precision, "--tol", tol,
           "--maxit", "5000", "--repeat", str(repeat), "--energy-seconds", "0", "--json", "-"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], f"timeout after {timeout} s: {' '.join(cmd)}"
    try:
        return json.loads(p.stdout)["results"], ""
    except (json.JSONDecodeError, KeyError):
        last = p.stderr.strip().splitlines()[-1:] or ["no output"]
        return [], f"exit {p.returncode}: {last[0]}"


def fmt(v, f="{:.4f}"):
    return "n/a" if v is None else f.format(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/cisparse")
    ap.add_argument("--sizes", default="64,128,160")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--versions", default="merge_10,cublasL,cuda,graph")
    ap.add_argument("--methods", default="cg,bicg,bicgstab")
    ap.add_argument("--format", default="ell",
                    help="cisparse storage format (ell: the paper's choice for the Laplace problems, §4)")
    ap.add_argument("--json", default="solvers_peer.json")
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--no-cupy", action="store_true")
    ap.add_argument("--device", default="gpu", choices=("gpu", "cpu"),
                    help="cpu: cisparse's host solvers (to check this script without a GPU)")
    o = ap.parse_args()
    sizes = [int(s) for s in o.sizes.split(",")]
    versions = o.versions.split(",")
    methods = o.methods.split(",")
    out = {"sizes": sizes, "iters": o.iters, "runs": o.runs, "repeat": o.repeat, "cupy": [], "cisparse": []}

    try:
        same = check_against_cisparse(o.bin)
        print(f"scipy Laplacian == cisparse gen laplace3d (size 6): {same}")
        out["matrix_check"] = same
    except Exception as e:  # noqa: BLE001
        print(f"matrix check skipped: {type(e).__name__}: {e}")
        out["matrix_check"] = None

    rows = []
    for n in sizes:
        for prec, dname in (("single", "float"), ("double", "double")):
            if o.no_cupy:
                cu, why = None, "--no-cupy"
            else:
                cu, why = cupy_cg_ms(n, dname, o.iters, o.runs)
            out["cupy"].append({"size": n, "precision": prec, "result": cu, "why": why})
            rows.append((n, prec, "cg", "none", "cupy cg", cu, why))
            print(f"  cupy cg {n}^3 {prec}: {fmt(cu and cu['ms_per_iteration'])} ms/it {why}", file=sys.stderr)
            # CG without a preconditioner (CuPy's peer), then PCG, PBiCG, PBiCGStab
            for m, p in [("cg", "none")] + [(m, "jacobi") for m in methods]:
                res, why = cisparse_sweep(o.bin, n, m, p, prec, o.repeat, o.timeout, o.device, o.format)
                if why:
                    print(f"  cisparse {m}+{p} {n}^3 {prec}: {why}", file=sys.stderr)
                    rows.append((n, prec, m, p, "cisparse", None, why))
                    continue
                for r in res:
                    if r["version"] not in versions and o.device == "gpu":
                        continue
                    r.update({"size": n, "precision": prec})
                    out["cisparse"].append(r)
                    ok = r.get("status") == "converged"
                    rows.append((n, prec, m, p, f'cisparse {r["version"]}', r if ok else None,
                                 "" if ok else f'{r.get("status")}: {r.get("error_message", "")}'))
                    print(f'  cisparse {m}+{p} {r["version"]} {n}^3 {prec}: '
                          f'{fmt(r.get("ms_per_iteration"))} ms/it {r.get("status")}', file=sys.stderr)

    hdr = f'{"grid":>5} {"prec":>6} {"solver":>8} {"precond":>7} {"implementation":>18} {"its":>6} ' \
          f'{"ms/it":>9} {"vs cupy":>8} {"launch/it":>9} {"true res":>9}'
    print(hdr)
    print("-" * len(hdr))
    for n in sizes:
        for prec in ("single", "double"):
            base = next((r for (nn, pp, m, p, impl, r, _w) in rows
                         if nn == n and pp == prec and impl == "cupy cg" and r), None)
            for (nn, pp, m, p, impl, r, why) in rows:
                if nn != n or pp != prec:
                    continue
                if r is None:
                    print(f"{n:>4}^3 {prec:>6} {m:>8} {p:>7} {impl:>18}  {why}")
                    continue
                rel = (f'{base["ms_per_iteration"] / r["ms_per_iteration"]:.2f}x'
                       if base and m == "cg" and p == "none" and r.get("ms_per_iteration") else "")
                print(f'{n:>4}^3 {prec:>6} {m:>8} {p:>7} {impl:>18} {r.get("iterations", 0):>6} '
                      f'{fmt(r.get("ms_per_iteration")):>9} {rel:>8} '
                      f'{fmt(r.get("launches_per_iteration"), "{:.1f}"):>9} '
                      f'{fmt(r.get("true_relative_residual"), "{:.1e}"):>9}')
    print("vs cupy: CuPy cg ms/it over this row's (> 1: cisparse faster), unpreconditioned CG rows only.\n"
          f"CuPy: fixed {o.iters} iterations, median of {o.runs}; cisparse: to convergence "
          f"(tol 1e-8 double, 1e-6 single), median of {o.repeat} solves.")
    with open(o.json, "w") as f:
        json.dump(out, f, indent=1)
    print("json:", o.json)


if __name__ == "__main__":
    main()
