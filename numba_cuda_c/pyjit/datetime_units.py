"""The units of datetime64 and timedelta64: each unit's length, the unit two units meet in (the finer one, numba's
rule), and a count in one unit converted to another (cast, values.py). Years and months convert only to each
other: they have no fixed length in days. datetimes.py computes with them."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.typing import KernelTypeError

# each unit's length in the next finer unit's terms: factors to attoseconds, and months to years
_ATTOSECONDS = {"as": 1}
for _unit, _finer, _n in (
    ("fs", "as", 1000),
    ("ps", "fs", 1000),
    ("ns", "ps", 1000),
    ("us", "ns", 1000),
    ("ms", "us", 1000),
    ("s", "ms", 1000),
    ("m", "s", 60),
    ("h", "m", 60),
    ("D", "h", 24),
    ("W", "D", 7),
):
    _ATTOSECONDS[_unit] = _ATTOSECONDS[_finer] * _n
_CALENDAR = {"M": 1, "Y": 12}  # in months


def finer(a, b):
    """The unit two units meet in, and each one's factor to it."""
    for table in (_ATTOSECONDS, _CALENDAR):
        if a in table and b in table:
            unit = a if table[a] <= table[b] else b
            return unit, table[a] // table[unit], table[b] // table[unit]
    raise KernelTypeError("cannot mix the units %s and %s: years and months have no fixed length" % (a, b))


def scaled(value, factor):
    """The C of value's count times factor (into a finer unit)."""
    return value.code if factor == 1 else "ncc_dt_scale(%s, %dLL)" % (value.code, factor)


def convert(value, to):
    """value (a datetime64 or timedelta64) in the unit of `to`, of the same kind: multiplied into a finer unit,
    divided (towards minus infinity, NaT kept) into a coarser one, as NumPy's casts."""
    source = value.type
    if not (isinstance(source, types.Scalar) and source.kind == to.kind):
        raise KernelTypeError("cannot convert %s to %s" % (source, to))
    unit, f_from, f_to = finer(source.unit, to.unit)
    if unit == to.unit:
        return scaled(value, f_from)
    return "ncc_dt_floor_div(%s, %dLL)" % (value.code, f_to)
