#!/usr/bin/env python3
"""casscf_vs_pyscf.py: PySCF CASSCF of C2H4/cc-pVDZ (the geometry of issue 9,
bench/make_c2h4_fcidump.py) with PySCF's own FCI solver and with
cisparse.fci.FCISolver, in one process, side by side (issue 12's benchmark):
wall time of the whole CASSCF, of the FCI part (time inside the solvers'
kernel), the energies and their difference.

The RDM calls (make_rdm1, make_rdm1s, make_rdm12, make_rdm12s, trans_*) and
the contract_2e calls of CASSCF's approximate CI steps are timed too: with
cisparse both run on the GPU above rdm_min / contract_min determinants
(cis_ci_direct_gpu_rdm12, cis_ci_direct_gpu_sigma).

A time limit (--time-limit S, per CASSCF) stops a solver's CASSCF at the
first FCI, RDM or contract_2e call after S seconds: the row then says so
(stopped_s, macro-iterations done, the last energy), a measured lower bound
of its time. Every new CASSCF energy prints a progress line.

usage: python3 bench/casscf_vs_pyscf.py [N ...] [--json FILE] [--max-cycle M]
                                        [--solvers cisparse,pyscf] [--time-limit S]
                                        [--deadline-epoch T]
       (--deadline-epoch: each CASSCF's limit is what is left until the Unix
       time T, so that a later solver gets what an earlier one left)
       (default N = 12; PySCF and cisparse importable, e.g. PYTHONPATH with the
       gpu4pyscf-site.sh tarball and python/, CISPARSE_LIBRARY set)
"""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
from make_c2h4_fcidump import c2h4  # noqa: E402
from pyscf import gto, lib, mcscf, scf  # noqa: E402
import cisparse.fci  # noqa: E402


class TimeLimit(Exception):
    pass


class Clock:
    """The CASSCF's start and its time limit (None: none)."""

    def __init__(self, limit):
        self.t0, self.limit = time.perf_counter(), limit

    def elapsed(self):
        return time.perf_counter() - self.t0

    def check(self):
        if self.limit is not None and self.elapsed() > self.limit:
            raise TimeLimit()


class Timed:
    """Wraps an FCI solver's kernel to add up the time spent in it."""

    def __init__(self, solver, clock):
        self.solver, self.seconds, self.calls = solver, 0.0, 0
        inner = solver.kernel

        def kernel(*a, **k):
            clock.check()
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                self.seconds += time.perf_counter() - t
                self.calls += 1
        solver.kernel = kernel


RDM_METHODS = ("make_rdm1", "make_rdm1s", "make_rdm12", "make_rdm12s", "trans_rdm1", "trans_rdm1s", "trans_rdm12",
               "trans_rdm12s")


class TimedRdms:
    """Wraps the solver's RDM methods (or `methods`, on the instance) to add
    up their time; nested calls (one calling another) count once."""

    def __init__(self, solver, clock, methods=RDM_METHODS):
        self.seconds, self.calls, self.depth = 0.0, 0, 0
        for name in methods:
            inner = getattr(solver, name)

            def timed(*a, _inner=inner, **k):
                if self.depth == 0:
                    clock.check()
                self.depth += 1
                t = time.perf_counter()
                try:
                    return _inner(*a, **k)
                finally:
                    self.depth -= 1
                    if self.depth == 0:
                        self.seconds += time.perf_counter() - t
                        self.calls += 1
            setattr(solver, name, timed)


def run(mf, n, solver_name, max_cycle, limit=None):
    mc = mcscf.CASSCF(mf, n, n)
    mc.conv_tol = 1e-9
    mc.max_cycle_macro = max_cycle
    if solver_name == "cisparse":
        mc.fcisolver = cisparse.fci.FCISolver(mf.mol)
    mc.fcisolver.conv_tol = 1e-10
    clock = Clock(limit)
    timer = Timed(mc.fcisolver, clock)
    rdms = TimedRdms(mc.fcisolver, clock)
    sigmas = TimedRdms(mc.fcisolver, clock, ("contract_2e",))  # CASSCF's approximate CI steps (PySCF's solve_approx_ci)
    progress = {"macro": 0, "e_tot": None}

    def callback(env):  # PySCF calls it after every micro- and macro-iteration: report new energies
        e = env.get("e_tot")
        if e is not None and e != progress["e_tot"]:
            progress["macro"], progress["e_tot"] = env.get("imacro", 0) + 1, e
            print(f"  {solver_name} macro-iteration {progress['macro']}: E = {e:.10f}  {clock.elapsed():.1f} s",
                  flush=True)

    mc.callback = callback
    stopped = None
    try:
        e = mc.kernel()[0]
    except TimeLimit:
        stopped, e = clock.elapsed(), progress["e_tot"]
        print(f"  {solver_name}: stopped by the time limit after {stopped:.1f} s, {progress['macro']} "
              "macro-iterations done", flush=True)
    wall = clock.elapsed()
    stats = getattr(mc.fcisolver, "stats", {})
    return {"solver": solver_name, "n": n, "e_tot": e, "converged": bool(mc.converged) and stopped is None,
            "stopped_s": stopped, "macro_iterations": progress["macro"], "wall_s": wall,
            "fci_s": timer.seconds, "fci_calls": timer.calls, "rdm_s": rdms.seconds, "rdm_calls": rdms.calls,
            "contract_2e_s": sigmas.seconds, "contract_2e_calls": sigmas.calls,
            "threads": lib.num_threads(),
            "cisparse_stats": {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}}


def main():
    args = [a for a in sys.argv[1:]]
    out = None
    max_cycle = 50
    if "--json" in args:
        i = args.index("--json"); out = args[i + 1]; del args[i:i + 2]
    if "--max-cycle" in args:
        i = args.index("--max-cycle"); max_cycle = int(args[i + 1]); del args[i:i + 2]
    limit = deadline = None
    if "--time-limit" in args:
        i = args.index("--time-limit"); limit = float(args[i + 1]); del args[i:i + 2]
    if "--deadline-epoch" in args:
        i = args.index("--deadline-epoch"); deadline = float(args[i + 1]); del args[i:i + 2]
    solvers = ("cisparse", "pyscf")
    if "--solvers" in args:
        i = args.index("--solvers"); solvers = tuple(args[i + 1].split(",")); del args[i:i + 2]
    sizes = [int(a) for a in args] or [12]
    mol = gto.M(atom=c2h4(), basis="cc-pvdz", unit="angstrom", symmetry=False, verbose=0)
    mf = scf.RHF(mol).run(conv_tol=1e-11)
    print(f"C2H4/cc-pVDZ RHF {mf.e_tot:.10f} Eh, PySCF {lib.num_threads()} threads, cisparse {cisparse.__version__ if hasattr(cisparse, '__version__') else ''}")
    rows = []
    for n in sizes:
        for name in solvers:
            left = None if deadline is None else deadline - time.time()
            r = run(mf, n, name, max_cycle, left if limit is None else limit if left is None else min(limit, left))
            rows.append(r)
            print(f"CASSCF({n},{n}) {name:8s} E = {r['e_tot'] if r['e_tot'] is not None else float('nan'):.10f}  "
                  f"converged {r['converged']}{'' if r['stopped_s'] is None else ' (stopped by the time limit)'}  "
                  f"total {r['wall_s']:8.2f} s  FCI {r['fci_s']:8.2f} s in {r['fci_calls']} calls  "
                  f"RDMs {r['rdm_s']:8.2f} s in {r['rdm_calls']} calls  "
                  f"contract_2e {r['contract_2e_s']:8.2f} s in {r['contract_2e_calls']} calls  "
                  f"{r['cisparse_stats'] if name == 'cisparse' else ''}", flush=True)
        if len(solvers) < 2:
            continue
        a, b = rows[-2], rows[-1]
        if a["stopped_s"] is not None or b["stopped_s"] is not None:
            slow, fast = (b, a) if b["stopped_s"] is not None else (a, b)
            print(f"CASSCF({n},{n}): {slow['solver']} stopped at {slow['stopped_s']:.1f} s after "
                  f"{slow['macro_iterations']} macro-iterations (E {slow['e_tot']}); {fast['solver']} "
                  f"{'finished' if fast['stopped_s'] is None else 'stopped too'} in {fast['wall_s']:.2f} s: "
                  f"at least {slow['wall_s'] / fast['wall_s']:.2f}x", flush=True)
            continue
        print(f"CASSCF({n},{n}): |dE| = {abs(a['e_tot'] - b['e_tot']):.2e} Eh; cisparse / PySCF: "
              f"total {b['wall_s'] / a['wall_s']:.2f}x faster, FCI part {b['fci_s'] / max(a['fci_s'], 1e-9):.2f}x faster")
    if out:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
