"""Control flow, variables and device functions in @cuda.jit kernels on the GPU: for/while with break, continue,
elif and early returns, device functions calling device functions, tuple unpacking and swaps, a variable
assigned an int then a float, thread/block/grid indices, lanes and warp size, syncthreads_count/and/or.

Each kernel runs on fresh random inputs and is checked against NumPy (or the same Python function run on the
host). Kernels are defined at module level (the translator reads their source).
"""

import numpy as np

import numba_cuda_c as cuda
from gpu import requires_gpu
from jit_helpers import blocks, rng  # noqa: F401  (rng: a fixture)

pytestmark = requires_gpu


# ---------------------------------------------------------------------------------------------
# Control flow, variables, device functions
# ---------------------------------------------------------------------------------------------


@cuda.jit(device=True)
def flow(v, limit):
    total = 0
    for k in range(limit):
        if k % 7 == 3:
            continue
        elif k > v:
            break
        elif k % 2 == 0:
            total += k * v
        else:
            total -= k
    j = 0
    while j < v:
        j += 3
        if j == 9:
            continue
        if j > 40:
            break
        total += j
    for k in range(10, 0, -3):
        total += k if v % 2 == 0 else -k
    return total


@cuda.jit(device=True)
def first_multiple(v, m):
    """Early return from inside a loop."""
    for k in range(1, 100):
        if (v * k) % m == 0:
            return k
    return -1


@cuda.jit
def control_flow(a, limit, out):
    i = cuda.grid(1)
    if i >= a.size:
        return  # early return from the kernel
    out[i, 0] = flow(a[i], limit)
    out[i, 1] = first_multiple(a[i], 12)


def test_for_while_break_continue_elif_and_early_return(rng):
    n = 2000
    a = rng.integers(-5, 60, n)
    sentinel = rng.integers(1000, 2000, (n + 5, 2))
    d_out = cuda.to_device(sentinel)
    control_flow[blocks(n + 5, 128), 128](cuda.to_device(a), 25, d_out[:n])  # threads past n return
    out = d_out.copy_to_host()
    np.testing.assert_array_equal(out[:n, 0], [flow.py_func(int(v), 25) for v in a])
    np.testing.assert_array_equal(out[:n, 1], [first_multiple.py_func(int(v), 12) for v in a])
    np.testing.assert_array_equal(out[n:], sentinel[n:])


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def hypot2(x, y):
    return square(x) + square(y)


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def store_twice(out, i, value):
    out[i] = value * 2


@cuda.jit
def use_device_functions(a, b, out, doubled):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = clamp(hypot2(a[i], b[i]), 0.1, 1.5)
        store_twice(doubled, i, square(a[i]))


def test_device_functions_calling_device_functions(rng):
    n = 5000
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    d_out = cuda.device_array(n, np.float32)
    d_doubled = cuda.device_array(n, np.float64)
    use_device_functions[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_out, d_doubled)
    h = a.astype(np.float64) ** 2 + b.astype(np.float64) ** 2
    np.testing.assert_allclose(d_out.copy_to_host(), np.clip(h, 0.1, 1.5), rtol=1e-6)
    np.testing.assert_allclose(d_doubled.copy_to_host(), 2 * (a * a).astype(np.float64), rtol=1e-7)


@cuda.jit
def tuples_and_swaps(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        x, y = y, x  # swap through temporaries
        out[i, 0] = x
        out[i, 1] = y
        a[i], b[i] = b[i], a[i]  # swap array elements in place
        p, q, r = 1, x, 2.5
        out[i, 2] = p + q - r


def test_tuple_unpacking_and_swap(rng):
    n = 1000
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_out = cuda.device_array((n, 3))
    tuples_and_swaps[blocks(n, 128), 128](d_a, d_b, d_out)
    out = d_out.copy_to_host()
    np.testing.assert_array_equal(out[:, 0], b)
    np.testing.assert_array_equal(out[:, 1], a)
    np.testing.assert_array_equal(out[:, 2], 1 + b - 2.5)
    np.testing.assert_array_equal(d_a.copy_to_host(), b)
    np.testing.assert_array_equal(d_b.copy_to_host(), a)


@cuda.jit
def int_then_float(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = 1  # an int here, a float below: x is a float64
        if a[i] > 0.5:
            x = a[i] + 2
        out[i] = x
        y = 7
        y = y / 2  # true division gives a float: y becomes float64
        out[i] += y


def test_variable_int_then_float_is_float64(rng):
    n = 1000
    a = rng.random(n)
    d_out = cuda.device_array(n)
    int_then_float[blocks(n, 128), 128](cuda.to_device(a), d_out)
    expected = np.where(a > 0.5, a + 2, 1.0) + 3.5
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)
    assert (d_out.copy_to_host() % 1 != 0).any()  # not truncated to ints


@cuda.jit
def grid_3d_indices(out):
    x, y, z = cuda.grid(3)
    out[z, y, x, 0] = cuda.threadIdx.x
    out[z, y, x, 1] = cuda.threadIdx.y
    out[z, y, x, 2] = cuda.threadIdx.z
    out[z, y, x, 3] = cuda.blockIdx.x
    out[z, y, x, 4] = cuda.blockIdx.y
    out[z, y, x, 5] = cuda.blockIdx.z
    out[z, y, x, 6] = cuda.blockDim.x
    out[z, y, x, 7] = cuda.blockDim.y
    out[z, y, x, 8] = cuda.blockDim.z
    out[z, y, x, 9] = cuda.gridDim.x
    out[z, y, x, 10] = cuda.gridDim.y
    out[z, y, x, 11] = cuda.gridDim.z
    sx, sy, sz = cuda.gridsize(3)
    out[z, y, x, 12] = (z * sy + y) * sx + x


def test_thread_block_and_grid_indices():
    grid, block = (3, 2, 2), (4, 5, 3)
    X, Y, Z = (g * b for g, b in zip(grid, block))
    d_out = cuda.to_device(np.full((Z, Y, X, 13), -1, np.int32))
    grid_3d_indices[grid, block](d_out)
    out = d_out.copy_to_host()
    z, y, x = np.meshgrid(np.arange(Z), np.arange(Y), np.arange(X), indexing="ij")
    bx, by, bz = block
    expected = np.stack(
        [
            x % bx,
            y % by,
            z % bz,
            x // bx,
            y // by,
            z // bz,
            np.full_like(x, bx),
            np.full_like(x, by),
            np.full_like(x, bz),
            np.full_like(x, grid[0]),
            np.full_like(x, grid[1]),
            np.full_like(x, grid[2]),
            (z * Y + y) * X + x,
        ],
        axis=-1,
    )
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def lanes(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = cuda.laneid
        out[i, 1] = cuda.warpsize


def test_laneid_and_warpsize():
    n = 96 * 5
    d_out = cuda.to_device(np.full((n, 2), -1, np.int32))
    lanes[5, 96](d_out)
    out = d_out.copy_to_host()
    np.testing.assert_array_equal(out[:, 0], (np.arange(n) % 96) % 32)
    assert (out[:, 1] == 32).all()


@cuda.jit
def block_votes(a, out):
    i = cuda.grid(1)
    positive = a[i] > 0
    count = cuda.syncthreads_count(positive)
    every = cuda.syncthreads_and(positive)
    some = cuda.syncthreads_or(positive)
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x, 0] = count
        out[cuda.blockIdx.x, 1] = every
        out[cuda.blockIdx.x, 2] = some


def test_syncthreads_count_and_or(rng):
    nblocks, tpb = 12, 128
    a = rng.standard_normal(nblocks * tpb)
    a[:tpb] = np.abs(a[:tpb]) + 0.5  # block 0: all positive
    a[tpb : 2 * tpb] = -np.abs(a[tpb : 2 * tpb]) - 0.5  # block 1: none
    d_out = cuda.to_device(np.full((nblocks, 3), -1, np.int32))
    block_votes[nblocks, tpb](cuda.to_device(a), d_out)
    out = d_out.copy_to_host()
    per_block = (a > 0).reshape(nblocks, tpb)
    np.testing.assert_array_equal(out[:, 0], per_block.sum(axis=1))
    np.testing.assert_array_equal(out[:, 1] != 0, per_block.all(axis=1))
    np.testing.assert_array_equal(out[:, 2] != 0, per_block.any(axis=1))
    assert out[0, 0] == tpb and out[1, 0] == 0
