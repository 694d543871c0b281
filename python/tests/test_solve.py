"""cisparse.solve on the host: methods, Jacobi, precisions, results, failures,
SciPy's conventions (info, rtol/atol, M, maxiter)."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import cisparse


@pytest.mark.parametrize("method", ["cg", "bicg", "bicgstab"])
@pytest.mark.parametrize("precond", [None, "jacobi"])
@pytest.mark.parametrize("precision", ["double", "single", "mixed"])
def test_solve_spd(spd, method, precond, precision):
    A = cisparse.from_scipy(spd, format="ell")
    xstar = np.ones(spd.shape[0])
    b = spd @ xstar
    tol = 1e-5 if precision == "single" else 1e-10
    x, r = cisparse.solve(A, b, method=method, precond=precond, precision=precision, rtol=tol, maxit=2000)
    assert r.converged and r.status == "ok" and r.end == "converged", r.message
    assert r.iterations > 0 and r.device == "cpu" and r.version == "host"
    assert x.dtype == (np.float32 if precision == "single" else np.float64)
    assert r.true_residual <= (1e-4 if precision == "single" else 1e-9)
    assert np.abs(x - xstar).max() <= (1e-2 if precision == "single" else 1e-6)
    if precision == "mixed":
        assert r.outer_iterations >= 1


def test_solve_nonsymmetric_and_history(nonsym):
    b = nonsym @ np.ones(500)
    x, r = cisparse.solve(nonsym, b, method="bicgstab", precond="jacobi", rtol=1e-12, history=True)
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


def test_info_is_scipys(spd):
    b = spd @ np.ones(spd.shape[0])

    x, info = cisparse.solve(spd, b, rtol=1e-10)
    _, info_scipy = spla.cg(spd, b, rtol=1e-10, maxiter=1000)

    assert isinstance(info, int) and info == 0 == info_scipy and not info and str(info) == "0"
    assert info.converged and info.iterations > 0 and repr(info).startswith("SolveResult(0, status='ok'")

    x, info = cisparse.solve(spd, b, maxiter=3)
    _, info_scipy = spla.cg(spd, b, maxiter=3)

    assert info == 3 == info_scipy and info and not info.converged and info.iterations == 3
    assert info.end == "maxit reached" and "maxit" in info.message


@pytest.mark.parametrize("method, A, b, code, end", [
    ("cg", sp.diags([1.0, -1.0]), [1.0, 1.0], -10, "p^T A p"),            # A not positive definite
    ("bicgstab", sp.csr_matrix([[0.0, 1.0], [-1.0, 0.0]]), [1.0, 0.0], -11, "(r^, v) = 0"),
])
def test_breakdown_info_negative(method, A, b, code, end):
    x, info = cisparse.solve(A, np.array(b), method=method)

    assert info == code and not info.converged and end in info.end, repr(info)


def test_rtol_atol_and_tol_deprecated(spd):
    b = spd @ np.ones(spd.shape[0])
    bnorm = np.linalg.norm(b)

    _, tight = cisparse.solve(spd, b, rtol=1e-12)
    _, loose = cisparse.solve(spd, b, rtol=1e-12, atol=1e-3 * bnorm)  # SciPy: ||r|| <= max(rtol ||b||, atol)
    with pytest.warns(DeprecationWarning, match="rtol"):
        _, old = cisparse.solve(spd, b, tol=1e-6)

    assert tight == 0 and tight.rtol == 1e-12 and tight.rel_residual <= 1e-12
    assert loose == 0 and loose.rtol == pytest.approx(1e-3) and 1e-12 < loose.rel_residual <= 1e-3
    assert loose.iterations < tight.iterations
    assert old == 0 and old.rtol == 1e-6
    with pytest.raises(TypeError, match="rtol or tol"):
        cisparse.solve(spd, b, tol=1e-6, rtol=1e-6)


def test_M_jacobi_and_refused_preconditioners(spd):
    b = spd @ np.ones(spd.shape[0])
    _, by_precond = cisparse.solve(spd, b, precond="jacobi")

    x, info = cisparse.solve(spd, b, M="jacobi")

    assert info == 0 and info.precond == "jacobi" and info.iterations == by_precond.iterations
    for M in (sp.identity(spd.shape[0], format="csr"), spla.aslinearoperator(sp.identity(spd.shape[0])),
              np.ones(spd.shape[0])):
        with pytest.raises(TypeError, match="M must be None or 'jacobi'.*aslinearoperator"):
            cisparse.solve(spd, b, M=M)
    with pytest.raises(ValueError, match="'ilu'"):
        cisparse.solve(spd, b, M="ilu")
    with pytest.raises(TypeError, match="M or precond"):
        cisparse.solve(spd, b, M="jacobi", precond="jacobi")


def test_maxiter_is_maxit(spd):
    b = spd @ np.ones(spd.shape[0])

    _, a = cisparse.solve(spd, b, maxiter=5)
    _, c = cisparse.solve(spd, b, maxit=5)

    assert a == c == 5
    with pytest.raises(TypeError, match="maxiter or maxit"):
        cisparse.solve(spd, b, maxit=5, maxiter=5)
    with pytest.raises(ValueError, match="maxiter"):
        cisparse.solve(spd, b, maxiter=0)
