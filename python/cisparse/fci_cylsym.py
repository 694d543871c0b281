"""Linear molecules (PySCF's D∞h/C∞v, ``mol.groupname`` 'Dooh' or 'Coov')
for ``cisparse.fci.FCISolver``: the state of the requested cylindrical irrep.

PySCF's irrep ids of D∞h/C∞v are 10 * k + (a D2h id): the D2h irrep the
state belongs to (id % 10) and the angular momentum Λ = |Lz|
(``symm.basis.linearmole_irrep2momentum``). A D2h irrep holds several
cylindrical ones (Ag: Σg+, the x components of Δg, Γg, ...), so the lowest
states of the D2h block are not those asked for. Here the driver solves the
D2h block (its blocked direct sigma, CPU or GPU, unchanged) and the roots
are kept whose Λ is the target's: with real orbitals Lz = i A, where

    A = sum_k m_k (E_{y_k x_k} - E_{x_k y_k})

is the real antisymmetric one-body operator pairing each x orbital of
angular momentum m_k with its degenerate y partner (PySCF's degen_mapping,
from h1e's diagonal as ``scf.hf_symm.map_degeneracy`` where orbsym has none),
so <Lz^2> = ||A psi||^2 (PySCF's ``direct_nosym.contract_1e``, which takes a
non-symmetric matrix). A commutes with H when the pairs' phases are
consistent (what PySCF's ``_cyl_sym_orbital_rotation`` assumes too); that is
checked on h1e and eri, and a violation is PySCF's PointGroupSymmetryError.
More roots are solved than asked (warm-started with the roots found) until
nroots of the target Λ are found or the block has no more (method 'auto'
runs the direct sigma here: its space and integrals are kept between these
solves, where a stored H would be built again for each); E_x and E_y
targets solve the D2h block of their own component, so their energies agree.
Vectors are PySCF's (alpha x beta strings, real orbitals), as
``direct_spin1_symm`` returns them for linear molecules.
"""
import numpy as np
from pyscf import lib, symm
from pyscf.fci import cistring, direct_nosym, direct_spin1_symm, direct_spin1_cyl_sym
from pyscf.scf.hf_symm import map_degeneracy

LINEAR_GROUPS = ("Dooh", "Coov")
LZ2_TOL = 1e-2  # |<Lz^2> - Λ^2| of a kept root (neighbouring Λ of one D2h irrep differ by >= 4)
MIX_GAP = 1e-6  # roots closer in energy than this are rotated to Lz^2 eigenvectors before the filter


def group_of(solver):
    """The point group's name of solver.mol (None without one)."""
    return getattr(getattr(solver, "mol", None), "groupname", None)


def applies(solver, orbsym):
    """Whether kernel() must go through cylindrical symmetry: a linear
    molecule with orbital irreps, outside this module's own D2h solves."""
    return orbsym is not None and group_of(solver) in LINEAR_GROUPS and not solver.__dict__.get("_cylsym_inner")


def check_wfnsym_id(solver):
    """PySCF's check in dump_flags: an integer wfnsym that is no irrep of
    solver.mol's group (SO3's id 4, D∞h's 8) is a RuntimeError naming both."""
    wfnsym, group = getattr(solver, "wfnsym", None), group_of(solver)
    if group is None or not isinstance(wfnsym, (int, np.integer)):
        return
    try:
        symm.irrep_id2name(group, int(wfnsym))
    except (KeyError, IndexError):
        raise RuntimeError(f"cisparse.fci: wfnsym id {wfnsym} is not an irrep of point group {group}") from None


def is_linear_irrep(group, wfnsym):
    """Whether wfnsym is one of PySCF's irrep ids of the linear group (D∞h:
    0..7, 10..17, ...; C∞v: 0..3, 10..13, ...)."""
    try:
        return wfnsym >= 0 and symm.irrep_name2id(group, symm.irrep_id2name(group, int(wfnsym))) == wfnsym
    except (KeyError, IndexError, ValueError):
        return False


def tagged_orbsym(h1e, orbsym):
    """orbsym as an int array tagged with its degen_mapping (orbsym's own,
    else map_degeneracy from h1e's diagonal): PySCF's PointGroupSymmetryError
    unless every E orbital has its partner."""
    mapping = getattr(orbsym, "degen_mapping", None)
    ids = np.asarray(orbsym, dtype=np.int64)
    if mapping is None:
        mapping = map_degeneracy(np.diagonal(np.asarray(h1e).reshape(ids.size, ids.size)), ids)
    mapping = np.asarray(mapping, dtype=np.int64)
    if mapping.shape != ids.shape or mapping.min() < 0 or \
            not direct_spin1_symm._validate_degen_mapping(mapping, ids.size):
        raise lib.exceptions.PointGroupSymmetryError(
            f"cisparse.fci: incomplete 2D-irrep orbitals for cylindrical symmetry: orbsym = {ids.tolist()}, "
            f"degenerate partners {mapping.tolist()}")
    momentum = direct_spin1_cyl_sym._get_orb_l(ids)
    for i, j in enumerate(mapping):
        if (i == j) != (momentum[i] == 0) or (i != j and momentum[j] != -momentum[i]):
            raise lib.exceptions.PointGroupSymmetryError(
                f"cisparse.fci: orbital {i} (irrep id {ids[i]}) is paired with orbital {j} (irrep id {ids[j]}): "
                "an E_x orbital needs one E_y partner of the same angular momentum")
    return lib.tag_array(ids, degen_mapping=mapping)


def lz_generator(orbsym):
    """A (norb x norb, real antisymmetric): Lz = i sum_pq A_pq E_pq for
    orbsym's pairs (x orbital of momentum m > 0, y partner)."""
    momentum = direct_spin1_cyl_sym._get_orb_l(np.asarray(orbsym))
    A = np.zeros((orbsym.size, orbsym.size))
    for x, y in enumerate(orbsym.degen_mapping):
        if momentum[x] > 0:
            A[y, x], A[x, y] = momentum[x], -momentum[x]
    return A


def check_commutes(A, h1e, eri, norb, tol=1e-6):
    """PySCF's PointGroupSymmetryError unless sum A_pq E_pq commutes with
    the Hamiltonian of (h1e, eri): [A, h] = 0 and the two-body commutator
    sum_t A_pt (tq|rs) - (pt|rs) A_tq + (r,s alike) = 0, to tol relative to
    the largest integral (the pairs' phases must all follow one convention)."""
    from pyscf import ao2mo
    h = np.asarray(h1e, dtype=np.float64).reshape(norb, norb)
    g = ao2mo.restore(1, np.asarray(eri, dtype=np.float64), norb)
    c1 = np.abs(A @ h - h @ A).max(initial=0.0)
    t = np.einsum("pt,tqrs->pqrs", A, g, optimize=True) - np.einsum("ptrs,tq->pqrs", g, A, optimize=True)
    c2 = np.abs(t + t.transpose(2, 3, 0, 1)).max(initial=0.0)
    scale = max(1.0, np.abs(h).max(initial=0.0), np.abs(g).max(initial=0.0))
    if max(c1, c2) > tol * scale:
        raise lib.exceptions.PointGroupSymmetryError(
            f"cisparse.fci: the orbitals break cylindrical symmetry: Lz of the E_x/E_y pairs does not commute with "
            f"the Hamiltonian (|[Lz, h1e]| = {c1:.2e}, |[Lz, eri]| = {c2:.2e}); the pairs' phases or degeneracy "
            "are inconsistent (solve in D2h: orbsym % 10 and a D2h wfnsym without a linear mol)")


def block_size(norb, nelec, orbsym, wfnsym):
    """Determinants of the D2h irrep wfnsym % 10 (orbsym % 10)."""
    ir = [direct_spin1_symm._gen_strs_irrep(cistring.gen_strings4orblist(range(norb), n), orbsym)
          for n in nelec]
    na, nb = (np.bincount(x, minlength=8) for x in ir)
    return int(sum(na[i] * nb[i ^ (wfnsym % 10)] for i in range(8)))


def states_of_momentum(norb, nelec, orbsym, wfnsym):
    """Determinants of Lz = +Λ (-Λ for an E_y id) and the target's parity:
    the number of target multiplets for Λ > 0, of Σ+ and Σ- together for Λ = 0."""
    return sum(x.size for x in direct_spin1_cyl_sym.sym_allowed_indices(tuple(nelec), orbsym, wfnsym))


def apply_a(A, vecs, norb, nelec):
    """A psi for each vector psi (na x nb arrays): <Lz^2> = ||A psi||^2."""
    link = (cistring.gen_linkstr_index(range(norb), nelec[0]), cistring.gen_linkstr_index(range(norb), nelec[1]))
    Av = [direct_nosym.contract_1e(A, np.ascontiguousarray(v, dtype=np.float64), norb, nelec, link) for v in vecs]
    return Av


def unmix(e, vecs, Av):
    """Roots of (nearly) equal energy rotated to eigenvectors of Lz^2 among
    them; returns energies (Rayleigh quotients), vectors and <Lz^2>."""
    e, vecs = np.array(e, dtype=np.float64), [np.asarray(v) for v in vecs]
    M = np.array([[np.dot(a.ravel(), b.ravel()) for b in Av] for a in Av])
    lz2 = np.diag(M).copy()
    start = 0
    while start < len(e):
        stop = start + 1
        while stop < len(e) and e[stop] - e[stop - 1] < MIX_GAP:
            stop += 1
        if stop - start > 1:
            w, U = np.linalg.eigh(M[start:stop, start:stop])
            block = [vecs[k] for k in range(start, stop)]
            vecs[start:stop] = [sum(U[i, j] * block[i] for i in range(len(block))) for j in range(len(block))]
            e[start:stop] = np.einsum("ij,i,ij->j", U, e[start:stop], U)
            lz2[start:stop] = w
        start = stop
    return e, vecs, lz2


def kernel(solve, solver, h1e, eri, norb, nelec, ci0, ecore, nroots, tol, max_cycle, orbsym, wfnsym, kwargs):
    """FCISolver.kernel for a linear molecule: the lowest nroots states of
    the cylindrical irrep wfnsym (PySCF's id or name; None: PySCF's guess
    from ci0 or the orbitals), as (energies, vectors) of PySCF's types.
    solve: the caller's own kernel (cisparse's FCISolver.kernel, not a
    state_average_ wrapper's, whose roots are fixed), called unbound on
    solver for each D2h solve."""
    orbsym = tagged_orbsym(h1e, orbsym)
    wfnsym = direct_spin1_symm.guess_wfnsym(solver, norb, nelec, ci0, orbsym, wfnsym)
    if not is_linear_irrep(group_of(solver), wfnsym):
        raise ValueError(f"cisparse.fci: wfnsym id {wfnsym} is not an irrep of point group {group_of(solver)}")
    lam2 = symm.basis.linearmole_irrep2momentum(wfnsym) ** 2
    A = lz_generator(orbsym)
    check_commutes(A, h1e, eri, norb)
    n_block = block_size(norb, nelec, orbsym, wfnsym)
    n_states = min(n_block, states_of_momentum(norb, nelec, orbsym, wfnsym))
    if n_states == 0:
        raise lib.exceptions.WfnSymmetryError(
            f"cisparse.fci: no state of symmetry {symm.irrep_id2name(group_of(solver), int(wfnsym))} in "
            f"{norb} orbitals with {nelec} electrons")
    want = min(nroots, n_states)
    key = (norb, tuple(nelec), int(wfnsym), want)
    known = solver.__dict__.setdefault("_cylsym_roots", {})
    k, solves, guess = min(max(want, known.get(key, want)), n_block), 0, ci0
    inner = dict(orbsym=np.asarray(orbsym) % 10, wfnsym=int(wfnsym) % 10, ecore=ecore, tol=tol, max_cycle=max_cycle)
    # 'auto': the direct sigma, whose space and integrals the solves share (a stored H is built for each solve)
    method = "direct" if solver.method == "auto" else solver.method
    while True:
        with lib.temporary_env(solver, _cylsym_inner=True, wfnsym=inner["wfnsym"], method=method):
            e, c = solve(solver, h1e, eri, norb, nelec, ci0=guess, nroots=k, **inner, **kwargs)
        solves += 1
        e, c = (np.atleast_1d(e), [c] if k == 1 else list(c))
        e, c, lz2 = unmix(e, c, apply_a(A, c, norb, nelec))
        keep = [i for i in range(len(c)) if abs(lz2[i] - lam2) < LZ2_TOL]
        if len(keep) >= want or k >= n_block:
            break
        guess, k = c, min(2 * k + want - len(keep), n_block)
    known[key] = k
    if not keep:
        raise lib.exceptions.WfnSymmetryError(
            f"cisparse.fci: no root of Lz^2 = {lam2} among all {k} states of the D2h block (<Lz^2> {lz2.round(3)})")
    keep = keep[:want]
    conv = solver.converged if isinstance(solver.converged, list) else [solver.converged] * len(c)
    solver.stats["cylsym"] = dict(wfnsym=int(wfnsym), roots_solved=k, solves=solves, lz2=lz2[keep].tolist())
    vecs = [c[i] for i in keep]
    if nroots == 1:
        solver.eci, solver.ci, solver.converged = float(e[keep[0]]), vecs[0], bool(conv[keep[0]])
    else:
        solver.eci, solver.ci, solver.converged = e[keep], vecs, [bool(conv[i]) for i in keep]
    return solver.eci, solver.ci
