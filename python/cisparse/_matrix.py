"""cisparse.Matrix: a sparse matrix in one of cisparse's storage formats,
on the host and, after ``to_device()``, on the GPU."""
import ctypes

import numpy as np

from . import _lib as L
from ._errors import CisparseError, ClosedMatrixError, check

_DTYPES = {"double": L.F64, "float64": L.F64, "float": L.F32, "float32": L.F32, "single": L.F32}
_NP = {L.F64: np.float64, L.F32: np.float32}


def _dtype_code(dtype):
    if dtype is None:
        return L.F64
    key = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    try:
        return _DTYPES[key]
    except KeyError:
        raise ValueError(f"dtype must be float64 or float32, got {dtype!r}") from None


def formats():
    """The storage format names compiled into the library."""
    return [L.lib.cis_format_name(i).decode() for i in range(L.lib.cis_format_count())]


def gpu_count():
    """(number of usable CUDA devices, reason when 0)."""
    why = ctypes.create_string_buffer(256)
    n = L.lib.cis_gpu_count(why, len(why))
    return n, why.value.decode()


_CUPY = []  # [the cupy module or None], once imported (every product asks)


def _cupy():
    if not _CUPY:
        try:
            import cupy
            _CUPY.append(cupy)
        except Exception:  # ImportError, or CuPy present without a usable CUDA
            _CUPY.append(None)
    return _CUPY[0]


def _refuse_complex(name, v):
    """A TypeError for complex input (NumPy would drop the imaginary part with
    only a warning): cisparse's matrices and vectors are real."""
    if np.iscomplexobj(v):
        raise TypeError(f"{name} is complex: cisparse's matrices and vectors are real (float64 or float32)")


def _real(name, v):
    """A real scalar (alpha, beta) as a float; complex refused."""
    if type(v) is float:
        return v
    if isinstance(v, (complex, np.complexfloating)):
        raise TypeError(f"{name} is complex: cisparse's matrices and vectors are real (float64 or float32)")
    return float(v)


def _overlap(p, n, q, m, itemsize):
    """Whether the byte ranges of n values at p and m values at q overlap."""
    return n > 0 and m > 0 and p < q + m * itemsize and q < p + n * itemsize


def _dense_vector(v, dtype):
    """v is a 1-D contiguous array of dtype (strides read directly: the
    flags object costs more on the per-product path)."""
    return v.dtype == dtype and v.ndim == 1 and (v.shape[0] < 2 or v.strides[0] == v.itemsize)


class Matrix:
    """A matrix in one storage format (``format``: csr, ell, ellr, sell, sellr,
    sellcs, csb, hyb, csr5, sell16), built from a CSR that stays referenced (the host
    arrays of ``from_scipy`` are used in place when they already have
    cisparse's layout: int64 row pointers, int32 sorted column indices)."""

    def __init__(self):
        self._csr = None        # ctypes cis_csr (ours) or POINTER(cis_csr) from the library
        self._csr_owned = False  # cis_csr_free at close
        self._keep = ()          # numpy arrays the CSR points into
        self._M = L.P()          # cis_matrix*
        self._plan = L.P()       # cis_gpu_plan* after to_device()
        self._T = None           # the transpose (Matrix), made on demand; independent of this one
        self._format = None
        self._closed = False     # close() ran on a built matrix (else: never built)

    # ---- construction -------------------------------------------------------------
    @classmethod
    def from_scipy(cls, A, format="csr", dtype=None, **params):
        """From a scipy.sparse matrix or array (any sparse format; converted to
        CSR with sorted, summed indices). dtype: float64 (default: A's when it is
        float32 or float64) or float32. params: slice, sigma, block, boundary,
        boundary_mode ('count'|'column'), csr5_sigma, float_values (sell16 in
        float64 only: values stored in float32, vectors and sums float64)."""
        import scipy.sparse as sp
        if not sp.issparse(A):
            raise TypeError(f"from_scipy needs a scipy.sparse matrix, got {type(A).__name__}")
        _refuse_complex("the matrix", A)
        if dtype is None:
            dtype = A.dtype if A.dtype in (np.float32, np.float64) else np.float64
        code = _dtype_code(dtype)
        if A.shape[1] > np.iinfo(np.int32).max:
            raise ValueError(f"from_scipy: {A.shape[1]} columns; cisparse's column indices are int32 "
                             f"(at most {np.iinfo(np.int32).max} columns)")
        A = A.tocsr()
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()  # sorts too
        rows, cols = A.shape
        rowptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
        colind = np.ascontiguousarray(A.indices, dtype=np.int32)
        val = np.ascontiguousarray(A.data, dtype=_NP[code])
        m = cls()
        m._csr = L.cis_csr(rows, cols, int(rowptr[-1]) if rows else 0, code, 0,
                           rowptr.ctypes.data_as(L.POINTER(L.c_int64)),
                           colind.ctypes.data_as(L.POINTER(L.c_int32)), val.ctypes.data)
        m._keep = (rowptr, colind, val)
        check(L.lib.cis_csr_check(ctypes.byref(m._csr)))
        m._build(format, code, params)
        return m

    @classmethod
    def from_cupy(cls, A, format="csr", dtype=None, kernel=None, **params):
        """From a cupyx.scipy.sparse matrix: through the host (A.get()), then
        uploaded (to_device)."""
        return cls.from_scipy(A.get(), format=format, dtype=dtype, **params).to_device(kernel)

    @classmethod
    def load(cls, source, format="csr", dtype="float64", **params):
        """From a Matrix Market or .cisb file, '-' (standard input) or a
        generator spec such as 'laplace3d:size=32' (cis_load)."""
        code = _dtype_code(dtype)
        p = L.POINTER(L.cis_csr)()
        check(L.lib.cis_load(str(source).encode(), code, ctypes.byref(p)))
        m = cls()
        m._csr, m._csr_owned = p, True
        m._build(format, code, params)
        return m

    def _csr_ref(self):
        return self._csr if self._csr_owned else ctypes.byref(self._csr)

    def _csr_struct(self):
        return self._csr.contents if self._csr_owned else self._csr

    def _build(self, format, code, params):
        p = L.lib.cis_format_params_default()
        p.dtype = code
        ctypes_of = dict(L.cis_format_params._fields_)
        for k, v in params.items():
            if k == "boundary_mode":
                v = {"count": 0, "column": 1}.get(v, v)
            if k not in ctypes_of or k == "dtype":
                raise TypeError(f"unknown format parameter {k!r}")
            setattr(p, k, L.int_arg(k, v, ctypes_of[k]))
        check(L.lib.cis_matrix_create(self._csr_ref(), str(format).encode(), ctypes.byref(p), ctypes.byref(self._M)))
        self._format = L.lib.cis_matrix_format_name(self._M).decode()
        self._params = params

    def _live(self):
        """The cis_matrix handle; a ClosedMatrixError when there is none (closed,
        or never built), before any C call sees a NULL."""
        if not self._M:
            if self._closed:
                raise ClosedMatrixError("cisparse.Matrix: closed (by close() or the end of its with block); "
                                        "build a new one to use it again")
            raise ClosedMatrixError("cisparse.Matrix: empty (Matrix() holds no matrix; build one with "
                                    "Matrix.from_scipy or Matrix.load)")
        return self._M

    def close(self):
        """Free the format, the device plan and a CSR the library allocated."""
        if getattr(self, "_plan", None):
            L.lib.cis_gpu_plan_free(self._plan)
            self._plan = L.P()
        if getattr(self, "_M", None):
            L.lib.cis_matrix_free(self._M)
            self._M = L.P()
            self._closed = True
        if getattr(self, "_csr_owned", False) and self._csr:
            L.lib.cis_csr_free(self._csr)
        self._csr, self._csr_owned, self._keep = None, False, ()
        self._T = None  # the transpose owns its arrays: it lives on while the user holds it

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- properties -----------------------------------------------------------------
    @property
    def shape(self):
        M = self._live()
        return (int(L.lib.cis_matrix_rows(M)), int(L.lib.cis_matrix_cols(M)))

    @property
    def nnz(self):
        return int(L.lib.cis_matrix_nnz(self._live()))

    @property
    def dtype(self):
        return np.dtype(_NP[L.lib.cis_matrix_dtype(self._live())])

    @property
    def format(self):
        """The storage format's name."""
        self._live()
        return self._format

    @property
    def on_device(self):
        self._live()
        return bool(self._plan)

    @property
    def nbytes(self):
        """Bytes of the format's arrays (what the GPU holds)."""
        return int(L.lib.cis_matrix_bytes(self._live()))

    def __repr__(self):
        if not self._M:
            return f"<cisparse.Matrix {'closed' if self._closed else 'empty'}>"
        where = f", on the GPU ({L.lib.cis_gpu_plan_kernel(self._plan).decode()})" if self.on_device else ""
        return f"<cisparse.Matrix {self.shape[0]}x{self.shape[1]}, {self.nnz} nonzeros, {self.format}, {self.dtype}{where}>"

    def info(self, ref_cols=None):
        """The statistics `cisparse info` prints: size, nonzeros per row, NaN/Inf
        count, Reference / Expansion Space regions (columns [0, ref_cols); by
        default the hybrid format's column boundary), the format's bytes, and
        for hyb its split."""
        self._live()
        ref = -1 if ref_cols is None else L.int_arg("ref_cols", ref_cols, L.cis_int)
        s = L.cis_csr_stats()
        check(L.lib.cis_csr_stats_get(self._csr_ref(), ref, ctypes.byref(s)))
        d = {k: getattr(s, k) for k, _ in L.cis_csr_stats._fields_ if not k.startswith("_")}
        d.update(format=self.format, dtype=self.dtype.name, bytes=self.nbytes, on_device=self.on_device)
        h = L.cis_hyb_split()
        if self.format == "hyb" and L.lib.cis_matrix_hyb_split(self._M, ctypes.byref(h)) == L.OK:
            d["hyb"] = {"boundary": h.boundary, "mode": "column" if h.mode else "count", "width": h.width,
                        "csr_nnz": h.csr_nnz}
        if self.on_device:
            d["kernel"] = L.lib.cis_gpu_plan_kernel(self._plan).decode()
            d["device_bytes"] = int(L.lib.cis_gpu_plan_bytes(self._plan))
            d["workspace_bytes"] = int(L.lib.cis_gpu_plan_workspace_bytes(self._plan))
        return d

    def to_scipy(self):
        """The CSR it was built from, as a scipy.sparse.csr_array (copied)."""
        import scipy.sparse as sp
        self._live()
        c = self._csr_struct()
        rowptr = np.ctypeslib.as_array(c.rowptr, (c.rows + 1,)).copy()
        colind = np.ctypeslib.as_array(c.colind, (max(c.nnz, 1),))[:c.nnz].copy()
        vt = ctypes.c_double if c.dtype == L.F64 else ctypes.c_float
        val = np.ctypeslib.as_array(ctypes.cast(c.val, ctypes.POINTER(vt)), (max(c.nnz, 1),))[:c.nnz].copy()
        return sp.csr_array((val, colind, rowptr), shape=(c.rows, c.cols))

    # ---- device -----------------------------------------------------------------------
    def to_device(self, kernel=None, block_size=0):
        """Upload to the GPU (cis_gpu_plan_create: kernel None = the format's
        default). Raises NoGPUError without a device or CUDA. Returns self."""
        M = self._live()
        block_size = L.int_arg("block_size", block_size, L.c_int, lo=0)
        if self._plan:
            L.lib.cis_gpu_plan_free(self._plan)
            self._plan = L.P()
        check(L.lib.cis_gpu_plan_create(M, kernel.encode() if kernel else None, block_size,
                                        ctypes.byref(self._plan)))
        return self

    # ---- products -----------------------------------------------------------------
    def _fixed(self):
        """(rows, cols, dtype, _M, (cols,), (rows,), (itemsize,)) of the built
        matrix, read from the library once per build (each read is a ctypes
        call; the per-product path asks)."""
        f = self.__dict__.get("_fixed_cache")
        if f is None or f[3] is not self._M:
            rows, cols = self.shape
            dt = self.dtype
            f = self._fixed_cache = (rows, cols, dt, self._M, (cols,), (rows,), (dt.itemsize,))
        return f

    def _vec(self, v, n, name, dtype, block=False):
        """A contiguous array of the matrix's dtype where the matrix is (NumPy on
        the host, CuPy on the GPU), and its address: a vector of n values, or
        with block an n x k array (shape checked by the caller) in column-major
        (Fortran) order. Copied only when it is not so already."""
        cp = _cupy()
        _refuse_complex(name, v)
        if cp is not None and isinstance(v, cp.ndarray):
            if not self._plan:
                raise ValueError(f"{name} is a CuPy array but the matrix is on the host (call to_device())")
            if block:
                v = cp.asfortranarray(v, dtype=dtype)
            elif not _dense_vector(v, dtype):  # (ascontiguousarray costs microseconds even when a no-op)
                v = cp.ascontiguousarray(v, dtype=dtype)
            ptr = v.data.ptr
        else:
            if self._plan:
                raise ValueError(f"{name} is a host array but the matrix is on the GPU (pass a CuPy array)")
            v = (np.asfortranarray if block else np.ascontiguousarray)(v, dtype=dtype)
            ptr = v.ctypes.data
        if not block and (v.ndim != 1 or v.shape[0] != n):
            raise ValueError(f"{name} must be a vector of {n} values, got shape {v.shape}")
        return v, ptr

    def _out(self, y, n, dtype):
        """y checked as an output written in place: an array where the matrix
        is (NumPy on the host, CuPy on the GPU), real, of the matrix's dtype,
        n values, contiguous and writable; and its address. Checked before
        any C call: nothing is written through a pointer that should not be."""
        cp = _cupy() if self._plan else None
        if self._plan and cp is None:
            raise ValueError("the matrix is on the GPU but CuPy is not usable: y cannot be a device array")
        kind, lib = (cp.ndarray, "CuPy") if cp is not None else (np.ndarray, "NumPy")
        if not isinstance(y, kind):
            raise ValueError(f"y must be a {lib} array (written in place), got {type(y).__name__}")
        _refuse_complex("y", y)
        if y.dtype != dtype:
            raise ValueError(f"y must be a {dtype} array (the matrix's dtype; written in place), got {y.dtype}")
        if y.shape != (n,):
            raise ValueError(f"y must be a vector of {n} values, got shape {y.shape}")
        if not _dense_vector(y, dtype):
            raise ValueError("y must be contiguous (written in place), got a strided view")
        if cp is None and not y.flags.writeable:
            raise ValueError("y is read-only: it must be writable (written in place)")
        return y, (y.data.ptr if cp is not None else y.ctypes.data)

    def spmv(self, x, y=None, alpha=1.0, beta=0.0):
        """y = alpha*A*x + beta*y in the matrix's format: on the host with NumPy
        arrays, on the GPU (after to_device) with CuPy arrays, on CuPy's current
        stream. y is written in place when given (of the matrix's dtype, contiguous),
        else allocated. Returns y. A y that overlaps x is computed as if x had
        been copied first."""
        rows, cols, dt, _, xshape, yshape, step = self._fixed()
        alpha, beta = _real("alpha", alpha), _real("beta", beta)
        if self._plan and y is not None and _CUPY and _CUPY[0] is not None:  # the common device call
            cp = _CUPY[0]
            if (type(x) is cp.ndarray and type(y) is cp.ndarray and x.dtype == dt and y.dtype == dt
                    and x.shape == xshape and y.shape == yshape and x.strides == step and y.strides == step
                    and not _overlap(x.data.ptr, cols, y.data.ptr, rows, step[0])):
                st = L.lib.cis_gpu_spmv(self._plan, alpha, x.data.ptr, beta, y.data.ptr,
                                        cp.cuda.get_current_stream().ptr)
                if st:
                    check(st)
                return y
        x, xp = self._vec(x, cols, "x", dt)
        if y is None:
            if beta != 0.0:
                raise ValueError("beta != 0 needs y")
            y = (_cupy().empty if self._plan else np.empty)(rows, dtype=dt)
        y, yp = self._out(y, rows, dt)
        if _overlap(xp, cols, yp, rows, dt.itemsize):  # y aliases x: the product reads a copy of x
            x = x.copy()
            xp = x.data.ptr if self._plan else x.ctypes.data
        if self._plan:
            stream = _cupy().cuda.get_current_stream().ptr
            check(L.lib.cis_gpu_spmv(self._plan, alpha, xp, beta, yp, stream))
        else:
            check(L.lib.cis_matrix_spmv(self._M, alpha, xp, beta, yp))
        return y

    def matmat(self, X):
        """Y = A X for a block of k vectors, X cols x k (NumPy on the host, CuPy
        on the GPU, converted to the matrix's dtype), by one
        cis_operator_apply_block: on the GPU the SpMM of csr plans (one pass
        over the matrix per 16 vectors, cis_gpu_spmm), else the format's SpMV
        column by column. X in column-major (Fortran) order is read in place,
        any other is copied to it first; Y (rows x k, the matrix's dtype) is
        column-major, its columns those that spmv gives."""
        rows, cols, dt = self._fixed()[:3]
        shape = np.shape(X)
        if len(shape) != 2 or shape[0] != cols:
            raise ValueError(f"X must be a {cols} x k block (k vectors of {cols} values), got shape {shape}")
        X, xp = self._vec(X, cols, "X", dt, block=True)
        if self._plan:
            Y = _cupy().empty((rows, shape[1]), dtype=dt, order="F")
            yp, stream = Y.data.ptr, _cupy().cuda.get_current_stream().ptr
        else:
            Y = np.empty((rows, shape[1]), dtype=dt, order="F")
            yp, stream = Y.ctypes.data, None
        op = self._operator()
        try:
            check(L.lib.cis_operator_apply_block(op, shape[1], 1.0, xp, cols, 0.0, yp, rows, stream))
        finally:
            L.lib.cis_operator_free(op)
        return Y

    def __matmul__(self, x):
        """A @ x: spmv for a vector, matmat for a cols x k block (NumPy's rule)."""
        return self.spmv(x) if np.ndim(x) < 2 else self.matmat(x)

    def _operator(self):
        """A new cis_operator* on this matrix (its GPU plan when on the
        device), for the caller to cis_operator_free."""
        op = L.P()
        if self.on_device:
            check(L.lib.cis_operator_from_gpu_plan(self._plan, ctypes.byref(op)))
        else:
            check(L.lib.cis_operator_from_matrix(self._M, ctypes.byref(op)))
        return op

    def transpose(self):
        """A^T in the same format (and on the device when A is), made once. It
        owns its arrays: it outlives A (closed or collected)."""
        M = self._live()
        if self._T is None or not self._T._M:  # (made again when the user closed it)
            p = L.POINTER(L.cis_csr)()
            check(L.lib.cis_csr_transpose(self._csr_ref(), ctypes.byref(p)))
            T = Matrix()
            T._csr, T._csr_owned = p, True
            T._build(self._format, L.lib.cis_matrix_dtype(M), self._params)
            if self.on_device:
                T.to_device()
            self._T = T
        return self._T

    @property
    def T(self):
        return self.transpose()

    def aslinearoperator(self):
        """scipy.sparse.linalg.LinearOperator on the host, or
        cupyx.scipy.sparse.linalg.LinearOperator when the matrix is on the GPU,
        whose matvec is this matrix's SpMV (rmatvec: the transpose's). It holds
        the matrix (alive while the operator is)."""
        if self.on_device:
            from cupyx.scipy.sparse.linalg import LinearOperator
        else:
            from scipy.sparse.linalg import LinearOperator
        return LinearOperator(self.shape, matvec=lambda x: self.spmv(x.ravel()),
                              rmatvec=lambda x: self.transpose().spmv(x.ravel()), matmat=self.matmat, dtype=self.dtype)


def from_scipy(A, format="csr", dtype=None, **params):
    """Matrix.from_scipy."""
    return Matrix.from_scipy(A, format=format, dtype=dtype, **params)


def load(source, format="csr", dtype="float64", **params):
    """Matrix.load: a file, '-' or a generator spec."""
    return Matrix.load(source, format=format, dtype=dtype, **params)


def aslinearoperator(A):
    """A Matrix (or scipy.sparse matrix, built as csr) as a LinearOperator."""
    if not isinstance(A, Matrix):
        A = Matrix.from_scipy(A)
    return A.aslinearoperator()
