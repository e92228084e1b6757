"""numba.cuda.kernels.reduction: Reduce (the class behind @cuda.reduce)."""

from numba_cuda_c.reduction import Reduce  # noqa: F401
