"""Context management: the seed's "Context management" and profiling."""

import shutil
import subprocess
import threading

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

pytestmark = requires_gpu


def test_current_context_is_primary_of_device():
    context = cuda.current_context()
    assert context is cuda.current_context()
    assert context.device is cuda.get_current_device()
    assert context is context.device.get_primary_context()
    assert context.handle != 0
    assert cuda.current_context(0) is context
    context.pop()  # current_context(0) pushed it
    assert "CUDA context" in repr(context)


def test_memory_info():
    info = cuda.current_context().get_memory_info()
    free, total = info
    assert (info.free, info.total) == (free, total)
    assert 0 < free <= total


@pytest.mark.skipif(shutil.which("nvidia-smi") is None, reason="nvidia-smi is not installed")
def test_memory_info_matches_nvidia_smi():
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits", "-i", "0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    smi_total = int(out.split()[0]) * 2**20
    with cuda.gpus[0]:
        total = cuda.current_context().get_memory_info().total
    assert abs(total - smi_total) / smi_total < 0.03


def test_push_pop():
    context = cuda.current_context()
    context.push()
    context.pop()
    assert cuda.current_context() is context

    errors = []

    def pop_in_empty_thread():
        try:
            context.pop()
        except RuntimeError as e:
            errors.append(str(e))

    thread = threading.Thread(target=pop_in_empty_thread)
    thread.start()
    thread.join()
    assert errors and "top" in errors[0]


def test_memory_info_from_thread_without_context():
    context = cuda.current_context()
    results = []
    thread = threading.Thread(target=lambda: results.append((context.get_memory_info(), cuda.gpus.current)))
    thread.start()
    thread.join()
    info, current = results[0]
    assert info.total == context.get_memory_info().total
    assert current is None  # get_memory_info pushed and popped around its query


def test_synchronize_and_context_reset():
    cuda.synchronize()
    context = cuda.current_context()
    context.synchronize()
    context.reset()
    assert cuda.current_context() is context  # reset frees what it owns; the context stays


def test_profiling():
    cuda.profile_start()
    cuda.profile_stop()
    with cuda.profiling():
        cuda.synchronize()


def test_versions():
    major, minor = cuda.cudadrv.driver.get_version()
    assert major >= 11 and 0 <= minor < 100
    assert cuda.cudadrv.driver.driver.is_available is True
    runtime = cuda.runtime.get_version()
    assert isinstance(runtime, tuple) and runtime[0] >= 11
    assert isinstance(cuda.runtime.is_supported_version(), bool)
