"""`requires_gpu`: skips a test (or, as `pytestmark = requires_gpu`, a module) where no CUDA GPU is usable."""

import pytest

import numba_cuda_c


NO_GPU = "no CUDA GPU"


def no_gpu_detail():
    """Why there is no GPU, in full: printed once under the summary (tests/conftest.py), not per test."""
    why = numba_cuda_c.cuda_error()
    return why if why is not None else "the driver reports no device"


requires_gpu = pytest.mark.skipif(not numba_cuda_c.is_available(), reason=NO_GPU)


def _nvrtc_missing():
    try:
        numba_cuda_c._cuda.nvrtc_version()
    except numba_cuda_c.NvrtcError as exc:
        return "NVRTC is not installed: %s" % exc
    return None


# `needs_nvrtc`: skips a test where NVRTC (which compiles kernels, no GPU needed) cannot be loaded
needs_nvrtc = pytest.mark.skipif(_nvrtc_missing() is not None, reason=_nvrtc_missing() or "")


def let_numba_import():
    """numba-cuda 0.30 imports numpy.row_stack, which NumPy 2.5 removed: put it back before importing numba."""
    import numpy as np

    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


def numba_cuda_or_skip():
    """numba-cuda itself, for tests that compare with it: skipped where it is not installed or sees no GPU."""
    let_numba_import()
    numba_cuda = pytest.importorskip("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba-cuda sees no GPU")
    return numba_cuda


def rebind(function, **names):
    """The same function with some of its globals replaced: `cuda` by numba's module for a run under numba-cuda (a
    kernel written against our module would hand numba-cuda our device names), device functions by their Python."""
    import types as pytypes

    namespace = dict(function.__globals__, **names)
    return pytypes.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
    )
