"""numba's ready-made transpose kernel (numba_cuda_c.kernels.transpose.transpose): numbers, booleans, records with
nested arrays, into a given array or a new one. Translation for every kind in CI; results on the GPU."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c.kernels.transpose import _transpose_tiles, transpose
from numba_cuda_c.np.numpy_support import from_dtype

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


@needs_nvrtc
def test_the_transpose_kernel_translates_for_each_kind():
    for t in (cuda.float64, cuda.complex128, cuda.boolean, from_dtype(RECORD)):
        cuda.compile_ptx(_transpose_tiles.py_func, (t[:, :], t[:, :]))


def test_transpose_checks_shapes_before_the_gpu():
    with pytest.raises(ValueError, match="2-d array"):
        transpose(np.zeros(3))
    with pytest.raises(ValueError, match="the transpose of a 2x3 array is 3x2"):
        transpose(np.zeros((2, 3)), np.zeros((2, 3)))


@requires_gpu
def test_transpose_on_the_gpu():
    for rows, columns, dtype in (
        (5, 6, np.float64),
        (128, 128, np.complex128),
        (1025, 512, np.float64),
        (17, 16, np.bool_),
    ):
        x = (np.arange(rows * columns) % 7).astype(dtype).reshape(columns, rows)
        dy = cuda.device_array((rows, columns), dtype)
        transpose(cuda.to_device(x), dy)
        np.testing.assert_array_equal(dy.copy_to_host(), x.T)
        np.testing.assert_array_equal(transpose(cuda.to_device(x)).copy_to_host(), x.T)
    arr = np.zeros((14, 15), RECORD)
    arr["i"] = np.arange(14 * 15).reshape(14, 15)
    arr["j"] = np.arange(14 * 15 * 6, dtype=np.float32).reshape(14, 15, 3, 2)
    d_transposed = cuda.device_array_like(arr.T)
    transpose(cuda.to_device(arr), d_transposed)
    np.testing.assert_array_equal(d_transposed.copy_to_host(), arr.T)
