"""qiskit-addon-sqd's own SQD loop (diagonalize_fermionic_hamiltonian) with
cisparse.sqd.solve_sci_batch as its sci_solver, against its default solver
(PySCF's kernel_fixed_space) on the same synthetic sample and seed: the
same energy. Skipped where qiskit-addon-sqd is not installed (it is not a
dependency: it brings qiskit and jax)."""
import numpy as np
import pytest

fermion = pytest.importorskip("qiskit_addon_sqd.fermion")
from qiskit.primitives import BitArray  # noqa: E402

from pyscf import ao2mo, gto, mcscf, scf  # noqa: E402

from cisparse import sqd  # noqa: E402


def _sample(norb, nelec, shots, seed):
    """Synthetic device counts: bitstrings [beta | alpha] near the
    Hartree-Fock occupation, each bit flipped with probability 0.12 (a
    noisy device), as booleans."""
    rng = np.random.default_rng(seed)
    hf = np.zeros(2 * norb, dtype=bool)
    hf[norb - nelec[1]:norb] = True        # beta: the lowest orbitals are the rightmost bits
    hf[2 * norb - nelec[0]:] = True        # alpha
    flips = rng.random((shots, 2 * norb)) < 0.12
    return BitArray.from_bool_array(hf[None, :] ^ flips)


def test_sqd_loop_with_cisparse():
    mol = gto.M(atom="N 0 0 0; N 0 0 1.2", basis="6-31g", verbose=0)
    mf = scf.RHF(mol).run()
    norb, nelec = 12, (5, 5)
    cas = mcscf.CASCI(mf, norb, nelec)
    h1, _ = cas.get_h1eff()
    eri = ao2mo.restore(1, cas.get_h2eff(), norb)
    bits = _sample(norb, nelec, 4000, 3)
    kw = dict(samples_per_batch=120, num_batches=2, max_iterations=4, symmetrize_spin=True, seed=11)
    ref = fermion.diagonalize_fermionic_hamiltonian(h1, eri, bits, norb=norb, nelec=nelec, **kw)
    ours = fermion.diagonalize_fermionic_hamiltonian(h1, eri, bits, norb=norb, nelec=nelec,
                                                     sci_solver=sqd.solve_sci_batch, **kw)
    assert isinstance(ours, fermion.SCIResult)
    assert abs(ours.energy - ref.energy) < 1e-7, (ours.energy, ref.energy)
    assert ours.sci_state.amplitudes.shape == ref.sci_state.amplitudes.shape
