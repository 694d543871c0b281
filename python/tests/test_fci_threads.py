"""One cisparse.fci.FCISolver called from several Python threads at once
(issue 40 item 6): its calls are serialised (the solver's lock, and the C
solver's mutex below it), so every energy, RDM and contract_2e equals the
serial one; before, shared integrals and kept spaces gave energies 0.1-1.5 Eh
off or LAPACK errors. Skipped without PySCF."""
import threading

import numpy as np
import pytest

pytest.importorskip("pyscf", reason="PySCF is not installed")
from pyscf import ao2mo, gto, scf  # noqa: E402

import cisparse.fci as cf  # noqa: E402


@pytest.fixture(scope="module")
def problems():
    """H2O/6-31G's CAS(6,6) integrals at two geometries (two spaces' worth of
    different integrals for the one solver)."""
    out = []
    for y in (0.757, 0.80):
        mol = gto.M(atom=f"O 0 0 0; H 0 -{y} 0.587; H 0 {y} 0.587", basis="631g", verbose=0)
        mf = scf.RHF(mol).run()
        c = mf.mo_coeff[:, 2:8]
        out.append((c.T @ mf.get_hcore() @ c, ao2mo.kernel(mol, c)))
    return out


def run_threads(n, work):
    errors, results = [], [None] * n

    def one(t):
        try:
            results[t] = work(t)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=one, args=(t,)) for t in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    return results


@pytest.mark.parametrize("method", ["direct", "stored"])
def test_one_solver_from_four_threads(problems, method):
    s = cf.FCISolver(device="cpu", method=method)
    s.rdm_min = s.contract_min = 1  # cisparse's RDMs and contract_2e (its kept spaces) at this size
    serial = []
    for h1, eri in problems:
        e, c = s.kernel(h1, eri, 6, (3, 3))
        serial.append((e, c, s.make_rdm1(c, 6, (3, 3)), s.contract_2e(eri, c, 6, (3, 3))))

    def work(t):
        got = []
        for r in range(3):
            k = (t + r) % 2
            h1, eri = problems[k]
            e, c = s.kernel(h1, eri, 6, (3, 3))
            got.append((k, e, c, s.make_rdm1(c, 6, (3, 3)), s.contract_2e(eri, serial[k][1], 6, (3, 3))))
        return got

    for got in run_threads(4, work):
        for k, e, c, dm1, hc in got:
            e0, c0, dm0, hc0 = serial[k]
            assert abs(e - e0) < 1e-9
            assert abs(abs(np.vdot(c, c0)) - 1) < 1e-8
            assert np.abs(dm1 - dm0).max() < 1e-8
            assert np.abs(hc - hc0).max() < 1e-10


def test_lock_is_shared_by_pyscfs_copies():
    # PySCF's wrappers (fix_spin_, state_average_) copy the solver's __dict__:
    # the copies serialise with it
    s = cf.FCISolver(device="cpu")
    lock = s._call_lock()
    assert s.copy()._call_lock() is lock
