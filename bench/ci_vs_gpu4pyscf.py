#!/usr/bin/env python3
"""ci_vs_gpu4pyscf.py: the direct CI sigma and the FCI solve on one GPU, cisparse
(`cisparse ci FILE --method direct --device gpu --time-sigma --json`) beside gpu4pyscf
(gpu4pyscf.fci.direct_spin1: contract_2e and FCISolver.kernel), on the same
FCIDUMPs in one run.

gpu4pyscf, per file: the integrals read by pyscf.tools.fcidump, h2e =
absorb_h1e(h1, eri, norb, nelec, 0.5), the link lists prepared on the device
once; one sigma = contract_2e(h2e, c, norb, nelec, links) on a normalised
random device vector, CUDA-synchronised before and after, median of
--repeats after one warm-up; solve = FCISolver().kernel(h1, eri, norb, nelec,
ecore) wall time (its defaults: conv_tol 1e-10, residual sqrt(1e-10) = 1e-5,
max_space 12), --solves runs, the median reported.

cisparse, per file: the CLI in a subprocess, --solves runs; one sigma =
gpu.sigma_ms (median of 5 synchronised sigmas on a random vector),
solve = to_solution_seconds (after the parse: strings, links, pair matrix,
diagonal, uploads, P-space guess, Davidson, <S^2>). Two tolerances: the
default (--tol 1e-8 residual, 1e-10 energy change) and --tol 1e-5 (residual),
the convergence test gpu4pyscf's kernel uses.

Floor per sigma: FLOPs 2 npair^2 ndet at 67 TFLOP/s (FP64 tensor cores) and,
for the unfused gather / GEMM / scatter, bytes 4 * 8 npair ndet (D written,
read by the GEMM, X written, read by the scatter) at 4.3 TB/s.

usage: python3 bench/ci_vs_gpu4pyscf.py --cisparse build/cisparse [--repeats 7] [--solves 2]
          [--json OUT.json] FCIDUMP...
"""
import argparse, json, math, statistics, subprocess, sys, time

FP64_TC = 67e12  # FP64 tensor cores, H100 SXM and H200 alike
HBM_OF = {'H100': 3.35e12, 'H200': 4.3e12}  # H100: its spec (the issue's floor); H200: measured streaming read


def device_bandwidth():
    """The card's name and the HBM bandwidth its floor uses (nvidia-smi's first GPU)."""
    try:
        name = subprocess.run(['nvidia-smi', '--query-gpu=name', '--format=csv,noheader'], capture_output=True,
                              text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        name = 'unknown'
    return name, next((v for k, v in HBM_OF.items() if k in name), HBM_OF['H200'])


def read_fcidump(path):
    """NORB, NELEC, MS2, h1 (norb x norb), eri (norb^4, 8-fold symmetry filled), ECORE:
    a plain reader (pyscf.tools pulls in libxc, which the packed site leaves out)."""
    import re
    import numpy as np
    text = open(path).read()
    end = re.search(r'(&END|/)\s*\n', text)
    head, body = text[:end.start()], text[end.end():]
    num = lambda key: int(re.search(key + r'\s*=\s*(-?\d+)', head, re.I).group(1))
    norb, nelec = num('NORB'), num('NELEC')
    ms = num('MS2') if re.search('MS2', head, re.I) else 0
    h1, eri, ecore = np.zeros((norb, norb)), np.zeros((norb,) * 4), 0.0
    for line in body.splitlines():
        f = line.split()
        if len(f) < 5:
            continue
        v = float(f[0].replace('D', 'E').replace('d', 'e'))
        i, j, k, l = (int(x) - 1 for x in f[1:5])
        if i < 0:
            ecore = v
        elif k < 0:
            h1[i, j] = h1[j, i] = v
        else:
            for a, b, c, d in ((i, j, k, l), (j, i, k, l), (i, j, l, k), (j, i, l, k)):
                eri[a, b, c, d] = eri[c, d, a, b] = v
    return norb, nelec, ms, h1, eri, ecore


def g4p_case(path, repeats, solves):
    import cupy as cp
    import numpy as np
    from pyscf.fci import direct_spin1 as cpu_spin1
    from gpu4pyscf.fci import direct_spin1 as g
    norb, nelec, ms, h1, eri, ecore = read_fcidump(path)
    na_el, nb_el = (nelec + ms) // 2, (nelec - ms) // 2
    h2e = cp.asarray(cpu_spin1.absorb_h1e(h1, eri, norb, (na_el, nb_el), .5))
    links = g._prepare_link_index(cpu_spin1._unpack(norb, (na_el, nb_el), None), norb)
    na, nb = math.comb(norb, na_el), math.comb(norb, nb_el)
    rng = np.random.default_rng(7)
    c = cp.asarray(rng.standard_normal((na, nb)))
    c /= cp.linalg.norm(c)
    g.contract_2e(h2e, c, norb, (na_el, nb_el), links)  # warm-up (compiles the kernels)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        g.contract_2e(h2e, c, norb, (na_el, nb_el), links)
        cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
    solve, energy = [], None
    for _ in range(solves):
        s = g.FCISolver()
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        e, _ = s.kernel(h1, eri, norb, (na_el, nb_el), ecore=ecore)
        cp.cuda.Device().synchronize()
        solve.append(time.perf_counter() - t)
        energy = float(e)
        del s, _
        cp.get_default_memory_pool().free_all_blocks()
    del h2e, links, c
    cp.get_default_memory_pool().free_all_blocks()
    return {'norb': norb, 'ndet': na * nb, 'sigma_ms': 1e3 * statistics.median(times), 'sigma_runs_ms':
            [1e3 * x for x in times], 'solve_s': statistics.median(solve), 'solve_runs_s': solve, 'energy': energy}


def cis_case(exe, path, solves, tol, repeat):
    runs, last, walls = [], None, []
    for _ in range(solves):
        cmd = ([exe, 'ci', path, '--method', 'direct', '--device', 'gpu', '--time-sigma', '--json', '--repeat', str(repeat)] +
               (['--tol', tol] if tol else []))
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if p.returncode != 0:
            return {'error': (p.stderr or p.stdout).strip()[-400:], 'command': ' '.join(cmd)}
        last = json.loads(p.stdout)
        runs.append(last)
    # every second of the last process: its parse, the solves (to solution, the
    # sigma timing, <S^2>: total_seconds) and what lies outside them (start-up,
    # CUDA's context, exit)
    account = {'wall_s': walls[-1], 'parse_s': last['parse_seconds'], 'total_s': last['total_seconds'],
               'outside_s': walls[-1] - last['parse_seconds'] - last['total_seconds']}
    return {'command': ' '.join(cmd), 'sigma_ms': statistics.median(r['gpu']['sigma_ms'] for r in runs),
            'sigma_half_ms': statistics.median(r['gpu']['sigma_half_ms'] or float('nan') for r in runs),  # null: no half sigma
            'half_sigmas': last['half_sigmas'], 's2_s': last['s2_seconds'],
            'solve_s': statistics.median(r['to_solution_seconds'] for r in runs),
            'solve_runs_s': [r['to_solution_seconds'] for r in runs], 'davidson_s': last['solve_seconds'],
            'setup_s': last['setup_seconds'], 'iterations': last['iterations'], 'products': last['products'],
            'energy': last['roots'][0]['energy'], 'gpu': last['gpu'], 'npair': last['npair'],
            'ndet': last['vector_length'], 'account': account}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('files', nargs='+')
    ap.add_argument('--cisparse', required=True)
    ap.add_argument('--repeats', type=int, default=7)
    ap.add_argument('--solves', type=int, default=2)
    ap.add_argument('--json')
    ap.add_argument('--skip-g4p', action='store_true')
    ap.add_argument('--repeat', type=int, default=2, help="cisparse's --repeat: the last (warm) run's time to solution")
    a = ap.parse_args()
    card, hbm = device_bandwidth()
    print(f'device: {card}, floor at {hbm / 1e12:.2f} TB/s and {FP64_TC / 1e12:.0f} TFLOP/s', flush=True)
    out = []
    for f in a.files:
        row = {'file': f}
        print(f'== {f}', flush=True)
        row['cisparse'] = cis_case(a.cisparse, f, a.solves, None, a.repeat)
        print('  cisparse   ', json.dumps(row['cisparse'])[:400], flush=True)
        row['cisparse_tol1e-5'] = cis_case(a.cisparse, f, a.solves, '1e-5', a.repeat)
        print('  cisparse-5 ', json.dumps(row['cisparse_tol1e-5'])[:400], flush=True)
        if not a.skip_g4p:
            try:
                row['gpu4pyscf'] = g4p_case(f, a.repeats, a.solves)
            except Exception as e:  # report, go on with the next file
                row['gpu4pyscf'] = {'error': f'{type(e).__name__}: {e}'[:400]}
            print('  gpu4pyscf  ', json.dumps(row['gpu4pyscf'])[:400], flush=True)
        c = row['cisparse']
        if 'npair' in c:
            flops = 2.0 * c['npair'] ** 2 * c['ndet']
            byts = 4 * 8.0 * c['npair'] * c['ndet']
            row['floor_ms'] = {'gemm_flops_ms': 1e3 * flops / FP64_TC, 'dx_bytes_ms': 1e3 * byts / hbm,
                               'vectors_only_ms': 1e3 * 16.0 * c['ndet'] / hbm}
        out.append(row)
        if a.json:  # after every file: a time limit keeps what was measured
            with open(a.json, 'w') as fh:
                json.dump(out, fh, indent=1)
    print(f'\n{card}: cisparse --repeat {a.repeat} (the warm run\'s time to solution), gpu4pyscf the median of '
          f'{a.solves} solves in one process; floor at {hbm / 1e12:.2f} TB/s')
    print('| case | determinants | gpu4pyscf sigma ms | cisparse sigma ms (full / half) | speed-up (full / half) | '
          'gpu4pyscf solve s | cisparse solve s (tol 1e-8 / 1e-5) | solve ratio (1e-5) | floor ms (GEMM / D,X bytes, '
          'full) | floor reached (full) | process: wall = parse + runs + outside (s) | energy diff |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|')
    for row in out:
        c, c5, g4 = row['cisparse'], row['cisparse_tol1e-5'], row.get('gpu4pyscf', {})
        if 'error' in c:
            print(f"| {row['file']} | error: {c['error'][:120]} |")
            continue
        fl = row['floor_ms']
        gs, gt = g4.get('sigma_ms', float('nan')), g4.get('solve_s', float('nan'))
        de = abs(c['energy'] - g4['energy']) if 'energy' in g4 else float('nan')
        c5s = c5.get('solve_s', float('nan'))
        hs = c['sigma_half_ms'] or float('nan')
        ac = c['account']
        reach = max(fl['gemm_flops_ms'], fl['dx_bytes_ms']) / c['sigma_ms']
        print(f"| {row['file'].split('/')[-1]} | {c['ndet']:,} | {gs:.3f} | {c['sigma_ms']:.3f} / {hs:.3f} | "
              f"{gs / c['sigma_ms']:.2f}x / {gs / hs:.2f}x | "
              f"{gt:.3f} | {c['solve_s']:.3f} / {c5s:.3f} | {gt / c5s:.2f}x | {fl['gemm_flops_ms']:.3f} / "
              f"{fl['dx_bytes_ms']:.3f} | {100 * reach:.0f} % | {ac['wall_s']:.2f} = {ac['parse_s']:.2f} + "
              f"{ac['total_s']:.2f} + {ac['outside_s']:.2f} | {de:.1e} |")
    if a.json:
        with open(a.json, 'w') as fh:
            json.dump(out, fh, indent=1)


if __name__ == '__main__':
    sys.exit(main())
