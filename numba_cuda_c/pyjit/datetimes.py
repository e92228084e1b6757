"""NumPy's datetime64 and timedelta64 in kernels, as numba types and computes them: a value is a 64-bit count of
its unit, NaT the smallest. datetime - datetime is a timedelta; datetime +/- timedelta a datetime; timedeltas add,
subtract, negate, scale by integers and divide into a float; comparisons order same-kind values. Operands of two
units meet in the finer one (numba's rule), NaT stays NaT through arithmetic and compares unequal to everything.
Units and conversions between them are in datetime_units.py. The C helpers (ncc_dt_*) are in
the prelude (prelude.py): conversions need them where no translator is at hand."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.datetime_units import finer, scaled
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import Value, cast


def is_datetime(t):
    return isinstance(t, types.Scalar) and t.kind == "M"


def is_timedelta(t):
    return isinstance(t, types.Scalar) and t.kind == "m"


def involved(*ts):
    return any(isinstance(t, types.Scalar) and t.kind in "Mm" for t in ts)


def _operands(left, right):
    unit, fa, fb = finer(left.type.unit, right.type.unit)
    return unit, scaled(left, fa), scaled(right, fb)


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
    if not (
        (is_datetime(left.type) and is_datetime(right.type))
        or (is_timedelta(left.type) and is_timedelta(right.type))
    ):
        raise KernelTypeError("cannot compare %s with %s" % (left.type, right.type))
    unit, x, y = _operands(left, right)
    if op == "!=":
        return "(!ncc_dt_both(%s, %s) || %s != %s)" % (x, y, x, y)
    return "(ncc_dt_both(%s, %s) && %s %s %s)" % (x, y, x, op, y)
