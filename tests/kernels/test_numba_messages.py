"""Typing errors in numba's words where numba-cuda's own tests read them (numba's TypingError text): a shared or
local array's shape that is not a constant int or tuple of them (a list too, as numba refuses it), and an error in a
device function, with numba's lines naming each callee and call on the way."""

import pytest

import numba_cuda_c as cuda
import message_kernels as mk
from gpu import needs_nvrtc
from numba_cuda_c.pyjit import KernelTypeError

pytestmark = needs_nvrtc

NO_IMPLEMENTATION = "No implementation of function Function(<function %s.array>) found for signature:\n \n >>> %s"


@pytest.mark.parametrize(
    "kernel, signature, space, call",
    [
        (mk.shape_from_an_element, "void(float32[:])", "shared", "array(shape=float32, dtype=class(float32))"),
        (mk.shape_from_an_element, "void(int32[:])", "shared", "array(shape=int32, dtype=class(float32))"),
        (
            mk.shape_tuple_with_an_element,
            "void(float32[:, :])",
            "shared",
            "array(shape=Tuple(Literal[int](1), array(float32, 1d, A)), dtype=class(float32))",
        ),
        (
            mk.shape_tuple_with_an_element,
            "void(int32[:])",
            "shared",
            "array(shape=Tuple(Literal[int](1), int32), dtype=class(float32))",
        ),
        (
            mk.shape_from_a_list,
            "void(float32[:])",
            "shared",
            "array(shape=list(int64)<iv=[5, 6]>, dtype=class(float32))",
        ),
        (mk.local_shape_by_position, "void(int64[:])", "local", "array(int64, class(float32))"),
    ],
)
def test_a_shape_no_implementation_takes(kernel, signature, space, call):
    with pytest.raises(KernelTypeError) as info:
        cuda.jit(signature)(kernel)
    message = str(info.value)
    assert NO_IMPLEMENTATION % (space, call) in message, message
    assert "message_kernels.py:" in message  # and where


def test_an_error_in_a_device_function_names_each_callee_and_call():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(mk.calls_a_failing_device_function, "void(float64[:])")
    lines = str(info.value).splitlines()
    assert lines[0].endswith("NameError: name 'floor' is not defined"), lines
    assert lines[2].startswith("During: resolving callee type: type(CUDADispatcher(<function undefined_inside at ")
    assert lines[3].startswith("During: typing of call at ") and lines[3].endswith("message_kernels.py (38)")
    assert lines[4].startswith(
        "During: resolving callee type: type(CUDADispatcher(<function calls_undefined_inside"
    )
    assert lines[5].endswith("message_kernels.py (42)"), lines
