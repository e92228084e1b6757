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


def numba_compiled_result(function, names):
    """The result type numba-cuda compiles function(*args) to in a device function (where the bare typing context
    misses overloads that only a compilation loads), or None where it refuses."""
    from numba import cuda

    def call(x):
        return function(x)

    try:
        _ptx, result = cuda.compile_ptx(call, tuple(getattr(numba_types, n) for n in names), device=True, cc=(9, 0))
    except Exception:  # noqa: BLE001 -- numba's typing errors: no such operation
        return None
    return str(result).replace("bool", "boolean")


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


def test_power_computes_in_numbas_case(context):
    """a ** b: the case numba picks (typing.power_case) gives the types it computes in, the exponent's too (int ** int
    is numba's int_power with the exponent in its own type); literal exponents included."""
    wrong = []
    literal_pairs = [(a, value) for a in NAMES for value in (3, -3)]
    for a, b in PAIRS + literal_pairs:
        numba_b = numba_types.literal(b) if isinstance(b, int) else getattr(numba_types, b)
        try:
            sig = context.resolve_function_type(operator.pow, (getattr(numba_types, a), numba_b), {})
        except Exception:  # noqa: BLE001 -- numba's typing errors: no such operation
            sig = None
        theirs = None if sig is None else str(tuple(str(t) for t in sig.args) + (str(sig.return_type),))
        try:
            result, params = typing.power_case(
                getattr(T, a), T.int64 if isinstance(b, int) else getattr(T, b), isinstance(b, int)
            )
            mine = str(tuple(str(t) for t in params) + (str(result),))
        except KernelTypeError:
            mine = None
        if mine != theirs:
            wrong.append((a, b, mine, theirs))
    assert wrong == []


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


def _numba_text(t):
    """Our type as numba writes it: a tuple of equal items is its UniTuple."""
    if isinstance(t, T.Tuple):
        items = [_numba_text(i) for i in t.items]
        if len(set(items)) == 1:
            return "UniTuple(%s x %d)" % (items[0], len(items))
        return "Tuple(%s)" % ", ".join(items)
    return str(t).replace("bool", "boolean")


def _library_result(path, names):
    """Our library entry's result type for these argument types (pyjit/lib), as numba writes it; None: refused."""
    from numba_cuda_c.pyjit import lib
    from numba_cuda_c.pyjit.values import typed

    try:
        result = lib.lookup(path).typing([typed(getattr(T, n)) for n in names])
    except TypeError:  # KernelTypeError too: refused
        return None
    return _numba_text(getattr(result, "type", result))


def _math_functions():
    from numba_cuda_c.pyjit.lib import pymath

    return sorted(name for name in pymath.MATH_CASES if hasattr(math, name) and name != "cbrt")


@pytest.mark.parametrize("name", _math_functions())
def test_math_functions_as_numba_cuda(context, name):
    """Every math function numba-cuda types (its cudamath templates), over every real type (pairs for two
    arguments): the result type of ours, through the same library entry a kernel calls, is numba-cuda's."""
    from numba_cuda_c.pyjit.lib import pymath

    arity = len(pymath.MATH_CASES[name][0][1])
    reals = [n for n in NAMES if not n.startswith("complex")]
    argument_lists = [(a,) for a in reals] if arity == 1 else [(a, b) for a in reals for b in reals]
    wrong = []
    for names in argument_lists:
        mine = _library_result(("math", name), names)
        theirs = numba_result(context, getattr(math, name), names)
        if names == ("float16",):  # fp16.py's overloads type only inside a compilation (tanh: fuzzer 47:680)
            theirs = numba_compiled_result(getattr(math, name), names)
        if mine != theirs:
            wrong.append((names, mine, theirs))
    assert wrong == []


def test_divmod_and_unary_plus_as_numba(context):
    wrong = []
    for a, b in PAIRS:
        mine, theirs = _library_result(("builtins", "divmod"), (a, b)), numba_result(context, divmod, (a, b))
        if "complex" not in a + b and mine != theirs:
            wrong.append(("divmod", a, b, mine, theirs))
    for (a,) in SINGLES:
        mine, theirs = ours(lambda t: typing.unary("+", t), a), numba_result(context, operator.pos, (a,))
        if mine != theirs:
            wrong.append(("+", a, mine, theirs))
    assert wrong == []
