"""cisparse.plot: PNGs from small `bench` and `solve --sweep` JSON (skipped
without matplotlib), and the usage status."""
import json

import pytest

from cisparse import plot

SPMV_RUN = {
    "matrix": "lap2d:n=8", "rows": 64, "nnz": 288, "precision": "double", "device": "cpu", "gpu": 0,
    "results": [
        {"kernel": "csr", "ms": 0.010, "cusparse": 0, "block": 0},
        {"kernel": "hyb-paper", "ms": 0.012, "cusparse": 0, "block": 0},
        {"kernel": "hyb-paper", "ms": 0.011, "cusparse": 0, "block": 64},
        {"kernel": "hyb-paper", "ms": 0.013, "cusparse": 0, "block": 128},
        {"kernel": "sell S=8", "ms": 0.009, "cusparse": 0, "block": 0},
        {"kernel": "sell S=16", "ms": 0.008, "cusparse": 0, "block": 0},
        {"kernel": "ell", "note": "skipped"},
    ],
}


def _sweep_row(method, precond, ms):
    return {"method": method, "precond": precond, "version": "host", "sync": None, "ms_per_iteration": ms,
            "time_vs_cublasL_spin": 1.0, "energy_vs_cublasL_spin": None}


SOLVERS_RUN = {
    "matrix": "lap3d:n=8", "rows": 512, "nnz": 3200, "precision": "double", "format": "csr", "kernel": "",
    "results": [_sweep_row("cg", "none", 0.02), _sweep_row("cg", "jacobi", 0.03),
                _sweep_row("bicgstab", "none", 0.05)],
}


@pytest.mark.parametrize("kind, run, suffixes", [
    ("spmv", SPMV_RUN, ["_kernels.png", "_block.png", "_slice.png"]),
    ("solvers", SOLVERS_RUN, ["_fig4.png", "_ms.png"]),
])
def test_main_draws_every_chart(tmp_path, capsys, kind, run, suffixes):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(run))
    prefix = str(tmp_path / "fig")

    status = plot.main([kind, str(path), prefix])

    assert status == 0
    out = capsys.readouterr().out
    for suffix in suffixes:
        png = tmp_path / f"fig{suffix}"
        assert png.stat().st_size > 1000
        assert f"wrote {png}" in out


def test_solvers_without_rows_draws_nothing(tmp_path):
    pytest.importorskip("matplotlib")

    assert plot.plot_solvers({"results": []}, str(tmp_path / "fig")) == []
    assert not list(tmp_path.iterdir())


def test_usage_errors_return_2(capsys):
    assert plot.main([]) == 2
    assert plot.main(["pie", "a.json", "p"]) == 2
    assert "usage: python -m cisparse.plot" in capsys.readouterr().err


def test_unreadable_json_is_one_line_and_status_1(tmp_path, capsys):
    # a missing file, a file that is not JSON, JSON of another shape: one
    # line on stderr naming the file, no traceback, status 1
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    for path in (tmp_path / "missing.json", bad, listed):
        assert plot.main(["spmv", str(path), str(tmp_path / "fig")]) == 1
        err = capsys.readouterr().err
        assert err.startswith("plot: ") and str(path) in err and err.count("\n") == 1
        assert "Traceback" not in err


def test_rows_of_another_shape_are_one_line(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "rows.json"
    for run in ({"results": [{"kernel": "csr"}]}, {"results": [3]}):
        path.write_text(json.dumps(run))
        assert plot.main(["spmv", str(path), str(tmp_path / "fig")]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"plot: {path} is not a cisparse spmv run") and err.count("\n") == 1


def test_module_run_on_a_missing_file(tmp_path):
    # python -m cisparse.plot itself: no traceback, nonzero exit
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "cisparse.plot", "spmv", str(tmp_path / "none.json"), "p"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.startswith("plot: cannot read")
