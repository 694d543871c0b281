#!/usr/bin/env python3
"""What the Python layer adds to one SpMV (issue 12: <= 5% over the C call
on the 32k CI matrix on the GPU; measured, not asserted).

Host: the median of Matrix.spmv(x, y) against the median of the bare
ctypes call of cis_matrix_spmv with prebuilt pointers (the least Python can
do). Device (when a GPU and CuPy are present): the median of
Matrix.spmv(x, y) timed with CUDA events around each call against
cis_gpu_time_spmv (CUDA events inside C, same kernel and vectors).

    PYTHONPATH=python CISPARSE_LIBRARY=build/libcisparse.so python3 bench/python_overhead.py [SPEC] [FORMAT]
"""
import ctypes
import statistics
import sys
import time

import numpy as np

import cisparse
from cisparse import _lib as L

spec = sys.argv[1] if len(sys.argv) > 1 else "ci:rows=32768,seed=1"
fmt = sys.argv[2] if len(sys.argv) > 2 else "hyb"
runs = 200  # device; the host uses 20 (a product takes milliseconds there)
A = cisparse.load(spec, format=fmt)
n, m = A.shape
print(f"{spec} {fmt}: {n} x {m}, {A.nnz} nonzeros; cisparse {cisparse.__version__} ({cisparse.library_path})")

x = np.random.default_rng(1).standard_normal(m)
y = np.empty(n)


def median_seconds(f, runs=20):
    for _ in range(3):
        f()
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return statistics.median(t)


c = median_seconds(lambda: L.lib.cis_matrix_spmv(A._M, 1.0, x.ctypes.data, 0.0, y.ctypes.data))
p = median_seconds(lambda: A.spmv(x, y))
print(f"host: bare ctypes call {c * 1e6:9.1f} us   Matrix.spmv {p * 1e6:9.1f} us   "
      f"Python layer +{(p - c) * 1e6:.1f} us ({100 * (p - c) / c:+.2f}%)")

n_gpu, why = cisparse.gpu_count()
if n_gpu == 0:
    print(f"device: skipped ({why})")
    sys.exit(0)
import cupy as cp  # noqa: E402

A.to_device()
dx, dy = cp.asarray(x), cp.empty(n)
ms = ctypes.c_double()
cisparse._errors.check(L.lib.cis_gpu_time_spmv(A._plan, dx.data.ptr, 0.0, dy.data.ptr, 10, runs, ctypes.byref(ms)))
start, stop = cp.cuda.Event(), cp.cuda.Event()
t = []
for i in range(runs + 10):
    start.record()
    A.spmv(dx, dy)
    stop.record()
    stop.synchronize()
    if i >= 10:
        t.append(cp.cuda.get_elapsed_time(start, stop))
pm = statistics.median(t)
print(f"device ({L.lib.cis_gpu_plan_kernel(A._plan).decode()}): cis_gpu_time_spmv {ms.value * 1e3:9.1f} us   "
      f"Matrix.spmv {pm * 1e3:9.1f} us   Python layer {100 * (pm - ms.value) / ms.value:+.2f}%")
