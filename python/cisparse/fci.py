"""cisparse.fci: an FCI solver for PySCF's CASCI and CASSCF (``mc.fcisolver``).

    from pyscf import gto, scf, mcscf
    import cisparse.fci
    mc = mcscf.CASSCF(scf.RHF(mol).run(), 6, 6)
    mc.fcisolver = cisparse.fci.FCISolver(mol)
    mc.kernel()

``FCISolver`` is PySCF's ``fci.direct_spin1.FCISolver`` with the
eigenproblem solved by cisparse's Davidson (``cis_davidson_operator``, two
more roots than asked) on, by ``method`` ('auto' by default): 'dense' (exact
diagonalization; 'auto' below ``dense_max`` determinants), 'stored' (the CI
Hamiltonian as a sparse matrix, ``cis_ci_hamiltonian``, on the GPU with
``cis_ci_hamiltonian_gpu`` where one is usable: 'auto' with a GPU) or
'direct' (the matrix-free sigma ``cis_ci_direct_*`` on the CPU: 'auto'
without a GPU). CI vectors are NumPy arrays of PySCF's shape (alpha strings
x beta strings, PySCF's string order and phase convention), so everything
else PySCF does with them works unchanged: ``make_rdm1``, ``make_rdm1s``,
``make_rdm12``, ``spin_square``, ``state_average_`` and
``fci.addons.fix_spin_`` (the spin penalty of PySCF's SpinPenaltyFCISolver:
in the dense matrix up to ``dense_max_penalty`` determinants, as an operator
on the matrix-free sigma beyond, ``cis_ci_spin_penalty_operator``). With
``orbsym`` and an integer ``wfnsym`` the space is restricted to that irrep.
RDMs (make_rdm1, make_rdm1s, make_rdm12, make_rdm12s and the transition
trans_rdm1, trans_rdm1s, trans_rdm12, trans_rdm12s; with reorder=True, what
CASSCF asks) are cisparse's above ``rdm_min`` determinants: on the GPU
(``cis_ci_direct_gpu_rdm12``: gather + DGEMM, the links uploaded once per
space and kept across calls) where one is usable, else on the host
(``cis_ci_direct_rdm12``); PySCF's own below. ``contract_2e`` (what
CASSCF's approximate CI steps call on absorb_h1e's integrals) runs on the GPU
above ``contract_min`` determinants (the direct sigma), PySCF's own otherwise.
The direct space (strings, links, the GPU's workspace) is kept across
calls: Davidson and contract_2e load new integrals into it
(``cis_ci_direct_set_integrals``).
"""
import ctypes

import numpy as np
from pyscf import ao2mo
from pyscf.fci import cistring, direct_spin1

from . import _lib as L
from ._errors import CisparseError, check
from ._matrix import gpu_count

_u64p = ctypes.POINTER(ctypes.c_uint64)
_dp = ctypes.POINTER(ctypes.c_double)


class _fcidump(ctypes.Structure):  # cis_fcidump (ci.h); orbsym has CIS_CI_MAX_ORB entries
    _fields_ = [("norb", ctypes.c_int), ("nelec", ctypes.c_int), ("ms2", ctypes.c_int), ("isym", ctypes.c_int),
                ("uhf", ctypes.c_int), ("orbsym", ctypes.c_int * 128), ("ecore", ctypes.c_double), ("h1", _dp),
                ("eri", _dp), ("npair", ctypes.c_int64), ("neri", ctypes.c_int64), ("sym_numbering", ctypes.c_int),
                ("isym_assumed", ctypes.c_int), ("isym_file", ctypes.c_int)]


class _davidson_opts(ctypes.Structure):  # cis_davidson_opts; zeroed tail: fields a later version adds
    _fields_ = [("roots", ctypes.c_int), ("tol", ctypes.c_double), ("etol", ctypes.c_double),
                ("max_iter", ctypes.c_int), ("max_sub", ctypes.c_int), ("verbose", ctypes.c_int),
                ("guess", _dp), ("nguess", ctypes.c_int), ("block_products", ctypes.c_int),
                ("correct", ctypes.c_void_p), ("correct_ctx", ctypes.c_void_p), ("_reserved", ctypes.c_char * 256)]


class _davidson_info(ctypes.Structure):  # cis_davidson_info (+ room)
    _fields_ = [("iterations", ctypes.c_int), ("products", ctypes.c_int64), ("op_seconds", ctypes.c_double),
                ("total_seconds", ctypes.c_double), ("max_residual", ctypes.c_double),
                ("_reserved", ctypes.c_char * 256)]


class _gpu_stats(ctypes.Structure):  # cis_ci_gpu_stats (+ room)
    _fields_ = [("kernel", ctypes.c_char * 32), ("device_bytes", ctypes.c_int64), ("upload_seconds", ctypes.c_double),
                ("spmv_seconds", ctypes.c_double), ("_reserved", ctypes.c_char * 256)]


class _direct_gpu_opts(ctypes.Structure):  # cis_ci_direct_gpu_opts (+ room)
    _fields_ = [("work_bytes", ctypes.c_int64), ("vectors", ctypes.c_int), ("max_k", ctypes.c_int),
                ("_reserved", ctypes.c_char * 64)]


class _direct_opts(ctypes.Structure):  # cis_ci_direct_opts
    _fields_ = [("mem_limit", ctypes.c_int64), ("block_bytes", ctypes.c_int64), ("vectors", ctypes.c_int),
                ("ignore_symmetry", ctypes.c_int), ("no_time_reversal", ctypes.c_int),
                ("symmetry_projection", ctypes.c_int)]


class _rdm12(ctypes.Structure):  # cis_ci_rdm12: NULL = not wanted
    _fields_ = [(name, _dp) for name in ("rdm1", "rdm2", "rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb")]


_P = ctypes.c_void_p


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
for _name, _res, _args in [
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
    ("cis_ci_find_reference", ctypes.c_int, [_P, _u64p, _u64p]),
    ("cis_ci_space_create", ctypes.c_int, [_P, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(_P)]),
    ("cis_ci_space_free", None, [_P]),
    ("cis_ci_space_size", ctypes.c_int64, [_P]),
    ("cis_ci_space_det", None, [_P, ctypes.c_int64, _u64p, _u64p]),
    ("cis_ci_space_dets", ctypes.c_int, [_P, _u64p, _u64p]),
    ("cis_ci_hamiltonian", ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.POINTER(ctypes.POINTER(L.cis_csr))]),
    ("cis_ci_hamiltonian_gpu", ctypes.c_int, [_P, _P, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_int64)]),
    ("cis_ci_diagonal_all", ctypes.c_int, [_P, _P, _dp]),
    ("cis_ci_direct_create", ctypes.c_int, [_P, _P, ctypes.POINTER(_P)]),
    ("cis_ci_direct_free", None, [_P]),
    ("cis_ci_direct_set_integrals", ctypes.c_int, [_P, _P]),
    ("cis_ci_direct_gpu_set_integrals", ctypes.c_int, [_P]),
    ("cis_ci_direct_size", ctypes.c_int64, [_P]),
    ("cis_ci_direct_det", None, [_P, ctypes.c_int64, _u64p, _u64p]),
    ("cis_ci_direct_diagonal", ctypes.c_int, [_P, _dp]),
    ("cis_ci_direct_operator", ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    ("cis_ci_direct_pure_guesses", ctypes.c_int, [_P, _dp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    ("cis_ci_direct_gpu_create", ctypes.c_int, [_P, ctypes.POINTER(_direct_gpu_opts), ctypes.POINTER(_P)]),
    ("cis_ci_direct_gpu_free", None, [_P]),
    ("cis_ci_direct_gpu_operator", ctypes.c_int, [_P, _dp, ctypes.POINTER(_P)]),
    ("cis_ci_pspace_guess", ctypes.c_int, [_P, _P, _dp, ctypes.c_int, ctypes.c_int, _dp, _P, _P]),
    ("cis_ci_pspace_guess_direct", ctypes.c_int, [_P, _P, _dp, ctypes.c_int, ctypes.c_int, _dp, _P, _P]),
    ("cis_ci_spin_penalty_operator", ctypes.c_int, [_P, _P, _P, ctypes.c_double, ctypes.c_double,
                                                    ctypes.POINTER(_P)]),
    ("cis_davidson_operator", ctypes.c_int, [_P, _dp, ctypes.POINTER(_davidson_opts), _dp, _dp,
                                             ctypes.POINTER(_davidson_info)]),
    ("cis_ci_davidson_gpu_plan", ctypes.c_int, [_P, _dp, ctypes.POINTER(_davidson_opts), _dp, _dp,
                                                ctypes.POINTER(_davidson_info), ctypes.POINTER(_gpu_stats)]),
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


class _Space:
    """The determinant space of (norb, nelec) with PySCF's integrals, and the
    map from cisparse's determinant order to PySCF's (alpha, beta) addresses."""

    def __init__(self, h1e, eri, norb, nelec, orbsym=None, wfnsym=None):
        na, nb = nelec
        self.norb, self.nelec = norb, (na, nb)
        if norb > 64:
            raise ValueError(f"cisparse.fci: at most 64 active orbitals, got {norb}")
        self.key = _Space.key_of(norb, nelec, orbsym, wfnsym)
        F = self.F = _make_fcidump(norb, nelec, orbsym, wfnsym)
        self.set_integrals(h1e, eri)
        ra, rb = ctypes.c_uint64(), ctypes.c_uint64()
        check(L.lib.cis_ci_find_reference(ctypes.byref(F), ctypes.byref(ra), ctypes.byref(rb)))
        self.S = _P()
        check(L.lib.cis_ci_space_create(ctypes.byref(F), -1, ra, rb, ctypes.byref(self.S)))
        n = self.n = int(L.lib.cis_ci_space_size(self.S))
        A = np.empty(n, dtype=np.uint64)
        B = np.empty(n, dtype=np.uint64)
        check(L.lib.cis_ci_space_dets(self.S, A.ctypes.data_as(_u64p), B.ctypes.data_as(_u64p)))
        self.shape = (cistring.num_strings(norb, na), cistring.num_strings(norb, nb))
        ia = cistring.strs2addr(norb, na, A.astype(np.int64))
        ib = cistring.strs2addr(norb, nb, B.astype(np.int64))
        self.index = ia * self.shape[1] + ib  # cisparse determinant i -> flat PySCF address

    @staticmethod
    def key_of(norb, nelec, orbsym, wfnsym):
        """What the determinant list depends on (not the integrals)."""
        sym = None if orbsym is None or wfnsym is None else (tuple(int(x) for x in orbsym), int(wfnsym))
        return (norb, tuple(nelec), sym)

    def set_integrals(self, h1e, eri):
        """Point F at new integrals (CASSCF: same space, new orbitals)."""
        norb = self.norb
        self.h1 = np.ascontiguousarray(h1e, dtype=np.float64).reshape(norb, norb)
        self.eri = np.ascontiguousarray(ao2mo.restore(8, np.asarray(eri, dtype=np.float64), norb))
        self.F.h1, self.F.eri = self.h1.ctypes.data_as(_dp), self.eri.ctypes.data_as(_dp)

    def close(self):
        _release(self, ("S", L.lib.cis_ci_space_free))

    __del__ = close

    def to_pyscf(self, v):
        ci = np.zeros(self.shape[0] * self.shape[1])
        ci[self.index] = v
        return ci.reshape(self.shape)

    def from_pyscf(self, ci):
        return np.asarray(ci).reshape(-1)[self.index]


def _guess(fn, F, space, diag, want, n, extra, start=()):
    """Davidson's first subspace: the caller's vectors ``start`` (ci0, in
    cisparse's order: CASSCF's previous CI vectors), then P-space guesses
    (cis_ci_pspace_guess or _direct: the lowest eigenvectors of H among the
    few hundred determinants of lowest diagonal, (near-)degenerate ones
    together), ``extra`` more than the roots."""
    nvec = int(min(n, want + extra))
    g = np.empty((len(start) + nvec, n))
    for k, v in enumerate(start):
        g[k] = v
    check(fn(ctypes.byref(F), space, diag.ctypes.data_as(_dp), max(400, nvec), nvec,
             g[len(start):].ctypes.data_as(_dp), None, None))
    return g


def _time_reversal_pure(D, guess):
    """MS2 = 0 with one string set: every guess exactly symmetric or
    antisymmetric under alpha <-> beta, a guess near neither split into both
    parts (cis_ci_direct_pure_guesses), so that Davidson's subspace starts
    pure and its products can be half sigmas."""
    nin, n = guess.shape
    room = np.empty((2 * nin, n))
    room[:nin] = guess
    nout = ctypes.c_int()
    check(L.lib.cis_ci_direct_pure_guesses(D, room.ctypes.data_as(_dp), nin, 2 * nin, ctypes.byref(nout)))
    return room[:nout.value].copy()


def _ci0_list(ci0, size):
    """ci0 as a list of flat finite non-zero vectors of `size` (PySCF passes
    one array, a list, or None); anything else is ignored."""
    if ci0 is None:
        return []
    vs = [ci0] if isinstance(ci0, np.ndarray) and ci0.ndim <= 2 and np.size(ci0) == size else list(ci0)
    out = []
    for v in vs:
        v = np.asarray(v, dtype=np.float64).reshape(-1)
        if v.size == size and np.all(np.isfinite(v)) and np.any(v):
            out.append(v)
    return out


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

    def __init__(self, norb, nelec, gpu):
        na, nb = nelec
        self.key = (norb, na, nb, bool(gpu))
        self.R = None
        o = _direct_opts()
        o.block_bytes, o.vectors, o.ignore_symmetry, o.no_time_reversal = 1 << 20, 1, 1, 1
        self._create(norb, nelec, opts=o)
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

    room = 6 << 30  # device bytes G's workspace leaves free: the RDMs' workspace (4 GiB) and margins

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


class FCISolver(direct_spin1.FCISolver):
    """PySCF's FCISolver interface on cisparse's CI Hamiltonian and Davidson.

    device: 'auto' (the GPU when one is usable), 'gpu' or 'cpu'.
    Attributes as PySCF's: nroots, conv_tol (energy), max_cycle, max_space,
    spin, orbsym, wfnsym, verbose; after kernel: converged, eci, ci, and
    cisparse's figures in ``stats`` (device, size, nonzeros, iterations,
    products, seconds)."""

    dense_max = 1500  # spaces up to this many determinants: exact diagonalization
    rdm_min = 1500  # RDMs from this many determinants on are cisparse's (PySCF's below)
    dense_max_penalty = 6000  # fix_spin_: the penalty matrix is built exactly up to this size

    def __init__(self, mol=None, device="auto", method="auto"):
        super().__init__(mol)
        self.device = device
        self.method = method  # 'auto', 'dense', 'stored' (H as a sparse matrix) or 'direct' (matrix-free sigma)
        self._space = None
        self.stats = {}

    def _use_gpu(self):
        if self.device == "cpu":
            return False
        n, why = gpu_count()
        if n == 0 and self.device == "gpu":
            raise CisparseError(L.ERR_NO_GPU, why)
        return n > 0

    def kernel(self, h1e, eri, norb, nelec, ci0=None, ecore=0, nroots=None, tol=None, max_cycle=None,
               orbsym=None, wfnsym=None, **kwargs):
        if isinstance(h1e, (tuple, list)) and len(h1e) == 2 and np.ndim(h1e[0]) == 2:
            raise NotImplementedError("cisparse.fci: spin-unrestricted integrals (use PySCF's direct_uhf)")
        nroots = self.nroots if nroots is None else nroots
        tol = self.conv_tol if tol is None else tol
        max_cycle = self.max_cycle if max_cycle is None else max_cycle
        orbsym = self.orbsym if orbsym is None else orbsym
        wfnsym = self.wfnsym if wfnsym is None else wfnsym
        if isinstance(wfnsym, str):
            from pyscf import symm
            wfnsym = symm.irrep_name2id(self.mol.groupname, wfnsym)
        nelec = direct_spin1._unpack_nelec(nelec, self.spin)
        self.norb, self.nelec = norb, nelec
        method = self._choose_method(norb, nelec)
        if method == "direct":
            return self._kernel_direct(h1e, eri, norb, nelec, ecore, nroots, tol, max_cycle, orbsym, wfnsym, ci0)
        sp = getattr(self, "_space", None)  # kept between calls (the determinant list and its map)
        if sp is not None and sp.key == _Space.key_of(norb, nelec, orbsym, wfnsym):
            sp.set_integrals(h1e, eri)  # CASSCF's macro-iterations: the same space
        else:
            if sp is not None:
                sp.close()
            sp = self._space = _Space(h1e, eri, norb, nelec, orbsym, wfnsym)
        n = sp.n
        if nroots > n:
            raise ValueError(f"cisparse.fci: {nroots} roots asked in a space of {n} determinants")
        diag = np.empty(n)
        check(L.lib.cis_ci_diagonal_all(ctypes.byref(sp.F), sp.S, diag.ctypes.data_as(_dp)))
        # Davidson starts from P-space guesses (four more than the roots) and
        # iterates two more roots than asked; small spaces are diagonalized
        # exactly (as PySCF does below its pspace size).
        penalty = getattr(self, "ss_penalty", None)
        dense = n <= self.dense_max if method == "auto" else method == "dense"
        if penalty and not dense:  # method 'stored' with fix_spin_: exact up to dense_max_penalty
            if n > self.dense_max_penalty:
                raise NotImplementedError(
                    f"cisparse.fci: fix_spin_ with method='stored' on {n} determinants (dense up to "
                    f"{self.dense_max_penalty}); method='direct' or 'auto' applies the penalty at any size")
            dense = True
        want = nroots if dense else min(n, nroots + 2)
        o = _davidson_opts()
        o.roots, o.etol, o.max_iter = want, float(tol), int(max_cycle)
        o.tol = max(min(np.sqrt(tol) * 1e-2, 1e-5), 1e-10)  # residual norm (PySCF: sqrt(conv_tol))
        o.max_sub = max(int(getattr(self, "max_space", 12)) * nroots, 8 * nroots, 24)
        if not dense:
            start = [sp.from_pyscf(v) for v in _ci0_list(ci0, sp.shape[0] * sp.shape[1])][:want]
            guess = _guess(L.lib.cis_ci_pspace_guess, sp.F, sp.S, diag, want, n, 4, start)
            o.guess, o.nguess = guess.ctypes.data_as(_dp), len(guess)
        o.verbose = 1 if self.verbose >= 5 else 0
        evals = np.empty(want)
        evecs = np.empty((want, n))
        info = _davidson_info()
        t0 = L.lib.cis_wtime()
        gpu = self._use_gpu() and not penalty and not dense
        ops, keep = [], []
        try:
            if gpu:
                plan, nnz = _P(), ctypes.c_int64()
                check(L.lib.cis_ci_hamiltonian_gpu(ctypes.byref(sp.F), sp.S, ctypes.byref(plan), ctypes.byref(nnz)))
                try:
                    stats = _gpu_stats()
                    st = L.lib.cis_ci_davidson_gpu_plan(plan, diag.ctypes.data_as(_dp), ctypes.byref(o),
                                                        evals.ctypes.data_as(_dp), evecs.ctypes.data_as(_dp),
                                                        ctypes.byref(info), ctypes.byref(stats))
                finally:
                    L.lib.cis_gpu_plan_free(plan)
                nnz = nnz.value
            else:
                H = ctypes.POINTER(L.cis_csr)()
                check(L.lib.cis_ci_hamiltonian(ctypes.byref(sp.F), sp.S, 0, ctypes.byref(H)))
                keep.append(H)
                nnz = H.contents.nnz
                if dense:
                    w, v = np.linalg.eigh(self._dense(H, sp, nelec, penalty))
                    evals[:], evecs[:] = w[:want], v[:, :want].T
                    st = L.OK
                else:
                    op = _P()
                    check(L.lib.cis_operator_from_csr(H, ctypes.byref(op)))
                    ops.append(op)
                    st = L.lib.cis_davidson_operator(op, diag.ctypes.data_as(_dp), ctypes.byref(o),
                                                     evals.ctypes.data_as(_dp), evecs.ctypes.data_as(_dp),
                                                     ctypes.byref(info))
            if st not in (L.OK, L.ERR_NOT_CONVERGED):
                check(st)
        finally:
            for op in ops:
                L.lib.cis_operator_free(op)
            for H in keep:
                if isinstance(H, ctypes.POINTER(L.cis_csr)):
                    L.lib.cis_csr_free(H)
        cis = [sp.to_pyscf(evecs[k]) for k in range(nroots)]
        return self._finish(st, info, t0, evals, cis, ecore, nroots, device="gpu" if gpu else "cpu",
                            method="dense" if dense else "davidson", determinants=n, nonzeros=int(nnz))

    def _finish(self, st, info, t0, evals, cis, ecore, nroots, **stats):
        """Record convergence and the run's figures, return (e_tot, ci) in PySCF's form."""
        conv = st == L.OK
        self.converged = conv if nroots == 1 else [conv] * nroots
        self.stats = dict(stats, iterations=info.iterations, products=int(info.products), op_seconds=info.op_seconds,
                          davidson_seconds=info.total_seconds, seconds=L.lib.cis_wtime() - t0,
                          max_residual=info.max_residual)
        e = evals[:nroots] + ecore
        if nroots == 1:
            self.eci, self.ci = float(e[0]), cis[0]
        else:
            self.eci, self.ci = e, cis
        return self.eci, self.ci

    def _choose_method(self, norb, nelec):
        """'auto': dense up to dense_max determinants (with fix_spin_: up to
        dense_max_penalty); beyond, the matrix-free direct sigma, on the GPU
        where one is usable (cis_ci_direct_gpu_*: Davidson's vectors on the
        device, nothing built but strings and links), else on the CPU; with
        fix_spin_ on the CPU (the penalty is a host operator,
        cis_ci_spin_penalty_operator)."""
        penalty = getattr(self, "ss_penalty", None)
        if self.method != "auto":
            if self.method not in ("dense", "stored", "direct"):
                raise ValueError(f"cisparse.fci: method must be auto, dense, stored or direct, got {self.method!r}")
            return self.method
        n = cistring.num_strings(norb, nelec[0]) * cistring.num_strings(norb, nelec[1])
        if penalty:
            return "auto" if n <= self.dense_max_penalty else "direct"
        return "auto" if n <= self.dense_max else "direct"

    def _direct_space(self, norb, nelec, orbsym, wfnsym, gpu):
        """The kept _DirectSpace of this space (one for the kernel's irrep
        and one in C1 for contract_2e, the same one without symmetry); a new
        norb, nelec or device frees the others (CASSCF moved on)."""
        key = _DirectSpace.key_of(norb, nelec, orbsym, wfnsym, gpu)
        spaces = self.__dict__.setdefault("_direct", {})
        sp = spaces.get(key)
        if sp is None:
            for k in [k for k in spaces if (k[0], k[1], k[3]) != (key[0], key[1], key[3])]:
                spaces.pop(k).close()
            sp = spaces[key] = _DirectSpace(norb, nelec, orbsym, wfnsym, gpu)
        return sp

    def _kernel_direct(self, h1e, eri, norb, nelec, ecore, nroots, tol, max_cycle, orbsym, wfnsym, ci0=None):
        """Davidson on the matrix-free sigma: on the GPU (cis_ci_direct_gpu_operator,
        vectors on the device) where one is usable and no spin penalty is
        asked, else on the host (cis_ci_direct_operator). The space (strings,
        links, G's workspace) is kept for the next call (_DirectSpace)."""
        na, nb = nelec
        op, hop = _P(), _P()  # hop: H under a spin penalty (must outlive op)
        penalty = getattr(self, "ss_penalty", None)
        gpu = not penalty and self._use_gpu()
        t0 = L.lib.cis_wtime()
        sp = self._direct_space(norb, nelec, orbsym, wfnsym, gpu)
        sp.load(h1e, eri)
        D, F, n = sp.D, sp.F, sp.n
        try:
            diag = np.empty(n)
            check(L.lib.cis_ci_direct_diagonal(D, diag.ctypes.data_as(_dp)))
            # ci0 first, then P-space guesses (more under a spin penalty, which
            # lifts the P-space vectors of other spins). With a ci0 for every
            # root (CASSCF's previous vectors) Davidson seeks just the roots
            # asked, from ci0 and as many P-space vectors; else two more roots
            # from ci0 and four more P-space vectors than roots.
            ci0s = _ci0_list(ci0, n)
            warm = len(ci0s) >= nroots and not penalty
            want = min(n, nroots if warm else nroots + 2)
            start = [sp.to_direct(v) for v in ci0s][:want]
            extra = 0 if warm else 4 + (want + 4 if penalty else 0)
            guess = _guess(L.lib.cis_ci_pspace_guess_direct, F, D, diag, want, n, extra, start)
            if na == nb:
                guess = _time_reversal_pure(D, guess)
            max_sub = max(int(getattr(self, "max_space", 12)) * want, 8 * want, 24, len(guess) + want)
            G = None
            if gpu:  # Davidson's device vectors (subspace, products, Ritz, residuals)
                G = sp.gpu_sigma(2 * max_sub + 3 * want + 8)
                check(L.lib.cis_ci_direct_gpu_operator(G, diag.ctypes.data_as(_dp), ctypes.byref(op)))
            else:
                check(L.lib.cis_ci_direct_operator(D, ctypes.byref(op)))
            if penalty:  # fix_spin_: H + shift (S^2 - ss) [squared above the lowest spin], PySCF's rule
                hop, op = op, _P()
                sz = abs(na - nb) * 0.5
                ss = sz * (sz + 1) if self.ss_value is None else float(self.ss_value)
                check(L.lib.cis_ci_spin_penalty_operator(hop, ctypes.byref(F), D, float(penalty), ss,
                                                         ctypes.byref(op)))
            o = _davidson_opts()
            o.roots, o.etol, o.max_iter = want, float(tol), int(max_cycle)
            o.tol = max(min(np.sqrt(tol) * 1e-2, 1e-5), 1e-10)
            o.max_sub = max_sub
            o.verbose = 1 if self.verbose >= 5 else 0
            o.guess, o.nguess = guess.ctypes.data_as(_dp), len(guess)
            if na == nb:  # corrections kept exactly alpha <-> beta pure: every product a half sigma
                fn = L.lib.cis_ci_direct_gpu_correct if gpu else L.lib.cis_ci_direct_correct_c1
                o.correct = ctypes.cast(fn, ctypes.c_void_p).value
                o.correct_ctx = (G if gpu else D).value
            evals = np.empty(want)
            evecs = np.empty((want, n))
            info = _davidson_info()
            st = L.lib.cis_davidson_operator(op, diag.ctypes.data_as(_dp), ctypes.byref(o), evals.ctypes.data_as(_dp),
                                             evecs.ctypes.data_as(_dp), ctypes.byref(info))
            if st not in (L.OK, L.ERR_NOT_CONVERGED):
                check(st)
        finally:
            for o_ in (op, hop):
                if o_:
                    L.lib.cis_operator_free(o_)
        cis = [sp.to_pyscf(evecs[k]) for k in range(nroots)]
        return self._finish(st, info, t0, evals, cis, ecore, nroots, device="gpu" if gpu else "cpu", method="direct",
                            determinants=n, nonzeros=0)

    # ---- RDMs: cisparse's above rdm_min determinants (GPU where usable) ----

    def _rdm_space(self, norb, nelec):
        """The kept _RdmSpace of (norb, nelec), or None where PySCF's own RDMs
        apply (fewer than rdm_min determinants, or more than 64 orbitals)."""
        na, nb = direct_spin1._unpack_nelec(nelec, self.spin)
        if norb > 64 or cistring.num_strings(norb, na) * cistring.num_strings(norb, nb) < self.rdm_min:
            return None
        gpu = self._use_gpu()
        r = getattr(self, "_rdm", None)
        if r is not None and r.key == (norb, na, nb, gpu):
            return r
        if r is not None:
            r.close()
        self._rdm = _RdmSpace(norb, (na, nb), gpu)
        return self._rdm

    def _rdms(self, r, bra, ket, want):
        t0 = L.lib.cis_wtime()
        out = r.rdm12(bra, ket, want)
        st = self.__dict__.setdefault("rdm_stats", {"calls": 0, "seconds": 0.0})
        st["calls"] += 1
        st["seconds"] += L.lib.cis_wtime() - t0
        st["device"] = "gpu" if r.R else "cpu"
        return out

    # ---- contract_2e (CASSCF's approximate CI steps) on the GPU ------------

    contract_min = 1500  # determinants from which contract_2e runs on the GPU (PySCF's below or without one)
    contract_on_host = False  # without a GPU: cisparse's host sigma instead of PySCF's (tests)

    def contract_2e(self, eri, fcivec, norb, nelec, link_index=None, **kwargs):
        na, nb = direct_spin1._unpack_nelec(nelec, self.spin)
        n = cistring.num_strings(norb, na) * cistring.num_strings(norb, nb)
        gpu = self._use_gpu()
        if kwargs or norb > 64 or n < self.contract_min or np.size(fcivec) != n or not (gpu or self.contract_on_host):
            return super().contract_2e(eri, fcivec, norb, nelec, link_index, **kwargs)
        t0 = L.lib.cis_wtime()
        out = self._direct_space(norb, (na, nb), None, None, gpu).contract(eri, fcivec)
        st = self.__dict__.setdefault("contract_stats", {"calls": 0, "seconds": 0.0})
        st["calls"] += 1
        st["seconds"] += L.lib.cis_wtime() - t0
        return out

    def make_rdm1s(self, fcivec, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return super().make_rdm1s(fcivec, norb, nelec, link_index)
        d = self._rdms(r, None, fcivec, ("rdm1a", "rdm1b"))
        return d["rdm1a"], d["rdm1b"]

    def make_rdm1(self, fcivec, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return super().make_rdm1(fcivec, norb, nelec, link_index)
        return self._rdms(r, None, fcivec, ("rdm1",))["rdm1"]

    def make_rdm12s(self, fcivec, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return super().make_rdm12s(fcivec, norb, nelec, link_index, reorder)
        d = self._rdms(r, None, fcivec, ("rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2bb"))
        return (d["rdm1a"], d["rdm1b"]), (d["rdm2aa"], d["rdm2ab"], d["rdm2bb"])

    def make_rdm12(self, fcivec, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return super().make_rdm12(fcivec, norb, nelec, link_index, reorder)
        d = self._rdms(r, None, fcivec, ("rdm1", "rdm2"))
        return d["rdm1"], d["rdm2"]

    def trans_rdm1s(self, cibra, ciket, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return super().trans_rdm1s(cibra, ciket, norb, nelec, link_index)
        d = self._rdms(r, cibra, ciket, ("rdm1a", "rdm1b"))
        return d["rdm1a"], d["rdm1b"]

    def trans_rdm1(self, cibra, ciket, norb, nelec, link_index=None):
        r = self._rdm_space(norb, nelec)
        if r is None:
            return super().trans_rdm1(cibra, ciket, norb, nelec, link_index)
        return self._rdms(r, cibra, ciket, ("rdm1",))["rdm1"]

    def trans_rdm12s(self, cibra, ciket, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return super().trans_rdm12s(cibra, ciket, norb, nelec, link_index, reorder)
        d = self._rdms(r, cibra, ciket, ("rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb"))
        return (d["rdm1a"], d["rdm1b"]), (d["rdm2aa"], d["rdm2ab"], d["rdm2ba"], d["rdm2bb"])

    def trans_rdm12(self, cibra, ciket, norb, nelec, link_index=None, reorder=True):
        r = self._rdm_space(norb, nelec) if reorder else None
        if r is None:
            return super().trans_rdm12(cibra, ciket, norb, nelec, link_index, reorder)
        d = self._rdms(r, cibra, ciket, ("rdm1", "rdm2"))
        return d["rdm1"], d["rdm2"]

    def _dense(self, H, sp, nelec, penalty):
        """H (plus the spin penalty) as a dense matrix."""
        n = sp.n
        D = np.zeros((n, n))
        c = H.contents
        rowptr = np.ctypeslib.as_array(c.rowptr, (n + 1,))
        if c.nnz:
            cols = np.ctypeslib.as_array(c.colind, (c.nnz,))
            vals = np.ctypeslib.as_array(ctypes.cast(c.val, _dp), (c.nnz,))
            rows = np.repeat(np.arange(n), np.diff(rowptr))
            D[rows, cols] = vals
        if penalty:
            na, nb = nelec
            sz = abs(na - nb) * 0.5
            ss = sz * (sz + 1) if self.ss_value is None else self.ss_value
            S2 = np.empty((n, n))
            for j in range(n):
                e = np.zeros(n)
                e[j] = 1.0
                S2[:, j] = sp.from_pyscf(self.contract_ss(sp.to_pyscf(e), sp.norb, nelec))
            P = S2 - ss * np.eye(n)
            if ss >= sz * (sz + 1) + 0.1:
                P = P @ P
            D += float(self.ss_penalty) * P
        return D


FCI = FCISolver
