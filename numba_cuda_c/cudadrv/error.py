"""numba.cuda.cudadrv.error: the exception types."""

from numba_cuda_c._cuda import CudaAPIError, CudaDriverError, CudaSupportError, NvrtcError

__all__ = ["CudaAPIError", "CudaDriverError", "CudaSupportError", "NvrtcError"]
