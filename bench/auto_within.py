#!/usr/bin/env python3
"""auto_within.py: does --format auto lose more than a factor to the best
kernel on the matrix in hand? Runs `cisparse bench MATRIX --json` for every
matrix given (on the GPU when the tool finds one, else the CPU kernels) and
prints, per matrix, auto's pick and time, the best kernel and time, and
their ratio; exit status 1 if any ratio exceeds --limit (default 4).

usage: python3 bench/auto_within.py CISPARSE [--limit 4] [--runs 20] MATRIX...
       (MATRIX: a file or a generator spec, e.g. laplace3d:size=160)
cuSPARSE rows are left out of "best" (they are not a cisparse kernel auto
could pick).
"""
import json, subprocess, sys, tempfile, os


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__.strip().splitlines()[5], file=sys.stderr)
        return 2
    exe = args.pop(0)
    limit, runs = 4.0, '20'
    if '--limit' in args:
        i = args.index('--limit'); limit = float(args[i + 1]); del args[i:i + 2]
    if '--runs' in args:
        i = args.index('--runs'); runs = args[i + 1]; del args[i:i + 2]
    worst = 0.0
    print('| matrix | device | auto | auto ms | best | best ms | auto / best |')
    print('|---|---|---|---|---|---|---|')
    for m in args:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'b.json')
            r = subprocess.run([exe, 'bench', m, '--runs', runs, '--json', out], capture_output=True, text=True)
            if r.returncode != 0:
                print(f'| {m} | error: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode} |')
                worst = float('inf')
                continue
            j = json.load(open(out))
        rows = [x for x in j['results'] if x.get('ms') and not x.get('cusparse')]
        auto = [x for x in rows if x['kernel'].startswith('auto')]
        if not auto:
            print(f'| {m} | no auto row |')
            worst = float('inf')
            continue
        a = auto[0]
        best = min((x for x in rows if not x['kernel'].startswith('auto')), key=lambda x: x['ms'])
        ratio = a['ms'] / best['ms']
        worst = max(worst, ratio)
        dev = 'gpu' if j.get('gpu') else 'cpu'
        print(f"| {m} | {dev} | {a['kernel']} | {a['ms']:.4f} | {best['kernel']} | {best['ms']:.4f} | {ratio:.2f} |")
    print(f'worst auto / best: {worst:.2f} (limit {limit})')
    return 0 if worst <= limit else 1


if __name__ == '__main__':
    sys.exit(main())
