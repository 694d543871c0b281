"""cisparse.solve: CG, BiCG and BiCGStab (cis_krylov_solve) from Python."""
import ctypes
from dataclasses import dataclass, field

import numpy as np

from . import _lib as L
from ._errors import check
from ._matrix import Matrix, _cupy, _refuse_complex

_PRECISIONS = ("double", "single", "mixed")


@dataclass
class SolveResult:
    """How a solve ended and the figures `cisparse solve` prints."""
    status: str                 # "ok", or the status name ("did not converge", "breakdown", ...)
    end: str                    # "converged", "maxit", "breakdown rho=0", ...
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
    message: str = ""           # cisparse's one-line message when not converged
    outer_iterations: int = 0   # refinement steps (mixed)
    residuals: np.ndarray = field(default=None, repr=False)  # ||r_k||/||b||, k = 0.. (history=True)


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


def solve(A, b, x0=None, method="cg", precond=None, version="merge_10", precision="double", tol=1e-8, maxit=1000,
          check_every=0, stagnation=0, inner_tol=1e-4, history=False):
    """Solve A x = b with cis_krylov_solve.

    A: a Matrix (host, or on the GPU after to_device(): then b, x0 and the
    returned x are CuPy arrays) or a scipy.sparse matrix (built as csr).
    method: 'cg', 'bicg' (uses A^T, built once), 'bicgstab'; precond: None or
    'jacobi'; version: the device version ('cublasL', 'cublasN', 'cuda',
    'merge', 'merge_10', 'graph'; ignored on the host); precision: 'double',
    'single' (float iterations) or 'mixed' (float inner solves, refinement in
    double to tol). Returns (x, SolveResult). A solve that does not converge
    or breaks down returns with result.converged False and cisparse's message;
    invalid arguments raise CisparseError (integers beyond their C type, and
    complex b or x0, raise ValueError or TypeError before any C call)."""
    maxit = L.int_arg("maxit", maxit, L.c_int, lo=1)
    check_every = L.int_arg("check_every", check_every, L.c_int)
    stagnation = L.int_arg("stagnation", stagnation, L.c_int)
    _refuse_complex("b", b)
    if x0 is not None:
        _refuse_complex("x0", x0)
    if precision not in _PRECISIONS:
        raise ValueError(f"precision must be one of {_PRECISIONS}, got {precision!r}")
    if precond not in (None, "none", "jacobi"):
        raise ValueError(f"precond must be None or 'jacobi', got {precond!r}")
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
    o.precond = 1 if precond == "jacobi" else 0
    o.tol, o.maxit, o.check_every, o.stagnation = float(tol), maxit, check_every, stagnation
    hist = None
    if history:
        hist = np.zeros(maxit + 1, dtype=np.float64)
        o.history = hist.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        o.history_len = hist.size

    made, ops = [], []
    try:
        def operator(M):
            op = L.P()
            if M.on_device:
                check(L.lib.cis_operator_from_gpu_plan(M._plan, ctypes.byref(op)))
            else:
                check(L.lib.cis_operator_from_matrix(M._M, ctypes.byref(op)))
            ops.append(op)
            return op

        def retype(M, dtype):
            if M.dtype == dtype:
                return M
            R = _retyped(M, dtype)
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
        def with_transpose(M, op):
            if method == "bicg":  # BiCG's products with A^T (same diagonal)
                check(L.lib.cis_operator_set_transpose(op, operator(M.transpose())))
                if o.precond:
                    check(L.lib.cis_operator_set_diagonal(ops[-1], dptr))

        with_transpose(main, op)
        solve_dtype = np.float64 if precision == "mixed" else work
        b = xp.ascontiguousarray(xp.asarray(b), dtype=solve_dtype)
        x = xp.zeros(rows, dtype=solve_dtype) if x0 is None else xp.array(x0, dtype=solve_dtype, copy=True)
        if b.shape != (rows,) or x.shape != (rows,):
            raise ValueError(f"b and x0 must be vectors of {rows} values, got {b.shape} and {x.shape}")
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
        result = SolveResult(
            status="ok" if st == L.OK else L.lib.cis_status_name(st).decode(),
            end=L.lib.cis_krylov_end_name(info.end).decode(), converged=st == L.OK, iterations=info.iterations,
            rel_residual=info.rel_residual, true_residual=true_res, seconds=info.seconds,
            setup_seconds=info.setup_seconds,
            seconds_per_iteration=info.seconds / info.iterations if info.iterations else 0.0,
            launches=info.launches, launches_per_iteration=info.launches_per_iteration, method=method,
            precond=precond or "none", version=version if dev else "host", precision=precision,
            device="gpu" if dev else "cpu", operator=L.lib.cis_operator_name(op).decode(), message=message,
            outer_iterations=outer.value,
            residuals=hist[:info.history_written].copy() if hist is not None else None)
        return x, result
    finally:
        for op in ops:
            L.lib.cis_operator_free(op)
        for M in made:
            M.close()
