"""Kernels given signatures, as numba runs them: nothing else is compiled, arguments convert to the
declared types (Python numbers to the declared number types, ints to pointers), and arguments that
convert to no signature raise numba's TypeError. CPointer parameters (numba's documentation example)."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.devicefn import argument_kinds as _argument_kinds
from numba_cuda_c.pyjit.dispatcher import _caster
from numba_cuda_c.pyjit.translate import translate_kernel


def add_one(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] += 1


def test_pointer_parameters_translate():
    sig = types.void(types.CPointer(types.uint8), types.uint32)
    source = translate_kernel(add_one, list(sig.args), "k")
    assert "unsigned char * v_x" in source and "(v_x)[v_i]" in source
    assert str(types.CPointer(types.uint8)) == "uint8*" and types.CPointer(np.uint8) is types.CPointer(types.uint8)
    try:
        _cuda.nvrtc_version()
    except cuda.NvrtcError:
        return
    ptx, _ = cuda.compile_ptx(add_one, sig)
    assert ".entry" in ptx


def test_conversions():
    pointer = types.CPointer(types.uint8)
    assert _argument_kinds((types.int64,), (pointer,)) == [typing.UNSAFE] and _caster(types.int64, pointer) is None
    assert _argument_kinds((types.int64,), (types.float32,)) == [typing.UNSAFE]
    assert _caster(types.int64, types.float32) is np.float32
    assert _argument_kinds((types.complex128,), (types.float64,)) == [None]  # no complex to real, as numba
    to_int32 = _caster(types.int64, types.int32)  # Python ints wrap, as numba's ctypes packing does
    assert to_int32(0x80000000) == np.int32(-(2**31)) and to_int32(0xFFFFFFFF) == -1 and to_int32(5) == 5
    assert _caster(types.int64, types.uint8)(-1) == 255 and type(to_int32(1)) is np.int32
    assert _argument_kinds((types.Array(types.float32, 1, "A"),), (types.Array(types.float64, 1, "A"),)) == [None]


def test_numbas_conversion_kinds():
    kinds = {
        (a, b): typing.conversion(getattr(types, a), getattr(types, b))
        for a, b in [
            ("int8", "int64"),
            ("int32", "float64"),
            ("int64", "float64"),
            ("int64", "float32"),
            ("float32", "float64"),
            ("float64", "float32"),
            ("uint32", "int64"),
            ("uint64", "int64"),
            ("int32", "complex128"),
            ("complex128", "complex64"),
            ("complex64", "float32"),
            ("boolean", "float64"),
        ]
    }
    assert kinds == {
        ("int8", "int64"): typing.PROMOTE,
        ("int32", "float64"): typing.SAFE,
        ("int64", "float64"): typing.SAFE,
        ("int64", "float32"): typing.UNSAFE,
        ("float32", "float64"): typing.PROMOTE,
        ("float64", "float32"): typing.UNSAFE,
        ("uint32", "int64"): typing.SAFE,
        ("uint64", "int64"): typing.UNSAFE,
        ("int32", "complex128"): typing.SAFE,
        ("complex128", "complex64"): typing.UNSAFE,
        ("complex64", "float32"): None,
        ("boolean", "float64"): typing.SAFE,
    }


def test_the_least_costly_declared_signature_is_chosen():
    f32, f64, i64 = types.float32, types.float64, types.int64

    def best(candidates, args):
        return typing.best_signatures(candidates, lambda c: _argument_kinds(args, c))

    assert best([(f32, f32), (f64, f64)], (i64, f64)) == [(f64, f64)]  # int64 -> float64 is safe, -> float32 not
    assert best([(f32, f32), (f64, f64)], (f32, f32)) == [(f32, f32)]
    assert best([(f32, f64), (f64, f32), (i64, i64)], (f64, f64)) == [(f32, f64), (f64, f32)]  # ambiguous
    assert best([(i64, i64)], (types.complex128, types.complex128)) == []


def test_device_functions_take_their_least_costly_declaration():
    both = cuda.jit(["(float32, float32)", "(float64, float64)"], device=True)(lambda x, y: x + y)
    assert both.declared_signature((types.int64, types.float64)).args == (types.float64, types.float64)
    assert both.declared_signature((types.float32, types.float32)).args == (types.float32, types.float32)
    ambiguous = cuda.jit(["(float32, float64)", "(float64, float32)"], device=True)(lambda x, y: x + y)
    assert ambiguous.declared_signature((types.float64, types.float64)).args == (types.float32, types.float64)
    with pytest.raises(cuda.pyjit.KernelTypeError, match=r"Invalid use of type .* with parameters \(complex128"):
        both.declared_signature((types.complex128, types.complex128))


@requires_gpu
def test_pointer_kernel_documentation_example():
    kernel = cuda.jit(types.void(types.CPointer(types.uint8), types.uint32))(add_one)
    x = cuda.to_device(np.arange(10, dtype=np.uint8))
    kernel[1, 32](x.__cuda_array_interface__["data"][0], len(x))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11))
    assert len(kernel.overloads) == 1  # the int arguments converted: nothing new compiled


@requires_gpu
def test_arguments_convert_to_the_declared_types():
    @cuda.jit("void(float32[:], int32, float32)")
    def fill(out, n, value):
        i = cuda.grid(1)
        if i < n:
            out[i] = value

    out = cuda.device_array(4, dtype=np.float32)
    fill[1, 4](out, 4, 2)  # Python ints: to int32 and to float32 (their bytes, not an int's)
    np.testing.assert_array_equal(out.copy_to_host(), [2, 2, 2, 2])
    fill[1, 4](out, np.int64(3), 1.5)
    np.testing.assert_array_equal(out.copy_to_host(), [1.5, 1.5, 1.5, 2])
    assert len(fill.overloads) == 1
    with pytest.raises(TypeError, match="No matching definition"):
        fill[1, 4](cuda.device_array(4), 4, 1.0)  # a float64 array converts to no float32 one


@requires_gpu
def test_ambiguous_declarations_are_numbas_error():
    def add(r, x, y):
        r[0] = x + y

    kernel = cuda.jit(
        ["(float64[::1], float32, float64)", "(float64[::1], float64, float32)", "(float64[::1], int64, int64)"]
    )(add)
    with pytest.raises(TypeError) as info:
        kernel[1, 1](np.zeros(1), 1.0, 2.0)
    message = str(info.value)
    assert message.startswith("Ambiguous overloading for <function") and "int64" not in message
    assert "(Array(float64, 1, 'C', False, aligned=True), float64, float64):\n" in message
    assert "(Array(float64, 1, 'C', False, aligned=True), float32, float64) -> none" in message
    r = np.zeros(1)
    kernel[1, 1](r, np.float32(1.5), 2.25)  # exact: no ambiguity
    assert r[0] == 3.75
