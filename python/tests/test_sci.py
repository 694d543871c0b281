"""Selected CI in alpha x beta string sets (cisparse/sci.h, through the
private binding cisparse.sci) against PySCF's fci.selected_ci:
 - sigma = selected_ci.contract_2e on absorb_h1e's integrals, random
   8-fold symmetric integrals and random string sets (closed and open
   shells, equal sets, one string), to 1e-11 relative;
 - the lowest energies of kernel_fixed_space (several roots, an open
   shell) on a molecule's integrals = ci_davidson on cis_sci_operator to
   1e-9 Eh, and = numpy's dense eigenvalues of the space's H on a tiny case;
 - the sets sorted and deduplicated as PySCF orders them; a bad string
   refused with the library's one-line message.
Skipped where PySCF is not installed."""
import numpy as np
import pytest

pyscf = pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import ao2mo, gto, scf  # noqa: E402
from pyscf.fci import cistring, direct_spin1, selected_ci  # noqa: E402

from cisparse._errors import CisparseError  # noqa: E402
from cisparse.sci import _SciSpace  # noqa: E402


def random_integrals(norb, seed):
    rng = np.random.default_rng(seed)
    h1 = rng.uniform(-1, 1, (norb, norb))
    h1 = h1 + h1.T - np.diag(np.arange(norb) * 0.5 + 2.0)
    npair = norb * (norb + 1) // 2
    B = rng.uniform(-0.5, 0.5, (norb, npair))
    eri = B.T @ B + 0.05 * (lambda m: m + m.T)(rng.uniform(-1, 1, (npair, npair)))
    return h1, ao2mo.restore(1, eri, norb)


def random_set(norb, nel, m, rng):
    strs = cistring.make_strings(range(norb), nel)
    return np.sort(rng.choice(strs, size=min(m, len(strs)), replace=False))


def rel(a, b):
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)


CASES = [  # norb, (nalpha, nbeta), alpha set size, beta set size, equal sets
    (8, (4, 4), 30, 25, False),
    (8, (4, 4), 28, 28, True),
    (8, (4, 2), 40, 20, False),
    (9, (5, 3), 60, 50, False),
    (7, (3, 3), 1, 12, False),
    (7, (2, 1), 15, 1, False),
]


@pytest.mark.parametrize("norb,nelec,ma,mb,same", CASES)
def test_sigma_equals_pyscf_contract_2e(norb, nelec, ma, mb, same):
    rng = np.random.default_rng(norb * 100 + ma)
    h1, eri = random_integrals(norb, norb + ma)
    sa = random_set(norb, nelec[0], ma, rng)
    sb = sa if same else random_set(norb, nelec[1], mb, rng)
    space = _SciSpace(h1, eri, norb, nelec, (sa, sb))
    ga, gb = space.strings()
    assert np.array_equal(ga, sa.astype(np.uint64)) and np.array_equal(gb, sb.astype(np.uint64))
    c = rng.uniform(-1, 1, (2, len(sa) * len(sb)))
    h2e = direct_spin1.absorb_h1e(h1, eri, norb, nelec, 0.5)
    for v in range(2):
        ref = selected_ci.contract_2e(h2e, selected_ci._as_SCIvector(c[v].reshape(len(sa), len(sb)), (sa, sb)),
                                      norb, nelec)
        got = space.sigma(c)[v]
        assert np.all(np.isfinite(got))
        assert rel(got, np.asarray(ref).ravel()) <= 1e-11


def test_sets_sorted_and_deduplicated():
    norb, nelec = 7, (3, 2)
    h1, eri = random_integrals(norb, 3)
    rng = np.random.default_rng(3)
    sa = random_set(norb, 3, 12, rng)
    sb = random_set(norb, 2, 9, rng)
    a_in = np.concatenate([sa[::-1], sa[:4]])
    b_in = np.concatenate([sb[3:], sb, sb[:1]])
    space = _SciSpace(h1, eri, norb, nelec, (a_in, b_in))
    info = space.info()
    assert (info["alpha_duplicates"], info["beta_duplicates"]) == (4, len(sb) - 3 + 1)
    ga, gb = space.strings()
    assert np.array_equal(ga, sa.astype(np.uint64)) and np.array_equal(gb, sb.astype(np.uint64))
    assert space.size == len(sa) * len(sb)


def test_bad_string_refused():
    norb, nelec = 6, (3, 3)
    h1, eri = random_integrals(norb, 4)
    good = np.array([0b111, 0b1011])
    with pytest.raises(CisparseError, match="has 4 electrons"):
        _SciSpace(h1, eri, norb, nelec, (np.array([0b111, 0b1111]), good))
    with pytest.raises(CisparseError, match="at or beyond NORB = 6"):
        _SciSpace(h1, eri, norb, nelec, (good, np.array([0b111, 0b1000011])))
    with pytest.raises(CisparseError, match="beta set is empty"):
        _SciSpace(h1, eri, norb, nelec, (good, np.array([], dtype=np.uint64)))


@pytest.fixture(scope="module")
def h2o():
    mol = gto.M(atom="O 0 0 0; H 0 0.757 0.587; H 0 -0.757 0.587", basis="6-31g", verbose=0)
    mf = scf.RHF(mol).run()
    norb = 10  # the lowest 10 molecular orbitals
    C = mf.mo_coeff[:, :norb]
    h1 = C.T @ mf.get_hcore() @ C
    eri = ao2mo.restore(1, ao2mo.kernel(mol, C), norb)
    return h1, eri, norb


@pytest.mark.parametrize("nelec,nroots", [((5, 5), 3), ((5, 4), 2), ((6, 4), 3)])
def test_energies_equal_kernel_fixed_space(h2o, nelec, nroots):
    h1, eri, norb = h2o
    rng = np.random.default_rng(sum(nelec))
    sa = random_set(norb, nelec[0], 120, rng)
    sb = random_set(norb, nelec[1], 100, rng)
    myci = selected_ci.SCI()
    myci.conv_tol = 1e-12
    e_ref, _ = selected_ci.kernel_fixed_space(myci, h1, eri, norb, nelec, (sa, sb), nroots=nroots)
    space = _SciSpace(h1, eri, norb, nelec, (sa, sb))
    e, x = space.davidson(nroots, tol=1e-8)
    assert np.all(np.isfinite(e))
    assert np.max(np.abs(np.sort(e) - np.sort(np.atleast_1d(e_ref)))) <= 1e-9
    r = space.sigma(x) - e[:, None] * x
    assert np.max(np.linalg.norm(r, axis=1)) <= 1e-7


def test_energies_dense_tiny(h2o):
    h1, eri, norb = h2o
    nelec = (5, 4)
    rng = np.random.default_rng(11)
    sa = random_set(norb, 5, 9, rng)
    sb = random_set(norb, 4, 8, rng)
    space = _SciSpace(h1, eri, norb, nelec, (sa, sb))
    H = space.sigma(np.eye(space.size)).T
    assert np.allclose(H, H.T, atol=1e-12)
    assert np.allclose(np.diag(H), space.diagonal(), atol=1e-12, rtol=0)
    w = np.linalg.eigvalsh(H)
    myci = selected_ci.SCI()
    myci.conv_tol = 1e-12
    e_ref, _ = selected_ci.kernel_fixed_space(myci, h1, eri, norb, nelec, (sa, sb), nroots=2)
    assert np.max(np.abs(w[:2] - np.asarray(e_ref))) <= 1e-9


def _close(got, ref, tol=1e-10):
    """Relative to the largest reference entry (at least 1: a 2-RDM of one
    electron of a spin is zero in PySCF, rounding here)."""
    ref = np.asarray(ref)
    return np.all(np.isfinite(got)) and np.max(np.abs(got - ref)) <= tol * max(np.max(np.abs(ref)), 1.0)


RDM_CASES = CASES + [(6, (1, 1), 4, 5, False), (7, (3, 0), 12, 1, False)]


@pytest.mark.parametrize("norb,nelec,ma,mb,same", RDM_CASES)
def test_rdms_equal_pyscf_selected_ci(norb, nelec, ma, mb, same):
    """cis_sci_rdm12 = selected_ci.make_rdm1s, make_rdm2s, SCI().make_rdm12s,
    make_rdm12 and trans_rdm1s on random sets and vectors; the transition
    2-RDMs (not in selected_ci) = direct_spin1.trans_rdm12s of the vectors
    put into the complete space (selected_ci.to_fci)."""
    rng = np.random.default_rng(norb * 7 + ma)
    h1, eri = random_integrals(norb, norb + mb)
    sa = random_set(norb, nelec[0], ma, rng)
    sb = sa if same else random_set(norb, nelec[1], mb, rng)
    space = _SciSpace(h1, eri, norb, nelec, (sa, sb))
    c, b = (v / np.linalg.norm(v) for v in rng.uniform(-1, 1, (2, len(sa), len(sb))))
    cv, bv = (selected_ci._as_SCIvector(v, (sa, sb)) for v in (c, b))
    got = space.rdm12(None, c, ("rdm1", "rdm2", "rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb"))
    d1a, d1b = selected_ci.make_rdm1s(cv, norb, nelec)
    d2aa, d2ab, d2bb = selected_ci.make_rdm2s(cv, norb, nelec)
    (e1a, e1b), (e2aa, e2ab, e2bb) = selected_ci.SCI().make_rdm12s(cv, norb, nelec)
    e1, e2 = selected_ci.SCI().make_rdm12(cv, norb, nelec)
    for name, ref in (("rdm1a", d1a), ("rdm1b", d1b), ("rdm2aa", d2aa), ("rdm2ab", d2ab), ("rdm2bb", d2bb),
                      ("rdm2ba", d2ab.transpose(2, 3, 0, 1)), ("rdm1a", e1a), ("rdm1b", e1b), ("rdm2aa", e2aa),
                      ("rdm2ab", e2ab), ("rdm2bb", e2bb), ("rdm1", e1), ("rdm2", e2),
                      ("rdm2", selected_ci.make_rdm2(cv, norb, nelec))):
        assert _close(got[name], ref), name
    t = space.rdm12(b, c)
    t1a, t1b = selected_ci.trans_rdm1s(bv, cv, norb, nelec)
    assert _close(t["rdm1a"], t1a) and _close(t["rdm1b"], t1b)
    fb, fc = (selected_ci.to_fci(v, norb, nelec) for v in (bv, cv))
    (f1a, f1b), (f2aa, f2ab, f2ba, f2bb) = direct_spin1.trans_rdm12s(fb, fc, norb, nelec)
    for name, ref in (("rdm1a", f1a), ("rdm1b", f1b), ("rdm2aa", f2aa), ("rdm2ab", f2ab), ("rdm2ba", f2ba),
                      ("rdm2bb", f2bb)):
        assert _close(t[name], ref), "trans " + name


def test_rdm_energy(h2o):
    """E of kernel_fixed_space's root = einsum(h1, rdm1) + 1/2 einsum(eri, rdm2)
    from cis_sci_rdm12 (no core energy)."""
    h1, eri, norb = h2o
    nelec = (5, 4)
    rng = np.random.default_rng(5)
    sa, sb = random_set(norb, 5, 60, rng), random_set(norb, 4, 50, rng)
    space = _SciSpace(h1, eri, norb, nelec, (sa, sb))
    e, x = space.davidson(1, tol=1e-9)
    r = space.rdm12(None, x[0], ("rdm1", "rdm2"))
    e_rdm = np.einsum("pq,qp", h1, r["rdm1"]) + 0.5 * np.einsum("pqrs,pqrs", eri, r["rdm2"])
    assert abs(e_rdm - e[0]) <= 1e-9


def _set_half(mode):
    from cisparse import _lib as L
    assert L.lib.cis_option_set(b"sci_half", mode.encode()) == 0


@pytest.mark.parametrize("mode", ["auto", "on", "off"])
def test_half_sigma_equals_pyscf(mode):
    """Equal sets (MS = 0): every sci_half mode = contract_2e for a
    symmetric, an antisymmetric and a mixed vector."""
    norb, nelec = 9, (4, 4)
    rng = np.random.default_rng(17)
    h1, eri = random_integrals(norb, 17)
    s = random_set(norb, 4, 40, rng)
    space = _SciSpace(h1, eri, norb, nelec, (s, s))
    assert space.equal_sets()
    h2e = direct_spin1.absorb_h1e(h1, eri, norb, nelec, 0.5)
    y = rng.uniform(-1, 1, (len(s), len(s)))
    try:
        _set_half(mode)
        for x in (y + y.T, y - y.T, y):
            ref = selected_ci.contract_2e(h2e, selected_ci._as_SCIvector(x, (s, s)), norb, nelec)
            got = space.sigma(x.ravel())
            assert np.all(np.isfinite(got)) and rel(got, np.asarray(ref).ravel()) <= 1e-11
    finally:
        _set_half("auto")


@pytest.mark.parametrize("nroots", [1, 3])
def test_equal_sets_energies_dense(h2o, nroots):
    """Equal sets: Davidson with the parity kept (pure guesses, two
    sectors, the correction hook) = the dense eigenvalues of the space's H
    (which here has two states 1.3e-7 Eh apart at the bottom, -84.06560403
    and -84.06560390: PySCF's kernel_fixed_space, conv_tol 1e-12, 3 roots,
    returned one root for the pair, -84.06560396), and = Davidson without
    it."""
    h1, eri, norb = h2o
    nelec = (5, 5)
    rng = np.random.default_rng(23)
    s = random_set(norb, 5, 60, rng)
    space = _SciSpace(h1, eri, norb, nelec, (s, s))
    w = np.linalg.eigvalsh(space.sigma(np.eye(space.size)).T)
    e, x = space.davidson(nroots, tol=1e-8)
    e0, _ = space.davidson(nroots, tol=1e-8, parity=False)
    assert np.max(np.abs(np.sort(e) - w[:nroots])) <= 1e-9
    assert np.max(np.abs(np.sort(e0) - w[:nroots])) <= 1e-9
    r = space.sigma(x) - e[:, None] * x
    assert np.max(np.linalg.norm(r, axis=1)) <= 1e-7
