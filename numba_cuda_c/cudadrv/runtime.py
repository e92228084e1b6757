"""numba.cuda.cudadrv.runtime: the CUDA runtime's version, as numba's cuda.runtime reports it."""

from numba_cuda_c import _cuda

# The runtime versions numba-cuda supports: CUDA 11.x (from 11.2), 12.x and 13.x.
_SUPPORTED_MAJORS = (11, 12, 13)


class Runtime:
    """Runtime object that lazily finds the CUDA runtime library."""

    def get_version(self):
        """Returns the CUDA Runtime version as a tuple (major, minor).

        Read from libcudart (cudaRuntimeGetVersion) where one is found in the CUDA library
        directories; otherwise NVRTC's version (nvrtcVersion), which ships with the same toolkit.
        Raises NvrtcError when neither library is found.
        """
        version = _cuda._cudart_version()
        return version if version is not None else _cuda.nvrtc_version()

    @property
    def supported_versions(self):
        return tuple((major, minor) for major in _SUPPORTED_MAJORS for minor in range(10))

    def is_supported_version(self):
        """True if the CUDA runtime is a supported version (11.2 and later)."""
        return self.get_version() >= (11, 2) and self.get_version()[0] in _SUPPORTED_MAJORS


runtime = Runtime()


def get_version():
    return runtime.get_version()
