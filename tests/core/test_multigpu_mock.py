"""Several devices without a GPU: a mock libcuda (tests/core/multigpu_mock.c, loaded through NUMBA_CUDA_DRIVER)
with two devices, whose modules belong to the context they were loaded in and whose kernels the mock
runs on the host. Shows which context each load, launch and copy happens in: kernels load per
context and follow the current device, a closed context's kernels reload, arrays of another device
are reached through peer access or refused, peer copies, one device list for racing first uses."""

import os
import shutil
import subprocess
import textwrap

import pytest

from subproc import run_python

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src", "driver", "api")
GCC = shutil.which("gcc") or shutil.which("cc")

pytestmark = pytest.mark.skipif(GCC is None, reason="no C compiler on PATH")


@pytest.fixture(scope="module")
def mock_driver(tmp_path_factory):
    out = tmp_path_factory.mktemp("mock_driver")
    source = os.path.join(HERE, "multigpu_mock.c")
    flags = ["-O1", "-g", "-std=c11", "-fPIC", "-Wall", "-Werror", "-I", API]
    for name, extra in (("stubs.o", ["-DMOCK_STUBS"]), ("mock.o", [])):
        subprocess.run([GCC, *flags, *extra, "-c", source, "-o", str(out / name)], check=True, timeout=120)
    library = out / "libcuda.so"
    subprocess.run(
        [GCC, "-shared", str(out / "stubs.o"), str(out / "mock.o"), "-o", str(library), "-lpthread"],
        check=True,
        timeout=120,
    )
    return str(library)


PRELUDE = """
import ctypes, os, threading
import numpy as np
import numba_cuda_c as cuda
from numba_cuda_c import _cuda

_mock = ctypes.CDLL(os.environ["NUMBA_CUDA_DRIVER"])

def stats():
    out = (ctypes.c_long * 19)()
    _mock.mock_stats(out)
    return {"loads": list(out[0:2]), "launches": list(out[8:10]), "peer_copies": out[16], "bad_launches": out[17],
            "inits": out[18]}

def fill_kernel():
    # the mock runs a kernel named fill(p, n, v): v into n int64s at p
    return _cuda._load_module_image(b"mock image").get_function("fill")

def filled(kernel, value, n=8):
    d = cuda.device_array(n, np.int64)
    kernel[1, 1](d, n, value)
    return d.copy_to_host()
"""


def run(mock_driver, code, **env):
    return run_python(PRELUDE + textwrap.dedent(code), NUMBA_CUDA_DRIVER=mock_driver, **env)


def run_file(mock_driver, directory, code):
    """As run(), from a file: @cuda.jit reads its kernels' source."""
    script = directory / "snippet.py"
    script.write_text(PRELUDE + textwrap.dedent(code))
    return run_python(
        "import runpy; runpy.run_path(%r)" % str(script), NUMBA_CUDA_DRIVER=mock_driver, NUMBA_CUDA_C_CACHE="0"
    )


def test_a_kernel_launches_on_each_device_with_its_module_loaded_there(mock_driver):
    out = run(
        mock_driver,
        """
        k = fill_kernel()
        with cuda.gpus[1]:
            assert (filled(k, 5) == 5).all()
        assert (filled(k, 3) == 3).all()
        with cuda.gpus[1]:
            assert (filled(k, 7) == 7).all()
            assert cuda.get_current_device().id == 1
        with cuda.gpus[0]:
            with cuda.gpus[1]:
                assert (filled(k, 9) == 9).all()
            assert (filled(k, 4) == 4).all()
        print(stats())
    """,
    )
    stats = eval(out.strip().splitlines()[-1])
    assert stats["loads"] == [1, 1]  # once per context, however often the kernel alternates
    assert stats["launches"] == [2, 3]
    assert stats["bad_launches"] == 0


def test_a_kernel_reloads_in_the_new_context_after_close(mock_driver):
    out = run(
        mock_driver,
        """
        k = fill_kernel()
        assert (filled(k, 1) == 1).all()
        cuda.close()
        assert (filled(k, 2) == 2).all()
        assert (filled(k, 3) == 3).all()
        print(stats())
    """,
    )
    stats = eval(out.strip().splitlines()[-1])
    assert stats["loads"] == [2, 0]
    assert stats["bad_launches"] == 0


def test_a_jit_kernel_follows_the_current_device_and_close(mock_driver, tmp_path):
    out = run_file(
        mock_driver,
        tmp_path,
        """
        try:
            _cuda.nvrtc_version()
        except Exception as e:
            print("SKIP", e)
            raise SystemExit(0)

        @cuda.jit
        def add(a, v):
            i = cuda.grid(1)
            if i < a.size:
                a[i] += v

        with cuda.gpus[1]:
            add[1, 8](cuda.device_array(8), 1.0)
        add[1, 8](cuda.device_array(8), 1.0)
        with cuda.gpus[1]:
            add[1, 8](cuda.device_array(8), 1.0)
        cuda.close()
        add[1, 8](cuda.device_array(8), 1.0)
        print(stats())
    """,
    )
    last = out.strip().splitlines()[-1]
    if last.startswith("SKIP"):
        pytest.skip(last)
    stats = eval(last)
    assert stats["loads"] == [2, 1]
    assert stats["launches"] == [2, 2]
    assert stats["bad_launches"] == 0


def test_an_image_for_another_architecture_comes_from_the_loader(mock_driver):
    out = run(
        mock_driver,
        """
        calls = []
        def loader():
            calls.append(cuda.get_current_device().id)
            return b"image for device 1"
        k = _cuda._load_module_image(b"mock image", loader).get_function("fill")
        with cuda.gpus[1]:
            assert (filled(k, 5) == 5).all()
            assert (filled(k, 6) == 6).all()
        print(calls)
    """,
        MOCK_CC="90,80",
    )
    assert out.strip().splitlines()[-1] == "[1]"
    out = run(
        mock_driver,
        """
        k = _cuda._load_module_image(b"mock image", lambda: 1 / 0).get_function("fill")
        with cuda.gpus[1]:
            assert (filled(k, 5) == 5).all()  # the same architecture: the same image
        print("ok")
    """,
    )
    assert out.strip().endswith("ok")


def test_an_array_of_another_device_is_reached_through_peer_access(mock_driver):
    out = run(
        mock_driver,
        """
        k = fill_kernel()
        with cuda.gpus[1]:
            d1 = cuda.device_array(4, np.int64)
        k[1, 1](d1, 4, 8)  # on device 0
        assert (d1.copy_to_host() == 8).all()
        cuda.synchronize()
        print(stats())
    """,
    )
    assert eval(out.strip().splitlines()[-1])["launches"] == [1, 0]


def test_an_array_of_an_unreachable_device_is_refused(mock_driver):
    run(
        mock_driver,
        """
        k = fill_kernel()
        with cuda.gpus[1]:
            d1 = cuda.device_array(4, np.int64)
        try:
            k[1, 1](d1, 4, 8)
        except ValueError as e:
            assert "device 1" in str(e) and "device 0" in str(e), e
        else:
            raise AssertionError("launched with another device's array")
        cuda.synchronize()  # the context is not poisoned
    """,
        MOCK_PEER="0",
    )


def test_an_array_of_a_closed_context_is_refused_by_a_launch(mock_driver):
    run(
        mock_driver,
        """
        k = fill_kernel()
        d = cuda.device_array(4, np.int64)
        cuda.close()
        try:
            k[1, 1](d, 4, 8)
        except cuda.CudaDriverError:
            pass
        else:
            raise AssertionError("launched with a dead context's array")
    """,
    )


@pytest.mark.parametrize("peer", ["1", "0"])
def test_copy_to_device_from_another_device(mock_driver, peer):
    out = run(
        mock_driver,
        """
        host = np.arange(10, dtype=np.float32)
        with cuda.gpus[0]:
            a0 = cuda.to_device(host)
        with cuda.gpus[1]:
            a1 = cuda.to_device(np.zeros_like(host))
        with cuda.gpus[0]:
            a1.copy_to_device(a0)
            assert (a1.copy_to_host() == host).all()
        with cuda.gpus[1]:
            a0.copy_to_device(cuda.to_device(host[::-1].copy()))
            s = cuda.stream()
            b1 = cuda.device_array_like(a1, stream=s)
            b1.copy_to_device(a0, stream=s)
            s.synchronize()
        assert (a0.copy_to_host() == host[::-1]).all()
        assert (b1.copy_to_host() == host[::-1]).all()
        a1[2:5] = a0[2:5]  # setitem between devices
        assert (a1.copy_to_host()[2:5] == host[::-1][2:5]).all()
        print(stats())
    """,
        MOCK_PEER=peer,
    )
    stats = eval(out.strip().splitlines()[-1])
    assert (stats["peer_copies"] > 0) == (peer == "1")


def test_elapsed_time_across_devices_raises(mock_driver):
    run(
        mock_driver,
        """
        with cuda.gpus[0]:
            e0 = cuda.event(); e0.record()
        with cuda.gpus[1]:
            e1 = cuda.event(); e1.record()
        assert cuda.event_elapsed_time(e0, e0) == 1.0
        try:
            cuda.event_elapsed_time(e0, e1)
        except ValueError as e:
            assert "different devices" in str(e)
        else:
            raise AssertionError("timed events of two devices")
    """,
    )


def test_select_device_in_several_threads_at_once(mock_driver):
    run(
        mock_driver,
        """
        k = fill_kernel()
        barrier = threading.Barrier(8)
        failures = []
        def work(i):
            try:
                device = cuda.select_device(i % 2)
                barrier.wait()
                for _ in range(20):
                    assert cuda.get_current_device().id == i % 2 == device.id
                    assert (filled(k, i) == i).all()
            except BaseException as e:
                failures.append(e)
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        assert not failures, failures
        assert stats()["bad_launches"] == 0
    """,
    )


def test_racing_first_uses_build_one_device_list(mock_driver):
    out = run(
        mock_driver,
        """
        found = []
        go = threading.Barrier(4)
        def first_use():
            go.wait()
            found.append(_cuda.list_devices())
        threads = [threading.Thread(target=first_use) for _ in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        assert all(a is b for lst in found for a, b in zip(lst, found[0])), found
        assert all(g._device is b for g, b in zip(cuda.gpus, found[0]))
        print(stats()["inits"])
    """,
        MOCK_INIT_DELAY_MS="300",
    )
    assert out.strip().splitlines()[-1] == "1"


def test_a_reset_waits_for_copies_through_the_staging_ring(mock_driver):
    # copies of 8 MiB go through the context's staging ring with the GIL released, slowly, from three
    # threads (one copies, the others wait for the ring); the device is reset meanwhile: the ring
    # must outlive every copy that took it (the debug allocator scribbles over freed memory)
    run(
        mock_driver,
        """
        host = np.arange(1 << 20, dtype=np.int64)
        for round in range(4):
            d = cuda.to_device(host)
            copied, errors = [], []
            started = threading.Barrier(4)
            def copier():
                started.wait()
                try:
                    while True:
                        copied.append(bool((d.copy_to_host() == host).all()))
                except cuda.CudaDriverError as e:
                    errors.append(e)
            threads = [threading.Thread(target=copier) for _ in range(3)]
            [t.start() for t in threads]
            started.wait()
            import time; time.sleep(0.03)
            cuda.gpus[0].reset()
            [t.join() for t in threads]
            assert copied and all(copied), copied
            assert len(errors) == 3, errors
    """,
        NUMBA_CUDA_C_STAGING_THRESHOLD=str(1 << 20),
        MOCK_COPY_DELAY_US="2000",
        PYTHONMALLOC="debug",
    )
