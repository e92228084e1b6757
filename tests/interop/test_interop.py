"""Zero-copy interop through __cuda_array_interface__: CuPy and PyTorch, both ways."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

pytestmark = requires_gpu


def test_cupy_array_consumed_without_copy():
    cupy = pytest.importorskip("cupy")
    c = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)[:, ::2]
    d = cuda.as_cuda_array(c)
    assert d.device_pointer == c.data.ptr
    assert d.strides == c.strides and d.shape == c.shape
    d[0, 0] = 100.0
    assert float(c[0, 0]) == 100.0
    c[2, 1] = -3.0
    assert d.copy_to_host()[2, 1] == -3.0


def test_our_array_consumed_by_cupy():
    cupy = pytest.importorskip("cupy")
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    c = cupy.asarray(d)
    assert c.data.ptr == d.device_pointer
    c[1] = 77
    assert d.copy_to_host()[1] == 77


def test_torch_both_ways():
    torch = pytest.importorskip("torch")
    t = torch.arange(8, dtype=torch.float64, device="cuda")
    d = cuda.as_cuda_array(t)
    assert d.device_pointer == t.data_ptr()
    d[2] = 55.0
    assert t[2].item() == 55.0
    ours = cuda.to_device(np.ones(5, dtype=np.float32))
    back = torch.as_tensor(ours, device="cuda")
    assert back.data_ptr() == ours.device_pointer
    back[0] = 9
    assert ours.copy_to_host()[0] == 9


def test_exporter_kept_alive():
    cupy = pytest.importorskip("cupy")
    d = cuda.as_cuda_array(cupy.full(1000, 3.0))
    import gc

    gc.collect()
    cupy.zeros(1000)  # would reuse the freed block if the exporter were gone
    assert (d.copy_to_host() == 3.0).all()
