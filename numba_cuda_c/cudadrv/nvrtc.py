"""numba.cuda.cudadrv.nvrtc's helpers that users call: the architectures NVRTC compiles for and the
-arch option for a device. The NVRTC binding itself is C (src/nvrtc.c)."""

from numba_cuda_c import _cuda
from numba_cuda_c.cudadrv.error import NvrtcError

__all__ = ["NvrtcError", "get_arch_option", "get_lowest_supported_cc", "get_supported_ccs"]


def get_supported_ccs():
    """The compute capabilities this NVRTC compiles for, ascending: [(7, 5), (8, 0), ...]."""
    return sorted(_cuda.nvrtc_supported_archs())


def get_lowest_supported_cc():
    """The oldest compute capability this NVRTC compiles for."""
    return min(get_supported_ccs())


def get_arch_option(major, minor):
    """NVRTC's virtual architecture for a device of compute capability (major, minor):
    'compute_XY' of the newest supported capability not above it (numba's rule)."""
    supported = get_supported_ccs()
    fitting = [cc for cc in supported if cc <= (major, minor)]
    if not fitting:
        raise NvrtcError(
            "compute capability %d.%d is older than every architecture this NVRTC supports (oldest %d.%d)"
            % ((major, minor) + supported[0])
        )
    return "compute_%d%d" % fitting[-1]
