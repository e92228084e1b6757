"""The names programs reach through the package as numba's: submodules numba's package has as attributes
(cuda.random, cuda.bf16, cuda.cudadrv.driver, cuda.launchconfig) reachable right after `import numba_cuda_c` and
loaded only when first asked for, cuda.KernelRuntimeError, cuda.random.xoroshiro128p_type in signatures, and
numba.cuda.cudadrv's modules through the alias under the simulator."""

import os
import subprocess
import sys

import pytest

import numba_cuda_c as cuda
from numba_cuda_c import types
from gpu import needs_nvrtc

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(cuda.__file__)))


def _run(code, **env):
    environ = dict(os.environ, PYTHONPATH=PACKAGE_PARENT, **env)
    if "NUMBA_ENABLE_CUDASIM" not in env:
        environ.pop("NUMBA_ENABLE_CUDASIM", None)
    done = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_submodules_are_reachable_after_import_and_loaded_when_asked_for():
    out = _run(
        "import sys, numba_cuda_c as cuda\n"
        "lazy = ['numpy', 'numba_cuda_c.random', 'numba_cuda_c.bf16', 'numba_cuda_c.cudadrv.driver',"
        " 'numba_cuda_c.launchconfig']\n"
        "print(sorted(m for m in lazy if m in sys.modules))\n"
        "print(cuda.cudadrv.driver.__name__, cuda.random.__name__, cuda.bf16.__name__, cuda.launchconfig.__name__)\n"
        "print(cuda.random.xoroshiro128p_type, callable(cuda.random.create_xoroshiro128p_states))\n"
        "print(hasattr(cuda.bf16, 'hadd'), hasattr(cuda.cudadrv, 'no_such_module'), cuda.KernelRuntimeError.__name__)\n"
    )
    loaded, names, record, more = out.splitlines()
    assert loaded == "[]"
    assert names.split() == [
        "numba_cuda_c.cudadrv.driver",
        "numba_cuda_c.random",
        "numba_cuda_c.bf16",
        "numba_cuda_c.launchconfig",
    ]
    assert record == "Record(s0:uint64@0, s1:uint64@8; 16; aligned) True"
    assert more == "True False KernelRuntimeError"


def test_numbas_compiler_module_has_its_compile_functions():
    """`from numba.cuda.compiler import compile_ptx` (numba's module of them) finds the package's own."""
    out = _run(
        "import sys, numba_cuda_c as cuda\n"
        "print('numba_cuda_c.compiler' in sys.modules)\n"
        "from numba_cuda_c.compiler import compile, compile_all, compile_ptx, compile_for_current_device\n"
        "print(cuda.compiler.compile_ptx is cuda.compile_ptx, compile is cuda.compile, compile_all is cuda.compile_all)\n"
    )
    assert out.split() == ["False", "True", "True", "True"]


def test_kernel_runtime_error_is_numbas():
    error = cuda.KernelRuntimeError("division by zero", tid=[1, 0, 0], ctaid=[2, 0, 0])
    assert isinstance(error, RuntimeError)
    assert str(error) == "An exception was raised in thread=[1, 0, 0] block=[2, 0, 0]\n\tdivision by zero"
    assert (error.msg, error.tid, error.ctaid) == ("division by zero", [1, 0, 0], [2, 0, 0])


def test_the_generator_state_type_is_numbas_record_of_its_dtype():
    from numba_cuda_c.random import xoroshiro128p_dtype, xoroshiro128p_type

    assert isinstance(xoroshiro128p_type, types.Record)
    assert xoroshiro128p_type == types.from_dtype(xoroshiro128p_dtype)
    assert xoroshiro128p_type[::1] == types.Array(xoroshiro128p_type, 1, "C")


@needs_nvrtc
def test_the_generator_state_type_declares_a_kernel():
    from numba_cuda_c.random import xoroshiro128p_type
    from state_kernels import uniform_numbers

    ptx, _ = cuda.compile_ptx(uniform_numbers, types.void(xoroshiro128p_type[::1], types.float32[::1]))
    assert ".entry" in ptx


def test_numba_cudadrv_modules_through_the_alias_under_the_simulator():
    out = _run(
        "import numba_cuda_c.alias\n"
        "numba_cuda_c.alias.install()\n"
        "from numba.cuda.cudadrv import driver, devices\n"
        "from numba import cuda\n"
        "print(cuda.cudadrv.driver is driver, cuda.cudadrv.__spec__.name, cuda.KernelRuntimeError.__name__)\n"
        "print(cuda.cudadrv.nvvm.__name__, cuda.random.xoroshiro128p_type.size)\n",
        NUMBA_ENABLE_CUDASIM="1",
    )
    assert out.splitlines() == ["True numba_cuda_c.cudadrv KernelRuntimeError", "numba_cuda_c.cudadrv.nvvm 16"]


@pytest.mark.parametrize("name", ["random", "bf16", "launchconfig", "KernelRuntimeError"])
def test_each_name_is_in_the_package(name):
    assert getattr(cuda, name) is getattr(cuda, name)  # loaded once, then an attribute
    assert name in vars(cuda)
