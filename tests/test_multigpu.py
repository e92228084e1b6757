"""Two GPUs: whatever is loaded or cached belongs to a context. Kernels (@jit and CUDA C) launched on one
device and then on the other give right results on each; threads select devices of their own; arrays are
copied between devices; events of two devices refuse to be compared. Skips with the reason on one GPU,
except the close-and-relaunch case, which needs one."""

import threading

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

pytestmark = requires_gpu


def device_count():
    return len(cuda.gpus) if cuda.is_available() else 0


requires_two = pytest.mark.skipif(device_count() < 2, reason="needs two GPUs, found %d" % device_count())

SOURCE = r"""
extern "C" __global__ void add_device_id(int *out, int id, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i + 1000 * id;
}"""


@cuda.jit
def scale(out, x, factor):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * factor


def run_scale(device_id, n=1000, factor=3.0):
    with cuda.gpus[device_id]:
        x = np.arange(n, dtype=np.float64) + device_id
        d_x = cuda.to_device(x)
        d_out = cuda.device_array_like(d_x)
        scale[(n + 127) // 128, 128](d_out, d_x, factor)
        got = d_out.copy_to_host()
        assert cuda.get_current_device().id == device_id
    np.testing.assert_array_equal(got, x * factor)


@requires_two
def test_jit_kernel_on_device_1_then_0_then_1():
    for device_id in (1, 0, 1, 0):
        run_scale(device_id)
    cuda.synchronize()  # the contexts are healthy: no sticky ILLEGAL_ADDRESS


@requires_two
def test_source_module_kernel_on_both_devices():
    module = cuda.SourceModule(SOURCE)
    kernel = module.get_function("add_device_id")
    for device_id in (0, 1, 0):
        with cuda.gpus[device_id]:
            out = cuda.device_array(256, np.int32)
            kernel[2, 128](out, device_id, 256)
            np.testing.assert_array_equal(out.copy_to_host(), np.arange(256) + 1000 * device_id)


@requires_two
def test_each_thread_selects_its_own_device():
    results, errors, barrier = {}, [], threading.Barrier(4)

    def worker(t):
        try:
            device_id = t % 2
            cuda.select_device(device_id)
            barrier.wait()
            assert cuda.get_current_device().id == device_id
            run_scale(device_id, factor=float(t + 1))
            results[t] = cuda.get_current_device().id
        except Exception as error:  # reported below, with the thread
            errors.append((t, error))
        finally:
            cuda.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert results == {0: 0, 1: 1, 2: 0, 3: 1}


@requires_two
def test_nesting_across_devices():
    with cuda.gpus[0]:
        assert cuda.get_current_device().id == 0
        with cuda.gpus[1]:
            assert cuda.get_current_device().id == 1
            a1 = cuda.to_device(np.arange(10))
        assert cuda.get_current_device().id == 0
    assert a1.copy_to_host().tolist() == list(range(10))  # an array remembers its context


@requires_two
@pytest.mark.parametrize("source, destination", [(0, 1), (1, 0)])
def test_peer_copies_both_ways(source, destination):
    data = np.random.default_rng(source).random(1 << 20)
    with cuda.gpus[source]:
        d_source = cuda.to_device(data)
    with cuda.gpus[destination]:
        d_destination = cuda.device_array_like(data)
        d_destination.copy_to_device(d_source)
        np.testing.assert_array_equal(d_destination.copy_to_host(), data)
        d_destination[:10] = d_source[10:20]
        np.testing.assert_array_equal(d_destination.copy_to_host()[:10], data[10:20])


@requires_two
def test_elapsed_time_of_two_devices_events_raises():
    with cuda.gpus[0]:
        start = cuda.event()
        start.record()
    with cuda.gpus[1]:
        end = cuda.event()
        end.record()
        end.synchronize()
    start.synchronize()
    with pytest.raises(ValueError):
        cuda.event_elapsed_time(start, end)


def test_cached_jit_kernel_relaunched_after_close_gives_right_results():
    run_scale(0)
    cuda.close()
    run_scale(0, factor=5.0)  # loaded again in the new context, not the closed one's module
