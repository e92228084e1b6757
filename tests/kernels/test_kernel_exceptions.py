"""Exceptions in kernels, as numba has them: a raise ends the thread; with debug=True the first one is
raised on the host after the launch ("tid=[..] ctaid=[..]: msg"), a division by zero is a
ZeroDivisionError and a tuple index out of range an IndexError. Translation in CI, the host's check of a
record on the mock driver, the whole on the GPU."""

import numpy as np
import pytest

import numba_cuda_c as cuda
import raising_kernels as rk
from gpu import needs_nvrtc, numba_cuda_or_skip, rebind, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c.pyjit import KernelTypeError, exceptions
from numba_cuda_c.pyjit.translate import translate_kernel
from numba_cuda_c import types

A = types.Array(types.float64, 1, "A")


def test_the_translation_lists_its_exceptions():
    source = translate_kernel(rk.my_raise, [types.int64, A], "k", debug=True)
    table = exceptions.table_of(source)
    raise_line = rk.my_raise.__code__.co_firstlineno + 3  # numba names the function, file and line of the raise
    assert table == {1: (rk.MyError, ("thread three", 42), ("my_raise", rk.__file__, raise_line))}, table
    assert "ncc_raise(1u)" in source
    plain = translate_kernel(rk.my_raise, [types.int64, A], "k")  # no debug: the thread just ends
    assert exceptions.table_of(plain) == {} and "ncc_exit()" in plain
    divide = translate_kernel(rk.divide, [A, A, A], "k", debug=True)
    assert exceptions.table_of(divide)[1][:2] == (ZeroDivisionError, ("division by zero",))
    assert exceptions.table_of(divide)[1][2] == ("divide", rk.__file__, rk.divide.__code__.co_firstlineno + 1)
    assert "ncc_checked_divisor" not in translate_kernel(rk.divide, [A, A, A], "k")
    index = translate_kernel(rk.tuple_index, [types.Array(types.int64, 1, "A")], "k", debug=True)
    assert exceptions.table_of(index)[1][:2] == (IndexError, ("tuple index out of range",))


def test_an_assert_raises_assertion_error():
    # numba compiles `assert test, message` as a raise of AssertionError(message) where the test fails
    source = translate_kernel(rk.asserts, [types.int64, types.Array(types.int64, 1, "A")], "k", debug=True)
    line = rk.asserts.__code__.co_firstlineno + 2
    assert exceptions.table_of(source) == {
        1: (AssertionError, ("x must be positive",), ("asserts", rk.__file__, line)),
        2: (AssertionError, (), ("asserts", rk.__file__, line + 1)),
    }
    assert "ncc_raise(1u)" in source and "ncc_raise(2u)" in source
    plain = translate_kernel(rk.asserts, [types.int64, types.Array(types.int64, 1, "A")], "k")
    assert plain.count("{ ncc_exit(); }") == 2  # no debug: a failed assert ends the thread, unreported


@needs_nvrtc
def test_debug_without_optimisation_records_raises_and_asserts_in_the_ptx():
    # debug=True, opt=False: the record the host reads after the launch, and the exit that ends the thread
    for kernel, signature in (
        (rk.asserts, "void(int64, int64[::1])"),
        (rk.user_raise, "void(boolean, float64[::1])"),
    ):
        ptx, _ = cuda.compile_ptx(kernel, signature, debug=True, opt=False)
        assert "ncc_exception" in ptx and "exit;" in ptx


@needs_nvrtc
def test_raising_kernels_compile():
    for debug in (False, True):
        ptx, _ = cuda.compile_ptx(rk.via_device_function, "void(float64[::1], float64[::1])", debug=debug)
        assert "exit;" in ptx


def test_what_cannot_be_raised_says_why(tmp_path):
    path = tmp_path / "bad_raise.py"
    path.write_text("def k(a, n):\n    raise 42\n\ndef j(a, n):\n    raise ValueError(a)\n")
    import runpy

    functions = runpy.run_path(str(path))
    with pytest.raises(KernelTypeError, match="exception classes"):
        cuda.compile_ptx(functions["k"], "void(float64[::1], int64)")
    with pytest.raises(KernelTypeError, match="constants"):
        cuda.compile_ptx(functions["j"], "void(float64[::1], int64)")


def test_the_host_raises_what_the_device_recorded(mock_driver):
    out = run_mock(
        r"""
import sys; sys.path.insert(0, %r)
import raising_kernels as rk
from numba_cuda_c.pyjit import exceptions
record = cuda.to_device(np.array([2, 3, 0, 0, 1, 0, 0], dtype=np.uint32))

class FakeKernel:  # what check() asks of a kernel: where its record is
    def _global(self, name):
        assert name == "ncc_exception"
        return record.device_ctypes_pointer.value, 28

table = {1: (ValueError, ("a",), None), 2: (rk.MyError, ("thread three", 42), ("k", "/x/k.py", 7))}
try:
    exceptions.check(FakeKernel(), table)
except rk.MyError as e:
    expected = "In function 'k', file /x/k.py, line 7, tid=[3, 0, 0] ctaid=[1, 0, 0]: thread three, 42"
    assert str(e) == expected, str(e)
else:
    raise AssertionError("nothing raised")
assert not record.copy_to_host().any()  # cleared for the next launch
exceptions.check(FakeKernel(), table)  # nothing recorded: nothing raised
print("ok")
"""
        % __import__("os").path.dirname(__file__)
    )
    assert out.strip().endswith("ok")


@requires_gpu
def test_user_exceptions_on_the_gpu():
    out = np.zeros(1)
    kernel = cuda.jit(debug=True, opt=False)(rk.user_raise)
    kernel[1, 1](False, out)
    assert out[0] == 2
    with pytest.raises(ValueError, match="bad value"):
        kernel[1, 1](True, out)
    assert out[0] == 1  # the thread ended at the raise
    kernel[1, 1](False, out)  # the record was cleared: the next launch is clean
    mine = cuda.jit(debug=True)(rk.my_raise)
    with pytest.raises(rk.MyError, match=r"tid=\[3, 0, 0\] ctaid=\[0, 0, 0\]: thread three, 42"):
        mine[1, 8](1, np.zeros(8))
    quiet = np.zeros(8)
    cuda.jit(rk.my_raise)[1, 8](1, quiet)  # no debug: thread 3 ended, nothing raised
    assert quiet[3] == 0 and quiet[4] == 4


@requires_gpu
def test_asserts_on_the_gpu_as_numba_cuda():
    out = np.zeros(4, np.int64)
    checked = cuda.jit(debug=True, opt=False)(rk.asserts)
    checked[1, 4](5, out)
    assert list(out) == [5] * 4
    out[:] = 0
    with pytest.raises(AssertionError, match="x must be positive"):
        checked[1, 4](-1, out)
    assert not out.any()  # each thread ended at the assert
    with pytest.raises(AssertionError, match=r"tid=\[\d, 0, 0\] ctaid=\[0, 0, 0\]$"):
        checked[1, 4](100, out)  # no message: numba's location alone
    cuda.jit(rk.asserts)[1, 4](-1, out)  # no debug: the threads ended, nothing raised
    assert not out.any()
    numba_cuda = numba_cuda_or_skip()
    theirs = numba_cuda.jit(debug=True, opt=False)(rebind(rk.asserts, cuda=numba_cuda))
    with pytest.raises(AssertionError, match="x must be positive"):
        theirs[1, 4](-1, np.zeros(4, np.int64))


@requires_gpu
def test_implicit_exceptions_in_debug_mode_on_the_gpu():
    r, x, y = np.zeros(2), np.zeros(1), np.ones(1)
    cuda.jit(rk.divide)[1, 1](r, x, y)
    assert np.isinf(r[0]) and r[1] == 1  # no debug: inf, and on
    r[:] = 0
    with pytest.raises(ZeroDivisionError):
        cuda.jit(debug=True, opt=False)(rk.divide)[1, 1](r, x, y)
    assert r[0] == 0 and r[1] == 0  # stopped at the division
    with pytest.raises(IndexError, match="tuple index out of range"):
        cuda.jit(debug=True, opt=False)(rk.tuple_index)[1, 3](np.array([0, 1]))
    with pytest.raises(ValueError, match="negative"):
        cuda.jit(debug=True)(rk.via_device_function)[1, 4](np.array([1.0, -1.0]), np.zeros(2))


def divides(r, x, y, i, j):
    r[0] = x / y
    r[1] = i // j


def test_fastmath_leaves_float_division_unchecked():
    # numba: with debug=True a division by zero raises ZeroDivisionError, except a float one under fastmath
    argtypes = [types.float64[::1], types.float32, types.float32, types.int64, types.int64]
    checked = translate_kernel(divides, argtypes, "k", debug=True)
    fast = translate_kernel(divides, argtypes, "k", debug=True, fastmath=True)
    assert checked.count("ncc_checked_divisor<") == 2
    assert fast.count("ncc_checked_divisor<") == 1 and "ncc_checked_divisor<long long>" in fast
