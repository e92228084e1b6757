"""NumPy's datetime64 and timedelta64 in kernels, as numba types and computes them: a value is a 64-bit count of
its unit, NaT the smallest. datetime - datetime is a timedelta; datetime +/- timedelta a datetime; timedeltas add,
subtract, negate, scale by integers and divide into a float; comparisons order same-kind values. Operands of two
units meet in the finer one (numba's rule), NaT stays NaT through arithmetic and compares unequal to everything.
Years and months convert only to each other: they have no fixed length in days. The C helpers (ncc_dt_*) are in
the prelude (prelude.py): conversions need them where no translator is at hand."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import Value, cast


# each unit's length in the next finer unit's terms: factors to attoseconds, and months to years
_ATTOSECONDS = {"as": 1}
for _unit, _finer, _n in (("fs", "as", 1000), ("ps", "fs", 1000), ("ns", "ps", 1000), ("us", "ns", 1000),
                          ("ms", "us", 1000), ("s", "ms", 1000), ("m", "s", 60), ("h", "m", 60), ("D", "h", 24),
                          ("W", "D", 7)):
    _ATTOSECONDS[_unit] = _ATTOSECONDS[_finer] * _n
_CALENDAR = {"M": 1, "Y": 12}  # in months


def is_datetime(t):
    return isinstance(t, types.Scalar) and t.kind == "M"


def is_timedelta(t):
    return isinstance(t, types.Scalar) and t.kind == "m"


def involved(*ts):
    return any(isinstance(t, types.Scalar) and t.kind in "Mm" for t in ts)


def _finer(a, b):
    """The unit two units meet in, and each one's factor to it."""
    for table in (_ATTOSECONDS, _CALENDAR):
        if a in table and b in table:
            unit = a if table[a] <= table[b] else b
            return unit, table[a] // table[unit], table[b] // table[unit]
    raise KernelTypeError("cannot mix the units %s and %s: years and months have no fixed length" % (a, b))


def _in(value, factor):
    return value.code if factor == 1 else "ncc_dt_scale(%s, %dLL)" % (value.code, factor)


def _operands(left, right):
    unit, fa, fb = _finer(left.type.unit, right.type.unit)
    return unit, _in(left, fa), _in(right, fb)


def binop(translator, op, left, right):
    """The Value of `left op right` where one is a datetime64 or timedelta64; KernelTypeError where numba has no
    such operation."""
    a, b = left.type, right.type
    if op in ("+", "-") and (is_datetime(a) or is_timedelta(a)) and is_timedelta(b):
        unit, x, y = _operands(left, right)
        return Value("ncc_dt_%s(%s, %s)" % ("add" if op == "+" else "sub", x, y), types.datetime_type(a.kind, unit))
    if op == "+" and is_timedelta(a) and is_datetime(b):
        return binop(translator, op, right, left)
    if op == "-" and is_datetime(a) and is_datetime(b):
        unit, x, y = _operands(left, right)
        return Value("ncc_dt_sub(%s, %s)" % (x, y), types.datetime_type("m", unit))
    if op == "*" and (is_timedelta(a) or is_timedelta(b)):
        delta, other = (left, right) if is_timedelta(a) else (right, left)
        if not (isinstance(other.type, types.Scalar) and other.type.kind in "biu"):
            raise KernelTypeError("a timedelta64 is multiplied by an integer, not %s" % other.type)
        return Value("ncc_dt_scale(%s, %s)" % (delta.code, cast(other, types.int64)), delta.type)
    if op == "/" and is_timedelta(a) and is_timedelta(b):
        unit, x, y = _operands(left, right)
        return Value("ncc_dt_ratio(%s, %s)" % (x, y), types.float64)
    raise KernelTypeError("unsupported operation on datetimes: %s %s %s" % (a, op, b))


def unary(translator, op, operand):
    if op == "-" and is_timedelta(operand.type):
        return Value("ncc_dt_neg(%s)" % operand.code, operand.type)
    raise KernelTypeError("unsupported operation on a %s: %s" % (operand.type, op))


def absolute(translator, operand):
    if not is_timedelta(operand.type):
        raise KernelTypeError("abs() takes a timedelta64, not %s" % operand.type)
    return Value("ncc_dt_abs(%s)" % operand.code, operand.type)


def compare(translator, op, left, right):
    """The C condition of `left op right` for two datetimes or two timedeltas (NumPy's NaT rules)."""
    if not ((is_datetime(left.type) and is_datetime(right.type)) or (is_timedelta(left.type) and is_timedelta(right.type))):
        raise KernelTypeError("cannot compare %s with %s" % (left.type, right.type))
    unit, x, y = _operands(left, right)
    if op == "!=":
        return "(!ncc_dt_both(%s, %s) || %s != %s)" % (x, y, x, y)
    return "(ncc_dt_both(%s, %s) && %s %s %s)" % (x, y, x, op, y)


def convert(value, to):
    """value (a datetime64 or timedelta64) in the unit of `to`, of the same kind: multiplied into a finer unit,
    divided (towards minus infinity, NaT kept) into a coarser one, as NumPy's casts."""
    source = value.type
    if not (isinstance(source, types.Scalar) and source.kind == to.kind):
        raise KernelTypeError("cannot convert %s to %s" % (source, to))
    unit, f_from, f_to = _finer(source.unit, to.unit)
    if unit == to.unit:
        return _in(value, f_from)
    return "ncc_dt_floor_div(%s, %dLL)" % (value.code, f_to)
