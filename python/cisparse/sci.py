"""cisparse.sci: a private binding of the selected-CI product spaces
(cisparse/sci.h) for the tests: the space of an alpha and a beta string set,
its sigma, diagonal and lowest energies by the library's Davidson.

Not the user-facing entry point (``cisparse.sqd.solve_sci`` and the command
line's ``--strings`` are to come); kept small on purpose.

Conventions are PySCF's ``fci.selected_ci``: strings are integers (bit p =
orbital p), each set sorted and deduplicated by the library, vectors are
``n_alpha x n_beta`` (alpha major), the Hamiltonian electronic (no core
energy) and projected onto the space: ``_SciSpace.sigma(c)`` equals
``selected_ci.contract_2e(absorb_h1e(h1, eri, norb, nelec, .5), c)``, and
``_SciSpace.rdm12(bra, ket, want)`` PySCF's ``selected_ci`` RDMs.
"""
import ctypes

import numpy as np
from pyscf import ao2mo

from . import _lib as L
from ._errors import check
from .fci import _make_fcidump, _rdm12

_P = ctypes.c_void_p
_dp = ctypes.POINTER(ctypes.c_double)
_u64p = ctypes.POINTER(ctypes.c_uint64)


_correct_fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


class _sci_info(ctypes.Structure):  # cis_sci_info (sci.h)
    _fields_ = [("alpha_strings", ctypes.c_int64), ("beta_strings", ctypes.c_int64), ("determinants", ctypes.c_int64),
                ("alpha_duplicates", ctypes.c_int64), ("beta_duplicates", ctypes.c_int64),
                ("alpha_links", ctypes.c_int64), ("beta_links", ctypes.c_int64), ("alpha_pairs", ctypes.c_int64),
                ("beta_pairs", ctypes.c_int64), ("norb", ctypes.c_int), ("nalpha", ctypes.c_int),
                ("nbeta", ctypes.c_int), ("threads", ctypes.c_int), ("bytes", ctypes.c_int64),
                ("work_bytes", ctypes.c_int64)]


class _davidson_opts(ctypes.Structure):  # cis_davidson_opts (solver.h)
    _fields_ = [("roots", ctypes.c_int), ("tol", ctypes.c_double), ("etol", ctypes.c_double),
                ("max_iter", ctypes.c_int), ("max_sub", ctypes.c_int), ("verbose", ctypes.c_int),
                ("guess", _dp), ("nguess", ctypes.c_int), ("guess_ptr", ctypes.c_void_p),
                ("guess_idx", ctypes.c_void_p), ("guess_val", _dp), ("block_products", ctypes.c_int),
                ("correct", ctypes.c_void_p), ("correct_ctx", ctypes.c_void_p), ("progress", ctypes.c_void_p),
                ("progress_ctx", ctypes.c_void_p), ("energy_offset", ctypes.c_double), ("sectors", ctypes.c_int),
                ("guess_sector", ctypes.c_void_p), ("watch_vectors", _dp)]


class _davidson_info(ctypes.Structure):  # cis_davidson_info (solver.h)
    _fields_ = [("iterations", ctypes.c_int), ("products", ctypes.c_int64), ("op_seconds", ctypes.c_double),
                ("total_seconds", ctypes.c_double), ("max_residual", ctypes.c_double), ("converged", ctypes.c_int),
                ("watches", ctypes.c_int), ("sector", ctypes.c_int * 64)]


for _cls, _name in ((_sci_info, "cis_sci_info"), (_davidson_opts, "cis_davidson_opts"),
                    (_davidson_info, "cis_davidson_info")):
    L.check_struct(_cls, _name)

for _name, _res, _args in [
    ("cis_sci_space_create", ctypes.c_int, [ctypes.c_void_p, _u64p, ctypes.c_int64, _u64p, ctypes.c_int64,
                                            ctypes.c_int64, ctypes.POINTER(_P)]),
    ("cis_sci_space_free", None, [_P]),
    ("cis_sci_space_size", ctypes.c_int64, [_P]),
    ("cis_sci_space_strings", _u64p, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]),
    ("cis_sci_space_get_info", None, [_P, ctypes.POINTER(_sci_info)]),
    ("cis_sci_diagonal", ctypes.c_int, [_P, _dp]),
    ("cis_sci_sigma", ctypes.c_int, [_P, ctypes.c_int, _dp, _dp]),
    ("cis_sci_operator", ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    ("cis_davidson_opts_default", _davidson_opts, []),
    ("cis_davidson_operator", ctypes.c_int, [_P, _dp, ctypes.POINTER(_davidson_opts), _dp, _dp,
                                             ctypes.POINTER(_davidson_info)]),
    ("cis_operator_diagonal", _dp, [_P]),
    ("cis_sci_rdm12", ctypes.c_int, [_P, _dp, _dp, ctypes.POINTER(_rdm12)]),
]:
    _f = getattr(L.lib, _name)
    _f.restype, _f.argtypes = _res, _args


class _SciSpace:
    """The product space ci_strs[0] x ci_strs[1] of (h1, eri) for nelec =
    (nalpha, nbeta) electrons in norb orbitals (eri in any of PySCF's packings)."""

    def __init__(self, h1, eri, norb, nelec, ci_strs, mem_limit=0):
        self.S = None
        F = self.F = _make_fcidump(norb, tuple(int(n) for n in nelec))
        self._h1 = np.ascontiguousarray(h1, dtype=np.float64).reshape(norb, norb)
        self._eri = np.ascontiguousarray(ao2mo.restore(8, np.asarray(eri, dtype=np.float64), norb))
        F.h1, F.eri = self._h1.ctypes.data_as(_dp), self._eri.ctypes.data_as(_dp)
        a = np.ascontiguousarray(ci_strs[0], dtype=np.uint64)
        b = np.ascontiguousarray(ci_strs[1], dtype=np.uint64)
        S = _P()
        check(L.lib.cis_sci_space_create(ctypes.byref(F), a.ctypes.data_as(_u64p), a.size, b.ctypes.data_as(_u64p),
                                         b.size, int(mem_limit), ctypes.byref(S)))
        self.S = S
        self.size = int(L.lib.cis_sci_space_size(S))

    def __del__(self):
        if getattr(self, "S", None):
            L.lib.cis_sci_space_free(self.S)
            self.S = None

    def strings(self):
        """The sorted (alpha, beta) sets as uint64 arrays (copies)."""
        out = []
        for spin in (0, 1):
            n = ctypes.c_int64()
            p = L.lib.cis_sci_space_strings(self.S, spin, ctypes.byref(n))
            out.append(np.ctypeslib.as_array(p, shape=(n.value,)).copy())
        return tuple(out)

    def info(self):
        i = _sci_info()
        L.lib.cis_sci_space_get_info(self.S, ctypes.byref(i))
        return {f: getattr(i, f) for f, _ in _sci_info._fields_}

    def sigma(self, c):
        """H c for one vector (size entries) or k of them (k x size)."""
        c = np.ascontiguousarray(c, dtype=np.float64)
        k = c.size // self.size
        if k * self.size != c.size or k < 1:
            raise ValueError(f"a vector of {c.size} entries for a space of {self.size} determinants")
        out = np.empty_like(c)
        check(L.lib.cis_sci_sigma(self.S, k, c.ctypes.data_as(_dp), out.ctypes.data_as(_dp)))
        return out

    def diagonal(self):
        d = np.empty(self.size)
        check(L.lib.cis_sci_diagonal(self.S, d.ctypes.data_as(_dp)))
        return d

    def equal_sets(self):
        """True when the alpha and beta sets are one set (MS = 0): cis_sci_sigma
        then takes the alpha <-> beta half sigma for vectors of one parity."""
        a, b = self.strings()
        return a.size == b.size and bool(np.all(a == b))

    def davidson(self, nroots=1, tol=1e-8, parity=True, info=None):
        """The lowest nroots eigenvalues (electronic) and eigenvectors
        (nroots x size) by cis_davidson_operator on cis_sci_operator.
        With equal sets and parity (default), as the complete-space driver
        does for MS = 0: guesses of one alpha <-> beta parity each (the
        default unit guesses on the lowest diagonal elements, each pair
        (A,B), (B,A) as its symmetric and antisymmetric combinations, at
        least nroots of them), both sectors followed when the guesses hold
        both (cis_davidson_opts.sectors), and every correction made exactly
        pure when within 1e-6 (in norm) of a parity, so that the products
        take the half sigma. One root from the closed-shell determinant of
        lowest energy searches its (symmetric) sector only, as the default
        unit guess does without the parity. info: a dict to fill with the
        solve's iterations, products and seconds."""
        op = _P()
        check(L.lib.cis_sci_operator(self.S, ctypes.byref(op)))
        keep = []
        try:
            o = L.lib.cis_davidson_opts_default()
            o.roots, o.tol, o.etol = nroots, tol, 1e-12
            diag = L.lib.cis_operator_diagonal(op)
            if parity and self.equal_sets() and self.size > 1:
                g, sector = self._pure_guesses(np.ctypeslib.as_array(diag, shape=(self.size,)), nroots)
                hook = _correct_fn(self._purify)
                keep += [g, hook]
                o.guess, o.nguess = g.ctypes.data_as(_dp), len(sector)
                o.correct = ctypes.cast(hook, ctypes.c_void_p)
                if len(set(sector)) == 2:  # both parities among the guesses: both followed
                    sec = (ctypes.c_int * len(sector))(*sector)
                    keep.append(sec)
                    o.sectors, o.guess_sector = 2, ctypes.cast(sec, ctypes.c_void_p)
            e = np.empty(nroots)
            x = np.empty((nroots, self.size))
            di = _davidson_info()
            check(L.lib.cis_davidson_operator(op, diag, ctypes.byref(o), e.ctypes.data_as(_dp),
                                              x.ctypes.data_as(_dp), ctypes.byref(di)))
            if info is not None:
                info.update(iterations=di.iterations, products=di.products, op_seconds=di.op_seconds,
                            total_seconds=di.total_seconds)
        finally:
            L.lib.cis_operator_free(op)
        return e, x

    def _pure_guesses(self, d, m):
        """At least m guesses of one parity from the lowest diagonal
        elements ((A,B) and (B,A) taken together), and their sectors (0
        symmetric, 1 antisymmetric)."""
        ns = int(round(np.sqrt(self.size)))
        order = np.argsort(d, kind="stable")
        seen, g, sector = set(), [], []
        for i in order:
            A, B = divmod(int(i), ns)
            key = (min(A, B), max(A, B))
            if key in seen:
                continue
            seen.add(key)
            for t in ((1,) if A == B else (1, -1)):
                v = np.zeros(self.size)
                v[A * ns + B] += 1.0
                v[B * ns + A] += t
                g.append(v / np.linalg.norm(v))
                sector.append(0 if t > 0 else 1)
            if len(g) >= m:
                break
        return np.ascontiguousarray(np.array(g)), sector

    def _purify(self, ctx, t, stream):
        """Davidson's correction hook: t made exactly symmetric or
        antisymmetric when within 1e-6 (in norm) of it, else left."""
        ns = int(round(np.sqrt(self.size)))
        X = np.ctypeslib.as_array(ctypes.cast(t, _dp), shape=(ns, ns))
        nrm = float(np.vdot(X, X))
        d_sym = 0.5 * float(np.sum((X - X.T) ** 2))
        d_anti = 0.5 * float(np.sum((X + X.T) ** 2))
        p = 1 if d_sym <= 1e-12 * nrm else -1 if d_anti <= 1e-12 * nrm else 0
        if p:
            X[:] = 0.5 * (X + p * X.T)
        return 0

    def rdm12(self, bra, ket, want=("rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb")):
        """The RDMs named in want (cis_ci_rdm12's fields) of <bra| and |ket>
        (bra None: the state RDMs of ket) by cis_sci_rdm12, as NumPy arrays
        in PySCF's conventions (selected_ci.make_rdm1s, make_rdm2s)."""
        n = int(self.info()["norb"])
        k = np.ascontiguousarray(ket, dtype=np.float64).ravel()
        b = None if bra is None else np.ascontiguousarray(bra, dtype=np.float64).ravel()
        for v in (k,) if b is None else (k, b):
            if v.size != self.size:
                raise ValueError(f"a vector of {v.size} entries for a space of {self.size} determinants")
        out, o = {}, _rdm12()
        for name in want:
            out[name] = np.empty((n, n) if name.startswith("rdm1") else (n, n, n, n))
            setattr(o, name, out[name].ctypes.data_as(_dp))
        bp = None if b is None else b.ctypes.data_as(_dp)
        check(L.lib.cis_sci_rdm12(self.S, bp, k.ctypes.data_as(_dp), ctypes.byref(o)))
        return out
