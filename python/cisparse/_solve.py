"""cisparse.solve: CG, BiCG and BiCGStab (cis_krylov_solve) from Python."""
import ctypes
import warnings

import numpy as np

from . import _lib as L
from ._errors import check
from ._matrix import Matrix, _cupy, _refuse_complex

_PRECISIONS = ("double", "single", "mixed")


class SolveResult(int):
    """SciPy's `info` with the figures `cisparse solve` prints. As an int it is
    0 when the solve converged, the iterations done (> 0) when it did not
    (maxit, stagnation), and < 0 after a breakdown (SciPy's codes: -10 rho = 0,
    -11 omega = 0 or (r^, v) = 0; -10 also for p^T A p <= 0 in CG and a
    non-finite scalar); so `if info:` is true when x is not a solution, and
    print(info) prints that number. The attributes say how it ended (its
    repr shows all but `residuals`)."""
    status: str                 # "ok", or the status name ("not converged", "breakdown", ...)
    end: str                    # "converged", "maxit reached", "breakdown rho=0", ...
    converged: bool
    iterations: int             # inner iterations for precision="mixed"
    rel_residual: float         # the recurrence's ||r|| / ||b|| at the end
    true_residual: float        # ||b - A x|| / ||b|| recomputed from x in double
    seconds: float              # the iteration loop (device synchronized)
    setup_seconds: float
    seconds_per_iteration: float
    launches: int               # kernel launches + library calls in the loop (device)
    launches_per_iteration: float
    method: str
    precond: str
    version: str                # device version; "host" on the CPU
    precision: str
    device: str                 # "cpu" or "gpu"
    operator: str               # e.g. "cpu csr", "gpu csr-vector"
    rtol: float                 # the relative tolerance solved to: max(rtol, atol / ||b||)
    message: str                # cisparse's one-line message when not converged, else ""
    outer_iterations: int       # refinement steps (mixed)
    residuals: np.ndarray       # ||r_k||/||b||, k = 0.. (history=True), else None

    def __new__(cls, info, **fields):
        self = super().__new__(cls, info)
        vars(self).update(fields)
        return self

    __str__ = int.__repr__  # print(info): the number, as SciPy's

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "residuals")
        return f"SolveResult({int(self)}, {shown})"


# SciPy's info for a breakdown (its bicg, bicgstab) by cis_krylov_end: CIS_END_BREAK_OMEGA, _RV -11, else -10
_BREAKDOWN_INFO = {3: -11, 4: -11}


def _as_matrix(A, dtype):
    if isinstance(A, Matrix):
        return A
    return Matrix.from_scipy(A, format="csr", dtype=dtype)


def _retyped(A, dtype):
    """A in another value type: the same format built again from its CSR (and
    uploaded again when A is on the device)."""
    code = L.F64 if dtype == np.float64 else L.F32
    m = Matrix()
    m._csr, m._csr_owned, m._keep = A._csr, False, ()
    if A._csr_owned:  # share the library's CSR: A keeps it alive, m must not free it
        m._csr = A._csr.contents
    m._owner = A  # m reads A's CSR: A stays alive while m is
    m._build(A.format, code, A._params)
    if A.on_device:
        m.to_device(L.lib.cis_gpu_plan_kernel(A._plan).decode())
    return m


def _preconditioner(M, precond):
    """The C preconditioner (0 none, 1 Jacobi) for solve's M (SciPy's name)
    or precond: None, 'none' or 'jacobi'. Anything else is refused: a matrix
    or LinearOperator M cannot be applied inside cis_krylov_solve."""
    if M is not None and precond is not None:
        raise TypeError("solve: give M or precond, not both")
    pc = M if precond is None else precond
    if pc is not None and not isinstance(pc, str):
        raise TypeError(f"solve: M must be None or 'jacobi' (cisparse's solvers have the Jacobi preconditioner "
                        f"only), got a {type(pc).__name__}; for another preconditioner use SciPy's solver on "
                        f"cisparse's SpMV: scipy.sparse.linalg.cg(A.aslinearoperator(), b, M=M)")
    if pc not in (None, "none", "jacobi"):
        raise ValueError(f"solve: M (precond) must be None or 'jacobi', got {pc!r}")
    return 1 if pc == "jacobi" else 0


def solve(A, b, x0=None, method="cg", precond=None, version="merge_10", precision="double", tol=None, maxit=None,
          check_every=0, stagnation=0, inner_tol=1e-4, history=False, *, rtol=None, atol=0.0, M=None, maxiter=None):
    """Solve A x = b with cis_krylov_solve; returns (x, info) as SciPy's
    solvers do, info a SolveResult: 0 when converged, the iterations (> 0)
    when not, < 0 after a breakdown, with the solve's figures as attributes.

    A: a Matrix (host, or on the GPU after to_device(): then b, x0 and the
    returned x are CuPy arrays) or a scipy.sparse matrix (built as csr).
    Stops when ||r|| <= max(rtol * ||b||, atol) (the recurrence residual;
    rtol default 1e-8, `tol` its deprecated name) or after maxiter (or
    maxit) iterations (default 1000).
    method: 'cg', 'bicg' (uses A^T, built once), 'bicgstab'; M (or precond):
    None or 'jacobi' (a matrix or LinearOperator M is a TypeError); version:
    the device version ('cublasL', 'cublasN', 'cuda', 'merge', 'merge_10',
    'graph'; ignored on the host); precision: 'double', 'single' (float
    iterations) or 'mixed' (float inner solves to inner_tol, refinement in
    double to rtol). A solve that does not converge or breaks down returns
    with info != 0, info.converged False and cisparse's message; invalid
    arguments raise CisparseError (integers beyond their C type, and complex
    b or x0, raise ValueError or TypeError before any C call)."""
    if tol is not None:
        if rtol is not None:
            raise TypeError("solve: give rtol or tol (its deprecated name), not both")
        warnings.warn("cisparse.solve: tol is deprecated, use rtol (SciPy's name)", DeprecationWarning, stacklevel=2)
        rtol = tol
    rtol = 1e-8 if rtol is None else float(rtol)
    if maxit is not None and maxiter is not None:
        raise TypeError("solve: give maxiter or maxit, not both")
    name, value = ("maxit", 1000 if maxit is None else maxit) if maxiter is None else ("maxiter", maxiter)
    maxit = L.int_arg(name, value, L.c_int, lo=1)
    check_every = L.int_arg("check_every", check_every, L.c_int)
    stagnation = L.int_arg("stagnation", stagnation, L.c_int)
    _refuse_complex("b", b)
    if x0 is not None:
        _refuse_complex("x0", x0)
    if precision not in _PRECISIONS:
        raise ValueError(f"precision must be one of {_PRECISIONS}, got {precision!r}")
    pc = _preconditioner(M, precond)
    A = _as_matrix(A, np.float64)
    rows, cols = A.shape
    dev = A.on_device
    cp = _cupy() if dev else None
    xp = cp if dev else np
    work = np.float32 if precision == "single" else np.float64
    o = L.lib.cis_krylov_opts_default()
    m, v = ctypes.c_int(), ctypes.c_int()
    check(L.lib.cis_krylov_method_parse(method.encode(), ctypes.byref(m)))
    check(L.lib.cis_solver_version_parse(version.encode(), ctypes.byref(v)))
    o.method, o.version = m.value, v.value
    o.precond = pc
    o.maxit, o.check_every, o.stagnation = maxit, check_every, stagnation
    hist = None
    if history:
        hist = np.zeros(maxit + 1, dtype=np.float64)
        o.history = hist.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        o.history_len = hist.size

    made, ops = [], []
    try:
        def operator(mat):
            ops.append(mat._operator())
            return ops[-1]

        def retype(mat, dtype):
            if mat.dtype == dtype:
                return mat
            R = _retyped(mat, dtype)
            made.append(R)
            return R

        diag = np.empty(rows, dtype=np.float64)
        if o.precond:
            check(L.lib.cis_csr_diagonal(A._csr_ref(), diag.ctypes.data_as(ctypes.POINTER(ctypes.c_double))))
        dptr = diag.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        main = retype(A, np.float64 if precision == "mixed" else work)
        op = operator(main)
        if o.precond:
            check(L.lib.cis_operator_set_diagonal(op, dptr))
        def with_transpose(mat, op):
            if method == "bicg":  # BiCG's products with A^T (same diagonal)
                check(L.lib.cis_operator_set_transpose(op, operator(mat.transpose())))
                if o.precond:
                    check(L.lib.cis_operator_set_diagonal(ops[-1], dptr))

        with_transpose(main, op)
        solve_dtype = np.float64 if precision == "mixed" else work
        b = xp.ascontiguousarray(xp.asarray(b), dtype=solve_dtype)
        x = xp.zeros(rows, dtype=solve_dtype) if x0 is None else xp.array(x0, dtype=solve_dtype, copy=True)
        if b.shape != (rows,) or x.shape != (rows,):
            raise ValueError(f"b and x0 must be vectors of {rows} values, got {b.shape} and {x.shape}")
        bnorm = float(xp.linalg.norm(b))
        o.tol = max(rtol, float(atol) / bnorm) if bnorm > 0 else rtol  # SciPy's max(rtol * ||b||, atol)
        ptr = (lambda a: a.data.ptr) if dev else (lambda a: a.ctypes.data)
        info = L.cis_krylov_info()
        outer = ctypes.c_int(0)
        if precision == "mixed":
            A32 = retype(A, np.float32)
            op32 = operator(A32)
            if o.precond:
                check(L.lib.cis_operator_set_diagonal(op32, dptr))
            with_transpose(A32, op32)
            st = L.lib.cis_krylov_solve_mixed(op, op32, ptr(b), ptr(x), ctypes.byref(o), float(inner_tol),
                                              ctypes.byref(info), ctypes.byref(outer))
        else:
            st = L.lib.cis_krylov_solve(op, ptr(b), ptr(x), ctypes.byref(o), ctypes.byref(info))
        message = L.lib.cis_last_error().decode(errors="replace") if st != L.OK else ""
        if st not in (L.OK, L.ERR_NOT_CONVERGED, L.ERR_BREAKDOWN) and not (st == L.ERR_NUMERIC and info.iterations):
            check(st)
        # the true residual in double on the host CSR (as `cisparse solve`)
        hop = L.P()
        check(L.lib.cis_operator_from_csr(A._csr_ref(), ctypes.byref(hop)))
        ops.append(hop)
        xh = np.asarray(x.get() if dev else x, dtype=np.float64)
        bh = np.asarray(b.get() if dev else b, dtype=np.float64)
        if A._csr_struct().dtype != L.F64:
            true_res = float(np.linalg.norm(bh - A.to_scipy().astype(np.float64) @ xh) / max(np.linalg.norm(bh), 1e-300))
        else:
            rr = ctypes.c_double()
            check(L.lib.cis_true_residual(hop, bh.ctypes.data, xh.ctypes.data, None, ctypes.byref(rr), None))
            true_res = rr.value
        code = (0 if st == L.OK else max(info.iterations, 1) if st == L.ERR_NOT_CONVERGED
                else _BREAKDOWN_INFO.get(info.end, -10))
        result = SolveResult(
            code, status="ok" if st == L.OK else L.lib.cis_status_name(st).decode(),
            end=L.lib.cis_krylov_end_name(info.end).decode(), converged=st == L.OK, iterations=info.iterations,
            rel_residual=info.rel_residual, true_residual=true_res, seconds=info.seconds,
            setup_seconds=info.setup_seconds,
            seconds_per_iteration=info.seconds / info.iterations if info.iterations else 0.0,
            launches=info.launches, launches_per_iteration=info.launches_per_iteration, method=method,
            precond="jacobi" if pc else "none", version=version if dev else "host", precision=precision,
            device="gpu" if dev else "cpu", operator=L.lib.cis_operator_name(op).decode(), rtol=o.tol,
            message=message,
            outer_iterations=outer.value,
            residuals=hist[:info.history_written].copy() if hist is not None else None)
        return x, result
    finally:
        for op in ops:
            L.lib.cis_operator_free(op)
        for mat in made:
            mat.close()
