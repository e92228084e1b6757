"""cuda.compile_ptx's interface without a GPU: @cuda.jit-style kernels translated to CUDA C and compiled to
PTX by NVRTC, the kernel's entry and parameters, signatures and argument types, the options (line info,
debug, the target), launch configuration errors, and the headers a translation includes.

The kernels live at module level: the translator reads their source with inspect. What each construct
compiles to is in test_ptx_threads_and_memory.py and test_ptx_arithmetic_and_control_flow.py; device
functions in test_ptx_device_functions.py and test_ptx_folded_constants.py, typing rules in
test_typing_rules.py, the errors naming the kernel's file and line in test_translator_errors.py.
"""

import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import _private_cache, body_of, ptx_of  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.dispatcher import typeof

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)


def test_the_half_header_and_complex_numbers_are_included_only_where_used():
    def plain(a):
        a[0] = 1.5

    assert "cuda_fp16.h" not in cuda.jit(plain).inspect_source("void(float32[::1])")
    assert "struct ncc_complex" not in cuda.jit(plain).inspect_source("void(float32[::1])")  # nor complex numbers

    def complexes(a):
        a[0] = abs(a[1] * 1j)

    source = cuda.jit(complexes).inspect_source("void(float64[::1])")
    assert source.count("struct ncc_complex {") == 1
    cuda.compile_ptx(complexes, "void(float64[::1])")
    for sig in ("void(float16[::1])", "void(float32[::1])"):

        def halves(a):
            a[0] = cuda.float16(1.5) + a[0]

        source = cuda.jit(halves).inspect_source(sig)
        assert source.startswith("#include <cuda_fp16.h>") and source.count("cuda_fp16.h") == 1
        cuda.compile_ptx(halves, sig)


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


def k_vector_add(a, n):
    i = cuda.grid(1)
    if i < n:
        a[i] = a[i] + 1.0


def k_c_layout(a, b):
    a[b, b] = 1.0


def k_3d(a, b):
    a[0, 0, 0] = b


# ---------------------------------------------------------------------------------------------
# The entry, its parameters, line info and the target
# ---------------------------------------------------------------------------------------------


def test_kernel_entry_and_parameters():
    ptx = ptx_of(k_vector_add)
    body = body_of(ptx, "k_vector_add")
    # an array travels as {data, shape[1], strides[1]}: 24 bytes; the int64 as a u64
    assert re.search(r"\.param \.align 8 \.b8 ncc_py_k_vector_add_param_0\[24\]", body)
    assert ".param .u64 ncc_py_k_vector_add_param_1" in body
    assert "%tid.x" in body and "%ctaid.x" in body and "%ntid.x" in body
    assert "ld.global.f32" in body and "st.global.f32" in body
    assert re.search(r"add(\.rn)?\.f(32|64)", body)  # a[i] + 1.0
    assert ".target sm_%d%d" % _cuda.nvrtc_supported_archs()[0] in ptx


def test_parameter_kinds():
    def check(func, sig, expected):
        ptx = ptx_of(func, sig)
        for text in expected:
            assert text in ptx, (sig, text, ptx)

    check(
        k_c_layout,
        "void(float32[:, :], int32)",
        ["k_c_layout_param_0[40]", ".param .u32 ncc_py_k_c_layout_param_1"],
    )
    check(
        k_c_layout,
        "void(float32[:, ::1], int64)",
        ["k_c_layout_param_0[40]", ".param .u64 ncc_py_k_c_layout_param_1"],
    )
    check(k_3d, "void(float32[:, :, :], uint8)", ["k_3d_param_0[56]", ".param .u8 ncc_py_k_3d_param_1"])
    check(k_3d, "void(float64[:, :, :], float32)", ["k_3d_param_0[56]", ".param .f32 ncc_py_k_3d_param_1"])


def test_debug_and_lineinfo():
    plain = ptx_of(k_vector_add)
    assert ".loc" not in plain and ".debug_info" not in plain
    ptx = ptx_of(k_vector_add, lineinfo=True)
    # the line table names the Python source (#line directives), as numba's does: profilers and
    # debuggers show the kernel's own lines
    assert ".loc" in ptx and re.search(r'\.file\s+\d+\s+"[^"]*test_compile_ptx\.py"', ptx)
    line = k_vector_add.__code__.co_firstlineno
    assert re.search(r"\.loc\s+\d+\s+(%d|%d|%d)\s" % (line + 1, line + 2, line + 3), ptx)
    assert ".debug_info" not in ptx
    ptx = ptx_of(k_vector_add, debug=True)
    assert ".loc" in ptx and ".debug_info" in ptx


def test_explicit_cc_and_default_ptx_cc_env(monkeypatch):
    archs = _cuda.nvrtc_supported_archs()
    assert ".target sm_%d%d" % archs[0] in ptx_of(k_vector_add)
    newest = archs[-1]
    assert ".target sm_%d%d" % newest in ptx_of(k_vector_add, cc=newest)
    for arch in {archs[0], archs[len(archs) // 2], newest}:
        monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", "%d.%d" % arch)
        ptx = ptx_of(k_vector_add)
        assert ".target sm_%d%d" % arch in ptx
        others = [a for a in archs if a != arch]
        assert all(".target sm_%d%d\n" % a not in ptx for a in others)
    monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", "%d.%d" % archs[0])
    assert ".target sm_%d%d" % newest in ptx_of(k_vector_add, cc=newest)  # cc= wins over the variable


# ---------------------------------------------------------------------------------------------
# Signatures and argument types
# ---------------------------------------------------------------------------------------------


def test_parse_void_signature():
    sig = types.parse_signature("void(float32[:], int64)")
    assert sig.return_type == types.void
    assert sig.args == (types.Array(types.float32, 1, "A"), types.int64)
    assert sig == cuda.void(cuda.float32[:], cuda.int64)
    assert types.parse_signature(sig) is sig


def test_parse_return_type_signature():
    sig = types.parse_signature("float32(float32, float32)")
    assert sig.return_type == types.float32 and sig.args == (types.float32, types.float32)
    assert types.float32(types.float32, types.float32) == sig


def test_parse_tuple_of_types():
    sig = types.parse_signature((cuda.float32[:, ::1], cuda.int32))
    assert sig.return_type == types.void
    assert sig.args == (types.Array(types.float32, 2, "C"), types.int32)
    assert sig.args[0].layout == "C" and sig.args[0].ndim == 2
    ptx, resty = cuda.compile_ptx(k_c_layout, (cuda.float32[:, ::1], cuda.int32))
    assert (
        resty == types.void and "k_c_layout_param_0[40]" in ptx and ".param .u32 ncc_py_k_c_layout_param_1" in ptx
    )


def test_parse_layouts_and_aliases():
    assert types.parse_signature("void(float64[::1, :])").args[0].layout == "F"
    assert types.parse_signature("void(float64[::1])").args[0].layout == "C"
    assert types.parse_signature("void(int32[:, :, :])").args[0] == types.Array(types.int32, 3, "A")
    assert types.parse_signature("void(f4, i8, u1, b1)").args == (
        types.float32,
        types.int64,
        types.uint8,
        types.boolean,
    )
    assert types.parse_signature((np.float32, "int16")).args == (types.float32, types.int16)
    assert str(types.float32[:, ::1]) == "float32[:, ::1]"


def test_parse_bad_signatures():
    with pytest.raises(TypeError):
        types.parse_signature("void(float99[:])")
    with pytest.raises(TypeError):
        types.parse_signature(42)
    with pytest.raises(TypeError):
        types.float32[1]


def test_scalar_types_convert_on_the_host():
    assert cuda.float32(1.5) == np.float32(1.5) and type(cuda.float32(1.5)) is np.float32
    assert type(cuda.int32(3)) is np.int32


def test_typeof():
    assert typeof(1) == types.int64
    assert typeof(1.0) == types.float64
    assert typeof(True) == types.boolean
    assert typeof(np.float32(1)) == types.float32
    assert typeof(np.uint16(1)) == types.uint16
    assert typeof(np.zeros((2, 3), np.float32)) == types.Array(types.float32, 2, "A")
    assert typeof(np.zeros(4, np.int8)[::2]) == types.Array(types.int8, 1, "A")
    with pytest.raises(TypeError):
        typeof("text")


def test_jit_options():
    with pytest.raises(TypeError):
        cuda.jit(k_vector_add, not_an_option=True)
    kernel = cuda.jit(k_vector_add)
    with pytest.raises(ValueError):
        kernel(np.zeros(4, np.float32), 4)  # no launch configuration
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count"):  # numba's words
        kernel.forall(-1)
    assert "k_vector_add" in repr(kernel)


def test_inspect_source_names_the_kernel_by_its_types():
    kernel = cuda.jit(k_vector_add)
    first = kernel.inspect_source("void(float32[:], int64)")
    second = kernel.inspect_source("void(float64[:], int64)")
    assert re.search(
        r'extern "C" __global__ void ncc_py_k_vector_add_\w+\(Array<float, 1> v_a, long long v_n\)', first
    )
    assert "Array<double, 1> v_a" in second


def test_wrong_number_of_argument_types():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(k_vector_add, "void(float32[:])")
    assert "k_vector_add" in str(info.value)


def test_launch_configuration_errors_in_numbas_words():
    kernel = cuda.jit(k_vector_add)
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"):
        kernel[(1, 2, 3, 4), (5, 6)]
    with pytest.raises(TypeError, match=r"griddim must be a sequence of integers, got \[2\.0\]"):
        kernel[2.0, 3]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, got \[2, 3\.0\]"):
        kernel[2, (2, 3.0)]
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        kernel(np.zeros(4, np.float32), 4)


def test_a_lambda_inside_a_call_that_spans_lines():
    if True:  # indented, in a call spanning lines: its own lines do not parse, its file's do
        ptx, _ = cuda.compile_ptx(lambda a: a + 1, "float64(float64)", device=True)
    assert ".func" in ptx and "add.f64" in ptx
