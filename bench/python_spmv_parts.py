#!/usr/bin/env python3
"""Where Matrix.spmv's Python time goes on the device path (issue 12's
overhead goal): the CPU time of each piece of the call, timeit medians,
on the GPU machine's CPU (no synchronization: host-side cost only).

    PYTHONPATH=python CISPARSE_LIBRARY=build/libcisparse.so python3 bench/python_spmv_parts.py [SPEC] [FORMAT]
"""
import statistics
import sys
import timeit

import cupy as cp
import numpy as np

import cisparse
from cisparse import _lib as L
from cisparse import _matrix as M

spec = sys.argv[1] if len(sys.argv) > 1 else "ci:rows=4096,seed=1"
fmt = sys.argv[2] if len(sys.argv) > 2 else "sell16"
A = cisparse.load(spec, format=fmt)
A.to_device()
n = A.shape[0]
dx, dy = cp.asarray(np.ones(n)), cp.empty(n)
plan, xp, yp, dt = A._plan, dx.data.ptr, dy.data.ptr, A.dtype
stream = cp.cuda.get_current_stream().ptr
parts = {
    "A.shape": lambda: A.shape,
    "A.on_device": lambda: A.on_device,
    "_cupy()": M._cupy,
    "isinstance(dx, cp.ndarray)": lambda: isinstance(dx, cp.ndarray),
    "A.dtype": lambda: A.dtype,
    "_dense_vector(dx)": lambda: M._dense_vector(dx, dt),
    "dx.data.ptr": lambda: dx.data.ptr,
    "dx.ndim, dx.shape[0]": lambda: (dx.ndim, dx.shape[0]),
    "A._vec(dx)": lambda: A._vec(dx, n, "x", dt),
    "A._fixed()": A._fixed,
    "get_current_stream().ptr": lambda: cp.cuda.get_current_stream().ptr,
    "float(1.0)": lambda: float(1.0),
    "check(0)": lambda: cisparse._errors.check(0),
    "bare cis_gpu_spmv (launch)": lambda: L.lib.cis_gpu_spmv(plan, 1.0, xp, 0.0, yp, stream),
    "A.spmv(dx, dy) (launch)": lambda: A.spmv(dx, dy),
}
for name, f in parts.items():
    t = timeit.repeat(f, number=2000, repeat=7)
    cp.cuda.Device().synchronize()
    print(f"{name:32s} {statistics.median(t) / 2000 * 1e6:8.3f} us")
