"""numba.cuda's FP8 bindings (numba_cuda_c/fp8.py names them): the storage conversions of CUDA's cuda_fp8.h
(cvt_float_to_fp8 and the others: a number in, the byte or bytes of its FP8 form out, with a saturation mode and
an interpretation or rounding mode), the types' constructors as cuda.fp8.fp8_e4m3(x), and numba's own objects
(numba.cuda._internal.cuda_fp8's) as ours. The types' conversions are the FP8 type's (values.cast asks it).

Each function's arguments convert as numba-cuda's do (a number to the float it takes; its modes are numbers: the
enums' members, cuda.bindings' cudaRoundMode's, or integers, checked where known when compiling); the header (the
requirement "fp8", module.py's) is included only in translations that use FP8."""

from numba_cuda_c import fp8_types as fp8
from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib import numbers
from numba_cuda_c.pyjit.lib.table import Intrinsic
from numba_cuda_c.pyjit.values import cast

# A mode argument: (what numba calls it, the C enum it converts to, its values)
SATURATION = ("saturation_t", "__nv_saturation_t", tuple(fp8.saturation_t))
INTERPRETATION = ("fp8_interpretation_t", "__nv_fp8_interpretation_t", tuple(fp8.fp8_interpretation_t))
ROUNDING = ("cudaRoundMode", "enum cudaRoundMode", tuple(fp8.cudaRoundMode))
_MODES = (SATURATION, INTERPRETATION, ROUNDING)


def _argument_check(name, k, arg, want):
    """Refuses an argument numba-cuda's signature does not take (TypeError saying why)."""
    position = "argument %d of %s()" % (k + 1, name)
    if want in _MODES:
        what, _c, members = want
        if not typing.is_int(typing.as_arith(arg.type)):
            raise TypeError(
                "%s is a %s (%s), not %s" % (position, what, ", ".join(m.name for m in members), arg.type)
            )
        if arg.const is not None and int(arg.const) not in [int(m) for m in members]:
            raise TypeError(
                "%s is a %s: one of %s, not %r"
                % (position, what, ", ".join("%s (%d)" % (m.name, m) for m in members), arg.const)
            )
    elif isinstance(want, types.VectorType):  # a vector or the raw bfloat16 struct: that type only
        if arg.type != want:
            raise TypeError("%s takes a %s, not %s" % (position, want, arg.type))
    elif not typing.is_real(arg.type):  # a number: converted to the one it takes
        raise TypeError("%s takes a real number, not %s" % (position, arg.type))


def _code(arg, want):
    if want in _MODES:
        return "(%s)(%s)" % (want[1], arg.code)
    if isinstance(want, types.VectorType):
        return arg.code
    return cast(arg, want)


def _function(name, c_name, parameters, result):
    """fp8.<name>(...): CUDA's c_name on the arguments converted to `parameters` (types, or modes)."""

    def typing_rule(args):
        if len(args) != len(parameters):
            raise TypeError("%s() takes %d arguments (%d given)" % (name, len(parameters), len(args)))
        for k, (arg, want) in enumerate(zip(args, parameters)):
            _argument_check(name, k, arg, want)
        return result

    def emit(codes, args, result_type):
        return "%s(%s)" % (c_name, ", ".join(_code(a, want) for a, want in zip(args, parameters)))

    Intrinsic(("fp8", name), typing_rule, emit, requires=("fp8",), doc="CUDA's %s" % c_name)


F32, F64, F32X2, F64X2 = (
    types.float32,
    types.float64,
    types.VECTOR_TYPES["float32x2"],
    types.VECTOR_TYPES["float64x2"],
)
RAW, U8, U16 = fp8.bfloat16_raw, types.uint8, types.uint16
TO_FP8, TO_E8M0 = (SATURATION, INTERPRETATION), (SATURATION, ROUNDING)
# numba's name (CUDA's with __nv_), the value it converts, its modes, the storage it gives (x2: .x in the low byte)
for _name, _value, _modes, _result in (
    ("cvt_double_to_fp8", F64, TO_FP8, U8), ("cvt_double2_to_fp8x2", F64X2, TO_FP8, U16),
    ("cvt_float_to_fp8", F32, TO_FP8, U8), ("cvt_float2_to_fp8x2", F32X2, TO_FP8, U16),
    ("cvt_bfloat16raw_to_fp8", RAW, TO_FP8, U8), ("cvt_bfloat16raw_to_e8m0", RAW, TO_E8M0, U8),
    ("cvt_float_to_e8m0", F32, TO_E8M0, U8), ("cvt_float2_to_e8m0x2", F32X2, TO_E8M0, U16),
    ("cvt_double_to_e8m0", F64, TO_E8M0, U8), ("cvt_double2_to_e8m0x2", F64X2, TO_E8M0, U16),
    ("cvt_e8m0_to_bf16raw", U8, (), RAW),
):  # fmt: skip
    _function(_name, "__nv_" + _name, (_value,) + _modes, _result)


def _vector(name, struct):
    """fp8x2_e4m3(v) (and the other vector types): CUDA's constructor of a float32x2 or float64x2 (x4: float32x4,
    float64x4), or of nothing (zeros), as numba-cuda's."""
    count = int(name[len("fp8x")])
    takes = (types.VECTOR_TYPES["float32x%d" % count], types.VECTOR_TYPES["float64x%d" % count])

    def typing_rule(args):
        if len(args) > 1 or (args and args[0].type not in takes):
            given = ", ".join(str(a.type) for a in args)
            raise TypeError("%s() takes a %s or a %s, not (%s)" % (name, takes[0], takes[1], given))
        return struct

    def emit(codes, args, result):
        return "%s(%s)" % (struct.ctype, ", ".join(codes))

    Intrinsic(("fp8", name), typing_rule, emit, requires=("fp8",), doc="CUDA's %s constructor" % struct.ctype)


for _name, _struct in fp8.VECTORS.items():
    _vector(_name, _struct)

# The types as cuda.fp8.fp8_e4m3(x): their conversions (a type called in a kernel converts to it, numbers.py)
for _type in (fp8.fp8_e5m2, fp8.fp8_e4m3, fp8.fp8_e8m0):
    _conversion = numbers.conversion(_type)
    Intrinsic(("fp8", _type.name), _conversion.typing, _conversion.emit, requires=("fp8",))

# Where numba-cuda defines its FP8 bindings: a kernel naming one of its objects gets ours of that name
NUMBA_MODULE = "numba.cuda._internal.cuda_fp8"
_NUMBA_NAMES = {"_type_" + name: name for name in ("fp8_e5m2", "fp8_e4m3", "fp8_e8m0")}


def ours(obj):
    """Our object for one of numba-cuda's FP8 bindings (its classes fp8_e5m2 ..., their numba types, its cvt_*
    functions, its enums), or None."""
    name = getattr(obj, "__name__", None) or getattr(obj, "name", None)
    if not isinstance(name, str):
        return None
    name = _NUMBA_NAMES.get(name, name)
    if name in fp8.TYPES and name != "bfloat16_raw":
        return fp8.TYPES[name]
    if name in fp8.FUNCTIONS:
        from numba_cuda_c.pyjit.lib import lookup  # this table's own entry (the package imported this module)

        return lookup(("fp8", name))
    if name in ("saturation_t", "fp8_interpretation_t"):
        return getattr(fp8, name)
    return None
