"""A context's release or reset while other threads copy (the mock driver, tests/mockcuda): CUDA leaves a
context destroyed under a call in flight undefined (a crash, at worst; the mock frees the copy's memory
under it). Close and reset must wait for the driver calls other threads made without the GIL, and calls
that start meanwhile must fail cleanly (src/driver_gate.h)."""

import pytest

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from reset_race import scenario

pytestmark = pytest.mark.usefixtures("mock_driver")


def test_close_and_reset_never_destroy_a_context_under_a_copy():
    # 32 MiB of float32: over the staging threshold; each copy and allocation held 2 ms in flight
    # on a failure, what raced: the destroying call and the calls in flight, with their threads and stacks
    check = "assert mock.destroyed_under_call() == 0, mock.destroyed_under_call_report()"
    out = run_mock(scenario(n=8 << 20, rounds=30, pause=0.01, settle=0.0, extra_check=check),
                   MOCK_CUDA_SLOW_CALLS_US="2000")
    assert out.startswith("ok ")

