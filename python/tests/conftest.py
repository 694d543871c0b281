"""Shared fixtures: small matrices, and the GPU marker that skips with the
reason (cis_gpu_count's) where no device or no CUDA build is present."""
import numpy as np
import pytest
import scipy.sparse as sp

import cisparse


def _gpu_reason():
    n, why = cisparse.gpu_count()
    if n == 0:
        return f"no GPU: {why}"
    try:
        import cupy  # noqa: F401
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # not installed, or no driver
        return f"CuPy unavailable: {e}"
    return None


GPU_REASON = _gpu_reason()
gpu = pytest.mark.skipif(GPU_REASON is not None, reason=str(GPU_REASON))


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.fixture
def spd():
    """A 1000x1000 SPD matrix (3D Laplacian, 10^3 grid) as scipy CSR."""
    n = 10
    T = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    I = sp.identity(n)
    return (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()


@pytest.fixture
def nonsym(rng):
    """A 500x500 nonsymmetric, diagonally dominant random matrix."""
    A = sp.random(500, 500, density=0.02, random_state=3, format="csr")
    A = A - sp.diags(np.asarray(abs(A).sum(axis=1)).ravel() + 1.0)
    return A.tocsr()
