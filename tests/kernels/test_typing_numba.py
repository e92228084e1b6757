"""Our typing rules (numba_cuda_c.pyjit.typing) against numba-cuda's own CUDA typing context, for
every pair of scalar types and every operator: runs where numba-cuda is installed (the GPU
machine), needs no GPU. CI has no numba-cuda: the hard-coded tables of test_typing_rules.py cover
the common cases there."""

import cmath
import math
import operator

import pytest

from gpu import let_numba_import
from numba_cuda_c import types as T
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.typing import KernelTypeError

let_numba_import()
numba_types = pytest.importorskip("numba.core.types", reason="numba-cuda is not installed")
descriptor = pytest.importorskip("numba.cuda.descriptor", reason="numba-cuda is not installed")

NAMES = [
    "boolean",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
PAIRS = [(a, b) for a in NAMES for b in NAMES]


@pytest.fixture(scope="module")
def context():
    ctx = descriptor.cuda_target.typing_context
    ctx.refresh()
    return ctx


def numba_result(ctx, function, names):
    try:
        sig = ctx.resolve_function_type(function, tuple(getattr(numba_types, n) for n in names), {})
    except Exception:  # noqa: BLE001 -- numba's typing errors: no such operation
        return None
    return None if sig is None else str(sig.return_type).replace("bool", "boolean")


def ours(rule, *names):
    try:
        return str(rule(*(getattr(T, n) for n in names))).replace("bool", "boolean")
    except KernelTypeError:
        return None


def disagreements(context, function, rule, argument_lists):
    """The argument types where our rule and numba's typing of `function` differ."""
    found = []
    for names in argument_lists:
        mine, theirs = ours(rule, *names), numba_result(context, function, names)
        if mine != theirs:
            found.append((names, mine, theirs))
    return found


SINGLES = [(a,) for a in NAMES]
OPERATORS = {
    "+": (operator.add, typing.promote),
    "-": (operator.sub, typing.promote),
    "*": (operator.mul, typing.promote),
    "/": (operator.truediv, typing.true_divide),
    "//": (operator.floordiv, typing.floor_divide),
    "%": (operator.mod, typing.floor_divide),
    "**": (operator.pow, typing.power),
    "&": (operator.and_, typing.bitwise),
    "^": (operator.xor, typing.bitwise),
    "<<": (operator.lshift, typing.shift),
    ">>": (operator.rshift, typing.shift),
}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_binary_operators_as_numba(context, op):
    function, rule = OPERATORS[op]
    assert disagreements(context, function, rule, PAIRS) == []


def test_unification_as_numba(context):
    wrong = []
    for a, b in PAIRS:
        theirs = str(context.unify_pairs(getattr(numba_types, a), getattr(numba_types, b))).replace(
            "bool", "boolean"
        )
        if ours(typing.unify, a, b) != theirs:
            wrong.append((a, b, ours(typing.unify, a, b), theirs))
    assert wrong == []


@pytest.mark.parametrize(
    "function, rule",
    [
        (math.sin, typing.math_result),
        (math.sqrt, typing.math_result),
        (cmath.sqrt, typing.cmath_result),
        (cmath.exp, typing.cmath_result),
        (abs, typing.absolute),
        (operator.neg, lambda t: typing.unary("-", t)),
        (operator.invert, lambda t: typing.unary("~", t)),
    ],
)
def test_functions_and_unary_operators_as_numba(context, function, rule):
    assert disagreements(context, function, rule, SINGLES) == []
