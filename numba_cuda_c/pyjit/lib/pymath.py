"""Python's math and cmath functions in kernels, as numba types them: math takes real numbers, typed by numba-cuda's
signatures (MATH_CASES: int64 and uint64 compute in float64, a float keeps its width, float16 where numba-cuda has
a half version, computed in float32 and rounded back), floor/ceil/trunc give a float (numba-cuda's, not CPython's
int), isnan/isinf/isfinite a bool, frexp and modf a tuple; cmath takes numbers and computes in complex.

Entries are found by the function a kernel calls (math.sin, or sin imported from math): `path_for`."""

import cmath
import math

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement
from numba_cuda_c.pyjit.values import Value, cast, literal

# math's functions -> CUDA's (a float32 argument calls the f-suffixed one)
MATH_FUNCTIONS = {
    "sqrt": "sqrt",
    "exp": "exp",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "log1p": "log1p",
    "expm1": "expm1",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "asinh": "asinh",
    "acosh": "acosh",
    "atanh": "atanh",
    "fabs": "fabs",
    "erf": "erf",
    "erfc": "erfc",
    "gamma": "tgamma",
    "lgamma": "lgamma",
    "atan2": "atan2",
    "pow": "pow",
    "hypot": "hypot",
    "copysign": "copysign",
    "fmod": "fmod",
    "remainder": "remainder",
    "exp2": "exp2",
    "cbrt": "cbrt",
    "nextafter": "nextafter",
}
MATH_BINARY = ("atan2", "pow", "hypot", "copysign", "fmod", "remainder", "ldexp", "nextafter")
CMATH_FUNCTIONS = {
    name: "ncc_c" + name
    for name in (
        "exp",
        "log",
        "log10",
        "sqrt",
        "sin",
        "cos",
        "tan",
        "sinh",
        "cosh",
        "tanh",
        "asin",
        "acos",
        "atan",
        "asinh",
        "acosh",
        "atanh",
    )
}
# floor/ceil/trunc give a float of the argument's width, as numba-cuda's (CPython's numba gives an int)
MATH_ROUNDING = {"floor": "floor", "ceil": "ceil", "trunc": "trunc"}
MATH_PREDICATES = {"isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite"}
MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}


OTHER_MATH = ("degrees", "radians", "frexp", "modf", "ldexp")

# numba-cuda's signatures of math's functions (its cudamath.py templates), in its order: a call takes the case
# whose conversions cost least (typing.resolve_cases). An int64 or uint64 argument computes in float64.
_I64, _U64, _I32 = types.int64, types.uint64, types.int32
_F16, _F32, _F64 = types.float16, types.float32, types.float64
_UNARY = ((_F64, (_I64,)), (_F64, (_U64,)), (_F32, (_F32,)), (_F64, (_F64,)))
_UNARY_FP16 = _UNARY + ((_F16, (_F16,)),)
_BINARY_INT = ((_F64, (_I64, _I64)), (_F64, (_U64, _U64)), (_F32, (_F32, _F32)), (_F64, (_F64, _F64)))
_BINARY = ((_F32, (_F32, _F32)), (_F64, (_F64, _F64)))
MATH_CASES = {
    **dict.fromkeys(
        ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "degrees", "erf", "erfc", "expm1", "gamma",
         "lgamma", "log1p", "radians", "sinh", "tan"),
        _UNARY,
    ),
    **dict.fromkeys(  # numba-cuda's fp16.py overloads these for a half (htanh: tanhf rounded to a half)
        ("sin", "cos", "ceil", "floor", "sqrt", "log", "log2", "log10", "exp", "fabs", "trunc", "exp2", "cbrt",
         "tanh"),
        _UNARY_FP16,
    ),
    **dict.fromkeys(("atan2", "hypot"), _BINARY_INT),
    **dict.fromkeys(("copysign", "fmod", "nextafter", "remainder"), _BINARY),
    "pow": _BINARY + ((_F32, (_F32, _I32)), (_F64, (_F64, _I32))),
    "ldexp": ((_F32, (_F32, _I32)), (_F64, (_F64, _I32))),
    "frexp": ((types.Tuple([_F32, _I32]), (_F32,)), (types.Tuple([_F64, _I32]), (_F64,))),
    "modf": ((types.Tuple([_F64, _F64]), (_F64,)), (types.Tuple([_F32, _F32]), (_F32,))),
    **dict.fromkeys(("isnan", "isinf", "isfinite"), tuple((types.boolean, p) for _r, p in _UNARY)),
}  # fmt: skip


def path_for(function):
    """The library path of a math or cmath function object (("math", "sin"): lib.lookup finds its entry, if kernels
    can call it), or None."""
    name = getattr(function, "__name__", None)
    if not isinstance(name, str):
        return None
    if getattr(math, name, None) is function:
        return ("math", name)
    if getattr(cmath, name, None) is function:
        return ("cmath", name)
    return None


def _count(args, counts):
    if len(args) not in counts:
        raise TypeError("wrong number of arguments")


def math_types(name, args, label="math"):
    """(result type, the parameter types of numba-cuda's case for these arguments, the float type computed in) of
    math.name(*args)."""
    for a in args:
        if not typing.is_real(a.type):
            raise TypeError(
                "%s.%s takes real numbers%s"
                % (label, name, "; cmath takes complex ones" if typing.is_number(a.type) else "")
            )
    if name not in MATH_CASES:
        raise TypeError("%s.%s is not supported in kernels" % (label, name))
    chosen = typing.resolve_cases(MATH_CASES[name], [a.type for a in args])
    if chosen is None:
        raise TypeError(
            "%s.%s takes no arguments (%s)" % (label, name, ", ".join(str(typing.as_arith(a.type)) for a in args))
        )
    result, params = chosen
    work = types.float32 if params[0] in (_F16, _F32) else types.float64  # a half: computed in float32
    return result, params, work


def math_code(name, args, result, params, work, translator):
    """The C of math.name(*args) (frexp and modf: the items' C, after statements)."""
    suffix = "f" if work == types.float32 else ""
    if name == "ldexp":
        code = "ldexp%s(%s, %s)" % (suffix, cast(args[0], work), cast(args[1], types.int32))
        return cast(Value(code, work), result)
    if name == "pow" and params[1] == _I32:  # numba-cuda's libdevice powi
        code = "__nv_powi%s(%s, %s)" % (suffix, cast(args[0], work), cast(args[1], types.int32))
        return cast(Value(code, work), result)
    # each argument as its parameter's type, then as the float computed in (int64 -> float64, as numba's sitofp)
    codes = ", ".join(cast(Value(cast(a, p), p), work) for a, p in zip(args, params))
    if name in ("frexp", "modf"):
        out, first = translator.module.unique("m"), translator.module.unique("m")
        translator.emit("%s %s;" % (result.items[1].ctype, out))
        translator.emit("%s %s = %s%s(%s, &%s);" % (work.ctype, first, name, suffix, codes, out))
        return [first, out]
    if name in MATH_PREDICATES:
        if typing.is_int(params[0]):
            return literal(name == "isfinite", types.boolean).code
        return "((bool)%s(%s))" % (MATH_PREDICATES[name], codes)
    if name in ("degrees", "radians"):
        factor = 180.0 / math.pi if name == "degrees" else math.pi / 180.0
        code = "(%s * %r%s)" % (codes, factor, suffix)
    else:
        # a half's function is cuda_fp16's, which has no fast version
        fast = translator.module.fastmath and params[0] != _F16
        code = "%s(%s)" % (_libdevice_call(name, suffix, translator, fast), codes)
    return cast(Value(code, work), result)


# numba-cuda's fastmath=True calls these libdevice functions for float32 (its unarys_fastmath, binarys_fastmath)
_FAST_FLOAT32 = ("cos", "sin", "tan", "exp", "log2", "log10", "log", "pow")


# numba-cuda's fastmath tanh of a float32: PTX's tanh.approx.f32 from compute capability 7.5, libdevice's below
Requirement(
    "fast_tanhf",
    'extern "C" __device__ float __nv_tanhf(float);\n'
    "__device__ __forceinline__ float ncc_fast_tanhf(float x) {\n"
    "#if __CUDA_ARCH__ >= 750\n"
    '    float r;\n    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));\n    return r;\n'
    "#else\n    return __nv_tanhf(x);\n#endif\n}\n",
)


def _libdevice_call(name, suffix, translator, fast):
    """The libdevice function numba-cuda calls for math.name: called by its __nv_ name, not CUDA's wrapper, so that
    NVRTC cannot fold a constant argument with the host's libm (numba's NVVM folds libdevice's own code)."""
    base = (MATH_FUNCTIONS.get(name) or MATH_ROUNDING[name]) + suffix
    if suffix and name == "tanh" and fast:
        translator.module.require("fast_tanhf")
        return "ncc_fast_tanhf"
    if suffix and name in _FAST_FLOAT32 and fast:
        base = "fast_" + base
    translator.module.require("libdevice." + base)
    return "__nv_" + base


def _math(name):
    counts = (2,) if name in MATH_BINARY else (1,)

    def typing_rule(args):
        _count(args, counts)
        return math_types(name, args)[0]

    def emit(codes, args, result, translator):
        _result, params, work = math_types(name, args)
        return math_code(name, args, result, params, work, translator)

    requires = ("libdevice.powi", "libdevice.powif") if name == "pow" else ()
    Intrinsic(("math", name), typing_rule, emit, requires=requires, statements=True)


for _name in (*MATH_FUNCTIONS, *MATH_ROUNDING, *MATH_PREDICATES, *OTHER_MATH):
    _math(_name)


# numba-cuda implements these in Python (its @overloads) with float64 constants: a complex64 argument gives complex128
# (computed from the complex64, complex_prelude's ncc_c<name>_wide)
_CMATH_IN_DOUBLE = ("tanh", "acosh", "log10")


def _cmath_types(name, args):
    """(result type, the complex type of the argument the function takes) of cmath.name(*args)."""
    _count(args, (1, 2) if name in ("log", "rect") else (1,))
    for a in args:
        if not typing.is_number(a.type):
            raise TypeError("cmath.%s takes numbers" % name)
    if name == "rect":
        if len(args) != 2 or not all(typing.is_real(a.type) for a in args):
            raise TypeError("cmath.rect(r, phi) takes two real numbers")
        part = typing.math_result(typing.promote(args[0].type, args[1].type))
        part = types.float64 if part.to_float else part
        t = types.complex64 if part == types.float32 else types.complex128
        return t, part
    t = typing.cmath_result(args[0].type)
    if name == "log" and len(args) == 2:  # log(z, base): both converted to the common complex type first
        both = typing.promote(t, args[1].type)
        return both, both
    if name in _CMATH_IN_DOUBLE:
        return types.complex128, t
    if name in CMATH_FUNCTIONS:
        return t, t
    if name in ("isnan", "isinf", "isfinite"):
        return types.boolean, t
    if name == "phase":
        return t.underlying_float, t
    if name == "polar":
        return types.Tuple([t.underlying_float, t.underlying_float]), t
    raise TypeError("cmath.%s is not supported in kernels" % name)


def _cmath(name):
    def typing_rule(args):
        return _cmath_types(name, args)[0]

    def emit(codes, args, result, translator):
        work = _cmath_types(name, args)[1]
        if name == "rect":  # cos and sin in phi's float type, the products in the wider one (numba's overload)
            wide = result.underlying_float
            r, phi = (cast(a, a.type if a.type in (types.float32, types.float64) else wide) for a in args)
            return "ncc_rect<%s>(%s, %s)" % (wide.ctype, r, phi)
        if name == "log" and len(args) == 2:  # Python's division: by a zero log(base), ZeroDivisionError
            base = translator.checked_divisor("ncc_clog(%s)" % cast(args[1], work), work)
            return "ncc_cdiv(ncc_clog(%s), %s)" % (cast(args[0], work), base)
        code = cast(args[0], work)
        if name in ("isnan", "isinf", "isfinite"):
            return "ncc_c%s(%s)" % (name, code)
        if name == "phase":
            return "ncc_phase(%s)" % code
        if name == "polar":  # z evaluated once
            temp = translator.module.unique("z")
            translator.emit("%s %s = %s;" % (work.ctype, temp, code))
            return ["ncc_cabs(%s)" % temp, "ncc_phase(%s)" % temp]
        return "%s%s(%s)" % (CMATH_FUNCTIONS[name], "_wide" if name in _CMATH_IN_DOUBLE else "", code)

    Intrinsic(("cmath", name), typing_rule, emit, statements=True)


for _name in (*CMATH_FUNCTIONS, "isnan", "isinf", "isfinite", "phase", "polar", "rect"):
    _cmath(_name)
