"""Generalized ufuncs for tests/kernels/test_gufunc.py (the translator reads their source from this file)."""

import numba_cuda_c as cuda
from numba_cuda_c import float32, float64, int32, void


@cuda.guvectorize(
    [void(float32[:, :], float32[:, :], float32[:, :]), void(float64[:, :], float64[:, :], float64[:, :])],
    "(m,n),(n,p)->(m,p)",
)
def matmul(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


@cuda.guvectorize(["void(int32, int32[:])"], "()->()")
def twice(inp, out):
    out[0] = inp * 2


@cuda.guvectorize(["void(float32, float32[:], float32[:], float32[:])"], "(),(t),(t)->(t)")
def saxpy(a, x, y, out):
    for i in range(out.shape[0]):
        out[i] = a * x[i] + y[i]


@cuda.guvectorize([(int32[:], int32[:], float64[:])], "(x)->(x),(x)")
def copy_and_scale(a, b, c):
    for i in range(a.size):
        b[i] = a[i]
        c[i] = a[i] * 1.5


@cuda.guvectorize([(float64[:], float64[:], float64[:])], "(n),(n)->()")
def dot(x, y, r):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    r[0] = s
