"""sci_bench.py: the selected-CI sigma and ground-state solve on SQD-like
string sets, cisparse (cis_sci_sigma: the general sigma and the alpha <->
beta half sigma, CPU, OpenMP) against PySCF's selected_ci (what
qiskit-addon-sqd's solve_fermion / solve_sci call: contract_2e inside
kernel_fixed_space with a default SelectedCI()), in one process.

    CISPARSE_LIBRARY=build-cpu/libcisparse.so PYTHONPATH=python OMP_NUM_THREADS=2 \\
        build-cpu/venv/bin/python bench/sci_bench.py --norb 26 --strings 100 300 1000 \\
        --pyscf-max 300 --solve-max 300

Integrals: N2 (1.0977 A) cc-pVDZ RHF (D2h orbitals), the CASCI active space of --norb
orbitals above the 2 frozen 1s cores with 10 electrons (5 + 5): h1eff,
h2eff and the core energy of pyscf.mcscf.CASCI. Sets: bench/sqd_strings.py
(the generator of tests/sqd_strings.h), symmetrized (alpha set = beta set,
as solve_fermion's default open_shell=False), seed 1.

Per size: one random normalized vector made exactly symmetric (the parity
of the ground state, what Davidson multiplies) and one of mixed parity;
the median of --repeat timed runs after one warm-up each, for
  cisparse sci_half=off (the general sigma), sci_half=auto (the half sigma
  for the symmetric vector; the general one for the mixed), sci_half=on
  (mixed vector: S(x) + P S(Px)), PySCF contract_2e (absorb_h1e's
  integrals, the link tables built once outside the timing),
the largest difference between any two relative to the largest entry
(must be <= 1e-10, else the script stops). Then, up to --solve-max
strings, a ground-state solve: cisparse (space built + Davidson on
cis_sci_operator, residual 1e-5; with the half sigma and the parity kept,
and with neither; each twice in turns, the second kept) against
selected_ci.kernel_fixed_space(SelectedCI(), ...) (conv_tol 1e-10: residual
about 1e-5), energies compared. Threads: OMP_NUM_THREADS for both."""
import argparse
import os
import platform
import sys
import time

import numpy as np

import cisparse.sci as sci  # noqa: F401  (cisparse's OpenMP runtime first: python.md)
from cisparse import _lib as L
from pyscf import gto, lib, mcscf, scf
from pyscf.fci import direct_spin1, selected_ci

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sqd_strings import sqd_sets  # noqa: E402


def set_half(mode):
    if L.lib.cis_option_set(b"sci_half", mode.encode()) != 0:
        raise RuntimeError(L.lib.cis_last_error().decode())


def median_time(f, repeat):
    f()  # warm-up
    t = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        t.append(time.perf_counter() - t0)
    return float(np.median(t)), out


def n2_active(norb):
    # D2h orbitals: the pi pairs come out in their irreps, the same every run
    # (without symmetry a degenerate pair's rotation is arbitrary, and a
    # string set is not invariant under it: the energy changed run to run)
    mol = gto.M(atom="N 0 0 0; N 0 0 1.0977", basis="cc-pvdz", symmetry="D2h", verbose=0)
    mf = scf.RHF(mol).run()
    mc = mcscf.CASCI(mf, norb, (5, 5))
    mc.mo_coeff = mf.mo_coeff
    h1, ecore = mc.get_h1eff()
    h2 = mc.get_h2eff()
    from pyscf import ao2mo
    return h1, ao2mo.restore(1, h2, norb), ecore, mf.e_tot


def rel(a, b):
    return float(np.max(np.abs(np.ravel(a) - np.ravel(b))) / np.max(np.abs(b)))


def alternate(a, h1, eri, norb, nelec, rng):
    print("| strings | determinants | general s, each run | half s, each run | median general / median half |")
    print("|---|---|---|---|---|")
    for m in a.strings:
        sa, sb, _ = sqd_sets(norb, nelec[0], nelec[1], m, True, a.seed)
        space = sci._SciSpace(h1, eri, norb, nelec, (sa.astype(np.int64), sb.astype(np.int64)))
        y = rng.uniform(-1, 1, (len(sa), len(sa)))
        x = (0.5 * (y + y.T)).ravel()
        x /= np.linalg.norm(x)
        tg, th = [], []
        for mode, t in (("off", tg), ("auto", th)) * (a.repeat + 1):
            set_half(mode)
            t0 = time.perf_counter()
            space.sigma(x)
            t.append(time.perf_counter() - t0)
        set_half("auto")
        tg, th = tg[1:], th[1:]  # the first of each: warm-up
        print(f"| {len(sa)} | {len(sa) ** 2} | {', '.join(f'{v:.3f}' for v in tg)} | {', '.join(f'{v:.3f}' for v in th)} "
              f"| {np.median(tg) / np.median(th):.2f}x |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--norb", type=int, default=26)
    ap.add_argument("--strings", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pyscf-max", type=int, default=300, help="largest set PySCF's contract_2e is timed on")
    ap.add_argument("--solve-max", type=int, default=300, help="largest set the ground-state solves run on")
    ap.add_argument("--pyscf-solve-max", type=int, default=None,
                    help="largest set kernel_fixed_space runs on (default --solve-max)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--alternate", action="store_true",
                    help="only the symmetric vector's general and half sigma, timed in turns (general, half, "
                         "general, ...) --repeat times after a warm-up of each: every time printed, for a loaded "
                         "machine whose load changes between the blocks of the table")
    a = ap.parse_args()
    norb, nelec = a.norb, (5, 5)
    h1, eri, ecore, e_hf = n2_active(norb)
    h2e = direct_spin1.absorb_h1e(h1, eri, norb, nelec, 0.5)
    rng = np.random.default_rng(a.seed)
    print(f"# N2 cc-pVDZ, CAS({sum(nelec)}e, {norb}o), E(RHF) {e_hf:.10f}; {platform.node()}, "
          f"{os.cpu_count()} cpus, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"PySCF threads {lib.num_threads()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if a.alternate:
        return alternate(a, h1, eri, norb, nelec, rng)
    print("| strings | determinants | samples | build s | general s | half s | speed-up | mixed: general s "
          "| mixed: on s | PySCF contract_2e s | PySCF / half | max rel diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    solves = []
    for m in a.strings:
        sa, sb, drawn = sqd_sets(norb, nelec[0], nelec[1], m, True, a.seed)
        sa, sb = sa.astype(np.int64), sb.astype(np.int64)  # PySCF's cistring takes signed integers
        t0 = time.perf_counter()
        space = sci._SciSpace(h1, eri, norb, nelec, (sa, sb))
        t_build = time.perf_counter() - t0
        ns = len(sa)
        y = rng.uniform(-1, 1, (ns, ns))
        xs = 0.5 * (y + y.T)
        xs /= np.linalg.norm(xs)
        xm = y / np.linalg.norm(y)
        out = {}
        set_half("off")
        t_gen, out["gen"] = median_time(lambda: space.sigma(xs.ravel()), a.repeat)
        t_genm, out["genm"] = median_time(lambda: space.sigma(xm.ravel()), a.repeat)
        set_half("auto")
        t_half, out["half"] = median_time(lambda: space.sigma(xs.ravel()), a.repeat)
        set_half("on")
        t_on, out["on"] = median_time(lambda: space.sigma(xm.ravel()), a.repeat)
        set_half("auto")
        d = max(rel(out["half"], out["gen"]), rel(out["on"], out["genm"]))
        t_py = None
        if m <= a.pyscf_max:
            link = selected_ci._all_linkstr_index((sa, sb), norb, nelec)
            cv = selected_ci._as_SCIvector(xs, (sa, sb))
            t_py, s_py = median_time(lambda: selected_ci.contract_2e(h2e, cv, norb, nelec, link), a.repeat)
            d = max(d, rel(out["half"], s_py), rel(out["gen"], s_py))
        if d > 1e-10:
            raise SystemExit(f"{m} strings: results differ by {d:.2e} relative")
        py = f"{t_py:.4f} | {t_py / t_half:.1f}x" if t_py is not None else "- | -"
        print(f"| {ns} | {ns * ns} | {drawn} | {t_build:.3f} | {t_gen:.4f} | {t_half:.4f} | {t_gen / t_half:.2f}x "
              f"| {t_genm:.4f} | {t_on:.4f} | {py} | {d:.1e} |", flush=True)
        if m <= a.solve_max:
            def solve(half):  # space built + Davidson; the half sigma with the parity kept, or neither
                set_half("auto" if half else "off")
                info = {}
                t0 = time.perf_counter()
                sp = sci._SciSpace(h1, eri, norb, nelec, (sa, sb))
                e, _ = sp.davidson(1, tol=1e-5, parity=half, info=info)
                set_half("auto")
                return time.perf_counter() - t0, e[0], info
            runs = [solve(half) for half in (True, False, True, False)]  # in turns; the second of each kept
            t_c, e_c, info = runs[2]
            t_off, e_off, info_off = runs[3]
            t_p = e_p = None
            if m <= (a.solve_max if a.pyscf_solve_max is None else a.pyscf_solve_max):
                t0 = time.perf_counter()
                myci = selected_ci.SelectedCI()
                e_p, _ = selected_ci.kernel_fixed_space(myci, h1, eri, norb, nelec, (sa, sb))
                t_p = time.perf_counter() - t0
                e_p += ecore
            solves.append((ns, t_c, info["products"], info["op_seconds"], t_off, info_off["products"],
                           info_off["op_seconds"], t_p, e_c + ecore, e_off + ecore, e_p))
    if solves:
        print("\n| strings | cisparse half: s (products, in sigma s) | cisparse general: s (products, in sigma s) "
              "| PySCF kernel_fixed_space s | PySCF / half | E cisparse half | E cisparse general | E PySCF "
              "| max dE |")
        print("|---|---|---|---|---|---|---|---|---|")
        for ns, t_c, p_c, o_c, t_off, p_off, o_off, t_p, e_c, e_off, e_p in solves:
            de = abs(e_c - e_off) if e_p is None else max(abs(e_c - e_p), abs(e_off - e_p))
            py = "- | - " if t_p is None else f"{t_p:.3f} | {t_p / t_c:.1f}x "
            ep = "-" if e_p is None else f"{e_p:.10f}"
            print(f"| {ns} | {t_c:.3f} ({p_c}, {o_c:.3f}) | {t_off:.3f} ({p_off}, {o_off:.3f}) | {py}"
                  f"| {e_c:.10f} | {e_off:.10f} | {ep} | {de:.1e} |", flush=True)


if __name__ == "__main__":
    main()
