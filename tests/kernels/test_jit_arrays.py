"""Arrays inside @cuda.jit kernels on the GPU: negative indices, slices, writing through views, shape, size, ndim
and strides, non-contiguous device views, local arrays (1-D and 2-D), dynamic and static shared memory.

Each kernel runs on fresh random inputs and is checked against NumPy (or the same Python function run on the
host). Kernels are defined at module level (the translator reads their source).
"""

import numpy as np

import numba_cuda_c as cuda
from gpu import requires_gpu
from jit_helpers import blocks, rng  # noqa: F401  (rng: a fixture)
from numba_cuda_c import float32, float64, int32

pytestmark = requires_gpu


# ---------------------------------------------------------------------------------------------
# Arrays inside kernels
# ---------------------------------------------------------------------------------------------


@cuda.jit
def negative_indices(a, m, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[-1]
        out[i, 1] = a[-(i + 1)]
        out[i, 2] = m[-1, -2]
        out[i, 3] = m[-(i % 4) - 1, i % 5]


def test_negative_index(rng):
    n = 777
    a = rng.standard_normal(n)
    m = rng.standard_normal((4, 5))
    d_out = cuda.device_array((n, 4))
    negative_indices[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(m), d_out)
    out = d_out.copy_to_host()
    i = np.arange(n)
    np.testing.assert_array_equal(out[:, 0], a[-1])
    np.testing.assert_array_equal(out[:, 1], a[::-1])
    np.testing.assert_array_equal(out[:, 2], m[-1, -2])
    np.testing.assert_array_equal(out[:, 3], m[-(i % 4) - 1, i % 5])


@cuda.jit
def slicing(a, m, out):
    if cuda.grid(1) == 0:
        s = a[1:5]
        out[0] = s.size
        out[1] = s[0] + s[3]
        e = a[::2]
        out[2] = e.size
        out[3] = e[2]
        row = m[2]
        out[4] = row.size
        out[5] = row[-1]
        r = a[::-1]
        out[6] = r[0]
        t = a[-3:]
        out[7] = t[0]
        col = m[:, 1]
        out[8] = col.shape[0]
        out[9] = col[3]
        sub = m[1:4, ::2]
        out[10] = sub.shape[0] * 10 + sub.shape[1]
        out[11] = sub[2, 1]
        empty = a[5:2]
        out[12] = empty.size
        clipped = a[-100:3]
        out[13] = clipped.size


def test_slicing_in_kernels(rng):
    a = rng.standard_normal(11)
    m = rng.standard_normal((6, 5))
    d_out = cuda.to_device(np.full(14, np.nan))
    slicing[1, 32](cuda.to_device(a), cuda.to_device(m), d_out)
    expected = [
        4,
        a[1] + a[4],
        a[::2].size,
        a[::2][2],
        5,
        m[2, -1],
        a[-1],
        a[-3],
        6,
        m[3, 1],
        3 * 10 + 3,
        m[1:4, ::2][2, 1],
        0,
        3,
    ]
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)


@cuda.jit
def scale_rows(m, factors):
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = m[i]  # a view: writes go to m
        for j in range(row.size):
            row[j] *= factors[i]
        every_other = row[1::2]
        for j in range(every_other.size):
            every_other[j] = -every_other[j]


def test_writing_through_views(rng):
    m = rng.standard_normal((40, 9))
    factors = rng.standard_normal(40)
    d_m = cuda.to_device(m)
    scale_rows[1, 64](d_m, cuda.to_device(factors))
    expected = m * factors[:, None]
    expected[:, 1::2] *= -1
    np.testing.assert_array_equal(d_m.copy_to_host(), expected)


@cuda.jit
def attributes(m, v, out):
    if cuda.grid(1) == 0:
        out[0] = m.shape[0]
        out[1] = m.shape[1]
        out[2] = m.shape[2]
        out[3] = m.size
        out[4] = m.ndim
        out[5] = len(m)
        out[6] = v.size
        out[7] = v.ndim
        out[8] = m.strides[0]
        out[9] = v.strides[0]


def test_shape_size_ndim_strides(rng):
    m = rng.standard_normal((3, 4, 5)).astype(np.float32)
    v = rng.integers(0, 10, 10)
    d_out = cuda.device_array(10, np.int64)
    d_v = cuda.to_device(v)[::3]  # a strided view: 4 elements, stride 24 bytes
    attributes[1, 1](cuda.to_device(m), d_v, d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), [3, 4, 5, 60, 3, 3, 4, 1, 80, 24])


@cuda.jit
def strided_copy(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j]


def test_non_contiguous_device_views(rng):
    m = rng.standard_normal((30, 40))
    d_m = cuda.to_device(m)
    d_dst = cuda.device_array((40, 30))
    strided_copy[(3, 2), (16, 16)](d_m.T, d_dst)  # a transposed (F-ordered) view
    np.testing.assert_array_equal(d_dst.copy_to_host(), m.T)
    d_small = cuda.device_array((15, 10))
    strided_copy[(1, 1), (16, 16)](d_m[::2, 1::4], d_small)
    np.testing.assert_array_equal(d_small.copy_to_host(), m[::2, 1::4])


@cuda.jit
def local_sort(a, out):
    """Each thread sorts its row of 8 values in a local array (insertion sort)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        tmp = cuda.local.array(8, dtype=float64)
        for j in range(8):
            tmp[j] = a[i, j]
        for j in range(1, 8):
            key = tmp[j]
            k = j - 1
            while k >= 0 and tmp[k] > key:
                tmp[k + 1] = tmp[k]
                k -= 1
            tmp[k + 1] = key
        for j in range(8):
            out[i, j] = tmp[j]


def test_local_array(rng):
    a = rng.standard_normal((500, 8))
    d_out = cuda.device_array_like(a)
    local_sort[blocks(500, 64), 64](cuda.to_device(a), d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), np.sort(a, axis=1))


@cuda.jit
def local_2d(a, out):
    i = cuda.grid(1)
    if i < a.size:
        grid = cuda.local.array((3, 4), np.int32)
        for r in range(3):
            for c in range(4):
                grid[r, c] = a[i] * r + c
        total = 0
        for r in range(3):
            for c in range(4):
                total += grid[r, c] * (r + 1)
        out[i] = total


def test_local_array_2d(rng):
    a = rng.integers(-1000, 1000, 300).astype(np.int32)
    d_out = cuda.device_array(300, np.int64)
    local_2d[blocks(300, 64), 64](cuda.to_device(a), d_out)
    a64 = a.astype(np.int64)
    expected = sum((a64 * r + c) * (r + 1) for r in range(3) for c in range(4))
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)


@cuda.jit
def reverse_in_block(a, out):
    s = cuda.shared.array(0, dtype=float32)  # dynamic: sized by the launch's sharedmem
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = s.size
    if i < a.size:
        s[t] = a[i]
    cuda.syncthreads()
    if i < a.size:
        out[i] = s[n - 1 - t]


def test_dynamic_shared_memory(rng):
    tpb, nblocks = 128, 9
    n = tpb * nblocks
    a = rng.standard_normal(n).astype(np.float32)
    d_out = cuda.device_array(n, np.float32)
    reverse_in_block[nblocks, tpb, 0, tpb * 4](cuda.to_device(a), d_out)
    expected = a.reshape(nblocks, tpb)[:, ::-1].ravel()
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)


@cuda.jit
def dynamic_shared_size(out):
    s = cuda.shared.array(0, dtype=int32)
    if cuda.grid(1) == 0:
        out[0] = s.size
        out[1] = len(s)


def test_dynamic_shared_array_size_is_the_launchs():
    d_out = cuda.device_array(2, np.int64)
    dynamic_shared_size[1, 32, 0, 400](d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), [100, 100])


@cuda.jit
def shared_ints(a, out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        total = 0
        for k in range(64):
            total += s[k]
        out[cuda.blockIdx.x] = total


def test_shared_array_with_numpy_dtype(rng):
    a = rng.integers(-1000, 1000, 64 * 7).astype(np.int32)
    d_out = cuda.device_array(7, np.int64)
    shared_ints[7, 64](cuda.to_device(a), d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), a.astype(np.int64).reshape(7, 64).sum(axis=1))
