"""Finding and loading the driver: what the import, is_available(), detect() and the first driver call do when
libcuda is missing, disabled, incomplete or reports no device. Each case runs in a fresh interpreter, since the
driver is loaded once per process. The fake drivers are built here with gcc from our own X-macro list."""

import json
import os
import shutil
import subprocess

import pytest
from subproc import run_python

import numba_cuda_c
from numba_cuda_c import _cuda
from numba_cuda_c.cudadrv import driver
from numba_cuda_c.cudadrv import error as error_module

API_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src", "driver", "api"
)
GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not on PATH")
DRIVER_CALLS = ("get_current_device", "list_devices", "current_context", "synchronize")

# Runs in the child: every way in, as JSON {call: [exception type or "returned", message]}.
PROBE = f"""
import contextlib, io, json
import numba_cuda_c as cuda

report = {{"is_available": cuda.is_available()}}
out = io.StringIO()
with contextlib.redirect_stdout(out):
    report["detect"] = cuda.detect()
report["detect_output"] = out.getvalue()
for name in {DRIVER_CALLS!r}:
    try:
        report[name] = ["returned", repr(getattr(cuda, name)())]
    except Exception as error:
        report[name] = [type(error).__name__, str(error)]
        report[name + " is CudaSupportError"] = isinstance(error, cuda.CudaSupportError)
print(json.dumps(report))
"""

# Every required entry point returns CUDA_SUCCESS (weak stubs, never called by the loader); the strong
# definitions below replace three of them: cuInit fails with CUDA_ERROR_NO_DEVICE, as on a machine with no GPU.
FAKE_STUBS = r"""
#include "cuda_api.h"
#define STUB(field, symbol) __attribute__((weak)) CUresult symbol(void) { return CUDA_SUCCESS; }
CU_REQUIRED_FUNCTIONS(STUB)
"""
FAKE_NO_DEVICE = r"""
#include "cuda_api.h"
CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_ERROR_NO_DEVICE; }
CUresult cuGetErrorName(CUresult error, const char **text) {
    *text = error == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
    *text = error == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "unknown error";
    return CUDA_SUCCESS;
}
"""


def probe(**env):
    return json.loads(run_python(PROBE, **env))


def build_library(tmp_path, name, *sources):
    """Compiles C sources (text) into tmp_path/name, a shared library; returns its path."""
    paths = []
    for i, source in enumerate(sources):
        paths.append(tmp_path / f"{name}.{i}.c")
        paths[-1].write_text(source)
    library = tmp_path / name
    cmd = [GCC, "-shared", "-fPIC", "-std=c11", "-Wall", "-Werror", "-I", API_DIR, "-o", str(library)]
    done = subprocess.run(cmd + [str(p) for p in paths], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return str(library)


def assert_unsupported(report, *words):
    """CUDA reported unusable everywhere, with every message holding each of `words`."""
    assert report["is_available"] is False
    assert report["detect"] is False
    assert report["detect_output"].startswith("CUDA driver not available:")
    for word in words:
        assert word in report["detect_output"]
    for name in DRIVER_CALLS:
        kind, message = report[name]
        assert kind == "CudaSupportError" and report[name + " is CudaSupportError"], (name, kind, message)
        for word in words:
            assert word in message, (name, message)


def test_driver_path_that_does_not_exist(tmp_path):
    missing = str(tmp_path / "no-such-dir" / "libcuda.so.1")
    assert_unsupported(probe(NUMBA_CUDA_DRIVER=missing), missing, "is not a file")


def test_driver_path_that_is_not_a_library(tmp_path):
    text = tmp_path / "libcuda.so.1"
    text.write_text("not ELF")
    assert_unsupported(probe(NUMBA_CUDA_DRIVER=str(text)), str(text), "could not be loaded")


def test_driver_disabled():
    assert_unsupported(probe(NUMBA_CUDA_DRIVER="0"), "disabled", "NUMBA_CUDA_DRIVER=0")


@needs_gcc
def test_library_without_the_entry_points(tmp_path):
    library = build_library(tmp_path, "libempty.so", "int not_a_driver;\n")
    assert_unsupported(probe(NUMBA_CUDA_DRIVER=library), "lacks the entry point cuInit")


@needs_gcc
def test_library_lacking_one_entry_point(tmp_path):
    # a driver too old for cuLaunchKernel: its stub is renamed, every other entry point is there
    stubs = FAKE_STUBS.replace(
        '#include "cuda_api.h"', '#include "cuda_api.h"\n#define cuLaunchKernel cuLaunchKernel_no'
    )
    library = build_library(tmp_path, "libold.so", stubs, FAKE_NO_DEVICE)
    assert_unsupported(probe(NUMBA_CUDA_DRIVER=library), "lacks the entry point cuLaunchKernel:")


@needs_gcc
def test_driver_that_finds_no_device(tmp_path):
    library = build_library(tmp_path, "libfakecuda.so", FAKE_STUBS, FAKE_NO_DEVICE)
    assert_unsupported(probe(NUMBA_CUDA_DRIVER=library), "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device")


@needs_gcc
def test_driver_with_no_devices(tmp_path):
    # cuInit succeeds and there are no devices: numba's answers (its gpus[0] raises IndexError)
    zero = FAKE_NO_DEVICE.replace("return CUDA_ERROR_NO_DEVICE;", "return CUDA_SUCCESS;") + (
        "CUresult cuDeviceGetCount(int *count) { *count = 0; return CUDA_SUCCESS; }\n"
        "CUresult cuDriverGetVersion(int *version) { *version = 12080; return CUDA_SUCCESS; }\n"
        "CUresult cuCtxGetCurrent(CUcontext *context) { *context = NULL; return CUDA_SUCCESS; }\n"
    )
    library = build_library(tmp_path, "libzero.so", FAKE_STUBS, zero)
    report = probe(NUMBA_CUDA_DRIVER=library)
    assert report["is_available"] is False and report["detect"] is False
    assert "Found 0 CUDA devices" in report["detect_output"]
    assert report["list_devices"] == ["returned", "[]"]
    for name in ("get_current_device", "current_context", "synchronize"):
        assert report[name][0] == "IndexError", report[name]
    code = "from numba_cuda_c.cudadrv import driver\nprint(driver.get_version(), driver.driver.is_available)"
    assert run_python(code, NUMBA_CUDA_DRIVER=library).split() == ["(12,", "8)", "True"]


def test_import_does_not_load_the_driver():
    maps = run_python("import numba_cuda_c\nprint(open('/proc/self/maps').read())")
    loaded = {line.split()[-1] for line in maps.splitlines() if line.count(" ") >= 5 and "/" in line}
    assert "numba_cuda_c" in " ".join(loaded), "the extension is not in the map: the check would prove nothing"
    assert not [path for path in loaded if "libcuda" in os.path.basename(path)]
    assert not [path for path in loaded if "libnvrtc" in os.path.basename(path)]


def test_error_classes():
    error = numba_cuda_c.CudaAPIError(1, "msg")
    assert (error.code, error.msg, str(error)) == (1, "msg", "[1] msg")
    assert isinstance(error, numba_cuda_c.CudaDriverError)
    assert issubclass(numba_cuda_c.CudaSupportError, ImportError)
    for name in ("CudaAPIError", "CudaDriverError", "CudaSupportError"):
        assert getattr(driver, name) is getattr(numba_cuda_c, name)
        assert getattr(error_module, name) is getattr(numba_cuda_c, name)
    assert error_module.NvrtcError is numba_cuda_c.NvrtcError


def test_runtime_version_and_nvrtc_archs():
    try:
        _cuda.nvrtc_version()
    except numba_cuda_c.NvrtcError as error:
        pytest.skip(f"no NVRTC: {error}")
    version = numba_cuda_c.runtime.get_version()
    assert isinstance(version, tuple) and len(version) == 2 and all(type(v) is int for v in version)
    assert version >= (11, 0)
    assert isinstance(numba_cuda_c.runtime.is_supported_version(), bool)
    archs = _cuda.nvrtc_supported_archs()
    assert isinstance(archs, tuple) and archs and archs == tuple(sorted(archs))
    assert all(len(arch) == 2 and all(type(v) is int for v in arch) for arch in archs)


def test_numba_disable_cuda_gives_numbas_message():
    out = run_python(
        """
        import numba_cuda_c as cuda
        try:
            cuda.device_array(1)
        except cuda.CudaSupportError as e:
            print(e.msg)
        print(cuda.cuda_error())
        """,
        NUMBA_DISABLE_CUDA="1",
    )
    expected = "CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1 in the environment"
    assert out.count(expected) == 2, out
