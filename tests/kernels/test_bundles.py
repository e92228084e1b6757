"""Ahead-of-time bundles (numba_cuda_c/pyjit/bundles.py): `python -m numba_cuda_c build` compiles a module's kernels
with declared signatures without a GPU; where they run (here the mock driver), the module's dispatchers load them
from the bundle without the translator or NVRTC, and a bundle that does not fit is refused, saying why: the kernel
is compiled instead, or, where NVRTC is missing, the error says what to do. Never another kernel."""

import os
import subprocess
import sys

import pytest

from gpu import needs_nvrtc, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c.pyjit import bundle_builder, bundles

pytestmark = needs_nvrtc

MODULE = """
import numba_cuda_c as cuda


@cuda.jit("void(float32[::1], float32[::1], float32)")
def axpy(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + out[i]


@cuda.jit(["void(int64[::1])", "void(float64[::1])"])
def double(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2


@cuda.jit
def lazy(x):  # no signature: compiled where it runs
    x[0] = 1
"""

# run against the mock driver: NVRTC made unavailable first where asked (every way our code reaches it raises)
RUN = """
import sys
sys.path.insert(0, %(directory)r)
from numba_cuda_c import _cuda
if %(no_nvrtc)r:
    def refuse(*args, **kwargs):
        raise _cuda.NvrtcError("NVRTC is not available (the test made it so)")
    _cuda.nvrtc_compile = _cuda.nvrtc_supported_archs = _cuda.nvrtc_version = refuse
out = cuda.to_device(np.zeros(4, np.float32))
try:
    import kernels
    kernels.axpy[1, 4](out, out, np.float32(2))
    kernels.double[1, 4](cuda.to_device(np.zeros(4, np.int64)))
    cuda.synchronize()
    print("launched")
except _cuda.NvrtcError as exc:
    print("refused:", exc)
print("translator:", "numba_cuda_c.pyjit.translate" in sys.modules)
print("nvrtc loaded:", "libnvrtc" in open("/proc/self/maps").read())
"""


def build(directory, *arguments):
    done = subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", "build", "kernels.py", *arguments],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def module(tmp_path):
    (tmp_path / "kernels.py").write_text(MODULE)
    return tmp_path


def run(directory, no_nvrtc=True, cc="9.0"):
    return run_mock(RUN % {"directory": str(directory), "no_nvrtc": no_nvrtc}, MOCK_CUDA_CC=cc)


def test_build_compiles_the_declared_signatures_for_each_architecture(module):
    out = build(module, "--arch", "80,90", "--ptx")
    assert "bundled axpy(float32[:], float32[:], float32)" in out and "bundled double(float64[:])" in out, out
    assert "kernels.bundle: 3 kernels for sm_80, sm_90 and PTX" in out, out
    bundle = bundles.Bundle.read(str(module / "kernels.bundle"))
    assert len(bundle.entries) == 3 and "lazy" not in "".join(bundle.entries)
    for entry in bundle.entries.values():
        assert sorted(entry["images"]) == [(8, 0), (9, 0)]
        assert all(image.startswith(b"\x7fELF") for image in entry["images"].values())
        assert entry["ptx"][0] == (8, 0) and b".target sm_80" in entry["ptx"][1]


def test_bundled_kernels_load_without_the_translator_or_nvrtc(mock_driver, module):
    build(module, "--arch", "80,90")
    assert run(module).split("\n")[:3] == ["launched", "translator: False", "nvrtc loaded: False"]


def test_ptx_serves_a_newer_gpu_and_nothing_else_does(mock_driver, module):
    build(module, "--arch", "80,90", "--ptx")
    assert run(module, cc="10.0").startswith("launched\ntranslator: False\nnvrtc loaded: False")
    build(module, "--arch", "80,90")
    refused = run(module, cc="10.0")
    assert "has sm_80, sm_90 and no PTX for this GPU (sm_100): add --arch 100 or --ptx" in refused, refused


def test_a_bundle_that_does_not_fit_is_refused_saying_why(mock_driver, module):
    build(module, "--arch", "90")
    with open(module / "kernels.py", "a") as f:
        f.write("# edited\n")
    refused = run(module)
    assert "NVRTC is not available" in refused and "kernels.py changed since" in refused, refused
    assert "build the bundle again (python -m numba_cuda_c build)" in refused
    compiled = run(module, no_nvrtc=False)  # where NVRTC is: compiled, as without a bundle
    assert compiled.startswith("launched\ntranslator: True"), compiled


def test_a_bundle_of_another_version_is_refused(mock_driver, module):
    build(module, "--arch", "90")
    bundle = bundles.Bundle.read(str(module / "kernels.bundle"))
    bundle.package = "0.0.1"
    bundle.write()
    refused = run(module)
    assert "was built by numba_cuda_c 0.0.1" in refused, refused


def test_a_lazy_kernel_still_compiles_where_it_runs(mock_driver, module):
    build(module, "--arch", "90")
    out = run_mock(
        "import sys\nsys.path.insert(0, %r)\nimport kernels\nx = cuda.device_array(1, np.int64)\nkernels.lazy[1, 1](x)\n"
        "print('translator:', 'numba_cuda_c.pyjit.translate' in sys.modules)" % str(module),
        MOCK_CUDA_CC="9.0",
    )
    assert "translator: True" in out


def test_not_a_bundle_and_bad_arguments(tmp_path, module):
    (tmp_path / "junk.bundle").write_bytes(b"not a bundle")
    with pytest.raises(ValueError, match="not a numba_cuda_c kernel bundle"):
        bundles.load_bundle(tmp_path / "junk.bundle")
    assert bundle_builder.parse_archs("sm_90, 8.0,90") == [(8, 0), (9, 0)]
    with pytest.raises(ValueError, match="--arch takes compute capabilities"):
        bundle_builder.parse_archs("hopper")
    done = subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", "build", "kernels.py"], cwd=module, capture_output=True, text=True
    )
    assert done.returncode == 2 and "--arch" in done.stderr
    assert not os.path.exists(module / "kernels.bundle")


def test_a_bundle_named_by_the_user(mock_driver, module, tmp_path):
    build(module, "--arch", "9.0", "-o", str(tmp_path / "elsewhere.bundle"))
    assert not os.path.exists(module / "kernels.bundle")
    code = "cuda.load_bundle(%r)\n" % str(tmp_path / "elsewhere.bundle") + RUN % {
        "directory": str(module),
        "no_nvrtc": True,
    }
    assert run_mock(code, MOCK_CUDA_CC="9.0").startswith("launched\ntranslator: False\nnvrtc loaded: False")


def test_what_a_launch_must_do_travels_in_the_bundle(mock_driver, tmp_path):
    """A kernel that syncs its grid launches cooperatively: the flag is in its entry, set on the loaded kernel."""
    (tmp_path / "kernels.py").write_text(
        "import numba_cuda_c as cuda\n\n\n"
        '@cuda.jit("void(float32[::1])")\n'
        "def synced(x):\n"
        "    cuda.cg.this_grid().sync()\n"
        "    x[0] = 1\n"
    )
    build(tmp_path, "--arch", "9.0")
    (entry,) = bundles.Bundle.read(str(tmp_path / "kernels.bundle")).entries.values()
    assert entry["launch_flags"] == ("cooperative",)
    out = run_mock(
        "import sys\nsys.path.insert(0, %r)\nimport kernels\n"
        % str(tmp_path)
        + "import ctypes\nlauncher = kernels.synced.c_launcher('void(float32[::1])')\n"
        # the C API's view of the loaded kernel (numba_cuda_c.h: function, context, then cooperative)
        "print('cooperative:', ctypes.c_int.from_address(launcher.handle + 16).value)\n"
        "print('translator:', 'numba_cuda_c.pyjit.translate' in sys.modules)",
        MOCK_CUDA_CC="9.0",
    )
    assert "cooperative: 1" in out and "translator: False" in out, out


# the same on a GPU: a bundle for two architectures (this GPU's and sm_80), NVRTC refused; the results checked
RUN_ON_GPU = """
import sys
sys.path.insert(0, %(directory)r)
import numpy as np
import numba_cuda_c as cuda
from numba_cuda_c import _cuda
def refuse(*args, **kwargs):
    raise _cuda.NvrtcError("NVRTC is not available (the test made it so)")
_cuda.nvrtc_compile = _cuda.nvrtc_supported_archs = _cuda.nvrtc_version = refuse
import kernels
out = cuda.to_device(np.arange(4, dtype=np.float32))
kernels.axpy[1, 4](out, out, np.float32(2))
ints = cuda.to_device(np.arange(1, 5, dtype=np.int64))
kernels.double[1, 4](ints)
print(out.copy_to_host().tolist(), ints.copy_to_host().tolist())
print("translator:", "numba_cuda_c.pyjit.translate" in sys.modules)
print("nvrtc loaded:", "libnvrtc" in open("/proc/self/maps").read())
"""


@requires_gpu
def test_a_bundle_for_two_architectures_runs_on_the_gpu_without_nvrtc(module):
    import numba_cuda_c as cuda

    major, minor = cuda.get_current_device().compute_capability
    build(module, "--arch", "80,%d%d" % (major, minor))
    done = subprocess.run(
        [sys.executable, "-c", RUN_ON_GPU % {"directory": str(module)}],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, NUMBA_CUDA_C_CACHE_DIR=str(module / "cache")),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split("\n")[:3] == [
        "[0.0, 3.0, 6.0, 9.0] [2, 4, 6, 8]",
        "translator: False",
        "nvrtc loaded: False",
    ], done.stdout + done.stderr
