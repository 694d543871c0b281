"""cisparse.fci.FCISolver over several parts (gpus=N on GPUs, cpu_parts=N on
the CPU: the same distributed direct path, so it is tested without a GPU):
CASCI and CASSCF energies and vectors equal the one-device solver's, with
point-group symmetry and MS2 != 0, singlet-only roots too; bad part counts
and host_vectors values refused before any C call (and 'always' without GPUs
by the driver).
Skipped where PySCF is not installed."""
import numpy as np
import pytest

pyscf = pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import gto, mcscf, scf  # noqa: E402

import cisparse.fci  # noqa: E402


@pytest.fixture(scope="module")
def n2():
    mol = gto.M(atom="N 0 0 0; N 0 0 1.1", basis="6-31g", symmetry="d2h", verbose=0)
    return mol, scf.RHF(mol).run()


def casci(mf, cas, nroots=1, **kw):
    mc = mcscf.CASCI(mf, *cas)
    mc.fcisolver = cisparse.fci.FCISolver(mf.mol, device="cpu", **kw)
    mc.fcisolver.nroots = nroots
    mc.fcisolver.conv_tol = 1e-12
    mc.kernel()
    return mc


@pytest.mark.parametrize("cas", [(8, 8), (8, (5, 3))])
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_casci_over_cpu_parts(n2, cas, parts):
    mol, mf = n2
    one = casci(mf, cas, nroots=2, method="direct")
    many = casci(mf, cas, nroots=2, cpu_parts=parts)
    assert np.allclose(many.e_tot, one.e_tot, atol=1e-10, rtol=0)
    for a, b in zip(many.ci, one.ci):
        assert abs(abs(np.vdot(a, b)) - 1) < 1e-8
    assert many.fcisolver.stats["method"] == "direct"


@pytest.mark.parametrize("parts", [2, 3])
def test_singlet_roots_over_cpu_parts(n2, parts):
    # direct_spin0's singlet-only roots (c = c^T) over parts as in one process
    mol, mf = n2
    one = casci(mf, (8, 8), nroots=3, singlet=True)
    many = casci(mf, (8, 8), nroots=3, singlet=True, cpu_parts=parts)
    assert np.allclose(many.e_tot, one.e_tot, atol=1e-10, rtol=0)
    for c in many.ci:
        assert abs(c - c.T).max() < 1e-10


def test_casscf_over_cpu_parts(n2):
    mol, mf = n2
    ref = mcscf.CASSCF(mf, 6, 6)
    ref.fcisolver = cisparse.fci.FCISolver(mol, device="cpu", method="direct")
    ref.kernel()
    mc = mcscf.CASSCF(mf, 6, 6)
    mc.fcisolver = cisparse.fci.FCISolver(mol, device="cpu", cpu_parts=2)
    mc.kernel()
    assert mc.converged and abs(mc.e_tot - ref.e_tot) < 1e-8


@pytest.mark.parametrize("kw, err", [
    (dict(cpu_parts=0), ValueError), (dict(cpu_parts=65), ValueError), (dict(cpu_parts=1.5), TypeError),
    (dict(cpu_parts=2, gpus=1), ValueError), (dict(gpus=-1), ValueError), (dict(gpus=1), (ValueError,)),
])
def test_bad_parts(n2, kw, err):
    mol, mf = n2
    s = cisparse.fci.FCISolver(mol, device="cpu", **kw)  # gpus on device 'cpu' is refused too
    mc = mcscf.CASCI(mf, 4, 4)
    mc.fcisolver = s
    with pytest.raises(err):
        mc.kernel()


@pytest.mark.parametrize("hv, err, match", [
    ("sometimes", ValueError, "host_vectors"), (1, ValueError, "host_vectors"),
    ("always", cisparse.CisparseError, "needs gpus"),  # host parts' vectors are host memory already
])
def test_bad_host_vectors(n2, hv, err, match):
    mol, mf = n2
    mc = mcscf.CASCI(mf, 4, 4)
    mc.fcisolver = cisparse.fci.FCISolver(mol, device="cpu", cpu_parts=2)
    mc.fcisolver.host_vectors = hv
    with pytest.raises(err, match=match):
        mc.kernel()


def test_more_parts_than_strings(n2):
    mol, mf = n2
    with pytest.raises(cisparse.CisparseError, match="alpha strings"):
        casci(mf, (4, 4), cpu_parts=9)  # 6 alpha strings
