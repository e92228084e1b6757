"""The scenario both reset-race tests run (tests/core/test_threads.py on the GPU,
tests/driver/test_mock_reset_race.py on the mock driver): four threads copy large pageable arrays to the
device and back while the main thread resets the device and closes the contexts in turn. Returns Python
source for a fresh interpreter that defines `cuda`, `np` and `threading`; it prints "ok <copies done>" when
every copy that finished was right, every error said what happened, and the device works afterwards."""


def scenario(n, rounds, pause, settle, extra_check=""):
    return """
import threading, time
n = {n}
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
            if not str(error):
                errors.append("an exception without a message: %r" % (error,))
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
try:
    for i in range({rounds}):
        time.sleep({pause})
        if i % 2:
            cuda.close()
        else:
            cuda.get_current_device().reset()
    time.sleep({settle})
finally:  # the workers stop even when the main thread fails: its error is reported, not a hang
    stop.set()
    for t in threads: t.join()
assert not bad, "wrong data in threads %s" % bad
assert not errors, errors
{extra_check}
h = np.arange(n, dtype=np.float32)
assert np.array_equal(cuda.to_device(h).copy_to_host(), h)  # the device works afterwards
print("ok", done[0])
""".format(n=n, rounds=rounds, pause=pause, settle=settle, extra_check=extra_check)
