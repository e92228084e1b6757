"""NumPy's ufuncs on numbers in kernels (np.floor(x), np.isnan(x), np.logaddexp(x, y), ...), as numba types and
computes them: each call takes the first of the ufunc's NumPy loops (ufunc.types) that its arguments convert to
safely (any integer to a float where the inputs mix integers and floats; half-precision loops skipped), as numba's
ufunc_find_matching_loop; the loop must be one numba's ufunc_db implements (numba.cuda.np.ufunc_db, the table
below), else numba's error. The arguments convert to the loop's input types, and the result has its output type:
np.add(int32, int32) is an int32, np.sqrt(int8) a float32, np.floor(int64) an int64 (NumPy 2.1's loop).

What each loop computes follows NumPy's loops (and numba's npyfuncs): integer division by zero gives 0, shifts
past the width give 0 (or -1), NaN propagates through maximum and is skipped by fmax, complex sign is z/|z| (NumPy
2). Arrays go element by element through the same code (intrinsics.py's ufunc_call writes the loop)."""

import math

import numpy as np

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.pymath import CMATH_FUNCTIONS
from numba_cuda_c.pyjit.lib.table import Requirement
from numba_cuda_c.pyjit.values import Value, cast, literal

_INTS = "bBhHiIlLqQ"


def _same(letters, nin, out=None):
    """Loops whose inputs are one letter each, their output that letter (or `out`)."""
    return ["%s->%s" % (c * nin, out or c) for c in letters]


_ARITH = _same("?" + _INTS + "fdFD", 2)
_COMPARE = _same("?" + _INTS + "fdFD", 2, "?")
# numba's ufunc_db (numba.cuda.np.ufunc_db): the loops it implements, for NumPy >= 2.0 (np.divide is true_divide)
LOOPS = {
    "negative": _same("?" + _INTS + "fdFD", 1),
    "positive": _same("?" + _INTS + "fdFD", 1),
    "absolute": _same("?" + _INTS + "fd", 1) + ["F->f", "D->d"],
    "sign": _same(_INTS + "fdFD", 1),
    "add": _ARITH,
    "subtract": _ARITH,
    "multiply": _ARITH,
    "true_divide": _same(_INTS, 2, "d") + _same("fdFD", 2),
    "floor_divide": _same(_INTS + "fd", 2),
    "remainder": _same(_INTS + "fd", 2),
    "divmod": ["%s%s->%s%s" % (c, c, c, c) for c in _INTS + "fd"],
    "fmod": _same(_INTS + "fd", 2),
    "logaddexp": _same("fd", 2),
    "logaddexp2": _same("fd", 2),
    "power": _same(_INTS + "fdFD", 2),
    "float_power": _same("fdFD", 2),
    "gcd": _same(_INTS, 2),
    "lcm": _same(_INTS, 2),
    "rint": _same("fdFD", 1),
    "conjugate": _same(_INTS + "fdFD", 1),
    "square": _same(_INTS + "fdFD", 1),
    "reciprocal": _same(_INTS + "fdFD", 1),
    "cbrt": _same("fd", 1),
    "arctan2": _same("fd", 2),
    "hypot": _same("fd", 2),
    "fabs": _same("fd", 1),
    "logical_not": _same("?" + _INTS + "fdFD", 1, "?"),
    "maximum": _ARITH,
    "minimum": _ARITH,
    "fmax": _ARITH,
    "fmin": _ARITH,
    "isnan": _same("?" + _INTS + "fdFD", 1, "?"),
    "isinf": _same("?" + _INTS + "fdFD", 1, "?"),
    "isfinite": _same("?" + _INTS + "fdFD", 1, "?"),
    "signbit": _same("fd", 1, "?"),
    "copysign": _same("fd", 2),
    "nextafter": _same("fd", 2),
    "spacing": _same("fd", 1),
    "ldexp": ["fi->f", "fl->f", "di->d", "dl->d"],
    "invert": _same("?" + _INTS, 1),
    "left_shift": _same(_INTS, 2),
    "right_shift": _same(_INTS, 2),
}
for _name in ("exp", "exp2", "log", "log2", "log10", "expm1", "log1p", "sqrt", "sin", "cos", "tan", "arcsin",
              "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"):  # fmt: skip
    LOOPS[_name] = _same("fdFD", 1)
for _name in ("deg2rad", "radians", "rad2deg", "degrees"):
    LOOPS[_name] = _same("fd", 1)
for _name in ("floor", "ceil", "trunc"):  # integers are their own floor from NumPy 2.1 on (numba's loops too)
    LOOPS[_name] = _same("fd", 1) + (
        _same("?" + _INTS, 1) if np.lib.NumpyVersion(np.__version__) >= "2.1.0" else []
    )
for _name in ("greater", "greater_equal", "less", "less_equal", "not_equal", "equal"):
    LOOPS[_name] = _COMPARE + ["qQ->?", "Qq->?"]
for _name in ("logical_and", "logical_or", "logical_xor"):
    LOOPS[_name] = _COMPARE
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    LOOPS[_name] = _same("?" + _INTS, 2)
SUPPORTED = {name: frozenset(loops) for name, loops in LOOPS.items()}
ALIASES = {"divide": "true_divide", "mod": "remainder", "abs": "absolute", "bitwise_not": "invert",
           "conj": "conjugate", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift", "acos": "arccos", "asin": "arcsin", "atan": "arctan",
           "acosh": "arccosh", "asinh": "arcsinh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power"}  # fmt: skip

Requirement(
    "npufuncs",
    r"""// --- NumPy's ufuncs on numbers (pyjit/lib/npufuncs.py) ---------------------------------------------------
// np.remainder and np.floor_divide of floats as numba-cuda computes them (its np_real_mod_impl: LLVM's frem, then
// the divisor added where the remainder's sign is not the divisor's, else 0.0; np_real_floor_div_impl: the floor
// of the quotient). Not Python's % and //: np.remainder(x, inf) is NaN there, as NVVM's frem gives
template <typename T> __device__ __forceinline__ T ncc_np_fremainder(T a, T b) {
    T r = ncc_frem(a, b);
    return r + ((r < 0 || r > 0) && ((b < 0) != (r < 0)) ? b : (T)0);
}
template <typename T> __device__ __forceinline__ T ncc_np_ffloordiv(T a, T b) { return floor(a / b); }
template <typename T> __device__ __forceinline__ T ncc_np_gcd(T a, T b) {
    a = a < 0 ? (T)-a : a;
    b = b < 0 ? (T)-b : b;
    while (b != 0) { T t = a % b; a = b; b = t; }
    return a;
}
template <typename T> __device__ __forceinline__ T ncc_np_lcm(T a, T b) {
    T g = ncc_np_gcd(a, b);
    if (g == 0) return 0;
    T r = (T)(a / g * b);
    return r < 0 ? (T)-r : r;
}
// a << b and a >> b as NumPy's: a count past the width gives 0 (-1 for a negative a shifted right)
template <typename T> __device__ __forceinline__ T ncc_np_lshift(T a, T b) {
    return (b >= 0 && (unsigned long long)b < sizeof(T) * 8) ? (T)((unsigned long long)a << b) : (T)0;
}
template <typename T> __device__ __forceinline__ T ncc_np_rshift(T a, T b) {
    return (b >= 0 && (unsigned long long)b < sizeof(T) * 8) ? (T)(a >> b) : (T)(a < 0 ? -1 : 0);
}
// integer // and % as NumPy's (and numba's npyfuncs): 0 where the divisor is 0, and for MIN // -1
template <typename T> __device__ __forceinline__ T ncc_np_floordiv(T a, T b) {
    if (b == 0 || (b == (T)-1 && a < (T)0 && (T)(0ULL - (unsigned long long)a) == a)) return 0;
    return ncc_floordiv(a, b);
}
template <typename T> __device__ __forceinline__ T ncc_np_fmod(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }
template <typename T> __device__ __forceinline__ T ncc_np_logaddexp(T x, T y) {
    if (x == y) return x + (T)0.693147180559945309417232121458176568;  // infinities of one sign, equal values
    T d = x - y;
    if (d > 0) return x + log1p(exp(-d));
    if (d <= 0) return y + log1p(exp(d));
    return d;  // a NaN
}
template <typename T> __device__ __forceinline__ T ncc_np_logaddexp2(T x, T y) {
    const T log2e = (T)1.442695040888963407359924681001892137;
    if (x == y) return x + (T)1;
    T d = x - y;
    if (d > 0) return x + log1p(exp2(-d)) * log2e;
    if (d <= 0) return y + log1p(exp2(d)) * log2e;
    return d;
}
// the distance from x to the next number of larger magnitude (NaN for NaN and the infinities)
template <typename T> __device__ __forceinline__ T ncc_np_spacing(T x) {
    if (isnan(x) || isinf(x)) return x - x;
    return nextafter(x, signbit(x) ? -(T)NCC_INFINITY : (T)NCC_INFINITY) - x;
}
template <typename T> __device__ __forceinline__ T ncc_np_sign(T x) {
    return x > 0 ? (T)1 : (x < 0 ? (T)-1 : (x == 0 ? (T)0 : x));
}
""",
)


def _dtype(t):
    """The NumPy dtype a kernel value's type matches loops as (bfloat16 as half precision: both are skipped)."""
    return np.dtype("e") if t == types.bfloat16 else t.dtype


def loop_types(name, ufunc, argtypes):
    """(the loop's input types, its output types) of ufunc on arguments of these scalar types: the first loop of
    ufunc.types they convert to safely, which numba's table must hold. TypeError in numba's words otherwise."""
    name = ALIASES.get(name, name)  # np.true_divide is named divide
    for t in argtypes:
        if not typing.is_number(t):
            raise TypeError("can't resolve ufunc %s for types (%s)" % (name, ", ".join(map(str, argtypes))))
    inputs = [_dtype(t) for t in argtypes]
    mixed = any(d.kind in "iu" for d in inputs) and any(d.kind in "cf" for d in inputs)
    for loop in ufunc.types:
        letters_in, letters_out = loop[: ufunc.nin], loop[ufunc.nin + 2 :]
        if "e" in letters_in or "O" in letters_in:
            continue
        if any(c in "mMgGS" for c in letters_in + letters_out):
            continue
        if all(_can_cast(d, np.dtype(c), mixed) for d, c in zip(inputs, letters_in)):
            break
    else:
        raise TypeError("can't resolve ufunc %s for types (%s)" % (name, ", ".join(map(str, argtypes))))
    if loop not in SUPPORTED.get(name, ()):
        raise TypeError("ufunc '%s' using the loop '%s' not supported in this mode" % (name, loop))
    as_types = [types.from_dtype(np.dtype(c)) for c in letters_in]
    return as_types, [types.from_dtype(np.dtype(c)) for c in letters_out]


def _can_cast(have, want, mixed):
    if mixed and have.kind in "iu" and want.kind in "cf":  # numba: np.power(float32, int32) stays float32
        return True
    return np.can_cast(have, want, "safe")


def _f(function, t):
    """CUDA's math function for float type t (sinf for float32)."""
    return function + ("f" if t == types.float32 else "")


def element(translator, name, ufunc, args, node):
    """One element of ufunc `name` on Values of numbers: the loop's Value (a tuple's items for divmod)."""
    name = ALIASES.get(name, name)
    if name not in SUPPORTED:
        translator.fail(node, "NumPy's %s is not supported in kernels" % name)
    try:
        ins, outs = loop_types(name, ufunc, [a.type for a in args])
    except TypeError as exc:
        translator.fail(node, str(exc))
    xs = [Value(cast(a, t), t) for a, t in zip(args, ins)]
    t, out = ins[0], outs[0]
    if name == "divmod":
        return Value(type=types.Tuple(outs), items=[_value(translator, n, xs, t, t, node) for n in ("fd", "rm")])
    return _value(translator, name, xs, t, out, node)


def _value(translator, name, xs, t, out, node):
    code = _code(translator, name, xs, t, out, node)
    return code if isinstance(code, Value) else Value(code, out)


def _code(translator, name, xs, t, out, node):  # noqa: C901 (one case per ufunc, as NumPy's loops)
    x = xs[0]
    a = x.code
    b = xs[1].code if len(xs) > 1 else None
    complex_ = typing.is_complex(t)
    integer = typing.is_int(t) or t == types.boolean
    translator.module.require("npufuncs")
    if name in ("add", "subtract", "multiply"):
        op = {"add": "+", "subtract": "-", "multiply": "*"}[name]
        if t == types.boolean:
            return "(%s %s %s)" % (a, "||" if op == "+" else "&&", b)
        if integer:  # wraps in the loop's type, as NumPy's
            return "((%s)((unsigned long long)%s %s (unsigned long long)%s))" % (t.ctype, a, op, b)
        return "(%s %s %s)" % (a, op, b)
    if name == "true_divide":
        if integer:
            return "((double)%s / (double)%s)" % (a, b)
        return "(%s / %s)" % (a, b)
    if name in ("floor_divide", "fd"):
        if integer:
            return "ncc_np_floordiv<%s>(%s, %s)" % (t.ctype, a, b)
        return "ncc_np_ffloordiv<%s>(%s, %s)" % (t.ctype, a, b)
    if name in ("remainder", "rm"):
        if integer:
            return "ncc_mod<%s>(%s, %s)" % (t.ctype, a, b)
        return "ncc_np_fremainder<%s>(%s, %s)" % (t.ctype, a, b)
    if name == "fmod":
        return "ncc_np_fmod<%s>(%s, %s)" % (t.ctype, a, b) if integer else "%s(%s, %s)" % (_f("fmod", t), a, b)
    if name in ("power", "float_power"):
        if complex_:
            return "ncc_cpow(ncc_cpair<%s>{%s, %s})" % (t.underlying_float.ctype, a, b)
        if integer:
            return "ncc_ipow<%s, %s>(%s, %s)" % (t.ctype, t.ctype, a, b)
        return "%s(%s, %s)" % (_f("pow", t), a, b)
    if name in ("logaddexp", "logaddexp2", "gcd", "lcm"):
        return "ncc_np_%s<%s>(%s, %s)" % (name, t.ctype, a, b)
    if name in ("left_shift", "right_shift"):
        return "ncc_np_%sshift<%s>(%s, %s)" % ("l" if name == "left_shift" else "r", t.ctype, a, b)
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        op = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[name]
        if t == types.boolean:
            return "((bool)(%s %s %s))" % (a, op, b)
        return "((%s)(%s %s %s))" % (t.ctype, a, op, b)
    if name == "invert":
        return "(!%s)" % a if t == types.boolean else "((%s)~%s)" % (t.ctype, a)
    if name in ("arctan2", "hypot", "copysign", "nextafter"):
        return "%s(%s, %s)" % (_f({"arctan2": "atan2"}.get(name, name), t), a, b)
    if name == "ldexp":  # the exponent clamped into an int: past it, the result is 0 or infinite anyway
        return "%s(%s, (int)max(min((long long)%s, 100000LL), -100000LL))" % (_f("ldexp", t), a, b)
    if name in ("greater", "greater_equal", "less", "less_equal", "not_equal", "equal"):
        return _comparison(name, xs)
    if name.startswith("logical_"):
        truths = [translator.truth(v, node) for v in xs]
        return {
            "logical_and": "(%s && %s)",
            "logical_or": "(%s || %s)",
            "logical_xor": "(!(%s) != !(%s))",
            "logical_not": "(!%s)",
        }[name] % tuple(truths)
    if name in ("maximum", "minimum", "fmax", "fmin"):
        return _extreme(name, t, a, b)
    if name in ("isnan", "isinf", "isfinite"):
        if integer:
            return literal(name == "isfinite", types.boolean)
        if complex_:
            return "ncc_c%s(%s)" % (name, a)
        return "((bool)%s(%s))" % (name, a)
    if name == "signbit":
        return "((bool)signbit(%s))" % a
    if name == "spacing":
        return "ncc_np_spacing<%s>(%s)" % (t.ctype, a)
    if name in ("negative", "positive"):
        if t == types.boolean or name == "positive":
            return x
        return "((%s)(0ULL - (unsigned long long)%s))" % (t.ctype, a) if integer else "(-%s)" % a
    if name == "absolute":
        if complex_:
            return "ncc_cabs(%s)" % a
        if integer:
            return x if t.kind in "ub" else "((%s)ncc_abs<long long>(%s))" % (t.ctype, a)
        return "%s(%s)" % (_f("fabs", t), a)
    if name == "fabs":
        return "%s(%s)" % (_f("fabs", t), a)
    if name == "sign":
        if complex_:  # NumPy 2: z / |z|, 0 at 0
            return "(ncc_cabs(%s) == 0 ? %s : %s / ncc_complex_of(ncc_cabs(%s), (%s)0))" % (
                a, literal(0j, t).code, a, a, t.underlying_float.ctype,
            )  # fmt: skip
        return "ncc_np_sign<%s>(%s)" % (t.ctype, a)
    if name == "conjugate":
        return "ncc_conj(%s)" % a if complex_ else x
    if name == "square":
        if integer:
            return "((%s)((unsigned long long)%s * (unsigned long long)%s))" % (t.ctype, a, a)
        return "(%s * %s)" % (a, a)
    if name == "reciprocal":
        if complex_:
            return "(ncc_complex_of<%s>(1, 0) / %s)" % (t.underlying_float.ctype, a)
        if integer:  # through a double, as NumPy's (and numba's) integer reciprocal; of 0, 0 as NumPy's
            return "(%s == 0 ? (%s)0 : (%s)(1.0 / (double)%s))" % (a, t.ctype, t.ctype, a)
        return "(%s / %s)" % (literal(1, t).code, a)
    if name in ("floor", "ceil", "trunc", "rint"):
        if integer:
            return x
        if complex_:  # rint: each part
            part = t.underlying_float
            return "ncc_complex_of(%s((%s).re), %s((%s).im))" % (_f("rint", part), a, _f("rint", part), a)
        return "%s(%s)" % (_f(name, t), a)
    if name in ("deg2rad", "radians", "rad2deg", "degrees"):
        factor = math.pi / 180 if name in ("deg2rad", "radians") else 180 / math.pi
        return "(%s * %s)" % (a, literal(factor, t).code)
    return _math(name, t, a)


def _math(name, t, a):
    """The functions of one number: CUDA's for real ones; the prelude's complex functions (cmath's)."""
    math_name = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
                 "arctanh": "atanh"}.get(name, name)  # fmt: skip
    if not typing.is_complex(t):
        return "%s(%s)" % (_f(math_name, t), a)
    if math_name in CMATH_FUNCTIONS:
        return "%s(%s)" % (CMATH_FUNCTIONS[math_name], a)
    one = "ncc_complex_of<%s>(1, 0)" % t.underlying_float.ctype
    if name == "log2":
        return "ncc_clog2(%s)" % a
    if name == "exp2":  # 2**z = exp(z ln 2)
        ln2 = literal(complex(math.log(2), 0), t).code
        return "ncc_cexp(%s * %s)" % (a, ln2)
    if name == "expm1":
        return "(ncc_cexp(%s) - %s)" % (a, one)
    if name == "log1p":
        return "ncc_clog(%s + %s)" % (a, one)
    raise AssertionError("ufunc %s on complex numbers" % name)


def _comparison(name, xs):
    op = {"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "not_equal": "!=", "equal": "=="}[
        name
    ]
    a, b = xs
    if typing.is_complex(a.type) and op not in ("==", "!="):  # NumPy's order: the real parts first
        first, second = (a.code, b.code) if op.startswith("<") else (b.code, a.code)
        return "%s(%s, %s)" % ("ncc_clt" if len(op) == 1 else "ncc_cle", first, second)
    if a.type.kind != b.type.kind and typing.is_int(a.type) and typing.is_int(b.type):  # int64 with uint64: exact
        signed, unsigned = (a, b) if a.type.kind == "i" else (b, a)
        negative_result = {"<": "true", "<=": "true", ">": "false", ">=": "false", "==": "false", "!=": "true"}
        if signed is b:  # b < 0: a (unsigned) is larger
            negative_result = {k: {"true": "false", "false": "true"}[v] if k not in ("==", "!=") else v
                               for k, v in negative_result.items()}  # fmt: skip
        return "(%s < 0 ? %s : ((unsigned long long)%s %s (unsigned long long)%s))" % (
            signed.code, negative_result[op], a.code, op, b.code,
        )  # fmt: skip
    return "(%s %s %s)" % (a.code, op, b.code)


def _extreme(name, t, a, b):
    """maximum/minimum (a NaN wins) and fmax/fmin (a NaN loses), NumPy's."""
    if typing.is_complex(t):
        return "ncc_c%s(%s, %s)" % (name, a, b)
    pick = "((%s) %s (%s) ? (%s) : (%s))" % (a, "<" if name in ("minimum", "fmin") else ">", b, a, b)
    if typing.is_float(t) and name in ("minimum", "maximum"):
        return "((%s) != (%s) ? (%s) : ((%s) != (%s) ? (%s) : %s))" % (a, a, a, b, b, b, pick)
    if typing.is_float(t):
        return "((%s) != (%s) ? (%s) : ((%s) != (%s) ? (%s) : %s))" % (a, a, b, b, b, a, pick)
    return pick
