"""A context's release or reset while other threads copy (the mock driver, tests/support/mockcuda): CUDA leaves a
context destroyed under a call in flight undefined (a crash, at worst; the mock frees the copy's memory
under it). Close and reset must wait for the driver calls other threads made without the GIL, and calls
that start meanwhile must fail cleanly (src/driver/driver_gate.h)."""

import pytest

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from reset_race import scenario

pytestmark = pytest.mark.usefixtures("mock_driver")


def test_close_and_reset_never_destroy_a_context_under_a_copy():
    # 32 MiB of float32: over the staging threshold; each copy and allocation held 2 ms in flight
    # on a failure, what raced: the destroying call and the calls in flight, with their threads and stacks
    check = "assert mock.destroyed_under_call() == 0, mock.destroyed_under_call_report()"
    out = run_mock(
        scenario(n=8 << 20, rounds=30, pause=0.01, settle=0.0, extra_check=check), MOCK_CUDA_SLOW_CALLS_US="2000"
    )
    assert out.startswith("ok ")


def test_a_reset_releases_no_retain():
    # As the driver's (seen on an H100, driver 580): a retain taken before a reset is still released after
    # it, and that release leaves the context that later retains made. The mock once zeroed the count at a
    # reset, so such a release destroyed the new context under the copies of the threads that retained it.
    out = run_mock("""
        import ctypes
        cuda.current_context()
        cuda.close()
        lib, ctx, pointer = mock.lib, ctypes.c_void_p(), ctypes.c_ulonglong()
        assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0  # one thread's, before the reset
        assert lib.cuDevicePrimaryCtxReset_v2(0) == 0
        assert mock.live()["contexts"] == 1  # kept: still owed a release
        assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0  # another's, afterwards
        assert lib.cuDevicePrimaryCtxRelease_v2(0) == 0  # the first thread's
        assert lib.cuCtxPushCurrent_v2(ctx) == 0
        assert lib.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(256)) == 0  # the context lives on
        assert lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p())) == 0
        assert lib.cuDevicePrimaryCtxRelease_v2(0) == 0 and mock.live()["device"] == 0  # the last: destroyed
        assert lib.cuDevicePrimaryCtxRelease_v2(0) == CU["CUDA_ERROR_INVALID_CONTEXT"]  # none left
        assert mock.live()["contexts"] == 0
        print("ok")
    """)
    assert out.strip() == "ok"
