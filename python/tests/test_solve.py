"""cisparse.solve on the host: methods, Jacobi, precisions, results, failures."""
import numpy as np
import pytest

import cisparse


@pytest.mark.parametrize("method", ["cg", "bicg", "bicgstab"])
@pytest.mark.parametrize("precond", [None, "jacobi"])
@pytest.mark.parametrize("precision", ["double", "single", "mixed"])
def test_solve_spd(spd, method, precond, precision):
    A = cisparse.from_scipy(spd, format="ell")
    xstar = np.ones(spd.shape[0])
    b = spd @ xstar
    tol = 1e-5 if precision == "single" else 1e-10
    x, r = cisparse.solve(A, b, method=method, precond=precond, precision=precision, tol=tol, maxit=2000)
    assert r.converged and r.status == "ok" and r.end == "converged", r.message
    assert r.iterations > 0 and r.device == "cpu" and r.version == "host"
    assert x.dtype == (np.float32 if precision == "single" else np.float64)
    assert r.true_residual <= (1e-4 if precision == "single" else 1e-9)
    assert np.abs(x - xstar).max() <= (1e-2 if precision == "single" else 1e-6)
    if precision == "mixed":
        assert r.outer_iterations >= 1


def test_solve_nonsymmetric_and_history(nonsym):
    b = nonsym @ np.ones(500)
    x, r = cisparse.solve(nonsym, b, method="bicgstab", precond="jacobi", tol=1e-12, history=True)
    assert r.converged and np.allclose(x, 1.0, atol=1e-9)
    assert r.residuals[0] == pytest.approx(1.0) and r.residuals.size >= r.iterations
    assert np.all(np.isfinite(r.residuals))


def test_solve_x0_and_not_converged(spd):
    b = spd @ np.ones(spd.shape[0])
    x, r = cisparse.solve(spd, b, x0=np.ones(spd.shape[0]))
    assert r.converged and r.iterations == 0
    x, r = cisparse.solve(spd, b, maxit=3)
    assert not r.converged and r.status == "not converged" and r.end == "maxit reached"
    assert "maxit" in r.message and r.iterations == 3


def test_solve_errors(spd, nonsym):
    import scipy.sparse as sp
    with pytest.raises(cisparse.CisparseError, match="unknown|cg"):
        cisparse.solve(spd, np.ones(1000), method="gmres")
    with pytest.raises(cisparse.CisparseError, match="square"):
        cisparse.solve(sp.random(5, 4, density=0.5, format="csr"), np.ones(5))
    z = spd.tolil()
    z[0, 0] = 0
    with pytest.raises(cisparse.CisparseError, match="zero"):
        cisparse.solve(z.tocsr(), np.ones(1000), precond="jacobi")
    with pytest.raises(ValueError):
        cisparse.solve(spd, np.ones(1000), precision="half")
