"""Tuples as kernel arguments, as numba takes them: a tuple of numbers goes as one struct; one holding
arrays or tuples (or none) is flattened, each leaf a parameter of its own, host arrays in it copied in and
back as any; namedtuples go as the tuples they are. Translation in CI, packing on the mock driver, results
on the GPU."""

import collections
import os

import numpy as np

import numba_cuda_c as cuda
import tuple_kernels as tk
from gpu import needs_nvrtc, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c import types

A = types.Array(types.float64, 1, "A")
NESTED = types.Tuple([A, types.Tuple([types.int64, A])])
Point = collections.namedtuple("Point", ("x", "y"))


def test_flattening_rule():
    assert types.flattens(NESTED) and types.flattens(types.Tuple([]))
    assert not types.flattens(types.Tuple([types.int64, types.float32]))
    assert list(types.tuple_leaves(NESTED, "x")) == [("x_0", A), ("x_1_0", types.int64), ("x_1_1", A)]


@needs_nvrtc
def test_tuple_kernels_translate():
    from numba_cuda_c.pyjit.translate import translate_kernel

    source = translate_kernel(tk.tuple_of_arrays_and_tuples, [A, NESTED], "k")
    assert "Array<double, 1> tv_x_0, long long tv_x_1_0, Array<double, 1> tv_x_1_1)" in source
    cuda.compile_ptx(tk.tuple_of_arrays_and_tuples, (A, NESTED))
    cuda.compile_ptx(tk.tuple_length, (A, types.Tuple([])))


def test_tuples_are_flattened_at_the_launch(mock_driver):
    out = run_mock(
        r"""
import sys; sys.path.insert(0, %r)
import tuple_kernels as tk, collections
k = cuda.jit(tk.tuple_of_arrays_and_tuples)
r, a, c = np.zeros(2), np.arange(3.0), np.arange(4.0)
k[1, 1](r, (a, (5, c)))
launch = mock.launch()
assert len(launch["params"]) == 4, len(launch["params"])  # r, then the tuple's three leaves
assert launch["params"][2] == (5).to_bytes(8, "little")
cuda.jit(tk.tuple_length)[1, 1](r, ())
assert len(mock.launch()["params"]) == 1
Point = collections.namedtuple("Point", ("x", "y"))
cuda.jit(tk.named_point)[1, 1](r, Point(1, 2))  # a namedtuple of numbers: one struct
assert len(mock.launch()["params"]) == 2
print("ok")
"""
        % os.path.dirname(__file__)
    )
    assert out.strip().endswith("ok")


@requires_gpu
def test_tuples_on_the_gpu():
    r, a, c = np.zeros(2), np.arange(3.0) + 1, np.arange(4.0)
    cuda.jit(tk.tuple_of_arrays_and_tuples)[1, 1](r, (a, (5, c)))
    assert r[0] == 1 + 5 + 1 and r[1] == 4 + 2
    assert c[0] == 7.0  # copied back
    cuda.jit(tk.tuple_length)[1, 1](r, ((), ()))
    assert r[0] == 2
    cuda.jit(tk.named_point)[1, 1](r, Point(1, 2))
    assert r[0] == 21


Point3 = collections.namedtuple("Point3", ("x", "y", "r"))


def test_namedtuples_are_typed_with_their_names():
    from numba_cuda_c.pyjit.dispatcher import typeof

    t = typeof(Point3(1, 2, 2.5))
    assert (
        isinstance(t, types.NamedTuple)
        and t.fields == ("x", "y", "r")
        and t.items == (types.int64,) * 2 + (types.float64,)
    )
    assert t != types.Tuple(t.items) and t == typeof(Point3(3, 4, 0.5))


@needs_nvrtc
def test_namedtuple_fields_translate():
    from numba_cuda_c.pyjit.dispatcher import typeof

    cuda.compile_ptx(tk.namedtuple_fields, (types.int64[::1], types.float64[::1], typeof(Point3(1, 2, 2.5))))


@requires_gpu
def test_namedtuple_fields_on_the_gpu():
    r1, r2 = np.zeros(2, np.int64), np.zeros(2)
    cuda.jit(tk.namedtuple_fields)[1, 1](r1, r2, Point3(1, 2, 2.236))
    np.testing.assert_array_equal(r1, [1, 2])
    np.testing.assert_array_equal(r2, [2.236, 3.236])
