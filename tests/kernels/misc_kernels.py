"""Kernels for tests/kernels/test_kernel_misc.py (the translator reads their source here)."""

import cmath

import numpy as np

import numba_cuda_c as cuda
from numba_cuda_c import int32


def cas_2d(res, old):
    gid = cuda.grid(2)  # a tuple of indices in a variable
    if gid[0] < res.shape[0] and gid[1] < res.shape[1]:
        old[gid] = cuda.atomic.cas(res, gid, 0, 7)


def builtins_and_membership(r, x, y):
    r[0] = pow(x[0], y[0])
    r[1] = 1 if x[0] in (1.0, 2.0) else 0
    r[2] = 1 if x[0] not in (3, 4) else 0
    r[3] = np.invert(np.int32(5))


def complex_ufuncs(c, out):
    out[0] = np.sin(c[0])
    out[1] = np.log(c[1])


def string_dtypes(x):
    s = cuda.shared.array(10, dtype="int32")
    lm = cuda.local.array(3, "float64")
    lm[0] = x[0]
    s[0] = lm[0]
    x[0] = s[0]


def bad_string_dtype(x):
    s = cuda.shared.array(10, dtype="int33")
    s[0] = x[0]


REC = np.dtype([("a", np.int32), ("b", np.float64)], align=True)


def record_arrays_in_shared_and_local_memory(out):
    sh = cuda.shared.array(4, dtype=REC)
    lo = cuda.local.array(2, REC)
    i = cuda.threadIdx.x
    sh[i].a = i
    sh[i].b = i * 0.5
    lo[0] = sh[i]
    cuda.syncthreads()
    out[i] = lo[0].a + lo[0].b + sh[3 - i].a


G = 4


def computed_shapes(r):
    s = cuda.shared.array(shape=(G, 2 * G), dtype=np.float32)  # a product of constants
    lm = cuda.local.array((3,), np.int32)
    s[0, 0] = 1
    lm[0] = 2
    r[0] = s[0, 0] + lm[0] + s.shape[1] + (G * G - 1) // 2


def list_shape(r):
    s = cuda.shared.array(shape=[G, 2], dtype=np.float32)  # numba refuses a list as a shape
    r[0] = s[0, 0]


def starred_arguments(r, z, x):
    # f(*t): a tuple's items as arguments, the tuple evaluated once
    for i in range(r.size):
        r[i] = complex(*cmath.polar(z[i]))
        pair = (x[i], x[i] * 2.0 - 3.0)
        x[i] = max(*pair) + min(1.0, *pair)


def starred_number(a):
    a[0] = max(*a[0])  # a number is not a tuple


def isinstance_checks(out, x, i):
    # isinstance in a kernel is known when it compiles (numba's): types, Python's number classes, tuples of them
    out[0] = isinstance(x, cuda.float64)
    out[1] = isinstance(i, int)
    out[2] = isinstance(x, (int, cuda.float32))
    out[3] = isinstance((x, i), tuple)
    if isinstance(x, float):
        out[4] = x
    else:
        out[4] = -1.0


def local_constant_shape(ary):
    N = 100  # assigned once: a constant where a shape needs one, as numba infers it
    sm = cuda.shared.array(N, int32)
    i = cuda.grid(1)
    if i == 0:
        for j in range(N):
            sm[j] = j
    cuda.syncthreads()
    if i < N:
        ary[i] = sm[i]


CONST_RECORD = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", float), ("y", int)])
CONST_RECORD_ALIGN = np.array(
    [(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
    dtype=np.dtype(
        [("a", np.uint8), ("b", np.uint8), ("x", np.uint8), ("y", np.uint32), ("z", np.uint8)], align=True
    ),
)
CONST_RECORD_EMPTY = np.array([], dtype=[("x", float), ("y", int)])


def constant_records(A, B, C):
    R = cuda.const.array_like(CONST_RECORD)
    Z = cuda.const.array_like(CONST_RECORD_ALIGN)
    i = cuda.grid(1)
    A[i] = R[i]["x"]
    B[i] = R[i]["y"] + len(cuda.const.array_like(CONST_RECORD_EMPTY))
    C[i] = Z[i]["y"] + CONST_RECORD[i].y  # a global record array is a constant too


def rebinding(result, arr, out):
    for i in range(1):  # re-bound to a 1-d view and back, inside the loop: each binding has its own type
        arr = arr.reshape(arr.size)
        arr = arr.reshape(3, 2)
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            result[i, j] = arr[i, j]
    x = out
    first = x[0]
    x = 2.5  # an array's name re-bound to a number
    out[0] = first + x


def object_dtype_array():
    arr = cuda.shared.array(10, dtype=np.dtype("O"))  # noqa: F841


def dtype_by_call(out):
    arr = cuda.local.array(2, dtype=np.dtype("int16"))
    arr[0] = 40000  # wraps as an int16
    out[0] = arr[0]
