"""Python's builtins in kernels, as numba types them: abs, min, max, round, int, float, bool, complex, divmod, pow,
len, isinstance and tuple (print, which reads its string arguments from the source, is translator code: intrinsics.py).

A typing rule returns a Value where the result is known when compiling (len of a tuple, isinstance, float("nan")):
the call is that literal."""

import builtins

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import Intrinsic
from numba_cuda_c.pyjit.values import Value, cast, literal, power_sign_clear, sign_clear

NAMES = (
    "abs",
    "min",
    "max",
    "round",
    "len",
    "int",
    "float",
    "bool",
    "complex",
    "tuple",
    "isinstance",
    "divmod",
    "pow",
)
_OBJECTS = {getattr(builtins, n): n for n in NAMES}


def path_for(function):
    """The library path of a builtin a kernel calls (("builtins", "abs"): lib.lookup finds its entry), or None."""
    try:
        name = _OBJECTS.get(function)
    except TypeError:  # unhashable
        return None
    return ("builtins", name) if name else None


def _is_instance(t, kind):
    """isinstance(value of type t, kind) in a kernel: our types (numba's map to them) by identity; Python's number
    classes and tuple by kind."""
    python = {builtins.bool: "b", builtins.int: "iu", builtins.float: "f", builtins.complex: "c"}
    if kind in python:
        return isinstance(t, types.Scalar) and t.kind in python[kind]
    if kind is builtins.tuple:
        return isinstance(t, types.Tuple)
    return t == kind


def _isinstance(args):
    kinds = [args[1].obj] if len(args) == 2 and args[1].items is None else [i.obj for i in args[1].items or ()]
    if len(args) != 2 or not kinds or any(k is None for k in kinds):
        raise TypeError("isinstance() in kernels takes a value and a type (or a tuple of types)")
    return literal(any(_is_instance(args[0].type, k) for k in kinds), types.boolean)


def _tuple(args):
    if len(args) != 1 or args[0].items is None:
        raise TypeError("tuple() in kernels takes a tuple")
    return args[0].type


def _complex(args):
    if not 1 <= len(args) <= 2 or not all(typing.is_number(a.type) for a in args):
        raise TypeError("complex() takes one or two numbers here")
    if len(args) == 2 and not all(typing.is_real(a.type) for a in args):
        raise TypeError("complex(real, imag) takes real numbers here")
    if all(a.type == types.float32 for a in args):  # numba's Complex: of float32s, a complex64
        return types.complex64
    return types.complex128


def _complex_code(args, t):
    if len(args) == 1:
        return cast(args[0], t)
    return "ncc_complex_of(%s, %s)" % tuple(cast(a, t.underlying_float) for a in args)


def _len(args):
    if len(args) == 1 and isinstance(args[0].type, types.RangeType):  # len(r) of a range object
        return types.int64
    if len(args) == 1 and args[0].items is not None:
        return literal(len(args[0].items), types.int64)
    if len(args) != 1 or not isinstance(args[0].type, types.Array):
        raise TypeError("len() takes an array")
    return types.int64


def _extremes(name):
    """min and max, of two or more numbers or of a tuple, typed by unification (numba's)."""

    def operands(args):
        return args[0].items if len(args) == 1 and args[0].items is not None else args

    def typing_rule(args):
        args = operands(args)
        if len(args) < 2:
            raise TypeError("%s() needs two or more values" % name)
        t = args[0].type
        for a in args[1:]:
            t = typing.unify(t, a.type)
        if not typing.is_real(t):
            raise TypeError("%s() compares real numbers, not %s" % (name, t))
        return _folded(getattr(builtins, name), args, t)

    def emit(codes, args, t):
        args = operands(args)
        if len(args) == 2 and all(a.type in (types.float32, types.float64) for a in args):
            # two floats: CUDA's fmax/fmin (the NaN-ignoring max.f32/max.f64), as numba lowers them
            return "%s(%s, %s)" % (
                "f" + name + ("f" if t == types.float32 else ""),
                cast(args[0], t),
                cast(args[1], t),
            )
        values = ", ".join(cast(a, t) for a in args)
        return "ncc_extremes<%s, %d>{{%s}}.%s()" % (t.ctype, len(args), values, name)

    # LLVM knows the sign of a select (or maxnum) of values whose signs it knows are clear
    Intrinsic(
        ("builtins", name), typing_rule, emit, sign_clear=lambda args: all(sign_clear(a) for a in operands(args))
    )


def _folded(function, args, t):
    """function's value on integer constants, as a literal of the integer type t (so that an array's shape may be
    max(N, 2) * 2); t itself where an argument is not such a constant or the value does not fit t."""
    consts = [a.const for a in args]
    if not typing.is_int(t) or not all(type(c) in (int, bool) for c in consts):
        return t
    value = int(function(*consts))
    low, high = (-(1 << (t.bits - 1)), 1 << (t.bits - 1)) if t.kind == "i" else (0, 1 << t.bits)
    return literal(value, t) if low <= value < high else t


def _one_number(name, args):
    if len(args) != 1:
        raise TypeError("%s() takes one value here" % name)
    if not typing.is_number(args[0].type):
        raise TypeError("%s() takes a number" % name)
    return args[0]


def _abs(args):
    if len(args) == 1 and isinstance(args[0].type, types.Scalar) and args[0].type.kind == "m":  # of a timedelta64
        return args[0].type
    return _folded(abs, args, typing.absolute(_one_number("abs", args).type))


def _abs_code(args, t):
    (a,) = args
    if a.type.kind == "m":
        return "ncc_dt_abs(%s)" % a.code
    if typing.is_complex(a.type):
        return "ncc_cabs(%s)" % a.code
    if a.type == types.float16 and t == types.float16:  # CUDA's own half abs (abs.f16), as numba's
        return "__habs(%s)" % a.code
    if a.type.to_float:
        return cast(Value("fabsf(%s)" % cast(a, types.float32), types.float32), t)
    if typing.is_float(a.type):
        return "%s(%s)" % ("fabsf" if a.type == types.float32 else "fabs", a.code)
    if t.kind == "u":
        return a.code
    return "ncc_abs<%s>(%s)" % (t.ctype, cast(a, t))


# round(): numba's Round cases, in its order (an integer rounds through float64, a bool through float32)
_ROUND_CASES = (
    (types.int64, (types.float32,)),
    (types.int64, (types.float64,)),
    (types.float32, (types.float32, types.int64)),
    (types.float64, (types.float64, types.int64)),
)


def _round_case(args):
    if not 1 <= len(args) <= 2 or not all(typing.is_real(a.type) for a in args):
        raise TypeError("round() takes a real number%s" % (" and an integer" if len(args) == 2 else ""))
    chosen = typing.resolve_cases(_ROUND_CASES, [a.type for a in args])
    if chosen is None:
        raise TypeError("round(x, ndigits) takes a real number and an integer")
    return chosen


def _round(args):
    return _round_case(args)[0]


def _round_code(args, t):
    params = _round_case(args)[1]
    if len(args) == 2:  # round(x, ndigits): in double precision, as numba (ncc_round_digits)
        return "ncc_round_digits(%s, %s)" % (cast(args[0], params[0]), cast(args[1], types.int64))
    return "llrint(%s)" % cast(args[0], types.float64)  # numba-cuda: libdevice's llrint of the double


def _float(args):
    if len(args) == 1 and isinstance(
        args[0].obj, str
    ):  # float("nan"), float("inf"): a constant, as numba folds them
        try:
            return literal(float(args[0].obj), types.float64)
        except ValueError:
            raise TypeError("float() of %r" % args[0].obj) from None
    _one_number("float", args)
    if args[0].type in (types.float16, types.float32, types.float64):
        return args[0].type  # numba's float() keeps a float's width (its real_domain); other numbers give float64
    return types.float64


def _int(args):
    a = _one_number("int", args)
    if isinstance(a.const, float) and a.const == a.const and abs(a.const) < 2.0**63:  # int(4.0): a constant
        return literal(int(a.const), types.int64)
    # numba's Int: an integer keeps its type (int(uint8) is uint8); a float or a bool gives int64
    return _folded(int, args, a.type if typing.is_int(a.type) else types.int64)


def _bool(args):
    _one_number("bool", args)
    return types.boolean


def _bool_code(args, t):
    (a,) = args
    return "ncc_nonzero(%s)" % a.code if typing.is_complex(a.type) else cast(a, types.boolean)


Intrinsic(("builtins", "isinstance"), _isinstance, None)
Intrinsic(
    ("builtins", "tuple"),
    _tuple,
    lambda codes, args, t, translator: [i.code for i in args[0].items],
    statements=True,
)
Intrinsic(("builtins", "complex"), _complex, lambda codes, args, t: _complex_code(args, t))


def _len_code(args):
    if isinstance(args[0].type, types.RangeType):  # the count of values from start to stop by step
        start, stop, step = (cast(item, types.int64) for item in args[0].items)
        return (
            "((%(step)s) > 0 ? ((%(stop)s) > (%(start)s) ? ((%(stop)s) - (%(start)s) - 1) / (%(step)s) + 1 : 0LL)"
            " : ((%(start)s) > (%(stop)s) ? ((%(start)s) - (%(stop)s) - 1) / -(%(step)s) + 1 : 0LL))"
        ) % {"start": start, "stop": stop, "step": step}
    return "%s.shape[0]" % args[0].code


Intrinsic(("builtins", "len"), _len, lambda codes, args, t: _len_code(args))
_extremes("min")
_extremes("max")
Intrinsic(("builtins", "abs"), _abs, lambda codes, args, t: _abs_code(args, t))
Intrinsic(("builtins", "round"), _round, lambda codes, args, t: _round_code(args, t))
Intrinsic(("builtins", "int"), _int, lambda codes, args, t: cast(args[0], t))
Intrinsic(("builtins", "float"), _float, lambda codes, args, t: cast(args[0], t))
Intrinsic(("builtins", "bool"), _bool, lambda codes, args, t: _bool_code(args, t))


# divmod(a, b): numba's DivMod cases (the machine integers and the floats, each with itself), its quotient and
# remainder as // and % compute them
_DIVMOD_CASES = tuple(
    (types.Tuple([t, t]), (t, t)) for t in (types.int64, types.uint64, types.float32, types.float64)
)


def _divmod(args):
    if len(args) != 2 or not all(typing.is_real(a.type) for a in args):
        raise TypeError("divmod() takes two real numbers")
    chosen = typing.resolve_cases(_DIVMOD_CASES, [a.type for a in args])
    if chosen is None:
        raise TypeError("divmod() takes no arguments (%s, %s)" % (args[0].type, args[1].type))
    return chosen[0]


def _divmod_code(codes, args, result, translator):
    t = result.items[0]
    operands = []
    for a in args:  # each evaluated once
        temp = translator.module.unique("d")
        translator.emit("%s %s = %s;" % (t.ctype, temp, cast(a, t)))
        known = float(a.const) if typing.is_float(t) and type(a.const) in (bool, int, float) else None
        operands.append(Value(temp, t, known))  # LLVM folds a float divmod of constants (binop_code)
        operands[-1].nonnegative = sign_clear(a)  # converted as numba converts (an unsigned one by uitofp)
    return [translator.binop_code(op, operands[0], operands[1], t) for op in ("//", "%")]


Intrinsic(("builtins", "divmod"), _divmod, _divmod_code, statements=True, llvm_constants=True)


def _pow(args):
    """pow(a, b): numba types it as a ** b."""
    if len(args) != 2 or not all(typing.is_number(a.type) for a in args):
        raise TypeError("pow() in kernels takes two numbers")
    return typing.power(args[0].type, args[1].type)


Intrinsic(
    ("builtins", "pow"),
    _pow,
    lambda codes, args, t, translator: translator.binop_code("**", args[0], args[1], t),
    statements=True,
    sign_clear=lambda args: power_sign_clear(args[1].const, typing.power(args[0].type, args[1].type)),
)
