#!/usr/bin/env python3
"""plot.py JSON PREFIX: charts from `cisparse bench --json` output, in the
manner of the paper's Figures 5-7 (Mahmoud, Hoffmann, Reza 2018):
  PREFIX_kernels.png  time and % of measured bandwidth of every kernel and
                      cuSPARSE algorithm (Table 9 / Figure 7);
  PREFIX_block.png    hyb-paper time against block size (Tables 6-8, Figs 5-6),
                      when the run had --sweep-block;
  PREFIX_slice.png    sell time against slice size (SELL report), when the
                      run had --sweep-slice.
Needs matplotlib."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py BENCH.json PREFIX")
    with open(sys.argv[1]) as f:
        run = json.load(f)
    prefix = sys.argv[2]
    ok = [r for r in run["results"] if "ms" in r]
    title = f'{run["matrix"]} ({run["rows"]} rows, {run["nnz"]} nnz, {run["precision"]})'

    main_rows = [r for r in ok if not r["kernel"].startswith("sell S=")
                 and not (r["kernel"] == "hyb-paper" and r["block"])]
    if main_rows:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        names = [r["kernel"] for r in main_rows]
        colors = ["tab:gray" if r["cusparse"] else "tab:blue" for r in main_rows]
        ax.bar(names, [r["ms"] for r in main_rows], color=colors)
        ax.set_ylabel("SpMV time (ms)")
        ax.set_title(title + "\n" + run["device"], fontsize=9)
        ax.tick_params(axis="x", rotation=60, labelsize=8)
        if run["gpu"]:
            ax2 = ax.twinx()
            ax2.plot(names, [r["pct_bw"] for r in main_rows], "o", color="tab:red")
            ax2.set_ylabel("% of measured read bandwidth", color="tab:red")
            ax2.set_ylim(0, 110)
        fig.tight_layout()
        fig.savefig(prefix + "_kernels.png", dpi=120)
        print("wrote", prefix + "_kernels.png")

    for key, rows, xlabel, out in (
        ("block", [r for r in ok if r["kernel"] == "hyb-paper" and r["block"]],
         "threads per block (hyb-paper, Algorithm 7)", "_block.png"),
        ("slice", [r for r in ok if r["kernel"].startswith("sell S=")],
         "slice size S (sell)", "_slice.png"),
    ):
        if not rows:
            continue
        xs = [r["block"] if key == "block" else int(r["kernel"].split("=")[1]) for r in rows]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(xs, [r["ms"] for r in rows], "o-")
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("SpMV time (ms)")
        ax.set_title(title, fontsize=9)
        fig.tight_layout()
        fig.savefig(prefix + out, dpi=120)
        print("wrote", prefix + out)


if __name__ == "__main__":
    main()
