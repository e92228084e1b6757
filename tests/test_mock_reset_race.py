"""A context's release or reset while other threads copy (the mock driver, tests/mockcuda): CUDA leaves a
context destroyed under a call in flight undefined (a crash, at worst; the mock frees the copy's memory
under it). Close and reset must wait for the driver calls other threads made without the GIL, and calls
that start meanwhile must fail cleanly (src/driver_gate.h)."""

import pytest

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

pytestmark = pytest.mark.usefixtures("mock_driver")


def test_close_and_reset_never_destroy_a_context_under_a_copy():
    out = run_mock(
        r"""
        import threading, time
        n = 8 << 20  # 32 MiB of float32: over the staging threshold, and a copy that takes a while
        stop, bad, errors, done = threading.Event(), [], [], [0]
        clear = (cuda.CudaDriverError, cuda.CudaAPIError, cuda.CudaSupportError)

        def worker(t):
            host = np.arange(n, dtype=np.float32) + t
            while not stop.is_set():
                try:
                    d = cuda.to_device(host)
                    back = d.copy_to_host()
                    again = np.empty_like(host)
                    d.copy_to_host(again)
                except clear as error:  # the context went under it: fine, if it says so
                    assert str(error), repr(error)
                    continue
                except Exception as error:
                    errors.append("thread %d: %r" % (t, error))
                    return
                if not (np.array_equal(back, host) and np.array_equal(again, host)):
                    bad.append(t)
                    return
                done[0] += 1

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for t in threads: t.start()
        for i in range(30):
            time.sleep(0.01)
            if i % 2:
                cuda.close()
            else:
                cuda.get_current_device().reset()
        stop.set()
        for t in threads: t.join()
        assert not bad and not errors, (bad, errors)
        assert mock.destroyed_under_call() == 0, mock.destroyed_under_call()
        h = np.arange(n, dtype=np.float32)
        assert np.array_equal(cuda.to_device(h).copy_to_host(), h)
        print("ok", done[0])
        """,
        MOCK_CUDA_SLOW_CALLS_US="2000",
    )
    assert out.startswith("ok ")
