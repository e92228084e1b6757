"""Kernels for tests/kernels/test_vector_types.py (the translator reads their source here)."""

import numba_cuda_c as cuda


def fancy_float32(res):
    # numba's constructors: numbers and vectors of the same base type, their elements in order
    one, two, three, four = cuda.float32(1), cuda.float32(2), cuda.float32(3), cuda.float32(4)
    f1 = cuda.float32x1(one)
    f2 = cuda.float32x2(two, three)
    f3 = cuda.float32x3(f2, one)
    f4 = cuda.float32x4(f1, f3)
    g3 = cuda.float3(one, f2)  # an alias of float32x3
    g4 = cuda.float4(f2, f2)
    j = 0
    for v in (f3, g3):  # vectors in a tuple, unrolled
        res[j] = v.x
        res[j + 1] = v.y
        res[j + 2] = v.z
        j += 3
    for v in tuple((f4,)):  # the same name, another type in another loop; tuple() of a tuple
        res[6] = v.x
        res[7] = v.y
        res[8] = v.z
        res[9] = v.w
    res[10] = g4.w + four
    res[11] = cuda.float32x2(f2).y


def every_vector_type(out, name_index):
    # one element sum of each kind, converted from Python numbers
    out[0] = cuda.int8x4(1, 2, 3, 4).w
    out[1] = cuda.uint16x3(5, 6, 7).z
    out[2] = cuda.int32x2(-8, 9).x
    out[3] = cuda.uint64x1(10).x
    out[4] = cuda.double2(1.5, 2.5).y
    out[5] = cuda.long3(11, 12, 13).y
    out[6] = cuda.uchar4(14, 15, 16, 17).x
    out[7] = cuda.longlong4(cuda.longlong2(18, 19), 20, 21).y


def wrong_count(res):
    res[0] = cuda.float32x3(cuda.float32(1), cuda.float32(2)).x


def wrong_attribute(res):
    res[0] = cuda.float32x2(cuda.float32(1), cuda.float32(2)).z


def mixed_bases(res):
    res[0] = cuda.float32x2(cuda.float64x1(1.0), cuda.float32(2)).x
