"""The CUDA simulator (NUMBA_ENABLE_CUDASIM=1, numba_cuda_c/simulator/): `import numba_cuda_c` gives numba's
simulator API, kernels run in Python threads on the CPU. Each test runs in a fresh interpreter, as the variable
is read when the package is imported. No GPU needed: these run in CI."""

import importlib.util
import os
import re
import subprocess
import sys

import pytest
from subproc import run_python

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/: simulator_selection.txt, the suite


def simulated(code):
    return run_python(code, NUMBA_ENABLE_CUDASIM="1")


def test_the_package_is_the_simulator():
    out = simulated("""
        import numba_cuda_c as cuda, numba_cuda_c.random
        assert cuda.is_available() and cuda.simulator.__name__ == "numba_cuda_c.simulator"
        assert numba_cuda_c.random is cuda.simulator.random
        assert cuda.gpus[0].name == "SIMULATOR" and len(cuda.list_devices()) == 1
        assert isinstance(cuda.__version__, str)
        cuda.detect()
        for name in ("SourceModule", "compile_ptx"):
            try:
                getattr(cuda, name)("")
            except NotImplementedError as exc:
                print(exc)
            else:
                raise AssertionError(name)
        try:
            cuda.no_such_name
        except AttributeError as exc:
            print(exc)
    """)
    assert "SIMULATOR" in out and "the CUDA simulator" in out
    assert "cuda.SourceModule: the CUDA simulator has no CUDA C compiler" in out
    assert "has no attribute 'no_such_name'" in out


def test_syncthreads_is_a_barrier_and_shared_arrays_are_per_block():
    simulated("""
        import numpy as np
        import numba_cuda_c as cuda

        @cuda.jit
        def reverse_each_block(a):
            s = cuda.shared.array(64, dtype=np.int64)
            t = cuda.threadIdx.x
            base = cuda.blockIdx.x * cuda.blockDim.x
            s[t] = a[base + t]
            cuda.syncthreads()  # every thread's store is seen before any thread reads its mirror
            a[base + t] = s[cuda.blockDim.x - 1 - t]

        a = np.arange(128)
        d = cuda.to_device(a)
        reverse_each_block[2, 64](d)
        np.testing.assert_array_equal(d.copy_to_host(), np.concatenate([a[:64][::-1], a[64:][::-1]]))

        @cuda.jit
        def count_all(counter, biggest):
            i = cuda.grid(1)
            cuda.atomic.add(counter, 0, 1)
            cuda.atomic.max(biggest, 0, i)
            n = cuda.syncthreads_count(i % 2 == 0)
            if i == 0:
                counter[1] = n

        counter, biggest = np.zeros(2, np.int32), np.zeros(1, np.int32)
        count_all[3, 32](counter, biggest)
        assert counter[0] == 96 and counter[1] == 16 and biggest[0] == 95, (counter, biggest)

        @cuda.jit
        def warp_sum(a, out):
            v = a[cuda.threadIdx.x]
            offset = 16
            while offset > 0:
                v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
                offset //= 2
            if cuda.threadIdx.x == 0:
                out[0] = v

        out = np.zeros(1, np.float64)
        warp_sum[1, 32](np.arange(32.0), out)
        assert out[0] == sum(range(32))
    """)


def test_arrays_streams_and_events_work_synchronously():
    simulated("""
        import numpy as np
        import numba_cuda_c as cuda

        stream = cuda.stream()
        start, end = cuda.event(), cuda.event()
        start.record(stream)
        d = cuda.to_device(np.arange(10.0), stream=stream)
        d2 = cuda.device_array_like(d, stream=stream)
        d2.copy_to_device(d, stream=stream)
        end.record(stream)
        stream.synchronize()
        assert end.query() and cuda.event_elapsed_time(start, end) >= 0
        np.testing.assert_array_equal(d2[2:5].copy_to_host(), [2, 3, 4])
        pinned = cuda.pinned_array(4, np.int32)
        pinned[:] = 7
        assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(pinned)
        assert cuda.reduce(lambda a, b: a + b)(np.arange(100)) == 4950
    """)


def test_an_error_in_a_kernel_names_the_thread():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "\n".join(
                [
                    "import numpy as np, numba_cuda_c as cuda",
                    "@cuda.jit",
                    "def k(a):",
                    "    a[cuda.grid(1)] = 1",
                    "k[1, 8](np.zeros(4))",
                ]
            ),
        ],
        env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "IndexError" in done.stderr and re.search(
        r"tid=\[\d+, 0, 0\] ctaid=\[0, 0, 0\]", done.stderr
    ), done.stderr


def test_launches_past_the_devices_limits_raise_as_on_the_gpu_instead_of_running_for_ever():
    out = simulated("""
        import numpy as np
        import numba_cuda_c as cuda

        @cuda.jit
        def k(a):
            a[0] += 1

        a = np.zeros(1)
        cases = [(2**70, 4, OverflowError, "griddim is too large"), (4, 2**70, OverflowError, "blockdim is too large"),
                 (2**32, 1, OverflowError, "griddim is too large"), (0, 4, ValueError, "must hold positive sizes"),
                 (2**31, 1, cuda.CudaAPIError, "more than a grid may have"),
                 ((1, 65536), 1, cuda.CudaAPIError, "more than a grid may have"),
                 ((1, 1, 65536), 1, cuda.CudaAPIError, "more than a grid may have")]
        for griddim, blockdim, error, words in cases:
            try:
                k[griddim, blockdim](a)
            except error as e:
                assert words in str(e), e
            else:
                raise AssertionError((griddim, blockdim))
        assert a[0] == 0  # nothing ran
        k[(2, 1, 1), 2](a)
        assert a[0] == 4
        print("refused")
    """)
    assert "refused" in out


def _selection():
    with open(os.path.join(TESTS, "simulator_selection.txt")) as listing:
        return [line.strip() for line in listing if line.strip() and not line.startswith("#")]


@pytest.mark.timeout(600)
def test_our_gpu_tests_pass_under_the_simulator(tmp_path):
    """The GPU tests tests/simulator_selection.txt lists, run with the simulator on: each passes, none skips. Run
    from elsewhere than the checkout, so that the numba_cuda_c tested is the one installed (a wheel in CI too)."""
    parallel = ["-n", "4"] if importlib.util.find_spec("xdist") else []
    import numba_cuda_c  # the copy this session tests (installed, or the checkout on sys.path): the same there

    where = os.path.dirname(os.path.dirname(os.path.abspath(numba_cuda_c.__file__)))
    path = os.pathsep.join(p for p in (where, os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *parallel, TESTS],
        cwd=str(tmp_path),
        env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=path),
        capture_output=True,
        text=True,
        timeout=580,
    )
    tail = done.stdout[-3000:] + done.stderr[-2000:]
    assert done.returncode == 0, tail
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed and int(passed.group(1)) == len(_selection()), tail


def test_the_driver_modules_are_the_simulators():
    """numba_cuda_c.cudadrv.driver / devices / devicearray are the simulator's, as numba's simulator makes
    numba.cuda.cudadrv: memset and copies over simulated memory, one device; the package's other cudadrv
    modules still import."""
    out = simulated("""
        import numpy as np
        from numba_cuda_c.cudadrv import driver, devices, devicearray
        from numba_cuda_c.cudadrv.driver import driver as the_driver
        from numba_cuda_c.cudadrv import linkable_code  # noqa: F401  (the package's own)
        import numba_cuda_c as cuda

        memory = devices.get_context().memalloc(40)
        driver.host_to_device(memory, np.arange(10, dtype=np.uint32), 40)
        back = np.empty(10, np.uint32)
        driver.device_to_host(back, memory, 40)
        assert back.tolist() == list(range(10)) and the_driver.get_device_count() == 1
        d = cuda.to_device(np.ones(4))
        driver.device_memset(d, 0, driver.device_memory_size(d))
        assert d.copy_to_host().tolist() == [0, 0, 0, 0]
        assert devicearray.auto_device(2)[0].copy_to_host() == 2
        try:
            devicearray.auto_device(np.arange(10.0)[::2])
        except ValueError as exc:
            print(exc)
        assert cuda.cudadrv.devicearray is devicearray and len(cuda.gpus.lst) == 1
    """)
    assert "non-contiguous buffer" in out
