"""Kernels made with exec from strings (code generators; numba's tests make kernels so: test_atomics.py's
atomic_double_shared) have no source to read: their syntax tree is rebuilt from the bytecode (pyjit/bytecode.py),
`if` statements included. The rebuilt functions must compute what the originals do: checked here in Python on
the CPU, for each branch shape CPython 3.11-3.13 compile differently (and/or chains, elif, `is None`, early and
duplicated returns); compiled with NVRTC (CI); and run on the GPU beside the same kernel written in a file."""

import ast
import sys
import itertools
from textwrap import dedent

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import float64, types
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.bytecode import Unreadable, function_def

BRANCHING = {  # name -> source; each takes (a, b, out) with out a list of 2
    "and_or_elif": """
        def and_or_elif(a, b, out):
            if a and b < 3:
                out[0] = 1
            elif a or b:
                out[0] = 2
            else:
                out[0] = 3
            out[1] = a - b
        """,
    "nested_early_returns": """
        def nested_early_returns(a, b, out):
            if not a:
                if b > 2:
                    out[0] = 10
                    return
                out[1] = 7
            elif a > b and (b or a > 5):
                out[0] = a
            out[0] = out[0] + 1
        """,
    "is_none_and_chain": """
        def is_none_and_chain(a, b, out):
            if b is None:
                out[0] = -1
            elif a < b and b < 4 and a != 1:
                out[0] = 5
            if a is not None or b:
                out[1] = 9
        """,
    "guard_then_work": """
        def guard_then_work(a, b, out):
            if a >= 3 or b is None:
                return
            out[0] = a
            if not (b > a and a):
                out[1] = b
        """,
    "returns_a_value": """
        def returns_a_value(a, b, out):
            if a > b:
                return a
            else:
                return b
        """,
}
VALUES = (0, 1, 2, 3, 6, None)


def _made_with_exec(text, namespace=None):
    scope = {}
    exec(dedent(text), dict(namespace or {}), scope)
    return next(iter(scope.values()))


def _rebuilt(function):
    """The function compiled again from the syntax tree its bytecode gives."""
    tree = ast.Module(body=[function_def(function)], type_ignores=[])
    for node in ast.walk(tree):  # the rebuilt tree's positions are lines only: each node one line, for compile
        if "lineno" in node._attributes:
            node.end_lineno, node.col_offset, node.end_col_offset = node.lineno, 0, 0
    scope = {}
    exec(compile(tree, "<rebuilt>", "exec"), {}, scope)
    return scope[function.__name__]


@pytest.mark.parametrize("name", sorted(BRANCHING))
def test_rebuilt_branches_compute_what_the_original_does(name):
    original = _made_with_exec(BRANCHING[name])
    rebuilt = _rebuilt(original)
    for a, b in itertools.product(VALUES, VALUES):
        if (a is None or b is None) and name != "is_none_and_chain":
            continue
        if name == "is_none_and_chain" and a is None and b is not None:
            continue  # `a < b` on None: Python's own TypeError, not a branch shape
        out_original, out_rebuilt = [0, 0], [0, 0]
        assert rebuilt(a, b, out_rebuilt) == original(a, b, out_original), (a, b)
        assert out_rebuilt == out_original, (name, a, b)


def test_and_or_chains_come_back_as_one_test_each():
    # `a and b` / `a or b` are jumps that continue one another: one `if` each, not the else copied per jump
    text = ast.unparse(function_def(_made_with_exec(BRANCHING["and_or_elif"])))
    assert "if a and b < 3:" in text and "elif a or b:" in text and text.count("out[0] = 3") == 1


def test_loops_and_conditional_expressions_are_unreadable():
    for text in (
        "def f(a):\n    for i in range(3):\n        a[i] = i\n",
        "def f(a):\n    while a[0] < 3:\n        a[0] += 1\n",
        "def f(a, b):\n    a[0] = b and 2\n",
    ):
        with pytest.raises(Unreadable):
            function_def(_made_with_exec(text))


def test_a_conditional_expression_is_unreadable_or_rebuilt_as_the_branches_it_compiles_to():
    # CPython 3.12 compiles `a[0] = 1 if b else 2` to two branches that each store: read as an if statement
    original = _made_with_exec("def f(a, b):\n    a[0] = 1 if b else 2\n")
    try:
        rebuilt = _rebuilt(original)
    except Unreadable:
        assert sys.version_info < (3, 12)
        return
    for b in (True, False, 0, 3):
        want, got = [0], [0]
        original(want, b)
        rebuilt(got, b)
        assert got == want


ATOMIC_DOUBLE_SHARED = """
    def atomic_double_shared(res, ary):
        tid = cuda.threadIdx.x
        smary = cuda.shared.array(32, float64)
        smary[tid] = ary[tid]
        smres = cuda.shared.array(1, float64)
        if tid == 0:
            smres[0] = res[0]
        cuda.syncthreads()
        {func}(smres, 0, smary[tid])
        cuda.syncthreads()
        if tid == 0:
            res[0] = smres[0]
    """  # numba-cuda's test_atomics.py's, made with exec as there
ATOMICS = ("cuda.atomic.max", "cuda.atomic.min", "cuda.atomic.nanmax", "cuda.atomic.nanmin")


@needs_nvrtc
@pytest.mark.parametrize("func", ATOMICS)
def test_exec_made_kernel_with_branches_compiles(func):
    kernel = _made_with_exec(ATOMIC_DOUBLE_SHARED.format(func=func), {"cuda": cuda, "float64": float64})
    ptx, _ = cuda.compile_ptx(kernel, "void(float64[:], float64[:])")
    assert ".shared" in ptx and "bar.sync" in ptx


@needs_nvrtc
def test_an_exec_made_loop_is_refused_saying_why():
    kernel = _made_with_exec("def k(a):\n    for i in range(3):\n        a[i] = i\n")
    with pytest.raises(
        KernelTypeError, match="straight-line code and `if` statements.*define the function in a file"
    ):
        cuda.compile_ptx(kernel, (types.float64[:],))


BRANCHING_KERNEL = """
    def branching(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            if a[i] and b[i] < 3:
                out[i] = 1
            elif a[i] or b[i]:
                out[i] = 2
            else:
                out[i] = 3
    """


@requires_gpu
def test_exec_made_kernels_with_branches_run():
    vals = np.random.default_rng(1).integers(0, 32, size=32).astype(np.float64)
    for func, start, gold in (("cuda.atomic.max", 0.0, vals.max()), ("cuda.atomic.nanmin", 32.0, vals.min())):
        kernel = _made_with_exec(ATOMIC_DOUBLE_SHARED.format(func=func), {"cuda": cuda, "float64": float64})
        res = np.array([start])
        cuda.jit("void(float64[:], float64[:])")(kernel)[1, 32](res, vals)
        assert res[0] == gold
    a = np.array([0, 0, 1, 1, 2, 0], dtype=np.int32)
    b = np.array([0, 5, 1, 4, 0, 1], dtype=np.int32)
    out = np.zeros(6, dtype=np.int32)
    cuda.jit(_made_with_exec(BRANCHING_KERNEL, {"cuda": cuda}))[1, 32](out, a, b)
    expected = [1 if x and y < 3 else 2 if x or y else 3 for x, y in zip(a, b)]
    np.testing.assert_array_equal(out, expected)
