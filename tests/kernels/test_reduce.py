"""cuda.reduce (numba's Reduce): full reductions with a user's binary function, for every size around the
block and grid boundaries, several dtypes, host and device inputs, size=, init= and res=. The kernel
translates and compiles in CI; results on the GPU against NumPy."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c import _cuda, types


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return a if a > b else b


def test_the_reduction_kernel_compiles():
    try:
        _cuda.nvrtc_version()
    except cuda.NvrtcError:
        pytest.skip("NVRTC is not installed")
    for t in (cuda.float32, cuda.int64, cuda.float64):
        ptx, _ = cuda.compile_ptx(sum_reduce._kernel.py_func, (t[:], t[:], t, cuda.boolean, types.NumberClass(t)))
        assert ".shared" in ptx


def test_refusals():
    with pytest.raises(TypeError, match="only support 1D array"):
        sum_reduce(np.zeros((2, 2)))
    assert sum_reduce(np.zeros(0, dtype=np.int32), init=5) == 5  # empty: init, without a launch


@requires_gpu
@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 1000, 256 * 64, 256 * 64 + 1, 1_000_003])
def test_sums_and_maxima(n):
    rng = np.random.default_rng(n)
    ints = rng.integers(-1000, 1000, n).astype(np.int64)
    assert sum_reduce(ints) == ints.sum()
    assert sum_reduce(cuda.to_device(ints)) == ints.sum()
    assert max_reduce(ints, init=ints[0]) == ints.max()  # init is folded in too (numba): 0 would win
    floats = rng.random(n).astype(np.float32)
    np.testing.assert_allclose(sum_reduce(floats), floats.sum(dtype=np.float64), rtol=1e-5)


@requires_gpu
def test_size_init_res_and_streams():
    data = np.arange(1, 1001, dtype=np.float64)
    assert sum_reduce(data, size=10) == 55.0
    assert sum_reduce(data, init=100) == data.sum() + 100
    res = cuda.device_array(1)
    s = cuda.stream()
    assert sum_reduce(cuda.to_device(data), res=res, stream=s) is None
    s.synchronize()
    assert res.copy_to_host()[0] == data.sum()
    assert isinstance(sum_reduce(data.astype(np.int32)), np.int32)
