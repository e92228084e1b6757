"""Linking on the GPU: cuda.jit(link=[...]) and cuda.declare_device with PTX, CUDA C (files and
LinkableCode in memory), CUBIN and, where nvcc is installed, fatbin, object and archive inputs; numba's
ABI (scalars and arrays) and the C ABI; numba's Linker API; link errors with the linker's log.
The CUDA C here follows numba's test data (tests/data/jitlink.cu)."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c import _cuda
from numba_cuda_c.toolchain import compiler
from numba_cuda_c.toolchain import linker as linking
from numba_cuda_c.cudadrv.driver import Linker, LinkerError

pytestmark = requires_gpu

NVCC = shutil.which("nvcc") or shutil.which(
    "nvcc", path=os.path.join(os.environ.get("CUDA_HOME") or "/usr/local/cuda", "bin")
)

BAR_CU = """
extern "C" __device__ int bar(int *out, int a) { *out = a * 2; return 0; }
"""
TIMES4_CU = """
extern "C" __device__ int bar(int *out, int a);
extern "C" __device__ int times4(int *out, int a) { int twice; bar(&twice, a); *out = twice * 2; return 0; }
"""
SET_LAST_CU = """
extern "C" __device__ int set_last(void *out, void *meminfo, void *parent, long long nitems, long long itemsize,
                                   int *data, long long shape0, long long stride0)
{
    *(int *)((char *)data + (shape0 - 1) * stride0) = (int)(nitems * 100 + itemsize);
    return 0;
}
"""
SCALE_C_CU = """
extern "C" __device__ float scale(float x, double by) { return (float)(x * by); }
"""

bar = cuda.declare_device("bar", "int32(int32)")


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path_factory.mktemp("link_gpu_cache")))
        yield


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("link_inputs")
    (d / "bar.cu").write_text(BAR_CU)
    (d / "times4.cu").write_text(TIMES4_CU)
    (d / "set_last.cu").write_text(SET_LAST_CU)
    (d / "bar.ptx").write_bytes(linking.compile_cu(BAR_CU, "bar.cu"))
    return d


def adds_bar(x, y):
    i = cuda.grid(1)
    x[i] += bar(y[i])


@pytest.mark.parametrize("eager", [False, True])
def test_link_ptx_file(files, eager):
    args = ["void(int32[:], int32[:])"] if eager else []
    foo = cuda.jit(*args, link=[str(files / "bar.ptx")])(adds_bar)
    a = np.array([123], dtype=np.int32)
    b = np.array([321], dtype=np.int32)
    foo[1, 1](a, b)
    assert a[0] == 123 + 2 * 321


def test_link_cu_file_through_declare_device(files):
    global bar_cu
    bar_cu = cuda.declare_device("bar", "int32(int32)", link=str(files / "bar.cu"))
    x = np.arange(10, dtype=np.int32)
    r = np.zeros_like(x)
    uses_bar_cu[1, 32](r, x)
    np.testing.assert_array_equal(r, x * 2)
    calls_device_twice[1, 32](r, x)
    np.testing.assert_array_equal(r, x * 4 + np.arange(10) * 2)


@cuda.jit
def uses_bar_cu(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = bar_cu(x[i])


@cuda.jit(device=True)
def doubled(v):
    return bar_cu(v)


@cuda.jit
def calls_device_twice(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = doubled(x[i]) + doubled(x[i] + i)


@pytest.mark.parametrize("container", [list, tuple, set])
def test_link_sources_in_memory(container):
    global times4
    link = container([cuda.CUSource(BAR_CU, name="bar.cu"), cuda.CUSource(TIMES4_CU, name="times4.cu")])
    times4 = cuda.declare_device("times4", "int32(int32)", link=link)
    x = np.arange(10, dtype=np.int32)
    r = np.zeros_like(x)
    cuda.jit(uses_times4)[1, 32](r, x)
    np.testing.assert_array_equal(r, x * 4)


def uses_times4(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = times4(x[i])


def test_link_cubin_file(tmp_path):
    cc = tuple(cuda.get_current_device().compute_capability)
    if compiler.default_arch() != cc:
        pytest.skip("NVRTC cannot compile a CUBIN for this device")
    cubin, _log = _cuda.nvrtc_compile(BAR_CU, "bar.cu", ["-arch=sm_%d%d" % cc, "-rdc=true"], False)
    (tmp_path / "bar.cubin").write_bytes(cubin)
    foo = cuda.jit(link=[str(tmp_path / "bar.cubin")])(adds_bar)
    a, b = np.array([1], dtype=np.int32), np.array([5], dtype=np.int32)
    foo[1, 1](a, b)
    assert a[0] == 11


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
@pytest.mark.parametrize("kind", ["fatbin", "o", "a"])
def test_link_nvcc_outputs(tmp_path, kind):
    major, minor = cuda.get_current_device().compute_capability
    (tmp_path / "bar.cu").write_text(BAR_CU)
    arch = "-arch=sm_%d%d" % (major, minor)
    out = str(tmp_path / ("bar." + kind))
    if kind == "fatbin":
        command = [NVCC, arch, "-rdc=true", "-fatbin", str(tmp_path / "bar.cu"), "-o", out]
    else:
        command = [NVCC, arch, "-dc", str(tmp_path / "bar.cu"), "-o", str(tmp_path / "bar.o")]
    subprocess.run(command, check=True)
    if kind == "a":
        subprocess.run([NVCC, arch, "-lib", str(tmp_path / "bar.o"), "-o", out], check=True)
    foo = cuda.jit(link=[out])(adds_bar)
    a, b = np.array([1], dtype=np.int32), np.array([7], dtype=np.int32)
    foo[1, 1](a, b)
    assert a[0] == 15


def test_array_argument_as_numba_array_model(files):
    global set_last
    set_last = cuda.declare_device("set_last", "void(int32[:])", link=str(files / "set_last.cu"))
    x = np.zeros(12, dtype=np.int32)
    cuda.jit(calls_set_last)[1, 1](x[::2])  # a strided view: the stride reaches the callee in bytes
    assert x[10] == 6 * 100 + 4
    assert np.count_nonzero(x) == 1


def calls_set_last(x):
    set_last(x)


def test_c_abi():
    global scale
    scale = cuda.declare_device(
        "scale", "float32(float32, float64)", link=cuda.CUSource(SCALE_C_CU, name="s.cu"), abi="c"
    )
    r = np.array([1.5], dtype=np.float32)
    cuda.jit(calls_scale)[1, 1](r)
    assert r[0] == np.float32(3.0)


def calls_scale(r):
    r[0] = scale(r[0], 2)


def test_undefined_function_is_a_linker_error():
    global missing
    missing = cuda.declare_device("not_defined_anywhere", "int32(int32)")
    with pytest.raises(LinkerError, match="not_defined_anywhere"):
        cuda.jit("void(int32[:])")(calls_missing)


def calls_missing(r):
    r[0] = missing(r[0])


def test_linker_api(files):
    linker = Linker.new(max_registers=0, lineinfo=False, cc=None)
    linker.add_file_guess_ext(str(files / "bar.cu"))
    kernel_ptx, _ = cuda.compile_ptx(adds_bar, "void(int32[:], int32[:])", cc=compiler.default_arch())
    linker.add_ptx(kernel_ptx.encode(), "adds_bar.ptx")
    cubin = linker.complete()
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    assert isinstance(linker.info_log, str) and isinstance(linker.error_log, str)
    # the kernel's symbol, as compile_ptx names it (numba mangles it too): the PTX's entry
    entry = re.search(r"\.entry\s+(\w+)", kernel_ptx).group(1)
    assert "adds_bar" in entry
    assert cuda.load_module(cubin).get_function(entry) is not None
    with pytest.raises(RuntimeError, match="already complete"):
        linker.complete()


def test_linker_errors(tmp_path):
    linker = Linker.new()
    with pytest.raises(LinkerError) as info:
        linker.add_file(str(tmp_path / "nothing.ptx"), 1)
    assert info.value.args == (f"{tmp_path / 'nothing.ptx'} not found",)
    with pytest.raises(LinkerError):
        linker.add_ptx(b"this is not PTX")
    with pytest.raises(LinkerError, match="nvJitLink"):
        linker.add_file_guess_ext(cuda.LTOIR(b"", name="x.ltoir"))


NUM_CU = """
__device__ int num = 0;
extern "C" __device__ int get_num(int &retval) { retval = num; return 0; }
"""


def test_link_callbacks_see_the_kernels_library():
    """numba's setup/teardown callbacks get the cuda.core ObjectCode the kernel runs from: a global
    written through its CUlibrary handle is what the kernel reads; teardown runs once, at reset."""
    ObjectCode = pytest.importorskip("cuda.core").ObjectCode
    driver = pytest.importorskip("cuda.bindings.driver")
    from numba_cuda_c.cudadrv.linkable_code import CUSource

    seen, torn = [], []

    def setup(code):
        assert isinstance(code, ObjectCode)
        seen.append(code.handle)
        rc, pointer, size = driver.cuLibraryGetGlobal(code.handle, b"num")
        assert rc == driver.CUresult.CUDA_SUCCESS and size == 4
        value = np.array([42 + len(seen)], np.int32)
        (rc,) = driver.cuMemcpyHtoD(pointer, value.ctypes.data, size)
        assert rc == driver.CUresult.CUDA_SUCCESS

    lib = CUSource(NUM_CU, setup_callback=setup, teardown_callback=lambda code: torn.append(code.handle))
    get_num = cuda.declare_device("get_num", "int32()")

    @cuda.jit(link=[lib])
    def kernel(out, unused):
        out[0] = get_num()

    out = np.zeros(1, np.int32)
    kernel[1, 1](out, 1)
    kernel[1, 1](out, 2)  # the same signature: loaded once
    assert out[0] == 43 and len(seen) == 1 and torn == []
    kernel[1, 1](out, 2.5)  # another signature: its own library, set up again
    assert out[0] == 44 and len(seen) == 2
    cuda.current_context().reset()
    assert sorted(map(int, torn)) == sorted(map(int, seen))
    kernel[1, 1](out, 3)  # after the reset: loaded and set up again
    assert out[0] == 45 and len(seen) == 3
    del kernel
    import gc

    gc.collect()
    assert len(torn) == 3
