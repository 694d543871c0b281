"""ctypes declarations of the public C API (include/cisparse/*.h) and the
loading of libcisparse.

The library is found, in order, at $CISPARSE_LIBRARY (a path; what the
build tree's tests use), next to this file (the wheel built by
``pip install .``), or by the loader (an installed libcisparse.so.0.3).
Before it is loaded, OMP_WAIT_POLICY is set to passive unless the user set
it, and once it is, the importing thread takes the library's thread count
unless OMP_NUM_THREADS is set: the rules of the cisparse tool
(_openmp_like_the_cli).

Every ctypes Structure here mirrors its C struct field by field, exactly;
at import each is checked against the size the library reports
(cis_abi_struct_size), so a struct that changed on either side fails with
an ImportError naming it instead of corrupting memory.
"""
import ctypes
import ctypes.util
import glob
import operator
import os
import re
import warnings

from ctypes import (POINTER, Structure, byref, c_char, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t,
                    c_uint64, c_void_p)

cis_int = c_int64
cis_idx = c_int32
cis_status = c_int

# status codes (cisparse/status.h)
OK, ERR_INVALID, ERR_ALLOC, ERR_IO, ERR_PARSE, ERR_RANGE, ERR_OVERFLOW, ERR_TOO_LARGE, ERR_UNSUPPORTED, \
    ERR_NOT_FOUND, ERR_NO_GPU, ERR_CUDA, ERR_DEVICE_OOM, ERR_CUSPARSE, ERR_NOT_CONVERGED, ERR_NUMERIC, \
    ERR_BREAKDOWN = range(17)

F64, F32 = 0, 1
MEM_HOST, MEM_DEVICE = 0, 1


class cis_csr(Structure):
    _fields_ = [("rows", cis_int), ("cols", cis_int), ("nnz", cis_int), ("dtype", c_int), ("flags", c_int),
                ("rowptr", POINTER(cis_int)), ("colind", POINTER(cis_idx)), ("val", c_void_p)]


class cis_csr_stats(Structure):
    _fields_ = [("rows", cis_int), ("cols", cis_int), ("nnz", cis_int), ("row_min", cis_int), ("row_max", cis_int),
                ("row_max_at", cis_int), ("row_avg", c_double), ("nonfinite", cis_int), ("ref_cols", cis_int),
                ("nnz_ref", cis_int), ("nnz_exp", cis_int), ("sp_ref", c_double), ("sp_exp", c_double),
                ("sp_total", c_double)]


class cis_format_params(Structure):
    _fields_ = [("dtype", c_int), ("slice", cis_int), ("sigma", cis_int), ("block", cis_int), ("boundary", cis_int),
                ("boundary_mode", c_int), ("csr5_sigma", cis_int), ("float_values", c_int)]


class cis_hyb_split(Structure):
    _fields_ = [("boundary", cis_int), ("mode", c_int), ("width", cis_int), ("csr_nnz", cis_int)]


class cis_krylov_opts(Structure):
    _fields_ = [("method", c_int), ("precond", c_int), ("version", c_int), ("tol", c_double), ("maxit", c_int),
                ("check_every", c_int), ("stagnation", c_int), ("history", POINTER(c_double)),
                ("history_len", c_int)]


class cis_krylov_info(Structure):
    _fields_ = [("end", c_int), ("iterations", c_int), ("rel_residual", c_double), ("seconds", c_double),
                ("setup_seconds", c_double), ("launches", c_int64), ("launches_per_iteration", c_double),
                ("history_written", c_int)]


class cis_gpu_info(Structure):
    _fields_ = [("name", c_char * 128), ("device", c_int), ("sm_count", c_int), ("cc_major", c_int),
                ("cc_minor", c_int), ("global_mem", c_int64), ("free_mem", c_int64), ("l2_bytes", c_int64),
                ("driver_version", c_int), ("runtime_version", c_int)]


def _candidates():
    env = os.environ.get("CISPARSE_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield from sorted(glob.glob(os.path.join(here, "libcisparse.so*")))
    for name in ("libcisparse.so.0.3", "libcisparse.so"):
        yield name
    found = ctypes.util.find_library("cisparse")
    if found:
        yield found


def _openmp_runtimes():
    """Paths of the OpenMP runtimes this process has loaded: libgomp, LLVM's
    libomp, Intel's libiomp5, and wheels' renamed copies of them such as
    PySCF's libgomp-<hash>.so (read from /proc/self/maps; none where it
    cannot be read)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {fields[5].strip() for fields in (line.split(maxsplit=5) for line in f) if len(fields) == 6}
    except OSError:
        return []
    return sorted(p for p in paths if re.match(r"lib[gi]?omp", os.path.basename(p)))


def _passive_waits():
    """Unless the user chose OMP_WAIT_POLICY, set it to passive before
    libcisparse brings in its OpenMP runtime, as the tool does (src/cli/main.c
    cli_passive_waits): idle threads then sleep instead of spinning, which
    on a shared or busy machine takes the cores the working threads need
    (cisparse.solve: 2.19 s spinning, 0.057 s passive on a loaded 2-core
    machine). A runtime reads the variable once, as it starts (libgomp: as
    it is loaded). Where libgomp.so.1, libcisparse's, is loaded already,
    setting it is too late and the environment is left as it is; where any
    runtime is (PySCF's own copy, imported first), it spins: either way a
    RuntimeWarning says how to get passive waits."""
    if "OMP_WAIT_POLICY" in os.environ:
        return
    before = _openmp_runtimes()
    ours_started = any(os.path.basename(p).startswith("libgomp.so") for p in before)
    if not ours_started:
        os.environ["OMP_WAIT_POLICY"] = "passive"
    if before:
        warnings.warn(f"cisparse: OpenMP was loaded before cisparse with OMP_WAIT_POLICY unset "
                      f"({', '.join(os.path.basename(p) for p in before)}), so its idle threads spin, which slows "
                      f"it and cisparse on a shared or busy machine (PySCF's CASSCF 10x): import cisparse before "
                      f"PySCF or other OpenMP code, or set OMP_WAIT_POLICY=passive before Python starts",
                      RuntimeWarning, stacklevel=3)


def _load():
    _passive_waits()
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("cisparse: cannot load libcisparse (set CISPARSE_LIBRARY to its path, or `pip install .`): "
                      + "; ".join(errors))


lib, path = _load()

P = c_void_p  # opaque handles (cis_matrix*, cis_gpu_plan*, cis_operator*)

_SIGNATURES = {
    # status.h
    "cis_status_name": (c_char_p, [c_int]),
    "cis_last_error": (c_char_p, []),
    "cis_error": (cis_status, [c_int, c_char_p, c_char_p]),
    "cis_clear_error": (None, []),
    # util.h
    "cis_version": (c_char_p, []),
    "cis_built_with_cuda": (c_int, []),
    "cis_cpu_limit": (c_int, []),
    "cis_abi_struct_size": (c_size_t, [c_char_p]),
    "cis_option_set": (cis_status, [c_char_p, c_char_p]),
    "cis_option_get": (c_char_p, [c_char_p]),
    "cis_options_from_env": (cis_status, []),
    "cis_option_set_pairs": (cis_status, [c_char_p]),
    "cis_options_unused": (c_int, [c_char_p, c_size_t]),
    # types.h
    "cis_free": (None, [c_void_p]),
    "cis_csr_free": (None, [POINTER(cis_csr)]),
    "cis_csr_check": (cis_status, [POINTER(cis_csr)]),
    "cis_csr_copy": (cis_status, [POINTER(cis_csr), c_int, POINTER(POINTER(cis_csr))]),
    "cis_csr_transpose": (cis_status, [POINTER(cis_csr), POINTER(POINTER(cis_csr))]),
    "cis_csr_stats_get": (cis_status, [POINTER(cis_csr), cis_int, POINTER(cis_csr_stats)]),
    "cis_csr_spmv": (cis_status, [POINTER(cis_csr), c_double, c_void_p, c_double, c_void_p]),
    "cis_csr_diagonal": (cis_status, [POINTER(cis_csr), POINTER(c_double)]),
    # io.h, gen.h
    "cis_load": (cis_status, [c_char_p, c_int, POINTER(POINTER(cis_csr))]),
    "cis_save": (cis_status, [c_char_p, POINTER(cis_csr)]),
    # format.h
    "cis_format_params_default": (cis_format_params, []),
    "cis_matrix_create": (cis_status, [POINTER(cis_csr), c_char_p, POINTER(cis_format_params), POINTER(P)]),
    "cis_matrix_free": (None, [P]),
    "cis_matrix_bytes": (cis_int, [P]),
    "cis_matrix_spmv": (cis_status, [P, c_double, c_void_p, c_double, c_void_p]),
    "cis_matrix_format_name": (c_char_p, [P]),
    "cis_matrix_dtype": (c_int, [P]),
    "cis_matrix_rows": (cis_int, [P]),
    "cis_matrix_cols": (cis_int, [P]),
    "cis_matrix_nnz": (cis_int, [P]),
    "cis_matrix_hyb_split": (cis_status, [P, POINTER(cis_hyb_split)]),
    "cis_format_count": (c_int, []),
    "cis_format_name": (c_char_p, [c_int]),
    # gpu.h
    "cis_gpu_count": (c_int, [c_char_p, c_size_t]),
    "cis_gpu_get_info": (cis_status, [POINTER(cis_gpu_info)]),
    "cis_gpu_plan_create": (cis_status, [P, c_char_p, c_int, POINTER(P)]),
    "cis_gpu_plan_create_cusparse": (cis_status, [POINTER(cis_csr), c_int, c_char_p, POINTER(P)]),
    "cis_gpu_spmv": (cis_status, [P, c_double, c_void_p, c_double, c_void_p, c_void_p]),
    "cis_gpu_plan_bytes": (cis_int, [P]),
    "cis_gpu_plan_workspace_bytes": (cis_int, [P]),
    "cis_gpu_plan_kernel": (c_char_p, [P]),
    "cis_gpu_plan_free": (None, [P]),
    "cis_gpu_sync": (cis_status, []),
    # operator.h
    "cis_operator_from_matrix": (cis_status, [P, POINTER(P)]),
    "cis_operator_from_csr": (cis_status, [POINTER(cis_csr), POINTER(P)]),
    "cis_operator_from_gpu_plan": (cis_status, [P, POINTER(P)]),
    "cis_operator_free": (None, [P]),
    "cis_operator_set_diagonal": (cis_status, [P, POINTER(c_double)]),
    "cis_operator_set_transpose": (cis_status, [P, P]),
    "cis_operator_name": (c_char_p, [P]),
    "cis_operator_apply": (cis_status, [P, c_double, c_void_p, c_double, c_void_p, c_void_p]),
    "cis_operator_apply_block": (cis_status, [P, c_int, c_double, c_void_p, cis_int, c_double, c_void_p, cis_int,
                                              c_void_p]),
    # solver.h
    "cis_krylov_opts_default": (cis_krylov_opts, []),
    "cis_krylov_method_parse": (cis_status, [c_char_p, POINTER(c_int)]),
    "cis_solver_version_parse": (cis_status, [c_char_p, POINTER(c_int)]),
    "cis_krylov_end_name": (c_char_p, [c_int]),
    "cis_krylov_method_name": (c_char_p, [c_int]),
    "cis_solver_version_name": (c_char_p, [c_int]),
    "cis_krylov_solve": (cis_status, [P, c_void_p, c_void_p, POINTER(cis_krylov_opts), POINTER(cis_krylov_info)]),
    "cis_krylov_solve_mixed": (cis_status, [P, P, c_void_p, c_void_p, POINTER(cis_krylov_opts), c_double,
                                            POINTER(cis_krylov_info), POINTER(c_int)]),
    "cis_true_residual": (cis_status, [P, c_void_p, c_void_p, c_void_p, POINTER(c_double), POINTER(c_double)]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def check_struct(pycls, name):
    """Raise ImportError unless ctypes Structure `pycls` has the size of the
    library's C struct `name` (cis_abi_struct_size): a mirror that no longer
    matches its struct fails at import, naming both sizes."""
    want = lib.cis_abi_struct_size(name.encode())
    got = ctypes.sizeof(pycls)
    if want == 0:
        raise ImportError(f"cisparse: {path} reports no struct {name} (mirrored by {pycls.__name__}): "
                          "the Python package and the library are from different versions")
    if got != want:
        raise ImportError(f"cisparse: struct {name} is {want} bytes in {path} but its ctypes mirror "
                          f"{pycls.__name__} is {got} bytes: update the mirror to the C struct")


def _openmp_like_the_cli():
    """No more OpenMP threads than the cores this process may use
    (cis_cpu_limit: affinity and cgroup quota) unless OMP_NUM_THREADS is set,
    as the tool does at start (src/cli/main.c cli_main). omp_set_num_threads
    sets the calling thread's count: the importing thread's (other threads
    start from the runtime's default; the library's SpMV caps itself)."""
    if "OMP_NUM_THREADS" not in os.environ:
        omp_set_num_threads = lib.omp_set_num_threads  # libgomp's, found through libcisparse's dependencies
        omp_set_num_threads.argtypes, omp_set_num_threads.restype = [c_int], None
        omp_set_num_threads(lib.cis_cpu_limit())


_openmp_like_the_cli()


def _options_from_env():
    """The library's tuning options from the one variable
    CISPARSE_OPTIONS="name=value,...", once at import (cis_options_from_env:
    what the tool does at start); a bad value or a misspelt name is an
    ImportError naming the variable and the option."""
    if lib.cis_options_from_env() != 0:
        raise ImportError(f"cisparse: {lib.cis_last_error().decode(errors='replace')}")


_options_from_env()


def _nvls_off_like_the_cli():
    """NVLink multicast off for NCCL unless the user chose (NCCL_NVLS_ENABLE
    unset: 0), as the tool does at start (src/cli/main.c cli_main): NCCL
    reads its own variable when a solve over several GPUs makes its
    communicators, and the library sets no environment."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")


_nvls_off_like_the_cli()

for _cls in (cis_csr, cis_csr_stats, cis_format_params, cis_hyb_split, cis_krylov_opts, cis_krylov_info,
             cis_gpu_info):
    check_struct(_cls, _cls.__name__)


def int_arg(name, value, ctype=c_int, lo=None):
    """value as a Python int that fits the C integer type ctype (and is at
    least lo): ctypes would wrap it silently (2**32 + 3 -> 3, 2**31 -> -2**31),
    so anything outside is a ValueError naming the argument and its range,
    and a non-integer a TypeError, before any C call."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r}") from None
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value == -1
    low = -(1 << (bits - 1)) if signed else 0
    high = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    low = low if lo is None else max(low, lo)
    if not low <= v <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {v}")
    return v


__all__ = ["lib", "path", "check_struct", "int_arg", "cis_csr", "cis_csr_stats", "cis_format_params", "cis_hyb_split",
           "cis_krylov_opts", "cis_krylov_info", "cis_gpu_info", "byref", "POINTER", "c_double", "c_int", "c_void_p",
           "c_char_p", "c_uint64"]
