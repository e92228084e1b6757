"""numba's typing rules for the Python-kernel translator: what type an operation gives.

Integers compute as int64 (or uint64 when both sides are unsigned; int64 with uint64 is int64,
numba's choose_result_int), a float32 with bool, int8, int16 or uint8 stays float32 and with any
other integer is float64, `/` always divides as floats, comparisons give bool, and a variable
assigned several types gets the smallest type that holds them all (NumPy's promote_types, as
numba's unification: int8 and int16 give int16, int64 and uint64 give float64).
"""

from numba_cuda_c import errors, types


class KernelTypeError(TypeError):
    """A construct outside the supported subset, or types that do not fit; says where."""


class KernelValueError(KernelTypeError, ValueError):
    """A value numba refuses with ValueError when it compiles (an array's alignment that is not a power of 2)."""


# numba-cuda raises numba's TypingError where a kernel does not type, so programs written for it catch that
# class (numba.cuda.core.errors's, or numba.core.errors's). Where either module is loaded, the KernelTypeError a
# compilation raises is also an instance of theirs (errors.numba_twin). numba is never imported.
def numba_compatible(error):
    """error itself, or (where numba's errors are loaded) the same error as an instance of a class deriving from
    KernelTypeError and numba's TypingError classes."""
    twin = errors.numba_twin(type(error), "TypingError", {"__str__": BaseException.__str__})
    if twin is type(error):
        return error
    converted = twin(*error.args)
    converted.__dict__.update(error.__dict__)
    converted.msg, converted.loc = (error.args[0] if error.args else ""), None  # numba's NumbaError attributes
    return converted.with_traceback(error.__traceback__)


def is_int(t):
    return isinstance(t, types.Scalar) and t.kind in "iu"


def is_float(t):
    return isinstance(t, types.Scalar) and t.kind == "f"


def is_complex(t):
    return isinstance(t, types.Scalar) and t.kind == "c"


def is_real(t):
    """A bool, an integer or a float: what math.* and ordering comparisons take."""
    return isinstance(t, types.Scalar) and t.kind in "biuf"


def is_number(t):
    return isinstance(t, types.Scalar) and t.kind in "biufc"  # not datetime64/timedelta64 (datetimes.py)


def as_arith(t):
    """bool takes part in arithmetic as an int64, as in numba."""
    return types.int64 if t == types.boolean else t


# numba converts these to float32 (and complex64) safely; uint16, int32 and wider go to float64
_FLOAT32_SAFE = ("bool", "int8", "int16", "uint8", "float16", "bfloat16", "float32")
_HALVES = ("float16", "bfloat16")  # storage-only floats: arithmetic on two of one kind stays that kind


def _check_numbers(a, b):
    if not (is_number(a) and is_number(b)):
        raise KernelTypeError("no arithmetic between %s and %s" % (a, b))


def promote(a, b):
    """The type both operands of + - * // % take: numba's BinOp templates. float16 with float16
    stays float16 (numba-cuda's half arithmetic); complex64 keeps to complex64 with what float32
    would keep to."""
    _check_numbers(a, b)
    if is_complex(a) or is_complex(b):
        if types.complex128 in (a, b):
            return types.complex128
        other = b if a == types.complex64 else a
        return types.complex64 if other == types.complex64 or other.name in _FLOAT32_SAFE else types.complex128
    if is_float(a) or is_float(b):
        if types.float64 in (a, b):
            return types.float64
        for half in (types.float16, types.bfloat16):
            if half in (a, b) and {a.name, b.name} <= {half.name, "bool", "int8"}:
                return half
        other = b if a in (types.float32, types.float16, types.bfloat16) else a
        return types.float32 if other.name in _FLOAT32_SAFE else types.float64
    return types.uint64 if a.kind == "u" and b.kind == "u" else types.int64


def unify(a, b):
    """The type of a variable assigned both a and b."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if types.none in (a, b) or isinstance(a, types.Optional) or isinstance(b, types.Optional):
        return _unify_optional(a, b)
    if isinstance(a, types.Scalar) and isinstance(b, types.Scalar):
        _check_numbers(a, b)
        import numpy as np

        return types.from_dtype(np.promote_types(a.dtype, b.dtype))
    raise KernelTypeError("a variable cannot hold both %s and %s" % (a, b))


def _unify_optional(a, b):
    """None with a number is numba's Optional of the number (a value or None); Optionals unify by their numbers."""
    inner = [t.type if isinstance(t, types.Optional) else t for t in (a, b) if t is not types.none]
    value = unify(*inner) if len(inner) == 2 else inner[0]
    if not isinstance(value, types.Scalar):
        raise KernelTypeError(
            "a variable cannot hold both %s and %s: only numbers can be None on some paths in kernels" % (a, b)
        )
    return types.Optional(value)


def true_divide(a, b):
    t = promote(a, b)
    return types.float64 if is_int(t) else t


# numba-cuda's BinOpPower (and pow()) cases, in its order: the integer rules on its machine integers (int64 unless
# both are uint64), a float raised to an int32, int64 or uint64 (float32 ** int stays float32), then a ** a for the
# real and complex types
_MACHINE_INTS = (types.int64, types.uint64)
_POWER_CASES = (
    tuple(
        (types.uint64 if a == b == types.uint64 else types.int64, (a, b))
        for a in _MACHINE_INTS
        for b in _MACHINE_INTS
    )
    + tuple((f, (f, e)) for f in (types.float32, types.float64) for e in (types.int32, types.int64, types.uint64))
    + tuple((t, (t, t)) for t in (types.float32, types.float64, types.complex64, types.complex128))
)


def power_case(a, b, literal_exponent=False):
    """numba's case for a ** b: (result type, (base type, exponent type)), the types it computes in. Halves
    compute as float32 (numba-cuda has no half power). `literal_exponent`: b is an integer literal."""
    a, b = (types.float32 if t.name in _HALVES else t for t in (a, b))
    chosen = resolve_cases(_POWER_CASES, [a, b], (1,) if literal_exponent else ())
    if chosen is None:
        raise KernelTypeError("no ** for %s and %s" % (a, b))
    return chosen


def power(a, b, literal_exponent=False):
    """The type of a ** b (power_case's result)."""
    return power_case(a, b, literal_exponent)[0]


def floor_divide(a, b):
    """// and %: Python defines them for real numbers only."""
    t = promote(a, b)
    if is_complex(t):
        raise KernelTypeError("complex numbers have no // or %")
    return types.float32 if t.name in _HALVES else t  # numba-cuda computes half // and % in float32


def unary(op, t):
    """- + ~ not: numba's UnaryOp and BitwiseInvert templates. An integer operand gives a 64-bit integer of its
    signedness (choose_result_int), computed at the operand's own width before widening (operators.c_UnaryOp)."""
    if op == "not" or (op == "~" and t == types.boolean):  # ~ on a bool is `not`, as in numba
        return types.boolean
    if t == types.boolean:
        return types.int64  # numba's signature(intp, boolean)
    if not is_number(t) or (op == "~" and not is_int(t)):
        raise KernelTypeError("no unary operator %s for %s" % (op, t))
    if is_int(t):
        return types.int64 if t.kind == "i" else types.uint64
    return t


def bitwise(a, b):
    if a == types.boolean and b == types.boolean:
        return types.boolean
    a, b = as_arith(a), as_arith(b)
    if not (is_int(a) and is_int(b)):
        raise KernelTypeError("bitwise operators take integers, not %s and %s" % (a, b))
    return promote(a, b)


def shift(a, b):
    """<< and >>: the left operand's signedness decides (numba's integer shift templates)."""
    a, b = as_arith(a), as_arith(b)
    if not (is_int(a) and is_int(b)):
        raise KernelTypeError("shifts take integers, not %s and %s" % (a, b))
    return types.uint64 if a.kind == "u" else types.int64


def math_result(t):
    """math.sqrt(float32) is float32 (float16 too, as numba-cuda); ints and float64 compute as
    float64. Python's math takes no complex numbers (cmath does)."""
    if is_complex(t):
        raise KernelTypeError("math functions take real numbers; use cmath for %s" % t)
    return t if t in (types.float32, types.float16, types.bfloat16) else types.float64


def cmath_result(t):
    """cmath's functions take complex numbers; a real argument becomes complex64 where float32 would
    hold it, else complex128 (numba's conversions)."""
    if is_complex(t):
        return t
    if not is_real(t):
        raise KernelTypeError("cmath functions take numbers, not %s" % t)
    return types.complex64 if t.name in _FLOAT32_SAFE else types.complex128


def absolute(t):
    """abs(): a complex number's magnitude is its part's type; bool and integers as int64."""
    if is_complex(t):
        return t.underlying_float
    if is_float(t):
        return t
    if not is_number(t):
        raise KernelTypeError("abs() takes a number, not %s" % t)
    return types.int8 if t == types.boolean else t


# -- choosing among declared signatures ---------------------------------------------------------------------
# numba's conversion kinds between numbers (its typeconv rules), from best to worst: what passing one type where
# another is declared costs. A kernel or device function declared with several signatures takes the one whose
# conversions cost least (numba's rating: fewest unsafe, then safe, then promoting conversions).
EXACT, PROMOTE, SAFE, UNSAFE = 0, 1, 2, 3

_CAST_EDGES = (  # (from, to, kind from -> to, kind to -> from; None: no conversion that way)
    ("bool", "int8", SAFE, UNSAFE), ("bool", "uint8", SAFE, UNSAFE),
    ("int8", "int16", PROMOTE, UNSAFE), ("uint8", "uint16", PROMOTE, UNSAFE),
    ("int16", "int32", PROMOTE, UNSAFE), ("uint16", "uint32", PROMOTE, UNSAFE),
    ("int32", "int64", PROMOTE, UNSAFE), ("uint32", "uint64", PROMOTE, UNSAFE),
    ("uint8", "int16", SAFE, UNSAFE), ("uint16", "int32", SAFE, UNSAFE), ("uint32", "int64", SAFE, UNSAFE),
    ("int16", "float32", SAFE, UNSAFE), ("int32", "float64", SAFE, UNSAFE), ("int32", "float32", UNSAFE, UNSAFE),
    ("int64", "float64", SAFE, UNSAFE), ("uint64", "float64", SAFE, UNSAFE),
    ("float16", "float32", PROMOTE, UNSAFE), ("bfloat16", "float32", PROMOTE, UNSAFE),
    ("float32", "float64", PROMOTE, UNSAFE),
    ("float32", "complex64", SAFE, None), ("float64", "complex128", SAFE, None),
    ("complex64", "complex128", PROMOTE, UNSAFE),
)  # fmt: skip
_conversions = {}  # (from name, to name) -> kind: the best path, a path costing its worst step


def _conversion_table():
    if not _conversions:
        names = sorted({n for edge in _CAST_EDGES for n in edge[:2]})
        best = {(a, a): EXACT for a in names}
        for a, b, there, back in _CAST_EDGES:
            best[(a, b)] = min(best.get((a, b), UNSAFE + 1), there)
            if back is not None:
                best[(b, a)] = min(best.get((b, a), UNSAFE + 1), back)
        for k in names:  # Floyd-Warshall on (min over paths of the max over steps)
            for i in names:
                for j in names:
                    if (i, k) in best and (k, j) in best:
                        step = max(best[(i, k)], best[(k, j)])
                        if step < best.get((i, j), UNSAFE + 1):
                            best[(i, j)] = step
        _conversions.update(best)
    return _conversions


def conversion(have, want):
    """The kind of conversion from the number type `have` to `want` (EXACT ... UNSAFE), None where numba allows
    none (complex to real, anything that is not a number)."""
    if have == want:
        return EXACT
    if isinstance(want, types.Optional):  # a number or None where an Optional is declared: promoted
        kind = (
            PROMOTE
            if have is types.none
            else conversion(have.type if isinstance(have, types.Optional) else have, want.type)
        )
        return None if kind is None else max(kind, PROMOTE)
    if isinstance(have, types.Optional):  # its number, checked not to be None: at best safe, as numba rates it
        kind = conversion(have.type, want)
        return None if kind is None else max(kind, SAFE)
    if not (isinstance(have, types.Scalar) and isinstance(want, types.Scalar)):
        return None
    return _conversion_table().get((have.name, want.name))


def best_signatures(candidates, kinds_of):
    """The candidates (argument type tuples) of least conversion cost, in their order; kinds_of(candidate) gives
    each argument's conversion kind (None: the candidate does not take the arguments)."""
    rated = []
    for candidate in candidates:
        kinds = kinds_of(candidate)
        if kinds is not None and None not in kinds:
            rated.append(((kinds.count(UNSAFE), kinds.count(SAFE), kinds.count(PROMOTE)), candidate))
    if not rated:
        return []
    least = min(rating for rating, _ in rated)
    return [candidate for rating, candidate in rated if rating == least]


def is_int_literal(value):
    """Whether numba types this Value as an integer literal (its Literal[int]): an int constant typed int64."""
    return type(value.const) is int and value.type == types.int64


def resolve_cases(cases, argtypes, literals=()):
    """numba's choice among a ConcreteTemplate's cases ((return type, parameter types), in numba's order) for these
    argument types: the least costly conversions (fewest unsafe, then safe, then promoting), the first of equals;
    (return type, parameter types), or None where no case takes them. `literals`: the positions of integer
    literals (numba's Literal[int], an int64 that converts at best by promotion)."""

    def kinds_of(case):
        params = case[1]
        if len(params) != len(argtypes):
            return None
        kinds = [conversion(a, p) for a, p in zip(argtypes, params)]
        return [max(kind, PROMOTE) if k in literals and kind is not None else kind for k, kind in enumerate(kinds)]

    best = best_signatures(cases, kinds_of)
    return best[0] if best else None


# numba's range() cases: int32 bounds iterate as int32, int64 as int64, uint64 as uint64
_RANGE_CASES = tuple((t, (t,) * n) for t in (types.int32, types.int64, types.uint64) for n in (1, 2, 3))


def range_type(bounds):
    """The type a range() over these bounds (Values) iterates as, numba's choice among its cases: range(n) of an
    int32 n is int32, of a uint32 or uint64 one uint64, range(10) int64; None where no case takes them."""
    literals = [k for k, b in enumerate(bounds) if is_int_literal(b)]
    chosen = resolve_cases(_RANGE_CASES, [b.type for b in bounds], literals)
    return None if chosen is None else chosen[0]


def numba_text(t):
    """A type as numba's typing errors write it (its str): array(float32, 1d, A), class(float32), float32, ..."""
    if isinstance(t, types.Array):
        return "array(%s, %dd, %s)" % (numba_text(t.dtype), t.ndim, t.layout)
    return str(t)


def numba_repr(t):
    """A type as numba's messages write it: Array(float64, 1, 'C', False, aligned=True), float32, ..."""
    if isinstance(t, types.Array):
        return "Array(%s, %d, '%s', False, aligned=True)" % (numba_repr(t.dtype), t.ndim, t.layout)
    return str(t)
