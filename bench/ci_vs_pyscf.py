#!/usr/bin/env python3
"""ci_vs_pyscf.py: FCI on one FCIDUMP with `cisparse ci --method direct`
(and optionally --method stored) and PySCF's fci.direct_spin1, in one run on
the same cores, so the figures compare.

usage: python3 bench/ci_vs_pyscf.py CISPARSE FCIDUMP [--stored | --stored-symmetric] [--sigmas N]

--stored-symmetric runs the stored path with --symmetric (upper triangle,
no format copy: half the memory of the default hyb copy of the CSR).

Prints, per program: setup, time per sigma (PySCF: contract_2e on the
converged-size vector, absorb_h1e and link tables made once, as its kernel
does), solve, total, energy; and the load average before and after (the
machine may be shared). PySCF is imported from the running interpreter
(a venv: python3 -m venv .venv-pyscf && .venv-pyscf/bin/pip install pyscf).
"""
import json, os, subprocess, sys, time

def loadavg():
    return open('/proc/loadavg').read().split()[0]

def run_cisparse(exe, path, method, extra=()):
    t = time.perf_counter()
    out = subprocess.run([exe, 'ci', path, '--method', method, '--json', *extra], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        return {'method': method, 'error': out.stderr.strip(), 'wall': wall}
    j = json.loads(out.stdout)
    j['wall'] = wall
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
    t1 = time.perf_counter()
    e, c = solver.kernel(h1, eri, norb, (neleca, nelecb), ecore=ecore)
    t_kernel = time.perf_counter() - t1
    # one sigma as the kernel does it: h2e with h1 absorbed, link tables once
    h2e = fci.direct_spin1.absorb_h1e(h1, eri, norb, (neleca, nelecb), 0.5)
    link = fci.direct_spin1._unpack(norb, (neleca, nelecb), None)
    fci.direct_spin1.contract_2e(h2e, c, norb, (neleca, nelecb), link)  # warm
    t2 = time.perf_counter()
    for _ in range(nsig):
        fci.direct_spin1.contract_2e(h2e, c, norb, (neleca, nelecb), link)
    t_sigma = (time.perf_counter() - t2) / nsig
    return {'energy': float(e), 'read': t_read, 'kernel': t_kernel, 'sigma': t_sigma,
            'determinants': int(c.size), 'threads': lib.num_threads(), 'version': __import__('pyscf').__version__}

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    exe, path = sys.argv[1], sys.argv[2]
    stored = '--stored' in sys.argv or '--stored-symmetric' in sys.argv
    extra = ['--symmetric'] if '--stored-symmetric' in sys.argv else []
    nsig = int(sys.argv[sys.argv.index('--sigmas') + 1]) if '--sigmas' in sys.argv else 5
    print(f'# {path}  OMP_NUM_THREADS={os.environ.get("OMP_NUM_THREADS", "unset")}  nproc={os.cpu_count()}')
    rows = []
    la = loadavg()
    d = run_cisparse(exe, path, 'direct')
    rows.append(('cisparse direct', d, la, loadavg()))
    if stored:
        la = loadavg()
        s = run_cisparse(exe, path, 'stored', extra)
        rows.append(('cisparse stored' + (' --symmetric' if extra else ''), s, la, loadavg()))
    la = loadavg()
    p = run_pyscf(path, nsig)
    rows.append(('pyscf direct_spin1', p, la, loadavg()))
    print('| program | determinants | setup/build (s) | one sigma/SpMV (s) | products | solve (s) | total (s) | energy (Eh) | load avg before/after |')
    print('|---|---|---|---|---|---|---|---|---|')
    for name, r, l0, l1 in rows:
        if 'error' in r:
            print(f'| {name} | error: {r["error"]} | | | | | {r["wall"]:.1f} | | {l0}/{l1} |')
        elif name.startswith('pyscf'):
            print(f'| {name} {r["version"]} ({r["threads"]} threads) | {r["determinants"]} | read {r["read"]:.2f} | {r["sigma"]:.4f} | | kernel {r["kernel"]:.2f} | {r["read"] + r["kernel"]:.2f} | {r["energy"]:.10f} | {l0}/{l1} |')
        else:
            setup = r.get('setup_seconds', r.get('build_seconds'))
            per = r.get('sigma_seconds', r.get('spmv_seconds'))
            print(f'| {name} | {r["determinants"]} | {setup:.2f} | {per:.4f} | {r["products"]} | {r["solve_seconds"]:.2f} | {r["total_seconds"]:.2f} (process {r["wall"]:.2f}) | {r["roots"][0]["energy"]:.10f} | {l0}/{l1} |')

if __name__ == '__main__':
    main()
