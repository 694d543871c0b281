"""cisparse.fci.FCISolver for linear molecules (D∞h/C∞v, cisparse.fci_cylsym):
the state of the requested cylindrical irrep against PySCF's complex-orbital
solver (fci.direct_spin1_cyl_sym), E_x = E_y, the irrep-id and orbital-label
checks PySCF makes. C2 in 6-31G, CAS(8, 4): 784 determinants."""
import json
import os
import subprocess

import numpy as np
import pytest

pyscf = pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import gto, lib, mcscf, scf, symm  # noqa: E402
from pyscf.fci import direct_spin1_cyl_sym, direct_spin1_symm  # noqa: E402

import cisparse.fci  # noqa: E402
from cisparse import fci_cylsym  # noqa: E402

NCAS = {"A1g": 2, "A1u": 2, "E1gx": 1, "E1gy": 1, "E1ux": 1, "E1uy": 1}


@pytest.fixture(scope="module")
def c2():
    """C2's CAS(8, 4) integrals (h1, eri, ecore), orbital ids with their
    degenerate partners, and the molecule and orbitals."""
    mol = gto.M(atom="C 0 0 0; C 0 0 1.5", basis="6-31g", symmetry=True, verbose=0)
    mf = scf.RHF(mol).run()
    mc = mcscf.CASCI(mf, 8, 4)
    mo = mcscf.sort_mo_by_irrep(mc, mf.mo_coeff, NCAS)
    h1, ecore = mc.get_h1eff(mo)
    eri = mc.get_h2eff(mo)
    orbsym = symm.label_orb_symm(mol, mol.irrep_id, mol.symm_orb, mo)[mc.ncore:mc.ncore + 8]
    return dict(mol=mol, mf=mf, mo=mo, h1=h1, eri=eri, ecore=ecore, orbsym=orbsym)


def solver(mol, **kw):
    s = cisparse.fci.FCISolver(mol, device="cpu")
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def reference(c2, wfnsym, nroots):
    """PySCF's complex-orbital solver: the lowest nroots of wfnsym (for
    Λ = 0 those of Σ+ and Σ- together: its M_L = 0 space holds both)."""
    ref = direct_spin1_cyl_sym.FCI(c2["mol"])
    ref.conv_tol, ref.nroots = 1e-12, nroots
    e, _ = ref.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym=symm.irrep_name2id("Dooh", wfnsym),
                      ecore=c2["ecore"])
    return np.atleast_1d(e)


def lowest(c2, wfnsym, nroots):
    s = solver(c2["mol"], conv_tol=1e-12, nroots=nroots)
    e, ci = s.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym=wfnsym, ecore=c2["ecore"])
    return s, e, ci


@pytest.mark.parametrize("wfnsym", ["E1ux", "E1uy", "E1gx", "E2ux", "E2uy", "E2gx"])
def test_e_states_match_pyscf_cyl_sym(c2, wfnsym):
    s, e, ci = lowest(c2, wfnsym, 2)

    assert np.allclose(e, reference(c2, wfnsym, 2), atol=1e-8, rtol=0)
    lam = abs(symm.basis.linearmole_irrep2momentum(symm.irrep_name2id("Dooh", wfnsym)))
    A = fci_cylsym.lz_generator(fci_cylsym.tagged_orbsym(c2["h1"], c2["orbsym"]))
    for v, Av in zip(ci, fci_cylsym.apply_a(A, ci, 8, (2, 2))):
        assert v.shape == (28, 28) and abs(np.vdot(Av, Av) - lam ** 2) < 1e-6
    assert s.stats["cylsym"]["roots_solved"] >= 2


@pytest.mark.parametrize("parity", ["g", "u"])
def test_sigma_states_match_pyscf_cyl_sym(c2, parity):
    """Σ+ (A1) and Σ- (A2) apart; together the M_L = 0 states of PySCF's
    solver. (PySCF's direct_spin1_symm gives the Δ_x state for A1g here.)"""
    plus, minus = lowest(c2, "A1" + parity, 2), lowest(c2, "A2" + parity, 2)

    both = np.sort(np.concatenate([plus[1], minus[1]]))[:2]
    assert np.allclose(both, reference(c2, "A1" + parity, 2), atol=1e-8, rtol=0)
    A = fci_cylsym.lz_generator(fci_cylsym.tagged_orbsym(c2["h1"], c2["orbsym"]))
    for _, e, ci in (plus, minus):
        assert max(np.vdot(Av, Av) for Av in fci_cylsym.apply_a(A, ci, 8, (2, 2))) < 1e-12
    if parity == "g":  # Σg+ above the lowest Δg (-75.4505, the Ag block's lowest), Σg- below it
        assert plus[1][0] > -75.44 and minus[1][0] < -75.47


def test_ex_and_ey_equal_and_in_their_d2h_blocks(c2):
    s = solver(c2["mol"], conv_tol=1e-12)

    ex, cx = s.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym="E2ux", ecore=c2["ecore"])
    ey, cy = s.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym="E2uy", ecore=c2["ecore"])

    assert abs(ex - ey) < 1e-9 and abs(np.vdot(cx, cy)) < 1e-12
    guess = lambda ci, w: direct_spin1_symm.guess_wfnsym(  # noqa: E731
        s, 8, (2, 2), ci, fci_cylsym.tagged_orbsym(c2["h1"], c2["orbsym"]), w)
    assert guess(cx, None) == 15 and guess(cy, None) == 14  # PySCF reads back E2ux and E2uy


def test_casci_with_cisparse_solver(c2):
    mc = mcscf.CASCI(c2["mf"], 8, 4)
    mc.fcisolver = solver(c2["mol"], conv_tol=1e-12)
    mc.fcisolver.wfnsym = "A2u"

    mc.kernel(c2["mo"])

    assert abs(mc.e_tot - reference(c2, "A2u", 1)[0]) < 1e-8
    ss, _ = mc.fcisolver.spin_square(mc.ci, 8, 4)
    assert min(abs(ss - x) for x in (0, 2, 6)) < 1e-8
    assert abs(np.trace(mc.fcisolver.make_rdm1(mc.ci, 8, 4)) - 4) < 1e-10
    mc.fcisolver.wfnsym = "A1g"  # the A2u vector as guess contradicts A1g: PySCF's WfnSymmetryError
    with pytest.raises(lib.exceptions.WfnSymmetryError):
        mc.fcisolver.kernel(c2["h1"], c2["eri"], 8, 4, ci0=mc.ci, orbsym=c2["orbsym"])


def test_no_state_of_the_symmetry(c2):
    s = solver(c2["mol"])

    with pytest.raises(lib.exceptions.WfnSymmetryError, match="no state of symmetry E5gx"):
        s.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym="E5gx")


@pytest.mark.parametrize("wfnsym", [8, 9, 18, 38, -1])
def test_invalid_linear_ids_refused(c2, wfnsym):
    with pytest.raises(ValueError, match="not an irrep of point group Dooh"):
        solver(c2["mol"]).kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym=wfnsym)


def test_linear_ids_without_linear_group_refused(c2):
    with pytest.raises(ValueError, match="wfnsym must be an irrep id 0..7"):
        solver(None).kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"] % 10, wfnsym=14)


def test_dump_flags_refuses_id_of_another_group():
    mol = gto.M(atom="N", basis="sto-3g", spin=3, symmetry=True, verbose=0)  # SO3
    s = solver(mol, wfnsym=4)

    with pytest.raises(RuntimeError, match="wfnsym id 4 is not an irrep of point group SO3"):
        s.dump_flags()
    s.wfnsym = 0
    s.dump_flags()


def test_incomplete_orbsym_refused():
    mol = gto.Mole()
    mol.groupname = "Dooh"
    h1, h2 = np.ones((2, 2)), np.ones((2, 2, 2, 2))

    with pytest.raises(lib.exceptions.PointGroupSymmetryError, match="incomplete 2D-irrep"):
        solver(mol).kernel(h1, h2, 2, 2, orbsym=lib.tag_array(np.array([0, 3]), degen_mapping=[0, 2]))
    with pytest.raises(lib.exceptions.PointGroupSymmetryError):  # an E1gx orbital without its E1gy partner
        solver(mol).kernel(np.diag([1.0, 2.0]), h2, 2, 2, orbsym=np.array([0, 2]))
    with pytest.raises(lib.exceptions.PointGroupSymmetryError, match="same angular momentum"):
        solver(mol).kernel(np.eye(2), h2 * 0, 2, 2, orbsym=lib.tag_array(np.array([2, 11]), degen_mapping=[1, 0]))


def test_inconsistent_pair_phase_refused(c2):
    """The y orbital of the pi_u pair with its sign flipped: the pairs no
    longer follow one phase convention and Lz does not commute with H."""
    orbsym = np.asarray(c2["orbsym"])
    y = int(np.where(orbsym == 6)[0][0])  # E1uy
    sign = np.ones(8)
    sign[y] = -1
    h1 = c2["h1"] * sign[:, None] * sign[None, :]
    eri = pyscf.ao2mo.restore(1, c2["eri"], 8)
    eri = np.einsum("pqrs,p,q,r,s->pqrs", eri, sign, sign, sign, sign)

    with pytest.raises(lib.exceptions.PointGroupSymmetryError, match="break cylindrical symmetry"):
        solver(c2["mol"]).kernel(h1, eri, 8, 4, orbsym=c2["orbsym"], wfnsym="A1g")


def test_cli_reads_pyscf_linear_fcidump_as_d2h(c2, tmp_path):
    """pyscf.tools.fcidump writes a linear molecule's ORBSYM as D2h ids
    (orbsym % 10): `cisparse ci` solves that D2h irrep (Ag here: its lowest
    state is a Δg component, not Σg+) and says which numbering it read. The
    raw D∞h ids (from_integrals given them) are refused, D2h named."""
    exe = os.environ.get("CISPARSE_CLI")
    if not exe:
        pytest.skip("CISPARSE_CLI is not set")
    # pyscf/tools/fcidump.py alone: the pyscf.tools package imports pyscf.dft,
    # whose libxc a PySCF site may lack
    import importlib.util
    import pyscf
    spec = importlib.util.spec_from_file_location("fcidump", os.path.join(pyscf.__path__[0], "tools", "fcidump.py"))
    fcidump = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fcidump)
    d2h, dooh = tmp_path / "d2h.FCIDUMP", tmp_path / "dooh.FCIDUMP"
    orbsym = np.asarray(c2["orbsym"])
    fcidump.from_integrals(str(d2h), c2["h1"], c2["eri"], 8, 4, nuc=c2["ecore"], orbsym=orbsym % 10)
    fcidump.from_integrals(str(dooh), c2["h1"], c2["eri"], 8, 4, nuc=c2["ecore"], orbsym=orbsym + 10 * (orbsym == 0))

    out = subprocess.run([exe, "ci", str(d2h), "--json"], capture_output=True, text=True, check=True)
    bad = subprocess.run([exe, "ci", str(dooh)], capture_output=True, text=True)

    j = json.loads(out.stdout)
    d2h_lowest = solver(None).kernel(c2["h1"], c2["eri"], 8, 4, orbsym=orbsym % 10, wfnsym=0, ecore=c2["ecore"])[0]
    assert j["orbsym_numbering"] == "pyscf" and abs(j["roots"][0]["energy"] - d2h_lowest) < 1e-9
    assert abs(d2h_lowest - lowest(c2, "E2gx", 1)[1]) < 1e-9  # the D2h answer is the Δg state
    assert bad.returncode != 0 and "ORBSYM entry 10 is PySCF's linear-molecule id (Dooh/Coov); FCIDUMP symmetry is " \
        "D2h: write ORBSYM % 10" in bad.stderr


def test_degenerate_roots_of_two_momenta_unmixed(c2):
    """Two roots of one energy mixing Σg+ (Λ = 0) and Δg_x (Λ = 2) of the
    Ag block are rotated back to Lz^2 eigenvectors before the filter."""
    sigma, delta = lowest(c2, "A1g", 1)[2], lowest(c2, "E2gx", 1)[2]
    mixed = [(sigma + delta) / 2 ** 0.5, (sigma - delta) / 2 ** 0.5]
    A = fci_cylsym.lz_generator(fci_cylsym.tagged_orbsym(c2["h1"], c2["orbsym"]))

    e, vecs, lz2 = fci_cylsym.unmix([-1.0, -1.0], mixed, fci_cylsym.apply_a(A, mixed, 8, (2, 2)))

    assert np.allclose(lz2, [0, 4], atol=1e-10) and np.allclose(e, -1.0)
    assert abs(abs(np.vdot(vecs[0], sigma)) - 1) < 1e-10 and abs(abs(np.vdot(vecs[1], delta)) - 1) < 1e-10


def test_root_count_remembered_for_the_next_call(c2):
    """A1g: the Ag block's lowest root is a Δg one, so a second root is solved;
    the next call with the same space starts from two roots."""
    s = solver(c2["mol"], conv_tol=1e-12)
    run = lambda: s.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym="A1g", ecore=c2["ecore"])  # noqa: E731

    e1 = run()[0]
    first = dict(s.stats["cylsym"])
    e2 = run()[0]

    assert first["solves"] > 1 and s.stats["cylsym"]["solves"] == 1
    assert s.stats["cylsym"]["roots_solved"] == first["roots_solved"] and abs(e1 - e2) < 1e-10


@pytest.mark.skipif(cisparse.fci.gpu_count()[0] == 0, reason="no GPU")
@pytest.mark.parametrize("wfnsym", ["A1g", "E2ux", "E2uy"])
def test_gpu_same_states_as_cpu(c2, wfnsym):
    """The filter on the GPU's D2h solve (vectors come back to the host)."""
    cpu = lowest(c2, wfnsym, 2)
    gpu = solver(c2["mol"], conv_tol=1e-12, nroots=2, device="gpu", method="direct")

    e, _ = gpu.kernel(c2["h1"], c2["eri"], 8, 4, orbsym=c2["orbsym"], wfnsym=wfnsym, ecore=c2["ecore"])

    assert gpu.stats["device"] == "gpu" and np.allclose(e, cpu[1], atol=1e-9, rtol=0)


def test_state_average_wrapper(c2):
    """PySCF's state_average_ wrapper around the solver (its kernel fixes
    nroots and wfnsym): the growing solves call cisparse's own kernel."""
    mc = mcscf.CASCI(c2["mf"], 8, 4)
    mc.fcisolver = solver(c2["mol"], conv_tol=1e-12)
    mc.fcisolver.wfnsym = "A1g"
    mc.state_average_([0.5, 0.5])

    mc.kernel(c2["mo"])

    assert np.allclose(mc.e_states, lowest(c2, "A1g", 2)[1], atol=1e-8, rtol=0)
