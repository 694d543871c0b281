"""cisparse.sqd: selected CI in alpha x beta string sets, the problem of
sample-based quantum diagonalisation (SQD, qiskit-addon-sqd) and of PySCF's
``fci.selected_ci.kernel_fixed_space``, solved by cisparse's CI driver
(``cis_ci_solver_set_strings``, cisparse/ci_solve.h: the method "selected").

    from cisparse import sqd
    res = sqd.solve((strings_a, strings_b), h1, eri, norb, (n_alpha, n_beta), ecore=mol.energy_nuc(), nroots=2)
    res.energies, res.s2            # total energies (ecore included), <S^2> of each root
    res.vectors[0]                  # n_alpha_strings x n_beta_strings, PySCF's SCIvector layout
    res.strings                     # the sorted, deduplicated sets: (alpha, beta)
    res2 = sqd.solve(..., ci0=res)  # warm start, also from other sets (SQD's next iteration)

    # drop-ins for qiskit_addon_sqd.fermion (energies without ECORE, as there)
    result = sqd.solve_sci((strings_a, strings_b), hcore, eri, norb, nelec)      # an SCIResult
    results = sqd.solve_sci_batch([(sa, sb), ...], hcore, eri, norb, nelec)     # the sci_solver of
    # diagonalize_fermionic_hamiltonian(..., sci_solver=sqd.solve_sci_batch)
    energy, state, (occ_a, occ_b), spin_sq = sqd.solve_fermion((strings_a, strings_b), hcore, eri)
    e, civec = sqd.kernel_fixed_space(myci, h1, eri, norb, nelec, ci_strs)  # PySCF's call and SCIvector

Conventions are PySCF's ``selected_ci``: strings are integers (bit p =
orbital p, NORB <= 64), each set sorted and deduplicated, vectors
``n_alpha x n_beta`` alpha major with PySCF's phases, the Hamiltonian the
space's P H P. ``tol`` is Davidson's residual norm, the number the command
line's ``--tol`` and ``cis_ci_solve_opts.tol`` take (PySCF's ``conv_tol``
is an energy change: its residual is about ``sqrt(conv_tol)``). On the host
of one process (OpenMP threads); the GPU sigma is to come.
"""
import ctypes
from dataclasses import dataclass

import numpy as np
from pyscf import ao2mo

from . import _lib as L
from ._errors import check
from .fci import _make_fcidump, _solve_opts

_P = ctypes.c_void_p
_dp = ctypes.POINTER(ctypes.c_double)
_u64p = ctypes.POINTER(ctypes.c_uint64)

for _name, _res, _args in [
    ("cis_ci_solver_set_strings", ctypes.c_int, [_P, _u64p, ctypes.c_int64, _u64p, ctypes.c_int64]),
    ("cis_ci_solver_create", ctypes.c_int, [ctypes.POINTER(_P)]),
    ("cis_ci_solver_free", None, [_P]),
    ("cis_ci_solver_solve", ctypes.c_int, [_P, _P, ctypes.POINTER(_solve_opts), ctypes.POINTER(_P)]),
    ("cis_ci_result_value", ctypes.c_double, [_P, ctypes.c_char_p]),
    ("cis_ci_result_array", ctypes.c_void_p, [_P, ctypes.c_char_p]),
    ("cis_ci_result_free", None, [_P]),
]:
    _f = getattr(L.lib, _name)
    _f.restype, _f.argtypes = _res, _args


@dataclass
class SCIRoots:
    """What solve found: total energies (ecore included), <S^2> of each
    root (not S(S+1) where the sets are not spin complete), the roots as
    n_alpha x n_beta arrays, the sorted sets, and the solve's figures (the
    largest residual norm of the roots always; an unconverged solve raises
    CisparseError rather than return)."""
    energies: np.ndarray
    s2: np.ndarray
    vectors: list
    strings: tuple
    converged: bool
    max_residual: float
    iterations: int
    products: int
    seconds: float


def _strings(s):
    a = np.asarray(s)
    if a.ndim != 1 or a.size == 0:
        raise ValueError("cisparse.sqd: each string set is a non-empty 1-D array of integers")
    if a.dtype.kind == "f":  # qiskit-addon-sqd's loop may pass whole numbers as floats: exact below 2^53
        if not (np.all(np.isfinite(a)) and np.all(a == np.floor(a)) and a.min() >= 0 and a.max() < 2.0 ** 53):
            raise ValueError("cisparse.sqd: strings are non-negative integers (bit p = orbital p); got floats that "
                             "are not whole numbers below 2^53")
        a = a.astype(np.uint64)
    if a.dtype.kind not in "iu" or (a.dtype.kind == "i" and a.size and a.min() < 0):
        raise ValueError("cisparse.sqd: strings are non-negative integers (bit p = orbital p)")
    return np.ascontiguousarray(a, dtype=np.uint64)


def solve(ci_strs, h1, eri, norb, nelec, ecore=0.0, nroots=1, tol=1e-8, max_cycle=200, max_space=0, ci0=None):
    """The lowest nroots states of (h1, eri) (eri in any of PySCF's packings)
    in the product space ci_strs = (alpha strings, beta strings) for nelec =
    (n_alpha, n_beta) electrons in norb orbitals. ci0: warm-start vectors
    (n_alpha x n_beta each, in the sorted sets' order), or an earlier
    SCIRoots, of these sets or others (SQD's next iteration): its roots on
    the determinants both spaces hold. Bad input (strings of the wrong
    electron count or beyond norb, sizes that cannot fit) raises
    CisparseError with the library's one-line message."""
    na, nb = (int(n) for n in nelec)
    A, B = _strings(ci_strs[0]), _strings(ci_strs[1])
    F = _make_fcidump(int(norb), (na, nb))
    F.ecore = float(ecore)
    h1 = np.ascontiguousarray(h1, dtype=np.float64).reshape(norb, norb)
    eri8 = np.ascontiguousarray(ao2mo.restore(8, np.asarray(eri, dtype=np.float64), norb))
    F.h1, F.eri = h1.ctypes.data_as(_dp), eri8.ctypes.data_as(_dp)
    o = L.lib.cis_ci_solve_opts_default()
    o.roots, o.tol, o.max_iter, o.max_sub, o.keep_vectors = int(nroots), float(tol), int(max_cycle), int(max_space), 1
    guess = None
    if isinstance(ci0, SCIRoots):  # an earlier result, maybe of other sets: its vectors put onto these sets' grid
        ci0 = _onto_grid(ci0, np.unique(A), np.unique(B))
    if ci0 is not None:
        guess = np.ascontiguousarray([np.asarray(v, dtype=np.float64).ravel() for v in
                                      (ci0 if isinstance(ci0, (list, tuple)) else [ci0])])
        o.guess, o.nguess = guess.ctypes.data_as(_dp), len(guess)
    h, R = _P(), _P()
    check(L.lib.cis_ci_solver_create(ctypes.byref(h)))
    try:
        check(L.lib.cis_ci_solver_set_strings(h, A.ctypes.data_as(_u64p), A.size, B.ctypes.data_as(_u64p), B.size))
        if guess is not None:
            n_grid = len(np.unique(A)) * len(np.unique(B))
            if guess.shape[1] != n_grid:
                raise ValueError(f"cisparse.sqd: ci0 vectors of {guess.shape[1]} entries for a space of {n_grid}")
        check(L.lib.cis_ci_solver_solve(h, ctypes.byref(F), ctypes.byref(o), ctypes.byref(R)))
        val = lambda k: L.lib.cis_ci_result_value(R, k.encode())  # noqa: E731
        arr = lambda name, t, n: np.ctypeslib.as_array(ctypes.cast(L.lib.cis_ci_result_array(R, name), t), (n,)).copy()  # noqa: E731,E501
        ga, gb = int(val("grid_alpha_n")), int(val("grid_beta_n"))
        e, s2 = arr(b"energies", _dp, nroots), arr(b"s2", _dp, nroots)
        vecs = arr(b"vectors", _dp, nroots * ga * gb).reshape(nroots, ga, gb)
        return SCIRoots(energies=e, s2=s2, vectors=[vecs[k] for k in range(nroots)],
                         strings=(arr(b"grid_alpha", _u64p, ga), arr(b"grid_beta", _u64p, gb)),
                         converged=bool(val("converged")), max_residual=float(val("max_residual")),
                         iterations=int(val("iterations")),
                         products=int(val("products")), seconds=float(val("total_seconds")))
    finally:
        if R:
            L.lib.cis_ci_result_free(R)
        L.lib.cis_ci_solver_free(h)


def _onto_grid(res, A, B):
    """res's vectors on the grid A x B (sorted sets): the entries of the
    determinants both grids hold, zero elsewhere (SQD's next iteration
    keeps most strings, so the last roots are a close warm start)."""
    (a0, b0) = res.strings
    ia, ib = np.searchsorted(a0, A), np.searchsorted(b0, B)
    ka = (ia < len(a0)) & (a0[np.minimum(ia, len(a0) - 1)] == A)
    kb = (ib < len(b0)) & (b0[np.minimum(ib, len(b0) - 1)] == B)
    out = []
    for v in res.vectors:
        w = np.zeros((len(A), len(B)))
        w[np.ix_(ka, kb)] = v[np.ix_(ia[ka], ib[kb])]
        if np.linalg.norm(w) > 1e-8:  # a guess with nothing left is no guess
            out.append(w)
    return out or None


def _occupancies(res, norb):
    """The root's orbital occupancies (alpha, beta), the 1-RDMs' diagonals:
    each string's weight (its row or column of |c|^2 summed) over its bits,
    no space or links needed."""
    c2 = np.square(res.vectors[0])
    bits = [((s[:, None] >> np.arange(norb, dtype=np.uint64)) & np.uint64(1)).astype(np.float64) for s in res.strings]
    return c2.sum(axis=1) @ bits[0], c2.sum(axis=0) @ bits[1]


try:  # qiskit-addon-sqd's own result types where it is installed, so its loop takes ours unchanged
    from qiskit_addon_sqd.fermion import SCIResult, SCIState  # noqa: F401
except ImportError:  # compatible dataclasses otherwise
    @dataclass(frozen=True)
    class SCIState:
        """A state as qiskit-addon-sqd's SCIState holds it: amplitudes
        (n_alpha x n_beta) over the sorted sets ci_strs_a x ci_strs_b."""
        amplitudes: np.ndarray
        ci_strs_a: np.ndarray
        ci_strs_b: np.ndarray
        norb: int
        nelec: tuple

    @dataclass(frozen=True)
    class SCIResult:
        """qiskit-addon-sqd's SCIResult: the energy (electronic: ECORE not
        included), the state, the orbital occupancies (alpha, beta) and the
        spin-summed RDMs."""
        energy: float
        sci_state: SCIState
        orbital_occupancies: tuple
        rdm1: np.ndarray = None
        rdm2: np.ndarray = None


_KERNEL_KWARGS = ("max_cycle", "max_space", "conv_tol", "ci0", "verbose", "max_memory", "lindep")


def solve_sci(ci_strings, one_body_tensor, two_body_tensor, norb, nelec, *, spin_sq=None, rdm2=False, **kwargs):
    """qiskit-addon-sqd's ``fermion.solve_sci`` (call and SCIResult) on
    cisparse: the ground state in the product of ci_strings = (alpha
    strings, beta strings), the energy from its RDMs as there (electronic),
    the orbital occupancies, the spin-summed 1- and 2-RDMs. kwargs as
    ``kernel_fixed_space`` takes them: max_cycle, max_space, conv_tol (an
    energy change: the residual held below sqrt(conv_tol), PySCF's rule),
    ci0 (a vector over the sorted sets or an SCIRoots); verbose,
    max_memory and lindep are accepted and not used. The energy is the
    root's eigenvalue (qiskit-addon-sqd recomputes it from the RDMs because
    of its spin penalty; without one they agree to the residual); rdm1 is
    always there, rdm2 (n^4, the costliest part at large norb: 4.8 s against
    a 7-s solve at 90,000 determinants in 26 orbitals) only with
    rdm2=True, else None (qiskit-addon-sqd's loop reads the energy and the
    occupancies). spin_sq (PySCF's fix_spin_ penalty) is not offered for
    string sets yet: refused, as an unknown keyword is."""
    if spin_sq is not None:
        raise NotImplementedError("cisparse.sqd: spin_sq (a spin penalty) is not offered for string sets yet; the "
                                  "state's <S^2> is available from cisparse.sqd.solve")
    unknown = sorted(set(kwargs) - set(_KERNEL_KWARGS))
    if unknown:
        raise TypeError(f"cisparse.sqd.solve_sci: unknown keyword(s) {unknown}")
    conv_tol = kwargs.get("conv_tol")
    tol = 1e-8 if conv_tol is None else max(min(np.sqrt(float(conv_tol)), 1e-3), 1e-10)
    norb = int(one_body_tensor.shape[0]) if norb is None else int(norb)
    res = solve(ci_strings, one_body_tensor, two_body_tensor, norb, nelec, nroots=1, tol=tol,
                max_cycle=int(kwargs.get("max_cycle") or 200), max_space=int(kwargs.get("max_space") or 0),
                ci0=kwargs.get("ci0"))
    from .sci import _SciSpace  # the state's RDMs, in one pass
    S = _SciSpace(one_body_tensor, two_body_tensor, norb, nelec, res.strings)
    d = S.rdm12(None, res.vectors[0].ravel(), want=("rdm1", "rdm2") if rdm2 else ("rdm1",))
    state = SCIState(amplitudes=res.vectors[0], ci_strs_a=res.strings[0], ci_strs_b=res.strings[1], norb=norb,
                     nelec=tuple(int(n) for n in nelec))
    return SCIResult(float(res.energies[0]), state, orbital_occupancies=_occupancies(res, norb), rdm1=d["rdm1"],
                     rdm2=d.get("rdm2"))


def solve_sci_batch(ci_strings, one_body_tensor, two_body_tensor, norb, nelec, *, spin_sq=None, rdm2=False, **kwargs):
    """qiskit-addon-sqd's ``fermion.solve_sci_batch``: solve_sci for each
    pair of sets in ci_strings, one after another, as a list; pass it as
    ``diagonalize_fermionic_hamiltonian(..., sci_solver=cisparse.sqd.solve_sci_batch)``."""
    return [solve_sci(c, one_body_tensor, two_body_tensor, norb, nelec, spin_sq=spin_sq, rdm2=rdm2, **kwargs)
            for c in ci_strings]


def kernel_fixed_space(myci, h1e, eri, norb, nelec, ci_strs, ci0=None, tol=None, lindep=None, max_cycle=None,
                       max_space=None, nroots=None, davidson_only=None, max_memory=None, verbose=None, ecore=0,
                       **kwargs):
    """PySCF's ``fci.selected_ci.kernel_fixed_space`` on cisparse: the same
    arguments and answer, (energy, SCIvector) for one root or (energies,
    [SCIvector, ...]) for several, energies with ecore added; myci supplies
    conv_tol, max_cycle, max_space and nroots where the call does not (as
    PySCF's does). tol is PySCF's conv_tol (an energy change: the residual
    is held below its square root). lindep, davidson_only, max_memory and
    verbose are accepted and not used; other keywords are refused. A
    spin-penalised myci (fix_spin_) is refused: the penalty is not offered
    for string sets yet."""
    from pyscf.fci import selected_ci
    if kwargs:
        raise TypeError(f"cisparse.sqd.kernel_fixed_space: unknown keyword(s) {sorted(kwargs)}")
    if getattr(myci, "ss_penalty", None):
        raise NotImplementedError("cisparse.sqd.kernel_fixed_space: fix_spin_ is not offered for string sets yet")
    conv_tol = tol if tol is not None else getattr(myci, "conv_tol", 1e-10)
    nroots = int(nroots if nroots is not None else getattr(myci, "nroots", 1))
    res = solve(ci_strs, h1e, eri, norb, nelec, ecore=ecore, nroots=nroots,
                tol=max(min(float(np.sqrt(conv_tol)), 1e-3), 1e-10),
                max_cycle=int(max_cycle if max_cycle is not None else getattr(myci, "max_cycle", 200)),
                max_space=int(max_space if max_space is not None else 0), ci0=ci0)
    strs = tuple(np.asarray(x, dtype=np.int64) for x in res.strings)  # PySCF's string type
    vecs = [selected_ci._as_SCIvector(v, strs) for v in res.vectors]
    return (res.energies[0], vecs[0]) if nroots == 1 else (res.energies, vecs)


def solve_fermion(ci_strs, hcore, eri, *, open_shell=False, spin_sq=None, max_davidson=100, tol=1e-8):
    """qiskit_addon_sqd.fermion.solve_fermion's call and answer on cisparse:
    ci_strs = (alpha strings, beta strings) as integers; unless open_shell
    both spins take the union of the two sets (SQD's closed-shell rule); the
    electron counts are the strings' bit counts. Returns (energy without
    ECORE, SCIState, (alpha occupancies, beta occupancies), <S^2>). spin_sq
    (PySCF's fix_spin_ penalty) is not offered for string sets: refused."""
    if spin_sq is not None:
        raise NotImplementedError("cisparse.sqd: spin_sq (a spin penalty) is not offered for string sets; <S^2> of "
                                  "the state is returned")
    A, B = _strings(ci_strs[0]), _strings(ci_strs[1])
    if not open_shell:
        A = B = np.union1d(A, B)
    norb = int(hcore.shape[0])
    nelec = (int(bin(int(A[0])).count("1")), int(bin(int(B[0])).count("1")))
    res = solve((A, B), hcore, eri, norb, nelec, nroots=1, tol=tol, max_cycle=max_davidson)
    state = SCIState(res.vectors[0], res.strings[0], res.strings[1], norb, nelec)
    return float(res.energies[0]), state, _occupancies(res, norb), float(res.s2[0])
