"""The CUDA C every translated module starts with: the array struct and Python's arithmetic (prelude.cuh, beside
this file); CUDA's half-precision header with our conversions (fp16.cuh); the complex part (complex_prelude.py)."""

from numba_cuda_c.pyjit.complex_prelude import COMPLEX, cuh  # noqa: F401 (the complex part, imported from here)

PRELUDE = cuh("prelude.cuh")


# CUDA's half-precision header and our conversions into __half: only in translations that use float16 (the
# header alone is about a third of NVRTC's time for a small kernel), added by ModuleBuilder.source.
FP16_HEADER = cuh("fp16.cuh")


# Complex numbers: COMPLEX, in complex_prelude.py (numba-cuda's arithmetic and cmath), placed after the
# prelude only in translations whose C names complex numbers or their functions (ModuleBuilder.source).
