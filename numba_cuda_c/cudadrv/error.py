"""numba.cuda.cudadrv.error: the exception types."""

from numba_cuda_c._cuda import CudaAPIError, CudaDriverError, CudaSupportError, NvrtcError

__all__ = [
    "CCSupportError",
    "CudaAPIError",
    "CudaDriverError",
    "CudaSupportError",
    "NvrtcError",
    "NvvmError",
    "NvvmSupportError",
    "NvvmWarning",
]


class NvvmError(Exception):
    """A libNVVM call failed (cudadrv.nvvm); .status is its nvvmResult."""

    def __str__(self):
        return "\n".join(map(str, self.args))


class NvvmSupportError(ImportError):
    """libNVVM cannot be found or loaded."""


class NvvmWarning(Warning):
    """libNVVM's log from a compilation that succeeded."""


class CCSupportError(RuntimeError):
    """A compute capability older than every architecture the toolkit compiles for."""
