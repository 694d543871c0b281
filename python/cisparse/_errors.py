"""Exceptions carrying cisparse's one-line message (cis_last_error)."""
from . import _lib as L


class CisparseError(RuntimeError):
    """A cisparse call failed. ``status`` is the cis_status code,
    ``status_name`` its short name, ``str(e)`` the library's one-line message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.status_name = L.lib.cis_status_name(status).decode()


class NoGPUError(CisparseError):
    """No usable CUDA device, or a build without CUDA (CIS_ERR_NO_GPU)."""


class ClosedMatrixError(CisparseError, ValueError):
    """A cisparse.Matrix used after close() (or the end of its with block),
    or one that was never built (a bare Matrix())."""

    def __init__(self, message):
        super().__init__(L.ERR_INVALID, message)


def check(status):
    """Raise for a non-OK status with the message the call recorded."""
    if status != L.OK:
        msg = L.lib.cis_last_error().decode(errors="replace")
        cls = NoGPUError if status == L.ERR_NO_GPU else CisparseError
        raise cls(status, msg or L.lib.cis_status_name(status).decode())
