"""numba's cuda.bf16: the bfloat16 type's functions, as CUDA's cuda_bf16.h gives them (arithmetic with its
rounding and saturation, comparisons, math, conversions with a rounding mode, bit casts). Each is one entry:
its arguments convert to the types it takes, its result is CUDA's. The header is included only in
translations that use bfloat16 (translate.py)."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.lib.numbers import conversion, converting_function
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement

BF16 = types.bfloat16

Requirement(
    "bf16",
    """#include <cuda_bf16.h>
// Conversions into __nv_bfloat16, one overload per widened source type (values.py widens the others)
__device__ __forceinline__ __nv_bfloat16 ncc_to_bf16(double x) { return __double2bfloat16(x); }
__device__ __forceinline__ __nv_bfloat16 ncc_to_bf16(float x) { return __float2bfloat16(x); }
__device__ __forceinline__ __nv_bfloat16 ncc_to_bf16(long long x) { return __ll2bfloat16_rn(x); }
__device__ __forceinline__ __nv_bfloat16 ncc_to_bf16(unsigned long long x) { return __ull2bfloat16_rn(x); }
""",
)


def _function(name, c_name, argument_types, result):
    """cuda.bf16.<name>(...): its arguments converted to argument_types, then c_name's C call."""
    converting_function("bf16", name, c_name, argument_types, result, requires=("bf16",))


# arithmetic, comparisons, math: bfloat16 in, CUDA's result out
for _name, _c_name, _count in [
    ("habs", "__habs", 1), ("hneg", "__hneg", 1), ("hadd", "__hadd", 2), ("hsub", "__hsub", 2), ("hmul", "__hmul", 2),
    ("hadd_rn", "__hadd_rn", 2), ("hsub_rn", "__hsub_rn", 2), ("hmul_rn", "__hmul_rn", 2), ("hdiv", "__hdiv", 2),
    ("hadd_sat", "__hadd_sat", 2), ("hsub_sat", "__hsub_sat", 2), ("hmul_sat", "__hmul_sat", 2),
    ("hfma", "__hfma", 3), ("hfma_sat", "__hfma_sat", 3), ("hfma_relu", "__hfma_relu", 3),
    ("hmax", "__hmax", 2), ("hmin", "__hmin", 2), ("hmax_nan", "__hmax_nan", 2), ("hmin_nan", "__hmin_nan", 2),
    ("htrunc", "htrunc", 1), ("hceil", "hceil", 1), ("hfloor", "hfloor", 1), ("hrint", "hrint", 1),
    ("hsqrt", "hsqrt", 1), ("hrsqrt", "hrsqrt", 1), ("hrcp", "hrcp", 1), ("hlog", "hlog", 1), ("hlog2", "hlog2", 1),
    ("hlog10", "hlog10", 1), ("hcos", "hcos", 1), ("hsin", "hsin", 1), ("hexp", "hexp", 1), ("hexp2", "hexp2", 1),
    ("hexp10", "hexp10", 1), ("htanh", "htanh", 1), ("htanh_approx", "htanh_approx", 1),
]:  # fmt: skip
    _function(_name, _c_name, [BF16] * _count, BF16)
for _name in ("heq", "hne", "hge", "hgt", "hle", "hlt"):  # ordered, and unordered (true where either is NaN)
    _function(_name, "__" + _name, [BF16, BF16], types.boolean)
    _function(_name + "u", "__%su" % _name, [BF16, BF16], types.boolean)
_function("hisnan", "__hisnan", [BF16], types.boolean)
_function("hisinf", "__hisinf", [BF16], types.int32)  # -1, 0 or 1, as CUDA's

# conversions with a rounding mode, NumPy-style names: CUDA's short, ushort, int, uint, ll, ull, char, uchar
_C_INTEGERS = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort", "int32": "int",
               "uint32": "uint", "int64": "ll", "uint64": "ull"}  # fmt: skip
for _int, _c in _C_INTEGERS.items():
    _modes = ("rz",) if _int in ("int8", "uint8") else ("rn", "rz", "rd", "ru")
    for _mode in _modes:
        _function(
            "bfloat16_to_%s_%s" % (_int, _mode), "__bfloat162%s_%s" % (_c, _mode), [BF16], getattr(types, _int)
        )
        if _int not in ("int8", "uint8"):
            _function(
                "%s_to_bfloat16_%s" % (_int, _mode), "__%s2bfloat16_%s" % (_c, _mode), [getattr(types, _int)], BF16
            )
for _int, _c in (("int16", "short"), ("uint16", "ushort")):  # the same 16 bits, reinterpreted
    _function("bfloat16_as_%s" % _int, "__bfloat16_as_%s" % _c, [BF16], getattr(types, _int))
    _function("%s_as_bfloat16" % _int, "__%s_as_bfloat16" % _c, [getattr(types, _int)], BF16)
_function("bfloat16_to_float32", "__bfloat162float", [BF16], types.float32)
_function("float32_to_bfloat16", "__float2bfloat16", [types.float32], BF16)
_function("float64_to_bfloat16", "__double2bfloat16", [types.float64], BF16)
for _mode in ("rn", "rz", "rd", "ru"):
    _function("float32_to_bfloat16_%s" % _mode, "__float2bfloat16_%s" % _mode, [types.float32], BF16)
# cuda.bf16.bfloat16(x): the type, called, converts (numba's nv_bfloat16 binding is the type itself)
_to_bf16 = conversion(BF16)
Intrinsic(("bf16", "bfloat16"), _to_bf16.typing, _to_bf16.emit, requires=("bf16",), doc="bfloat16(x)").signature = (
    (types.float32,),
    BF16,
)
