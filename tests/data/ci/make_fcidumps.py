# make_fcidumps.py: how the FCIDUMPs of this folder were made (PySCF 2.14.0,
# Python 3.11, 2026-11-23), once, then committed (each is < 60 kB).
#   python make_fcidumps.py      (writes into this folder)
# Reference energies (PySCF FCI, conv_tol 1e-13), used by tests/cli/ci_states.sh
# and tests/unit/test_ci_states.c:
#   c2_sto3g (no ORBSYM labels, all 1): roots -74.69021095756578 (S^2 0),
#     -74.64047773770007 and -74.64047773769994 (S^2 2), -74.58182646132589 (0)
#     (-74.63942198 is a third triplet: PySCF's MS=0 solve misses it, its
#     MS2=2 solve (nelec (7,5)) finds -74.64047774 x2, -74.63942198);
#     CISD (PySCF ci.CISD on the RHF) -74.637590139071.
#     The lowest diagonal element is an open-shell determinant of another
#     spatial symmetry: a unit-vector Davidson guess converges to -74.6405.
#   c2_sto3g_d2h_pyscf (PySCF's 0-based ORBSYM=0,5,0,5,6,7,0,2,3,5, ISYM=1):
#     lowest A1g (wfnsym 0) -74.69021095756585, next A1g -74.52285737077541
#   o2_sto3g_triplet_pyscf (MS2=2, ROHF orbitals, 0-based ORBSYM, ISYM=1):
#     lowest A1g (wfnsym 0) -146.9161772545188 (S^2 6, a quintet),
#     lowest B1g (wfnsym 1, the 3Sigma_g- ground state) -147.74403543362763 (S^2 2),
#     no symmetry: -147.74403543362763
from pyscf import gto, scf, tools
mol = gto.M(atom='C 0 0 0; C 0 0 1.2425', basis='sto-3g', symmetry=False, verbose=0)
tools.fcidump.from_scf(scf.RHF(mol).run(conv_tol=1e-12), 'c2_sto3g.FCIDUMP', tol=1e-15)
mol = gto.M(atom='C 0 0 0; C 0 0 1.2425', basis='sto-3g', symmetry='D2h', verbose=0)
tools.fcidump.from_scf(scf.RHF(mol).run(conv_tol=1e-12), 'c2_sto3g_d2h_pyscf.FCIDUMP', tol=1e-15)
mol = gto.M(atom='O 0 0 0; O 0 0 1.2075', basis='sto-3g', symmetry='D2h', spin=2, verbose=0)
tools.fcidump.from_scf(scf.ROHF(mol).run(conv_tol=1e-12), 'o2_sto3g_triplet_pyscf.FCIDUMP', tol=1e-15)
