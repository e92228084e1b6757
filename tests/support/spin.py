"""A kernel that keeps one SM busy for a given time, launched on one of our streams.

It is our own SourceModule kernel (made once per process, loaded again in each context it runs in): a
kernel CuPy compiled is cached by CuPy per device, and stops working when another test resets the device.
"""

import numpy as np

_SOURCE = r"""
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}
"""
_kernel = []


def spinner(device):
    """A function spin(stream, milliseconds) for `device`."""
    import numba_cuda_c as cuda

    if not _kernel:
        _kernel.append(cuda.SourceModule(_SOURCE, name="spin.cu").get_function("spin"))
    kernel = _kernel[0]
    cycles_per_ms = device.CLOCK_RATE  # kHz

    def spin(stream, milliseconds):
        kernel[1, 1, stream](np.int64(int(milliseconds * cycles_per_ms)))

    return spin
