#!/usr/bin/env python3
"""sell_study.py DIR [PNG] [MD]: the table and figure of the SELL slice-size
study (bench/sell_study.sh wrote one `cisparse bench --csv` file per matrix
into DIR), shaped like the SELL report's (IPSJ 2018-HPC-164) GFLOP/s figure:
per matrix, our SELL and SELL-C-sigma at S = 16 ... 1024 beside cuSPARSE CSR
and SELL. Also: the automatic choice (`auto`) against the best cisparse
kernel of the same run, and the stored bytes per nonzero of each format.
Writes markdown to MD (default DIR/sell-study-tables.md) and the PNG
(default DIR/sell-study.png) when matplotlib is present."""
import csv
import glob
import os
import sys

SIZES = [16, 32, 64, 128, 256, 512, 1024]
CUS = ["cusparse-csr-alg1", "cusparse-sell-alg1"]


def load(d):
    mats = {}
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        with open(path) as f:
            lines = list(csv.reader(line for line in f if not line.startswith("#")))
        head, rows = lines[0], []
        for r in lines[1:]:  # files written before the matrix field was quoted: a spec's commas
            extra = len(r) - len(head)
            rows.append(dict(zip(head, [",".join(r[:extra + 1])] + r[extra + 1:])))
        ok = [r for r in rows if not r["note"]]
        if not ok:
            continue
        name = os.path.basename(path)[:-4]
        mats[name] = {"nnz": int(ok[0]["nnz"]), "rows": int(ok[0]["rows"]),
                      "k": {r["kernel"]: r for r in ok}}
    return mats


def order(mats):
    return sorted(mats, key=lambda m: (m.startswith("laplace"), mats[m]["nnz"]))


def tables(mats):
    out = []
    cols = [f"sell S={s}" for s in SIZES] + [f"sellcs S={s}" for s in SIZES] + CUS
    heads = [c.replace("cusparse-", "cuSP ").replace("-alg1", "") for c in cols]
    out.append("### GFLOP/s (2 nnz / time, double, median of the runs)\n")
    out.append("| matrix | rows | nnz | " + " | ".join(heads) + " | best SELL S | best SELL-C-σ S |")
    out.append("|---|---:|---:|" + "---:|" * len(cols) + "---:|---:|")
    for m in order(mats):
        k = mats[m]["k"]
        g = [float(k[c]["gflops"]) if c in k else None for c in cols]
        best = lambda f: max(SIZES, key=lambda s: float(k.get(f"{f} S={s}", {"gflops": 0})["gflops"]))
        out.append(f"| {m} | {mats[m]['rows']} | {mats[m]['nnz']} | " +
                   " | ".join("-" if v is None else f"{v:.1f}" for v in g) +
                   f" | {best('sell')} | {best('sellcs')} |")
    # how often each slice size wins, and our best against cuSPARSE's best
    out.append("\n### Best slice size (count of matrices) and our best SELL against cuSPARSE\n")
    wins = {f: {s: 0 for s in SIZES} for f in ("sell", "sellcs")}
    ratios = []
    for m in mats:
        k = mats[m]["k"]
        for f in wins:
            s = max(SIZES, key=lambda s: float(k.get(f"{f} S={s}", {"gflops": 0})["gflops"]))
            wins[f][s] += 1
        ours = max(float(k[c]["gflops"]) for c in cols[:-2] if c in k)
        theirs = max(float(k[c]["gflops"]) for c in CUS if c in k)
        s32 = max(float(k[c]["gflops"]) for c in ("sell S=32", "sellcs S=32") if c in k)
        sell = float(k["cusparse-sell-alg1"]["gflops"]) if "cusparse-sell-alg1" in k else float("nan")
        ratios.append((m, ours / theirs, s32 / theirs, ours / sell))
    out.append("| format | " + " | ".join(f"S={s}" for s in SIZES) + " |")
    out.append("|---|" + "---:|" * len(SIZES))
    for f in wins:
        out.append(f"| {f} | " + " | ".join(str(wins[f][s]) for s in SIZES) + " |")
    out.append("\n| matrix | best of our SELL/SELL-C-σ (any S) / best cuSPARSE | at S = 32 / best cuSPARSE "
               "| best of ours / cuSPARSE SELL |")
    out.append("|---|---:|---:|---:|")
    for m, r, r32, rs in sorted(ratios, key=lambda t: order(mats).index(t[0])):
        out.append(f"| {m} | {r:.2f}x | {r32:.2f}x | {rs:.2f}x |")
    n_ge = sum(rs >= 1.0 for _, _, _, rs in ratios)
    out.append(f"\nOur best SELL/SELL-C-σ at or above cuSPARSE SELL on {n_ge} of {len(ratios)} matrices.")
    # auto against the best cisparse kernel of the run
    out.append("\n### `auto` (cis_format_auto) against the best cisparse kernel of the same run\n")
    out.append("| matrix | auto's choice | auto ms | best cisparse kernel | its ms | auto / best | within 5% |")
    out.append("|---|---|---:|---|---:|---:|---|")
    n_ok = 0
    for m in order(mats):
        k = mats[m]["k"]
        a = [r for name, r in k.items() if name.startswith("auto")]
        ours = [r for name, r in k.items() if not name.startswith("cusparse") and not name.startswith("auto")]
        if not a or not ours:
            continue
        b = min(ours, key=lambda r: float(r["ms"]))
        ratio = float(a[0]["ms"]) / float(b["ms"])
        n_ok += ratio <= 1.05
        out.append(f"| {m} | {a[0]['kernel'][6:-1]} | {float(a[0]['ms']):.4f} | {b['kernel']} | "
                   f"{float(b['ms']):.4f} | {ratio:.3f} | {'yes' if ratio <= 1.05 else '**no**'} |")
    out.append(f"\nauto within 5% of the best cisparse kernel on {n_ok} of {len(mats)} matrices.")
    # bytes per nonzero
    fmts = ["csr-scalar", "ell", "ellr", "sell S=32", "sellr", "sellcs S=32", "csb", "csr5", "hyb",
            "cusparse-sell-alg1"]
    out.append("\n### Stored bytes per nonzero (format bytes / nnz; double values, 4-byte indices)\n")
    out.append("| matrix | " + " | ".join(f.replace(" S=32", "") for f in fmts) + " |")
    out.append("|---|" + "---:|" * len(fmts))
    for m in order(mats):
        k, nnz = mats[m]["k"], mats[m]["nnz"]
        out.append(f"| {m} | " + " | ".join(
            f"{int(k[f]['matrix_bytes']) / nnz:.2f}" if f in k else "-" for f in fmts) + " |")
    return "\n".join(out) + "\n"


def figure(mats, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no PNG (the tables are written)")
        return
    names = order(mats)
    fig, axes = plt.subplots(2, 1, figsize=(22, 10), sharex=True)
    colors = plt.cm.viridis([i / (len(SIZES) - 1) for i in range(len(SIZES))])
    for ax, f, title in zip(axes, ("sell", "sellcs"), ("SELL (cisparse, split kernel)", "SELL-C-σ (σ = 1024)")):
        w = 0.9 / (len(SIZES) + 2)
        for i, s in enumerate(SIZES):
            ax.bar([x + i * w for x in range(len(names))],
                   [float(mats[m]["k"].get(f"{f} S={s}", {"gflops": 0})["gflops"]) for m in names],
                   w, color=colors[i], label=f"S={s}")
        for j, (c, col) in enumerate(zip(CUS, ("#d62728", "#ff9896"))):
            ax.bar([x + (len(SIZES) + j) * w for x in range(len(names))],
                   [float(mats[m]["k"].get(c, {"gflops": 0})["gflops"]) for m in names], w, color=col,
                   label=c.replace("cusparse-", "cuSPARSE ").replace("-alg1", "").upper().replace("CUSPARSE", "cuSPARSE"))
        ax.set_yscale("log")
        ax.set_ylabel("GFLOP/s (double, log scale)")
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(ncol=9, fontsize=8, loc="upper left")
    axes[1].set_xticks([x + 0.45 for x in range(len(names))])
    axes[1].set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    fig.suptitle("SpMV GFLOP/s against slice size S on an NVIDIA H200 (the SELL report's study, IPSJ 2018-HPC-164)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else os.path.join(d, "sell-study.png")
    md = sys.argv[3] if len(sys.argv) > 3 else os.path.join(d, "sell-study-tables.md")
    mats = load(d)
    if not mats:
        sys.exit(f"{d}: no bench CSV files")
    with open(md, "w") as f:
        f.write(tables(mats))
    print(f"wrote {md} ({len(mats)} matrices)")
    figure(mats, png)


if __name__ == "__main__":
    main()
