"""Atomics in @cuda.jit kernels on the GPU: numba's histogram example, max/min, add/sub (on 2-D indices too),
compare-and-swap (one winner, per element), the bitwise operations, exchange and increment.

Each kernel runs on fresh random inputs and is checked against NumPy (or the same Python function run on the
host). Kernels are defined at module level (the translator reads their source).
"""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from jit_helpers import blocks, rng  # noqa: F401  (rng: a fixture)

pytestmark = requires_gpu


# ---------------------------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------------------------


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
        values = rng.integers(max(info.min, -(10**9)), min(info.max, 10**9), n).astype(dtype)
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
