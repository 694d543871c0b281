"""cisparse.Matrix: a sparse matrix in one of cisparse's storage formats,
on the host and, after ``to_device()``, on the GPU."""
import ctypes

import numpy as np

from . import _lib as L
from ._errors import CisparseError, check

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
        self._T = None           # the transpose (Matrix), made on demand
        self.format = None

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
        if dtype is None:
            dtype = A.dtype if A.dtype in (np.float32, np.float64) else np.float64
        code = _dtype_code(dtype)
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
        for k, v in params.items():
            if k == "boundary_mode":
                v = {"count": 0, "column": 1}.get(v, v)
            if not hasattr(p, k) or k == "dtype":
                raise TypeError(f"unknown format parameter {k!r}")
            setattr(p, k, v)
        check(L.lib.cis_matrix_create(self._csr_ref(), str(format).encode(), ctypes.byref(p), ctypes.byref(self._M)))
        self.format = L.lib.cis_matrix_format_name(self._M).decode()
        self._params = params

    def close(self):
        """Free the format, the device plan and a CSR the library allocated."""
        if getattr(self, "_plan", None):
            L.lib.cis_gpu_plan_free(self._plan)
            self._plan = L.P()
        if getattr(self, "_M", None):
            L.lib.cis_matrix_free(self._M)
            self._M = L.P()
        if getattr(self, "_csr_owned", False) and self._csr:
            L.lib.cis_csr_free(self._csr)
        self._csr, self._csr_owned, self._keep = None, False, ()
        if getattr(self, "_T", None) is not None:
            self._T.close()
            self._T = None

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
        return (int(L.lib.cis_matrix_rows(self._M)), int(L.lib.cis_matrix_cols(self._M)))

    @property
    def nnz(self):
        return int(L.lib.cis_matrix_nnz(self._M))

    @property
    def dtype(self):
        return np.dtype(_NP[L.lib.cis_matrix_dtype(self._M)])

    @property
    def on_device(self):
        return bool(self._plan)

    @property
    def nbytes(self):
        """Bytes of the format's arrays (what the GPU holds)."""
        return int(L.lib.cis_matrix_bytes(self._M))

    def __repr__(self):
        where = f", on the GPU ({L.lib.cis_gpu_plan_kernel(self._plan).decode()})" if self.on_device else ""
        return f"<cisparse.Matrix {self.shape[0]}x{self.shape[1]}, {self.nnz} nonzeros, {self.format}, {self.dtype}{where}>"

    def info(self, ref_cols=None):
        """The statistics `cisparse info` prints: size, nonzeros per row, NaN/Inf
        count, Reference / Expansion Space regions (columns [0, ref_cols); by
        default the hybrid format's column boundary), the format's bytes, and
        for hyb its split."""
        s = L.cis_csr_stats()
        check(L.lib.cis_csr_stats_get(self._csr_ref(), -1 if ref_cols is None else int(ref_cols), ctypes.byref(s)))
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
        if self._plan:
            L.lib.cis_gpu_plan_free(self._plan)
            self._plan = L.P()
        check(L.lib.cis_gpu_plan_create(self._M, kernel.encode() if kernel else None, int(block_size),
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

    def _vec(self, v, n, name, dtype):
        """A contiguous array of the matrix's dtype and length n (host or device)."""
        cp = _cupy()
        if cp is not None and isinstance(v, cp.ndarray):
            if not self.on_device:
                raise ValueError(f"{name} is a CuPy array but the matrix is on the host (call to_device())")
            if not _dense_vector(v, dtype):  # (ascontiguousarray costs microseconds even when a no-op)
                v = cp.ascontiguousarray(v, dtype=dtype)
            ptr = v.data.ptr
        else:
            if self.on_device:
                raise ValueError(f"{name} is a host array but the matrix is on the GPU (pass a CuPy array)")
            v = np.ascontiguousarray(v, dtype=dtype)
            ptr = v.ctypes.data
        if v.ndim != 1 or v.shape[0] != n:
            raise ValueError(f"{name} must be a vector of {n} values, got shape {v.shape}")
        return v, ptr

    def spmv(self, x, y=None, alpha=1.0, beta=0.0):
        """y = alpha*A*x + beta*y in the matrix's format: on the host with NumPy
        arrays, on the GPU (after to_device) with CuPy arrays, on CuPy's current
        stream. y is written in place when given (of the matrix's dtype, contiguous),
        else allocated. Returns y."""
        rows, cols, dt, _, xshape, yshape, step = self._fixed()
        if self._plan and y is not None and _CUPY and _CUPY[0] is not None:  # the common device call
            cp = _CUPY[0]
            if (type(x) is cp.ndarray and type(y) is cp.ndarray and x.dtype == dt and y.dtype == dt
                    and x.shape == xshape and y.shape == yshape and x.strides == step and y.strides == step):
                st = L.lib.cis_gpu_spmv(self._plan, float(alpha), x.data.ptr, float(beta), y.data.ptr,
                                        cp.cuda.get_current_stream().ptr)
                if st:
                    check(st)
                return y
        x, xp = self._vec(x, cols, "x", dt)
        if y is None:
            if beta != 0.0:
                raise ValueError("beta != 0 needs y")
            y = (_cupy().empty if self.on_device else np.empty)(rows, dtype=dt)
        elif not (y.dtype == dt and (y.ndim != 1 or _dense_vector(y, dt))):
            raise ValueError(f"y must be a contiguous {dt} array (written in place)")
        y, yp = self._vec(y, rows, "y", dt)
        if self.on_device:
            stream = _cupy().cuda.get_current_stream().ptr
            check(L.lib.cis_gpu_spmv(self._plan, float(alpha), xp, float(beta), yp, stream))
        else:
            check(L.lib.cis_matrix_spmv(self._M, float(alpha), xp, float(beta), yp))
        return y

    def __matmul__(self, x):
        return self.spmv(x)

    def transpose(self):
        """A^T in the same format (and on the device when A is), made once."""
        if self._T is None:
            p = L.POINTER(L.cis_csr)()
            check(L.lib.cis_csr_transpose(self._csr_ref(), ctypes.byref(p)))
            T = Matrix()
            T._csr, T._csr_owned = p, True
            T._build(self.format, L.lib.cis_matrix_dtype(self._M), self._params)
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
        whose matvec is this matrix's SpMV (rmatvec: the transpose's)."""
        if self.on_device:
            from cupyx.scipy.sparse.linalg import LinearOperator
            cp = _cupy()

            def matmat(X):
                return cp.stack([self.spmv(X[:, j]) for j in range(X.shape[1])], axis=1)
        else:
            from scipy.sparse.linalg import LinearOperator

            def matmat(X):
                Y = np.empty((self.shape[0], X.shape[1]), dtype=self.dtype)
                for j in range(X.shape[1]):
                    Y[:, j] = self.spmv(X[:, j])
                return Y
        return LinearOperator(self.shape, matvec=lambda x: self.spmv(x.ravel()),
                              rmatvec=lambda x: self.transpose().spmv(x.ravel()), matmat=matmat, dtype=self.dtype)


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
