"""A kernel that keeps one SM busy for a given time, launched through CuPy on one of our streams.

Our own kernel launches arrive with the kernels issue; until then CuPy (present on the GPU
machine) launches it, through our stream's handle: the interop path users take as well.
"""

import pytest

_SOURCE = r"""
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}
"""


def spinner(device):
    """A function spin(stream, milliseconds) for `device`, or a pytest skip without CuPy."""
    cupy = pytest.importorskip("cupy")
    kernel = cupy.RawKernel(_SOURCE, "spin")
    cycles_per_ms = device.CLOCK_RATE  # kHz

    def spin(stream, milliseconds):
        foreign = cupy.cuda.ExternalStream(int(stream.handle))
        kernel((1,), (1,), (cupy.int64(int(milliseconds * cycles_per_ms)),), stream=foreign)

    return spin
