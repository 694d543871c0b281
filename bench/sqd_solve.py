"""sqd_solve.py: selected CI to a converged ground state, cisparse against
PySCF in one run: ``cisparse.sqd.solve_sci`` (the CI driver's method
"selected", qiskit-addon-sqd's call and answer) and qiskit-addon-sqd's
default solver, PySCF's ``selected_ci.kernel_fixed_space`` (the energy from
the RDMs, as qiskit-addon-sqd does), on the same SQD-like string sets
(bench/sqd_strings.py, seeded) of N2/cc-pVDZ in its 26 valence orbitals
(10 electrons, D2h orbitals so the integrals are the same every run). Both
with PySCF's convergence rule (conv_tol: energy change; residual below its
square root), the same threads (OMP_NUM_THREADS), one cold solve each
(a warm-up solve of the smallest set first). Energies must agree to 1e-7.

    OMP_NUM_THREADS=2 python bench/sqd_solve.py --strings 200 400 800 --conv-tol 1e-10

Prints one table row per size (markdown)."""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from sqd_strings import sqd_sets  # noqa: E402
from sci_bench import n2_active  # noqa: E402

from pyscf.fci import selected_ci  # noqa: E402

from cisparse import sqd  # noqa: E402


def pyscf_solve(strs, h1, eri, norb, nelec, conv_tol):
    """qiskit-addon-sqd's solve_sci: kernel_fixed_space, then the energy from the RDMs."""
    myci = selected_ci.SelectedCI()
    _, c = selected_ci.kernel_fixed_space(myci, h1, eri, norb, nelec, ci_strs=strs, tol=conv_tol)
    dm1, dm2 = myci.make_rdm1(c, norb, nelec), myci.make_rdm2(c, norb, nelec)
    return float(np.einsum("pr,pr->", dm1, h1) + 0.5 * np.einsum("prqs,prqs->", dm2, eri))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--strings", type=int, nargs="+", default=[200, 400, 800])
    ap.add_argument("--conv-tol", type=float, default=1e-10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-pyscf", action="store_true", help="cisparse alone (sizes PySCF takes too long at)")
    a = ap.parse_args()
    norb, nelec = 26, (5, 5)
    h1, eri, ecore, e_rhf = n2_active(norb)
    print(f"N2/cc-pVDZ, {norb} orbitals, {nelec}; E_RHF {e_rhf:.8f}; threads {os.environ.get('OMP_NUM_THREADS', '?')}; "
          f"conv_tol {a.conv_tol:g}")
    print("| strings per spin | determinants | E cisparse (Eh) | cisparse s | PySCF s | PySCF / cisparse | |dE| |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    warm = sqd_sets(norb, nelec[0], nelec[1], 50, True, a.seed)[:2]
    sqd.solve_sci(warm, h1, eri, norb, nelec, conv_tol=a.conv_tol)
    for m in a.strings:
        sa, sb, _ = sqd_sets(norb, nelec[0], nelec[1], m, True, a.seed)
        t = time.perf_counter()
        r = sqd.solve_sci((sa, sb), h1, eri, norb, nelec, conv_tol=a.conv_tol)
        tc = time.perf_counter() - t
        tp = ep = float("nan")
        if not a.no_pyscf:
            t = time.perf_counter()
            ep = pyscf_solve((sa.astype(np.int64), sb.astype(np.int64)), h1, eri, norb, nelec, a.conv_tol)
            tp = time.perf_counter() - t
            assert abs(ep - r.energy) < 1e-7, (m, ep, r.energy)
        print(f"| {len(sa)} | {len(sa) * len(sb)} | {r.energy + ecore:.8f} | {tc:.2f} | {tp:.2f} | {tp / tc:.1f} | "
              f"{abs(ep - r.energy):.1e} |", flush=True)


if __name__ == "__main__":
    main()
