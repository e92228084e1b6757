"""cuda.pinned / cuda.mapped nest (issue 10, item 19): memory registered already, by an outer block, an
overlapping array or someone else, is used as is; each range is unregistered when its last user goes.
The counting (src/core/registration.c) runs in CI against a mock driver; the GPU tests run the real one."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")
GCC = shutil.which("gcc") or shutil.which("cc")


def build(tmp_path, sanitize):
    program = tmp_path / ("registration_tsan" if sanitize else "registration")
    cmd = [
        GCC,
        "-O1",
        "-g",
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-I",
        SRC,
        "-I",
        os.path.join(SRC, "core"),
        "-I",
        os.path.join(SRC, "driver", "api"),
        os.path.join(HERE, "registration_mock.c"),
        os.path.join(SRC, "core", "registration.c"),
        "-o",
        str(program),
        "-lpthread",
    ]
    if sanitize:
        cmd.insert(1, "-fsanitize=thread")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return program if done.returncode == 0 else done.stderr


@pytest.mark.skipif(GCC is None, reason="no C compiler on PATH")
def test_registrations_are_counted_against_a_mock_driver(tmp_path):
    program = build(tmp_path, sanitize=True)
    if not hasattr(program, "exists"):  # no ThreadSanitizer here: plain build
        program = build(tmp_path, sanitize=False)
        assert hasattr(program, "exists"), program
    done = subprocess.run(
        [str(program)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, TSAN_OPTIONS="halt_on_error=1"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok ") and int(done.stdout.split()[1]) >= 50
    assert "WARNING: ThreadSanitizer" not in done.stderr


def registrations():
    return cuda._cuda._registrations()


def driver_library():
    """The driver, through ctypes, for a registration made by someone other than us."""
    import ctypes

    cuda.current_context()  # loaded, and a context current in this thread
    return ctypes.CDLL(os.environ.get("NUMBA_CUDA_DRIVER") or "libcuda.so.1")


@requires_gpu
def test_nested_pinned_blocks():
    host = np.arange(1 << 20, dtype=np.float32)
    with cuda.pinned(host):
        assert registrations() == (1, 1)
        with cuda.pinned(host):  # was CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
            with cuda.pinned(host[10:1000]):  # a part of it
                assert registrations() == (1, 3)
                d = cuda.to_device(host)
            assert registrations() == (1, 2)
        assert registrations() == (1, 1)  # the inner exits did not unpin the outer block's memory
        np.testing.assert_array_equal(d.copy_to_host(), host)
    assert registrations() == (0, 0)
    with cuda.pinned(host):  # and it can be pinned again
        assert registrations() == (1, 1)
    assert registrations() == (0, 0)


@requires_gpu
def test_pinned_and_mapped_together():
    host = np.arange(4096, dtype=np.int32)
    with cuda.pinned(host):
        with cuda.mapped(host) as mapped:
            assert mapped.device_pointer != 0
            np.testing.assert_array_equal(mapped.copy_to_host(), host)
            assert registrations() == (1, 2)
        assert registrations() == (1, 1)
    assert registrations() == (0, 0)


@requires_gpu
def test_memory_registered_elsewhere_is_used_as_is():
    import ctypes

    libcuda = driver_library()
    host = np.ones(1 << 16, dtype=np.float64)
    address = ctypes.c_void_p(host.ctypes.data)
    assert libcuda.cuMemHostRegister_v2(address, ctypes.c_size_t(host.nbytes), 0) == 0
    try:
        with cuda.pinned(host):
            with cuda.pinned(host[:100]):
                d = cuda.to_device(host)
        assert registrations() == (0, 0)  # not ours: not counted
        np.testing.assert_array_equal(d.copy_to_host(), host)
    finally:
        # still registered (we did not undo the other's registration): its owner's unregistration works
        assert libcuda.cuMemHostUnregister(address) == 0


@requires_gpu
def test_the_same_buffer_pinned_from_many_threads():
    import threading

    host = np.zeros(1 << 18, dtype=np.uint8)
    errors = []

    def worker():
        try:
            for _ in range(50):
                with cuda.pinned(host):
                    with cuda.pinned(host[: 1 << 12]):
                        pass
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert registrations() == (0, 0)


@requires_gpu
def test_kernels_write_mapped_and_managed_arrays_in_place():
    # numba passes memory the device reaches as it is (auto_device): no copy to the device and back
    @cuda.jit("void(float64[:])")
    def ones(x):
        i = cuda.grid(1)
        if i < x.shape[0]:
            x[i] = 1.0

    for make in (cuda.managed_array, cuda.mapped_array):
        ary = make(100, dtype=np.float64)
        ary.fill(123.456)
        ones[10, 10](ary)
        cuda.current_context().synchronize()
        assert (ary == 1.0).all(), make.__name__
