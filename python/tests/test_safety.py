"""The Python package under misuse (issue 26): a closed or empty matrix, a
transpose that outlives its parent, outputs that are read-only, mistyped or
alias the input, complex input, integers beyond their C type, and
FCISolver arguments that contradict themselves. Each raises a one-line
exception naming what is wrong (never a segfault, a raw ctypes error or a
silently wrong answer)."""
import gc

import numpy as np
import pytest
import scipy.sparse as sp

import cisparse

A3 = np.array([[4.0, 1.0, 0.0], [2.0, 5.0, 1.0], [0.0, 3.0, 6.0]])  # nonsymmetric: A x != A^T x
X3 = np.array([1.0, -2.0, 3.0])


def small(fmt="csr", dtype=None):
    return cisparse.Matrix.from_scipy(sp.csr_matrix(A3), format=fmt, dtype=dtype)


def unusable(state):
    """A Matrix that holds no matrix: never built, closed, or past its with block."""
    if state == "bare":
        return cisparse.Matrix()
    if state == "closed":
        A = small()
        A.close()
        return A
    if state == "closed-loaded":  # a CSR the library allocated
        A = cisparse.load("ci:rows=64,seed=1")
        A.close()
        return A
    with small() as A:
        pass
    return A


CALLS = {
    "shape": lambda A: A.shape,
    "nnz": lambda A: A.nnz,
    "dtype": lambda A: A.dtype,
    "nbytes": lambda A: A.nbytes,
    "format": lambda A: A.format,
    "on_device": lambda A: A.on_device,
    "spmv": lambda A: A.spmv(X3),
    "spmv-y": lambda A: A.spmv(X3, y=np.zeros(3)),
    "matmul": lambda A: A @ X3,
    "matmul-block": lambda A: A @ np.ones((3, 2)),
    "T": lambda A: A.T,
    "transpose": lambda A: A.transpose(),
    "info": lambda A: A.info(),
    "to_scipy": lambda A: A.to_scipy(),
    "to_device": lambda A: A.to_device(),
    "aslinearoperator": lambda A: A.aslinearoperator(),
    "solve": lambda A: cisparse.solve(A, X3),
    "solve-bicg": lambda A: cisparse.solve(A, X3, method="bicg"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("state", ["bare", "closed", "closed-loaded", "after-with"])
def test_unusable_matrix_raises(state, call):
    A = unusable(state)

    with pytest.raises(cisparse.ClosedMatrixError, match="cisparse.Matrix: (closed|empty)"):
        CALLS[call](A)


@pytest.mark.parametrize("state", ["bare", "closed", "after-with"])
def test_unusable_matrix_repr_and_close_are_safe(state):
    A = unusable(state)

    assert "closed" in repr(A) or "empty" in repr(A)
    A.close()  # again: a no-op
    assert issubclass(cisparse.ClosedMatrixError, cisparse.CisparseError)
    assert issubclass(cisparse.ClosedMatrixError, ValueError)


@pytest.mark.parametrize("fmt", ["csr", "hyb", "sell"])
def test_transpose_outlives_its_parent(fmt):
    A = small(fmt)
    T = A.T

    del A
    gc.collect()

    assert np.allclose(T.spmv(X3), A3.T @ X3)
    assert T.shape == (3, 3) and "closed" not in repr(T)


def test_transpose_survives_parent_close_and_with_block():
    with small() as A:
        T = A.T
    A2 = small()
    T2 = A2.T
    A2.close()

    assert np.allclose(T.spmv(X3), A3.T @ X3)
    assert np.allclose(T2.spmv(X3), A3.T @ X3)


def test_linear_operator_outlives_its_matrix():
    L = small().aslinearoperator()
    gc.collect()

    assert np.allclose(L.matvec(X3), A3 @ X3)
    assert np.allclose(L.rmatvec(X3), A3.T @ X3)


def test_read_only_output_refused_before_the_call():
    A = small()
    y = np.full(3, 7.0)
    y.flags.writeable = False

    with pytest.raises(ValueError, match="y .*writable"):
        A.spmv(X3, y=y)

    assert np.all(y == 7.0)


def test_read_only_memmap_output_refused(tmp_path):
    A = small()
    path = tmp_path / "y.bin"
    np.zeros(3).tofile(path)
    y = np.memmap(path, dtype=np.float64, mode="r", shape=(3,))

    with pytest.raises(ValueError, match="y .*writable"):
        A.spmv(X3, y=y)


def test_read_only_inputs_are_fine(tmp_path):
    A = small()
    path = tmp_path / "x.bin"
    X3.tofile(path)
    x = np.memmap(path, dtype=np.float64, mode="r", shape=(3,))

    assert np.allclose(A.spmv(x), A3 @ X3)


@pytest.mark.parametrize("y, what", [(np.zeros(3, dtype=np.float32), "float64"), (np.zeros(4), "3 values"),
                                     (np.zeros((3, 1)), "3 values"), (np.zeros(6)[::2], "contiguous"),
                                     ([0.0, 0.0, 0.0], "array")])
def test_output_of_wrong_type_or_shape_refused(y, what):
    A = small()

    with pytest.raises(ValueError, match=what):
        A.spmv(X3, y=y)


@pytest.mark.parametrize("fmt", ["csr", "ell", "sell", "hyb", "csr5", "csb"])
@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_output_aliasing_input_is_computed_safely(fmt, beta):
    A = small(fmt)
    x = X3.copy()

    y = A.spmv(x, y=x, alpha=2.0, beta=beta)

    assert y is x
    assert np.allclose(y, 2.0 * A3 @ X3 + beta * X3)


def test_output_overlapping_input_is_computed_safely():
    A = small()
    buf = np.array([1.0, -2.0, 3.0, 5.0])
    x, y = buf[:3], buf[1:]
    want = A3 @ buf[:3]

    A.spmv(x, y=y)

    assert np.allclose(buf[1:], want) and buf[0] == 1.0


def test_complex_input_refused():
    A = small()

    with pytest.raises(TypeError, match="complex"):
        A.spmv(X3 + 1j)
    with pytest.raises(TypeError, match="complex"):
        A.spmv(X3, y=np.zeros(3, dtype=complex))
    with pytest.raises(TypeError, match="complex"):
        cisparse.Matrix.from_scipy(sp.csr_matrix(A3 + 1j * A3))
    with pytest.raises(TypeError, match="complex"):
        cisparse.solve(A, X3 * 1j)
    with pytest.raises(TypeError, match="complex"):
        cisparse.solve(A, X3, x0=X3 * 1j)


@pytest.mark.parametrize("name, value", [("maxit", 2 ** 32 + 3), ("maxit", 2 ** 31), ("maxit", 0),
                                         ("check_every", 2 ** 40), ("stagnation", -2 ** 31 - 1),
                                         ("maxit", 3.5)])
def test_solve_integer_arguments_range_checked(name, value):
    A = small()

    with pytest.raises((ValueError, TypeError), match=name):
        cisparse.solve(A, X3, **{name: value})


def test_solve_maxit_beyond_int_never_wraps():
    A = small()

    with pytest.raises(ValueError, match=r"maxit .*2147483647.*4294967299"):
        cisparse.solve(A, X3, maxit=2 ** 32 + 3)


@pytest.mark.parametrize("call, name", [
    (lambda: small().to_device(block_size=2 ** 32), "block_size"),
    (lambda: small().info(ref_cols=2 ** 63), "ref_cols"),
    (lambda: small_with_params("sell", slice=2 ** 64), "slice"),
    (lambda: small_with_params("hyb", boundary=-2 ** 63 - 1), "boundary"),
    (lambda: small_with_params("sell16", float_values=2 ** 32 + 1), "float_values"),
])
def test_integer_arguments_range_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def small_with_params(fmt, **params):
    return cisparse.Matrix.from_scipy(sp.csr_matrix(A3), format=fmt, **params)


def test_format_parameters_range_checked():
    with pytest.raises(ValueError, match="slice"):
        small_with_params("sell", slice=2 ** 64)
    with pytest.raises(ValueError, match="boundary_mode"):
        small_with_params("hyb", boundary_mode=2 ** 32)


# ---- FCISolver --------------------------------------------------------------------

def h4():
    pytest.importorskip("pyscf", reason="PySCF is not installed")
    from pyscf import ao2mo, gto, scf
    mol = gto.M(atom="H 0 0 0; H 0 0 1; H 0 0 2; H 0 0 3", basis="sto-3g", verbose=0, symmetry="d2h")
    mf = scf.RHF(mol).run()
    c = mf.mo_coeff
    h1 = c.T @ mf.get_hcore() @ c
    eri = ao2mo.restore(1, ao2mo.kernel(mol, c), 4)
    return mol, h1, eri, np.asarray(mf.orbsym)


def fci_solver(mol=None, **kw):
    import cisparse.fci
    return cisparse.fci.FCISolver(mol, device="cpu", **kw)


def test_fci_reference_still_solves():
    mol, h1, eri, orbsym = h4()
    from pyscf import fci
    e_ref = fci.direct_spin1.FCI().kernel(h1, eri, 4, 4)[0]

    e, c = fci_solver().kernel(h1, eri, 4, 4)
    e_sym, _ = fci_solver().kernel(h1, eri, 4, 4, orbsym=orbsym, wfnsym=0)

    assert abs(e - e_ref) < 1e-9 and abs(e_sym - e_ref) < 1e-9 and c.shape == (6, 6)


@pytest.mark.parametrize("orbsym", [[0, 5, 0], [0, 5, 0, 5, 0], [0, 5, 8, 5], [0, -1, 0, 5], [0, 5.5, 0, 5],
                                    [0, np.inf, 0, 5], ["A1", "B1", "A1", "B1"]])
def test_fci_orbsym_of_wrong_length_or_irrep_refused(orbsym):
    mol, h1, eri, _ = h4()

    with pytest.raises(ValueError, match="orbsym"):
        fci_solver().kernel(h1, eri, 4, 4, orbsym=orbsym, wfnsym=0)


@pytest.mark.parametrize("wfnsym", [8, -1])
def test_fci_impossible_wfnsym_refused(wfnsym):
    mol, h1, eri, orbsym = h4()

    with pytest.raises(ValueError, match="wfnsym"):
        fci_solver().kernel(h1, eri, 4, 4, orbsym=orbsym, wfnsym=wfnsym)


@pytest.mark.parametrize("which, bad", [("h1e", np.nan), ("h1e", np.inf), ("eri", np.nan), ("eri", -np.inf)])
def test_fci_non_finite_integrals_refused(which, bad):
    mol, h1, eri, _ = h4()
    h1, eri = h1.copy(), eri.copy()
    (h1 if which == "h1e" else eri)[1, 1] = bad

    with pytest.raises(ValueError, match=which):
        fci_solver().kernel(h1, eri, 4, 4)
    with pytest.raises(ValueError, match=which):
        fci_solver(method="stored").kernel(h1, eri, 4, 4)


@pytest.mark.parametrize("ci0", [np.ones(35), np.ones((5, 6)), [np.ones(36), np.ones(7)]])
def test_fci_ci0_of_wrong_size_refused(ci0):
    mol, h1, eri, _ = h4()

    with pytest.raises(ValueError, match=r"ci0 .*36"):
        fci_solver().kernel(h1, eri, 4, 4, ci0=ci0)


@pytest.mark.parametrize("norb, nelec", [(4, (5, 1)), (4, (-1, 2)), (4, 9), (4, -2), (0, 0), (-1, 2)])
def test_fci_inconsistent_nelec_norb_refused(norb, nelec):
    mol, h1, eri, _ = h4()

    with pytest.raises(ValueError, match="nelec|norb"):
        fci_solver().kernel(h1, eri, norb, nelec)


def test_fci_unknown_device_refused():
    mol, h1, eri, _ = h4()
    import cisparse.fci

    with pytest.raises(ValueError, match="device"):
        cisparse.fci.FCISolver(device="tpu")
    s = fci_solver()
    s.device = "tpu"
    with pytest.raises(ValueError, match="device"):
        s.kernel(h1, eri, 4, 4)


def test_fci_unknown_keyword_refused():
    mol, h1, eri, _ = h4()

    with pytest.raises(TypeError, match="version"):
        fci_solver().kernel(h1, eri, 4, 4, version="merge")


def test_fci_pyscf_keywords_accepted():
    mol, h1, eri, _ = h4()

    e, _ = fci_solver().kernel(h1, eri, 4, 4, verbose=0, max_memory=4000, lindep=1e-14, max_space=12,
                               davidson_only=True, pspace_size=0)

    assert np.isfinite(e)


@pytest.mark.parametrize("name, value", [("max_cycle", 2 ** 32 + 3), ("max_cycle", 0), ("nroots", 0),
                                         ("nroots", 2 ** 32 + 1), ("tol", float("nan")), ("tol", -1.0)])
def test_fci_numeric_arguments_range_checked(name, value):
    mol, h1, eri, _ = h4()

    with pytest.raises(ValueError, match=name):
        fci_solver().kernel(h1, eri, 4, 4, **{name: value})
