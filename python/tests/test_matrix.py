"""Matrix: from SciPy and from files/specs in every format, info, spmv,
LinearOperator, errors."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import cisparse

FORMATS = cisparse.formats()


def test_version_and_formats():
    assert cisparse.__version__.count(".") == 2
    assert {"csr", "ell", "hyb", "csr5"} <= set(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_spmv_every_format(fmt, dtype, rng):
    A = sp.random(300, 200, density=0.05, random_state=1, format="csr", dtype=np.float64)
    M = cisparse.Matrix.from_scipy(A, format=fmt, dtype=dtype)
    assert M.shape == (300, 200) and M.nnz == A.nnz and M.format == fmt and M.dtype == dtype
    x = rng.standard_normal(200)
    y = M.spmv(x)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(y, A.astype(dtype) @ x.astype(dtype), rtol=tol, atol=tol)
    # alpha, beta and y in place
    y0 = rng.standard_normal(300).astype(dtype)
    y1 = y0.copy()
    M.spmv(x, y1, alpha=2.0, beta=-0.5)
    np.testing.assert_allclose(y1, 2.0 * (A.astype(dtype) @ x.astype(dtype)) - 0.5 * y0, rtol=10 * tol, atol=10 * tol)


def test_sell16_float_values(rng):
    # opt-in: values stored in float32, x, y and the sums float64
    A = sp.random(300, 200, density=0.05, random_state=2, format="csr", dtype=np.float64)
    M = cisparse.Matrix.from_scipy(A, format="sell16", float_values=1)
    D = cisparse.Matrix.from_scipy(A, format="sell16")
    assert M.dtype == np.float64 and M.nbytes < D.nbytes
    x = rng.standard_normal(200)
    np.testing.assert_allclose(M.spmv(x), A.astype(np.float32).astype(np.float64) @ x, rtol=1e-12, atol=1e-12)
    with pytest.raises(cisparse.CisparseError, match="sell16"):
        cisparse.Matrix.from_scipy(A, format="csr", float_values=1)


def test_from_scipy_conventions(rng):
    # COO with duplicates and unsorted entries: summed and sorted as SciPy does
    A = sp.coo_matrix(([1.0, 2.0, 3.0, 4.0], ([2, 0, 2, 1], [1, 0, 1, 2])), shape=(3, 3))
    M = cisparse.from_scipy(A)
    x = np.array([1.0, 10.0, 100.0])
    np.testing.assert_array_equal(M.spmv(x), A.tocsr() @ x)
    assert M.nnz == 3
    # integer values are taken as float64
    Mi = cisparse.from_scipy(sp.csr_matrix(np.eye(3, dtype=np.int64)))
    assert Mi.dtype == np.float64
    # the CSR round trip
    B = sp.random(50, 40, density=0.1, random_state=2, format="csr")
    assert abs(cisparse.from_scipy(B, format="ell").to_scipy() - B).max() == 0


def test_info_matches_cli():
    M = cisparse.load("ci:rows=2048,seed=1", format="hyb")
    d = M.info()
    assert d["rows"] == 2048 and d["nnz"] == M.nnz and d["format"] == "hyb"
    assert d["nnz_ref"] + d["nnz_exp"] == d["nnz"]
    assert d["bytes"] == M.nbytes > 0 and "hyb" in d
    exe = os.environ.get("CISPARSE_CLI")
    if exe:
        import json
        out = subprocess.run([exe, "info", "ci:rows=2048,seed=1", "--json"], capture_output=True, text=True, check=True)
        j = json.loads(out.stdout)
        # the tool takes the Reference region from the ci: spec, the library default is the hybrid boundary
        d2 = M.info(ref_cols=j["reference_cols"])
        assert (d2["nnz_ref"], d2["nnz_exp"], d2["row_max"]) == (j["nnz_reference"], j["nnz_expansion"], j["longest_row"])
        assert j["formats"][[f["name"] for f in j["formats"]].index("hyb")]["bytes"] == M.nbytes


def test_load_file_and_stdin(tmp_path):
    A = sp.random(30, 30, density=0.2, random_state=4, format="coo")
    path = tmp_path / "a.mtx"
    import scipy.io
    scipy.io.mmwrite(str(path), A)
    M = cisparse.load(path)
    x = np.arange(30.0)
    np.testing.assert_allclose(M.spmv(x), A.tocsr() @ x, rtol=1e-14)
    # '-' reads standard input once (a pipe)
    code = ("import cisparse, numpy as np; M = cisparse.load('-'); "
            "print(M.shape[0], M.nnz)")
    with open(path, "rb") as f:
        out = subprocess.run([sys.executable, "-c", code], stdin=f, capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["30", str(A.nnz)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("order", ["C", "F"])
def test_matmul_block_is_spmm(fmt, dtype, k, order, rng):
    A = sp.random(300, 200, density=0.05, random_state=1, format="csr", dtype=np.float64)
    M = cisparse.Matrix.from_scipy(A, format=fmt, dtype=dtype)
    X = np.asarray(rng.standard_normal((200, k)), dtype=dtype, order=order)

    Y = M @ X

    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert Y.shape == (300, k) and Y.dtype == dtype
    np.testing.assert_allclose(Y, A.astype(dtype) @ X, rtol=tol, atol=tol)
    for j in range(k):  # the same products as one spmv per column
        np.testing.assert_array_equal(Y[:, j], M.spmv(X[:, j]))


def test_matmul_block_strided_and_converted(rng):
    A = sp.random(300, 200, density=0.05, random_state=2, format="csr")
    M = cisparse.from_scipy(A, format="hyb")
    X = rng.standard_normal((200, 10))

    np.testing.assert_allclose(M @ X[:, ::3], A @ X[:, ::3], rtol=1e-12, atol=1e-12)  # a strided view
    np.testing.assert_allclose(M @ X.astype(np.float32), A @ X.astype(np.float32), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(M @ X[:, :2].tolist(), A @ X[:, :2], rtol=1e-12, atol=1e-12)  # a list of rows
    np.testing.assert_allclose(M.matmat(X), A @ X, rtol=1e-12, atol=1e-12)
    assert (M @ np.empty((200, 0))).shape == (300, 0)


@pytest.mark.parametrize("shape", [(201, 3), (199, 3), (3, 200), (200, 3, 1), (200, 1, 1), (201,), ()])
def test_matmul_wrong_shapes_raise(shape):
    M = cisparse.from_scipy(sp.random(300, 200, density=0.05, random_state=1, format="csr"))

    with pytest.raises(ValueError, match="200"):
        M @ np.ones(shape)


def test_linear_operator_scipy_solvers(spd, nonsym, rng):
    L = cisparse.from_scipy(spd, format="sell").aslinearoperator()
    assert isinstance(L, spla.LinearOperator) and L.shape == spd.shape
    b = rng.standard_normal(spd.shape[0])
    x, info = spla.cg(L, b, rtol=1e-10, maxiter=2000)
    assert info == 0 and np.linalg.norm(spd @ x - b) <= 1e-8 * np.linalg.norm(b)
    # rmatvec through the transpose: SciPy's BiCG and GMRES
    N = cisparse.from_scipy(nonsym, format="hyb")
    Ln = N.aslinearoperator()
    bn = rng.standard_normal(500)
    np.testing.assert_allclose(Ln.rmatvec(bn), nonsym.T @ bn, rtol=1e-12, atol=1e-12)
    x, info = spla.bicg(Ln, bn, rtol=1e-10, maxiter=1000)
    assert info == 0 and np.linalg.norm(nonsym @ x - bn) <= 1e-8 * np.linalg.norm(bn)
    x, info = spla.gmres(Ln, bn, rtol=1e-10, restart=50, maxiter=50)
    assert info == 0
    X = rng.standard_normal((500, 3))
    np.testing.assert_allclose(Ln.matmat(X), nonsym @ X, rtol=1e-12, atol=1e-12)


def test_errors_carry_the_message(tmp_path):
    with pytest.raises(cisparse.CisparseError) as e:
        cisparse.load(tmp_path / "missing.mtx")
    assert "missing.mtx: cannot open" in str(e.value) and e.value.status_name == "I/O error"
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(cisparse.CisparseError, match=r"bad.mtx:3: row index 3 out of range 1..2"):
        cisparse.load(bad)
    with pytest.raises(cisparse.CisparseError, match="unknown|format"):
        cisparse.from_scipy(sp.eye(3, format="csr"), format="nosuch")
    with pytest.raises(ValueError, match="vector of 3"):
        cisparse.from_scipy(sp.eye(3, format="csr")).spmv(np.ones(4))
    with pytest.raises(TypeError):
        cisparse.from_scipy(np.eye(3))


def test_to_device_without_gpu_raises():
    if cisparse.gpu_count()[0] > 0:
        pytest.skip("a GPU is present")
    with pytest.raises(cisparse.NoGPUError):
        cisparse.from_scipy(sp.eye(4, format="csr")).to_device()
