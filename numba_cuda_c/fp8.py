"""numba.cuda's FP8 (numba-cuda's bindings of CUDA's cuda_fp8.h, numba.cuda._internal.cuda_fp8): the types fp8_e5m2,
fp8_e4m3 and fp8_e8m0, made in kernels from numbers (fp8_e4m3(x)) and converted to numbers (float32(v), int64(v)) as
CUDA's constructors and conversion operators do (saturating to the largest finite value, e8m0 rounding up); and the
storage conversions with a saturation, interpretation and rounding mode (cvt_float_to_fp8(x, saturation_t.SATFINITE,
fp8_interpretation_t.E4M3) gives the byte), each a device function: calling one on the host raises. The pairs and
quadruples (fp8x2_e4m3(v) of a float32x2 or float64x2, fp8x4_e4m3 of a float32x4 or float64x4) are made by device
functions too; their bytes read as .__x.

The types live in kernels only (numba-cuda gives them no NumPy dtype, so host arrays cannot hold them; local and
shared arrays in kernels can). The functions' table is numba_cuda_c/pyjit/lib/fp8.py."""

from numba_cuda_c.fp8_types import (  # noqa: F401  (numba's names, and _named, how pickled FP8 types come back)
    FP8,
    FUNCTIONS,
    KIND,
    TYPES,
    VECTORS,
    _named,
    bfloat16_raw,
    cudaRoundMode,
    fp8_e4m3,
    fp8_e5m2,
    fp8_e8m0,
    fp8_interpretation_t,
    saturation_t,
)

__all__ = ["fp8_e5m2", "fp8_e4m3", "fp8_e8m0", "bfloat16_raw", "saturation_t", "fp8_interpretation_t"]
__all__ += ["cudaRoundMode"] + list(FUNCTIONS)


def __getattr__(name):
    """The device functions, from the translator's table at their first use (it loads NumPy: not with this module)."""
    if name not in FUNCTIONS:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    from numba_cuda_c.pyjit import lib

    entry = globals()[name] = lib.lookup(("fp8", name))
    return entry


def __dir__():
    return sorted(set(globals()) | set(FUNCTIONS))
