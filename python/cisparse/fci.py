"""cisparse.fci: an FCI solver for PySCF's CASCI and CASSCF (``mc.fcisolver``).

    from pyscf import gto, scf, mcscf
    import cisparse.fci
    mc = mcscf.CASSCF(scf.RHF(mol).run(), 6, 6)
    mc.fcisolver = cisparse.fci.FCISolver(mol)
    mc.kernel()

``FCISolver`` is PySCF's ``fci.direct_spin1.FCISolver`` whose ``kernel`` is
one call of cisparse's CI driver (``cis_ci_solver_solve``, cisparse/ci_solve.h:
the same method choice, P-space guesses and Davidson as ``cisparse ci``), on
the GPU where one is usable (``device``: 'auto', 'gpu' or 'cpu'), by
``method``: 'auto' (the driver's rule), 'stored' (the CI Hamiltonian as a
sparse matrix) or 'direct' (the matrix-free sigma). ``ci0`` is the driver's
warm-start guess; the driver keeps the space (strings, links, the GPU's
workspace) across calls with new integrals (CASSCF's macro-iterations).
CI vectors are NumPy arrays of PySCF's shape (alpha strings x beta strings,
PySCF's string order and phase convention), so everything else PySCF does
with them works unchanged: ``make_rdm1``, ``make_rdm1s``, ``make_rdm12``,
``spin_square``, ``state_average_`` and ``fci.addons.fix_spin_`` (the spin
penalty of PySCF's SpinPenaltyFCISolver, the driver's ``spin_penalty``: an
operator on the matrix-free sigma, ``cis_ci_spin_penalty_operator``). With
``orbsym`` and an integer ``wfnsym`` the space is restricted to that irrep.
RDMs (make_rdm1, make_rdm1s, make_rdm12, make_rdm12s and the transition
trans_rdm1, trans_rdm1s, trans_rdm12, trans_rdm12s; with reorder=True, what
CASSCF asks) are cisparse's above ``rdm_min`` determinants: on the GPU
(``cis_ci_direct_gpu_rdm12``: gather + DGEMM, the links uploaded once per
space and kept across calls) where one is usable, else on the host
(``cis_ci_direct_rdm12``); PySCF's own below. ``contract_2e`` (what
CASSCF's approximate CI steps call on absorb_h1e's integrals) runs on the GPU
above ``contract_min`` determinants (the direct sigma), PySCF's own otherwise.
"""
import ctypes
import functools
import os
import threading
import time

import numpy as np
from pyscf import ao2mo
from pyscf.fci import cistring, direct_spin0, direct_spin1, direct_spin1_symm, spin_op

from . import _lib as L
from . import fci_cylsym
from ._errors import CisparseError, check
from ._matrix import gpu_count

_u64p = ctypes.POINTER(ctypes.c_uint64)
_dp = ctypes.POINTER(ctypes.c_double)


class _fcidump(ctypes.Structure):  # cis_fcidump (ci.h); orbsym has CIS_CI_MAX_ORB entries
    _fields_ = [("norb", ctypes.c_int), ("nelec", ctypes.c_int), ("ms2", ctypes.c_int), ("isym", ctypes.c_int),
                ("uhf", ctypes.c_int), ("orbsym", ctypes.c_int * 128), ("ecore", ctypes.c_double), ("h1", _dp),
                ("eri", _dp), ("npair", ctypes.c_int64), ("neri", ctypes.c_int64), ("sym_numbering", ctypes.c_int),
                ("isym_assumed", ctypes.c_int), ("isym_file", ctypes.c_int)]


class _direct_gpu_opts(ctypes.Structure):  # cis_ci_direct_gpu_opts
    _fields_ = [("work_bytes", ctypes.c_int64), ("vectors", ctypes.c_int), ("max_k", ctypes.c_int)]


class _direct_opts(ctypes.Structure):  # cis_ci_direct_opts
    _fields_ = [("mem_limit", ctypes.c_int64), ("block_bytes", ctypes.c_int64), ("vectors", ctypes.c_int),
                ("ignore_symmetry", ctypes.c_int), ("no_time_reversal", ctypes.c_int),
                ("symmetry_projection", ctypes.c_int)]


class _solve_opts(ctypes.Structure):  # cis_ci_solve_opts (ci_solve.h); size checked at import
    _fields_ = [("method", ctypes.c_int), ("gpu", ctypes.c_int), ("build", ctypes.c_int), ("gpus", ctypes.c_int),
                ("cpu_parts", ctypes.c_int), ("host_vectors", ctypes.c_int), ("exchange", ctypes.c_char_p),
                ("level", ctypes.c_int),
                ("roots", ctypes.c_int), ("spin", ctypes.c_double), ("isym", ctypes.c_int), ("occ", ctypes.c_char_p),
                ("tol", ctypes.c_double), ("etol", ctypes.c_double), ("max_iter", ctypes.c_int),
                ("max_sub", ctypes.c_int), ("pspace", ctypes.c_int), ("format", ctypes.c_char_p),
                ("kernel", ctypes.c_char_p), ("symmetric", ctypes.c_int), ("float_values", ctypes.c_int),
                ("save", ctypes.c_char_p), ("no_time_reversal", ctypes.c_int), ("symmetry_projection", ctypes.c_int),
                ("no_s2", ctypes.c_int), ("block_products", ctypes.c_int), ("verbose", ctypes.c_int),
                ("count_only", ctypes.c_int), ("repeat", ctypes.c_int), ("accept_unconverged", ctypes.c_int),
                ("keep_vectors", ctypes.c_int), ("time_sigma", ctypes.c_int), ("gpu_leave_free", ctypes.c_int64),
                ("spin_penalty", ctypes.c_double), ("spin_penalty_ss", ctypes.c_double), ("guess", _dp),
                ("nguess", ctypes.c_int), ("progress", ctypes.c_void_p), ("progress_user", ctypes.c_void_p),
                ("singlet", ctypes.c_int), ("comm", ctypes.c_void_p)]


class _rdm12(ctypes.Structure):  # cis_ci_rdm12: NULL = not wanted
    _fields_ = [(name, _dp) for name in ("rdm1", "rdm2", "rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb")]


_P = ctypes.c_void_p
_DEVICE_ROOM = 6 << 30  # device bytes a sigma workspace leaves free: the RDMs' workspace (4 GiB) and margins
_ALL_GPUS = -1  # CIS_CI_ALL_GPUS of ci_solve.h: every GPU of the host


def _pyscf_addresses(D, norb, na, nb):
    """PySCF's addresses (cistring) of the direct space D's alpha and beta
    strings, in D's order (determinant A * nB + B), and whether that order is
    PySCF's already (then no reindexing is needed)."""
    nA, nB = cistring.num_strings(norb, na), cistring.num_strings(norb, nb)
    a, b = ctypes.c_uint64(), ctypes.c_uint64()
    A = np.empty(nA, dtype=np.int64)
    B = np.empty(nB, dtype=np.int64)
    for i in range(nA):
        L.lib.cis_ci_direct_det(D, i * nB, ctypes.byref(a), ctypes.byref(b))
        A[i] = a.value
    for j in range(nB):
        L.lib.cis_ci_direct_det(D, j, ctypes.byref(a), ctypes.byref(b))
        B[j] = b.value
    ia, ib = cistring.strs2addr(norb, na, A), cistring.strs2addr(norb, nb, B)
    return ia, ib, bool(np.all(ia == np.arange(nA)) and np.all(ib == np.arange(nB)))


def _release(obj, *handles):
    """Free obj's C handles (attribute name, free function) that are set, in
    order, and clear them: close() may run twice (explicitly, then __del__)."""
    for name, free in handles:
        h = getattr(obj, name, None)
        if h:
            free(h)
            setattr(obj, name, None)
for _cls, _cname in ((_fcidump, "cis_fcidump"), (_direct_gpu_opts, "cis_ci_direct_gpu_opts"),
                     (_direct_opts, "cis_ci_direct_opts"), (_solve_opts, "cis_ci_solve_opts"), (_rdm12, "cis_ci_rdm12")):
    L.check_struct(_cls, _cname)  # a mirror that no longer matches its C struct fails here, at import

for _name, _res, _args in [
    ("cis_ci_solve_opts_default", _solve_opts, []),
    ("cis_ci_solver_create", ctypes.c_int, [ctypes.POINTER(_P)]),
    ("cis_ci_solver_free", None, [_P]),
    ("cis_ci_solver_solve", ctypes.c_int, [_P, _P, ctypes.POINTER(_solve_opts), ctypes.POINTER(_P)]),
    ("cis_ci_solver_dets", ctypes.c_int, [_P, _P, ctypes.POINTER(_solve_opts), _u64p, _u64p,
                                          ctypes.POINTER(ctypes.c_int64)]),
    ("cis_ci_result_value", ctypes.c_double, [_P, ctypes.c_char_p]),
    ("cis_ci_result_array", ctypes.c_void_p, [_P, ctypes.c_char_p]),
    ("cis_ci_result_free", None, [_P]),
    ("cis_ci_direct_rdm12", ctypes.c_int, [_P, _dp, _dp, ctypes.POINTER(_rdm12)]),
    ("cis_ci_direct_gpu_sigma", ctypes.c_int, [_P, ctypes.c_int, _P, _P, _P]),
    ("cis_ci_direct_sigma", ctypes.c_int, [_P, ctypes.c_int, _dp, _dp]),
    ("cis_gpu_malloc", ctypes.c_int, [ctypes.POINTER(_P), ctypes.c_size_t]),
    ("cis_gpu_free", None, [_P]),
    ("cis_gpu_upload", ctypes.c_int, [_P, _P, ctypes.c_size_t]),
    ("cis_gpu_download", ctypes.c_int, [_P, _P, ctypes.c_size_t]),
    ("cis_ci_direct_gpu_rdm_create", ctypes.c_int, [_P, ctypes.c_int64, ctypes.POINTER(_P)]),
    ("cis_ci_direct_gpu_rdm_free", None, [_P]),
    ("cis_ci_direct_gpu_rdm12", ctypes.c_int, [_P, _dp, _dp, ctypes.c_int, ctypes.POINTER(_rdm12), _P]),
    ("cis_ci_direct_create", ctypes.c_int, [_P, _P, ctypes.POINTER(_P)]),
    ("cis_ci_direct_free", None, [_P]),
    ("cis_ci_direct_set_integrals", ctypes.c_int, [_P, _P]),
    ("cis_ci_direct_gpu_set_integrals", ctypes.c_int, [_P]),
    ("cis_ci_direct_size", ctypes.c_int64, [_P]),
    ("cis_ci_direct_det", None, [_P, ctypes.c_int64, _u64p, _u64p]),
    ("cis_ci_direct_gpu_create", ctypes.c_int, [_P, ctypes.POINTER(_direct_gpu_opts), ctypes.POINTER(_P)]),
    ("cis_ci_direct_gpu_free", None, [_P]),
]:
    _f = getattr(L.lib, _name)
    _f.restype, _f.argtypes = _res, _args


def _make_fcidump(norb, nelec, orbsym=None, wfnsym=None):
    """A cis_fcidump header for PySCF's integrals (pointers set by the caller):
    C1, or with orbsym and an integer wfnsym the XOR irreps of D2h and its
    subgroups (PySCF's 0-based ids, stored 1-based)."""
    na, nb = nelec
    F = _fcidump()
    F.norb, F.nelec, F.ms2, F.isym, F.uhf = norb, na + nb, na - nb, 1, 0
    for i in range(len(F.orbsym)):
        F.orbsym[i] = 1
    if orbsym is not None and wfnsym is not None:
        for i, s in enumerate(orbsym):
            F.orbsym[i] = int(s) % 10 + 1
        F.isym = int(wfnsym) % 10 + 1
    F.npair = norb * (norb + 1) // 2
    F.neri = F.npair * (F.npair + 1) // 2
    F.ecore = 0.0
    return F


class _Order:
    """The map between the driver's determinant order and PySCF's flat
    (alpha, beta) address of a space: from per-determinant strings (A, B of
    every entry) or, for the direct path's grid (entry a * len(gb) + b is
    strings ga[a], gb[b]), from the strings of each axis alone."""

    def __init__(self, key, norb, nelec, A=None, B=None, ga=None, gb=None):
        na, nb = nelec
        self.key, self.identity = key, False
        self.shape = (cistring.num_strings(norb, na), cistring.num_strings(norb, nb))
        if ga is not None:
            ia = cistring.strs2addr(norb, na, ga.astype(np.int64))
            ib = cistring.strs2addr(norb, nb, gb.astype(np.int64))
            self.identity = len(ia) * len(ib) == self.shape[0] * self.shape[1] and \
                bool(np.all(ia == np.arange(len(ia))) and np.all(ib == np.arange(len(ib))))
            self.index = None if self.identity else (ia[:, None] * self.shape[1] + ib[None, :]).ravel()
        else:
            self.index = cistring.strs2addr(norb, na, A.astype(np.int64)) * self.shape[1] + \
                cistring.strs2addr(norb, nb, B.astype(np.int64))

    def to_pyscf(self, v):
        if self.identity:
            return np.array(v, dtype=np.float64).reshape(self.shape)
        ci = np.zeros(self.shape[0] * self.shape[1])
        ci[self.index] = v
        return ci.reshape(self.shape)

    def from_pyscf(self, v):
        """A flat PySCF vector in the driver's order."""
        return np.ascontiguousarray(v if self.identity else v[self.index])


class _Solver:
    """A cis_ci_solver (the driver's kept space) and the order of its last space."""

    def __init__(self):
        self.h, self._order = _P(), None
        check(L.lib.cis_ci_solver_create(ctypes.byref(self.h)))

    @staticmethod
    def key(F, o):
        return (F.norb, F.nelec, F.ms2, F.isym, tuple(F.orbsym[:F.norb]), o.method, o.gpu, bool(o.spin_penalty),
                bool(o.singlet))

    def order(self, F, o, norb, nelec):
        """The _Order of the space a solve of F with o uses: the last
        solve's when it was of this space, else cis_ci_solver_dets (which
        makes the space the solve then reuses)."""
        key = _Solver.key(F, o)
        if self._order is None or self._order.key != key:
            n = ctypes.c_int64()
            check(L.lib.cis_ci_solver_dets(self.h, ctypes.byref(F), ctypes.byref(o), None, None, ctypes.byref(n)))
            A = np.empty(n.value, dtype=np.uint64)
            B = np.empty(n.value, dtype=np.uint64)
            check(L.lib.cis_ci_solver_dets(self.h, ctypes.byref(F), ctypes.byref(o), A.ctypes.data_as(_u64p),
                                           B.ctypes.data_as(_u64p), ctypes.byref(n)))
            self._order = _Order(key, norb, nelec, A=A, B=B)
        return self._order

    def result_order(self, R, F, o, norb, nelec, size):
        """The _Order of result R's vectors (its determinants), kept for the next solve."""
        key = _Solver.key(F, o)
        if self._order is None or self._order.key != key:
            arr = lambda name, n: np.ctypeslib.as_array(  # noqa: E731
                ctypes.cast(L.lib.cis_ci_result_array(R, name), _u64p), (n,)).copy()
            na, nb = (int(L.lib.cis_ci_result_value(R, k)) for k in (b"grid_alpha_n", b"grid_beta_n"))
            if na:
                self._order = _Order(key, norb, nelec, ga=arr(b"grid_alpha", na), gb=arr(b"grid_beta", nb))
            else:
                self._order = _Order(key, norb, nelec, A=arr(b"det_alpha", size), B=arr(b"det_beta", size))
        return self._order

    def solve(self, F, o):
        R = _P()
        check(L.lib.cis_ci_solver_solve(self.h, ctypes.byref(F), ctypes.byref(o), ctypes.byref(R)))
        return R

    def close(self):
        _release(self, ("h", L.lib.cis_ci_solver_free))

    __del__ = close


def _ci0_list(ci0, shape):
    """ci0 as a list of flat vectors of the space's nA * nB entries (PySCF
    passes one array, a list or stack of them, or None): a vector of another
    size is a ValueError naming both sizes; complex ones a TypeError; those
    with NaN/Inf or all zeros are skipped (no guess), those that depend on
    the ones before dropped (_independent)."""
    if ci0 is None:
        return []
    size = shape[0] * shape[1]
    one = isinstance(ci0, np.ndarray) and (ci0.size == size or ci0.ndim < 2)  # PySCF's rule (and 0-d, 1-d)
    out = []
    for v in ([ci0] if one else list(ci0)):
        if np.iscomplexobj(v):
            raise TypeError("cisparse.fci: ci0 is complex: CI vectors are real")
        v = np.asarray(v, dtype=np.float64).reshape(-1)
        if v.size != size:
            raise ValueError(f"cisparse.fci: ci0 has a vector of {v.size} entries; the space has {size} "
                             f"determinants ({shape[0]} x {shape[1]})")
        if np.all(np.isfinite(v)) and np.any(v):
            out.append(v)
    return _independent(out)


def _independent(vs, lindep=1e-7):
    """vs made orthonormal in order (Gram-Schmidt, twice), those that depend
    on the ones before (a part outside their span below lindep of the
    vector's norm) dropped, as PySCF's Davidson drops them from its guesses
    (its QR); the driver then adds P-space guesses for the roots left."""
    out = []
    for v in vs:
        n0 = np.linalg.norm(v)
        w = v / n0
        for _ in range(2):
            for b in out:
                w = w - (b @ w) * b
        n1 = np.linalg.norm(w)
        if n1 > lindep:
            out.append(w / n1)
    return out


# PySCF's FCISolver.kernel keywords that the driver has no use for (its own
# Davidson, subspace and P-space): accepted and ignored; any other is refused.
_PYSCF_KERNEL_KEYWORDS = frozenset(("lindep", "max_space", "davidson_only", "pspace_size", "link_index", "hop",
                                    "verbose", "max_memory"))
_DEVICES = ("auto", "gpu", "cpu")
DEVICE_ENV = "CISPARSE_FCI_DEVICE"  # the device of a solver made without one (auto, gpu or cpu)


def _check_device(device):
    if device not in _DEVICES:
        raise ValueError(f"cisparse.fci: device must be auto, gpu or cpu, got {device!r}")


def _default_device():
    """$CISPARSE_FCI_DEVICE (checked), else 'auto': how a program that makes
    its solvers itself (PySCF's tests with this solver substituted) puts
    them on the GPU or the CPU."""
    device = os.environ.get(DEVICE_ENV) or "auto"
    if device not in _DEVICES:
        raise ValueError(f"cisparse.fci: ${DEVICE_ENV} must be auto, gpu or cpu, got {device!r}")
    return device


def _strings_per_irrep(orbsym, n):
    """How many strings of n electrons in the orbitals of irreps orbsym (D2h
    ids modulo 10, as _make_fcidump folds them) have each irrep 0..7 (their
    XOR): a recursion over the orbitals, no strings made."""
    cnt = [[0] * 8 for _ in range(n + 1)]
    cnt[0][0] = 1
    for s in orbsym:
        s = int(s) % 10
        for k in range(n, 0, -1):  # cnt[k - 1] is still the count without this orbital
            for g in range(8):
                cnt[k][g ^ s] += cnt[k - 1][g]
    return cnt[n]


def _space_states(norb, nelec, orbsym, wfnsym, singlet):
    """The number of states the solve's space holds: determinants of irrep
    wfnsym (all without orbsym or wfnsym), or with singlet the vectors
    symmetric under alpha <-> beta among them (unordered string pairs)."""
    na, nb = nelec
    if orbsym is None or wfnsym is None:
        sa, sb = cistring.num_strings(norb, na), cistring.num_strings(norb, nb)
        return (sa * sb + sa) // 2 if singlet else sa * sb
    a, b = _strings_per_irrep(orbsym, na), _strings_per_irrep(orbsym, nb)
    w = int(wfnsym) % 10
    dets = sum(a[g] * b[g ^ w] for g in range(8))
    return (dets + (sum(a) if w == 0 else 0)) // 2 if singlet else dets


def _penalty_spins(ss_value, norb, nelec, singlet):
    """The spins S a fix_spin_ solve must reach (PySCF's SpinPenaltyFCISolver
    rule): below Sz(Sz+1) + 0.1 the penalty shift (S^2 - ss) leaves the
    lowest spin Sz unshifted; above, shift (S^2 - ss)^2 leaves S(S+1) = ss.
    A ValueError where ss is no S(S+1) of a spin the space holds (Sz .. Smax,
    Smax = the open shells' most / 2; a singlet-only solver, S = 0, 2, ...)."""
    na, nb = nelec
    sz = abs(na - nb) * 0.5
    lowest = sz * (sz + 1)
    ss = lowest if ss_value is None else float(ss_value)
    if not np.isfinite(ss):
        raise ValueError(f"cisparse.fci: fix_spin_'s ss must be finite, got {ss_value!r}")
    if ss < lowest + 0.1:
        return ss, (sz,)
    smax = min(na + nb, 2 * norb - na - nb) * 0.5
    spins = [s for s in np.arange(sz, smax + 0.25, 1.0) if not singlet or int(round(s)) % 2 == 0]
    hit = [s for s in spins if abs(s * (s + 1) - ss) <= 1e-6 * max(1.0, ss)]
    if not hit:
        allowed = ", ".join(f"{s * (s + 1):g}" for s in spins)
        raise ValueError(f"cisparse.fci: fix_spin_'s ss = {ss:g} is no <S^2> = S(S+1) of this space "
                         f"({na}a + {nb}b electrons in {norb} orbitals{', singlet-only' if singlet else ''}: "
                         f"{allowed})")
    return ss, (hit[0],)


def _spin_project(v, norb, nelec, S, smax):
    """Lowdin's projector onto spin S of the PySCF CI array v: the product
    over the other spins S' (Sz .. smax) of (S^2 - S'(S'+1)) / (S(S+1) -
    S'(S'+1)), S^2 as PySCF's spin_op.contract_ss (Lowdin, Phys. Rev. 97,
    1509 (1955))."""
    sz = abs(nelec[0] - nelec[1]) * 0.5
    for sp in np.arange(sz, smax + 0.25, 1.0):
        if abs(sp - S) > 0.25:
            w = spin_op.contract_ss(v, norb, nelec).reshape(v.shape)
            v = (w - sp * (sp + 1) * v) / (S * (S + 1) - sp * (sp + 1))
    return v


def _string_irreps(strs, orbsym, norb):
    irr = np.zeros(len(strs), dtype=np.int64)
    for p in range(norb):
        irr ^= np.where((strs >> p) & 1, int(orbsym[p]) % 10, 0)
    return irr


def _keeps_symmetry(eri, orbsym, norb):
    """Whether the 2-index-pair integrals eri (any of PySCF's packings) are
    zero, to 1e-10 of the largest, wherever orbsym's irreps forbid them
    (the blocked sigma drops those entries)."""
    X = ao2mo.restore(1, np.asarray(eri, dtype=np.float64), norb)
    o = np.asarray(orbsym, dtype=np.int64) % 10
    forbidden = (o[:, None, None, None] ^ o[None, :, None, None] ^ o[None, None, :, None] ^ o[None, None, None, :]) != 0
    big = np.abs(X).max()
    return not forbidden.any() or np.abs(X[forbidden]).max() <= 1e-10 * big


def _vector_irrep(c, orbsym, norb, nelec):
    """The D2h irrep id (0..7, of orbsym's ids mod 10) holding every nonzero
    of the CI vector c (PySCF's nA x nB layout), or None when c has weight
    in two irreps (then only a C1 sigma is exact) or is zero."""
    sa = cistring.make_strings(range(norb), nelec[0])
    sb = sa if nelec[1] == nelec[0] else cistring.make_strings(range(norb), nelec[1])
    ia = _string_irreps(sa, orbsym, norb)
    ib = ia if sb is sa else _string_irreps(sb, orbsym, norb)
    det = (ia[:, None] ^ ib[None, :]).ravel()
    held = np.flatnonzero(np.bincount(det[np.asarray(c).ravel() != 0], minlength=8))
    return int(held[0]) if held.size == 1 else None


def _penalty_guesses(h1e, eri, norb, nelec, start, S, nroots, orbsym, wfnsym):
    """Davidson's first vectors for a fix_spin_ solve, flat in PySCF's order:
    (1) vectors of spin S, nroots + 2 where the space has them: the caller's
    ci0 projected onto S, then P-space states (H among the 400 lowest
    determinants, PySCF's pspace) and then the lowest determinants (H's
    diagonal) with at least 2S open shells, each projected onto S (Lowdin),
    made orthonormal; (2) the nroots + 1 lowest P-space states as they are
    (the low states of every spin and alpha <-> beta parity), so that
    Davidson meets whatever state is lowest under the penalty and the spin
    check after it says so. Symmetry (orbsym and wfnsym): only
    determinants of irrep wfnsym (S^2 keeps the irrep)."""
    na, nb = nelec
    sa, sb = cistring.make_strings(range(norb), na), cistring.make_strings(range(norb), nb)
    shape = (len(sa), len(sb))
    smax = min(na + nb, 2 * norb - na - nb) * 0.5
    hdiag = np.asarray(direct_spin1.make_hdiag(h1e.reshape(norb, norb), eri, norb, nelec), dtype=np.float64).ravel()
    openshells = np.bitwise_count(sa[:, None] ^ sb[None, :]).ravel()
    allowed = np.ones(hdiag.size, dtype=bool)
    if orbsym is not None and wfnsym is not None:
        ia, ib = _string_irreps(sa, orbsym, norb), _string_irreps(sb, orbsym, norb)
        allowed = ((ia[:, None] ^ ib[None, :]) == int(wfnsym) % 10).ravel()
    want = nroots + 2
    basis = []

    def add(v):  # Gram-Schmidt twice; dependent vectors dropped
        v = v.ravel().copy()
        n0 = np.linalg.norm(v)
        for _ in range(2):
            for b in basis:
                v -= (b @ v) * b
        n1 = np.linalg.norm(v)
        if n0 > 0 and n1 > 1e-6 * n0:
            basis.append(v / n1)

    for v in start:
        add(_spin_project(v.reshape(shape), norb, nelec, S, smax))
    # P-space states (PySCF's pspace: H among the 400 lowest determinants of the irrep)
    addr, h0 = direct_spin1.pspace(h1e.reshape(norb, norb), eri, norb, nelec, np.where(allowed, hdiag, 1e10),
                                   min(400, hdiag.size))
    w, u = np.linalg.eigh(h0)
    if len(basis) < want:  # projected onto S
        for k in range(min(len(w), 4 * want)):
            if len(basis) >= want:
                break
            e = np.zeros(hdiag.size)
            e[addr] = u[:, k]
            e[~allowed] = 0.0  # another irrep's P-space states (H keeps irreps apart)
            if np.any(e):
                add(_spin_project(e.reshape(shape), norb, nelec, S, smax))
    cand = np.where(allowed & (openshells >= int(round(2 * S))), hdiag, np.inf)
    m = min(cand.size, 64 * want)
    order = np.argpartition(cand, m - 1)[:m] if m < cand.size else np.arange(cand.size)
    for i in order[np.argsort(cand[order], kind="stable")]:
        if len(basis) >= want or not np.isfinite(cand[i]):
            break
        e = np.zeros(shape)
        e.flat[i] = 1.0
        add(_spin_project(e, norb, nelec, S, smax))
    spin_s = len(basis)
    others = 0
    for k in range(len(w)):  # the lowest P-space states of the irrep as they are (other spins)
        if others > nroots:
            break
        e = np.zeros(hdiag.size)
        e[addr] = u[:, k]
        e[~allowed] = 0.0
        if np.linalg.norm(e) > 0.5:
            add(e)
            others += 1
    return basis, spin_s


def _check_penalty_spins(cis, norb, nelec, S, ss, e, shift):
    """Every root of a fix_spin_ solve has <S^2> = S(S+1) (to 1e-4), else a
    CisparseError (ERR_NOT_CONVERGED) naming the root and its <S^2>: the
    lowest states of H + shift P are then of another spin, which would be
    no answer for the spin asked."""
    want = S * (S + 1)
    for k, c in enumerate(cis):
        got = spin_op.spin_square0(c, norb, nelec)[0]
        if abs(got - want) > 1e-4 * max(1.0, want):
            raise CisparseError(L.ERR_NOT_CONVERGED,
                                f"cisparse.fci: fix_spin_ did not reach <S^2> = {want:g} (ss = {ss:g}): root {k} "
                                f"has <S^2> = {round(got, 6) + 0.0:g} (E = {e[k]:.10g} with the penalty); the lowest "
                                f"states of H + {shift:g} P are of another spin here: a larger shift may reach the "
                                "spin asked")


def _symmetric_part(c):
    """PySCF's direct_spin0 check of a singlet-only root: (c + c^T) / 2
    normalized; a ValueError ('State not singlet') where that changes its
    norm by more than 1e-6."""
    c = (c + c.T) * 0.5
    norm = np.linalg.norm(c)
    if abs(norm - 1) > 1e-6:
        raise ValueError(f"cisparse.fci: State not singlet {norm - 1:g}")
    return c / norm


def _check_space(norb, nelec):
    """norb and the (alpha, beta) counts as ints: a ValueError naming the
    argument unless 1 <= norb <= 64 and 0 <= each count <= norb."""
    norb = L.int_arg("cisparse.fci: norb", norb, ctypes.c_int, lo=1)
    if norb > 64:
        raise ValueError(f"cisparse.fci: at most 64 active orbitals, got {norb}")
    na, nb = (L.int_arg("cisparse.fci: nelec", n, ctypes.c_int) for n in nelec)
    if not (0 <= na <= norb and 0 <= nb <= norb):
        raise ValueError(f"cisparse.fci: nelec = ({na}, {nb}) (alpha, beta) does not fit norb = {norb}: "
                         f"each count must be in [0, {norb}]")
    return norb, (na, nb)


def _check_irreps(orbsym, wfnsym, norb):
    """orbsym (norb irrep ids; PySCF's linear-molecule ids reduce to their
    D2h irrep modulo 10, as _make_fcidump does) and wfnsym (an irrep of D2h
    or a subgroup, 0..7): a ValueError naming the argument otherwise."""
    if orbsym is not None:
        o = np.asarray(orbsym)
        if o.ndim != 1 or o.size != norb:
            raise ValueError(f"cisparse.fci: orbsym has {o.size} entries (shape {o.shape}) for norb = {norb} orbitals")
        if o.dtype.kind not in "iuf" or not np.all(np.isfinite(o)) or np.any(o != np.round(o)) or np.any(o < 0) \
                or np.any(np.asarray(o, dtype=np.int64) % 10 > 7):
            raise ValueError(f"cisparse.fci: orbsym holds an impossible irrep id ({list(o)}): PySCF's ids of D2h and "
                             "its subgroups are 0..7 (a linear molecule's reduce to them modulo 10)")
    if wfnsym is not None and not (isinstance(wfnsym, (int, np.integer)) and 0 <= wfnsym <= 7):
        raise ValueError(f"cisparse.fci: wfnsym must be an irrep id 0..7 of D2h or a subgroup (or its name), "
                         f"got {wfnsym!r}")


def _finite(name, a):
    """a as a float64 array; a ValueError naming it when it holds NaN or Inf."""
    if np.iscomplexobj(a):
        raise TypeError(f"cisparse.fci: {name} is complex: the integrals must be real")
    a = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"cisparse.fci: {name} holds NaN or Inf ({int(np.sum(~np.isfinite(a)))} entries)")
    return a


class _DirectBase:
    """A direct space (cis_ci_direct_create) of (norb, nelec) made for F,
    a header with its own integral arrays (zero until loaded), and the map
    between PySCF's (alpha, beta) string addresses and D's order; what the
    RDM space and the kept Davidson/contract_2e space share."""

    def _create(self, norb, nelec, orbsym=None, wfnsym=None, opts=None):
        na, nb = nelec
        self.norb, self.D = norb, None
        F = self.F = _make_fcidump(norb, nelec, orbsym, wfnsym)
        self.h1 = np.zeros((norb, norb))
        self.eri = np.zeros(int(F.neri))
        F.h1, F.eri = self.h1.ctypes.data_as(_dp), self.eri.ctypes.data_as(_dp)
        D = _P()
        check(L.lib.cis_ci_direct_create(ctypes.byref(F), None if opts is None else ctypes.byref(opts),
                                         ctypes.byref(D)))
        self.D = D
        self.n = int(L.lib.cis_ci_direct_size(D))
        self.shape = (cistring.num_strings(norb, na), cistring.num_strings(norb, nb))
        if self.n != self.shape[0] * self.shape[1]:
            raise CisparseError(L.ERR_INVALID, f"direct space of {self.n} determinants, expected {self.shape}")
        self.ia, self.ib, self.identity = _pyscf_addresses(D, norb, na, nb)

    def to_direct(self, ci):
        """A PySCF CI vector (any shape of nA x nB entries) as a contiguous
        vector in D's order."""
        v = np.asarray(ci, dtype=np.float64)
        nA, nB = self.shape
        if v.size != nA * nB:
            raise ValueError(f"cisparse.fci: a CI vector of {v.size} entries for {nA} x {nB} determinants")
        v = v.reshape(nA, nB)
        if not self.identity:
            v = v[np.ix_(self.ia, self.ib)]
        return np.ascontiguousarray(v).reshape(-1)

    def to_pyscf(self, v):
        """A vector in D's order as PySCF's nA x nB CI array."""
        if self.identity:
            return np.asarray(v).reshape(self.shape)
        ci = np.empty(self.shape)
        ci[np.ix_(self.ia, self.ib)] = np.asarray(v).reshape(self.shape)
        return ci


class _RdmSpace(_DirectBase):
    """The direct space of (norb, nelec) in C1 for the RDMs alone (zero
    integrals: RDMs need none; a minimal sigma workspace), its links on the
    GPU (cis_ci_direct_gpu_rdm_create) when one is used, and the map from
    PySCF's (alpha, beta) addresses to cisparse's direct order. The solver
    keeps it across calls with the same norb and nelec (CASSCF's
    macro-iterations), so only the CI vectors travel."""

    _NAMES = ("rdm1", "rdm2", "rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb")

    def __init__(self, norb, nelec, gpu, orbsym=None):
        na, nb = nelec
        self.key = _RdmSpace.key_of(norb, nelec, gpu, orbsym)
        self.R = None
        o = _direct_opts()
        o.block_bytes, o.vectors, o.ignore_symmetry, o.no_time_reversal = 1 << 20, 1, 1, 1
        # a C1 space that knows orbsym: the host RDMs of vectors of one irrep
        # take D blocked by irreps (src/ci/rdm_irrep.c)
        self._create(norb, nelec, orbsym, None if orbsym is None else 0, opts=o)

    @staticmethod
    def key_of(norb, nelec, gpu, orbsym):
        return (norb, nelec[0], nelec[1], bool(gpu), None if orbsym is None else tuple(int(x) for x in orbsym))
        if gpu:
            R = _P()
            check(L.lib.cis_ci_direct_gpu_rdm_create(self.D, 0, ctypes.byref(R)))
            self.R = R

    def close(self):
        _release(self, ("R", L.lib.cis_ci_direct_gpu_rdm_free), ("D", L.lib.cis_ci_direct_free))

    __del__ = close

    def rdm12(self, bra, ket, want):
        """The RDMs named in want (cis_ci_rdm12's fields) of <bra| and |ket>
        (bra None: the state RDMs of ket), as NumPy arrays."""
        n = self.norb
        k = self.to_direct(ket)
        b = None if bra is None else self.to_direct(bra)
        out, o = {}, _rdm12()
        for name in want:
            out[name] = np.empty((n, n) if name.startswith("rdm1") else (n, n, n, n))
            setattr(o, name, out[name].ctypes.data_as(_dp))
        bp = None if b is None else b.ctypes.data_as(_dp)
        if self.R:
            check(L.lib.cis_ci_direct_gpu_rdm12(self.R, bp, k.ctypes.data_as(_dp), 0, ctypes.byref(o), None))
        else:
            check(L.lib.cis_ci_direct_rdm12(self.D, bp, k.ctypes.data_as(_dp), ctypes.byref(o)))
        return out


class _DirectSpace(_DirectBase):
    """The direct space of (norb, nelec[, orbsym, wfnsym]) kept across calls:
    CASSCF asks for the same space every macro-iteration with new orbitals,
    and calls contract_2e with absorb_h1e's integrals in between. Holds F with
    its own integral arrays, D (cis_ci_direct_create), PySCF's addresses of
    D's strings, and on the GPU one G (cis_ci_direct_gpu_create) for
    Davidson's and contract_2e's products. New integrals go in through
    cis_ci_direct_set_integrals and cis_ci_direct_gpu_set_integrals, so the
    strings, links and device workspace are made once per space."""

    room = _DEVICE_ROOM

    def __init__(self, norb, nelec, orbsym, wfnsym, gpu):
        self.key = _DirectSpace.key_of(norb, nelec, orbsym, wfnsym, gpu)
        self.gpu = bool(gpu)
        self.G = self.dc = self.ds = None
        self.vectors, self.src = 0, None
        self._create(norb, nelec, orbsym, wfnsym)

    @staticmethod
    def key_of(norb, nelec, orbsym, wfnsym, gpu):
        sym = None if orbsym is None or wfnsym is None else (tuple(int(x) for x in orbsym), int(wfnsym))
        return (norb, tuple(nelec), sym, bool(gpu))

    def close(self):
        _release(self, ("dc", L.lib.cis_gpu_free), ("ds", L.lib.cis_gpu_free), ("G", L.lib.cis_ci_direct_gpu_free),
                 ("D", L.lib.cis_ci_direct_free))

    __del__ = close

    def load(self, h1e, eri, src=None):
        """Make (h1e, eri) D's (and G's) integrals; src: an object standing
        for them (contract_2e's h2eff), skipped when it is the one loaded."""
        if src is not None and src is self.src:
            return
        norb = self.norb
        self.h1[:] = np.asarray(h1e, dtype=np.float64).reshape(norb, norb)
        self.eri[:] = ao2mo.restore(8, np.asarray(eri, dtype=np.float64), norb)
        check(L.lib.cis_ci_direct_set_integrals(self.D, ctypes.byref(self.F)))
        if self.G:
            check(L.lib.cis_ci_direct_gpu_set_integrals(self.G))
        self.src = src

    def load_h2eff(self, h2eff):
        """contract_2e(X) c = sum_pqrs X_pqrs E_pq E_rs c is the Hamiltonian
        of eri = 2 X and h_ps = sum_q X_pqqs (the -1/2 (pq|qs) E_ps term of H
        cancels h), so the direct sigma applies unchanged."""
        if h2eff is self.src:
            return
        X = ao2mo.restore(1, np.asarray(h2eff, dtype=np.float64), self.norb)
        h1 = np.einsum("pqqs->ps", X)
        self.load((h1 + h1.T) * 0.5, ao2mo.restore(8, 2.0 * X, self.norb), src=h2eff)

    def gpu_sigma(self, vectors, work_cap=None):
        """G, made (or made again) with room for `vectors` device vectors of
        this space beside its workspace, which leaves `room` bytes free (and
        takes at most work_cap bytes)."""
        if self.G and self.vectors >= vectors:
            return self.G
        _release(self, ("G", L.lib.cis_ci_direct_gpu_free))
        gi = L.cis_gpu_info()
        check(L.lib.cis_gpu_get_info(ctypes.byref(gi)))
        go = _direct_gpu_opts()
        go.vectors = vectors
        work = int(gi.free_mem) - 8 * self.n * vectors - self.room
        go.work_bytes = max(min(work, work_cap) if work_cap else work, 256 << 20)
        G = _P()
        check(L.lib.cis_ci_direct_gpu_create(self.D, ctypes.byref(go), ctypes.byref(G)))
        self.G, self.vectors = G, vectors
        return G

    def contract(self, h2eff, ci):
        """contract_2e(h2eff, ci) as PySCF's, on the GPU when the space has
        one (the host sigma otherwise)."""
        self.load_h2eff(h2eff)
        c = self.to_direct(ci)
        out = np.empty(self.n)
        if not self.gpu:
            check(L.lib.cis_ci_direct_sigma(self.D, 1, c.ctypes.data_as(_dp), out.ctypes.data_as(_dp)))
            return self.to_pyscf(out)
        G = self.gpu_sigma(max(self.vectors, 2), work_cap=8 << 30)
        if not self.dc:
            self.dc, self.ds = _P(), _P()
            check(L.lib.cis_gpu_malloc(ctypes.byref(self.dc), 8 * self.n))
            check(L.lib.cis_gpu_malloc(ctypes.byref(self.ds), 8 * self.n))
        check(L.lib.cis_gpu_upload(self.dc, c.ctypes.data_as(_P), 8 * self.n))
        check(L.lib.cis_ci_direct_gpu_sigma(G, 1, self.dc, self.ds, None))
        check(L.lib.cis_gpu_download(out.ctypes.data_as(_P), self.ds, 8 * self.n))
        return self.to_pyscf(out)


def _serialised(method):
    """method run under the solver's lock (_call_lock): one call at a time
    per solver, whichever thread makes it."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._call_lock():
            return method(self, *args, **kwargs)
    return run


class FCISolver(direct_spin1.FCISolver):
    """PySCF's FCISolver interface on cisparse's CI Hamiltonian and Davidson.

    device: 'auto' (the GPU when one is usable), 'gpu' or 'cpu'.
    gpus: spread the CI over this many GPUs of the host (NCCL; 0 = all of
    them): the direct sigma split by alpha strings, Davidson's vectors split
    over the GPUs (``cisparse ci --gpus N``); None: one device. cpu_parts:
    the same distributed path over this many CPU parts (for tests).
    host_vectors (with gpus): 'auto' (default: Davidson's vectors in host
    memory only where they cannot fit the GPUs beside the sigma), 'always'
    or 'never' (``--host-vectors``).
    Attributes as PySCF's: nroots, conv_tol (energy), max_cycle, max_space
    (Davidson's subspace: max_space + 4 per root after the first, as PySCF's),
    spin, orbsym, wfnsym, verbose; after kernel: converged, eci, ci, and
    cisparse's figures in ``stats`` (device, size, nonzeros, iterations,
    products, seconds).
    Threads: one solver may be called from several threads; its calls that
    touch the kept state (kernel, contract_2e and the RDMs) are
    serialised by a lock of the solver (each runs alone, in turn; the C
    solver serialises its own calls too), so each returns what it would
    alone. Separate solvers run concurrently."""

    rdm_min = 1500  # RDMs from this many determinants on are cisparse's (PySCF's below)
    room = _DEVICE_ROOM

    def __init__(self, mol=None, device=None, method="auto", singlet=False, gpus=None, cpu_parts=None):
        super().__init__(mol)
        device = _default_device() if device is None else device
        _check_device(device)
        self.device = device
        self.gpus = gpus  # None: one device; N >= 1 GPUs (0: every GPU of the host)
        self.cpu_parts = cpu_parts  # None, or N >= 1 CPU parts (the distributed path, tested without a GPU)
        self.host_vectors = "auto"  # with gpus: Davidson's vectors in host memory ('auto', 'always', 'never')
        self.method = method  # 'auto', 'dense', 'stored' (H as a sparse matrix) or 'direct' (matrix-free sigma)
        self.singlet = bool(singlet)  # PySCF's direct_spin0: only states with c = c^T (S = 0, 2, ...)
        self._space = None
        self.stats = {}

    def _call_lock(self):
        """The solver's reentrant lock (made on first use: copies of the
        solver that PySCF's wrappers make share their __dict__'s)."""
        lock = self.__dict__.get("_lock")
        return lock if lock is not None else self.__dict__.setdefault("_lock", threading.RLock())

    def _pyscf(self):
        """PySCF's solver class whose methods serve where cisparse's do not
        (small spaces, link tables): direct_spin0's for a singlet-only solver
        (its link tables are of alpha strings only), direct_spin1's otherwise."""
        return direct_spin0.FCISolver if getattr(self, "singlet", False) else direct_spin1.FCISolver

    def gen_linkstr(self, norb, nelec, tril=True, spin=None):
        return self._pyscf().gen_linkstr(self, norb, nelec, tril, spin)

    def contract_1e(self, f1e, fcivec, norb, nelec, link_index=None, **kwargs):
        return self._pyscf().contract_1e(self, f1e, fcivec, norb, nelec, link_index, **kwargs)

    def make_hdiag(self, h1e, eri, norb, nelec, compress=False):
        """H's diagonal, the preconditioner of the iterations PySCF runs with
        this solver's contract_2e (newton CASSCF's CI steps): a singlet-only
        solver's is direct_spin0's, symmetric under alpha <-> beta to the
        last bit, so those steps keep c = c^T exactly, which direct_spin0's
        contract_2e (half the products, then c + c^T) assumes; direct_spin1's
        otherwise."""
        if getattr(self, "singlet", False):
            return direct_spin0.make_hdiag(h1e, eri, norb, direct_spin1._unpack_nelec(nelec, self.spin), compress)
        return super().make_hdiag(h1e, eri, norb, nelec, compress)

    def get_init_guess(self, norb, nelec, nroots, hdiag):
        """PySCF's first vectors: a singlet-only solver's symmetric under
        alpha <-> beta (direct_spin0's), direct_spin1's otherwise."""
        return self._pyscf().get_init_guess(self, norb, nelec, nroots, hdiag)

    def _target_wfnsym(self, norb, nelec, ci0, orbsym, wfnsym):
        """PySCF's direct_spin1_symm rule (its guess_wfnsym): with orbsym,
        wfnsym None is the symmetry of ci0 or, without one, of the aufbau
        determinant; a wfnsym that ci0 has no weight in is a
        WfnSymmetryError. A linear molecule's guessed id folds to its D2h irrep."""
        if orbsym is None:
            if isinstance(wfnsym, str):
                from pyscf import symm
                wfnsym = symm.irrep_name2id(self.mol.groupname, wfnsym)
            return wfnsym
        if self.__dict__.get("_cylsym_inner"):  # fci_cylsym's D2h solve: its target chosen and checked there
            return wfnsym
        guessed = wfnsym is None
        shape = (cistring.num_strings(norb, nelec[0]), cistring.num_strings(norb, nelec[1]))
        ci0 = [v.reshape(shape) for v in ci0] or None
        wfnsym = direct_spin1_symm.guess_wfnsym(self, norb, nelec, ci0, orbsym, wfnsym)
        return int(wfnsym) % 10 if guessed else wfnsym

    def _use_gpu(self):
        _check_device(self.device)
        if self.device == "cpu":
            return False
        n, why = gpu_count()
        if n == 0 and self.device == "gpu":
            raise CisparseError(L.ERR_NO_GPU, why)
        return n > 0

    @_serialised
    def kernel(self, h1e, eri, norb, nelec, ci0=None, ecore=0, nroots=None, tol=None, max_cycle=None,
               orbsym=None, wfnsym=None, **kwargs):
        """The lowest nroots states: one call of cisparse's CI driver
        (cis_ci_solver_solve: the same method choice, guesses and Davidson
        as ``cisparse ci``), ci0 as its warm-start guesses; the space is
        kept by the solver across calls (CASSCF: new integrals only)."""
        if isinstance(h1e, (tuple, list)) and len(h1e) == 2 and np.ndim(h1e[0]) == 2:
            raise NotImplementedError("cisparse.fci: spin-unrestricted integrals (use PySCF's direct_uhf)")
        unknown = sorted(set(kwargs) - _PYSCF_KERNEL_KEYWORDS)
        if unknown:
            raise TypeError(f"cisparse.fci: FCISolver.kernel got an unknown keyword argument {unknown[0]!r}")
        nroots = self.nroots if nroots is None else nroots
        tol = self.conv_tol if tol is None else tol
        max_cycle = self.max_cycle if max_cycle is None else max_cycle
        orbsym = self.orbsym if orbsym is None else orbsym
        wfnsym = self.wfnsym if wfnsym is None else wfnsym
        if isinstance(nelec, (int, np.integer)) and nelec < 0:
            raise ValueError(f"cisparse.fci: nelec must be >= 0, got {nelec}")
        norb, nelec = _check_space(norb, direct_spin1._unpack_nelec(nelec, self.spin))
        singlet = bool(getattr(self, "singlet", False))
        if singlet and nelec[0] != nelec[1]:
            raise ValueError(f"cisparse.fci: a singlet-only solver needs as many alpha as beta electrons, got "
                             f"nelec = {nelec}")
        cylsym = fci_cylsym.applies(self, orbsym)  # a linear molecule: its ids are checked there
        _check_device(self.device)
        shape = (cistring.num_strings(norb, nelec[0]), cistring.num_strings(norb, nelec[1]))
        start = _ci0_list(ci0, shape)
        _check_irreps(orbsym, None, norb)  # before guess_wfnsym reads it
        if not cylsym:  # fci_cylsym reads and checks a linear molecule's target itself
            wfnsym = self._target_wfnsym(norb, nelec, start, orbsym, wfnsym)
            _check_irreps(None, wfnsym, norb)
        self.norb, self.nelec = norb, nelec
        nroots = L.int_arg("cisparse.fci: nroots", nroots, ctypes.c_int, lo=1)
        max_cycle = L.int_arg("cisparse.fci: max_cycle", max_cycle, ctypes.c_int, lo=1)
        max_space = kwargs.get("max_space") or self.max_space  # None or 0: the attribute
        max_space = L.int_arg("cisparse.fci: max_space", max_space, ctypes.c_int, lo=1)
        if not (np.isfinite(tol) and tol > 0):
            raise ValueError(f"cisparse.fci: tol (conv_tol) must be a finite number > 0, got {tol!r}")
        if not np.isfinite(ecore):
            raise ValueError(f"cisparse.fci: ecore must be finite, got {ecore!r}")
        h1e = _finite("h1e", h1e)
        if h1e.size != norb * norb:
            raise ValueError(f"cisparse.fci: h1e has {h1e.size} entries for norb = {norb} ({norb} x {norb} expected)")
        eri = _finite("eri", eri)
        penalty = getattr(self, "ss_penalty", None)
        if penalty:  # the spin fix_spin_ must reach (a ValueError where the space has none)
            pen_ss, (pen_s,) = _penalty_spins(self.ss_value, norb, nelec, singlet)
        if cylsym:  # D2h blocks, roots filtered by |Lz| (fci_cylsym); the spin of the roots kept checked
            eci, cis = fci_cylsym.kernel(FCISolver.kernel, self, h1e, eri, norb, nelec, ci0, ecore, nroots, tol,
                                         max_cycle, orbsym, wfnsym, kwargs)
            if penalty:
                _check_penalty_spins(cis if np.ndim(eci) else [cis], norb, nelec, pen_s, pen_ss,
                                     np.atleast_1d(eci) - ecore, penalty)
            return eci, cis
        # PySCF's rule: more roots than the space holds gives all it holds (a list still)
        many, nroots = nroots > 1, min(nroots, _space_states(norb, nelec, orbsym, wfnsym, singlet))
        if nroots < 1:  # PySCF's exception
            from pyscf.lib.exceptions import WfnSymmetryError
            raise WfnSymmetryError(f"cisparse.fci: no determinant of wfnsym {wfnsym} in this space")
        if penalty and self.method == "stored":
            raise NotImplementedError("cisparse.fci: fix_spin_ needs method='direct' or 'auto' (the penalty is an "
                                      "operator on the matrix-free sigma)")
        F = _make_fcidump(norb, nelec, orbsym, wfnsym)
        self._h1 = np.ascontiguousarray(h1e).reshape(norb, norb)
        self._eri = np.ascontiguousarray(ao2mo.restore(8, eri, norb))
        F.h1, F.eri = self._h1.ctypes.data_as(_dp), self._eri.ctypes.data_as(_dp)
        o = L.lib.cis_ci_solve_opts_default()
        o.method = {"auto": 0, "stored": 1, "direct": 2}[self._method()]
        o.gpus, o.cpu_parts = self._parts()
        o.host_vectors = self._host_vectors()
        if (o.gpus or o.cpu_parts) and o.method == 0:
            o.method = 2  # over parts only the direct path returns the vectors PySCF needs
        o.gpu = int(o.gpus != 0 or (not o.cpu_parts and self._use_gpu()))
        o.roots = nroots
        o.tol = max(min(np.sqrt(tol), 1e-3), 1e-10)  # residual norm: PySCF davidson1's sqrt(conv_tol)
        o.etol = float(tol)
        o.max_iter = max_cycle
        o.max_sub = max_space + (nroots - 1) * 4  # PySCF's davidson1: max_space + 4 per extra root
        o.verbose = 1 if self.verbose >= 5 else 0
        o.accept_unconverged = o.keep_vectors = 1
        o.gpu_leave_free = self.room  # the RDMs' device workspace and margins
        o.singlet = int(singlet)
        if penalty:
            o.spin_penalty = float(penalty)
            o.spin_penalty_ss = -1.0 if self.ss_value is None else float(self.ss_value)
        if penalty:  # guesses of the target spin beside every other (_penalty_guesses)
            start, nspin = _penalty_guesses(h1e, eri, norb, nelec, start, pen_s, nroots, orbsym, wfnsym)
            if nspin == 0:
                raise ValueError(f"cisparse.fci: fix_spin_: no state of <S^2> = {pen_s * (pen_s + 1):g} in this "
                                 f"space (irrep {wfnsym})")
        solver = self.__dict__.get("_solver")
        if solver is None:
            solver = _Solver()
            self._solver = solver
        if start:
            order = solver.order(F, o, norb, nelec)
            start = [order.from_pyscf(v) for v in start]
            guess = np.ascontiguousarray(start)
            o.guess, o.nguess = guess.ctypes.data_as(_dp), len(start)
        t0 = time.perf_counter()
        R = solver.solve(F, o)
        try:
            val = lambda k: L.lib.cis_ci_result_value(R, k.encode())  # noqa: E731
            e = np.ctypeslib.as_array(ctypes.cast(L.lib.cis_ci_result_array(R, b"energies"), _dp), (nroots,)).copy()
            size = int(val("size"))
            order = solver.result_order(R, F, o, norb, nelec, size)
            vecs = np.ctypeslib.as_array(ctypes.cast(L.lib.cis_ci_result_array(R, b"vectors"), _dp), (nroots, size))
            cis = [order.to_pyscf(vecs[k]) for k in range(nroots)]
            if singlet:
                cis = [_symmetric_part(c) for c in cis]
            conv = bool(val("converged"))
            self.stats = dict(device="gpu" if val("gpu") else "cpu", method=("stored", "direct")[int(val("method")) - 1],
                              determinants=int(val("determinants")), nonzeros=int(val("nnz")),
                              iterations=int(val("iterations")), products=int(val("products")),
                              op_seconds=val("op_seconds"), davidson_seconds=val("davidson_seconds"),
                              max_residual=val("max_residual"), space_reused=bool(val("space_reused")),
                              subspace=int(val("subspace")),
                              seconds=time.perf_counter() - t0)
        finally:
            L.lib.cis_ci_result_free(R)
        if penalty and not self.__dict__.get("_cylsym_inner"):  # fci_cylsym checks the roots it keeps
            _check_penalty_spins(cis, norb, nelec, pen_s, pen_ss, e, penalty)
        self.converged = conv if not many else [conv] * nroots
        e = e + ecore
        if not many:
            self.eci, self.ci = float(e[0]), cis[0]
        else:
            self.eci, self.ci = e, cis
        return self.eci, self.ci

    def dump_flags(self, verbose=None):
        super().dump_flags(verbose)
        fci_cylsym.check_wfnsym_id(self)  # PySCF's RuntimeError for an id that is no irrep of mol's group
        return self

    def _parts(self):
        """(gpus, cpu_parts) for the driver: the distributed path when either is set."""
        gpus, parts = getattr(self, "gpus", None), getattr(self, "cpu_parts", None)
        if gpus is not None and parts is not None:
            raise ValueError("cisparse.fci: gpus and cpu_parts exclude each other")
        if parts is not None:
            parts = L.int_arg("cisparse.fci: cpu_parts", parts, ctypes.c_int, lo=1)
            if parts > 64:
                raise ValueError(f"cisparse.fci: cpu_parts must be 1..64, got {parts}")
            return 0, parts
        if gpus is None:
            return 0, 0
        gpus = L.int_arg("cisparse.fci: gpus", gpus, ctypes.c_int, lo=0)
        if self.device == "cpu":
            raise ValueError("cisparse.fci: gpus needs device 'gpu' or 'auto', not 'cpu'")
        n, why = gpu_count()
        if n == 0:
            raise CisparseError(L.ERR_NO_GPU, why)
        if gpus > n:
            raise ValueError(f"cisparse.fci: gpus = {gpus}: this host has {n} GPU{'s' if n != 1 else ''}")
        return (_ALL_GPUS if gpus == 0 else gpus), 0

    def _host_vectors(self):
        """The driver's host_vectors (0 auto, 1 always, -1 never) from the attribute."""
        hv = getattr(self, "host_vectors", "auto")
        codes = {"auto": 0, "always": 1, "never": -1}
        if not isinstance(hv, str) or hv not in codes:
            raise ValueError(f"cisparse.fci: host_vectors must be 'auto', 'always' or 'never', got {hv!r}")
        return codes[hv]

    def _method(self):
        if self.method not in ("auto", "stored", "direct"):
            raise ValueError(f"cisparse.fci: method must be auto, stored or direct, got {self.method!r}")
        return self.method

    def _direct_space(self, norb, nelec, orbsym, wfnsym, gpu):
        """The kept _DirectSpace of contract_2e (C1); a new norb, nelec or
        device frees the others (CASSCF moved on)."""
        key = _DirectSpace.key_of(norb, nelec, orbsym, wfnsym, gpu)
        spaces = self.__dict__.setdefault("_direct", {})
        sp = spaces.get(key)
        if sp is None:
            for k in [k for k in spaces if (k[0], k[1], k[3]) != (key[0], key[1], key[3])]:
                spaces.pop(k).close()
            sp = spaces[key] = _DirectSpace(norb, nelec, orbsym, wfnsym, gpu)
        return sp

    # ---- RDMs: cisparse's above rdm_min determinants (GPU where usable) ----

    def _rdm_space(self, norb, nelec):
        """The kept _RdmSpace of (norb, nelec), or None where PySCF's own RDMs
        apply (fewer than rdm_min determinants, or more than 64 orbitals)."""
        na, nb = direct_spin1._unpack_nelec(nelec, self.spin)
        if norb > 64 or cistring.num_strings(norb, na) * cistring.num_strings(norb, nb) < self.rdm_min:
            return None
        gpu = self._use_gpu()
        orbsym = None if gpu else getattr(self, "orbsym", None)  # the GPU's RDMs are C1
        if orbsym is not None and np.size(orbsym) != norb:
            orbsym = None
        key = _RdmSpace.key_of(norb, (na, nb), gpu, orbsym)
        r = getattr(self, "_rdm", None)
        if r is not None and r.key == key:
            return r
        if r is not None:
            r.close()
        self._rdm = _RdmSpace(norb, (na, nb), gpu, orbsym)
        return self._rdm

    def _rdms(self, r, bra, ket, want):
        t0 = time.perf_counter()
        out = r.rdm12(bra, ket, want)
        st = self.__dict__.setdefault("rdm_stats", {"calls": 0, "seconds": 0.0})
        st["calls"] += 1
        st["seconds"] += time.perf_counter() - t0
        st["device"] = "gpu" if r.R else "cpu"
        return out

    # ---- contract_2e (CASSCF's approximate CI steps) -----------------------

    contract_min = 1500  # determinants from which contract_2e is cisparse's sigma (PySCF's below)

    def _keeps_symmetry(self, eri, orbsym, norb):
        """_keeps_symmetry of eri, kept for the same integral object (CASSCF
        contracts one h2eff many times, as _DirectSpace.load_h2eff keeps it)."""
        key = (eri, tuple(int(x) for x in orbsym))
        last = self.__dict__.get("_sym_checked")
        if last is None or last[0][0] is not eri or last[0][1] != key[1]:
            last = self.__dict__["_sym_checked"] = (key, _keeps_symmetry(eri, orbsym, norb))
        return last[1]

    @_serialised
    def contract_2e(self, eri, fcivec, norb, nelec, link_index=None, orbsym=None, wfnsym=None, **kwargs):
        """PySCF's contract_2e(eri, fcivec) (eri from absorb_h1e), from
        contract_min determinants on by cisparse's direct sigma: on the GPU
        where one is used (C1), on the host otherwise, there blocked by
        irreps when orbsym (the argument, else the solver's) is given and
        fcivec lies in one irrep (_vector_irrep), as direct_spin1_symm's;
        PySCF's own below contract_min, beyond 64 orbitals or with other
        keyword arguments."""
        na, nb = direct_spin1._unpack_nelec(nelec, self.spin)
        n = cistring.num_strings(norb, na) * cistring.num_strings(norb, nb)
        gpu = self._use_gpu()
        if kwargs or norb > 64 or n < self.contract_min or np.size(fcivec) != n:
            return self._pyscf().contract_2e(self, eri, fcivec, norb, nelec, link_index, **kwargs)
        t0 = time.perf_counter()
        orbsym = getattr(self, "orbsym", None) if orbsym is None else orbsym
        if orbsym is not None and np.size(orbsym) != norb:
            orbsym = None
        irrep = None if gpu or orbsym is None else _vector_irrep(fcivec, orbsym, norb, (na, nb))
        if irrep is not None and not self._keeps_symmetry(eri, orbsym, norb):
            irrep = None  # integrals that couple irreps: only the C1 sigma is exact
        out = None
        if irrep is not None:
            try:
                out = self._direct_space(norb, (na, nb), orbsym, irrep, gpu).contract(eri, fcivec)
            except CisparseError:  # integrals that break orbsym's symmetry: the C1 sigma (exact for them)
                irrep = None
        if out is None:
            out = self._direct_space(norb, (na, nb), None, None, gpu).contract(eri, fcivec)
        st = self.__dict__.setdefault("contract_stats", {"calls": 0, "seconds": 0.0, "blocked": 0})
        st["calls"] += 1
        st["blocked"] += irrep is not None
        st["seconds"] += time.perf_counter() - t0
        return out

    @_serialised
    def make_rdm1s(self, fcivec, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return self._pyscf().make_rdm1s(self, fcivec, norb, nelec, link_index)
        d = self._rdms(r, None, fcivec, ("rdm1a", "rdm1b"))
        return d["rdm1a"], d["rdm1b"]

    @_serialised
    def make_rdm1(self, fcivec, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return self._pyscf().make_rdm1(self, fcivec, norb, nelec, link_index)
        return self._rdms(r, None, fcivec, ("rdm1",))["rdm1"]

    @_serialised
    def make_rdm12s(self, fcivec, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return self._pyscf().make_rdm12s(self, fcivec, norb, nelec, link_index, reorder)
        d = self._rdms(r, None, fcivec, ("rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2bb"))
        return (d["rdm1a"], d["rdm1b"]), (d["rdm2aa"], d["rdm2ab"], d["rdm2bb"])

    @_serialised
    def make_rdm12(self, fcivec, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return self._pyscf().make_rdm12(self, fcivec, norb, nelec, link_index, reorder)
        d = self._rdms(r, None, fcivec, ("rdm1", "rdm2"))
        return d["rdm1"], d["rdm2"]

    @_serialised
    def trans_rdm1s(self, cibra, ciket, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return self._pyscf().trans_rdm1s(self, cibra, ciket, norb, nelec, link_index)
        d = self._rdms(r, cibra, ciket, ("rdm1a", "rdm1b"))
        return d["rdm1a"], d["rdm1b"]

    @_serialised
    def trans_rdm1(self, cibra, ciket, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return self._pyscf().trans_rdm1(self, cibra, ciket, norb, nelec, link_index)
        return self._rdms(r, cibra, ciket, ("rdm1",))["rdm1"]

    @_serialised
    def trans_rdm12s(self, cibra, ciket, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return self._pyscf().trans_rdm12s(self, cibra, ciket, norb, nelec, link_index, reorder)
        d = self._rdms(r, cibra, ciket, ("rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb"))
        return (d["rdm1a"], d["rdm1b"]), (d["rdm2aa"], d["rdm2ab"], d["rdm2ba"], d["rdm2bb"])

    @_serialised
    def trans_rdm12(self, cibra, ciket, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return self._pyscf().trans_rdm12(self, cibra, ciket, norb, nelec, link_index, reorder)
        d = self._rdms(r, cibra, ciket, ("rdm1", "rdm2"))
        return d["rdm1"], d["rdm2"]


FCI = FCISolver
