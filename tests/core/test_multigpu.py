"""Two GPUs: kernels loaded per context, devices per thread, peer copies, events and IPC across devices;
and, on one GPU, a cached kernel launched again after cuda.close(). The same cases run without a GPU
against a mock driver in test_multigpu_mock.py."""

import pickle
import threading

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from subproc import run_python

pytestmark = requires_gpu


def _two():
    return pytest.mark.skipif(not cuda.is_available() or len(cuda.gpus) < 2, reason="needs two GPUs")


need_two = _two()

SOURCE = r"""
extern "C" __global__ void add(double *a, double v, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += v;
}
"""


def _jit_add():
    @cuda.jit
    def add(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += v

    return add


# cuda.close() resets the devices: in a process of its own, as other libraries' contexts (CuPy's pool, say)
# in this one would die with it
CLOSE_SCRIPT = r"""
import numpy as np
import pytest
import numba_cuda_c as cuda

SOURCE = %r


@cuda.jit
def add(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += v


def cached_jit_kernel_runs_again_after_close():
    host = np.arange(512, dtype=np.float64)
    d = cuda.to_device(host)
    add[4, 128](d, 1.0)
    np.testing.assert_array_equal(d.copy_to_host(), host + 1)
    cuda.close()
    d = cuda.to_device(host)
    add[4, 128](d, 2.0)
    add[4, 128](d, 3.0)
    np.testing.assert_array_equal(d.copy_to_host(), host + 5)
    with pytest.raises(cuda.CudaDriverError):  # an array of the closed context
        cuda.close()
        add[4, 128](d, 1.0)


def source_module_kernel_runs_again_after_close():
    kernel = cuda.SourceModule(SOURCE).get_function("add")
    host = np.arange(300, dtype=np.float64)
    cuda.close()
    d = cuda.to_device(host)
    kernel[3, 128](d, 1.5, host.size)
    np.testing.assert_array_equal(d.copy_to_host(), host + 1.5)


globals()[CASE]()
print("ok", CASE)
"""


@pytest.mark.parametrize(
    "case", ["cached_jit_kernel_runs_again_after_close", "source_module_kernel_runs_again_after_close"]
)
def test_kernels_run_again_after_close(case, tmp_path):
    script = tmp_path / "close_case.py"  # a file: the translator reads the kernel's source
    script.write_text(CLOSE_SCRIPT % SOURCE)
    out = run_python("import runpy; runpy.run_path(%r, init_globals={'CASE': %r})" % (str(script), case))
    assert out.strip() == "ok " + case


@need_two
def test_a_jit_kernel_on_device_1_then_0_then_1():
    add = _jit_add()
    host = np.arange(1000, dtype=np.float64)
    for device, value in ((1, 1.0), (0, 2.0), (1, 3.0), (0, 4.0)):
        with cuda.gpus[device]:
            d = cuda.to_device(host)
            add[8, 128](d, value)
            np.testing.assert_array_equal(d.copy_to_host(), host + value)
    with cuda.gpus[0]:  # numpy arguments: copied in the current device's context
        h = host.copy()
        add[8, 128](h, 1.0)
        with cuda.gpus[1]:
            h1 = host.copy()
            add[8, 128](h1, 2.0)
    np.testing.assert_array_equal(h, host + 1)
    np.testing.assert_array_equal(h1, host + 2)
    cuda.synchronize()


@need_two
def test_a_source_module_kernel_on_both_devices():
    with cuda.gpus[1]:
        kernel = cuda.SourceModule(SOURCE).get_function("add")
    host = np.arange(1000, dtype=np.float64)
    for device in (0, 1, 0):
        with cuda.gpus[device]:
            d = cuda.to_device(host)
            kernel[8, 128](d, float(device + 1), host.size)
            np.testing.assert_array_equal(d.copy_to_host(), host + device + 1)
            s = cuda.stream()
            kernel[8, 128, s](d, 1.0, host.size)
            s.synchronize()
            np.testing.assert_array_equal(d.copy_to_host(), host + device + 2)


@need_two
def test_an_array_of_the_other_device_in_a_kernel():
    add = _jit_add()
    with cuda.gpus[1]:
        d1 = cuda.to_device(np.zeros(64))
    with cuda.gpus[0]:
        if cuda.current_context().can_access_peer(1):
            add[1, 64](d1, 1.0)
            cuda.synchronize()
            np.testing.assert_array_equal(d1.copy_to_host(), np.ones(64))
        else:
            with pytest.raises(ValueError, match="device 1"):
                add[1, 64](d1, 1.0)


@need_two
def test_select_device_in_threads():
    add = _jit_add()
    host = np.arange(256, dtype=np.float64)
    failures = []
    barrier = threading.Barrier(8)

    def work(i):
        try:
            cuda.select_device(i % 2)
            barrier.wait()
            for _ in range(10):
                assert cuda.get_current_device().id == i % 2
                d = cuda.to_device(host)
                add[2, 128](d, float(i))
                np.testing.assert_array_equal(d.copy_to_host(), host + i)
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures


@need_two
@pytest.mark.parametrize("n", [10, 3 << 20])
def test_peer_copies_both_ways(n):
    host = np.random.default_rng(0).random(n)
    with cuda.gpus[0]:
        a0 = cuda.to_device(host)
    with cuda.gpus[1]:
        a1 = cuda.device_array_like(host)
    with cuda.gpus[0]:
        a1.copy_to_device(a0)
        np.testing.assert_array_equal(a1.copy_to_host(), host)
    with cuda.gpus[1]:
        b0 = cuda.to_device(host[::-1].copy())
        s = cuda.stream()
        a0.copy_to_device(b0, stream=s)
        s.synchronize()
    np.testing.assert_array_equal(a0.copy_to_host(), host[::-1])
    a1[1:5] = a0[1:5]
    np.testing.assert_array_equal(a1.copy_to_host()[1:5], host[::-1][1:5])


@need_two
def test_elapsed_time_across_devices_raises():
    with cuda.gpus[0]:
        e0 = cuda.event()
        e0.record()
    with cuda.gpus[1]:
        e1 = cuda.event()
        e1.record()
        e1.synchronize()
    e0.synchronize()
    with pytest.raises(ValueError, match="different devices"):
        cuda.event_elapsed_time(e0, e1)


@need_two
def test_ipc_handle_of_device_1_opens_on_device_1_in_another_process():
    host = np.arange(100, dtype=np.int32)
    with cuda.gpus[1]:
        d = cuda.to_device(host)
        handle = d.get_ipc_handle()
    assert handle._ipc_handle.source_info == cuda.gpus[1].get_device_identity()
    out = run_python(
        """
        import pickle, sys
        import numpy as np
        import numba_cuda_c as cuda
        handle = pickle.loads(bytes.fromhex(sys.argv[1] if len(sys.argv) > 1 else %r))
        with handle as d:
            print(d.copy_to_host().sum(), cuda.get_current_device().id)
        """
        % pickle.dumps(handle).hex()
    )
    total, current = out.split()
    assert int(total) == host.sum()
    assert current == "0"  # opened on device 1 without changing this thread's device


@need_two
def test_nesting_across_devices():
    with cuda.gpus[0]:
        assert cuda.get_current_device().id == 0
        with cuda.gpus[1]:
            assert cuda.get_current_device().id == 1
            a1 = cuda.to_device(np.arange(10))
        assert cuda.get_current_device().id == 0
    assert a1.copy_to_host().tolist() == list(range(10))  # an array remembers its context
