#!/usr/bin/env python3
"""What the Python layer adds to one SpMV (issue 12: <= 5% over the C call
on the 32k CI matrix on the GPU; measured, not asserted).

Each figure is a median over many calls; the two ways of calling alternate
call by call, so that drift (clocks, other load) falls on both alike.

Host: Matrix.spmv(x, y) against the bare ctypes call of cis_matrix_spmv
with prebuilt pointers (the least Python can do), wall clock per call.

Device (when a GPU and CuPy are present): Matrix.spmv(dx, dy) against the
bare ctypes call of cis_gpu_spmv on the same plan, vectors and stream, each
timed alone between two CUDA events and synchronized (what one call costs a
caller that waits for it: the launch latency is in both). Also printed: the
kernel back to back (`runs` bare calls between two events, per call), where
the launches overlap the kernels: close to the kernel alone while a kernel
outlasts a call's launch. (The tool's in-C timing, `cisparse bench`, is not
exported by the library.)

    PYTHONPATH=python CISPARSE_LIBRARY=build/libcisparse.so python3 bench/python_overhead.py [SPEC] [FORMAT]
"""
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


def alternate(f, g, timer, runs, warm=3):
    """Medians of timer(f) and timer(g), called in turn."""
    for _ in range(warm):
        f(), g()
    tf, tg = [], []
    for _ in range(runs):
        tf.append(timer(f))
        tg.append(timer(g))
    return statistics.median(tf), statistics.median(tg)


def wall(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


c, p = alternate(lambda: L.lib.cis_matrix_spmv(A._M, 1.0, x.ctypes.data, 0.0, y.ctypes.data), lambda: A.spmv(x, y),
                 wall, 20)
print(f"host: bare ctypes call {c * 1e6:9.1f} us   Matrix.spmv {p * 1e6:9.1f} us   "
      f"Python layer +{(p - c) * 1e6:.1f} us ({100 * (p - c) / c:+.2f}%)")

n_gpu, why = cisparse.gpu_count()
if n_gpu == 0:
    print(f"device: skipped ({why})")
    sys.exit(0)
import cupy as cp  # noqa: E402

A.to_device()
dx, dy = cp.asarray(x), cp.empty(n)
start, stop = cp.cuda.Event(), cp.cuda.Event()


def events(f):
    start.record()
    f()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) * 1e-3


plan, xp, yp, stream = A._plan, dx.data.ptr, dy.data.ptr, cp.cuda.get_current_stream().ptr


def back_to_back():
    for _ in range(runs):
        cisparse._errors.check(L.lib.cis_gpu_spmv(plan, 1.0, xp, 0.0, yp, stream))


for _ in range(10):
    cisparse._errors.check(L.lib.cis_gpu_spmv(plan, 1.0, xp, 0.0, yp, stream))
kernel = events(back_to_back) / runs
bare, mat = alternate(lambda: L.lib.cis_gpu_spmv(plan, 1.0, xp, 0.0, yp, stream), lambda: A.spmv(dx, dy), events,
                      runs, warm=10)
print(f"device ({L.lib.cis_gpu_plan_kernel(A._plan).decode()}): kernel back to back "
      f"{kernel * 1e6:7.1f} us; one call between events: bare ctypes cis_gpu_spmv {bare * 1e6:7.1f} us, "
      f"Matrix.spmv {mat * 1e6:7.1f} us: Python layer +{(mat - bare) * 1e6:.1f} us ({100 * (mat - bare) / bare:+.2f}%)")
