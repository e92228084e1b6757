"""`requires_gpu`: skips a test (or, as `pytestmark = requires_gpu`, a module) where no CUDA GPU is usable."""

import pytest

import numba_cuda_c


def _reason():
    why = numba_cuda_c.cuda_error()
    return "no CUDA GPU: " + (why if why is not None else "the driver reports no device")


requires_gpu = pytest.mark.skipif(not numba_cuda_c.is_available(), reason=_reason())
