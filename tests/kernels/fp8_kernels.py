"""Kernels for tests/kernels/test_fp8.py, written once for numba_cuda_c and numba-cuda: every name they use comes
through the globals `cuda` (the package), `F` (its FP8 module) and `T` (one FP8 type), which `bound` sets (numba_cuda_c
and numba_cuda_c.fp8 for ours; numba.cuda and numba-cuda's numba.cuda._internal.cuda_fp8 for theirs)."""

import numba_cuda_c as cuda
from gpu import rebind
from numba_cuda_c import fp8 as F

T = F.fp8_e4m3


def bound(kernel, package, fp8_module, type_name):
    """`kernel` with `cuda`, `F` and `T` read from these (the translator and numba read a function's globals)."""
    return rebind(kernel, cuda=package, F=fp8_module, T=getattr(fp8_module, type_name))


def convert(x, f32, f64, f16, bf16, ints, uints, truth):
    # x made T, then T converted to every number type (CUDA's conversion operators)
    i = cuda.grid(1)
    if i < x.size:
        v = T(x[i])
        f32[i] = cuda.float32(v)
        f64[i] = cuda.float64(v)
        f16[i] = cuda.float32(cuda.types.float16(v))
        bf16[i] = cuda.float32(cuda.types.bfloat16(v))
        ints[i, 0] = cuda.int8(v)
        ints[i, 1] = cuda.int16(v)
        ints[i, 2] = cuda.int32(v)
        ints[i, 3] = cuda.int64(v)
        uints[i, 0] = cuda.uint8(v)
        uints[i, 1] = cuda.uint16(v)
        uints[i, 2] = cuda.uint32(v)
        uints[i, 3] = cuda.uint64(v)
        truth[i] = cuda.float32(v) != 0


def construct(x, n, out):
    # T made from each number type (each of CUDA's constructors), read back as float32
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.float32(T(cuda.types.float16(x[i])))
        out[i, 1] = cuda.float32(T(cuda.float32(x[i])))
        out[i, 2] = cuda.float32(T(x[i]))
        out[i, 3] = cuda.float32(T(cuda.types.bfloat16(x[i])))
        k = n[i]
        out[i, 4] = cuda.float32(T(cuda.int8(k)))
        out[i, 5] = cuda.float32(T(cuda.int16(k)))
        out[i, 6] = cuda.float32(T(cuda.int32(k)))
        out[i, 7] = cuda.float32(T(k))
        out[i, 8] = cuda.float32(T(cuda.uint8(k)))
        out[i, 9] = cuda.float32(T(cuda.uint16(k)))
        out[i, 10] = cuda.float32(T(cuda.uint32(k)))
        out[i, 11] = cuda.float32(T(cuda.uint64(k)))


def storage(x32, x64, e, fp8, e8m0, raws, pairs):
    # the storage conversions in every saturation, interpretation and rounding mode (e8m0 has two: cuda_fp8.hpp
    # asserts on the device for any other, as it documents)
    i = cuda.grid(1)
    if i < x32.size:
        a, b = x32[i], x64[i]
        nosat, satfinite = F.saturation_t.NOSAT, F.saturation_t.SATFINITE
        e4m3, e5m2 = F.fp8_interpretation_t.E4M3, F.fp8_interpretation_t.E5M2
        raw = F.cvt_e8m0_to_bf16raw(e[i])
        raws[i] = raw.x
        k = 0
        for saturation in (nosat, satfinite):
            for interpretation in (e4m3, e5m2):
                fp8[i, k] = F.cvt_float_to_fp8(a, saturation, interpretation)
                fp8[i, k + 4] = F.cvt_double_to_fp8(b, saturation, interpretation)
                fp8[i, k + 8] = F.cvt_bfloat16raw_to_fp8(raw, saturation, interpretation)
                k += 1
        k = 0
        for saturation in (nosat, satfinite):
            for rounding in (F.cudaRoundMode.cudaRoundZero, F.cudaRoundMode.cudaRoundPosInf):
                e8m0[i, k] = F.cvt_float_to_e8m0(a, saturation, rounding)
                e8m0[i, k + 4] = F.cvt_double_to_e8m0(b, saturation, rounding)
                e8m0[i, k + 8] = F.cvt_bfloat16raw_to_e8m0(raw, saturation, rounding)
                k += 1
        pairs[i, 0] = F.cvt_float2_to_fp8x2(cuda.float32x2(a, -a), nosat, e4m3)
        pairs[i, 1] = F.cvt_float2_to_fp8x2(cuda.float32x2(a, -a), satfinite, e5m2)
        pairs[i, 2] = F.cvt_double2_to_fp8x2(cuda.float64x2(b, -b), satfinite, e4m3)
        pairs[i, 3] = F.cvt_double2_to_fp8x2(cuda.float64x2(b, -b), nosat, e5m2)
        pairs[i, 4] = F.cvt_float2_to_e8m0x2(cuda.float32x2(a, a * 3), nosat, F.cudaRoundMode.cudaRoundPosInf)
        pairs[i, 5] = F.cvt_double2_to_e8m0x2(cuda.float64x2(b, b * 3), satfinite, F.cudaRoundMode.cudaRoundZero)


def vectors(x32, x64, got, want):
    # the pairs and quadruples of FP8 values (their bytes: .__x, which numba-cuda types but cannot lower), made from
    # float and double vectors, and what CUDA's constructors are: the storage conversions, saturating, e8m0 up
    i = cuda.grid(1)
    if i < x32.size:
        a, b = x32[i], x64[i]
        satfinite, up = F.saturation_t.SATFINITE, F.cudaRoundMode.cudaRoundPosInf
        e4m3, e5m2 = F.fp8_interpretation_t.E4M3, F.fp8_interpretation_t.E5M2
        got[i, 0] = F.fp8x2_e5m2(cuda.float32x2(a, -a)).__x
        want[i, 0] = F.cvt_float2_to_fp8x2(cuda.float32x2(a, -a), satfinite, e5m2)
        got[i, 1] = F.fp8x2_e4m3(cuda.float64x2(b, b * b)).__x
        want[i, 1] = F.cvt_double2_to_fp8x2(cuda.float64x2(b, b * b), satfinite, e4m3)
        got[i, 2] = F.fp8x2_e8m0(cuda.float32x2(a, a * a)).__x
        want[i, 2] = F.cvt_float2_to_e8m0x2(cuda.float32x2(a, a * a), satfinite, up)
        got[i, 3] = F.fp8x2_e4m3().__x
        want[i, 3] = 0
        got[i, 4] = F.fp8x4_e4m3(cuda.float32x4(a, -a, a + a, a * a)).__x
        low = F.cvt_float2_to_fp8x2(cuda.float32x2(a, -a), satfinite, e4m3)
        high = F.cvt_float2_to_fp8x2(cuda.float32x2(a + a, a * a), satfinite, e4m3)
        want[i, 4] = cuda.uint32(low) | (cuda.uint32(high) << 16)
        got[i, 5] = F.fp8x4_e8m0(cuda.float64x4(b, -b, b + b, b * b)).__x
        low = F.cvt_double2_to_e8m0x2(cuda.float64x2(b, -b), satfinite, up)
        high = F.cvt_double2_to_e8m0x2(cuda.float64x2(b + b, b * b), satfinite, up)
        want[i, 5] = cuda.uint32(low) | (cuda.uint32(high) << 16)


def arrays_and_device_functions(x, out):
    # FP8 values in local and shared arrays, a tuple, and through a device function
    i = cuda.threadIdx.x
    shared = cuda.shared.array(32, F.fp8_e5m2)
    local = cuda.local.array(2, F.fp8_e4m3)
    shared[i] = F.fp8_e5m2(x[i])
    local[0] = F.fp8_e4m3(x[i])
    local[1] = doubled(local[0])
    cuda.syncthreads()
    pair = (shared[31 - i], local[1])
    out[i, 0] = cuda.float32(pair[0])
    out[i, 1] = cuda.float32(pair[1])


@cuda.jit(device=True)
def doubled(v):
    return F.fp8_e4m3(cuda.float32(v) * 2)


def conformance_values(fp8, e8m0, raws, x32, x64, overflow32, overflow64, e):
    # the cases numba-cuda's own test_fp8_bindings.py checks, with its numbers
    nosat, satfinite = F.saturation_t.NOSAT, F.saturation_t.SATFINITE
    e4m3, e5m2 = F.fp8_interpretation_t.E4M3, F.fp8_interpretation_t.E5M2
    fp8[0] = F.cvt_float_to_fp8(x32[0], nosat, e5m2)
    fp8[1] = F.cvt_float_to_fp8(x32[0], satfinite, e5m2)
    fp8[2] = F.cvt_float_to_fp8(x32[0], nosat, e4m3)
    fp8[3] = F.cvt_float_to_fp8(x32[0], satfinite, e4m3)
    fp8[4] = F.cvt_double_to_fp8(x64[0], nosat, e5m2)
    fp8[5] = F.cvt_double_to_fp8(x64[0], satfinite, e4m3)
    up = F.cudaRoundMode.cudaRoundPosInf
    e8m0[0] = F.cvt_float_to_e8m0(overflow32[0], nosat, up)
    e8m0[1] = F.cvt_float_to_e8m0(overflow32[0], satfinite, up)
    e8m0[2] = F.cvt_double_to_e8m0(overflow64[0], nosat, up)
    e8m0[3] = F.cvt_double_to_e8m0(overflow64[0], satfinite, up)
    raw = F.cvt_e8m0_to_bf16raw(e[0])
    raws[0] = raw.x
    e8m0[4] = F.cvt_bfloat16raw_to_e8m0(raw, nosat, F.cudaRoundMode.cudaRoundZero)
    fp8[6] = F.cvt_bfloat16raw_to_fp8(F.cvt_e8m0_to_bf16raw(e[1]), nosat, e4m3)
    fp8[7] = F.cvt_bfloat16raw_to_fp8(F.cvt_e8m0_to_bf16raw(e[1]), satfinite, e5m2)
