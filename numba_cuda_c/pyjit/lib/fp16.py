"""cuda.fp16: numba's half-precision functions, as CUDA's cuda_fp16.h gives them: arithmetic (with its rounding and
saturation forms), comparisons (ordered and unordered), math, conversions with a rounding mode, bit casts and the
atomic add. numba-cuda's table (numba.cuda.fp16, its bindings in numba.cuda._internal.cuda_fp16) names each function
by CUDA's name (cuda.fp16.__hadd, __float2half_rn) and the common ones by a short name too (cuda.fp16.hadd): both
are entries here. Arguments of any real type convert to the types the function takes, as numba's do."""

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.numbers import conversion, converting_function
from numba_cuda_c.pyjit.lib.table import Intrinsic
from numba_cuda_c.pyjit.values import cast

F16 = types.float16


def _function(name, c_name, argument_types, result):
    """cuda.fp16.<name>(...): its arguments converted to argument_types, then c_name's C call."""
    converting_function("fp16", name, c_name, argument_types, result)


def _atomic_add_typing(args):
    """atomicAdd(pointer to a half, value): the half it held (numba's binding takes a CPointer(float16))."""
    if len(args) != 2:
        raise TypeError("cuda.fp16.atomicAdd takes a pointer and a value")
    if not (isinstance(args[0].type, types.CPointer) and args[0].type.dtype == F16):
        raise TypeError("cuda.fp16.atomicAdd takes a pointer to a float16, not %s" % args[0].type)
    if not typing.is_real(args[1].type):
        raise TypeError("cuda.fp16.atomicAdd adds a real number, not %s" % args[1].type)
    return F16


Intrinsic(
    ("fp16", "atomicAdd"),
    _atomic_add_typing,
    lambda codes, args, result: "atomicAdd(%s, %s)" % (codes[0], cast(args[1], F16)),
    doc="CUDA's atomicAdd on a __half",
).signature = ((types.CPointer(F16), F16), F16)

# CUDA's name -> (argument count, result); the functions of halves (numba's cuda_fp16 bindings)
_HALF_FUNCTIONS = {
    "__habs": (1, F16), "__hneg": (1, F16), "__hadd": (2, F16), "__hsub": (2, F16), "__hmul": (2, F16),
    "__hdiv": (2, F16), "__hadd_rn": (2, F16), "__hsub_rn": (2, F16), "__hmul_rn": (2, F16),
    "__hadd_sat": (2, F16), "__hsub_sat": (2, F16), "__hmul_sat": (2, F16), "__hfma": (3, F16),
    "__hfma_sat": (3, F16), "__hfma_relu": (3, F16), "__hmax": (2, F16), "__hmin": (2, F16),
    "__hmax_nan": (2, F16), "__hmin_nan": (2, F16), "__hisnan": (1, types.boolean), "__hisinf": (1, types.int32),
    "hsqrt": (1, F16), "hrsqrt": (1, F16), "hrcp": (1, F16), "hlog": (1, F16), "hlog2": (1, F16),
    "hlog10": (1, F16), "hexp": (1, F16), "hexp2": (1, F16), "hexp10": (1, F16), "hsin": (1, F16),
    "hcos": (1, F16), "htanh": (1, F16), "htanh_approx": (1, F16), "hceil": (1, F16), "hfloor": (1, F16),
    "htrunc": (1, F16), "hrint": (1, F16),
}  # fmt: skip
for _compare in ("eq", "ne", "gt", "ge", "lt", "le"):  # ordered, and unordered (true where either is NaN)
    _HALF_FUNCTIONS["__h" + _compare] = (2, types.boolean)
    _HALF_FUNCTIONS["__h%su" % _compare] = (2, types.boolean)
# numba's short names: cuda.fp16.hadd is __hadd (the comparisons' unordered forms have none)
_SHORT_NAMES = ("habs", "hneg", "hadd", "hsub", "hmul", "hdiv", "hfma", "hmax", "hmin") + tuple(
    "h" + c for c in ("eq", "ne", "gt", "ge", "lt", "le")
)

for _c_name, (_count, _result) in _HALF_FUNCTIONS.items():
    _function(_c_name, _c_name, [F16] * _count, _result)
for _short in _SHORT_NAMES:
    _function(_short, "__" + _short, [F16] * _HALF_FUNCTIONS["__" + _short][0], _HALF_FUNCTIONS["__" + _short][1])

# conversions with a rounding mode: CUDA's name for the integer type, and ours
_INTEGERS = {"short": types.int16, "ushort": types.uint16, "int": types.int32, "uint": types.uint32,
             "ll": types.int64, "ull": types.uint64}  # fmt: skip
for _c, _int in _INTEGERS.items():
    for _mode in ("rn", "rz", "rd", "ru"):
        _function("__%s2half_%s" % (_c, _mode), "__%s2half_%s" % (_c, _mode), [_int], F16)
        _function("__half2%s_%s" % (_c, _mode), "__half2%s_%s" % (_c, _mode), [F16], _int)
_function("__half2char_rz", "__half2char_rz", [F16], types.int8)
_function("__half2uchar_rz", "__half2uchar_rz", [F16], types.uint8)
for _mode in ("rn", "rz", "rd", "ru"):
    _function("__float2half_" + _mode, "__float2half_" + _mode, [types.float32], F16)
_function("__float2half", "__float2half", [types.float32], F16)
_function("__double2half", "__double2half", [types.float64], F16)
_function("__half2float", "__half2float", [F16], types.float32)
# the same 16 bits, reinterpreted
_function("__short_as_half", "__short_as_half", [types.int16], F16)
_function("__ushort_as_half", "__ushort_as_half", [types.uint16], F16)
_function("__half_as_short", "__half_as_short", [F16], types.int16)
_function("__half_as_ushort", "__half_as_ushort", [F16], types.uint16)
# cuda.fp16.__half(x): the type, called, converts (numba's __half binding is float16 itself)
_to_half = conversion(F16)
Intrinsic(("fp16", "__half"), _to_half.typing, _to_half.emit, doc="__half(x)").signature = ((types.float32,), F16)
