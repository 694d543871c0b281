"""The GPU path: to_device, CuPy vectors, cupyx LinearOperator, device
solves. Skipped with the reason where no GPU (or no CuPy) is present."""
import numpy as np
import pytest
import scipy.sparse as sp

import cisparse
from conftest import gpu


@gpu
@pytest.mark.parametrize("fmt", ["csr", "ell", "sell", "hyb", "csr5"])
def test_device_spmv(fmt, rng):
    import cupy as cp
    A = sp.random(4000, 3000, density=0.01, random_state=5, format="csr")
    M = cisparse.from_scipy(A, format=fmt).to_device()
    assert M.on_device and M.info()["device_bytes"] > 0
    x = rng.standard_normal(3000)
    y = M.spmv(cp.asarray(x))
    assert isinstance(y, cp.ndarray)
    np.testing.assert_allclose(y.get(), A @ x, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="CuPy"):
        M.spmv(x)


@gpu
@pytest.mark.parametrize("fmt", ["csr", "hyb"])  # csr: cis_gpu_spmm; hyb: SpMV per column
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 3, 8, 20])
@pytest.mark.parametrize("order", ["C", "F"])
def test_device_matmul_block(fmt, dtype, k, order, rng):
    import cupy as cp
    A = sp.random(4000, 3000, density=0.01, random_state=5, format="csr")
    M = cisparse.from_scipy(A, format=fmt, dtype=dtype).to_device()
    X = np.asarray(rng.standard_normal((3000, k)), dtype=dtype, order=order)

    Y = M @ cp.asarray(X, order=order)

    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert isinstance(Y, cp.ndarray) and Y.shape == (4000, k) and Y.dtype == dtype
    np.testing.assert_allclose(Y.get(), A.astype(dtype) @ X, rtol=tol, atol=tol)
    with pytest.raises(ValueError, match="CuPy"):
        M @ X
    with pytest.raises(ValueError, match="3000"):
        M @ cp.ones((2999, k))


@gpu
def test_device_linear_operator_and_cupy_solver(spd):
    import cupy as cp
    from cupyx.scipy.sparse.linalg import LinearOperator, cg
    M = cisparse.from_scipy(spd, format="ell").to_device()
    L = M.aslinearoperator()
    assert isinstance(L, LinearOperator)
    b = cp.asarray(spd @ np.ones(spd.shape[0]))
    import inspect
    key = "rtol" if "rtol" in inspect.signature(cg).parameters else "tol"
    x, info = cg(L, b, maxiter=2000, **{key: 1e-10})
    assert info == 0 and float(cp.abs(x - 1).max()) < 1e-6


@gpu
@pytest.mark.parametrize("version", ["cublasL", "cublasN", "cuda", "merge", "merge_10", "graph"])
def test_device_solve_versions(spd, version):
    import cupy as cp
    M = cisparse.from_scipy(spd, format="csr").to_device()
    b = cp.asarray(spd @ np.ones(spd.shape[0]))
    x, r = cisparse.solve(M, b, method="cg", precond="jacobi", version=version, rtol=1e-10)
    assert r.converged and r.device == "gpu" and r.version == version, r.message
    assert isinstance(x, cp.ndarray) and float(cp.abs(x - 1).max()) < 1e-6 and r.true_residual < 1e-9


@gpu
def test_from_cupy():
    import cupy as cp
    import cupyx.scipy.sparse as csp
    A = sp.random(200, 200, density=0.05, random_state=6, format="csr")
    M = cisparse.Matrix.from_cupy(csp.csr_matrix(A), format="hyb")
    assert M.on_device
    np.testing.assert_allclose(M.spmv(cp.ones(200)).get(), A @ np.ones(200), rtol=1e-12)
