"""sqd_strings.py: SQD-like alpha/beta string sets, deterministic from a
seed: the generator of tests/sqd_strings.h, number for number (the model
sampler, its weights and its splitmix64 stream are described there).

    python bench/sqd_strings.py --check      # the checksum tests/unit/test_sci_half.c asserts
    python bench/sqd_strings.py --norb 26 --nelec 5 --strings 1000 --symmetrize

sqd_sets(norb, na, nb, m, symmetrize, seed) -> (alpha, beta, samples):
sorted uint64 arrays of at most m strings each (symmetrize: both the union
of the sampled alpha and beta strings, as qiskit-addon-sqd's
symmetrize_spin), the Hartree-Fock strings included, and the number of
samples drawn."""
import argparse

import numpy as np

MASK = (1 << 64) - 1
SQD_MOVE = 0.6
SQD_MAX_SAMPLES_PER_STRING = 1000


class _Rng:
    """splitmix64 (Steele, Lea & Flood 2014), doubles from its top 53 bits."""

    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def unif(self):
        return (self.next() >> 11) * 2.0 ** -53


def _pick(mask, norb, ref, rng):
    w, total, last = [0.0] * norb, 0.0, -1
    for p in range(norb):
        if mask >> p & 1:
            d = float(abs(p - ref))
            w[p] = 1.0 / ((1.0 + d) * (1.0 + d))
            total += w[p]
            last = p
    u = rng.unif() * total
    acc = 0.0
    for p in range(norb):
        acc += w[p]
        if w[p] > 0.0 and u < acc:
            return p
    return last


def _sample(norb, nel, rng):
    allm, hf = (1 << norb) - 1, (1 << nel) - 1
    kmax = min(nel, norb - nel)
    k = 0
    while k < kmax and rng.unif() < SQD_MOVE:
        k += 1
    holes, parts, x = hf, allm & ~hf, hf
    for _ in range(k):
        h = _pick(holes, norb, nel - 1, rng)
        p = _pick(parts, norb, nel, rng)
        holes &= ~(1 << h)
        parts &= ~(1 << p)
        x ^= (1 << h) | (1 << p)
    return x


def sqd_sets(norb, na, nb, m, symmetrize=True, seed=1):
    rng = _Rng(seed)
    sa, sb = {(1 << na) - 1}, ({(1 << nb) - 1} if not symmetrize else None)
    drawn = 0
    def full():
        return len(sa) >= m if symmetrize else (len(sa) >= m and len(sb) >= m)
    if m <= 0:
        sa = set()
    while not full() and drawn < SQD_MAX_SAMPLES_PER_STRING * m:
        a, b = _sample(norb, na, rng), _sample(norb, nb, rng)
        drawn += 1
        if len(sa) < m:
            sa.add(a)
        if symmetrize:
            if len(sa) < m:
                sa.add(b)
        elif len(sb) < m:
            sb.add(b)
    alpha = np.array(sorted(sa), dtype=np.uint64)
    beta = alpha.copy() if symmetrize else np.array(sorted(sb), dtype=np.uint64)
    return alpha, beta, drawn


def checksum(alpha, beta):
    c = 0
    for i, s in enumerate(alpha):
        c = (c + (i + 1) * int(s)) & MASK
    for i, s in enumerate(beta):
        c = (c + (i + 1) * int(s) * 3) & MASK
    return c


CHECK_CASE = dict(norb=16, na=5, nb=4, m=300, symmetrize=False, seed=7)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="print the checksum of CHECK_CASE")
    ap.add_argument("--norb", type=int, default=26)
    ap.add_argument("--nelec", type=int, default=5, help="electrons of each spin")
    ap.add_argument("--strings", type=int, default=1000)
    ap.add_argument("--symmetrize", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.check:
        al, be, n = sqd_sets(**CHECK_CASE)
        print(f"{CHECK_CASE}: {len(al)} x {len(be)} strings from {n} samples, checksum {checksum(al, be)}")
        return
    al, be, n = sqd_sets(a.norb, a.nelec, a.nelec, a.strings, a.symmetrize, a.seed)
    lev = np.array([bin(int(s) & ~((1 << a.nelec) - 1)).count("1") for s in al])
    print(f"{len(al)} alpha, {len(be)} beta strings from {n} samples; alpha excitation levels "
          f"{np.bincount(lev).tolist()}")


if __name__ == "__main__":
    main()
