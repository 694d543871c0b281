"""fix_spin_ (PySCF's SpinPenaltyFCISolver) on cisparse.fci.FCISolver: the
lowest state of H + shift (S^2 - ss)^2 (or shift (S^2 - ss) at the lowest
spin) whatever spin the start has (issue 40 item 3), against a dense
diagonalisation of that operator built with PySCF's own contract_2e and
contract_ss, and against PySCF's fix_spin_(direct_spin1.FCI()), which is
never lower; a CisparseError where the lowest penalised states are of
another spin; a ValueError for an ss no state of the space has."""
import numpy as np
import pytest

pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import ao2mo, fci, gto, mcscf, scf  # noqa: E402
from pyscf.fci import cistring, direct_spin1, spin_op  # noqa: E402

import cisparse  # noqa: E402
import cisparse.fci as cf  # noqa: E402


def mo_integrals(mol):
    mf = scf.RHF(mol).set(conv_tol=1e-12).run()
    c = mf.mo_coeff
    return mf, c.T @ mf.get_hcore() @ c, ao2mo.kernel(mol, c), c.shape[1]


@pytest.fixture(scope="module")
def h6():
    """A stretched H6 chain in STO-3G: 400 determinants, singlet to septet
    within 0.3 Eh, so the penalty picks each spin."""
    mol = gto.M(atom="; ".join(f"H 0 0 {1.6 * i}" for i in range(6)), basis="sto3g", verbose=0)
    return mo_integrals(mol)[1:]


def dense_penalised(h1, eri, norb, nelec, shift, ss):
    """The eigenvalues and <S^2> of H + shift P as a dense matrix, P by
    PySCF's rule: S^2 - ss below Sz(Sz+1) + 0.1, else (S^2 - ss)^2. H is
    PySCF's pspace Hamiltonian over every determinant (the full H), S^2
    contract_ss on unit vectors."""
    na, nb = (cistring.num_strings(norb, k) for k in nelec)
    n = na * nb
    addr, h0 = direct_spin1.pspace(h1, eri, norb, nelec, np=n)
    H = np.zeros((n, n))
    H[np.ix_(addr, addr)] = h0
    S2 = np.array([spin_op.contract_ss(np.eye(1, n, i).reshape(na, nb), norb, nelec).ravel() for i in range(n)]).T
    sz = abs(nelec[0] - nelec[1]) * 0.5
    P = S2 - ss * np.eye(n)
    if ss >= sz * (sz + 1) + 0.1:
        P = P @ P
    w, v = np.linalg.eigh(H + shift * P)
    return w, np.einsum("ik,ij,jk->k", v, S2, v)


@pytest.mark.parametrize("ss", [0, 2, 6, 12])
def test_lowest_penalised_state_of_every_spin(h6, ss):
    # The case: from a closed-shell start, ss = 2 and 12 (S = 1, 3:
    # antisymmetric under alpha <-> beta) and 6 (S = 2) returned the singlet
    # plus the penalty; the lowest state of the penalised operator now
    h1, eri, norb = h6
    nelec, shift = (3, 3), 0.5
    w, s2 = dense_penalised(h1, eri, norb, nelec, shift, ss)
    assert abs(s2[0] - ss) < 1e-8  # the dense answer is of the spin asked

    s = fci.addons.fix_spin_(cf.FCISolver(device="cpu"), shift=shift, ss=ss)
    e, c = s.kernel(h1, eri, norb, nelec)
    ref = fci.addons.fix_spin_(direct_spin1.FCI(), shift=shift, ss=ss)
    e_ref, c_ref = ref.kernel(h1, eri, norb, nelec)

    assert abs(e - w[0]) < 1e-8
    assert abs(spin_op.spin_square0(c, norb, nelec)[0] - ss) < 1e-8
    assert e <= e_ref + 1e-8  # PySCF's, where its Davidson reaches the spin, is the same state
    if abs(spin_op.spin_square0(c_ref, norb, nelec)[0] - ss) < 1e-6:
        assert abs(e - e_ref) < 1e-7


def test_several_roots_and_a_start_of_another_spin(h6):
    # three quintets from a singlet ci0: the start projected onto S = 2
    h1, eri, norb = h6
    nelec, shift = (3, 3), 0.5
    w, s2 = dense_penalised(h1, eri, norb, nelec, shift, 6)
    singlet = cf.FCISolver(device="cpu").kernel(h1, eri, norb, nelec)[1]
    s = fci.addons.fix_spin_(cf.FCISolver(device="cpu"), shift=shift, ss=6)
    e, c = s.kernel(h1, eri, norb, nelec, nroots=3, ci0=singlet)
    np.testing.assert_allclose(e, w[:3], atol=1e-8)
    for v in c:
        assert abs(spin_op.spin_square0(v, norb, nelec)[0] - 6) < 1e-8


def test_casci_fix_spin_triplet_below_the_penalised_singlet():
    # PySCF's test_casci::test_fix_spin_ (N2 6-31G, CAS(4,4), ss = 2): PySCF's
    # Davidson stays among the states symmetric under alpha <-> beta from its
    # closed-shell start and returns the singlet plus 0.2 * 4 (-108.0374);
    # the lowest state of the penalised operator is the triplet, lower
    mol = gto.M(atom="N 0 0 -0.7; N 0 0 0.7", basis="631g", verbose=0)
    mf = scf.RHF(mol).set(conv_tol=1e-10).run()
    mc = mcscf.CASCI(mf, 4, 4)
    mc.fcisolver = cf.FCISolver(mol, device="cpu")
    mc.fix_spin_(ss=2).run()
    h1, ecore = mc.get_h1eff()
    w, s2 = dense_penalised(h1, mc.get_h2eff(), 4, (2, 2), mc.fcisolver.ss_penalty, 2)
    assert abs(mc.e_tot - (w[0] + ecore)) < 1e-8 and mc.e_tot < -108.03741684418183 - 0.5
    assert abs(mc.fcisolver.spin_square(mc.ci, 4, 4)[0] - 2) < 1e-8
    mc.fix_spin_(ss=0).run()
    assert abs(mc.e_tot - -108.83741684447352) < 1e-7  # PySCF's test's singlet
    assert abs(mc.fcisolver.spin_square(mc.ci, 4, 4)[0]) < 1e-8


def test_spin_not_reached_is_an_error(h6):
    # a shift too small to lift the singlet above the triplet: the lowest
    # penalised state is a singlet, no answer for ss = 2
    h1, eri, norb = h6
    w, s2 = dense_penalised(h1, eri, norb, (3, 3), 0.005, 2)
    assert abs(s2[0]) < 1e-8  # the singlet is lowest under this penalty
    s = fci.addons.fix_spin_(cf.FCISolver(device="cpu"), shift=0.005, ss=2)
    with pytest.raises(cisparse.CisparseError, match=r"did not reach <S\^2> = 2 .*root 0 has <S\^2> = 0"):
        s.kernel(h1, eri, norb, (3, 3))


@pytest.mark.parametrize("ss, nelec, match", [(20, (3, 3), r"ss = 20 is no <S\^2>.*0, 2, 6, 12"),
                                                (1.5, (3, 3), r"ss = 1.5 is no <S\^2>"),
                                                (2, (4, 2), r"ss = 2 is no <S\^2>.*3.75, 8.75")])
def test_ss_of_no_state_is_refused(h6, ss, nelec, match):
    h1, eri, norb = h6
    s = fci.addons.fix_spin_(cf.FCISolver(device="cpu"), shift=0.5, ss=ss)
    with pytest.raises(ValueError, match=match):
        s.kernel(h1, eri, norb, nelec)
