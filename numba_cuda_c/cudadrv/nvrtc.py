"""numba.cuda.cudadrv.nvrtc's helpers that users call: the architectures NVRTC compiles for and the
-arch option for a device. The NVRTC binding itself is C (src/launch/nvrtc.c)."""

from numba_cuda_c import _cuda
from numba_cuda_c.cudadrv.error import CCSupportError, NvrtcError

__all__ = ["NvrtcError", "find_closest_arch", "get_arch_option", "get_lowest_supported_cc", "get_supported_ccs"]


def _get_nvrtc_version():
    """NVRTC's (major, minor) version (numba's name: programs compare it to pick options)."""
    return tuple(_cuda.nvrtc_version())


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


def find_closest_arch(cc):
    """The newest compute capability this NVRTC compiles for that is not above `cc` (major, minor): cc itself
    where supported, the newest supported one for a device newer than them all. CCSupportError for a device
    older than them all."""
    supported = get_supported_ccs()
    fitting = [c for c in supported if c <= tuple(cc)]
    if not fitting:
        raise CCSupportError(
            "GPU compute capability %d.%d is not supported(requires >=%d.%d)" % (tuple(cc[:2]) + supported[0])
        )
    return fitting[-1]
