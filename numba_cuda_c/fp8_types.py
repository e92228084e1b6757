"""CUDA's FP8 types and modes as numba-cuda's bindings name them: the types (fp8_e5m2, fp8_e4m3, fp8_e8m0, the
pairs and quadruples, bfloat16_raw), the enums of the conversions' modes and the names of the device functions. The
translator's table (pyjit/lib/fp8.py) builds on these; numba_cuda_c/fp8.py, numba's face of them, adds the device
functions, which it takes from that table at their first use."""

import enum

from numba_cuda_c import types


class saturation_t(enum.IntEnum):
    """CUDA's __nv_saturation_t: what a conversion does with a value beyond the format's range."""

    NOSAT = 0  # infinity or NaN, as the format has
    SATFINITE = 1  # the largest finite value


class fp8_interpretation_t(enum.IntEnum):
    """CUDA's __nv_fp8_interpretation_t: which format a storage byte holds."""

    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(enum.IntEnum):
    """CUDA's cudaRoundMode (numba's e8m0 conversions take cuda.bindings.runtime.cudaRoundMode, whose members are
    these numbers: either one works in a kernel)."""

    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


# A kind no NumPy kind letter uses, so that no arithmetic, comparison or math rule (which ask for kinds "biufc")
# takes an fp8 value: numba-cuda defines none on them, only conversions.
KIND = "x"

# The number types an fp8 value converts to: numba-cuda's casts, each CUDA's conversion operator of that C type
_CONVERTS_TO = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 bfloat16 float32 float64".split()
)
# The C type of the constructor CUDA's class is called with for each source type: numba-cuda's overload resolution
# over its constructors (half, bfloat16, float, double, the 16-, 32- and 64-bit integers) picks the exact one, and
# for int8 and uint8 the 16-bit integer of the same sign (a promotion). bool (0 or 1, exact in every one) takes
# short. The e8m0 constructors differ by source type (an int goes through double, a long long through bfloat16),
# which is why the type matters, not only the value.
_CONSTRUCTOR_ARGUMENT = {
    "bool": "short", "int8": "short", "int16": "short", "int32": "int", "int64": "long long",
    "uint8": "unsigned short", "uint16": "unsigned short", "uint32": "unsigned int",
    "uint64": "unsigned long long", "float16": "__half", "bfloat16": "__nv_bfloat16", "float32": "float",
    "float64": "double",
}  # fmt: skip


class FP8(types.Scalar):
    """One of CUDA's 8-bit float types (__nv_fp8_e5m2, __nv_fp8_e4m3, __nv_fp8_e8m0), as numba-cuda's: a value in a
    kernel with conversions to and from numbers and nothing else. Its conversions are C++'s, written by
    c_conversion (values.cast asks the type)."""

    def __init__(self, name, ctype):
        super().__init__(name, KIND, 8, ctype)
        self.__name__ = name  # numba's are classes: programs print fp8_type.__name__

    @property
    def dtype(self):
        raise TypeError("%s has no NumPy dtype: numba-cuda's FP8 types live in kernels only" % self.name)

    def __reduce__(self):
        return (_named, (self.name,))

    def __call__(self, *args):
        """fp8_e4m3(float32): a signature; a value on the host: TypeError (the type is a device type)."""
        if args and all(isinstance(a, types.Type) or types.is_numba_type(a) for a in args):
            return types.Signature(self, args)
        raise TypeError("%s is a device type: make one in a @cuda.jit kernel (%s(x))" % (self.name, self.name))

    def c_conversion(self, code, source, to):
        """The C converting `code` from `source` to `to` (one of them this type), or None where numba-cuda has no
        such conversion (another FP8 type, a complex number)."""
        if source is self and isinstance(to, types.Scalar) and to.name in _CONVERTS_TO:
            return "static_cast<%s>(%s)" % (to.ctype, code)
        if to is self and isinstance(source, types.Scalar) and source.name in _CONSTRUCTOR_ARGUMENT:
            return "%s(static_cast<%s>(%s))" % (self.ctype, _CONSTRUCTOR_ARGUMENT[source.name], code)
        return None


class _Struct(types.VectorType):
    """A struct of one number read as an attribute (CUDA's __nv_bfloat16_raw, the bits of a bfloat16, as .x; its
    __nv_fp8x2_e4m3 and the other pairs and quadruples of FP8 values, their bytes as .__x): the translator reads it as
    it reads a vector's element. Not interned with the vectors (its C type is its own)."""

    def __new__(cls, name, ctype, base, member="x"):
        self = types.Type.__new__(cls)
        self.name, self.ctype, self.base, self.count, self.attr_names = name, ctype, base, 1, (member,)
        return self

    def __reduce__(self):
        return (_named, (self.name,))


fp8_e5m2 = FP8("fp8_e5m2", "__nv_fp8_e5m2")
fp8_e4m3 = FP8("fp8_e4m3", "__nv_fp8_e4m3")
fp8_e8m0 = FP8("fp8_e8m0", "__nv_fp8_e8m0")  # a power of two: 8 exponent bits, no sign, no mantissa
# What cvt_e8m0_to_bf16raw gives and cvt_bfloat16raw_to_fp8 takes (numba-cuda's cuda_bf16 struct, raw.x its bits)
bfloat16_raw = _Struct("bfloat16_raw", "__nv_bfloat16_raw", types.uint16)
# Two and four FP8 values (CUDA's __nv_fp8x2_e4m3 ...): made in kernels from a float32x2/float64x2 (x4: float32x4,
# float64x4) by fp8x2_e4m3(v), which is a device function (pyjit/lib/fp8.py); their bytes read as .__x
VECTORS = {
    name: _Struct(name, "__nv_" + name, base, "__x")
    for format in ("e5m2", "e4m3", "e8m0")
    for name, base in (("fp8x2_" + format, types.uint16), ("fp8x4_" + format, types.uint32))
}
TYPES = {t.name: t for t in (fp8_e5m2, fp8_e4m3, fp8_e8m0, bfloat16_raw)}

# The device functions (pyjit/lib/fp8.py): cvt_<source>_to_<format>(x, saturation, interpretation or rounding), and
# the constructors of the vector types
FUNCTIONS = (
    "cvt_double_to_fp8", "cvt_double2_to_fp8x2", "cvt_float_to_fp8", "cvt_float2_to_fp8x2", "cvt_bfloat16raw_to_fp8",
    "cvt_bfloat16raw_to_e8m0", "cvt_float_to_e8m0", "cvt_float2_to_e8m0x2", "cvt_double_to_e8m0",
    "cvt_double2_to_e8m0x2", "cvt_e8m0_to_bf16raw",
) + tuple(VECTORS)  # fmt: skip


def _named(name):
    """An FP8 type by name: how they unpickle, as the one object of each."""
    return TYPES[name] if name in TYPES else VECTORS[name]
