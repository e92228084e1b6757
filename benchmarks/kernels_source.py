"""The kernels bench_kernels.py times: numba's documentation examples, written once and compiled by
both numba-cuda and numba_cuda_c (`make(cuda)` builds them against either module)."""

import math

TPB = 16
BLOCK = 256


def make(cuda):
    float32 = cuda.float32

    @cuda.jit
    def matmul_shared(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = float32(0.0)
        for i in range(bpg):
            sA[ty, tx] = A[y, tx + i * TPB]
            sB[ty, tx] = B[ty + i * TPB, x]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        C[y, x] = tmp

    @cuda.jit
    def reduce_sum(a, partial):
        cache = cuda.shared.array(BLOCK, dtype=float32)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        total = float32(0.0)
        stride = cuda.gridsize(1)
        while i < a.size:
            total += a[i]
            i += stride
        cache[tid] = total
        cuda.syncthreads()
        step = BLOCK // 2
        while step > 0:
            if tid < step:
                cache[tid] += cache[tid + step]
            cuda.syncthreads()
            step //= 2
        if tid == 0:
            partial[cuda.blockIdx.x] = cache[0]

    @cuda.jit
    def stencil_2d(a, out):
        x, y = cuda.grid(2)
        if 0 < x < a.shape[1] - 1 and 0 < y < a.shape[0] - 1:
            out[y, x] = 0.25 * (a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1]) - a[y, x]

    @cuda.jit
    def warp_reduce_sum(a, partial):
        # a grid-stride sum per thread, then the warp's sum by shuffles, one atomic per warp
        i = cuda.grid(1)
        total = float32(0.0)
        stride = cuda.gridsize(1)
        while i < a.size:
            total += a[i]
            i += stride
        offset = 16
        while offset > 0:
            total += cuda.shfl_down_sync(0xFFFFFFFF, total, offset)
            offset //= 2
        if cuda.laneid == 0:
            cuda.atomic.add(partial, cuda.blockIdx.x, total)

    return matmul_shared, reduce_sum, stencil_2d, warp_reduce_sum


def make_monte_carlo(cuda, random):
    """Monte Carlo pi: each thread draws `samples` points with its own xoroshiro128+ generator."""
    float32 = cuda.float32

    @cuda.jit
    def monte_carlo_pi(states, samples, hits):
        i = cuda.grid(1)
        if i < hits.size:
            inside = 0
            for _ in range(samples):
                x = random.xoroshiro128p_uniform_float32(states, i)
                y = random.xoroshiro128p_uniform_float32(states, i)
                if x * x + y * y <= float32(1.0):
                    inside += 1
            hits[i] = inside

    return monte_carlo_pi


def make_ufunc(cuda):
    """A @vectorize ufunc (numba's CUDA ufuncs): the length of (x, y), element by element."""

    @cuda.vectorize(["float32(float32, float32)"])
    def length(x, y):
        return math.sqrt(x * x + y * y)

    return length
