"""cisparse.sqd (selected CI through the driver) against PySCF's selected_ci:
energies of kernel_fixed_space on the same string sets (a molecule's
integrals and random ones; closed and open shells, equal and different
sets, several roots), the vectors up to sign, <S^2> against PySCF's
spin_square of the vector put into the full space, a warm start, the
qiskit-addon-sqd form (solve_fermion), and bad input refused."""
import numpy as np
import pytest
from pyscf import ao2mo, fci, gto, scf
from pyscf.fci import cistring, selected_ci, spin_op

from cisparse import sqd
from cisparse._errors import CisparseError


def _random_integrals(norb, seed):
    rng = np.random.default_rng(seed)
    h1 = rng.uniform(-1, 1, (norb, norb))
    h1 = h1 + h1.T - np.diag(np.arange(norb, 0, -1.0))
    B = rng.normal(size=(norb * (norb + 1) // 2, 6)) * 0.4
    eri = ao2mo.restore(1, B @ B.T, norb)  # positive semidefinite, 8-fold symmetric
    return h1, eri


def _subset(norb, nel, m, rng):
    strs = cistring.make_strings(range(norb), nel)
    pick = rng.choice(len(strs), size=min(m, len(strs)), replace=False)
    return np.sort(strs[pick])


def _pyscf(h1, eri, norb, nelec, strs, nroots, ecore=0.0):
    """The space's P H P from PySCF's selected_ci.contract_2e on unit vectors,
    dense-diagonalised (kernel_fixed_space's Davidson stops short of 1e-8 on
    the higher roots of random integrals): energies and SCI vectors."""
    na, nb = len(strs[0]), len(strs[1])
    h2 = selected_ci.direct_spin1.absorb_h1e(h1, eri, norb, nelec, 0.5)
    H = np.empty((na * nb, na * nb))
    for j in range(na * nb):
        u = np.zeros(na * nb)
        u[j] = 1
        H[:, j] = selected_ci.contract_2e(h2, selected_ci._as_SCIvector(u.reshape(na, nb), strs), norb, nelec).ravel()
    w, X = np.linalg.eigh(0.5 * (H + H.T))
    # contiguous copies: PySCF's selected_ci C code reads the array's memory as C order
    cs = [selected_ci._as_SCIvector(np.ascontiguousarray(X[:, k]).reshape(na, nb), strs) for k in range(nroots)]
    return w[:nroots] + ecore, cs


def _check(h1, eri, norb, nelec, strs, nroots, ecore=0.0):
    res = sqd.solve(strs, h1, eri, norb, nelec, ecore=ecore, nroots=nroots, tol=1e-9)
    e, cs = _pyscf(h1, eri, norb, nelec, strs, nroots, ecore)
    assert np.all(res.strings[0] == np.unique(strs[0])) and np.all(res.strings[1] == np.unique(strs[1]))
    np.testing.assert_allclose(res.energies, e, atol=1e-8, rtol=0)
    for k in range(nroots):
        single = (k == 0 or e[k] - e[k - 1] > 1e-6) and (k + 1 == nroots or e[k + 1] - e[k] > 1e-6)
        if not single:
            continue
        v, w = res.vectors[k], np.asarray(cs[k])
        assert v.shape == w.shape
        assert abs(abs(np.dot(v.ravel(), w.ravel())) - 1) < 1e-7  # the same state up to sign
        full = selected_ci.to_fci(cs[k], norb, nelec)
        ss, _ = spin_op.spin_square0(full, norb, nelec)
        assert abs(res.s2[k] - ss) < 1e-6, (k, res.s2[k], ss)
    assert res.converged and res.iterations > 0 and 0 <= res.max_residual <= 1e-9
    return res


def test_water_subsets():
    mol = gto.M(atom="O 0 0 0; H 0 0.757 0.587; H 0 -0.757 0.587", basis="6-31g", verbose=0)
    mf = scf.RHF(mol).run()
    norb, nelec = 10, (4, 4)
    from pyscf import mcscf
    cas = mcscf.CASCI(mf, norb, nelec)  # the O 1s frozen
    h1, ecore = cas.get_h1eff()
    eri = ao2mo.restore(1, cas.get_h2eff(), norb)
    rng = np.random.default_rng(7)
    a = _subset(norb, 4, 30, rng)
    hf = int("1111", 2)
    a = np.union1d(a, [hf])
    _check(h1, eri, norb, nelec, (a, a), nroots=2, ecore=ecore)  # equal sets, the usual SQD case
    b = np.union1d(_subset(norb, 4, 24, rng), [hf])
    _check(h1, eri, norb, nelec, (a, b), nroots=3, ecore=ecore)


@pytest.mark.parametrize("norb,nelec,ma,mb,seed", [(8, (4, 4), 26, 26, 1), (8, (5, 3), 30, 22, 2),
                                                   (9, (4, 3), 32, 24, 3), (7, (3, 3), 28, 28, 4)])
def test_random_integrals(norb, nelec, ma, mb, seed):
    h1, eri = _random_integrals(norb, seed)
    rng = np.random.default_rng(seed)
    _check(h1, eri, norb, nelec, (_subset(norb, nelec[0], ma, rng), _subset(norb, nelec[1], mb, rng)), nroots=3)


def _z2_integrals(norb, seed):
    """Random integrals of a two-irrep point group (orbital irreps 0, 1, 0, 1,
    ...): h1 and (pq|rs) zero unless the irreps' product is totally
    symmetric, as integrals in symmetry-adapted orbitals are."""
    h1, eri = _random_integrals(norb, seed)
    irr = np.arange(norb) % 2
    h1 = h1 * (irr[:, None] == irr[None, :])
    allowed = (irr[:, None, None, None] ^ irr[None, :, None, None] ^ irr[None, None, :, None] ^ irr[None, None, None, :]) == 0
    return h1, eri * allowed


@pytest.mark.parametrize("seed", range(1, 9))
def test_symmetric_integrals_lowest_state(seed):
    """One root is the lowest state of the space, whatever its irrep: the
    space is taken without ORBSYM, and unit-vector guesses on the lowest
    diagonal entries may all lie in another irrep (Davidson cannot leave it)."""
    norb, nelec = 8, (4, 3)
    h1, eri = _z2_integrals(norb, seed)
    rng = np.random.default_rng(100 + seed)
    strs = (_subset(norb, 4, 24, rng), _subset(norb, 3, 20, rng))
    res = sqd.solve(strs, h1, eri, norb, nelec, nroots=1, tol=1e-9)
    e, _ = _pyscf(h1, eri, norb, nelec, strs, 1)
    assert abs(res.energies[0] - e[0]) < 1e-8, (res.energies[0], e[0])


def test_full_sets_are_fci():
    h1, eri = _random_integrals(7, 9)
    nelec = (3, 3)
    strs = (cistring.make_strings(range(7), 3),) * 2
    res = sqd.solve(strs, h1, eri, 7, nelec, nroots=3, tol=1e-9)
    _, h0 = fci.direct_spin1.pspace(h1, eri, 7, nelec, np=35 * 35)  # PySCF's Slater-Condon H of every determinant
    e = np.linalg.eigvalsh(h0)[:3]
    np.testing.assert_allclose(res.energies, e, atol=1e-8, rtol=0)


def test_warm_start():
    h1, eri = _random_integrals(8, 5)
    rng = np.random.default_rng(5)
    strs = (_subset(8, 4, 40, rng), _subset(8, 4, 40, rng))
    cold = sqd.solve(strs, h1, eri, 8, (4, 4), nroots=2)
    warm = sqd.solve(strs, h1, eri, 8, (4, 4), nroots=2, ci0=cold.vectors)
    np.testing.assert_allclose(warm.energies, cold.energies, atol=1e-9, rtol=0)
    assert warm.products < cold.products


def test_warm_start_other_sets():
    """SQD's next iteration: an earlier result of other sets as ci0 (its
    roots on the common determinants) gives the same energies as a cold
    start, in fewer products."""
    h1, eri = _random_integrals(8, 12)
    rng = np.random.default_rng(12)
    a = _subset(8, 4, 40, rng)
    first = sqd.solve((a, a), h1, eri, 8, (4, 4), nroots=2)
    b = np.union1d(a[:-4], _subset(8, 4, 6, rng))  # most strings kept, a few swapped
    cold = sqd.solve((b, b), h1, eri, 8, (4, 4), nroots=2)
    warm = sqd.solve((b, b), h1, eri, 8, (4, 4), nroots=2, ci0=first)
    np.testing.assert_allclose(warm.energies, cold.energies, atol=1e-9, rtol=0)
    assert warm.products < cold.products, (warm.products, cold.products)


def test_qiskit_form():
    """solve_sci / solve_sci_batch answer as qiskit-addon-sqd's (which call
    PySCF's kernel_fixed_space and take the energy from the RDMs): the same
    energy, occupancies and spin-summed RDMs as PySCF's on the same state
    (the dense eigenvector, to 1e-8)."""
    h1, eri = _random_integrals(8, 14)
    rng = np.random.default_rng(14)
    batch = [(_subset(8, 4, 30, rng), _subset(8, 3, 28, rng)), (_subset(8, 4, 26, rng), _subset(8, 3, 30, rng))]
    res = sqd.solve_sci_batch(batch, h1, eri, 8, (4, 3), max_cycle=300, rdm2=True)
    assert sqd.solve_sci(batch[0], h1, eri, 8, (4, 3)).rdm2 is None  # the n^4 RDM only when asked
    assert len(res) == 2
    for (a, b), r in zip(batch, res):
        myci = selected_ci.SCI()
        e = selected_ci.kernel_fixed_space(myci, h1, eri, 8, (4, 3), (a, b), tol=1e-13, max_cycle=500)[0]
        assert abs(r.energy - e) < 1e-8, (r.energy, e)
        c = _pyscf(h1, eri, 8, (4, 3), (a, b), 1)[1][0]  # the exact state (kernel_fixed_space's residual ~3e-7)
        assert np.all(r.sci_state.ci_strs_a == a) and r.sci_state.amplitudes.shape == (len(a), len(b))
        dm1a, dm1b = selected_ci.make_rdm1s(c, 8, (4, 3))
        np.testing.assert_allclose(r.orbital_occupancies[0], np.diag(dm1a), atol=1e-8)
        np.testing.assert_allclose(r.orbital_occupancies[1], np.diag(dm1b), atol=1e-8)
        np.testing.assert_allclose(r.rdm1, selected_ci.make_rdm1(c, 8, (4, 3)), atol=1e-8)
        np.testing.assert_allclose(r.rdm2, selected_ci.make_rdm2(c, 8, (4, 3)), atol=1e-8)
    with pytest.raises(NotImplementedError):
        sqd.solve_sci(batch[0], h1, eri, 8, (4, 3), spin_sq=0.75)
    with pytest.raises(TypeError):
        sqd.solve_sci(batch[0], h1, eri, 8, (4, 3), max_davidson=5)


def test_kernel_fixed_space_form():
    """PySCF's kernel_fixed_space call and answer: one root (energy, SCIvector)
    and several (energies, list); the vectors usable by PySCF's own
    selected_ci functions (make_rdm1 against the exact state's)."""
    h1, eri = _random_integrals(8, 16)
    rng = np.random.default_rng(16)
    strs = (_subset(8, 4, 24, rng), _subset(8, 4, 22, rng))
    myci = selected_ci.SCI()
    e1, c1 = sqd.kernel_fixed_space(myci, h1, eri, 8, (4, 4), strs, ecore=0.5, tol=1e-18)  # residual 1e-9
    e3, c3 = sqd.kernel_fixed_space(myci, h1, eri, 8, (4, 4), strs, nroots=3, tol=1e-14)
    ref, cs = _pyscf(h1, eri, 8, (4, 4), strs, 3)
    assert abs(e1 - (ref[0] + 0.5)) < 1e-8 and len(e3) == 3 and len(c3) == 3
    np.testing.assert_allclose(e3, ref, atol=1e-9, rtol=0)
    assert c1.shape == (24, 22) and np.all(c1._strs[0] == strs[0])
    np.testing.assert_allclose(selected_ci.make_rdm1(c1, 8, (4, 4)), selected_ci.make_rdm1(cs[0], 8, (4, 4)), atol=1e-7)
    with pytest.raises(TypeError):
        sqd.kernel_fixed_space(myci, h1, eri, 8, (4, 4), strs, foo=1)


def test_solve_fermion_form():
    h1, eri = _random_integrals(8, 6)
    rng = np.random.default_rng(6)
    a, b = _subset(8, 4, 30, rng), _subset(8, 4, 25, rng)
    energy, state, occ, ss = sqd.solve_fermion((a, b), h1, eri)
    u = np.union1d(a, b)  # closed shell: both spins take the union
    myci = selected_ci.SCI()
    e = selected_ci.kernel_fixed_space(myci, h1, eri, 8, (4, 4), (u, u), tol=1e-12)[0]
    assert abs(energy - e) < 1e-7  # what qiskit-addon-sqd's solve_fermion computes
    assert state.amplitudes.shape == (len(u), len(u)) and np.all(state.ci_strs_a == u)
    assert abs(occ[0].sum() - 4) < 1e-8 and abs(occ[1].sum() - 4) < 1e-8
    assert np.isfinite(ss)
    with pytest.raises(NotImplementedError):
        sqd.solve_fermion((a, b), h1, eri, spin_sq=0.0)


def test_not_converged_is_an_error():
    """Too few iterations: an error naming the residual, never a result."""
    h1, eri = _random_integrals(8, 15)
    rng = np.random.default_rng(15)
    strs = (_subset(8, 4, 40, rng), _subset(8, 4, 40, rng))
    with pytest.raises(CisparseError, match="converge"):
        sqd.solve(strs, h1, eri, 8, (4, 4), nroots=2, max_cycle=2)


def test_bad_input():
    h1, eri = _random_integrals(6, 8)
    good = cistring.make_strings(range(6), 3)
    with pytest.raises(CisparseError, match="electron"):
        sqd.solve((good, np.array([0b1111], dtype=np.uint64)), h1, eri, 6, (3, 3))  # four electrons
    with pytest.raises(CisparseError):
        sqd.solve((good, np.array([1 << 7 | 0b11], dtype=np.uint64)), h1, eri, 6, (3, 3))  # orbital 7 of 6
    with pytest.raises(ValueError):
        sqd.solve((good, np.array([-3])), h1, eri, 6, (3, 3))
    with pytest.raises(ValueError):
        sqd.solve((good, np.array([], dtype=np.uint64)), h1, eri, 6, (3, 3))
    with pytest.raises(ValueError):
        sqd.solve((good, np.array([7.5])), h1, eri, 6, (3, 3))  # floats must be whole numbers
    r = sqd.solve((good, good.astype(np.float64)), h1, eri, 6, (3, 3))  # as qiskit-addon-sqd's loop may pass them
    assert np.all(r.strings[1] == good)
    with pytest.raises(CisparseError):
        sqd.solve((good[:2], good[:1]), h1, eri, 6, (3, 3), nroots=3)  # 2 determinants, 3 roots
