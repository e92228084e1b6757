"""@cuda.jit Python kernels on the GPU: numba's documentation examples, Python's integer semantics,
math functions, casts, control flow, arrays (slices, local, shared, dynamic shared), device
functions, the dispatcher's API (forall, eager signatures, specialize, inspect_*), argument kinds
(device arrays, NumPy arrays, CuPy/PyTorch through __cuda_array_interface__, scalars) and streams.

Each kernel runs on fresh random inputs and is checked against NumPy (or the same Python function
run on the host, for control flow). Kernels are defined at module level (the translator reads
their source), except the eagerly compiled ones, which compile when defined.
"""

import math

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c import float32, float64, int32

pytestmark = requires_gpu

TPB = 16  # tile width of the shared-memory matrix multiply
RED_TPB = 128  # threads per block of the reduction


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print("random seed:", seed)  # shown when the test fails
    return np.random.default_rng(seed)


def blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---------------------------------------------------------------------------------------------
# numba's documentation examples
# ---------------------------------------------------------------------------------------------


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_vector_add(rng, dtype):
    n = 20_011
    a = (rng.standard_normal(n) * 1000).astype(dtype)
    b = (rng.standard_normal(n) * 1000).astype(dtype)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_out = cuda.device_array_like(a)
    vector_add[blocks(n, 256), 256](d_a, d_b, d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), a + b)


@cuda.jit
def matmul(A, B, C):
    """Naive matrix multiply: one thread per element of C."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


def test_matmul_naive(rng):
    A = rng.random((37, 53), dtype=np.float32)
    B = rng.random((53, 29), dtype=np.float32)
    d_C = cuda.device_array((37, 29), np.float32)
    matmul[(blocks(37, 16), blocks(29, 16)), (16, 16)](cuda.to_device(A), cuda.to_device(B), d_C)
    expected = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(d_C.copy_to_host(), expected, rtol=1e-6)


@cuda.jit
def fast_matmul(A, B, C):
    """numba's shared-memory matrix multiply: TPB x TPB tiles staged in shared memory."""
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@pytest.mark.parametrize("m, k, n", [(64, 64, 64), (70, 50, 60), (33, 17, 49)])
def test_matmul_shared_memory(rng, m, k, n):
    # the kernel walks gridDim.x tiles along k: the grid's x extent must cover k
    assert blocks(n, TPB) >= blocks(k, TPB)
    A = rng.random((m, k), dtype=np.float32)
    B = rng.random((k, n), dtype=np.float32)
    d_C = cuda.device_array((m, n), np.float32)
    fast_matmul[(blocks(n, TPB), blocks(m, TPB)), (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), d_C)
    expected = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(d_C.copy_to_host(), expected, rtol=1e-5)  # float32 accumulation


@cuda.jit
def block_sum(a, partial):
    """Tree reduction in shared memory: one partial sum per block."""
    s = cuda.shared.array(RED_TPB, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = a[i] if i < a.size else 0
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if tid < stride:
            s[tid] += s[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = s[0]


def test_shared_memory_reduction(rng):
    n = 10_000
    a = rng.standard_normal(n)
    nblocks = blocks(n, RED_TPB)
    d_partial = cuda.device_array(nblocks, np.float64)
    block_sum[nblocks, RED_TPB](cuda.to_device(a), d_partial)
    partial = d_partial.copy_to_host()
    padded = np.zeros(nblocks * RED_TPB)
    padded[:n] = a
    np.testing.assert_allclose(partial, padded.reshape(nblocks, RED_TPB).sum(axis=1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(partial.sum(), a.sum(), rtol=1e-10, atol=1e-9)


@cuda.jit
def stencil_1d(a, out, radius):
    i = cuda.grid(1)
    n = a.shape[0]
    if i >= radius and i < n - radius:
        total = 0.0
        for k in range(-radius, radius + 1):
            total += a[i + k]
        out[i] = total


def test_stencil_1d(rng):
    n, radius = 5000, 3
    a = rng.standard_normal(n)
    before = rng.standard_normal(n)
    d_out = cuda.to_device(before)
    stencil_1d[blocks(n, 128), 128](cuda.to_device(a), d_out, radius)
    out = d_out.copy_to_host()
    expected = np.convolve(a, np.ones(2 * radius + 1), mode="valid")
    np.testing.assert_allclose(out[radius:n - radius], expected, rtol=1e-12, atol=1e-12)
    # the borders are left alone
    np.testing.assert_array_equal(out[:radius], before[:radius])
    np.testing.assert_array_equal(out[n - radius:], before[n - radius:])


@cuda.jit
def stencil_2d(a, out):
    """The 5-point Laplacian on the interior."""
    i, j = cuda.grid(2)
    if 0 < i < a.shape[0] - 1 and 0 < j < a.shape[1] - 1:
        out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]


def test_stencil_2d(rng):
    a = rng.standard_normal((61, 83))
    before = rng.standard_normal(a.shape)
    d_out = cuda.to_device(before)
    stencil_2d[(blocks(61, 8), blocks(83, 16)), (8, 16)](cuda.to_device(a), d_out)
    out = d_out.copy_to_host()
    expected = before.copy()
    expected[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out[0], before[0])
    np.testing.assert_array_equal(out[:, -1], before[:, -1])


@cuda.jit
def histogram(x, xmin, xmax, hist):
    """numba's atomic histogram: a grid-stride loop and cuda.atomic.add on an int32 array."""
    nbins = hist.shape[0]
    bin_width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        bin_number = int((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < hist.shape[0]:
            cuda.atomic.add(hist, bin_number, 1)


def test_atomic_histogram(rng):
    x = rng.standard_normal(60_000)
    xmin, xmax, nbins = -4.0, 4.0, 50
    d_hist = cuda.to_device(np.zeros(nbins, dtype=np.int32))
    histogram[64, 128](cuda.to_device(x), xmin, xmax, d_hist)  # fewer threads than values
    bin_width = (xmax - xmin) / nbins
    bins = ((x - xmin) / bin_width).astype(np.int64)  # int() truncates toward zero, as astype
    bins = bins[(bins >= 0) & (bins < nbins)]
    expected = np.bincount(bins, minlength=nbins)
    hist = d_hist.copy_to_host()
    assert hist.dtype == np.int32
    np.testing.assert_array_equal(hist, expected)
    assert hist.sum() > 0.99 * x.size


@cuda.jit
def atomic_extremes(values, result, old):
    i = cuda.grid(1)
    if i < values.size:
        old[i, 0] = cuda.atomic.max(result, 0, values[i])
        old[i, 1] = cuda.atomic.min(result, 1, values[i])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64, np.int64, np.uint32])
def test_atomic_max_min(rng, dtype):
    n = 20_000
    if np.dtype(dtype).kind == "f":
        values = (rng.standard_normal(n) * 100).astype(dtype)
        start = np.array([-np.inf, np.inf], dtype=dtype)
    else:
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -10**9), min(info.max, 10**9), n).astype(dtype)
        start = np.array([info.min, info.max], dtype=dtype)
    d_result = cuda.to_device(start)
    d_old = cuda.device_array((n, 2), dtype)
    atomic_extremes[blocks(n, 256), 256](cuda.to_device(values), d_result, d_old)
    result = d_result.copy_to_host()
    assert result[0] == values.max() and result[1] == values.min()
    old = d_old.copy_to_host()
    # each thread saw the value before its own update: never past the final extreme
    assert (old[:, 0] <= values.max()).all() and (old[:, 1] >= values.min()).all()
    assert (old[:, 0] == start[0]).sum() >= 1 and (old[:, 1] == start[1]).sum() >= 1


@cuda.jit
def atomic_sums(values, totals):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(totals, 0, values[i])
        cuda.atomic.sub(totals, 1, values[i])
        cuda.atomic.add(totals, 2, 1)


def test_atomic_add_sub(rng):
    n = 20_000
    ints = rng.integers(-1000, 1000, n).astype(np.int64)
    d_totals = cuda.to_device(np.array([7, 11, 0], dtype=np.int64))
    atomic_sums[blocks(n, 256), 256](cuda.to_device(ints), d_totals)
    np.testing.assert_array_equal(d_totals.copy_to_host(), [7 + ints.sum(), 11 - ints.sum(), n])
    floats = rng.standard_normal(n)
    d_totals = cuda.to_device(np.array([0.5, 0.25, 0.0]))
    atomic_sums[blocks(n, 256), 256](cuda.to_device(floats), d_totals)
    totals = d_totals.copy_to_host()
    np.testing.assert_allclose(totals[:2], [0.5 + floats.sum(), 0.25 - floats.sum()], rtol=1e-9, atol=1e-8)
    assert totals[2] == n


@cuda.jit
def atomic_2d(hist, rows, cols):
    i = cuda.grid(1)
    if i < rows.size:
        cuda.atomic.add(hist, (rows[i], cols[i]), 1)


def test_atomic_add_2d_index(rng):
    n = 30_000
    rows = rng.integers(0, 5, n)
    cols = rng.integers(0, 7, n)
    d_hist = cuda.to_device(np.zeros((5, 7), np.uint32))
    atomic_2d[blocks(n, 128), 128](d_hist, cuda.to_device(rows), cuda.to_device(cols))
    expected = np.zeros((5, 7), np.int64)
    np.add.at(expected, (rows, cols), 1)
    np.testing.assert_array_equal(d_hist.copy_to_host(), expected)


@cuda.jit
def claim_slot(lock, seen):
    i = cuda.grid(1)
    if i < seen.size:
        seen[i] = cuda.atomic.compare_and_swap(lock, 0, i + 1)


def test_atomic_compare_and_swap_one_winner():
    n = 4096
    d_lock = cuda.to_device(np.zeros(1, np.int32))
    d_seen = cuda.device_array(n, np.int32)
    claim_slot[blocks(n, 256), 256](d_lock, d_seen)
    lock = int(d_lock.copy_to_host()[0])
    seen = d_seen.copy_to_host()
    assert 1 <= lock <= n
    assert (seen == 0).sum() == 1  # exactly one thread found the slot free
    assert seen[lock - 1] == 0  # ... the one whose value is stored
    assert (np.delete(seen, lock - 1) == lock).all()


@cuda.jit
def cas_elements(a, expected, new, old):
    i = cuda.grid(1)
    if i < a.size:
        old[i] = cuda.atomic.cas(a, i, expected[i], new[i])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_atomic_cas_per_element(rng, dtype):
    n = 1000
    a = rng.integers(0, 10**6, n).astype(dtype)
    match = rng.random(n) < 0.5
    expected = np.where(match, a, a + 1).astype(dtype)
    new = rng.integers(0, 10**6, n).astype(dtype)
    d_a = cuda.to_device(a)
    d_old = cuda.device_array(n, dtype)
    cas_elements[blocks(n, 128), 128](d_a, cuda.to_device(expected), cuda.to_device(new), d_old)
    np.testing.assert_array_equal(d_old.copy_to_host(), a)
    np.testing.assert_array_equal(d_a.copy_to_host(), np.where(match, new, a))


@cuda.jit
def atomic_bits(flags, values, counter, old):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.or_(flags, 0, values[i])
        cuda.atomic.and_(flags, 1, values[i])
        cuda.atomic.xor(flags, 2, values[i])
        old[i] = cuda.atomic.exch(flags, 3, values[i])
        cuda.atomic.inc(counter, 0, 99)


def test_atomic_bitwise_exch_inc(rng):
    n = 5000
    values = rng.integers(0, 2**31 - 1, n).astype(np.int32)
    d_flags = cuda.to_device(np.array([0, -1, 0, -7], np.int32))
    d_counter = cuda.to_device(np.zeros(1, np.uint32))
    d_old = cuda.device_array(n, np.int32)
    atomic_bits[blocks(n, 128), 128](d_flags, cuda.to_device(values), d_counter, d_old)
    flags = d_flags.copy_to_host()
    assert flags[0] == np.bitwise_or.reduce(values)
    assert flags[1] == np.bitwise_and.reduce(values)
    assert flags[2] == np.bitwise_xor.reduce(values)
    # exchange: the old values are the start value and all but one of the values, each once
    seen = np.sort(np.append(d_old.copy_to_host(), flags[3]))
    np.testing.assert_array_equal(seen, np.sort(np.append(values, np.int32(-7))))
    # inc wraps to 0 past 99: n increments of 0 end at n % 100
    assert d_counter.copy_to_host()[0] == n % 100


# ---------------------------------------------------------------------------------------------
# Python's integer semantics
# ---------------------------------------------------------------------------------------------


@cuda.jit
def floordiv_mod(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_int_floordiv_mod_negative_operands(rng, dtype):
    n = 10_000
    hi = min(np.iinfo(dtype).max, 10**6)
    a = rng.integers(-hi, hi, n).astype(dtype)
    b = rng.integers(-50, 50, n).astype(dtype)
    b[b == 0] = 3
    a[:8] = [7, -7, 7, -7, 0, -1, 1, -6]
    b[:8] = [2, 2, -2, -2, -5, 3, -3, 3]
    d_q, d_r = cuda.device_array(n, np.int64), cuda.device_array(n, np.int64)
    floordiv_mod[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_q, d_r)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(d_q.copy_to_host(), np.floor_divide(a64, b64))
    r = d_r.copy_to_host()
    np.testing.assert_array_equal(r, np.mod(a64, b64))
    assert (np.sign(r[r != 0]) == np.sign(b64[r != 0])).all()  # the remainder takes the divisor's sign
    assert (r < 0).any() and (np.floor_divide(a64, b64) != np.trunc(a64 / b64)).any()  # negatives were tested


def test_float_floordiv_mod_negative_operands(rng):
    n = 10_000
    a = rng.standard_normal(n) * 100
    b = rng.standard_normal(n) * 10
    b[np.abs(b) < 1e-3] = 0.5
    a[:6] = [7.5, -7.5, 7.5, -7.5, 1.0, -1.0]
    b[:6] = [2.0, 2.0, -2.0, -2.0, 0.1, 0.1]  # 1.0 // 0.1 is 9.0 in Python (and numba), not 10.0
    d_q, d_r = cuda.device_array(n), cuda.device_array(n)
    floordiv_mod[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_q, d_r)
    q, r = d_q.copy_to_host(), d_r.copy_to_host()
    np.testing.assert_array_equal(q[:6], [a[k] // b[k] for k in range(6)])
    assert q[4] == 9.0 and q[5] == -10.0
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_allclose(r, np.mod(a, b), rtol=1e-12, atol=1e-12)


@cuda.jit
def wrapping(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] * b[i] + a[i]
        out[i, 1] = a[i] - b[i]
        out[i, 2] = -a[i]


def test_int64_overflow_wraps(rng):
    n = 4096
    info = np.iinfo(np.int64)
    a = rng.integers(info.min, info.max, n, dtype=np.int64)
    b = rng.integers(info.min, info.max, n, dtype=np.int64)
    a[0], b[0] = info.max, 1  # max * 1 + max wraps
    a[1], b[1] = info.min, 1  # min - 1 wraps to max
    d_out = cuda.device_array((n, 3), np.int64)
    wrapping[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_out)
    with np.errstate(over="ignore"):
        expected = np.stack([a * b + a, a - b, -a], axis=1)
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)
    assert d_out.copy_to_host()[1, 1] == info.max


def test_int32_arithmetic_is_int64_then_stored(rng):
    n = 4096
    a = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    wide = cuda.device_array((n, 3), np.int64)
    wrapping[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), wide)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(over="ignore"):
        expected = np.stack([a64 * b64 + a64, a64 - b64, -a64], axis=1)
    np.testing.assert_array_equal(wide.copy_to_host(), expected)  # int32 * int32 computes in int64
    narrow = cuda.device_array((n, 3), np.int32)
    wrapping[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), narrow)
    np.testing.assert_array_equal(narrow.copy_to_host(), expected.astype(np.int32))


@cuda.jit
def powers(ib, ie, fb, fe, iout, fout):
    i = cuda.grid(1)
    if i < ib.size:
        iout[i] = ib[i] ** ie[i]  # int ** int: an int
        fout[i, 0] = fb[i] ** fe[i]  # float ** float
        fout[i, 1] = fb[i] ** ie[i]  # float ** int
        fout[i, 2] = fb[i] ** 2
        fout[i, 3] = fb[i] ** 0.5
        fout[i, 4] = ib[i] ** 2.0  # int ** float: a float


def test_power_int_and_float(rng):
    n = 5000
    ib = rng.integers(-9, 10, n).astype(np.int64)
    ie = rng.integers(0, 13, n).astype(np.int64)
    fb = rng.uniform(0.5, 2.0, n)
    fe = rng.uniform(-3.0, 3.0, n)
    d_iout = cuda.device_array(n, np.int64)
    d_fout = cuda.device_array((n, 5), np.float64)
    powers[blocks(n, 128), 128](cuda.to_device(ib), cuda.to_device(ie), cuda.to_device(fb), cuda.to_device(fe),
                                d_iout, d_fout)
    np.testing.assert_array_equal(d_iout.copy_to_host(), np.power(ib, ie))
    fout = d_fout.copy_to_host()
    np.testing.assert_allclose(fout[:, 0], np.power(fb, fe), rtol=1e-13)
    np.testing.assert_allclose(fout[:, 1], np.power(fb, ie.astype(np.float64)), rtol=1e-13)
    np.testing.assert_allclose(fout[:, 2], fb * fb, rtol=1e-15)
    np.testing.assert_allclose(fout[:, 3], np.sqrt(fb), rtol=1e-14)
    np.testing.assert_array_equal(fout[:, 4], ib.astype(np.float64) ** 2)


@cuda.jit
def float32_powers(x, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] ** n[i]  # float32 ** int64 stays float32, as numba
        out[i, 1] = x[i] ** float32(1.5)


def test_power_float32(rng):
    size = 2000
    x = rng.uniform(0.5, 1.5, size).astype(np.float32)
    n = rng.integers(0, 8, size).astype(np.int64)
    d_out = cuda.device_array((size, 2), np.float32)
    float32_powers[blocks(size, 128), 128](cuda.to_device(x), cuda.to_device(n), d_out)
    out = d_out.copy_to_host()
    np.testing.assert_allclose(out[:, 0], x.astype(np.float64) ** n, rtol=4e-6)
    np.testing.assert_allclose(out[:, 1], x.astype(np.float64) ** 1.5, rtol=1e-6)


@cuda.jit
def bit_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] & b[i]
        out[i, 1] = a[i] | b[i]
        out[i, 2] = a[i] ^ b[i]
        out[i, 3] = ~a[i]
        out[i, 4] = a[i] >> 3
        out[i, 5] = a[i] << 2


def test_bitwise_operators(rng):
    n = 3000
    a = rng.integers(-2**40, 2**40, n, dtype=np.int64)
    b = rng.integers(-2**40, 2**40, n, dtype=np.int64)
    d_out = cuda.device_array((n, 6), np.int64)
    bit_ops[blocks(n, 128), 128](cuda.to_device(a), cuda.to_device(b), d_out)
    expected = np.stack([a & b, a | b, a ^ b, ~a, a >> 3, a << 2], axis=1)
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)


@cuda.jit
def bit_intrinsics(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.popc(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.brev(x[i])


def test_bit_intrinsics(rng):
    n = 2000
    x = rng.integers(1, 2**32 - 1, n, dtype=np.int64).astype(np.uint32)
    d_out = cuda.device_array((n, 3), np.int64)
    bit_intrinsics[blocks(n, 128), 128](cuda.to_device(x), d_out)
    out = d_out.copy_to_host()
    bits = [format(int(v), "032b") for v in x]
    np.testing.assert_array_equal(out[:, 0], [s.count("1") for s in bits])
    np.testing.assert_array_equal(out[:, 1], [len(s) - len(s.lstrip("0")) for s in bits])
    np.testing.assert_array_equal(out[:, 2], [int(s[::-1], 2) for s in bits])


# ---------------------------------------------------------------------------------------------
# math functions, casts, builtins
# ---------------------------------------------------------------------------------------------


@cuda.jit
def math_functions(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sqrt(v)
        out[i, 1] = math.exp(v)
        out[i, 2] = math.log(v)
        out[i, 3] = math.sin(v)
        out[i, 4] = math.cos(v)
        out[i, 5] = math.tanh(v)
        out[i, 6] = math.atan2(v, y[i])
        out[i, 7] = math.hypot(v, y[i])
        out[i, 8] = math.log1p(v)
        out[i, 9] = math.expm1(v)
        out[i, 10] = math.pow(v, y[i])
        out[i, 11] = math.fabs(y[i])
        out[i, 12] = math.log10(v)
        out[i, 13] = math.erf(y[i])
        out[i, 14] = math.copysign(v, y[i])
        out[i, 15] = math.fmod(y[i], v)


def _expected_math(x, y):
    return np.stack([np.sqrt(x), np.exp(x), np.log(x), np.sin(x), np.cos(x), np.tanh(x), np.arctan2(x, y),
                     np.hypot(x, y), np.log1p(x), np.expm1(x), np.power(x, y), np.fabs(y), np.log10(x),
                     np.array([math.erf(float(v)) for v in y], dtype=x.dtype), np.copysign(x, y),
                     np.fmod(y, x)], axis=1)


def test_math_float64(rng):
    n = 4000
    x = rng.uniform(0.01, 5.0, n)
    y = rng.uniform(-3.0, 3.0, n)
    d_out = cuda.device_array((n, 16), np.float64)
    math_functions[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(y), d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), _expected_math(x, y), rtol=1e-13, atol=1e-15)


def test_math_float32(rng):
    n = 4000
    x = rng.uniform(0.01, 5.0, n).astype(np.float32)
    y = rng.uniform(-3.0, 3.0, n).astype(np.float32)
    d_out = cuda.device_array((n, 16), np.float32)
    math_functions[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(y), d_out)
    expected = _expected_math(x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(d_out.copy_to_host(), expected, rtol=1e-6, atol=1e-6)


@cuda.jit
def math_to_int(x, ints, flags):
    i = cuda.grid(1)
    if i < x.size:
        if math.isfinite(x[i]):  # NaN and infinities have no int
            ints[i, 0] = math.floor(x[i])
            ints[i, 1] = math.ceil(x[i])
            ints[i, 2] = math.trunc(x[i])
        else:
            ints[i, 0] = -1
            ints[i, 1] = -2
            ints[i, 2] = -3
        flags[i, 0] = math.isnan(x[i])
        flags[i, 1] = math.isinf(x[i])
        flags[i, 2] = math.isfinite(x[i])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_math_floor_and_predicates(rng, dtype):
    n = 3000
    x = (rng.standard_normal(n) * 50).astype(dtype)
    x[:4] = [-2.5, 2.5, -0.0, 3.0]
    special = rng.choice(np.arange(10, n), 60, replace=False)
    x[special[:20]] = np.nan
    x[special[20:40]] = np.inf
    x[special[40:]] = -np.inf
    finite = np.isfinite(x)
    d_ints = cuda.device_array((n, 3), np.int64)
    d_flags = cuda.device_array((n, 3), np.bool_)
    math_to_int[blocks(n, 128), 128](cuda.to_device(x), d_ints, d_flags)
    ints = d_ints.copy_to_host()
    np.testing.assert_array_equal(ints[finite, 0], np.floor(x[finite]).astype(np.int64))
    np.testing.assert_array_equal(ints[finite, 1], np.ceil(x[finite]).astype(np.int64))
    np.testing.assert_array_equal(ints[finite, 2], np.trunc(x[finite]).astype(np.int64))
    np.testing.assert_array_equal(ints[~finite], np.tile([-1, -2, -3], (int((~finite).sum()), 1)))
    np.testing.assert_array_equal(ints[:4, 0], [-3, 2, 0, 3])
    flags = d_flags.copy_to_host()
    np.testing.assert_array_equal(flags[:, 0], np.isnan(x))
    np.testing.assert_array_equal(flags[:, 1], np.isinf(x))
    np.testing.assert_array_equal(flags[:, 2], finite)


@cuda.jit
def casts(x, k, out64, out32, ints):
    i = cuda.grid(1)
    if i < x.size:
        ints[i] = int(x[i])  # truncates toward zero
        out64[i, 0] = float(k[i]) / 3
        out64[i, 1] = cuda.float32(x[i])  # rounded to float32, then widened
        out64[i, 2] = np.float32(x[i])
        out64[i, 3] = float32(k[i])
        out32[i] = np.float32(x[i]) * np.float32(3)  # float32 * float32 stays float32
        out64[i, 4] = cuda.int32(k[i])  # wraps to 32 bits


def test_casts(rng):
    n = 3000
    x = rng.standard_normal(n) * 1e3
    k = rng.integers(-2**40, 2**40, n, dtype=np.int64)
    d_out64 = cuda.device_array((n, 5), np.float64)
    d_out32 = cuda.device_array(n, np.float32)
    d_ints = cuda.device_array(n, np.int64)
    casts[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(k), d_out64, d_out32, d_ints)
    out64 = d_out64.copy_to_host()
    np.testing.assert_array_equal(d_ints.copy_to_host(), x.astype(np.int64))
    np.testing.assert_array_equal(out64[:, 0], k.astype(np.float64) / 3)
    np.testing.assert_array_equal(out64[:, 1], x.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(out64[:, 2], x.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(out64[:, 3], k.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(out64[:, 4], k.astype(np.int32).astype(np.float64))
    np.testing.assert_array_equal(d_out32.copy_to_host(), x.astype(np.float32) * np.float32(3))
    assert (out64[:, 1] != x).any()  # the float32 rounding happened


@cuda.jit
def builtins_kernel(x, y, k, out_f, out_i):
    i = cuda.grid(1)
    if i < x.size:
        out_f[i, 0] = abs(x[i])
        out_f[i, 1] = min(x[i], y[i])
        out_f[i, 2] = max(x[i], y[i], 0.25)
        out_i[i, 0] = abs(k[i])
        out_i[i, 1] = round(x[i])  # half to even, as Python
        out_i[i, 2] = min(k[i], 3)
        out_i[i, 3] = max(k[i], -2)
        out_i[i, 4] = len(x)


def test_abs_min_max_round(rng):
    n = 3000
    x = rng.standard_normal(n) * 10
    y = rng.standard_normal(n) * 10
    x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5]
    k = rng.integers(-10, 10, n)
    d_f = cuda.device_array((n, 3))
    d_i = cuda.device_array((n, 5), np.int64)
    builtins_kernel[blocks(n, 128), 128](cuda.to_device(x), cuda.to_device(y), cuda.to_device(k), d_f, d_i)
    out_f, out_i = d_f.copy_to_host(), d_i.copy_to_host()
    np.testing.assert_array_equal(out_f[:, 0], np.abs(x))
    np.testing.assert_array_equal(out_f[:, 1], np.minimum(x, y))
    np.testing.assert_array_equal(out_f[:, 2], np.maximum(np.maximum(x, y), 0.25))
    np.testing.assert_array_equal(out_i[:, 0], np.abs(k))
    np.testing.assert_array_equal(out_i[:, 1], [round(float(v)) for v in x])
    np.testing.assert_array_equal(out_i[:8, 1], [0, 2, 2, 0, -2, -2, 4, -4])
    np.testing.assert_array_equal(out_i[:, 2], np.minimum(k, 3))
    np.testing.assert_array_equal(out_i[:, 3], np.maximum(k, -2))
    assert (out_i[:, 4] == n).all()


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
    expected = np.stack([x % bx, y % by, z % bz, x // bx, y // by, z // bz,
                         np.full_like(x, bx), np.full_like(x, by), np.full_like(x, bz),
                         np.full_like(x, grid[0]), np.full_like(x, grid[1]), np.full_like(x, grid[2]),
                         (z * Y + y) * X + x], axis=-1)
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
    a[tpb:2 * tpb] = -np.abs(a[tpb:2 * tpb]) - 0.5  # block 1: none
    d_out = cuda.to_device(np.full((nblocks, 3), -1, np.int32))
    block_votes[nblocks, tpb](cuda.to_device(a), d_out)
    out = d_out.copy_to_host()
    per_block = (a > 0).reshape(nblocks, tpb)
    np.testing.assert_array_equal(out[:, 0], per_block.sum(axis=1))
    np.testing.assert_array_equal(out[:, 1] != 0, per_block.all(axis=1))
    np.testing.assert_array_equal(out[:, 2] != 0, per_block.any(axis=1))
    assert out[0, 0] == tpb and out[1, 0] == 0


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
    expected = [4, a[1] + a[4], a[::2].size, a[::2][2], 5, m[2, -1], a[-1], a[-3], 6, m[3, 1],
                3 * 10 + 3, m[1:4, ::2][2, 1], 0, 3]
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


# ---------------------------------------------------------------------------------------------
# The dispatcher and argument kinds
# ---------------------------------------------------------------------------------------------


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


def test_forall(rng):
    n = 10_001
    a = rng.standard_normal(n)
    d_a = cuda.to_device(a)
    scale.forall(n)(d_a, 2.5)
    np.testing.assert_array_equal(d_a.copy_to_host(), a * 2.5)
    scale.forall(n, tpb=64)(d_a, -1.0)
    np.testing.assert_array_equal(d_a.copy_to_host(), -(a * 2.5))


def test_eager_compilation_with_a_signature(rng):
    @cuda.jit("void(float32[:], float32[:])")
    def doubled(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i] * 2

    assert len(doubled.overloads) == 1  # compiled when defined
    a = rng.standard_normal(1000).astype(np.float32)
    d_dst = cuda.device_array_like(a)
    doubled[blocks(1000, 128), 128](cuda.to_device(a), d_dst)
    np.testing.assert_array_equal(d_dst.copy_to_host(), a * 2)
    assert len(doubled.overloads) == 1


def test_eager_compilation_with_several_signatures(rng):
    @cuda.jit(["void(float32[:], float32[:])", "void(int64[:], int64[:])"])
    def negate(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = -src[i]

    assert len(negate.overloads) == 2
    for a in (rng.standard_normal(300).astype(np.float32), rng.integers(-100, 100, 300)):
        d_dst = cuda.device_array_like(a)
        negate[3, 128](cuda.to_device(a), d_dst)
        np.testing.assert_array_equal(d_dst.copy_to_host(), -a)
    assert len(negate.overloads) == 2


def test_one_compilation_per_argument_types(rng):
    @cuda.jit
    def plus_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    for dtype in (np.float32, np.float64, np.float32, np.int32):
        a = rng.integers(0, 100, 50).astype(dtype)
        d_a = cuda.to_device(a)
        plus_one[1, 64](d_a)
        np.testing.assert_array_equal(d_a.copy_to_host(), a + 1)
    assert len(plus_one.overloads) == 3


def test_specialize(rng):
    a = rng.standard_normal(500).astype(np.float32)
    d_a = cuda.to_device(a)
    specialized = scale.specialize(d_a, np.float32(3))
    assert len(specialized.overloads) == 1
    specialized[4, 128](d_a, np.float32(3))
    np.testing.assert_array_equal(d_a.copy_to_host(), a * np.float32(3))


def test_inspect_asm_source_and_registers(rng):
    sig = "void(float32[:], float32[:], float32[:])"
    asm = vector_add.inspect_asm(sig)
    assert ".entry" in asm and "ld.global.f32" in asm
    source = vector_add.inspect_source(sig)
    assert "__global__" in source and "Array<float, 1>" in source
    regs = vector_add.get_regs_per_thread(sig)
    assert isinstance(regs, int) and regs > 0
    a = rng.standard_normal(10).astype(np.float32)
    vector_add[1, 32](cuda.to_device(a), cuda.to_device(a), cuda.device_array_like(a))
    every = vector_add.inspect_asm()
    assert every and all(".entry" in text for text in every.values())
    # looked up by the signature as numba users write it (layouts and all), as numba keys its dict
    assert every[(cuda.float32[::1], cuda.float32[::1], cuda.float32[::1])] == every[next(iter(every))]
    assert vector_add.inspect_source()[(cuda.float32[:],) * 3] == source
    assert all(count > 0 for count in vector_add.get_regs_per_thread().values())
    assert fast_matmul.get_shared_mem_per_block("void(float32[:, :], float32[:, :], float32[:, :])") == \
        2 * TPB * TPB * 4


def test_numpy_arrays_are_copied_in_and_out(rng):
    a = rng.standard_normal(1000)
    b = rng.standard_normal(1000)
    out = np.full(1000, np.nan)
    vector_add[blocks(1000, 128), 128](a, b, out)
    np.testing.assert_array_equal(out, a + b)
    before = a.copy()
    scale[blocks(1000, 128), 128](a, 3.0)  # the kernel's writes come back into the host array
    np.testing.assert_array_equal(a, before * 3.0)


@cuda.jit
def scalars_kernel(out, i64, f64, flag, f32, i32, u8):
    out[0] = i64
    out[1] = f64
    out[2] = flag
    out[3] = f32
    out[4] = i32
    out[5] = u8
    out[6] = i64 // 7


def test_scalar_arguments(rng):
    i64 = int(rng.integers(-2**62, 2**62))
    f64 = float(rng.standard_normal())
    f32 = np.float32(rng.standard_normal())
    i32 = np.int32(rng.integers(-2**31, 2**31 - 1))
    d_out = cuda.device_array(7)
    scalars_kernel[1, 1](d_out, i64, f64, True, f32, i32, np.uint8(200))
    out = d_out.copy_to_host()
    np.testing.assert_array_equal(out, [float(i64), f64, 1.0, float(f32), float(i32), 200.0, float(i64 // 7)])


def test_cupy_arrays(rng):
    cupy = pytest.importorskip("cupy")
    a = rng.standard_normal(5000).astype(np.float32)
    b = rng.standard_normal(5000).astype(np.float32)
    c_a, c_b = cupy.asarray(a), cupy.asarray(b)
    c_out = cupy.zeros(5000, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    vector_add[blocks(5000, 128), 128](c_a, c_b, c_out)
    cuda.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(c_out), a + b)


def test_torch_tensors(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    a = rng.standard_normal((37, 29)).astype(np.float32)
    b = rng.standard_normal((29, 23)).astype(np.float32)
    t_a, t_b = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    t_c = torch.zeros((37, 23), dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    matmul[(3, 2), (16, 16)](t_a, t_b, t_c)
    cuda.synchronize()
    np.testing.assert_allclose(t_c.cpu().numpy(), a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
                               atol=1e-5)


def test_launch_on_a_stream(rng):
    n = 50_000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    stream = cuda.stream()
    d_a = cuda.to_device(a, stream=stream)
    d_b = cuda.to_device(b, stream=stream)
    d_out = cuda.device_array(n, np.float32, stream=stream)
    vector_add[blocks(n, 256), 256, stream](d_a, d_b, d_out)
    scale[blocks(n, 256), 256, stream](d_out, np.float32(0.5))
    out = d_out.copy_to_host(stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(out, (a + b) * np.float32(0.5))


def test_launch_on_a_stream_with_numpy_arrays(rng):
    a = rng.standard_normal(3000)
    b = rng.standard_normal(3000)
    out = np.zeros(3000)
    stream = cuda.stream()
    vector_add[blocks(3000, 128), 128, stream](a, b, out)
    stream.synchronize()
    np.testing.assert_array_equal(out, a + b)


CONST_TABLE_GPU = np.random.default_rng().random((3, 5))


@cuda.jit
def const_table_kernel(out):
    table = cuda.const.array_like(CONST_TABLE_GPU)
    i, j = cuda.grid(2)
    if i < table.shape[0] and j < table.shape[1]:
        out[i, j] = table[i, j] + 1.0


def test_const_array_like():
    out = cuda.device_array((3, 5), np.float64)
    const_table_kernel[1, (4, 8)](out)
    np.testing.assert_array_equal(out.copy_to_host(), CONST_TABLE_GPU + 1.0)


# ---------------------------------------------------------------------------------------------
# cache=True: a new process loads the translation and the image from disk
# ---------------------------------------------------------------------------------------------

CACHED_MODULE = """
import numba_cuda_c as cuda

@cuda.jit(cache=True)
def scale(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i]
"""

CACHED_RUN = """
import os, sys
sys.path.insert(0, {directory!r})
import numpy as np
import numba_cuda_c as cuda
import cached_scale
x = np.arange(1000, dtype=np.float32)
out = cuda.device_array_like(x)
cached_scale.scale[8, 128](out, cuda.to_device(x), np.float32(3))
assert (out.copy_to_host() == 3 * x).all()
maps = open("/proc/self/maps").read()
print("translated:", "numba_cuda_c.pyjit.translate" in sys.modules, "nvrtc:", "libnvrtc" in maps)
"""


def test_cache_true_serves_a_new_process_from_disk(tmp_path):
    from subproc import run_python

    (tmp_path / "cached_scale.py").write_text(CACHED_MODULE)
    env = {"NUMBA_CUDA_C_CACHE_DIR": str(tmp_path / "cache")}
    first = run_python(CACHED_RUN.format(directory=str(tmp_path)), **env)
    assert "translated: True nvrtc: True" in first
    again = run_python(CACHED_RUN.format(directory=str(tmp_path)), **env)
    assert "translated: False nvrtc: False" in again  # neither the translator nor NVRTC: all from disk


def test_signatures_lists_what_was_compiled():
    def fill(a):
        a[0] = 1

    kernel = cuda.jit(fill)
    assert kernel.signatures == []
    kernel[1, 1](np.zeros(1))
    kernel[1, 1](np.zeros((2, 2), np.int32))
    first, second = kernel.signatures  # the argument types each kernel was compiled for, in order
    assert [(a.dtype, a.ndim) for (a,) in (first, second)] == [(cuda.float64, 1), (cuda.int32, 2)]
    assert ".entry" in kernel.inspect_asm(first)
