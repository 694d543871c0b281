"""words_fcidump.py: a FCIDUMP past 64 orbitals made with PySCF at test time,
and PySCF's own energies for it (issue 11, item 5: two-word strings).

usage: python words_fcidump.py CASE OUT.FCIDUMP [--fci-header OUT2.FCIDUMP]
Prints one line "norb N nelec N e_rhf X e_cisd X" (PySCF's RHF and its
ci.CISD: RHF-based, all electrons correlated, as cisparse --level 2 from the
file's RHF reference). CASE: lih-aug-cc-pvtz (69 orbitals), benzene-6-31g
(66), or any "ATOMS|BASIS|GROUP" string
(GROUP: D2h or a subgroup). Orbital symmetry labels are written
(PySCF's 0-based ORBSYM), so cisparse works per irrep.
"""
import sys
import time

from pyscf import ao2mo, ci, gto, scf
from pyscf.tools import fcidump

CASES = {
    "lih-aug-cc-pvtz": ("Li 0 0 0; H 0 0 1.6", "aug-cc-pvtz", "C2v"),
    # benzene, D6h geometry (C-C 1.39 A, C-H 1.09 A), 6-31G: 66 orbitals
    "benzene-6-31g": (
        "C 1.39 0 0; C 0.695 1.2038 0; C -0.695 1.2038 0; C -1.39 0 0; C -0.695 -1.2038 0; C 0.695 -1.2038 0;"
        "H 2.48 0 0; H 1.24 2.1477 0; H -1.24 2.1477 0; H -2.48 0 0; H -1.24 -2.1477 0; H 1.24 -2.1477 0",
        "6-31g",
        "D2h",
    ),
}


def main():
    case, out = sys.argv[1], sys.argv[2]
    atom, basis, group = CASES[case] if case in CASES else case.split("|")
    no_cisd = "--no-cisd" in sys.argv
    # an abelian group (D2h or a subgroup) whose irrep ids 0..7 an FCIDUMP holds
    mol = gto.M(atom=atom, basis=basis, symmetry=group, verbose=0)
    t0 = time.time()
    mf = scf.RHF(mol)
    mf.conv_tol = 1e-11
    mf.run()
    t_scf = time.time() - t0
    # fcidump.from_scf writes the 4-fold ao2mo array, (ij|kl) and (kl|ij) both,
    # which differ by rounding (1e-12) and the reader refuses as a conflict:
    # the 8-fold array, each element once
    mo = mf.mo_coeff
    h1 = mo.T @ mf.get_hcore() @ mo
    eri = ao2mo.restore(8, ao2mo.full(mol, mo), mo.shape[1])
    fcidump.from_integrals(out, h1, eri, mo.shape[1], mol.nelec, mf.energy_nuc(), 0, getattr(mo, "orbsym", None),
                           tol=1e-15)
    e_cisd, t_ci = float("nan"), 0.0
    if not no_cisd:
        t1 = time.time()
        c = ci.CISD(mf)
        c.conv_tol = 1e-10
        c.run()
        e_cisd, t_ci = c.e_tot, time.time() - t1
    print("norb %d nelec %d e_rhf %.12f e_cisd %.12f t_scf %.2f t_cisd %.2f group %s"
          % (mol.nao, mol.nelectron, mf.e_tot, e_cisd, t_scf, t_ci, mol.groupname))


if __name__ == "__main__":
    main()
