"""sci_sigma.py: one selected-CI sigma on a product of random string sets,
cisparse (cis_sci_sigma, CPU, OpenMP) against PySCF's
selected_ci.contract_2e (absorb_h1e's integrals, link tables built once
outside the timing), median of --repeat runs each, and the largest
relative difference between the two.

    CISPARSE_LIBRARY=build-cpu/libcisparse.so PYTHONPATH=python \\
        build-cpu/venv/bin/python bench/sci_sigma.py --norb 16 --nelec 8 --strings 500

Random integrals (8-fold symmetric), sets of --strings alpha and beta
strings (the same count, drawn independently): by default those of lowest
excitation level from the aufbau string (a sampled SQD set is dense there,
so most single replacements stay inside it), or any (--sets random: few
links stay inside, a much cheaper sigma). Threads: OMP_NUM_THREADS for
both (PySCF's libfci is OpenMP too)."""
import argparse
import time

import numpy as np

import cisparse.sci  # noqa: F401  (cisparse's OpenMP runtime first: python.md)
from pyscf import ao2mo, lib
from pyscf.fci import cistring, direct_spin1, selected_ci


def median_time(f, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        t.append(time.perf_counter() - t0)
    return float(np.median(t)), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--norb", type=int, default=16)
    ap.add_argument("--nelec", type=int, default=8, help="electrons of each spin")
    ap.add_argument("--strings", type=int, default=500, help="strings in each set")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sets", choices=("low", "random"), default="low",
                    help="low: the strings of lowest excitation level from the aufbau string (ties at random), "
                         "as a sampled SQD set is dense there; random: any strings")
    a = ap.parse_args()
    norb, ne = a.norb, a.nelec
    rng = np.random.default_rng(1)
    h1 = rng.uniform(-1, 1, (norb, norb))
    h1 = h1 + h1.T
    npair = norb * (norb + 1) // 2
    B = rng.uniform(-0.5, 0.5, (norb, npair))
    eri = ao2mo.restore(1, B.T @ B, norb)
    strs = cistring.make_strings(range(norb), ne)
    def pick():
        if a.sets == "random":
            return np.sort(rng.choice(strs, a.strings, replace=False))
        level = np.array([bin(int(s) & ~((1 << ne) - 1)).count("1") for s in strs])
        order = np.lexsort((rng.random(len(strs)), level))
        return np.sort(strs[order[:a.strings]])
    sa, sb = pick(), pick()
    nelec = (ne, ne)
    t0 = time.perf_counter()
    space = cisparse.sci._SciSpace(h1, eri, norb, nelec, (sa, sb))
    t_build = time.perf_counter() - t0
    c = rng.uniform(-1, 1, space.size)
    t_cis, s_cis = median_time(lambda: space.sigma(c), a.repeat)
    h2e = direct_spin1.absorb_h1e(h1, eri, norb, nelec, 0.5)
    link = selected_ci._all_linkstr_index((sa, sb), norb, nelec)
    cv = selected_ci._as_SCIvector(c.reshape(len(sa), len(sb)), (sa, sb))
    t_py, s_py = median_time(lambda: selected_ci.contract_2e(h2e, cv, norb, nelec, link), a.repeat)
    d = np.max(np.abs(s_cis - np.asarray(s_py).ravel())) / np.max(np.abs(s_py))
    print(f"{a.sets} sets: norb {norb} nelec ({ne},{ne}) sets {len(sa)} x {len(sb)} = {space.size} determinants, "
          f"threads {space.info()['threads']} (PySCF {lib.num_threads()}): cisparse build {t_build:.3f} s, "
          f"sigma {t_cis:.3f} s; PySCF contract_2e {t_py:.3f} s ({t_py / t_cis:.1f}x); rel diff {d:.1e}")


if __name__ == "__main__":
    main()
