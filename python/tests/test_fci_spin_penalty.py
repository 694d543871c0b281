"""fix_spin_ (PySCF's SpinPenaltyFCISolver) on cisparse.fci.FCISolver: the
lowest state of H + shift (S^2 - ss)^2 (or shift (S^2 - ss) at the lowest
spin) whatever spin the start has (issue 40 item 3), against a dense
diagonalisation of that operator built with PySCF's own pspace Hamiltonian
and contract_ss, and against PySCF's fix_spin_(direct_spin1.FCI()), which is
never lower; a CisparseError where the lowest penalised states are of
another spin; a ValueError for an ss no state of the space has."""
import numpy as np
import pytest

pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import ao2mo, fci, gto, mcscf, scf  # noqa: E402
from pyscf.fci import cistring, direct_spin1, spin_op  # noqa: E402

import cisparse  # noqa: E402
import cisparse.fci as cf  # noqa: E402


def dense_h_s2(h1, eri, norb, nelec):
    """H (PySCF's pspace Hamiltonian over every determinant: the full H) and
    S^2 (PySCF's contract_ss on unit vectors) as dense matrices."""
    na, nb = (cistring.num_strings(norb, k) for k in nelec)
    n = na * nb
    addr, h0 = direct_spin1.pspace(h1, eri, norb, nelec, np=n)
    H = np.zeros((n, n))
    H[np.ix_(addr, addr)] = h0
    S2 = np.array([spin_op.contract_ss(np.eye(1, n, i).reshape(na, nb), norb, nelec).ravel() for i in range(n)]).T
    return H, S2


def dense_penalised(HS, nelec, shift, ss):
    """The eigenvalues and <S^2> of H + shift P as a dense matrix, P by
    PySCF's rule: S^2 - ss below Sz(Sz+1) + 0.1, else (S^2 - ss)^2."""
    H, S2 = HS
    sz = abs(nelec[0] - nelec[1]) * 0.5
    P = S2 - ss * np.eye(len(H))
    if ss >= sz * (sz + 1) + 0.1:
        P = P @ P
    w, v = np.linalg.eigh(H + shift * P)
    return w, np.einsum("ik,ij,jk->k", v, S2, v)


@pytest.fixture(scope="module")
def h6():
    """A stretched H6 chain in STO-3G: 400 determinants, singlet to septet
    within 0.3 Eh, so the penalty picks each spin; with its dense H and S^2."""
    mol = gto.M(atom="; ".join(f"H 0 0 {1.6 * i}" for i in range(6)), basis="sto3g", verbose=0)
    mf = scf.RHF(mol).set(conv_tol=1e-12).run()
    c = mf.mo_coeff
    h1, eri = c.T @ mf.get_hcore() @ c, ao2mo.kernel(mol, c)
    return h1, eri, 6, dense_h_s2(h1, eri, 6, (3, 3))


def penalised(shift, ss):
    return fci.addons.fix_spin_(cf.FCISolver(device="cpu"), shift=shift, ss=ss)


@pytest.mark.parametrize("ss", [0, 2, 6, 12])
def test_lowest_penalised_state_of_every_spin(h6, ss):
    # The case: from a closed-shell start, ss = 2 and 12 (S = 1, 3:
    # antisymmetric under alpha <-> beta) and 6 (S = 2) returned the singlet
    # plus the penalty; the lowest state of the penalised operator now
    h1, eri, norb, HS = h6
    w, s2 = dense_penalised(HS, (3, 3), 0.5, ss)
    assert abs(s2[0] - ss) < 1e-8  # the dense answer is of the spin asked

    e, c = penalised(0.5, ss).kernel(h1, eri, norb, (3, 3))

    assert abs(e - w[0]) < 1e-8
    assert abs(spin_op.spin_square0(c, norb, (3, 3))[0] - ss) < 1e-8


@pytest.mark.parametrize("ss", [2, 6])
def test_never_above_pyscfs_fix_spin(h6, ss):
    # PySCF's own fix_spin_(direct_spin1.FCI()) on the same integrals: the
    # same state where its Davidson reaches the spin (ss = 6: -5.67396),
    # never lower (ss = 2: PySCF stops at -5.0951 with <S^2> 1.97; -5.7901 is
    # the triplet of the dense operator)
    h1, eri, norb, HS = h6
    e = penalised(0.5, ss).kernel(h1, eri, norb, (3, 3))[0]
    e_ref, c_ref = fci.addons.fix_spin_(direct_spin1.FCI(), shift=0.5, ss=ss).kernel(h1, eri, norb, (3, 3))
    assert e <= e_ref + 1e-8
    if abs(spin_op.spin_square0(c_ref, norb, (3, 3))[0] - ss) < 1e-6:
        assert abs(e - e_ref) < 1e-4  # PySCF's conv_tol 1e-10 leaves 1e-5 here


def test_several_roots_from_a_start_of_another_spin(h6):
    # three quintets from a singlet ci0: the start projected onto S = 2
    h1, eri, norb, HS = h6
    w, s2 = dense_penalised(HS, (3, 3), 0.5, 6)
    singlet = cf.FCISolver(device="cpu").kernel(h1, eri, norb, (3, 3))[1]
    e, c = penalised(0.5, 6).kernel(h1, eri, norb, (3, 3), nroots=3, ci0=singlet)
    np.testing.assert_allclose(e, w[:3], atol=1e-8)
    for v in c:
        assert abs(spin_op.spin_square0(v, norb, (3, 3))[0] - 6) < 1e-8


def test_casci_triplet_below_the_penalised_singlet():
    # PySCF's test_casci::test_fix_spin_ (N2 6-31G, CAS(4,4), ss = 2): PySCF's
    # Davidson stays among the states symmetric under alpha <-> beta from its
    # closed-shell start and returns the singlet plus 0.2 * 4 (-108.0374);
    # the lowest state of the penalised operator is the triplet, 0.69 lower
    mol = gto.M(atom="N 0 0 -0.7; N 0 0 0.7", basis="631g", verbose=0)
    mf = scf.RHF(mol).set(conv_tol=1e-10).run()
    mc = mcscf.CASCI(mf, 4, 4)
    mc.fcisolver = cf.FCISolver(mol, device="cpu")
    mc.fix_spin_(ss=2).run()
    h1, ecore = mc.get_h1eff()
    w, s2 = dense_penalised(dense_h_s2(h1, mc.get_h2eff(), 4, (2, 2)), (2, 2), mc.fcisolver.ss_penalty, 2)
    assert abs(mc.e_tot - (w[0] + ecore)) < 1e-8 and mc.e_tot < -108.03741684418183 - 0.5
    assert abs(mc.fcisolver.spin_square(mc.ci, 4, 4)[0] - 2) < 1e-8
    mc.fix_spin_(ss=0).run()
    assert abs(mc.e_tot - -108.83741684447352) < 1e-7  # PySCF's test's singlet
    assert abs(mc.fcisolver.spin_square(mc.ci, 4, 4)[0]) < 1e-8


def test_spin_not_reached_is_an_error(h6):
    # a shift too small to lift the singlet above the triplet: the lowest
    # penalised state is a singlet, no answer for ss = 2
    h1, eri, norb, HS = h6
    w, s2 = dense_penalised(HS, (3, 3), 0.005, 2)
    assert abs(s2[0]) < 1e-8
    with pytest.raises(cisparse.CisparseError, match=r"did not reach <S\^2> = 2 .*root 0 has <S\^2> = 0 "):
        penalised(0.005, 2).kernel(h1, eri, norb, (3, 3))


@pytest.mark.parametrize("ss, nelec, match", [(20, (3, 3), r"ss = 20 is no <S\^2>.*0, 2, 6, 12\)"),
                                              (1.5, (3, 3), r"ss = 1.5 is no <S\^2>"),
                                              (3.75, (4, 2), r"ss = 3.75 is no <S\^2>.*2, 6, 12\)")])
def test_ss_of_no_state_is_refused(h6, ss, nelec, match):
    h1, eri, norb, HS = h6
    with pytest.raises(ValueError, match=match):
        penalised(0.5, ss).kernel(h1, eri, norb, nelec)
