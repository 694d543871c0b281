#!/usr/bin/env python3
"""plot_solvers.py SWEEP.json PREFIX: charts from `cisparse solve --sweep --json`
in the manner of Figure 4 of Aliaga, Perez, Quintana-Orti, Euro-Par 2015:
  PREFIX_fig4.png  one panel per solver x preconditioner; for every version,
                   the change in time and in energy per iteration against
                   cublasL in spin (polling) mode, spin and blocking side by side;
  PREFIX_ms.png    the absolute ms per iteration of the same grid.
Energy is GPU + CPU package where both were measured, else the GPU's (the
"joules_per_iteration_total" of each row); panels without energy show time
only. Without matplotlib: one line saying so, exit status 0 (nothing to plot
is not an error of the sweep)."""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_solvers.py SWEEP.json PREFIX")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: matplotlib is not installed (pip install matplotlib): no PNG written")
        return
    with open(sys.argv[1]) as f:
        run = json.load(f)
    prefix = sys.argv[2]
    rows = run["results"]
    methods = [m for m in ("cg", "bicg", "bicgstab") if any(r["method"] == m for r in rows)]
    preconds = [p for p in ("none", "jacobi") if any(r["precond"] == p for r in rows)]
    versions = []
    for r in rows:
        if r["version"] not in versions:
            versions.append(r["version"])
    syncs = [s for s in ("spin", "blocking", "n/a") if any(r["sync"] == s for r in rows)]
    if not methods or not preconds:
        print("plot: no rows in", sys.argv[1])
        return
    title = (f'{run["matrix"]} ({run["rows"]} rows, {run["nnz"]} nnz), {run["precision"]}, '
             f'{run["format"]} {run.get("kernel", "")}')

    def get(m, p, v, s, key):
        for r in rows:
            if (r["method"], r["precond"], r["version"], r["sync"]) == (m, p, v, s):
                return r.get(key)
        return None

    def pct(x):
        return None if x is None else 100.0 * (x - 1.0)

    # Figure 4: relative time and energy
    fig, axes = plt.subplots(len(methods), len(preconds), figsize=(6 * len(preconds), 3.2 * len(methods)),
                             squeeze=False)
    width = 0.8 / (2 * len(syncs))
    colors = {"spin": ("tab:blue", "tab:orange"), "blocking": ("tab:cyan", "tab:red"),
              "n/a": ("tab:blue", "tab:orange")}
    for i, m in enumerate(methods):
        for j, p in enumerate(preconds):
            ax = axes[i][j]
            k = 0
            for s in syncs:
                for what, key in (("time", "time_vs_cublasL_spin"), ("energy", "energy_vs_cublasL_spin")):
                    xs, ys = [], []
                    for vi, v in enumerate(versions):
                        y = pct(get(m, p, v, s, key))
                        if y is not None:
                            xs.append(vi + (k - len(syncs) + 0.5) * width)
                            ys.append(y)
                    if ys:
                        ax.bar(xs, ys, width, label=f"{what}, {s}",
                               color=colors[s][0 if what == "time" else 1])
                    k += 1
            ax.axhline(0, color="black", linewidth=0.6)
            ax.set_xticks(range(len(versions)), versions, fontsize=8)
            ax.set_ylabel("% vs cublasL, spin")
            ax.set_title(f"{m}, precond {p}", fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8, bbox_to_anchor=(0.5, 0.945))
    fig.suptitle(title + "\nper iteration, change against cublasL in spin (polling) mode", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.90))
    fig.savefig(prefix + "_fig4.png", dpi=120)
    print("wrote", prefix + "_fig4.png")

    # absolute ms per iteration
    fig, axes = plt.subplots(len(methods), len(preconds), figsize=(6 * len(preconds), 3.2 * len(methods)),
                             squeeze=False)
    width = 0.8 / len(syncs)
    for i, m in enumerate(methods):
        for j, p in enumerate(preconds):
            ax = axes[i][j]
            for k, s in enumerate(syncs):
                xs, ys = [], []
                for vi, v in enumerate(versions):
                    y = get(m, p, v, s, "ms_per_iteration")
                    if y is not None:
                        xs.append(vi + (k - (len(syncs) - 1) / 2) * width)
                        ys.append(y)
                if ys:
                    ax.bar(xs, ys, width, label=s)
            ax.set_xticks(range(len(versions)), versions, fontsize=8)
            ax.set_ylabel("ms per iteration")
            ax.set_title(f"{m}, precond {p}", fontsize=9)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(prefix + "_ms.png", dpi=120)
    print("wrote", prefix + "_ms.png")


if __name__ == "__main__":
    main()
