"""numba_cuda_c's C API (numba_cuda_c/include/numba_cuda_c.h, src/launch/c_api.c): an extension built against the
header alone (tests/support/c_api_client.c) reads device arrays, wraps memory, and launches a @cuda.jit kernel from
a C loop; on the mock driver here (each launch recorded with its parameters' bytes), on the GPU with results."""

import os
import shutil
import subprocess
import sysconfig

import pytest

import numba_cuda_c as cuda
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "support", "c_api_client.c")
GCC = shutil.which("gcc") or shutil.which("cc")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The client extension, built with the installed header (numba_cuda_c.get_include()) and Python's."""
    if GCC is None:
        pytest.skip("no C compiler")
    folder = tmp_path_factory.mktemp("c_api_client")
    target = folder / ("c_api_client" + sysconfig.get_config_var("EXT_SUFFIX"))
    command = [GCC, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I" + sysconfig.get_paths()["include"]]
    command += ["-I" + cuda.get_include(), SOURCE, "-o", str(target)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return str(folder)


def test_the_header_is_where_get_include_says():
    assert os.path.isfile(os.path.join(cuda.get_include(), "numba_cuda_c.h"))
    assert cuda._cuda._C_API.__class__.__name__ == "PyCapsule"


# the kernel both clients launch, on 32 float32 zeros
ADD_KERNEL = """
@cuda.jit("void(float32[::1], float32)")
def add(x, v):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] + v


x = cuda.to_device(np.zeros(32, np.float32))
"""

CLIENT = (
    """
import struct, sys
sys.path.insert(0, %(folder)r)
import c_api_client
"""
    + ADD_KERNEL
    + """data, shape, strides, itemsize, dtype = c_api_client.layout(x)
assert (data, shape, strides, itemsize, dtype) == (x.device_ctypes_pointer.value, (32,), (4,), 4, np.dtype(np.float32))
view = c_api_client.wrap(data, 8, "float64", x)  # the same memory as 8 float64, kept alive by x
assert view.shape == (8,) and view.dtype == np.float64 and view.device_ctypes_pointer.value == data
for pointer, count in ((0, 4), (data, 33), (data + (1 << 40), 1)):  # NULL, past the allocation, into none
    try:
        c_api_client.wrap(pointer, count, "float32", None)
    except ValueError as exc:
        print("ValueError:", str(exc)[:60])
assert c_api_client.wrap(0, 0, "float32", None).size == 0  # an empty array needs no memory
kernel = add.c_kernel("void(float32[::1], float32)")
for bad in (
    lambda: c_api_client.layout(np.zeros(3)),
    lambda: c_api_client.add_many(add, x, 1.0, 1, None),
    lambda: c_api_client.add_many(kernel, x, 1.0, 1, "stream"),
):
    try:
        bad()
    except TypeError as exc:
        print("TypeError:", exc)
before = %(count)s
stream = cuda.stream()
c_api_client.add_many(kernel, x, 1.5, 1000, stream)
stream.synchronize()
print("launches:", %(count)s - before)
%(check)s
"""
)

MOCK_CHECK = """
last = mock.launch()
assert last["grid"] == (1, 1, 1) and last["block"] == (32, 1, 1), last
assert last["params"][0] == struct.pack("<Qqq", data, 32, 4) and last["params"][1] == struct.pack("<f", 1.5), last
print("parameters as the Python launch packs them")
"""


def test_an_extension_launches_a_jit_kernel_from_a_c_loop(mock_driver, client):
    out = run_mock(CLIENT % {"folder": client, "count": "mock.launch_count()", "check": MOCK_CHECK})
    assert "TypeError: a numba_cuda_c device array was expected, not numpy.ndarray" in out, out
    assert (
        "TypeError: a numba_cuda_c Kernel (a @cuda.jit dispatcher's c_kernel(signature)) was expected" in out
    ), out
    assert "TypeError: a numba_cuda_c Stream (or 0/None) was expected, not str" in out, out
    assert "launches: 1000" in out and "parameters as the Python launch packs them" in out, out
    assert out.count("ValueError: ") == 3, out


@pytest.mark.skipif(not cuda.is_available(), reason="needs a CUDA GPU")
def test_an_extension_launches_a_jit_kernel_on_the_gpu(client):
    from subproc import run_python

    check = "assert (x.copy_to_host() == 1500).all(), x.copy_to_host()\nprint('computed')"
    code = "import numpy as np\nimport numba_cuda_c as cuda\n" + CLIENT % {
        "folder": client,
        "count": "0",
        "check": check,
    }
    assert "computed" in run_python(code)


LAUNCHER = (
    """
import struct
"""
    + ADD_KERNEL
    + """launcher = add.c_launcher("void(float32[::1], float32)")
packed = launcher.pack(x, 1.5)
for bad in (lambda: launcher.pack(x), lambda: launcher.pack(np.zeros(3, np.float32), 1.0)):
    try:
        bad()
    except TypeError as exc:
        print("TypeError:", exc)
%(launch)s
cuda.synchronize()
%(check)s
"""
)

FROM_PYTHON = "print('rc', launcher.launch(launcher.handle, 1, 1, 1, 32, 1, 1, 0, 0, packed.ctypes.data))"

FROM_NJIT = """
from numba import njit

launch, handle = launcher.launch, launcher.handle


@njit
def launch_many(n, packed):
    failed = 0
    for _ in range(n):
        failed |= launch(handle, 1, 1, 1, 32, 1, 1, 0, 0, packed)
    return failed


print("rc", launch_many(1000, packed.ctypes.data))
"""

MOCK_PACKED_CHECK = """
last = mock.launch()
assert last["params"][0] == struct.pack("<Qqq", x.device_ctypes_pointer.value, 32, 4), last
assert last["params"][1] == struct.pack("<f", 1.5) and last["block"] == (32, 1, 1), last
print("parameters as the Python launch packs them")
"""


def _numba_installed():
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def test_a_launcher_for_compiled_code(mock_driver):
    out = run_mock(LAUNCHER % {"launch": FROM_PYTHON, "check": MOCK_PACKED_CHECK})
    assert "TypeError: the kernel takes 2 arguments, 1 given" in out, out
    assert "TypeError: argument 0: a 1-d device array (float32[:]), not array" in out, out
    assert "rc 0" in out and "parameters as the Python launch packs them" in out, out


@pytest.mark.skipif(not _numba_installed(), reason="numba is not installed (numba's @njit launches the kernel)")
def test_an_njit_loop_launches_a_kernel(mock_driver):
    out = run_mock(LAUNCHER % {"launch": FROM_NJIT, "check": "print('launches', mock.launch_count())"})
    assert "rc 0" in out and "launches 1000" in out, out


@pytest.mark.skipif(not _numba_installed(), reason="numba is not installed (numba's @njit launches the kernel)")
@pytest.mark.skipif(not cuda.is_available(), reason="needs a CUDA GPU")
def test_an_njit_loop_launches_a_kernel_on_the_gpu():
    from subproc import run_python

    check = "assert (x.copy_to_host() == 1500).all(), x.copy_to_host()\nprint('computed')"
    code = "import numpy as np\nimport numba_cuda_c as cuda\n" + LAUNCHER % {"launch": FROM_NJIT, "check": check}
    assert "computed" in run_python(code)
