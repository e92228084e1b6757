"""The operator module's functions in kernels (operator.add(a, b) is a + b, as numba types it),
math.nextafter, and fastmath reaching the PTX of kernels and device functions (inspect_asm and numba's
inspect_lto_ptx, which is the same PTX here: one NVRTC program). Translation in CI; the GPU for what
needs a device's architecture."""

import math
import operator

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu

BINARY = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.floordiv,
    operator.mod,
    operator.pow,
    operator.iadd,
    operator.imul,
]
COMPARE = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


def apply_binary(op):
    def kernel(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = op(a[i], b[i])

    return kernel


def unary_and_nextafter(r, x, y):
    r[0] = operator.neg(x)
    r[1] = operator.abs(operator.neg(x))
    r[2] = operator.not_(x > y)
    r[3] = math.nextafter(x, y)


def cosine(r, x):
    r[0] = math.cos(x)


def cosine_device(x):
    return math.cos(x)


@needs_nvrtc
@pytest.mark.parametrize("op", BINARY + COMPARE, ids=lambda op: op.__name__)
def test_operator_functions_translate(op):
    cuda.compile_ptx(apply_binary(op), "void(float64[::1], float64[::1])")


@needs_nvrtc
def test_fastmath_reaches_the_ptx():
    fast, _ = cuda.compile_ptx(cosine, "void(float32[::1], float32)", fastmath=True, cc=(9, 0))
    precise, _ = cuda.compile_ptx(cosine, "void(float32[::1], float32)", cc=(9, 0))
    assert "cos.approx.ftz.f32 " in fast and "cos.approx.ftz.f32 " not in precise


@requires_gpu
@pytest.mark.parametrize("op", BINARY + COMPARE, ids=lambda op: op.__name__)
def test_operator_functions_on_the_gpu(op):
    a = np.array([7.5, -3.0, 2.0, 9.0])
    b = np.array([2.0, 4.0, -1.5, 3.0])
    got = a.copy()
    cuda.jit(apply_binary(op))[1, 4](got, b)
    np.testing.assert_allclose(got, np.array([op(x, y) for x, y in zip(a, b)], dtype=np.float64))


@requires_gpu
def test_unary_operators_and_nextafter_on_the_gpu():
    r = np.zeros(4)
    cuda.jit(unary_and_nextafter)[1, 1](r, 1.5, 2.0)
    np.testing.assert_array_equal(r, [-1.5, 1.5, 1.0, math.nextafter(1.5, 2.0)])


@requires_gpu
def test_inspect_asm_honours_fastmath_for_kernels_and_device_functions():
    sig = "void(float32[::1], float32)"
    fast = cuda.jit(sig, fastmath=True)(cosine)
    assert "cos.approx.ftz.f32 " in fast.inspect_asm(sig)
    assert fast.inspect_lto_ptx(sig) == fast.inspect_asm(sig)
    assert "cos.approx.ftz.f32 " not in cuda.jit(sig)(cosine).inspect_asm(sig)
    device = cuda.jit("float32(float32)", device=True, fastmath=True)(cosine_device)
    assert "cos.approx.ftz.f32 " in device.inspect_asm("float32(float32)")
