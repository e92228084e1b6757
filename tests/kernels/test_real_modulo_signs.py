"""A float % whose operands numba's LLVM knows are not negative: numba-cuda's real_divmod tests `mod < 0` and
`wx < 0`, and LLVM folds both to false there (frem takes the dividend's sign; a bool or an unsigned converts by
uitofp; +, *, / and % of such are such; abs and math.fabs are not known: numba's PTX keeps the correction). frem's expansion on the GPU
(|a| - floor(|a| / |b|) * |b|, its product fused) can still give a negative remainder: 1.0 % 0.1 is -5.55e-17
before numba's correction, which LLVM has folded away, and 1.0 % (1.0 % 0.1) is then +0.0. We keep the same
knowledge (operators._signed, prelude's ncc_real_divmod<SignClear>): the C in CI, the values against numba-cuda's on
the GPU."""

import math
import re

import numpy as np

import numba_cuda_c as cuda
from gpu import numba_cuda_or_skip, rebind, requires_gpu


def sign_known_modulo(out, b, u, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = b[i] % (b[i] % 0.1)  # a bool's remainder, then a remainder by it
        out[i, 1] = 1.0 % (u[i] % 0.1)  # an unsigned's
        out[i, 2] = abs(x[i]) % 0.1
        out[i, 3] = math.fabs(x[i]) % 0.1
        out[i, 4] = 1.0 % (abs(x[i]) % 0.1)
        out[i, 5] = (abs(x[i]) * 2.0) % 0.2
        out[i, 6] = x[i] % 0.1  # not known: numba corrects a negative remainder
        out[i, 7] = 1.0 % (x[i] % 0.1)


SIGNATURE = "void(float64[:, ::1], boolean[::1], uint32[::1], float64[::1])"


def inputs():
    x = np.array(
        [1.0, -1.0, 3.0, -3.0, 0.3, -0.7, 2.0, 0.5, -0.0, 0.0, 1e-300, math.inf, math.nan, 7.1, -2.9, 10.0]
    )
    b = np.arange(x.size) % 2 == 0
    u = np.array([1, 3, 7, 10, 0, 2, 5, 100, 1, 1, 9, 4, 6, 8, 11, 12], np.uint32)
    return b, u, x


def test_the_remainders_of_known_signs_are_not_corrected():
    source = cuda.jit(sign_known_modulo).inspect_source(SIGNATURE)
    kernel = source[source.rfind("__global__") :]
    # columns 0 and 1 know both signs (the outer % too: its divisor is a remainder of such), the others do not
    assert kernel.count("ncc_real_mod<true>") == 4, kernel
    assert kernel.count("ncc_real_mod<false>") == 8, kernel


@requires_gpu
def test_the_remainders_are_numba_cudas_bit_for_bit():
    numba_cuda = numba_cuda_or_skip()
    b, u, x = inputs()
    ours, theirs = (np.full((x.size, 8), 7.0) for _ in range(2))
    cuda.jit(sign_known_modulo)[1, 32](ours, b, u, x)
    numba_cuda.jit(rebind(sign_known_modulo, cuda=numba_cuda))[1, 32](theirs, b, u, x)
    different = ours.view(np.int64) != theirs.view(np.int64)
    different &= ~(np.isnan(ours) & np.isnan(theirs))  # a NaN's payload is not compared
    assert not different.any(), [(i, k, x[i], ours[i, k], theirs[i, k]) for i, k in zip(*np.nonzero(different))]


def identities(out, b):
    i = cuda.grid(1)
    if i < b.size:
        out[i, 0] = b[i] % (b[i] / (b[i] ** 1))  # an integer identity of a uint8: LLVM folds it to the zext
        out[i, 1] = b[i] % (b[i] / (b[i] + 0))
        out[i, 2] = b[i] % (b[i] / (1 * b[i]))
        out[i, 3] = b[i] % (b[i] / (b[i] ** 3))  # products: their sitofp stays, the sign is not known
        out[i, 4] = b[i] % (b[i] / (b[i] * 3))


def test_an_integer_identity_of_an_unsigned_is_known_not_negative():
    """What numba-cuda's PTX shows (fuzzer seed 76 case 614 on the CPU screen: `u8 % (u8 / (u8 ** 1))` keeps
    frem's negative remainder in numba, uncorrected): x ** 1, x + 0, 1 * x of a uint8 are its zext, which LLVM knows;
    x ** 3 and x * 3 are not known."""
    source = cuda.jit(identities).inspect_source("void(float64[:, ::1], uint8[::1])")
    kernel = source[source.rfind("__global__") :]
    assert re.findall(r"ncc_real_mod<(true|false)>", kernel) == ["true", "true", "true", "false", "false"], kernel
