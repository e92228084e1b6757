"""Blocking calls release the GIL (issue 10, item 8), shown without a GPU: libraries whose loading is slow
(a constructor that sleeps) stand in front of the real NVRTC and runtime on the search path, and a Python
thread must keep running while they load."""

import os
import shutil
import subprocess

import pytest

from subproc import run_python

GCC = shutil.which("gcc") or shutil.which("cc")

pytestmark = pytest.mark.skipif(GCC is None, reason="no C compiler on PATH")

SLOW_CONSTRUCTOR = r"""
#include <unistd.h>
__attribute__((constructor)) static void slow_to_load(void) { usleep(800000); }
int numba_cuda_c_test_slow_library;
"""


@pytest.fixture(scope="module")
def slow_cuda_home(tmp_path_factory):
    """A CUDA_HOME whose lib64 holds a libnvrtc and a libcudart that take 0.8 s to load and lack every
    entry point (so the search goes on to the real ones)."""
    root = tmp_path_factory.mktemp("slow_cuda")
    lib = root / "lib64"
    lib.mkdir()
    source = root / "slow.c"
    source.write_text(SLOW_CONSTRUCTOR)
    for name in ("libnvrtc.so.13", "libcudart.so.13"):
        subprocess.run([GCC, "-shared", "-fPIC", "-o", str(lib / name), str(source)], check=True, timeout=60)
    return str(root)


TICKING = """
import threading, time
import numba_cuda_c as cuda

ticks = [0]
done = threading.Event()

def tick():
    while not done.is_set():
        ticks[0] += 1
        time.sleep(0.001)

thread = threading.Thread(target=tick)
thread.start()
time.sleep(0.05)
before, start = ticks[0], time.perf_counter()
result = {call}
elapsed, during = time.perf_counter() - start, ticks[0] - before
done.set()
thread.join()
print(elapsed, during, result is not None)
"""


def ticks_while(call, cuda_home):
    out = run_python(TICKING.format(call=call), CUDA_HOME=cuda_home, CUDA_PATH="")
    elapsed, during, _ = out.split()
    return float(elapsed), int(during)


def test_loading_nvrtc_releases_the_gil(slow_cuda_home):
    if not os.path.exists("/usr/local/cuda/lib64") and shutil.which("nvcc") is None:
        pytest.skip("no CUDA toolkit: NVRTC is not found after the slow library")
    elapsed, during = ticks_while("cuda._cuda.nvrtc_version()", slow_cuda_home)
    assert elapsed >= 0.7  # the slow library was loaded
    # with the GIL held the other thread cannot tick at all during the 0.8 s; released, it ticks ~ every ms
    assert during >= 40, (elapsed, during)


def test_loading_the_runtime_releases_the_gil(slow_cuda_home):
    elapsed, during = ticks_while("cuda._cuda._cudart_version()", slow_cuda_home)
    assert elapsed >= 0.7
    assert during >= 40, (elapsed, during)
