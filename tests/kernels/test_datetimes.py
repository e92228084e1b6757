"""NumPy's datetime64 and timedelta64 in kernels, as numba's: arrays and scalars of one unit as arguments,
global datetime64 values as constants, datetime - datetime, +/- timedelta, timedelta scaling and ratios, abs,
comparisons, units meeting in the finer one, NaT through all of it; vectorize and guvectorize over them.
Translation in CI; results against NumPy on the GPU."""

import numpy as np
import pytest

import datetime_kernels as dk
import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import types
from numba_cuda_c.np.numpy_support import from_dtype
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.dispatcher import typeof

DATES = np.arange("2005-02", "2006-02", dtype="datetime64[D]")


def test_datetimes_are_typed_by_unit():
    assert str(typeof(DATES)) == "datetime64[D][:]" and str(typeof(DATES[0])) == "datetime64[D]"
    assert typeof(np.datetime64(1, "s")) != typeof(np.datetime64(1, "D"))
    assert from_dtype(np.dtype("m8[ns]")) is types.from_dtype("timedelta64[ns]")
    assert from_dtype(np.dtype("M8[D]")).dtype == np.dtype("M8[D]")
    with pytest.raises(TypeError, match="one unit"):
        from_dtype(np.dtype("M8"))


@needs_nvrtc
def test_datetime_kernels_translate():
    dt, td = typeof(DATES), typeof(np.zeros(1, "m8[D]"))
    cuda.compile_ptx(dk.differences, (dt, dt, td))
    cuda.compile_ptx(dk.scalars, (dt, typeof(DATES[5]), typeof(DATES[6] - DATES[5]), types.boolean[:], dt))
    cuda.compile_ptx(
        dk.arithmetic,
        (dt, typeof(DATES[1] - DATES[0]), typeof(np.zeros(1, "m8[s]")), dt, types.float64[:], types.boolean[:]),
    )

    def mixed(a, b):
        a[0] = b[0] + b[0]  # two datetimes do not add

    with pytest.raises(KernelTypeError, match="unsupported operation on datetimes"):
        cuda.compile_ptx(mixed, (dt, dt))

    def years_and_days(a, b, c):
        c[0] = a[0] - b[0]

    with pytest.raises(KernelTypeError, match="years and months have no fixed length"):
        cuda.compile_ptx(years_and_days, (typeof(np.zeros(1, "M8[Y]")), dt, td))


@requires_gpu
def test_datetime_kernels_on_the_gpu():
    rng = np.random.default_rng(1)
    later = DATES + rng.integers(0, 10000, DATES.size)
    later[3] = np.datetime64("NaT")
    delta = np.zeros_like(DATES, dtype="timedelta64[D]")
    cuda.jit(dk.differences)[1, 32](DATES, later, delta)
    np.testing.assert_array_equal(delta, later - DATES)  # NaT at 3 too

    matches = np.zeros(DATES.size, np.bool_)
    shifted = np.zeros_like(DATES)
    step = DATES[6] - DATES[5]
    cuda.jit(dk.scalars)[1, 32](DATES, DATES[5], step, matches, shifted)
    assert list(matches.nonzero()[0]) == [5]
    np.testing.assert_array_equal(shifted, DATES - step)

    n = DATES.size
    seconds, days, ratios, flags = np.zeros(n, "m8[s]"), np.zeros(n, "M8[D]"), np.zeros(n), np.zeros(n, np.bool_)
    dates = DATES.copy()
    dates[7] = np.datetime64("NaT")
    cuda.jit(dk.arithmetic)[1, 512](dates, step, seconds, days, ratios, flags)
    np.testing.assert_array_equal(seconds, dates - dk.START)
    np.testing.assert_array_equal(days, abs(-(step * 2)) + dates)
    np.testing.assert_array_equal(ratios, np.full(n, 2.0))
    np.testing.assert_array_equal(flags, (dates != dates) | (dates < dk.START))


@requires_gpu
def test_datetime_ufuncs_on_the_gpu():
    datetime_t, timedelta_t = from_dtype(np.dtype("datetime64[D]")), from_dtype(np.dtype("timedelta64[D]"))

    @cuda.vectorize([(datetime_t, datetime_t)], target="cuda")  # the result's type inferred, as numba
    def timediff(start, end):
        return end - start

    @cuda.guvectorize([(datetime_t, datetime_t, timedelta_t[:])], "(),()->()", target="cuda")
    def timediff_gu(start, end, out):
        out[0] = end - start

    later = DATES + np.arange(DATES.size)
    np.testing.assert_array_equal(timediff(DATES, later), later - DATES)
    np.testing.assert_array_equal(timediff_gu(DATES, later), later - DATES)
