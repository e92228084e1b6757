"""numba.cuda.bf16: the bfloat16 type (bfloat16(x) in a kernel converts to it) and CUDA's bfloat16 functions
(hadd, hfma, hsin, heq, bfloat16_to_int32_rz, ...), each a device function: calling one on the host raises. The
table is numba_cuda_c/pyjit/lib/bf16.py. Host arrays of bfloat16 are ml_dtypes.bfloat16 arrays."""

from numba_cuda_c.pyjit import lib as _lib
from numba_cuda_c.types import bfloat16  # noqa: F401  (the type, also a conversion in kernels)

__getattr__, __dir__ = _lib.module_functions("bf16", globals(), "cuda.bf16")
