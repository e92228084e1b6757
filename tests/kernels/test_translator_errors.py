"""Constructs outside the kernel subset, compiled without a GPU (cuda.compile_ptx): KernelTypeError naming the
kernel's file, its line and its source, from compile_ptx, jit and device compilation, inside device
functions; a name read before it is assigned.

The kernels live at module level: the translator reads their source with inspect.
"""

import inspect
import os

import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import SIG, _private_cache, line_of  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda
from numba_cuda_c.pyjit import KernelTypeError

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)

HERE = os.path.basename(__file__)


# ---------------------------------------------------------------------------------------------
# Constructs outside the subset: KernelTypeError naming the file, the line and the source
# ---------------------------------------------------------------------------------------------


def helper_not_jitted(x):
    return x + 1


def e_try(a, n):
    try:
        a[0] = 1.0
    except Exception:
        a[0] = 2.0


def e_list(a, n):
    values = [1.0, 2.0]
    a[0] = values[0]


def e_print(a, n):
    a[0] = 1.0
    print(n, a)  # arrays do not print in kernels


def e_unknown_function(a, n):
    a[0] = helper_not_jitted(n)


def e_iterate_number(a, n):
    for x in n:
        a[0] = x


def e_kernel_returns(a, n):
    if n > 0:
        return n


def e_undefined_name(a, n):
    a[0] = not_defined_anywhere  # noqa: F821


def e_array_or_number(a, n):
    x = a
    if n > 0:  # a number on one path, an array on the other: numba's SSA cannot unify them either
        x = 1.0
    a[0] = x[0]


def e_bad_dtype(a, n):
    s = cuda.local.array(4, dtype=cuda.Stream)
    a[0] = s[0]


def e_keyword_call(a, n):
    a[0] = max(a[1], a[2], key=None)


def e_set(a, n):  # (a lambda was refused here once: it is a device function of its own now, test_syntax_gaps.py)
    s = {n}
    a[0] = len(s)


@pytest.mark.parametrize(
    "func, needle, words",
    [
        (e_try, "try:", "Try"),
        (e_list, "values = [1.0, 2.0]", "List"),
        (e_print, "print(n, a)", "print() in kernels takes strings"),
        (e_unknown_function, "helper_not_jitted(n)", "helper_not_jitted"),
        (e_iterate_number, "for x in n:", "arrays, tuples"),
        (e_kernel_returns, "return n", "return a value"),
        (e_undefined_name, "not_defined_anywhere", "not_defined_anywhere"),
        (e_array_or_number, "if n > 0:", "on another path"),
        (e_bad_dtype, "cuda.local.array(4, dtype=cuda.Stream)", "dtype"),
        (e_keyword_call, "key=None", "keyword"),
        (e_set, "s = {n}", "Set"),
    ],
)
def test_unsupported_construct_names_file_and_line(func, needle, words):
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(func, SIG)
    message = str(info.value)
    line = line_of(func, needle)
    assert "%s:%d:" % (HERE, line) in message, message
    source_line = inspect.getsourcelines(func)[0][line - inspect.getsourcelines(func)[1]].strip()
    assert source_line in message
    assert words in message
    assert isinstance(info.value, TypeError)  # KernelTypeError is a TypeError, as numba's typing errors


def test_errors_also_come_from_jit_and_device_compilation():
    with pytest.raises(KernelTypeError) as info:
        cuda.jit(e_print).inspect_source(SIG)
    assert "%s:%d:" % (HERE, line_of(e_print, "print(n, a)")) in str(info.value)
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(e_list, "(float32[:], int64)", device=True)
    assert "%s:%d:" % (HERE, line_of(e_list, "values = [1.0, 2.0]")) in str(info.value)


def e_calls_bad_device(a, n):
    a[0] = d_bad_inner(n)


@cuda.jit(device=True)
def d_bad_inner(x):
    y = [x]
    return y[0]


def test_error_inside_a_device_function_points_at_the_device_function():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(e_calls_bad_device, SIG)
    assert "%s:%d:" % (HERE, line_of(d_bad_inner, "y = [x]")) in str(info.value)


def read_before_assignment(a):
    a[0] = later  # noqa: F821 -- the point of the test
    later = 1.0  # noqa: F841


def loop_carried_value(a, n):
    for i in range(n):
        if i > 0:
            a[i] = last  # noqa: F821 -- assigned by the previous iteration
        last = a[i] * 2  # noqa: F841 -- read by the next iteration


def test_read_before_assignment_is_an_error_but_loop_carried_values_are_not():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(read_before_assignment, "void(float64[:])")
    assert "used before it is assigned" in str(info.value) and "a[0] = later" in str(info.value)
    ptx, _ = cuda.compile_ptx(loop_carried_value, "void(float64[:], int64)")
    assert ".entry ncc_py_loop_carried_value" in ptx


def test_a_wrong_number_of_arguments_is_said_as_python_says_it():
    """k[1, 4](a, a) for a one-argument kernel: Python's wording, not the translator's (issue 30)."""
    from numba_cuda_c import types
    from numba_cuda_c.pyjit.translate import translate_kernel

    def k(a):
        a[0] = 1

    array = types.Array(types.float64, 1, "A")
    with pytest.raises(Exception, match=r"k\(\) takes 1 positional argument but 2 were given"):
        translate_kernel(k, [array, array], "k")


def makes_a_list(a):
    x = [1, 2]
    a[0] = x[0]


def makes_a_dict(a):
    x = {1: 2}
    a[0] = x[1]


def makes_a_set(a):
    x = {1, 2}
    a[0] = len(x)


@pytest.mark.parametrize(
    "kernel, hint",
    [(makes_a_list, "cuda.local.array"), (makes_a_dict, "arrays indexed by integers"), (makes_a_set, "flags")],
)
def test_a_list_or_dict_in_a_kernel_says_what_to_use_instead(kernel, hint):
    from numba_cuda_c import types
    from numba_cuda_c.pyjit.translate import translate_kernel

    with pytest.raises(KernelTypeError, match="unsupported expression .*" + hint):
        translate_kernel(kernel, [types.Array(types.float64, 1, "A")], "k")
