#!/usr/bin/env python3
"""first_hour.py: the table of issue 41 (a chemist's first hour), re-run in
one process on one machine: N2/cc-pVDZ at 1.098 Angstrom, its FCIDUMPs
written here by PySCF, then for each row PySCF, cisparse's default and
cisparse's `--method direct` (or method='direct'), wall seconds.

Rows (the issue's):
  ci CAS(10,12) D2h          `cisparse ci FILE` (default, direct) vs PySCF direct_spin1_symm
  ci CAS(10,14) D2h          the same, 501,924 determinants
  ci --roots 4 CAS(10,10) C1 `cisparse ci FILE --roots 4` vs PySCF direct_spin1 nroots=4
  FCISolver nroots=3         one kernel call, CAS(10,10) C1 integrals (second call timed)
  SA3-CASSCF(10,10) C1       mcscf.CASSCF(...).state_average_([1/3]*3), FCISolver(mol) defaults
  CASSCF(10,10) D2h          mcscf.CASSCF with FCISolver(mol) defaults
  CASSCF(10,10) C1           the same without symmetry

The cisparse CLI rows run the tool as a user would (subprocess, its wall
time); PySCF's rows time the solver call alone (its FCIDUMP read excluded).
Energies are compared (|dE| printed; a row whose energies differ by more
than 1e-6 Eh is flagged). OMP_NUM_THREADS is the caller's (set it to 1 and 2).

usage: OMP_NUM_THREADS=2 python3 bench/first_hour.py CISPARSE_EXE WORKDIR [--rows a,b,...] [--json FILE]
       (import cisparse first: PySCF's own OpenMP runtime then waits
       passively too; CISPARSE_LIBRARY set; PySCF importable)
"""
import json, os, re, subprocess, sys, time

import cisparse.fci  # noqa: E402  (first: docs/python.md, OpenMP)
import numpy as np  # noqa: E402
from pyscf import fci, gto, mcscf, scf, tools  # noqa: E402


def mol_n2(symmetry):
    return gto.M(atom="N 0 0 0; N 0 0 1.098", basis="cc-pvdz", symmetry=symmetry, verbose=0)


def write_fcidumps(work):
    """The CAS FCIDUMPs of the rows (made once per WORKDIR)."""
    out = {}
    for sym, tag in (("d2h", "d2h"), (False, "c1")):
        mf = None
        for ncas in ((12, 14) if tag == "d2h" else (10,)):
            path = os.path.join(work, f"n2_cas10_{ncas}_{tag}.FCIDUMP")
            if not os.path.exists(path):
                mf = mf or scf.RHF(mol_n2(sym)).run()
                tools.fcidump.from_mcscf(mcscf.CASCI(mf, ncas, 10), path)
            out[(ncas, tag)] = path
    return out


def wall(f):
    t0 = time.perf_counter()
    r = f()
    return time.perf_counter() - t0, r


def cli(exe, path, *opts):
    """cisparse ci's wall time, its root energies and its method line."""
    t, p = wall(lambda: subprocess.run([exe, "ci", path, *opts], capture_output=True, text=True))
    if p.returncode:
        raise RuntimeError(f"{exe} ci {path} {' '.join(opts)}: {p.stderr.strip()}")
    e = [float(m) for m in re.findall(r"^root +\d+ +E = (-?[0-9.]+)", p.stdout, re.M)]
    meth = re.search(r"^method +(\S+)", p.stdout, re.M).group(1)
    return t, e, meth


def pyscf_fci(path, nroots, symm):
    d = tools.fcidump.read(path, verbose=False)
    norb, nelec = d["NORB"], d["NELEC"]
    s = fci.direct_spin1_symm.FCI() if symm else fci.direct_spin1.FCI()
    s.conv_tol, s.max_cycle = 1e-10, 200
    kw = dict(nroots=nroots)
    if symm:
        kw.update(orbsym=np.asarray(d["ORBSYM"]), wfnsym=0)
    t, (e, _) = wall(lambda: s.kernel(d["H1"], d["H2"], norb, nelec, ecore=d["ECORE"], **kw))
    return t, list(np.atleast_1d(e))


def row_cli(exe, name, path, roots, symm):
    opts = ["--roots", str(roots)] if roots > 1 else []
    tp, ep = pyscf_fci(path, roots, symm)
    td, ed, md = cli(exe, path, *opts)
    tx, ex, _ = cli(exe, path, *opts, "--method", "direct")
    return dict(row=name, pyscf=tp, default=td, default_method=md, direct=tx,
                de=max(abs(a - b) for a, b in zip(ep, ed)))


def row_fcisolver(path):
    d = tools.fcidump.read(path, verbose=False)
    args = (d["H1"], d["H2"], d["NORB"], d["NELEC"])
    out = {"row": "FCISolver nroots=3, per call"}
    for key, s in (("pyscf", fci.direct_spin1.FCI()), ("default", cisparse.fci.FCISolver(device="cpu")),
                   ("direct", cisparse.fci.FCISolver(device="cpu", method="direct"))):
        s.nroots = 3
        s.kernel(*args)  # first call: spaces made
        t, (e, _) = wall(lambda: s.kernel(*args))
        out[key], out["e_" + key] = t, list(e)
    out["default_method"] = "auto"
    out["de"] = max(abs(a - b) for a, b in zip(out.pop("e_pyscf"), out.pop("e_default")))
    out.pop("e_direct")
    return out


def casscf(mol, make_solver, sa):
    mf = scf.RHF(mol).run()
    mc = mcscf.CASSCF(mf, 10, 10)
    if make_solver is not None:
        mc.fcisolver = make_solver(mol)
    if sa:
        mc = mc.state_average_([1 / 3] * 3)
    t, _ = wall(mc.kernel)
    return t, mc.e_tot


def row_casscf(name, sym, sa):
    mol = mol_n2(sym)
    tp, ep = casscf(mol, None, sa)
    td, ed = casscf(mol, lambda m: cisparse.fci.FCISolver(m, device="cpu"), sa)
    tx, _ = casscf(mol, lambda m: cisparse.fci.FCISolver(m, device="cpu", method="direct"), sa)
    return dict(row=name, pyscf=tp, default=td, default_method="auto", direct=tx, de=abs(ep - ed))


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 2
    exe, work = args[0], args[1]
    rows = None
    if "--rows" in args:
        rows = set(args[args.index("--rows") + 1].split(","))
    jpath = args[args.index("--json") + 1] if "--json" in args else None
    os.makedirs(work, exist_ok=True)
    f = write_fcidumps(work)
    plan = [
        ("cas12", lambda: row_cli(exe, "ci CAS(10,12) D2h (78,840 dets)", f[(12, "d2h")], 1, True)),
        ("cas14", lambda: row_cli(exe, "ci CAS(10,14) D2h (501,924 dets)", f[(14, "d2h")], 1, True)),
        ("roots4", lambda: row_cli(exe, "ci --roots 4 CAS(10,10) C1", f[(10, "c1")], 4, False)),
        ("solver3", lambda: row_fcisolver(f[(10, "c1")])),
        ("sa3", lambda: row_casscf("SA3-CASSCF(10,10) C1", False, True)),
        ("casscf", lambda: row_casscf("CASSCF(10,10) D2h", "d2h", False)),
        ("casscf_c1", lambda: row_casscf("CASSCF(10,10) C1", False, False)),
    ]
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    print(f"threads {threads}; | row | PySCF s | cisparse default s (method) | --method direct s | default / best | |dE| Eh |")
    out = []
    for key, run in plan:
        if rows and key not in rows:
            continue
        r = run()
        r["threads"] = threads
        best = min(r["pyscf"], r["direct"], r["default"])
        flag = "  ENERGIES DIFFER" if r["de"] > 1e-6 else ""
        print(f"| {r['row']} | {r['pyscf']:.2f} | {r['default']:.2f} ({r['default_method']}) | {r['direct']:.2f} | "
              f"{r['default'] / best:.2f} | {r['de']:.1e} |{flag}", flush=True)
        out.append(r)
    if jpath:
        with open(jpath, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
