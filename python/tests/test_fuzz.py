"""A Hypothesis fuzz test of the binding (issue 26): random shapes, dtypes,
formats, closed and empty matrices, transposes kept past their parent,
outputs that are read-only, mistyped or alias the input, and integers beyond
their C type. Every call either gives SciPy's answer or raises ValueError,
TypeError or CisparseError; anything else (a raw ctypes error, a wrong
product) fails, and a crash ends the process (PYTHONFAULTHANDLER names the
line). CISPARSE_FUZZ_EXAMPLES sets the number of examples (150 by default;
about 15000 make a ten-minute run). Skipped without Hypothesis."""
import gc
import os

import numpy as np
import pytest
import scipy.sparse as sp

hypothesis = pytest.importorskip("hypothesis", reason="Hypothesis is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import cisparse  # noqa: E402

EXAMPLES = int(os.environ.get("CISPARSE_FUZZ_EXAMPLES", "150"))
EXPECTED = (ValueError, TypeError, cisparse.CisparseError)
DTYPES = [np.float64, np.float32, np.complex128, np.int64, np.int32, np.bool_]
INTS = st.one_of(st.integers(-3, 3000), st.sampled_from([2 ** 31 - 1, 2 ** 31, -2 ** 31 - 1, 2 ** 32 + 3, 2 ** 63,
                                                         2 ** 64 + 1, -2 ** 63 - 1]))


@st.composite
def matrices(draw):
    rows, cols = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    seed = draw(st.integers(0, 2 ** 16))
    density = draw(st.sampled_from([0.0, 0.3, 1.0]))
    A = sp.random(rows, cols, density=density, random_state=seed, format="csr")
    if rows == cols and rows:
        A = A + sp.identity(rows) * 4  # solvable
    return A.tocsr(), draw(st.sampled_from(cisparse.formats())), draw(st.sampled_from([np.float64, np.float32]))


def vector(draw, n, tmp, name):
    """A vector of about n values, of a drawn dtype and layout."""
    kind = draw(st.sampled_from(["ok", "ok", "dtype", "length", "2d", "strided", "readonly", "memmap-r", "list"]))
    dt = draw(st.sampled_from(DTYPES)) if kind == "dtype" else np.float64
    v = (np.arange(n) % 5 - 2).astype(dt)
    if kind == "length":
        v = np.ones(n + draw(st.sampled_from([-1, 1])) if n else 1)
    elif kind == "2d":
        v = v.reshape(n, 1)
    elif kind == "strided":
        v = np.repeat(v, 2)[::2]
    elif kind == "readonly":
        v.flags.writeable = False
    elif kind == "memmap-r" and n:
        path = os.path.join(tmp, f"{name}.bin")
        v.astype(np.float64).tofile(path)
        v = np.memmap(path, dtype=np.float64, mode="r", shape=(n,))
    elif kind == "list":
        v = v.tolist()
    return v


def build(A, fmt, dtype, state):
    try:
        M = cisparse.Matrix.from_scipy(A, format=fmt, dtype=dtype)
    except cisparse.CisparseError:  # a format that refuses this matrix (e.g. empty) says so in one line
        return None
    if state == "closed":
        M.close()
    elif state == "bare":
        M = cisparse.Matrix()
    elif state == "transpose-of-collected":
        M = M.T
        gc.collect()
    return M


def reference(A, dtype, state):
    return (A.T if state == "transpose-of-collected" else A).astype(np.float64).toarray()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)
@given(data=st.data(), mat=matrices(),
       state=st.sampled_from(["live", "live", "live", "closed", "bare", "transpose-of-collected"]),
       call=st.sampled_from(["spmv", "spmv-alias", "spmv-overlap", "props", "solve", "info", "params"]))
def test_binding_never_crashes(tmp_path_factory, data, mat, state, call):
    A, fmt, dtype = mat
    M = build(A, fmt, dtype, state)
    if M is None:
        return
    D = reference(A, dtype, state)
    rows, cols = D.shape
    tol = 1e-4 if dtype == np.float32 else 1e-10
    tmp = str(tmp_path_factory.mktemp("fuzz"))
    try:
        if call == "spmv":
            x = vector(data.draw, cols, tmp, "x")
            y = data.draw(st.sampled_from([None, "vec"]))
            y = vector(data.draw, rows, tmp, "y") if y else None
            y0 = None if y is None or np.iscomplexobj(y) else np.array(y, dtype=np.float64, copy=True)
            alpha, beta = data.draw(st.sampled_from([1.0, -0.5, 2, 1j])), data.draw(st.sampled_from([0.0, 0.5, 1j]))
            out = M.spmv(x, y=y, alpha=alpha, beta=beta)
            want = alpha * D @ np.asarray(x, dtype=np.float64) + (beta * y0 if y0 is not None else 0)
            assert out.shape == (rows,) and np.allclose(out, want, rtol=tol, atol=tol)
        elif call in ("spmv-alias", "spmv-overlap"):
            n = max(rows, cols)
            buf = (np.arange(n + 1) % 3 + 1.0).astype(dtype)
            x, y = (buf[:cols], buf[:rows]) if call == "spmv-alias" else (buf[:cols], buf[1:rows + 1])
            x0, y0 = x.astype(np.float64), y.astype(np.float64)
            out = M.spmv(x, y=y, alpha=1.0, beta=0.5)
            assert np.allclose(out, D @ x0 + 0.5 * y0, rtol=tol, atol=tol)
        elif call == "props":
            assert M.shape == (rows, cols) and M.nnz >= 0 and M.dtype in (np.float32, np.float64)
            assert M.to_scipy().shape == (rows, cols) and repr(M)
            T = M.T
            del M
            gc.collect()
            assert np.allclose(T.spmv(np.ones(rows)), D.T @ np.ones(rows), rtol=tol, atol=tol)
        elif call == "solve":
            b = vector(data.draw, rows, tmp, "b")
            kw = {k: data.draw(INTS) for k in data.draw(st.sets(st.sampled_from(["maxit", "check_every",
                                                                                 "stagnation"])))}
            method = data.draw(st.sampled_from(["cg", "bicg", "bicgstab"]))
            x, r = cisparse.solve(M, b, method=method, **kw)
            assert x.shape == (rows,) and r.iterations >= 0
        elif call == "info":
            M.info(ref_cols=data.draw(st.one_of(st.none(), INTS)))
        elif call == "params":
            key = data.draw(st.sampled_from(["slice", "sigma", "block", "boundary", "boundary_mode", "csr5_sigma",
                                             "float_values"]))
            cisparse.Matrix.from_scipy(A, format=fmt, dtype=dtype, **{key: data.draw(INTS)})
    except EXPECTED:
        pass
