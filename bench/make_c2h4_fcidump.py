#!/usr/bin/env python3
"""make_c2h4_fcidump.py: C2H4 cc-pVDZ CAS(n,n) FCIDUMPs with PySCF, the
active spaces of issue 9 (C=C 1.339 A, C-H 1.086 A, HCH 117.6 deg, planar;
RHF canonical orbitals, core = the lowest (16-n)/2, active = the next n, as
pyscf.mcscf.CASCI(mf, n, n) picks them; no point-group symmetry, so every
ORBSYM is 1). The FCIDUMP holds the active-space integrals with the core
energy (nuclear repulsion + frozen core) as ECORE.

usage: python3 bench/make_c2h4_fcidump.py N OUT.FCIDUMP [--casci] [--symmetry] [--nelec E]
--casci also runs PySCF's CASCI and prints its energy and time (the
reference for `cisparse ci OUT.FCIDUMP --method direct`).
--symmetry: the molecule in D2h (PySCF's orientation), RHF orbitals
symmetry-adapted, ORBSYM = PySCF's 0-based D2h irrep ids of the active
orbitals (XOR group), ISYM=1 (Ag); --casci then runs direct_spin1_symm.
--nelec E: E active electrons in the N orbitals (default N), core = the
lowest (16-E)/2; e.g. `18 OUT --nelec 16`: all 16 electrons in 18 orbitals.
"""
import math, sys, time
from pyscf import gto, mcscf, scf

def c2h4():
    half, ch, hch = 1.339 / 2, 1.086, math.radians(117.6)
    z = half + ch * math.cos(hch / 2)
    y = ch * math.sin(hch / 2)
    return f'C 0 0 {half}; C 0 0 {-half}; H 0 {y} {z}; H 0 {-y} {z}; H 0 {y} {-z}; H 0 {-y} {-z}'

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    # pyscf/tools/fcidump.py alone: the pyscf.tools package pulls in libxc (pyscf.dft),
    # absent from the device machine's PySCF site
    import importlib.util, os, pyscf
    spec = importlib.util.spec_from_file_location('fcidump', os.path.join(pyscf.__path__[0], 'tools', 'fcidump.py'))
    fcidump = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fcidump)
    n, out = int(sys.argv[1]), sys.argv[2]
    sym = '--symmetry' in sys.argv
    ne = int(sys.argv[sys.argv.index('--nelec') + 1]) if '--nelec' in sys.argv else n
    mol = gto.M(atom=c2h4(), basis='cc-pvdz', unit='angstrom', symmetry='D2h' if sym else False, verbose=0)
    t = time.perf_counter()
    mf = scf.RHF(mol).run(conv_tol=1e-11)
    print(f'RHF {mf.e_tot:.10f} Eh ({time.perf_counter() - t:.1f} s), {mol.nao} orbitals')
    mc = mcscf.CASCI(mf, n, ne)
    h1, ecore = mc.get_h1eff()
    eri = mc.get_h2eff()
    orbsym = None
    if sym:
        orbsym = [int(x) for x in mf.get_orbsym()[mc.ncore:mc.ncore + n]]
        mc.fcisolver.wfnsym = 'Ag'
    fcidump.from_integrals(out, h1, eri, n, ne, nuc=ecore, ms=0, orbsym=orbsym, tol=1e-15)
    if sym:
        print(f'ORBSYM (0-based D2h ids) {orbsym}')
    print(f'wrote {out}: CAS({ne},{n}), core energy {ecore:.10f}')
    if '--casci' in sys.argv:
        t = time.perf_counter()
        mc.fcisolver.conv_tol = 1e-10
        e = mc.kernel()[0]
        print(f'PySCF CASCI({ne},{n}) {e:.10f} Eh in {time.perf_counter() - t:.2f} s')

if __name__ == '__main__':
    main()
