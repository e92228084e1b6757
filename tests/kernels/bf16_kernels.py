"""Kernels for tests/kernels/test_bfloat16.py (the translator reads their source here)."""

import math

from numba_cuda_c import float32, int32
from numba_cuda_c.bf16 import (
    bfloat16,
    bfloat16_as_int16,
    bfloat16_to_int32_rz,
    hadd,
    heq,
    hfma,
    hisinf,
    hmul,
    hsqrt,
)


def scale_and_add(y, x):
    # arithmetic on bfloat16 stays bfloat16 (CUDA's operators), as numba-cuda's
    for i in range(x.size):
        y[i] = x[i] * bfloat16(2) + x[i]


def functions(out, iout, x):
    a = bfloat16(x[0])
    b = bfloat16(x[1])
    out[0] = float32(hadd(a, b))
    out[1] = float32(hmul(a, b))
    out[2] = float32(hfma(a, b, a))
    out[3] = float32(hsqrt(b))
    out[4] = math.sin(a)  # math on bfloat16: computed in float32, rounded back
    iout[0] = bfloat16_to_int32_rz(b)
    iout[1] = heq(a, a)
    iout[2] = hisinf(a)
    iout[3] = bfloat16_as_int16(bfloat16(1.0))
    iout[4] = int32(a < b)
