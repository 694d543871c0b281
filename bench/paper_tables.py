#!/usr/bin/env python3
"""paper_tables.py JSON...: the paper's Tables 9/10 shape from `cisparse bench --json`
files, one per matrix: per matrix the time (ms) of each kernel, then min/max/avg
over the matrices and each kernel's speedup over the fastest cuSPARSE algorithm.
Usage: python3 bench/paper_tables.py results/ci32k_s*.json > table.md"""
import json
import sys


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    kernels = []
    for r in runs:
        for k in r["results"]:
            name = k["kernel"] + (f"/{k['block']}" if k.get("block") else "")
            if name not in kernels:
                kernels.append(name)
    times = {k: [] for k in kernels}
    best_cusparse = []
    print("| matrix | nnz | " + " | ".join(kernels) + " |")
    print("|---|---:|" + "---:|" * len(kernels))
    for r in runs:
        row = {}
        for k in r["results"]:
            row[k["kernel"] + (f"/{k['block']}" if k.get("block") else "")] = k["ms"]
        cus = [v for n, v in row.items() if n.startswith("cusparse")]
        best_cusparse.append(min(cus) if cus else float("nan"))
        for k in kernels:
            times[k].append(row.get(k, float("nan")))
        print(f"| {r['matrix']} | {r['nnz']} | " + " | ".join(f"{row.get(k, float('nan')):.4f}" for k in kernels) + " |")
    print()
    print(f"device: {runs[0].get('device', '?')}; measured read bandwidth {runs[0].get('bandwidth_gbs') or 0:.0f} GB/s; "
          f"median of {runs[0].get('runs')} runs; times in ms")
    print()
    print("| kernel | min ms | max ms | avg ms | avg speedup vs fastest cuSPARSE |")
    print("|---|---:|---:|---:|---:|")
    for k in kernels:
        t = [v for v in times[k] if v == v]
        if not t:
            continue
        sp = [b / v for b, v in zip(best_cusparse, times[k]) if v == v and b == b]
        print(f"| {k} | {min(t):.4f} | {max(t):.4f} | {sum(t)/len(t):.4f} | {sum(sp)/len(sp):.2f}x |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
