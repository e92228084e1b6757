"""Looking at a compiled kernel as numba users do: inspect_types() prints the source with each variable's type,
inspect_sass() disassembles the CUBIN with nvdisasm (an error saying so where the toolkit has none), and
inspect_llvm() says there is no LLVM IR and what there is instead."""

import io
import os

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from inspect_kernels import scale
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c import types
from numba_cuda_c.toolchain import compiler
from numba_cuda_c.pyjit.translate import typed_listing


def test_the_typed_listing_names_each_variables_type():
    listing = typed_listing(scale, [types.float32[:], types.int64])
    assert "def scale(a, n):" in listing and "inspect_kernels.py" in listing
    for line in ("#   a: float32[:]", "#   n: int64", "#   i: int64", "#   x: float64", "#   return: void"):
        assert line in listing, listing


def test_inspect_llvm_says_what_there_is_instead():
    with pytest.raises(NotImplementedError, match="inspect_source.*inspect_asm.*inspect_sass"):
        cuda.jit(scale).inspect_llvm()


def test_no_nvdisasm_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    for name in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(os.path, "isfile", lambda path: False)  # not /usr/local/cuda's either
    with pytest.raises(RuntimeError, match="nvdisasm is required for SASS inspection"):
        compiler.disassemble(b"not a cubin", ["-gi"])


def test_inspect_types_prints_each_compiled_signature(mock_driver):
    out = run_mock("""
        import io, sys
        sys.path.insert(0, "tests/kernels")
        import inspect_kernels as ik
        kernel = cuda.jit(ik.scale)
        kernel[1, 1](cuda.device_array(4, np.float32), 3)
        buffer = io.StringIO()
        kernel.inspect_types(file=buffer)
        print(buffer.getvalue())
    """)
    assert out.startswith("scale (float32[:], int64)") and "#   x: float64" in out and "=" * 80 in out


@requires_gpu
def test_inspect_sass_on_the_gpu():
    kernel = cuda.jit("void(float32[:], int64)")(scale)
    try:
        sass = kernel.inspect_sass()
    except RuntimeError as exc:
        assert "nvdisasm" in str(exc)
        pytest.skip("the toolkit here has no nvdisasm")
    text = next(iter(sass.values()))
    assert "FMUL" in text or "DMUL" in text or "MUL" in text, text[:400]
    assert io.StringIO(kernel.inspect_sass_cfg((types.float32[:], types.int64))).read().startswith("digraph")
