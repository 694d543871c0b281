"""cisparse: sparse storage formats, SpMV on the CPU and the GPU, and Krylov
solvers, from Python (ctypes over the public C API, libcisparse).

    import cisparse, scipy.sparse as sp
    A = cisparse.Matrix.from_scipy(sp.random(1000, 1000, 0.01, format="csr") + sp.eye(1000), format="hyb")
    y = A.spmv(x)                          # NumPy in, NumPy out (the host, OpenMP); A @ x the same
    Y = A @ X                              # X cols x k: k vectors at once
    A.to_device(); y = A.spmv(cupy_x)      # CuPy in, CuPy out (the GPU)
    L = A.aslinearoperator()               # SciPy's (or CuPy's) solvers on cisparse's SpMV
    x, info = cisparse.solve(A, b, method="cg", M="jacobi", rtol=1e-10)  # info: SciPy's int, 0 = converged

Importing it sets OMP_WAIT_POLICY=passive unless it is set (docs/python.md).
"""
from . import _lib
from ._errors import CisparseError, ClosedMatrixError, NoGPUError
from ._matrix import Matrix, aslinearoperator, formats, from_scipy, gpu_count, load
from ._solve import SolveResult, solve

__version__ = _lib.lib.cis_version().decode()
library_path = _lib.path
with_cuda = bool(_lib.lib.cis_built_with_cuda())

__all__ = ["Matrix", "load", "from_scipy", "aslinearoperator", "solve", "SolveResult", "CisparseError",
           "ClosedMatrixError", "NoGPUError", "formats", "gpu_count", "with_cuda", "library_path", "__version__"]
