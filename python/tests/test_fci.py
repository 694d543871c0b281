"""cisparse.fci.FCISolver inside PySCF's CASCI and CASSCF: energies, RDMs,
spin, state averaging, spin penalty and symmetry against PySCF's own FCI
solver. Skipped where PySCF is not installed."""
import numpy as np
import pytest

pyscf = pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import fci, gto, mcscf, scf  # noqa: E402

import cisparse.fci  # noqa: E402


@pytest.fixture(scope="module")
def n2():
    mol = gto.M(atom="N 0 0 0; N 0 0 1.1", basis="6-31g", verbose=0)
    return mol, scf.RHF(mol).run()


@pytest.fixture(scope="module")
def h2o():
    mol = gto.M(atom="O 0 0 0; H 0 -0.757 0.587; H 0 0.757 0.587", basis="sto-3g", verbose=0)
    return mol, scf.RHF(mol).run()


def solver(mol, **kw):
    s = cisparse.fci.FCISolver(mol, device="cpu")
    for k, v in kw.items():
        setattr(s, k, v)
    return s


@pytest.mark.parametrize("cas", [(6, 6), (6, (4, 2)), (8, 8)])  # 400, 300: exact; 4900: Davidson
def test_casci_energy_and_rdms(n2, cas):
    mol, mf = n2
    ref = mcscf.CASCI(mf, *cas)
    ref.fcisolver.conv_tol = 1e-14  # both vectors converged well below the RDM tolerance
    ref.kernel()
    mc = mcscf.CASCI(mf, *cas)
    mc.fcisolver = solver(mol, conv_tol=1e-14)
    mc.kernel()
    assert abs(mc.e_tot - ref.e_tot) <= 1e-9
    assert mc.ci.shape == ref.ci.shape and abs(abs(np.vdot(mc.ci, ref.ci)) - 1) < 1e-9
    norb, nelec = cas
    dm1, dm2 = mc.fcisolver.make_rdm12(mc.ci, norb, nelec)
    rdm1, rdm2 = ref.fcisolver.make_rdm12(ref.ci, norb, nelec)
    assert abs(dm1 - rdm1).max() < 1e-6 and abs(dm2 - rdm2).max() < 1e-6
    a, b = mc.fcisolver.make_rdm1s(mc.ci, norb, nelec)
    ra, rb = ref.fcisolver.make_rdm1s(ref.ci, norb, nelec)
    assert abs(a - ra).max() < 1e-6 and abs(b - rb).max() < 1e-6
    ss, m = mc.fcisolver.spin_square(mc.ci, norb, nelec)
    rss, rm = ref.fcisolver.spin_square(ref.ci, norb, nelec)
    assert abs(ss - rss) < 1e-8 and abs(m - rm) < 1e-8
    st = mc.fcisolver.stats
    assert st["device"] == "cpu" and st["determinants"] == ref.ci.size and mc.fcisolver.converged


@pytest.mark.parametrize("method", ["direct", "stored"])
def test_casci_direct_and_stored(n2, method):
    mol, mf = n2
    ref = mcscf.CASCI(mf, 8, (5, 3))
    ref.fcisolver.conv_tol = 1e-12
    ref.kernel()
    mc = mcscf.CASCI(mf, 8, (5, 3))
    mc.fcisolver = solver(mol, method=method, conv_tol=1e-12)
    mc.kernel()
    assert mc.fcisolver.stats["method"] == method
    assert abs(mc.e_tot - ref.e_tot) <= 1e-9 and abs(abs(np.vdot(mc.ci, ref.ci)) - 1) < 1e-9


def test_casscf():
    mol = gto.M(atom="N 0 0 0; N 0 0 1.1", basis="sto-3g", verbose=0)
    mf = scf.RHF(mol).run()
    ref = mcscf.CASSCF(mf, 6, 6)
    ref.conv_tol = 1e-10
    ref.kernel()
    mc = mcscf.CASSCF(mf, 6, 6)
    mc.conv_tol = 1e-10
    mc.fcisolver = solver(mol)
    mc.kernel()
    assert mc.converged and ref.converged
    assert abs(mc.e_tot - ref.e_tot) <= 1e-8


def test_state_average_and_nroots(h2o):
    mol, mf = h2o
    ref = mcscf.CASSCF(mf, 4, 4).state_average_([0.5, 0.5])
    ref.conv_tol = 1e-10
    ref.kernel()
    mc = mcscf.CASSCF(mf, 4, 4)
    mc.fcisolver = solver(mol)
    mc = mc.state_average_([0.5, 0.5])
    mc.conv_tol = 1e-10
    mc.kernel()
    assert abs(mc.e_tot - ref.e_tot) <= 1e-8
    ci = mcscf.CASCI(mf, 4, 4)
    ci.fcisolver = solver(mol, nroots=3)
    ci.kernel()
    rci = mcscf.CASCI(mf, 4, 4)
    rci.fcisolver.nroots = 3
    rci.kernel()
    np.testing.assert_allclose(ci.e_tot, rci.e_tot, atol=1e-9)
    assert len(ci.ci) == 3 and ci.ci[0].shape == rci.ci[0].shape


def test_fix_spin(n2):
    # The reference: PySCF's own solver without penalty, 12 roots, the three
    # lowest singlets (PySCF's Davidson under fix_spin_ misses one of a
    # degenerate pair here; the penalty is applied exactly by cisparse.fci).
    mol, mf = n2
    ref = mcscf.CASCI(mf, 6, 6)
    ref.fcisolver.nroots = 12
    ref.fcisolver.conv_tol = 1e-12
    ref.kernel()
    singlets = [e for e, c in zip(ref.e_tot, ref.ci) if ref.fcisolver.spin_square(c, 6, 6)[0] < 1e-6][:3]
    mc = mcscf.CASCI(mf, 6, 6)
    mc.fcisolver = solver(mol, nroots=3)
    fci.addons.fix_spin_(mc.fcisolver, ss=0)
    mc.kernel()
    # The penalty as an operator on the matrix-free sigma
    # (cis_ci_spin_penalty_operator, the driver's spin_penalty): the singlets.
    np.testing.assert_allclose(mc.e_tot, singlets, atol=1e-8)
    assert mc.fcisolver.stats["method"] == "direct"
    for c in mc.ci:
        assert abs(mc.fcisolver.spin_square(c, 6, 6)[0]) < 1e-6
    mc.fcisolver.method = "stored"  # a stored H takes the penalty only densely
    with pytest.raises(NotImplementedError, match="fix_spin_"):
        mc.kernel()


def test_symmetry(h2o):
    mol = gto.M(atom="O 0 0 0; H 0 -0.757 0.587; H 0 0.757 0.587", basis="6-31g", symmetry=True, verbose=0)
    mf = scf.RHF(mol).run()
    ref = mcscf.CASCI(mf, 6, 6)
    ref.kernel()
    mc = mcscf.CASCI(mf, 6, 6)
    mc.fcisolver = solver(mol)
    mc.fcisolver.wfnsym = 0
    mc.kernel()
    assert abs(mc.e_tot - ref.e_tot) <= 1e-9
    # a space restricted to A1 is smaller than the full one
    assert mc.fcisolver.stats["determinants"] < mc.ci.size


def test_errors(h2o):
    # PySCF's rule: more roots than the space holds gives every state of it (a list)
    mol, mf = h2o
    mc = mcscf.CASCI(mf, 2, 2)
    mc.fcisolver = solver(mol, nroots=10 ** 6)
    mc.kernel()
    ref = mcscf.CASCI(mf, 2, 2)
    ref.fcisolver.nroots = 10 ** 6
    ref.kernel()
    assert len(mc.e_tot) == len(mc.ci) == 4
    np.testing.assert_allclose(mc.e_tot, ref.e_tot, atol=1e-9)
    mc = mcscf.CASCI(mf, 5, 6)  # 100 determinants; the driver reports at most 64 roots
    mc.fcisolver = solver(mol, nroots=65)
    with pytest.raises(cisparse.CisparseError, match="roots must be 1..64"):
        mc.kernel()


@pytest.mark.parametrize("method", ["direct", "stored"])
def test_warm_start_and_reused_space(n2, method):
    # CASSCF hands the previous CI vector back as ci0: Davidson starts there
    # (fewer products, same energy); the determinant list (stored) or the
    # direct space (direct) is kept between calls on the same space and
    # rebuilt when the space changes.
    mol, mf = n2
    h1, ecore = mcscf.CASCI(mf, 8, 8).get_h1eff()
    h2 = mcscf.CASCI(mf, 8, 8).get_h2eff()
    s = solver(mol, conv_tol=1e-12, method=method)
    e_cold, c = s.kernel(h1, h2, 8, 8, ecore=ecore)
    cold = s.stats["products"]
    assert not s.stats["space_reused"]
    e_warm, _ = s.kernel(h1, h2, 8, 8, ci0=c, ecore=ecore)
    assert abs(e_warm - e_cold) < 1e-10 and s.converged
    assert s.stats["products"] < cold, (s.stats["products"], cold)
    assert s.stats["space_reused"]  # the driver's kept space (cis_ci_solver), new integrals only
    s.kernel(h1[:6, :6], mcscf.CASCI(mf, 6, 6).get_h2eff(), 6, 6)
    assert not s.stats["space_reused"] and s.ci.size == 400
    bad = np.full_like(c, np.nan)  # a non-finite ci0 is not a guess
    e_bad, _ = s.kernel(h1, h2, 8, 8, ci0=bad, ecore=ecore)
    assert abs(e_bad - e_cold) < 1e-10


_gpus, _why = cisparse.fci.gpu_count()
needs_gpu = pytest.mark.skipif(_gpus == 0, reason=f"no GPU: {_why}")


@needs_gpu
@pytest.mark.parametrize("cas", [(8, 8), (8, (5, 3))])
def test_gpu_direct_casci_and_warm_start(n2, cas):
    # device='auto' with a GPU: the direct sigma on the device (MS2 = 0:
    # every product a half sigma); energies, vectors and RDMs as PySCF's;
    # ci0 on the GPU path too.
    mol, mf = n2
    ref = mcscf.CASCI(mf, *cas)
    ref.fcisolver.conv_tol = 1e-14
    ref.kernel()
    mc = mcscf.CASCI(mf, *cas)
    mc.fcisolver = cisparse.fci.FCISolver(mol)
    mc.fcisolver.conv_tol = 1e-14
    mc.kernel()
    st = mc.fcisolver.stats
    assert st["device"] == "gpu" and st["method"] == "direct", st
    assert abs(mc.e_tot - ref.e_tot) <= 1e-9 and abs(abs(np.vdot(mc.ci, ref.ci)) - 1) < 1e-9
    # the vector's residual under PySCF's own sigma (PySCF's reference vector
    # itself stops near 3e-7 on the open shell, so the RDMs are compared to
    # what that allows: residual / gap of 0.046 Eh)
    h1, ecore = mc.get_h1eff()
    h2e = fci.direct_spin1.absorb_h1e(h1, mc.get_h2eff(), cas[0], cas[1], 0.5)
    hc = fci.direct_spin1.contract_2e(h2e, mc.ci, cas[0], cas[1])
    assert np.linalg.norm(hc - (mc.e_tot - ecore) * mc.ci) < 1e-8
    dm1, dm2 = mc.fcisolver.make_rdm12(mc.ci, cas[0], cas[1])
    rdm1, rdm2 = ref.fcisolver.make_rdm12(ref.ci, cas[0], cas[1])
    assert abs(dm1 - rdm1).max() < 2e-5 and abs(dm2 - rdm2).max() < 2e-5
    e, c = mc.fcisolver.kernel(h1, mc.get_h2eff(), cas[0], cas[1], ci0=mc.ci, ecore=ecore)
    assert abs(e - mc.e_tot) < 1e-9 and mc.fcisolver.stats["products"] < st["products"]


@needs_gpu
def test_gpu_casscf_and_fix_spin(n2):
    mol, mf = n2
    ref = mcscf.CASSCF(mf, 8, 8).run(conv_tol=1e-10)
    mc = mcscf.CASSCF(mf, 8, 8)
    mc.fcisolver = cisparse.fci.FCISolver(mol)
    mc.run(conv_tol=1e-10)
    assert mc.converged and abs(mc.e_tot - ref.e_tot) <= 1e-8
    assert mc.fcisolver.stats["device"] == "gpu"
    # fix_spin_ beyond dense_max_penalty: the host penalty operator, PySCF's
    # answer (from its closed-shell start its penalty solver stays among the
    # S = 0, 2, ... states: here the singlet, <S^2> = 0, not ss = 2)
    ref = mcscf.CASCI(mf, 8, 8)
    fci.addons.fix_spin_(ref.fcisolver, ss=2)
    ref.kernel()
    mc = mcscf.CASCI(mf, 8, 8)
    mc.fcisolver = cisparse.fci.FCISolver(mol)
    fci.addons.fix_spin_(mc.fcisolver, ss=2)
    mc.fcisolver.dense_max_penalty = 100
    mc.kernel()
    assert mc.fcisolver.stats["device"] == "cpu" and abs(mc.e_tot - ref.e_tot) <= 1e-8
    assert abs(mc.fcisolver.spin_square(mc.ci, 8, 8)[0] - ref.fcisolver.spin_square(ref.ci, 8, 8)[0]) < 1e-6


# ---- RDMs by cisparse (cis_ci_direct_rdm12 / cis_ci_direct_gpu_rdm12) -----


def _rdm_cases(s, ref, norb, nelec, rng):
    """Every RDM entry point of s against PySCF's direct_spin1 on normalized
    random vectors (state and transition): equal to 1e-12."""
    na, nb = (fci.cistring.num_strings(norb, x) for x in nelec)
    bra, ket = (v / np.linalg.norm(v) for v in (rng.standard_normal((na, nb)) for _ in range(2)))
    calls = s.__dict__.get("rdm_stats", {}).get("calls", 0)

    def same(x, y):
        x = x if isinstance(x, tuple) else (x,)
        y = y if isinstance(y, tuple) else (y,)
        assert len(x) == len(y)
        for a, b in zip(x, y):
            if isinstance(b, tuple):
                same(a, b)
            else:
                assert np.asarray(a).shape == np.asarray(b).shape
                assert abs(np.asarray(a) - np.asarray(b)).max() <= 1e-12

    for name in ("make_rdm1", "make_rdm1s", "make_rdm12", "make_rdm12s"):
        same(getattr(s, name)(ket, norb, nelec), getattr(ref, name)(ket, norb, nelec))
    for name in ("trans_rdm1", "trans_rdm1s", "trans_rdm12", "trans_rdm12s"):
        same(getattr(s, name)(bra, ket, norb, nelec), getattr(ref, name)(bra, ket, norb, nelec))
    assert s.rdm_stats["calls"] == calls + 8  # all eight by cisparse (above rdm_min)
    # reorder=False is PySCF's own
    same(s.make_rdm12(ket, norb, nelec, reorder=False), ref.make_rdm12(ket, norb, nelec, reorder=False))
    assert s.rdm_stats["calls"] == calls + 8


@pytest.mark.parametrize("nelec", [(4, 4), (5, 3)])  # MS2 = 0: 4900, MS2 = 2: 3136 determinants
def test_rdms_cpu_vs_pyscf(nelec):
    s = cisparse.fci.FCISolver(device="cpu")
    _rdm_cases(s, fci.direct_spin1.FCISolver(), 8, nelec, np.random.default_rng(3))
    assert s.rdm_stats["device"] == "cpu"
    r = s._rdm
    _rdm_cases(s, fci.direct_spin1.FCISolver(), 8, nelec, np.random.default_rng(4))
    assert s._rdm is r  # the space (strings, links) is kept across calls
    # below rdm_min: PySCF's own (not counted)
    calls = s.rdm_stats["calls"]
    dm1 = s.make_rdm1(np.eye(20, 20)[0].reshape(20, 1) @ np.eye(1, 20), 6, (3, 3))
    assert s.rdm_stats["calls"] == calls and abs(np.trace(dm1) - 6) < 1e-12


def test_casscf_with_cisparse_rdms(n2):
    # CAS(8,8) (4900 determinants): CASSCF's RDMs are cisparse's
    mol, mf = n2
    ref = mcscf.CASSCF(mf, 8, 8)
    ref.conv_tol = 1e-10
    ref.kernel()
    mc = mcscf.CASSCF(mf, 8, 8)
    mc.conv_tol = 1e-10
    mc.fcisolver = solver(mol)
    mc.kernel()
    assert mc.converged and ref.converged and abs(mc.e_tot - ref.e_tot) <= 1e-8
    assert mc.fcisolver.rdm_stats["calls"] > 0


@needs_gpu
@pytest.mark.parametrize("nelec", [(4, 4), (5, 3)])
def test_rdms_gpu_vs_pyscf(nelec):
    s = cisparse.fci.FCISolver(device="gpu")
    _rdm_cases(s, fci.direct_spin1.FCISolver(), 8, nelec, np.random.default_rng(5))
    assert s.rdm_stats["device"] == "gpu"


def _contract_case(s, norb, nelec, rng):
    """s.contract_2e(absorb_h1e(h1, eri)) = PySCF's on random integrals."""
    na, nb = (fci.cistring.num_strings(norb, x) for x in nelec)
    h1 = rng.standard_normal((norb, norb))
    h1 = h1 + h1.T
    eri = rng.standard_normal((norb,) * 4)
    eri = eri + eri.transpose(1, 0, 2, 3)
    eri = eri + eri.transpose(0, 1, 3, 2)
    eri = eri + eri.transpose(2, 3, 0, 1)
    ref = fci.direct_spin1.FCISolver()
    h2e = ref.absorb_h1e(h1, eri, norb, nelec, 0.5)
    c = rng.standard_normal((na, nb))
    c /= np.linalg.norm(c)
    want = ref.contract_2e(h2e, c, norb, nelec)
    calls = s.__dict__.get("contract_stats", {}).get("calls", 0)
    got = s.contract_2e(s.absorb_h1e(h1, eri, norb, nelec, 0.5), c, norb, nelec)
    assert got.shape == want.shape and abs(got - want).max() <= 1e-11 * abs(want).max()
    assert s.contract_stats["calls"] == calls + 1


@pytest.mark.parametrize("nelec", [(4, 4), (5, 3)])
def test_contract_2e_host_vs_pyscf(nelec):
    s = cisparse.fci.FCISolver(device="cpu")
    _contract_case(s, 8, nelec, np.random.default_rng(8))


@pytest.mark.parametrize("nelec", [(4, 4), (5, 3)])
def test_contract_2e_blocked_by_irreps(nelec):
    # With orbsym (D2h ids; integrals zero where the irreps forbid them) and a
    # vector of one irrep, the host sigma runs blocked by irreps and equals
    # PySCF's C1 and direct_spin1_symm's; a vector of two irreps falls back to
    # the C1 sigma (blocked would drop one), still equal to PySCF's C1.
    norb, rng = 8, np.random.default_rng(11)
    orbsym = np.array([0, 5, 0, 6, 7, 2, 3, 5])
    h1 = rng.standard_normal((norb, norb))
    h1 = (h1 + h1.T) * (orbsym[:, None] == orbsym[None, :])
    eri = rng.standard_normal((norb,) * 4)
    eri = eri + eri.transpose(1, 0, 2, 3)
    eri = eri + eri.transpose(0, 1, 3, 2)
    eri = eri + eri.transpose(2, 3, 0, 1)
    o = orbsym
    eri *= (o[:, None, None, None] ^ o[None, :, None, None] ^ o[None, None, :, None] ^ o[None, None, None, :]) == 0
    ref = fci.direct_spin1.FCISolver()
    h2e = ref.absorb_h1e(h1, eri, norb, nelec, 0.5)
    irr = cisparse.fci._string_irreps
    sa, sb = (fci.cistring.make_strings(range(norb), x) for x in nelec)
    det = irr(sa, orbsym, norb)[:, None] ^ irr(sb, orbsym, norb)[None, :]
    s = cisparse.fci.FCISolver(device="cpu")
    s.orbsym = orbsym
    for wfnsym in (0, 5):
        c = rng.standard_normal(det.shape) * (det == wfnsym)
        c /= np.linalg.norm(c)
        want = ref.contract_2e(h2e, c, norb, nelec)
        symm = fci.direct_spin1_symm.contract_2e(h2e, c, norb, nelec, orbsym=orbsym, wfnsym=wfnsym)
        got = s.contract_2e(h2e, c, norb, nelec)
        assert abs(got - want).max() <= 1e-11 * abs(want).max()
        assert abs(got - symm).max() <= 1e-11 * abs(want).max()
        assert not np.isnan(got).any()
    assert s.contract_stats["blocked"] == 2
    c = rng.standard_normal(det.shape) * ((det == 0) | (det == 3))
    got = s.contract_2e(h2e, c, norb, nelec)
    want = ref.contract_2e(h2e, c, norb, nelec)
    assert abs(got - want).max() <= 1e-11 * abs(want).max()
    assert s.contract_stats["blocked"] == 2 and s.contract_stats["calls"] == 3
    # integrals that break orbsym's symmetry (orbitals not symmetry-adapted):
    # the C1 sigma, exact for them, not a refusal
    eri2 = rng.standard_normal((norb,) * 4)
    eri2 = eri2 + eri2.transpose(1, 0, 2, 3)
    eri2 = eri2 + eri2.transpose(0, 1, 3, 2)
    eri2 = eri2 + eri2.transpose(2, 3, 0, 1)
    h2e2 = ref.absorb_h1e(h1, eri2, norb, nelec, 0.5)
    c = rng.standard_normal(det.shape) * (det == 0)
    got = s.contract_2e(h2e2, c, norb, nelec)
    want = ref.contract_2e(h2e2, c, norb, nelec)
    assert abs(got - want).max() <= 1e-11 * abs(want).max()
    assert s.contract_stats["blocked"] == 2 and s.contract_stats["calls"] == 4


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_kernel_and_contract_share_a_space(n2, device):
    # CASSCF's order: kernel, contract_2e on absorb_h1e's integrals, kernel
    # again: one kept direct space, its integrals switched each time
    # (cis_ci_direct_set_integrals); the energies and products unchanged.
    if device == "gpu" and _gpus == 0:
        pytest.skip(f"no GPU: {_why}")
    mol, mf = n2
    h1, ecore = mcscf.CASCI(mf, 8, 8).get_h1eff()
    h2 = mcscf.CASCI(mf, 8, 8).get_h2eff()
    s = solver(mol, conv_tol=1e-12, method="direct", device=device)
    e0, c0 = s.kernel(h1, h2, 8, 8, ecore=ecore)
    _contract_case(s, 8, (4, 4), np.random.default_rng(5))
    e1, c1 = s.kernel(h1, h2, 8, 8, ecore=ecore)
    assert len(s._direct) == 1 and abs(e1 - e0) < 1e-11
    assert abs(abs(np.dot(c0.ravel(), c1.ravel())) - 1) < 1e-9
    ref = fci.direct_spin1.FCISolver()
    h2e = ref.absorb_h1e(h1, h2, 8, 8, 0.5)
    want = ref.contract_2e(h2e, c1, 8, 8)
    got = s.contract_2e(s.absorb_h1e(h1, h2, 8, 8, 0.5), c1, 8, 8)
    assert abs(got - want).max() <= 1e-11 * abs(want).max()


@needs_gpu
@pytest.mark.parametrize("nelec", [(4, 4), (5, 3)])
def test_contract_2e_gpu_vs_pyscf(nelec):
    s = cisparse.fci.FCISolver(device="gpu")
    _contract_case(s, 8, nelec, np.random.default_rng(9))
    (sp,) = s._direct.values()
    assert sp.G


def test_auto_goes_direct_for_the_chemists_shapes(n2):
    # The driver's auto (docs/ci.md, "Method auto"): direct for full CI in
    # every shape a chemist brings (several roots, a point group, state
    # averaging, fix_spin_); the energies those of method='stored'.
    mol, mf = n2
    cas = mcscf.CASCI(mf, 6, 6)
    h1, ecore = cas.get_h1eff()
    h2 = cas.get_h2eff()
    orbsym = np.array([0, 5, 0, 6, 7, 2])  # D2h ids: the rule reads the point group, not the integrals
    cases = {"3 roots": dict(nroots=3), "D2h": dict(orbsym=orbsym, wfnsym=0)}
    for name, kw in cases.items():
        got = {}
        for method in ("auto", "stored"):
            s = solver(mol, method=method, conv_tol=1e-12)
            e, _ = s.kernel(h1, h2, 6, 6, ecore=ecore, **kw)
            got[method] = (np.atleast_1d(e), s.stats["method"])
        assert got["auto"][1] == "direct", name
        assert got["stored"][1] == "stored", name
        assert np.abs(got["auto"][0] - got["stored"][0]).max() < 1e-9, name
    s = fci.addons.fix_spin_(solver(mol), ss=0, shift=0.5)
    s.kernel(h1, h2, 6, 6, ecore=ecore)
    assert s.stats["method"] == "direct"
    sa = mcscf.CASSCF(mf, 6, 6)
    sa.fcisolver = solver(mol)
    sa = sa.state_average_([1 / 3] * 3)
    sa.max_cycle_macro = 1
    sa.kernel()
    assert sa.fcisolver.stats["method"] == "direct"
