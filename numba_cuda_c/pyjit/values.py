"""What the translator works with: a translated expression (Value) and a typing rule's annotation (typed), names in
the cuda namespace, and constants and casts in CUDA C."""

import math

from numba_cuda_c import types
from numba_cuda_c.pyjit import datetime_units, typing
from numba_cuda_c.pyjit.typing import KernelTypeError


class Value:
    """A translated expression: C code and a type; or a compile-time Python object (a module,
    a namespace such as cuda.threadIdx, a function, a dtype); or a tuple of Values.

    The typing pass makes Values without C (code TYPED) as the annotations of the typed tree
    (typedtree.py); `how` is what the expression's C rule needs from its typing rule (the resolved
    call target, the operator's form, the variable a name reads)."""

    nonnegative = False  # known to numba's LLVM to have its sign bit clear (operators.sign_clear)

    def __init__(self, code=None, type=None, const=None, obj=None, items=None, how=None):
        self.code, self.type, self.const, self.obj, self.items = code, type, const, obj, items
        self.how = how

    def annotated(self, how):
        """This value as an annotation whose C rule is told `how` (a tuple's item, a rewritten call's expression)."""
        return Value(self.code, self.type, self.const, self.obj, self.items, how=how)


# The code of a typed Value: a typing rule knows the expression's type, not its C (which its C rule writes)
TYPED = "/* typed */"


def typed(type_, const=None, how=None):
    """A typing rule's result: a value of this type, no C yet."""
    return Value(TYPED, type_, const=const, how=how)


def as_annotation(value, how):
    """A value a typing rule resolved (a constant, a global): its annotation, saying how it was found."""
    if value.items is not None:
        return Value(type=value.type, items=value.items, const=value.const, how=how)
    if value.code is None:  # a compile-time object
        return value
    return Value(TYPED, value.type, const=value.const, obj=value.obj, how=how)


class BoundMethod:
    """A number's method, looked up and not called yet (z.conjugate)."""

    def __init__(self, name, value):
        self.name, self.value = name, value


class Namespace:
    """A dotted name inside the cuda module (cuda.threadIdx, cuda.atomic, ...)."""

    def __init__(self, path):
        self.path = path

    def child(self, name):
        return Namespace(self.path + (name,))


def literal(value, type_):
    if type_ == types.boolean:
        return Value("true" if value else "false", type_, const=bool(value))
    if typing.is_complex(type_):
        part = type_.underlying_float
        re, im = literal(value.real, part).code, literal(value.imag, part).code
        return Value("%s{%s, %s}" % (type_.ctype, re, im), type_, const=complex(value))
    if type_.from_widened:  # a storage-only float: made from the double literal
        return Value(type_.from_widened % literal(value, types.float64).code, type_, const=value)
    if typing.is_float(type_):
        if math.isnan(value):
            return Value("(%s)NCC_NAN" % type_.ctype, type_, const=value)
        if math.isinf(value):
            return Value("(%s)(%sNCC_INFINITY)" % (type_.ctype, "-" if value < 0 else ""), type_, const=value)
        text = repr(float(value))
        return Value(text + ("f" if type_ == types.float32 else ""), type_, const=value)
    suffix = "LL" if type_.kind == "i" else "ULL"
    if value == -(2**63):
        return Value("(-9223372036854775807LL - 1)", type_, const=value)
    return Value("%d%s" % (value, suffix), type_, const=value)


def cast(value, to):
    """value's C code converted to type `to`. Complex numbers convert to complex only (as numba:
    take .real, .imag or abs()); a storage-only float (float16) converts through float."""
    source = value.type
    if source == to:
        return value.code
    if isinstance(to, types.Optional):
        return _to_optional(value, to)
    if isinstance(source, types.Optional):  # its number, which must not be None (pyjit/optional.py)
        return cast(Value("ncc_optional_value(%s)" % value.code, source.type), to)
    own = getattr(source, "c_conversion", None) or getattr(to, "c_conversion", None)
    if own is not None:  # a type that writes its conversions itself (numba_cuda_c/fp8_types.py's)
        code = own(value.code, source, to)
        if code is None:
            raise KernelTypeError("cannot convert %s to %s" % (source, to))
        return code
    if not isinstance(source, types.Scalar) or not isinstance(to, types.Scalar):
        raise KernelTypeError("cannot convert %s to %s" % (source, to))
    if to.kind == "c":
        return "ncc_to_complex<%s>(%s)" % (to.underlying_float.ctype, _widened(value))
    if source.kind == "c":
        raise KernelTypeError("cannot convert %s to %s: take .real, .imag or abs()" % (source, to))
    if source.kind in "Mm" or to.kind in "Mm":  # between units of one kind only
        return datetime_units.convert(value, to)
    if to == types.float16 and source.kind in "iu":  # one cvt from the integer's width, as numba's (FP16_HEADER)
        return "ncc_int_to_half((%s)(%s))" % (source.ctype, value.code)
    if source == types.float16 and (to.kind in "iu" or to == types.float64):
        return "ncc_from_half<%s>(%s)" % (to.ctype, value.code)
    if to.from_widened:
        return to.from_widened % _widened(value)
    code = source.to_float % value.code if source.to_float else value.code
    return "((%s)(%s))" % (to.ctype, code)


def _to_optional(value, to):
    """None, a number or another Optional as an Optional (ncc_optional<T>, pyjit/optional.py): None is the struct
    zeroed (not valid); an Optional of another number converts its number where it has one."""
    source = value.type
    if source is types.none:
        return "%s{}" % to.ctype
    if isinstance(source, types.Optional):
        converted = cast(Value("v", source.type), to.type)
        return "ncc_optional_map<%s>(%s, [](%s v) { return %s; })" % (
            to.type.ctype,
            value.code,
            source.type.ctype,
            converted,
        )
    return "%s{%s, true}" % (to.ctype, cast(value, to.type))


def _widened(value):
    """A storage-only float as float; other integers as long long or unsigned long long: the types a
    from_widened conversion and ncc_to_complex have overloads for."""
    t = value.type
    if t.to_float:
        return t.to_float % value.code
    if t.kind in "bi" and t != types.int64:
        return "(long long)(%s)" % value.code
    if t.kind == "u" and t != types.uint64:
        return "(unsigned long long)(%s)" % value.code
    return value.code


def dtype_of(obj):
    """A dtype argument (numba type, NumPy type or dtype, string) as a scalar type."""
    if isinstance(obj, types.Scalar):
        return obj
    if isinstance(obj, str):
        import numpy as np

        try:
            obj = np.dtype(obj)
        except TypeError:
            raise KernelTypeError("Invalid NumPy dtype specified: %r" % (obj,)) from None
    try:
        if types.is_numba_type(obj):  # numba.float32
            return types.from_numba(obj)
        return types.from_dtype(obj)
    except TypeError as exc:
        raise KernelTypeError("%r is not a dtype kernels take (%s)" % (obj, exc)) from None


def c_array_type(t):
    return "Array<%s, %d>" % (t.dtype.element_ctype, t.ndim)


class FlatIter:
    """a.flat in a kernel: its elements in C order, indexed (a.flat[k]) or iterated (sequences.py, indexing.py)."""

    def __init__(self, array):
        self.array = array


def element_ref(base, codes):
    """An lvalue of an array's element at these (int64, wrapped) indices; for a record, a reference (its first
    byte's address)."""
    offset = " + ".join("(%s) * %s.strides[%d]" % (c, base.code, d) for d, c in enumerate(codes)) or "0"
    if isinstance(base.type.dtype, (types.Record, types.CharSeq)):
        return "((unsigned char *)%s.data + %s)" % (base.code, offset)
    return "(*(%s *)((char *)%s.data + %s))" % (base.type.dtype.ctype, base.code, offset)


def wrapped_index(index, base, axis):
    """An integer index into an axis of array `base`, as an int64; a negative one counts from the end (numba's
    wraparound), unless it is a constant known not to be negative."""
    code = cast(index, types.int64)
    if index.type.kind == "i" and not (index.const is not None and index.const >= 0):
        code = "ncc_wrap(%s, %s.shape[%d])" % (code, base.code, axis)
    return code


def sign_clear(value):
    """Whether numba's LLVM knows a number's sign bit is clear (its computeKnownFPClass): an unsigned integer or a
    bool (converted by uitofp), a constant that is not negative (nor -0.0), a sum, product or quotient of two such,
    a square (_signed), a conditional expression of two such (c_IfExp), a variable whose store is such
    (c_Name), max/min of such; an array's element is not known."""
    if value.nonnegative or (value.type is not None and getattr(value.type, "kind", None) in ("u", "b")):
        return True
    return type(value.const) in (bool, int, float) and math.copysign(1.0, value.const) > 0


def sign_clear_as(value, t):
    """sign_clear(value), and still so converted to the integer type t: an unsigned value as wide as t may have its
    top bit set, which is a signed t's sign (True // uint64(2**64 - 3) computes in int64, and is -1)."""
    if not sign_clear(value):
        return False
    kind = getattr(value.type, "kind", None)
    if kind != "u" or t.kind == "u" or value.const is not None:
        return True
    return value.type.bits < t.bits


def power_sign_clear(exponent, result_type):
    """Whether LLVM knows the sign of x ** exponent (the exponent's constant, or None) is clear: x ** 0 is 1, which
    it folds; a float's x ** 2 and x ** 4 are products of a number by itself in numba's int_power."""
    if type(exponent) is not int:
        return False
    return exponent == 0 or (exponent in (2, 4) and typing.is_float(result_type))


def with_const(value, number):
    """value, knowing its constant number where it had none (one numba's LLVM folds: Statements.llvm_number)."""
    if value.const is not None or number is None:
        return value
    known = Value(value.code, value.type, number, value.obj, value.items, value.how)
    known.nonnegative = value.nonnegative
    return known
