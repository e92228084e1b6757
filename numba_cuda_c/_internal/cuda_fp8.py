"""numba.cuda._internal.cuda_fp8, where numba-cuda's FP8 bindings are and programs import them from: the same
objects as numba_cuda_c.fp8 (the types, the enums, the cvt_* device functions), under numba's names too
(_type_fp8_e5m2, numba's type of fp8_e5m2, is fp8_e5m2 here)."""

from numba_cuda_c import fp8 as _fp8
from numba_cuda_c.fp8 import (  # noqa: F401  (the module's names)
    bfloat16_raw,
    cudaRoundMode,
    fp8_e4m3,
    fp8_e5m2,
    fp8_e8m0,
    fp8_interpretation_t,
    saturation_t,
)

_type_fp8_e5m2, _type_fp8_e4m3, _type_fp8_e8m0 = fp8_e5m2, fp8_e4m3, fp8_e8m0

__all__ = [n for n in _fp8.__all__ if n not in ("bfloat16_raw", "cudaRoundMode")]
__all__ += ["_type_fp8_e5m2", "_type_fp8_e4m3", "_type_fp8_e8m0"]


def __getattr__(name):
    """The cvt_* device functions, from numba_cuda_c.fp8 at their first use."""
    if name in _fp8.FUNCTIONS:
        value = globals()[name] = getattr(_fp8, name)
        return value
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def __dir__():
    return sorted(set(globals()) | set(_fp8.FUNCTIONS))
