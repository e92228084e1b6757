"""`requires_gpu`: skips a test (or, as `pytestmark = requires_gpu`, a module) where no CUDA GPU is usable."""

import pytest

import numba_cuda_c


def _reason():
    why = numba_cuda_c.cuda_error()
    return "no CUDA GPU: " + (why if why is not None else "the driver reports no device")


requires_gpu = pytest.mark.skipif(not numba_cuda_c.is_available(), reason=_reason())


def _nvrtc_missing():
    try:
        numba_cuda_c._cuda.nvrtc_version()
    except numba_cuda_c.NvrtcError as exc:
        return "NVRTC is not installed: %s" % exc
    return None


# `needs_nvrtc`: skips a test where NVRTC (which compiles kernels, no GPU needed) cannot be loaded
needs_nvrtc = pytest.mark.skipif(_nvrtc_missing() is not None, reason=_nvrtc_missing() or "")
