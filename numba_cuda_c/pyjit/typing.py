"""numba's typing rules for the Python-kernel translator: what type an operation gives.

Integers compute as int64 (or uint64 when both sides are unsigned; a mix with uint64 gives
float64), ints mixed with floats follow NumPy's promotion (float32 with int64 is float64), `/`
always divides as floats, comparisons give bool, and a variable assigned several types gets the
type that holds them all.
"""

from numba_cuda_c import types


class KernelTypeError(TypeError):
    """A construct outside the supported subset, or types that do not fit; says where."""


def is_int(t):
    return isinstance(t, types.Scalar) and t.kind in "iu"


def is_float(t):
    return isinstance(t, types.Scalar) and t.kind == "f"


def is_number(t):
    return isinstance(t, types.Scalar) and t.kind in "biuf"


def as_arith(t):
    """bool takes part in arithmetic as an int64, as in numba."""
    return types.int64 if t == types.boolean else t


def promote(a, b):
    """The type both operands of + - * // % take."""
    a, b = as_arith(a), as_arith(b)
    if not (is_number(a) and is_number(b)):
        if isinstance(a, types.Scalar) and isinstance(b, types.Scalar):
            raise KernelTypeError("complex numbers are not supported in kernels yet")
        raise KernelTypeError("no arithmetic between %s and %s" % (a, b))
    if a == b and (a.kind == "f" or a.bits == 64):
        return a
    if is_int(a) and is_int(b):
        if a.kind == b.kind:
            return types.int64 if a.kind == "i" else types.uint64
        unsigned = a if a.kind == "u" else b
        return types.float64 if unsigned.bits == 64 else types.int64
    import numpy as np

    return types.from_dtype(np.promote_types(a.dtype, b.dtype))


def unify(a, b):
    """The type of a variable assigned both a and b."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, types.Scalar) and isinstance(b, types.Scalar):
        if a == types.boolean or b == types.boolean:
            return promote(a, b)
        return promote(a, b)
    raise KernelTypeError("a variable cannot hold both %s and %s" % (a, b))


def true_divide(a, b):
    t = promote(a, b)
    return types.float64 if is_int(t) else t


def power(a, b):
    t = promote(a, b)
    return t


def unary(op, t):
    if op == "not":
        return types.boolean
    t = as_arith(t)
    if not is_number(t):
        raise KernelTypeError("no unary operator for %s" % t)
    if is_int(t):
        if op == "~" and t.bits == 64:
            return t
        return types.int64 if t.kind == "i" or op == "-" else types.uint64
    return t


def bitwise(a, b):
    if a == types.boolean and b == types.boolean:
        return types.boolean
    a, b = as_arith(a), as_arith(b)
    if not (is_int(a) and is_int(b)):
        raise KernelTypeError("bitwise operators take integers, not %s and %s" % (a, b))
    return promote(a, b)


def math_result(t):
    """math.sqrt(float32) is float32; ints and float64 compute as float64."""
    return types.float32 if t == types.float32 else types.float64
