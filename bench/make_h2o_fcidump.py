#!/usr/bin/env python3
"""make_h2o_fcidump.py: H2O 6-31G FCIDUMP with PySCF at a chosen O-H length
(HOH 104.52 deg, all electrons, RHF canonical orbitals, no symmetry): issue
9's CPU case is twice the equilibrium length, 1.9144 A.

usage: python3 bench/make_h2o_fcidump.py R_OH OUT.FCIDUMP [--symmetry]
--symmetry: the molecule in C2v, symmetry-adapted RHF orbitals, ORBSYM =
PySCF's 0-based C2v irrep ids (XOR group), ISYM=1 (A1).
"""
import math, sys, time
from pyscf import gto, scf
from pyscf.tools import fcidump

r, out = float(sys.argv[1]), sys.argv[2]
a = math.radians(104.52 / 2)
mol = gto.M(atom=f'O 0 0 0; H 0 {r * math.sin(a)} {r * math.cos(a)}; H 0 {-r * math.sin(a)} {r * math.cos(a)}',
            basis='6-31g', unit='angstrom', symmetry='C2v' if '--symmetry' in sys.argv else False, verbose=0)
t = time.perf_counter()
mf = scf.RHF(mol)
mf.conv_tol = 1e-11
mf.max_cycle = 200
mf.kernel()
print(f'RHF {mf.e_tot:.10f} Eh, converged {mf.converged} ({time.perf_counter() - t:.1f} s), {mol.nao} orbitals')
fcidump.from_scf(mf, out, tol=1e-15)
print(f'wrote {out}')
