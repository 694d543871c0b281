#!/usr/bin/env python3
"""ci_vs_pyscf.py: FCI on one FCIDUMP with `cisparse ci --method direct`
(and optionally --method stored) and PySCF's fci.direct_spin1, in one run on
the same cores, so the figures compare.

usage: python3 bench/ci_vs_pyscf.py CISPARSE FCIDUMP [--stored | --stored-symmetric] [--sigmas N]
                                    [--repeat R] [--tol X]

--repeat R alternates the programs R times (the machine may be shared: take
the best); --tol X is cisparse's residual tolerance (PySCF: conv_tol 1e-10,
residual sqrt(1e-10) = 1e-5 by default). CPU seconds (user + system of the
process, or of PySCF's kernel in-process) are printed beside wall seconds.

--stored-symmetric runs the stored path with --symmetric (upper triangle,
no format copy: half the memory of the default hyb copy of the CSR).

Prints, per program: setup, time per sigma (PySCF: contract_2e on the
converged-size vector, absorb_h1e and link tables made once, as its kernel
does), solve, total, energy; and the load average before and after (the
machine may be shared). PySCF is imported from the running interpreter
(a venv: python3 -m venv .venv-pyscf && .venv-pyscf/bin/pip install pyscf).
"""
import json, os, resource, subprocess, sys, time

def loadavg():
    return open('/proc/loadavg').read().split()[0]

def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def run_cisparse(exe, path, method, extra=()):
    t, c = time.perf_counter(), child_cpu()
    out = subprocess.run([exe, 'ci', path, '--method', method, '--json', *extra], capture_output=True, text=True)
    wall = time.perf_counter() - t
    cpu = child_cpu() - c
    if out.returncode != 0:
        return {'method': method, 'error': out.stderr.strip(), 'wall': wall}
    j = json.loads(out.stdout)
    j['wall'] = wall
    j['cpu'] = cpu
    return j

def read_fcidump(path):
    """A plain FCIDUMP reader (PySCF 2.14's fcidump.read rejects the multi-line
    header of shared/ci's files): header keys, then `value i j k l` lines."""
    import re
    import numpy
    text = open(path).read()
    end = re.search(r'(&END|/)\s*\n', text, re.I)
    head, body = text[:end.start()], text[end.end():]
    key = lambda k, d=None: int(re.search(k + r'\s*=\s*(-?\d+)', head, re.I).group(1)) if re.search(k + r'\s*=', head, re.I) else d
    norb, nelec, ms = key('NORB'), key('NELEC'), key('MS2', 0)
    data = numpy.loadtxt(body.replace('D', 'E').splitlines(), ndmin=2)
    v, idx = data[:, 0], data[:, 1:].astype(int) - 1
    h1 = numpy.zeros((norb, norb))
    eri = numpy.zeros((norb,) * 4)
    ecore = 0.0
    for x, (i, j, k, l) in zip(v, idx):
        if i < 0:
            ecore = x
        elif k < 0:
            h1[i, j] = h1[j, i] = x
        else:
            for a, b, c, d in ((i, j, k, l), (j, i, k, l), (i, j, l, k), (j, i, l, k),
                               (k, l, i, j), (l, k, i, j), (k, l, j, i), (l, k, j, i)):
                eri[a, b, c, d] = x
    return norb, nelec, ms, h1, eri, ecore

def run_pyscf(path, nsig):
    import numpy
    from pyscf import fci, lib
    t0 = time.perf_counter()
    norb, nelec, ms, h1, eri, ecore = read_fcidump(path)
    t_read = time.perf_counter() - t0
    neleca, nelecb = (nelec + ms) // 2, (nelec - ms) // 2
    solver = fci.direct_spin1.FCI()
    solver.conv_tol = 1e-10
    nsig_kernel = [0]
    contract = fci.direct_spin1.contract_2e
    def counted(*a, **k):
        nsig_kernel[0] += 1
        return contract(*a, **k)
    solver.contract_2e = counted
    t1, c1 = time.perf_counter(), time.process_time()
    e, c = solver.kernel(h1, eri, norb, (neleca, nelecb), ecore=ecore)
    t_kernel, cpu_kernel = time.perf_counter() - t1, time.process_time() - c1
    # one sigma as the kernel does it: h2e with h1 absorbed, link tables once
    h2e = fci.direct_spin1.absorb_h1e(h1, eri, norb, (neleca, nelecb), 0.5)
    link = fci.direct_spin1._unpack(norb, (neleca, nelecb), None)
    fci.direct_spin1.contract_2e(h2e, c, norb, (neleca, nelecb), link)  # warm
    t2 = time.perf_counter()
    for _ in range(nsig):
        fci.direct_spin1.contract_2e(h2e, c, norb, (neleca, nelecb), link)
    t_sigma = (time.perf_counter() - t2) / nsig
    return {'energy': float(e), 'read': t_read, 'kernel': t_kernel, 'sigma': t_sigma, 'cpu': cpu_kernel,
            'products': nsig_kernel[0],
            'determinants': int(c.size), 'threads': lib.num_threads(), 'version': __import__('pyscf').__version__}

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    exe, path = sys.argv[1], sys.argv[2]
    stored = '--stored' in sys.argv or '--stored-symmetric' in sys.argv
    extra = ['--symmetric'] if '--stored-symmetric' in sys.argv else []
    nsig = int(sys.argv[sys.argv.index('--sigmas') + 1]) if '--sigmas' in sys.argv else 5
    rep = int(sys.argv[sys.argv.index('--repeat') + 1]) if '--repeat' in sys.argv else 1
    if '--tol' in sys.argv:
        extra_all = ['--tol', sys.argv[sys.argv.index('--tol') + 1]]
    else:
        extra_all = []
    print(f'# {path}  OMP_NUM_THREADS={os.environ.get("OMP_NUM_THREADS", "unset")}  nproc={os.cpu_count()}')
    rows = []
    for _ in range(rep):
        la = loadavg()
        d = run_cisparse(exe, path, 'direct', extra_all)
        rows.append(('cisparse direct', d, la, loadavg()))
        if stored:
            la = loadavg()
            s = run_cisparse(exe, path, 'stored', extra + extra_all)
            rows.append(('cisparse stored' + (' --symmetric' if extra else ''), s, la, loadavg()))
        la = loadavg()
        p = run_pyscf(path, nsig)
        rows.append(('pyscf direct_spin1', p, la, loadavg()))
    print(f'cisparse options: {" ".join(extra_all) or "defaults (--tol 1e-8)"}')
    print('| program | determinants | setup/build (s) | one sigma/SpMV (s) | products | solve (s) | total wall (s) | total CPU (s) | energy (Eh) | load avg before/after |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for name, r, l0, l1 in rows:
        if 'error' in r:
            print(f'| {name} | error: {r["error"]} | | | | | {r["wall"]:.1f} | | | {l0}/{l1} |')
        elif name.startswith('pyscf'):
            print(f'| {name} {r["version"]} ({r["threads"]} threads) | {r["determinants"]} | read {r["read"]:.2f} | {r["sigma"]:.4f} | {r["products"]} | kernel {r["kernel"]:.2f} | {r["read"] + r["kernel"]:.2f} | kernel {r["cpu"]:.2f} | {r["energy"]:.10f} | {l0}/{l1} |')
        else:
            setup = r.get('setup_seconds', r.get('build_seconds'))
            per = r.get('sigma_seconds', r.get('spmv_seconds'))
            print(f'| {name} | {r["determinants"]} | {setup:.2f} | {per:.4f} | {r["products"]} | {r["solve_seconds"]:.2f} | {r["total_seconds"]:.2f} (process {r["wall"]:.2f}) | process {r["cpu"]:.2f} | {r["roots"][0]["energy"]:.10f} | {l0}/{l1} |')

if __name__ == '__main__':
    main()
