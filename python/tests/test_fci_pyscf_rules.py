"""cisparse.fci.FCISolver follows PySCF's solvers where PySCF's own tests
look: singlet-only roots (direct_spin0), the wavefunction symmetry taken from
the guess or the aufbau determinant when wfnsym is None (direct_spin1_symm),
PySCF's input checks, more roots than the space holds, the device from
$CISPARSE_FCI_DEVICE, and the driver's refusals of the singlet mode. Each
against PySCF's own solver on the same integrals. Skipped without PySCF."""
import numpy as np
import pytest

pyscf = pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import ao2mo, fci, gto, lib, mcscf, scf  # noqa: E402
from pyscf.fci import direct_spin0, direct_spin0_symm, direct_spin1_symm  # noqa: E402

import cisparse  # noqa: E402
import cisparse.fci as cf  # noqa: E402


def random_integrals(norb, seed):
    """PySCF's test_spin0 integrals: random h1e and a 4-fold ERI (no point group)."""
    rng = np.random.RandomState(seed)
    h1 = rng.random_sample((norb, norb))
    h1 = h1 + h1.T
    g2 = rng.random_sample((norb,) * 4)
    return h1, 0.5 * ao2mo.restore(1, ao2mo.restore(8, g2, norb), norb)


def symmetric_integrals(norb, orbsym, seed):
    """Random integrals that respect the D2h irreps orbsym (entries of
    another irrep product zeroed), so that H is blocked by irreps."""
    h1, eri = random_integrals(norb, seed)
    s = np.asarray(orbsym)
    h1 = h1 * ((s[:, None] ^ s[None, :]) == 0)
    mask = (s[:, None, None, None] ^ s[None, :, None, None] ^ s[None, None, :, None] ^ s[None, None, None, :]) == 0
    return h1, eri * mask


@pytest.fixture(scope="module")
def h2o_sym():
    mol = gto.M(atom="O 0 0 0; H 0 -0.757 0.587; H 0 0.757 0.587", basis="631g", symmetry=1, verbose=0)
    return mol, scf.RHF(mol).set(conv_tol=1e-12).run()


def cpu(mol=None, **kw):
    s = cf.FCISolver(mol, device="cpu", **{k: kw.pop(k) for k in ("singlet",) if k in kw})
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def test_singlet_roots_are_pyscf_direct_spin0s():
    # direct_spin0: the roots with c = c^T (S = 0, 2, ...), not those of odd S
    norb, nelec = 6, (3, 3)
    h1, eri = random_integrals(norb, 9)
    e_ref, c_ref = direct_spin0.FCI().kernel(h1, eri, norb, nelec, nroots=4)
    e_all = np.linalg.eigh(fci.direct_spin1.pspace(h1, eri, norb, nelec, np=5000)[1])[0]
    s = cpu(singlet=True, conv_tol=1e-12)
    e, c = s.kernel(h1, eri, norb, nelec, nroots=4)
    np.testing.assert_allclose(e, e_ref, atol=1e-8)
    assert abs(e_all[:4] - e).max() > 1e-3  # the plain lowest four hold a triplet
    for k in range(4):
        assert abs(c[k] - c[k].T).max() < 1e-12 and abs(np.linalg.norm(c[k]) - 1) < 1e-12
        assert abs(abs(np.vdot(c[k], c_ref[k])) - 1) < 1e-6
    e1, c1 = s.kernel(h1, eri, norb, (norb, norb))  # one determinant, PySCF's test_small_system
    assert abs(e1 - direct_spin0.FCI().kernel(h1, eri, norb, (norb, norb))[0]) < 1e-10


def test_singlet_with_point_group_is_direct_spin0_symms(h2o_sym):
    mol, mf = h2o_sym
    for wfnsym in ("A1", "B1"):
        ref = mcscf.CASCI(mf, 6, 6)
        ref.fcisolver = direct_spin0_symm.FCI(mol)
        ref.fcisolver.set(nroots=3, wfnsym=wfnsym, conv_tol=1e-12)
        ref.kernel()
        mc = mcscf.CASCI(mf, 6, 6)
        mc.fcisolver = cpu(mol, singlet=True, nroots=3, wfnsym=wfnsym, conv_tol=1e-12)
        mc.kernel()
        np.testing.assert_allclose(mc.e_tot, ref.e_tot, atol=1e-8)
        assert all(abs(x - x.T).max() < 1e-12 for x in mc.ci)


def test_singlet_gen_linkstr_and_refusals():
    s = cpu(singlet=True)
    mine, ref = s.gen_linkstr(7, 6, tril=True), direct_spin0.FCI().gen_linkstr(7, 6, tril=True)
    mine[:, :, 1] = ref[:, :, 1] = 0  # a column PySCF leaves unset in the triangular tables
    np.testing.assert_array_equal(mine, ref)
    assert s.gen_linkstr(7, (3, 3), tril=False).shape == direct_spin0.FCI().gen_linkstr(7, (3, 3), tril=False).shape
    # PySCF's own methods below cisparse's sizes take the singlet solver's link tables
    # (newton_casscf passes gen_linkstr's to make_rdm12)
    h1, eri = random_integrals(4, 1)
    e, c = s.kernel(h1, eri, 4, (2, 2))
    link = s.gen_linkstr(4, (2, 2), tril=False)  # RDMs take the full tables, contractions the triangular
    for got, ref in zip(s.make_rdm12(c, 4, (2, 2), link_index=link), direct_spin0.make_rdm12(c, 4, (2, 2))):
        np.testing.assert_allclose(got, ref, atol=1e-12)
    np.testing.assert_allclose(s.make_rdm1(c, 4, (2, 2), link_index=link), direct_spin0.make_rdm1(c, 4, (2, 2)),
                               atol=1e-12)
    np.testing.assert_allclose(s.contract_1e(h1, c, 4, (2, 2), link_index=s.gen_linkstr(4, (2, 2))),
                               direct_spin0.contract_1e(h1, c, 4, (2, 2)), atol=1e-12)
    with pytest.raises(ValueError, match="as many alpha as beta"):
        s.kernel(h1, eri, 4, (3, 1))
    # the driver refuses the singlet mode where it has no meaning, in its own words (no CLI flag)
    F = cf._make_fcidump(4, (3, 1))
    h, e8 = np.ascontiguousarray(h1), np.ascontiguousarray(ao2mo.restore(8, eri, 4))
    F.h1, F.eri = h.ctypes.data_as(cf._dp), e8.ctypes.data_as(cf._dp)
    o = cf.L.lib.cis_ci_solve_opts_default()
    o.singlet = 1
    with pytest.raises(cisparse.CisparseError, match="singlet-only states need MS2 = 0") as err:
        cf._Solver().solve(F, o)
    assert "--" not in str(err.value)
    F.ms2, F.nelec = 0, 4
    o.method = 1  # stored
    with pytest.raises(cisparse.CisparseError, match="need the direct method"):
        cf._Solver().solve(F, o)


def test_singlet_preconditioner_is_direct_spin0s():
    # direct_spin0's contract_2e (half the products, then c + c^T) is right only
    # for c = c^T to the last bit; PySCF's CI steps (newton CASSCF) keep that
    # through the solver's make_hdiag and get_init_guess, which must then be
    # direct_spin0's: symmetric under alpha <-> beta exactly (direct_spin1's
    # diagonal differs from its transpose in the last bits)
    for norb, n in ((4, 2), (6, 3), (8, 4)):
        h1, eri = random_integrals(norb, 3)
        na = fci.cistring.num_strings(norb, n)
        hd = cpu(singlet=True).make_hdiag(h1, eri, norb, (n, n))
        np.testing.assert_array_equal(hd.reshape(na, na), hd.reshape(na, na).T)
        np.testing.assert_array_equal(hd, direct_spin0.make_hdiag(h1, eri, norb, (n, n)))
        np.testing.assert_array_equal(cpu().make_hdiag(h1, eri, norb, (n, n)),
                                      fci.direct_spin1.make_hdiag(h1, eri, norb, (n, n)))
        for g in cpu(singlet=True).get_init_guess(norb, (n, n), 3, hd):
            np.testing.assert_array_equal(g.reshape(na, na), g.reshape(na, na).T)


def test_singlet_and_triplet_newton_sa_mix_as_pyscf(h2o_sym):
    # PySCF's test_h2o::test_spin_and_pointgroup_sa4_newton: newton CASSCF over
    # two singlet-only and two triplet solvers; with direct_spin1's diagonal
    # beside direct_spin0's contract_2e its CI steps lost c = c^T and it took
    # 13 to 50 macro-iterations and stopped up to 5e-8 Eh off (PySCF: 4)
    mol, mf = h2o_sym
    runs = []
    for make in (lambda singlet: fci.solver(mol, singlet=singlet), lambda singlet: cpu(mol, singlet=singlet)):
        solvers = [make(not bool(i % 2)) for i in range(4)]
        solvers[0].wfnsym = solvers[1].wfnsym = "B1"
        solvers[2].wfnsym = solvers[3].wfnsym = "A1"
        solvers[1].spin = solvers[3].spin = 2
        mc = mcscf.addons.state_average_mix(mcscf.CASSCF(mf, 4, 4), solvers, [0.25] * 4).newton()
        mc.conv_tol = 1e-10  # the SA energy stationary to 1e-10 (default 1e-7: any point within it)
        macro = []
        mc.callback = lambda envs: macro.append(envs["imacro"])
        mc.kernel(mc.sort_mo([4, 5, 6, 10], base=1))
        assert mc.converged
        runs.append((mc.e_tot, np.sort(mc.e_states), len(macro)))
    (e_ref, states_ref, n_ref), (e, states, n) = runs
    assert abs(e - e_ref) < 1e-9  # the stationary SA energy: conv_tol 1e-10 on its change
    np.testing.assert_allclose(states, states_ref, atol=1e-6)  # each state: first order in the orbitals
    assert n <= n_ref + 1, f"{n} macro-iterations against PySCF's {n_ref}"


def test_wfnsym_none_is_the_aufbau_determinants():
    # PySCF's test_many_roots: wfnsym None with orbsym is the aufbau
    # determinant's irrep (direct_spin1_symm), not every irrep
    norb, nelec, orbsym = 4, (2, 2), np.array([0, 5, 3, 2])
    h1 = np.eye(norb) * -0.5
    h2 = np.zeros((norb,) * 4)
    for i in range(norb):
        h2[i, i, i, i] = 0.1
    e_ref, _ = direct_spin1_symm.FCI().kernel(h1, h2, norb, nelec, nroots=36, davidson_only=True, orbsym=orbsym)
    e, c = cpu().kernel(h1, h2, norb, nelec, nroots=36, orbsym=orbsym)
    assert len(e) == len(c) == len(e_ref) < 36
    np.testing.assert_allclose(e, e_ref, atol=1e-8)
    assert abs(e[0] + 1.8) < 1e-9


def test_wfnsym_from_the_guess_and_contradicting_guess():
    orbsym = np.array([0, 3, 0, 2, 1, 0])
    norb, nelec = 6, (3, 3)
    h1, eri = symmetric_integrals(norb, orbsym, 5)
    e3, c3 = direct_spin1_symm.FCI().kernel(h1, eri, norb, nelec, orbsym=orbsym, wfnsym=3)
    s = cpu(conv_tol=1e-12)
    e, c = s.kernel(h1, eri, norb, nelec, ci0=c3, orbsym=orbsym)  # wfnsym None: the guess's irrep
    assert abs(e - e3) < 1e-8
    assert fci.addons.guess_wfnsym(c, norb, nelec, orbsym) == 3
    with pytest.raises(lib.exceptions.WfnSymmetryError):  # PySCF's guess_wfnsym check
        s.kernel(h1, eri, norb, nelec, ci0=c3, orbsym=orbsym, wfnsym=0)


def test_more_roots_than_the_irrep_holds(h2o_sym):
    # PySCF's test_fci_spin_square_nroots: CASCI(4, (2, 0)) of H2O in the
    # aufbau irrep has one determinant; two roots asked give one, as a list
    mol, mf = h2o_sym
    ref = mcscf.CASCI(mf, 4, (2, 0))
    ref.fcisolver.nroots = 2
    ref.kernel()
    mc = mcscf.CASCI(mf, 4, (2, 0))
    mc.fcisolver = cpu(mol, nroots=2)
    mc.kernel()
    assert len(mc.e_tot) == len(mc.ci) == len(ref.e_tot) == 1
    np.testing.assert_allclose(mc.e_tot, ref.e_tot, atol=1e-9)
    mc.fcisolver.wfnsym = "A1"  # a target irrep without a determinant next to the aufbau one: accepted
    mc.kernel()
    ref.fcisolver.wfnsym = "A1"
    ref.kernel()
    np.testing.assert_allclose(mc.e_tot, ref.e_tot, atol=1e-9)


def test_device_from_the_environment(monkeypatch):
    monkeypatch.setenv(cf.DEVICE_ENV, "cpu")
    assert cf.FCISolver().device == "cpu"
    monkeypatch.setenv(cf.DEVICE_ENV, "tpu")
    with pytest.raises(ValueError, match=cf.DEVICE_ENV):
        cf.FCISolver()
    assert cf.FCISolver(device="auto").device == "auto"  # an explicit device wins
    monkeypatch.delenv(cf.DEVICE_ENV)
    assert cf.FCISolver().device == "auto"


def test_fix_spin_on_singlet_and_symmetric_solvers():
    # fix_spin_ on a singlet-only solver with point group: the penalised
    # singlet in A1g and A1u of O2 (PySCF's test_fix_spin_high_cost)
    mol = gto.M(atom="O 0 0 0; O 0 0 1.2", spin=2, basis="sto3g", symmetry=1, verbose=0)
    mf = scf.RHF(mol).run()
    for singlet in (False, True):
        for wfnsym in ("A1g", "A1u"):
            s = fci.addons.fix_spin_(cpu(mol, singlet=singlet, wfnsym=wfnsym, orbsym=fci.FCI(mol, mf.mo_coeff).orbsym),
                                     0.2, 0)
            h1 = mf.mo_coeff.T @ mf.get_hcore() @ mf.mo_coeff
            e, c = s.kernel(h1, ao2mo.kernel(mol, mf.mo_coeff), 10, (8, 8))
            assert abs(s.spin_square(c, 10, 16)[0]) < 1e-7
            assert s.stats["products"] < 40


def test_wfnsym_without_determinants_is_pyscfs_error():
    # two electrons of one spin in two A orbitals: no determinant of irrep 1
    h1, eri = random_integrals(2, 3)
    with pytest.raises(lib.exceptions.WfnSymmetryError):
        direct_spin1_symm.FCI().kernel(h1, eri, 2, (2, 0), orbsym=np.array([0, 0]), wfnsym=1)
    with pytest.raises(lib.exceptions.WfnSymmetryError, match="no determinant of wfnsym 1"):
        cpu().kernel(h1, eri, 2, (2, 0), orbsym=np.array([0, 0]), wfnsym=1)


def test_dependent_ci0_vectors_are_dropped(h2o_sym):
    # ci0 with linearly dependent vectors: PySCF's Davidson drops them (its
    # QR) and goes on; so does cisparse (P-space guesses fill the roots left):
    # the two lowest states, as without ci0
    mol, mf = h2o_sym
    c = mf.mo_coeff[:, 2:8]
    h1, eri = c.T @ mf.get_hcore() @ c, ao2mo.kernel(mol, c)
    e_ref, v = fci.direct_spin1.FCI().kernel(h1, eri, 6, (3, 3), nroots=2)
    for ci0 in ([v[0], 2 * v[0]], [v[0], v[1], v[0] - 3 * v[1]], np.array([v[1], v[1]])):
        e, c2 = cpu().kernel(h1, eri, 6, (3, 3), nroots=2, ci0=ci0)
        np.testing.assert_allclose(e, e_ref, atol=1e-9)
