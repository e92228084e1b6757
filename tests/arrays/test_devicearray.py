"""Device arrays: the seed's "Memory management" (device_array, to_device, copy_to_host, views...)."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

pytestmark = requires_gpu

rng = np.random.default_rng()

DTYPES = [
    np.int8,
    np.uint8,
    np.int16,
    np.int32,
    np.uint32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
    np.bool_,
]


def random_array(shape, dtype):
    data = rng.standard_normal(shape) * 100
    if np.dtype(dtype).kind == "c":
        data = data + 1j * rng.standard_normal(shape)
    return data.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_every_dtype(dtype):
    host = random_array((7, 5), dtype)
    d = cuda.to_device(host)
    assert isinstance(d, cuda.DeviceNDArray)
    assert (d.shape, d.strides, d.dtype, d.size, d.ndim) == (host.shape, host.strides, host.dtype, 35, 2)
    assert d.nbytes == host.nbytes == d.alloc_size
    np.testing.assert_array_equal(d.copy_to_host(), host)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a,
        lambda a: np.asfortranarray(a),
        lambda a: a[::2, 1::3],
        lambda a: a[::-1, ::-2],
        lambda a: a.T,
        lambda a: a[3, 2:3][0:0],
        lambda a: np.array(5.5),
    ],
    ids=["C", "F", "stepped", "negative", "transposed", "empty", "0-d"],
)
def test_round_trip_every_layout(make):
    host = make(random_array((9, 8), np.float64))
    d = cuda.to_device(host)
    back = d.copy_to_host()
    assert back.shape == host.shape
    np.testing.assert_array_equal(back, host)


def test_device_array_and_like():
    d = cuda.device_array((4, 3), dtype=np.float32, order="F")
    assert d.is_f_contiguous() and not d.is_c_contiguous()
    assert d.strides == (4, 16)
    assert cuda.device_array(10).dtype == np.float64
    like = cuda.device_array_like(np.zeros((3, 4), order="F"))
    assert like.is_f_contiguous() and like.shape == (3, 4)
    like_device = cuda.device_array_like(d)
    assert like_device.strides == d.strides
    empty = cuda.device_array((0, 5))
    assert empty.size == 0 and empty.copy_to_host().shape == (0, 5)


def test_copy_to_device_and_into_given_host_array():
    host = random_array(100, np.float32)
    d = cuda.device_array(100, dtype=np.float32)
    d.copy_to_device(host)
    out = np.empty_like(host)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)
    d2 = cuda.device_array_like(d)
    d2.copy_to_device(d)
    np.testing.assert_array_equal(d2.copy_to_host(), host)
    with pytest.raises(ValueError):
        d.copy_to_device(np.zeros(99, np.float32))
    with pytest.raises(TypeError):
        d.copy_to_device(np.zeros(100, np.float64))
    with pytest.raises(ValueError):
        d.copy_to_host(np.empty(50, np.float32))


def test_to_device_with_to_and_stream():
    s = cuda.stream()
    host = np.arange(16.0)
    d = cuda.to_device(host, stream=s)
    s.synchronize()
    target = cuda.device_array(16)
    assert cuda.to_device(host * 2, to=target) is target
    np.testing.assert_array_equal(target.copy_to_host(stream=s), host * 2)
    assert cuda.to_device(d) is d


def test_slices_are_views_sharing_memory():
    host = np.arange(24.0).reshape(4, 6)
    d = cuda.to_device(host)
    view = d[1:3, ::2]
    # numba's gpu_data of a view: a pointer to the bytes it spans, keeping the allocation alive
    assert view.gpu_data.device_pointer == view.device_pointer and view.gpu_data.size == (6 + 4 + 1) * 8
    assert view.gpu_data.owner is d.gpu_data and d[:].gpu_data is d.gpu_data
    np.testing.assert_array_equal(view.copy_to_host(), host[1:3, ::2])
    np.testing.assert_array_equal(d[-1].copy_to_host(), host[-1])
    np.testing.assert_array_equal(d[..., 2].copy_to_host(), host[..., 2])
    np.testing.assert_array_equal(d[::-1].copy_to_host(), host[::-1])
    assert d[2, 3] == host[2, 3] and isinstance(d[2, 3], np.float64)
    assert cuda.to_device(np.arange(5))[-2] == 3
    view[:] = -1.0
    host[1:3, ::2] = -1.0
    np.testing.assert_array_equal(d.copy_to_host(), host)
    assert len(d) == 4
    with pytest.raises(IndexError):
        d[4]
    with pytest.raises(IndexError):
        d[0, 0, 0]
    with pytest.raises(TypeError):
        d[[1, 2]]


def test_setitem_broadcasting():
    host = np.zeros((5, 6), dtype=np.float64)
    d = cuda.to_device(host)
    d[:] = 3.0
    host[:] = 3.0
    d[1] = np.arange(6.0)
    host[1] = np.arange(6.0)
    d[:, 2] = 7
    host[:, 2] = 7
    d[2:4, ::2] = np.array([[1.0], [2.0]])
    host[2:4, ::2] = np.array([[1.0], [2.0]])
    d[4, 5] = 9
    host[4, 5] = 9
    d[0] = cuda.to_device(np.full(6, 5.0))
    host[0] = 5.0
    np.testing.assert_array_equal(d.copy_to_host(), host)
    with pytest.raises(ValueError):
        d[0] = np.zeros(5)
    with pytest.raises(ValueError):
        d[0] = np.zeros((2, 2, 6))
    small = cuda.to_device(np.zeros(10, np.int32))
    small[:] = 12345  # one memset
    assert (small.copy_to_host() == 12345).all()
    small[::3] = 1
    assert list(small.copy_to_host()) == [1, 12345, 12345, 1, 12345, 12345, 1, 12345, 12345, 1]


def test_reshape_ravel_view_transpose_split_bind():
    host = np.arange(12, dtype=np.int32)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d.reshape(3, 4).copy_to_host(), host.reshape(3, 4))
    np.testing.assert_array_equal(d.reshape((2, -1)).copy_to_host(), host.reshape(2, -1))
    np.testing.assert_array_equal(d.reshape(3, 4, order="F").copy_to_host(), host.reshape(3, 4, order="F"))
    np.testing.assert_array_equal(d.reshape(3, 4).ravel().copy_to_host(), host)
    np.testing.assert_array_equal(d.view(np.uint8).copy_to_host(), host.view(np.uint8))
    np.testing.assert_array_equal(d.reshape(3, 4).T.copy_to_host(), host.reshape(3, 4).T)
    np.testing.assert_array_equal(
        d.reshape(2, 3, 2).transpose((1, 0, 2)).copy_to_host(), host.reshape(2, 3, 2).transpose(1, 0, 2)
    )
    parts = d.split(5)
    assert [p.size for p in parts] == [5, 5, 2]
    np.testing.assert_array_equal(parts[2].copy_to_host(), host[10:])
    s = cuda.stream()
    assert d.bind(s).stream is s and d.stream == 0
    with pytest.raises(ValueError):
        d.reshape(5, 3)
    with pytest.raises(NotImplementedError):
        d.reshape(3, 4)[:, ::2].reshape(6)


def test_cuda_array_interface():
    d = cuda.to_device(np.arange(10, dtype=np.float32))
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (10,) and cai["strides"] is None and cai["typestr"] == "<f4"
    assert cai["version"] == 3 and cai["data"] == (d.device_pointer, False)
    assert d[::2].__cuda_array_interface__["strides"] == (8,)
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.zeros(3))
    view = cuda.as_cuda_array(d[2:])
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(2, 10, dtype=np.float32))
    again = cuda.from_cuda_array_interface(d.__cuda_array_interface__, owner=d)
    assert again.device_pointer == d.device_pointer
    with pytest.raises(TypeError):
        cuda.as_cuda_array(np.zeros(3))


def test_structured_records():
    dtype = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    host = np.zeros(3, dtype=dtype)
    host["a"] = [1, 2, 3]
    host["b"] = [0.5, 1.5, 2.5]
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)
    record = d[1]
    assert isinstance(record, cuda.DeviceRecord)
    assert record.copy_to_host()["b"] == 1.5
    single = cuda.to_device(host[2])
    assert isinstance(single, cuda.DeviceRecord)
    assert single.copy_to_host()["a"] == 3


def test_bad_arguments():
    with pytest.raises(ValueError):
        cuda.device_array(-1)
    with pytest.raises(TypeError):
        cuda.device_array(3, dtype=object)
    with pytest.raises(TypeError):
        cuda.to_device(np.array([object()]))
    with pytest.raises(TypeError):
        cuda.device_array("abc")
    with pytest.raises(ValueError):
        cuda.device_array(3, order="X")
    with pytest.raises(TypeError):
        cuda.device_array(3, stream="no")


# copy_to_host() of a large array into a new host array goes through the context's pinned staging
# ring (src/core/staging.c), worker threads copying 2 MiB slots into the fresh pages: every byte must land.
@pytest.mark.parametrize("nbytes", [(8 << 20) + 12345, 64 << 20, (300 << 20) + 8])
def test_large_copy_to_new_host_array_is_exact(nbytes):
    host = np.frombuffer(rng.bytes(nbytes), np.uint8)
    d = cuda.to_device(host)
    back = d.copy_to_host()
    assert back.flags.owndata and back.flags.writeable and back.dtype == np.uint8
    np.testing.assert_array_equal(back, host)


def test_large_strided_and_stream_copies_to_new_host_arrays():
    host = rng.standard_normal((4096, 2048))  # 64 MiB
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d[::-1, 1::2].copy_to_host(), host[::-1, 1::2])  # the span, through the ring
    s = cuda.stream()
    d2 = cuda.device_array_like(host, stream=s)
    d2.copy_to_device(d, stream=s)  # queued: the copy back must come after it
    np.testing.assert_array_equal(d2.copy_to_host(stream=s), host)


def test_staging_ring_survives_reset_and_close():
    from subproc import run_python

    out = run_python(
        """
        import numpy as np
        import numba_cuda_c as cuda
        a = np.arange(4 << 20, dtype=np.float64)  # 32 MiB
        for step in range(3):
            assert (cuda.to_device(a).copy_to_host() == a).all()
            if step == 0:
                cuda.get_current_device().reset()
            else:
                cuda.close()
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_large_copies_to_new_arrays_from_several_threads():
    import threading

    arrays = [rng.integers(0, 1 << 30, 4 << 20, dtype=np.int64) for _ in range(4)]  # 32 MiB each
    devices = [cuda.to_device(a) for a in arrays]
    results = [None] * len(arrays)

    def copy(k):  # a new thread has no current context: the copy makes the array's current
        results[k] = devices[k].copy_to_host()

    threads = [threading.Thread(target=copy, args=(k,)) for k in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, r in zip(arrays, results):
        np.testing.assert_array_equal(r, a)


def test_large_copies_between_existing_arrays_both_ways():
    # pageable host memory both ways goes through the staging ring; pinned memory does not
    host = rng.standard_normal((1024, 3000))  # 23 MiB
    d = cuda.device_array_like(host)
    d.copy_to_device(host)
    out = np.empty_like(host)
    d.copy_to_host(out)
    np.testing.assert_array_equal(out, host)
    s = cuda.stream()
    twice = cuda.to_device(host * 2, stream=s)  # a temporary host array: the copy must be done before it goes
    twice.copy_to_host(out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, host * 2)
    pinned = cuda.pinned_array(host.shape, host.dtype)
    d.copy_to_host(pinned)
    np.testing.assert_array_equal(pinned, host)
    strided = host[:, ::3]  # packed on the host first, then staged
    np.testing.assert_array_equal(cuda.to_device(strided).copy_to_host(), strided)


@pytest.mark.parametrize("threshold", ["0", "1"])
def test_staging_threshold_off_and_for_every_size(threshold):
    from subproc import run_python

    out = run_python(
        """
        import numpy as np
        import numba_cuda_c as cuda
        rng = np.random.default_rng(5)
        for n in (1, 4095, 3 << 20, (9 << 20) + 7):
            host = rng.integers(0, 255, n, dtype=np.uint8)
            d = cuda.to_device(host)
            assert (d.copy_to_host() == host).all()
            back = np.empty_like(host)
            d.copy_to_host(back)
            assert (back == host).all()
        print("ok")
        """,
        NUMBA_CUDA_C_STAGING_THRESHOLD=threshold,
    )
    assert out.strip() == "ok"
