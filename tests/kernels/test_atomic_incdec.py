"""cuda.atomic.inc / dec on every 32- and 64-bit integer type numba takes (CUDA has them for uint32
only; the others are a compare-and-swap loop with the same rules). PTX in CI; results on the GPU against
a sequential Python model (every thread applies one step, so the order does not change the result)."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import int32, int64, uint32, uint64


def steps(up, down, limit):
    cuda.atomic.inc(up, 0, limit)
    cuda.atomic.dec(down, 0, limit)


def model(start, count, limit, up):
    value = start
    for _ in range(count):
        if up:
            value = 0 if value >= limit else value + 1
        else:
            value = limit if value == 0 or value > limit else value - 1
    return value


@needs_nvrtc
@pytest.mark.parametrize("t", [uint32, uint64, int32, int64])
def test_compiles(t):
    ptx, _ = cuda.compile_ptx(steps, (t[:], t[:], t))
    assert ("atom.inc" in ptx) == (t == uint32) and "atom" in ptx  # generic, as numba's (lib/atomics.py)


@requires_gpu
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64, np.int32, np.int64])
def test_results(dtype):
    kernel = cuda.jit(steps)
    for start, limit in ((0, 5), (3, 10), (7, 5)):
        up, down = np.array([start], dtype=dtype), np.array([start], dtype=dtype)
        kernel[1, 37](up, down, dtype(limit))
        assert up[0] == model(start, 37, limit, True) and down[0] == model(start, 37, limit, False), (start, limit)


def maxima(res, vals):
    i = cuda.threadIdx.x
    cuda.atomic.max(res, 0, vals[i])
    cuda.atomic.nanmin(res, 1, vals[i])


@needs_nvrtc
def test_float_max_min_compile():
    ptx, _ = cuda.compile_ptx(maxima, (cuda.float64[:], cuda.float64[:]))
    assert "atom.global.cas.b64" in ptx or "atom.cas.b64" in ptx


@requires_gpu
def test_float_max_min_nan_rules_as_numba():
    """numba's rules: max/min never take a NaN value in and keep a NaN stored; nanmax/nanmin also
    replace a NaN stored (NaNs ignored)."""
    kernel = cuda.jit(maxima)
    vals = np.arange(32, dtype=np.float64)
    vals[1::2] = np.nan
    res = np.array([5.0, np.nan])
    kernel[1, 32](res, vals)
    assert res[0] == np.nanmax(vals) and res[1] == np.nanmin(vals)
    res = np.array([np.nan, 3.0])
    kernel[1, 32](res, np.full(32, np.nan))
    assert np.isnan(res[0]) and res[1] == 3.0
