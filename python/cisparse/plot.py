"""Charts from the cisparse tool's JSON (needs matplotlib: pip install 'cisparse[plot]').

    python -m cisparse.plot spmv BENCH.json PREFIX      # from `cisparse bench --json`
    python -m cisparse.plot solvers SWEEP.json PREFIX   # from `cisparse bench --solvers --json`

spmv, in the manner of the paper's Figures 5-7 (Mahmoud, Hoffmann, Reza 2018):
  PREFIX_kernels.png  time and % of measured bandwidth of every kernel and
                      cuSPARSE algorithm (Table 9 / Figure 7);
  PREFIX_block.png    hyb-paper time against block size (Tables 6-8, Figs 5-6),
                      when the run had --sweep-block;
  PREFIX_slice.png    sell time against slice size (SELL report), when the
                      run had --sweep-slice.
solvers, in the manner of Figure 4 of Aliaga, Perez, Quintana-Orti, Euro-Par 2015:
  PREFIX_fig4.png     one panel per solver x preconditioner; for every version,
                      the change in time and in energy per iteration against
                      cublasL in spin (polling) mode, spin and blocking side by side;
  PREFIX_ms.png       the absolute ms per iteration of the same grid.
Energy is GPU + CPU package where both were measured, else the GPU's (the
"joules_per_iteration_total" of each row); panels without energy show time only.

Each function returns the list of files it wrote. Importing this module does
not import matplotlib; drawing does.
"""
import json
import sys

__all__ = ["plot_spmv", "plot_solvers", "main"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, path, written):
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)


def plot_spmv(run, prefix):
    """PREFIX_kernels.png (and _block.png, _slice.png for sweeps) from a
    `cisparse bench --json` run (a dict); returns the paths written."""
    plt = _pyplot()
    written = []
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
            ax2.plot(names, [float("nan") if r["pct_bw"] is None else r["pct_bw"] for r in main_rows], "o",
                     color="tab:red")  # null: no measured bandwidth
            ax2.set_ylabel("% of measured read bandwidth", color="tab:red")
            ax2.set_ylim(0, 110)
        fig.tight_layout()
        _save(plt, fig, prefix + "_kernels.png", written)

    for key, rows, xlabel, suffix in (
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
        _save(plt, fig, prefix + suffix, written)
    return written


def _ordered(rows, key, known=None):
    """The values of rows[*][key] in the order of `known`, else of first appearance."""
    seen = []
    for r in rows:
        if r[key] not in seen:
            seen.append(r[key])
    return [v for v in known if v in seen] if known else seen


def plot_solvers(run, prefix):
    """PREFIX_fig4.png and PREFIX_ms.png from a `cisparse bench --solvers --json`
    run (a dict); returns the paths written (none when it has no rows)."""
    rows = [dict(r, sync=r["sync"] or "n/a") for r in run["results"]]  # null sync: the host loop
    methods = _ordered(rows, "method", ("cg", "bicg", "bicgstab"))
    preconds = _ordered(rows, "precond", ("none", "jacobi"))
    versions = _ordered(rows, "version")
    syncs = _ordered(rows, "sync", ("spin", "blocking", "n/a"))
    if not methods or not preconds:
        return []
    plt = _pyplot()
    written = []
    title = (f'{run["matrix"]} ({run["rows"]} rows, {run["nnz"]} nnz), {run["precision"]}, '
             f'{run["format"]} {run.get("kernel", "")}')

    def get(m, p, v, s, key):
        for r in rows:
            if (r["method"], r["precond"], r["version"], r["sync"]) == (m, p, v, s):
                return r.get(key)
        return None

    def pct(x):
        return None if x is None else 100.0 * (x - 1.0)

    def grid():
        return plt.subplots(len(methods), len(preconds), figsize=(6 * len(preconds), 3.2 * len(methods)),
                            squeeze=False)

    # Figure 4: relative time and energy
    fig, axes = grid()
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
    _save(plt, fig, prefix + "_fig4.png", written)

    # absolute ms per iteration
    fig, axes = grid()
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
    _save(plt, fig, prefix + "_ms.png", written)
    return written


_KINDS = {"spmv": plot_spmv, "solvers": plot_solvers}


def main(argv=None):
    """python -m cisparse.plot {spmv|solvers} JSON PREFIX; returns the exit
    status: 0 drawn (or nothing to draw, said so), 1 matplotlib missing or a
    JSON that cannot be read or is not a run of that kind (one line on
    stderr), 2 usage."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] not in _KINDS:
        print("usage: python -m cisparse.plot {spmv|solvers} JSON PREFIX", file=sys.stderr)
        return 2
    kind, path, prefix = args
    try:
        with open(path) as f:
            run = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as e:  # missing, unreadable, not JSON
        print(f"plot: cannot read {path}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 1
    if not isinstance(run, dict) or not isinstance(run.get("results", []), list):
        print(f"plot: {path} is not a cisparse {kind} run (a JSON object with a 'results' list)", file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"plot: matplotlib is not installed (pip install 'cisparse[plot]'): no PNG written; "
              f"the JSON is in {path}")
        return 1
    try:
        written = _KINDS[kind](run, prefix)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:  # rows of another shape
        what = f"no {e}" if isinstance(e, KeyError) else f"{type(e).__name__}: {e}"
        print(f"plot: {path} is not a cisparse {kind} run ({what})", file=sys.stderr)
        return 1
    if not written:
        print("plot: no rows to draw in", path)
    for w in written:
        print("wrote", w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
