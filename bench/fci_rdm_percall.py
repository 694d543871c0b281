#!/usr/bin/env python3
"""fci_rdm_percall.py: the cost of one call of each FCI-solver step that a
PySCF CASSCF makes, for C2H4/cc-pVDZ CAS(N,N) on the RHF orbitals (the
integrals of the first macro-iteration), with PySCF's own solver and with
cisparse.fci.FCISolver: contract_2e (CASSCF's approximate CI steps:
absorb_h1e once, a first and a second call), the RDMs CASSCF asks for
(make_rdm12, make_rdm1), a cold FCI kernel
(no ci0) and a warm one (ci0 = the converged vector: the least a later
macro-iteration can cost). Where a whole PySCF CASSCF(N,N) does not fit the
device time, these per-call figures and the call counts of the cisparse
CASSCF run (casscf_vs_pyscf.py) stand beside it, labelled as such.

usage: python3 bench/fci_rdm_percall.py N [--solvers pyscf,cisparse] [--steps sigma,rdm,cold,warm] [--json FILE]
"""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
from make_c2h4_fcidump import c2h4  # noqa: E402
import numpy as np  # noqa: E402
from pyscf import fci, gto, lib, mcscf, scf  # noqa: E402
import cisparse.fci  # noqa: E402


def timed(f, *a, **k):
    t = time.perf_counter()
    r = f(*a, **k)
    return r, time.perf_counter() - t


def main():
    args = sys.argv[1:]
    out, solvers, steps = None, ("pyscf", "cisparse"), ("sigma", "rdm", "cold", "warm")
    for flag in ("--json", "--solvers", "--steps"):
        if flag in args:
            i = args.index(flag)
            v = args[i + 1]
            del args[i:i + 2]
            if flag == "--json":
                out = v
            elif flag == "--solvers":
                solvers = tuple(v.split(","))
            else:
                steps = tuple(v.split(","))
    n = int(args[0])
    nelec = (n // 2, n // 2)
    mol = gto.M(atom=c2h4(), basis="cc-pvdz", unit="angstrom", symmetry=False, verbose=0)
    mf = scf.RHF(mol).run(conv_tol=1e-11)
    mc = mcscf.CASCI(mf, n, n)
    h1, ecore = mc.get_h1eff()
    h2 = mc.get_h2eff()
    rows = []
    print(f"C2H4/cc-pVDZ CAS({n},{n}), RHF orbitals, PySCF {lib.num_threads()} threads", flush=True)
    rng = np.random.default_rng(1)
    for name in solvers:
        s = cisparse.fci.FCISolver(mol) if name == "cisparse" else fci.direct_spin1.FCISolver(mol)
        s.conv_tol = 1e-10
        r = {"solver": name, "n": n, "threads": lib.num_threads()}
        na = fci.cistring.num_strings(n, nelec[0])
        c = rng.standard_normal((na, na))
        c /= np.linalg.norm(c)
        if "sigma" in steps:  # CASSCF's solve_approx_ci: absorb_h1e once, then contract_2e calls
            h2e, r["absorb_s"] = timed(s.absorb_h1e, h1, h2, n, nelec, 0.5)
            _, r["sigma_first_s"] = timed(s.contract_2e, h2e, c, n, nelec)  # cisparse: + the space on the GPU
            _, r["sigma_s"] = timed(s.contract_2e, h2e, c, n, nelec)
            print(f"{name:8s} contract_2e {r['sigma_s']:.3f} s (first {r['sigma_first_s']:.3f} s; "
                  f"absorb_h1e {r['absorb_s']:.3f} s)", flush=True)
        if "rdm" in steps:
            if name == "cisparse":
                s.make_rdm12(c, n, nelec)  # warm-up: the space and its links, once per space
            for f in ("make_rdm12", "make_rdm1"):
                _, r[f + "_s"] = timed(getattr(s, f), c, n, nelec)
            print(f"{name:8s} make_rdm12 {r['make_rdm12_s']:.3f} s  make_rdm1 {r['make_rdm1_s']:.3f} s", flush=True)
        if "cold" in steps or "warm" in steps:
            (e, ci), r["cold_s"] = timed(s.kernel, h1, h2, n, nelec, ecore=ecore)
            r["e_casci"] = float(e)
            print(f"{name:8s} FCI kernel cold {r['cold_s']:.3f} s  E(CASCI) {e:.10f}", flush=True)
            if "warm" in steps:
                (e2, _), r["warm_s"] = timed(s.kernel, h1, h2, n, nelec, ci0=ci, ecore=ecore)
                print(f"{name:8s} FCI kernel warm (ci0 = converged) {r['warm_s']:.3f} s  E {e2:.10f}", flush=True)
        if name == "cisparse":
            r["stats"] = {k: v for k, v in getattr(s, "stats", {}).items() if isinstance(v, (int, float, str))}
            r["rdm_stats"] = dict(getattr(s, "rdm_stats", {}))
        rows.append(r)
        if out:
            with open(out, "w") as fh:
                json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
