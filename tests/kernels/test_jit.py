"""@cuda.jit Python kernels on the GPU: numba's documentation examples (vector add, matrix multiply, naive and
with shared memory, a shared-memory reduction, stencils), the dispatcher's API (forall, eager signatures,
specialize, inspect_*, signatures), argument kinds (device arrays, NumPy arrays, CuPy/PyTorch through
__cuda_array_interface__, scalars), streams, constant arrays and cache=True.

Each kernel runs on fresh random inputs and is checked against NumPy. Kernels are defined at module level
(the translator reads their source), except the eagerly compiled ones, which compile when defined. The rest
of @cuda.jit's kernels on the GPU: test_jit_atomics.py, test_jit_integers_and_math.py,
test_jit_control_flow.py, test_jit_arrays.py.
"""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from jit_helpers import blocks, rng  # noqa: F401  (rng: a fixture)
from numba_cuda_c import float32, float64

pytestmark = requires_gpu

TPB = 16  # tile width of the shared-memory matrix multiply
RED_TPB = 128  # threads per block of the reduction


# ---------------------------------------------------------------------------------------------
# numba's documentation examples
# ---------------------------------------------------------------------------------------------


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_vector_add(rng, dtype):
    n = 20_011
    a = (rng.standard_normal(n) * 1000).astype(dtype)
    b = (rng.standard_normal(n) * 1000).astype(dtype)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_out = cuda.device_array_like(a)
    vector_add[blocks(n, 256), 256](d_a, d_b, d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), a + b)


@cuda.jit
def matmul(A, B, C):
    """Naive matrix multiply: one thread per element of C."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


def test_matmul_naive(rng):
    A = rng.random((37, 53), dtype=np.float32)
    B = rng.random((53, 29), dtype=np.float32)
    d_C = cuda.device_array((37, 29), np.float32)
    matmul[(blocks(37, 16), blocks(29, 16)), (16, 16)](cuda.to_device(A), cuda.to_device(B), d_C)
    expected = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(d_C.copy_to_host(), expected, rtol=1e-6)


@cuda.jit
def fast_matmul(A, B, C):
    """numba's shared-memory matrix multiply: TPB x TPB tiles staged in shared memory."""
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    tmp = float32(0.0)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@pytest.mark.parametrize("m, k, n", [(64, 64, 64), (70, 50, 60), (33, 17, 49)])
def test_matmul_shared_memory(rng, m, k, n):
    # the kernel walks gridDim.x tiles along k: the grid's x extent must cover k
    assert blocks(n, TPB) >= blocks(k, TPB)
    A = rng.random((m, k), dtype=np.float32)
    B = rng.random((k, n), dtype=np.float32)
    d_C = cuda.device_array((m, n), np.float32)
    fast_matmul[(blocks(n, TPB), blocks(m, TPB)), (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), d_C)
    expected = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(d_C.copy_to_host(), expected, rtol=1e-5)  # float32 accumulation


@cuda.jit
def block_sum(a, partial):
    """Tree reduction in shared memory: one partial sum per block."""
    s = cuda.shared.array(RED_TPB, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = a[i] if i < a.size else 0
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if tid < stride:
            s[tid] += s[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = s[0]


def test_shared_memory_reduction(rng):
    n = 10_000
    a = rng.standard_normal(n)
    nblocks = blocks(n, RED_TPB)
    d_partial = cuda.device_array(nblocks, np.float64)
    block_sum[nblocks, RED_TPB](cuda.to_device(a), d_partial)
    partial = d_partial.copy_to_host()
    padded = np.zeros(nblocks * RED_TPB)
    padded[:n] = a
    np.testing.assert_allclose(partial, padded.reshape(nblocks, RED_TPB).sum(axis=1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(partial.sum(), a.sum(), rtol=1e-10, atol=1e-9)


@cuda.jit
def stencil_1d(a, out, radius):
    i = cuda.grid(1)
    n = a.shape[0]
    if i >= radius and i < n - radius:
        total = 0.0
        for k in range(-radius, radius + 1):
            total += a[i + k]
        out[i] = total


def test_stencil_1d(rng):
    n, radius = 5000, 3
    a = rng.standard_normal(n)
    before = rng.standard_normal(n)
    d_out = cuda.to_device(before)
    stencil_1d[blocks(n, 128), 128](cuda.to_device(a), d_out, radius)
    out = d_out.copy_to_host()
    expected = np.convolve(a, np.ones(2 * radius + 1), mode="valid")
    np.testing.assert_allclose(out[radius : n - radius], expected, rtol=1e-12, atol=1e-12)
    # the borders are left alone
    np.testing.assert_array_equal(out[:radius], before[:radius])
    np.testing.assert_array_equal(out[n - radius :], before[n - radius :])


@cuda.jit
def stencil_2d(a, out):
    """The 5-point Laplacian on the interior."""
    i, j = cuda.grid(2)
    if 0 < i < a.shape[0] - 1 and 0 < j < a.shape[1] - 1:
        out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]


def test_stencil_2d(rng):
    a = rng.standard_normal((61, 83))
    before = rng.standard_normal(a.shape)
    d_out = cuda.to_device(before)
    stencil_2d[(blocks(61, 8), blocks(83, 16)), (8, 16)](cuda.to_device(a), d_out)
    out = d_out.copy_to_host()
    expected = before.copy()
    expected[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out[0], before[0])
    np.testing.assert_array_equal(out[:, -1], before[:, -1])


# ---------------------------------------------------------------------------------------------
# The dispatcher and argument kinds
# ---------------------------------------------------------------------------------------------


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


def test_forall(rng):
    n = 10_001
    a = rng.standard_normal(n)
    d_a = cuda.to_device(a)
    scale.forall(n)(d_a, 2.5)
    np.testing.assert_array_equal(d_a.copy_to_host(), a * 2.5)
    scale.forall(n, tpb=64)(d_a, -1.0)
    np.testing.assert_array_equal(d_a.copy_to_host(), -(a * 2.5))


def test_eager_compilation_with_a_signature(rng):
    @cuda.jit("void(float32[:], float32[:])")
    def doubled(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i] * 2

    assert len(doubled.overloads) == 1  # compiled when defined
    a = rng.standard_normal(1000).astype(np.float32)
    d_dst = cuda.device_array_like(a)
    doubled[blocks(1000, 128), 128](cuda.to_device(a), d_dst)
    np.testing.assert_array_equal(d_dst.copy_to_host(), a * 2)
    assert len(doubled.overloads) == 1


def test_eager_compilation_with_several_signatures(rng):
    @cuda.jit(["void(float32[:], float32[:])", "void(int64[:], int64[:])"])
    def negate(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = -src[i]

    assert len(negate.overloads) == 2
    for a in (rng.standard_normal(300).astype(np.float32), rng.integers(-100, 100, 300)):
        d_dst = cuda.device_array_like(a)
        negate[3, 128](cuda.to_device(a), d_dst)
        np.testing.assert_array_equal(d_dst.copy_to_host(), -a)
    assert len(negate.overloads) == 2


def test_one_compilation_per_argument_types(rng):
    @cuda.jit
    def plus_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    for dtype in (np.float32, np.float64, np.float32, np.int32):
        a = rng.integers(0, 100, 50).astype(dtype)
        d_a = cuda.to_device(a)
        plus_one[1, 64](d_a)
        np.testing.assert_array_equal(d_a.copy_to_host(), a + 1)
    assert len(plus_one.overloads) == 3


def test_specialize(rng):
    a = rng.standard_normal(500).astype(np.float32)
    d_a = cuda.to_device(a)
    specialized = scale.specialize(d_a, np.float32(3))
    assert len(specialized.overloads) == 1
    specialized[4, 128](d_a, np.float32(3))
    np.testing.assert_array_equal(d_a.copy_to_host(), a * np.float32(3))


def test_inspect_asm_source_and_registers(rng):
    sig = "void(float32[:], float32[:], float32[:])"
    asm = vector_add.inspect_asm(sig)
    assert ".entry" in asm and "ld.global.f32" in asm
    source = vector_add.inspect_source(sig)
    assert "__global__" in source and "Array<float, 1>" in source
    regs = vector_add.get_regs_per_thread(sig)
    assert isinstance(regs, int) and regs > 0
    a = rng.standard_normal(10).astype(np.float32)
    vector_add[1, 32](cuda.to_device(a), cuda.to_device(a), cuda.device_array_like(a))
    every = vector_add.inspect_asm()
    assert every and all(".entry" in text for text in every.values())
    # looked up by the signature as numba users write it (layouts and all), as numba keys its dict
    # (other tests compile vector_add for other types: the entry of this launch's, not the dict's first)
    launched = vector_add.inspect_asm("void(float32[::1], float32[::1], float32[::1])")
    assert every[(cuda.float32[::1], cuda.float32[::1], cuda.float32[::1])] == launched
    assert vector_add.inspect_source()[(cuda.float32[:],) * 3] == source
    assert all(count > 0 for count in vector_add.get_regs_per_thread().values())
    assert (
        fast_matmul.get_shared_mem_per_block("void(float32[:, :], float32[:, :], float32[:, :])")
        == 2 * TPB * TPB * 4
    )


def test_numpy_arrays_are_copied_in_and_out(rng):
    a = rng.standard_normal(1000)
    b = rng.standard_normal(1000)
    out = np.full(1000, np.nan)
    vector_add[blocks(1000, 128), 128](a, b, out)
    np.testing.assert_array_equal(out, a + b)
    before = a.copy()
    scale[blocks(1000, 128), 128](a, 3.0)  # the kernel's writes come back into the host array
    np.testing.assert_array_equal(a, before * 3.0)


@cuda.jit
def scalars_kernel(out, i64, f64, flag, f32, i32, u8):
    out[0] = i64
    out[1] = f64
    out[2] = flag
    out[3] = f32
    out[4] = i32
    out[5] = u8
    out[6] = i64 // 7


def test_scalar_arguments(rng):
    i64 = int(rng.integers(-(2**62), 2**62))
    f64 = float(rng.standard_normal())
    f32 = np.float32(rng.standard_normal())
    i32 = np.int32(rng.integers(-(2**31), 2**31 - 1))
    d_out = cuda.device_array(7)
    scalars_kernel[1, 1](d_out, i64, f64, True, f32, i32, np.uint8(200))
    out = d_out.copy_to_host()
    np.testing.assert_array_equal(out, [float(i64), f64, 1.0, float(f32), float(i32), 200.0, float(i64 // 7)])


def test_cupy_arrays(rng):
    cupy = pytest.importorskip("cupy")
    a = rng.standard_normal(5000).astype(np.float32)
    b = rng.standard_normal(5000).astype(np.float32)
    c_a, c_b = cupy.asarray(a), cupy.asarray(b)
    c_out = cupy.zeros(5000, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    vector_add[blocks(5000, 128), 128](c_a, c_b, c_out)
    cuda.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(c_out), a + b)


def test_torch_tensors(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    a = rng.standard_normal((37, 29)).astype(np.float32)
    b = rng.standard_normal((29, 23)).astype(np.float32)
    t_a, t_b = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    t_c = torch.zeros((37, 23), dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    matmul[(3, 2), (16, 16)](t_a, t_b, t_c)
    cuda.synchronize()
    np.testing.assert_allclose(t_c.cpu().numpy(), a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_launch_on_a_stream(rng):
    n = 50_000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    stream = cuda.stream()
    d_a = cuda.to_device(a, stream=stream)
    d_b = cuda.to_device(b, stream=stream)
    d_out = cuda.device_array(n, np.float32, stream=stream)
    vector_add[blocks(n, 256), 256, stream](d_a, d_b, d_out)
    scale[blocks(n, 256), 256, stream](d_out, np.float32(0.5))
    out = d_out.copy_to_host(stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(out, (a + b) * np.float32(0.5))


def test_launch_on_a_stream_with_numpy_arrays(rng):
    a = rng.standard_normal(3000)
    b = rng.standard_normal(3000)
    out = np.zeros(3000)
    stream = cuda.stream()
    vector_add[blocks(3000, 128), 128, stream](a, b, out)
    stream.synchronize()
    np.testing.assert_array_equal(out, a + b)


CONST_TABLE_GPU = np.random.default_rng().random((3, 5))


@cuda.jit
def const_table_kernel(out):
    table = cuda.const.array_like(CONST_TABLE_GPU)
    i, j = cuda.grid(2)
    if i < table.shape[0] and j < table.shape[1]:
        out[i, j] = table[i, j] + 1.0


def test_const_array_like():
    out = cuda.device_array((3, 5), np.float64)
    const_table_kernel[1, (4, 8)](out)
    np.testing.assert_array_equal(out.copy_to_host(), CONST_TABLE_GPU + 1.0)


# ---------------------------------------------------------------------------------------------
# cache=True: a new process loads the translation and the image from disk
# ---------------------------------------------------------------------------------------------


CACHED_MODULE = """
import numba_cuda_c as cuda

@cuda.jit(cache=True)
def scale(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i]
"""


CACHED_RUN = """
import os, sys
sys.path.insert(0, {directory!r})
import numpy as np
import numba_cuda_c as cuda
import cached_scale
x = np.arange(1000, dtype=np.float32)
out = cuda.device_array_like(x)
cached_scale.scale[8, 128](out, cuda.to_device(x), np.float32(3))
assert (out.copy_to_host() == 3 * x).all()
maps = open("/proc/self/maps").read()
print("translated:", "numba_cuda_c.pyjit.translate" in sys.modules, "nvrtc:", "libnvrtc" in maps)
"""


def test_cache_true_serves_a_new_process_from_disk(tmp_path):
    from subproc import run_python

    (tmp_path / "cached_scale.py").write_text(CACHED_MODULE)
    env = {"NUMBA_CUDA_C_CACHE_DIR": str(tmp_path / "cache")}
    first = run_python(CACHED_RUN.format(directory=str(tmp_path)), **env)
    assert "translated: True nvrtc: True" in first
    again = run_python(CACHED_RUN.format(directory=str(tmp_path)), **env)
    assert "translated: False nvrtc: False" in again  # neither the translator nor NVRTC: all from disk


def test_signatures_lists_what_was_compiled():
    def fill(a):
        a[0] = 1

    kernel = cuda.jit(fill)
    assert kernel.signatures == []
    kernel[1, 1](np.zeros(1))
    kernel[1, 1](np.zeros((2, 2), np.int32))
    first, second = kernel.signatures  # the argument types each kernel was compiled for, in order
    assert [(a.dtype, a.ndim) for (a,) in (first, second)] == [(cuda.float64, 1), (cuda.int32, 2)]
    assert ".entry" in kernel.inspect_asm(first)
