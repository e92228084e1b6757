"""Kernels from CUDA C: SourceModule, load_module, launch configurations and every argument kind."""

import threading

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from subproc import run_python

pytestmark = requires_gpu

SOURCE = r"""
extern "C" __global__ void add(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
extern "C" __global__ void fill2d(double *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = y * 1000 + x;
}
extern "C" __global__ void fill3d(int *out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = z * 10000 + y * 100 + x;
}
extern "C" __global__ void reverse_block(float *data) {
    extern __shared__ float tile[];
    int t = threadIdx.x;
    tile[t] = data[blockIdx.x * blockDim.x + t];
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}
extern "C" __global__ void scalars(double *out, signed char a, short b, int c, long long d, unsigned int e,
                                   float f, double g) {
    out[0] = a; out[1] = b; out[2] = c; out[3] = (double)d; out[4] = e; out[5] = f; out[6] = g;
}
extern "C" __global__ void scale(float *a, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= factor;
}
extern "C" __global__ void trap(int *p) { *(volatile int *)0x10 = 1; p[0] = 1; }
"""


@pytest.fixture(scope="module")
def module():
    return cuda.SourceModule(SOURCE, name="kernels.cu")


def test_vector_add(module):
    add = module.get_function("add")
    assert isinstance(add, cuda.Kernel) and add.nargs == 4 and add.param_sizes == (8, 8, 8, 4)
    n = 10_000
    a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    da, db, dout = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
    add[(n + 255) // 256, 256](da, db, dout, n)
    np.testing.assert_array_equal(dout.copy_to_host(), a + b)


def test_2d_and_3d_grids(module):
    out = cuda.device_array((37, 45), np.float64)
    module.get_function("fill2d")[(3, 5), (16, 8)](out, 45, 37)
    y, x = np.mgrid[0:37, 0:45]
    np.testing.assert_array_equal(out.copy_to_host(), y * 1000 + x)
    out3 = cuda.device_array((5, 6, 7), np.int32)
    module.get_function("fill3d")[(1, 2, 3), (8, 4, 2)](out3, 7, 6, 5)
    z, y, x = np.mgrid[0:5, 0:6, 0:7]
    np.testing.assert_array_equal(out3.copy_to_host(), z * 10000 + y * 100 + x)


def test_dynamic_shared_memory_and_stream(module):
    data = np.arange(256, dtype=np.float32)
    d = cuda.to_device(data)
    s = cuda.stream()
    module.get_function("reverse_block")[4, 64, s, 64 * 4](d)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), data.reshape(4, 64)[:, ::-1].ravel())


def test_every_scalar_kind(module):
    out = cuda.device_array(7, np.float64)
    module.get_function("scalars")[1, 1](out, -5, 300, 70000, 2**40, np.uint32(4000000000), 1.5, 2.25)
    np.testing.assert_array_equal(out.copy_to_host(), [-5, 300, 70000, 2**40, 4e9, 1.5, 2.25])
    module.get_function("scalars")[1, 1](
        out, np.int8(1), np.int16(2), np.int32(3), np.int64(4), 5, np.float32(6), np.float64(7)
    )
    np.testing.assert_array_equal(out.copy_to_host(), [1, 2, 3, 4, 5, 6, 7])


def test_numpy_argument_is_copied_in_and_out(module):
    scale = module.get_function("scale")
    host = np.arange(100, dtype=np.float32)
    scale[1, 128](host, 2.0, 100)
    np.testing.assert_array_equal(host, np.arange(100, dtype=np.float32) * 2)
    strided = np.arange(200, dtype=np.float32)[::2]
    scale[1, 128](strided, 3.0, 100)
    np.testing.assert_array_equal(strided, np.arange(0, 200, 2, dtype=np.float32) * 3)


def test_cai_arguments(module):
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(50, dtype=cupy.float32)
    module.get_function("scale")[1, 64](a, 2.0, 50)
    assert float(a[49]) == 98.0
    torch = pytest.importorskip("torch")
    t = torch.ones(10, device="cuda")
    module.get_function("scale")[1, 32](t, 5.0, 10)
    assert t.sum().item() == 50.0


def test_launch_with_keywords(module):
    d = cuda.to_device(np.ones(10, np.float32))
    module.get_function("scale").launch(d, 4.0, 10, griddim=1, blockdim=32)
    assert (d.copy_to_host() == 4.0).all()


def test_config_is_cached(module):
    scale = module.get_function("scale")
    assert scale[1, 32] is scale[1, 32]
    config = scale[(2, 1), (32, 1, 1), 0, 16]
    assert (config.griddim, config.blockdim, config.sharedmem) == ((2, 1, 1), (32, 1, 1), 16)


def test_bad_launches(module):
    scale = module.get_function("scale")
    d = cuda.device_array(10, np.float32)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        scale[1, 32](d, 1.0)
    with pytest.raises(TypeError, match="argument 0"):
        scale[1, 32]("text", 1.0, 10)
    with pytest.raises(TypeError, match="argument 2"):
        scale[1, 32](d, 1.0, 2**40)
    with pytest.raises(TypeError, match="argument 1"):
        scale[1, 32](d, d, 10)
    with pytest.raises(cuda.CudaAPIError, match="CUDA_ERROR_INVALID_VALUE: .*at most"):
        scale[1, 2048]
    with pytest.raises(ValueError):
        scale[1]
    with pytest.raises(ValueError):
        scale[0, 32]
    with pytest.raises(ValueError, match="launch configuration"):
        scale(d, 1.0, 10)
    with pytest.raises(cuda.CudaAPIError):
        module.get_function("no_such_kernel")
    with pytest.raises(cuda.CudaAPIError, match="CUDA_ERROR_INVALID_VALUE"):
        module.get_function("reverse_block")[1, 32, 0, 10**8](d)


def test_kernel_attributes(module):
    add = module.get_function("add")
    assert add.get_regs_per_thread() > 0
    assert add.get_max_threads_per_block() <= 1024
    assert add.get_shared_mem_per_block() == 0
    assert add.get_local_mem_per_thread() >= 0 and add.get_const_mem_size() >= 0


def test_load_module_from_ptx_and_cubin(module, tmp_path):
    from numba_cuda_c.toolchain import compiler

    ptx = compiler.compile_image(SOURCE, ptx=True, arch=(7, 5))
    loaded = cuda.load_module(ptx)
    d = cuda.to_device(np.ones(4, np.float32))
    loaded.get_function("scale")[1, 4](d, 3.0, 4)
    assert (d.copy_to_host() == 3.0).all()
    path = tmp_path / "k.cubin"
    path.write_bytes(module.image)
    cuda.load_module(str(path)).get_function("scale")[1, 4](d, 2.0, 4)
    assert (d.copy_to_host() == 6.0).all()


def test_ten_thousand_launches_leak_nothing(module):
    import sys

    scale = module.get_function("scale")
    d = cuda.to_device(np.ones(32, np.float32))
    config = scale[1, 32]
    refs = sys.getrefcount(d), sys.getrefcount(config)
    for _ in range(10_000):
        config(d, 1.0, 32)
    cuda.synchronize()
    assert (sys.getrefcount(d), sys.getrefcount(config)) == refs


def test_launches_from_threads(module):
    scale = module.get_function("scale")
    arrays = [cuda.to_device(np.ones(64, np.float32)) for _ in range(8)]

    def work(d):
        s = cuda.stream()
        for _ in range(100):
            scale[1, 64, s](d, 1.01, 64)
        s.synchronize()

    threads = [threading.Thread(target=work, args=(d,)) for d in arrays]
    [t.start() for t in threads]
    [t.join() for t in threads]
    expected = np.float32(1)
    for _ in range(100):
        expected = np.float32(expected * np.float32(1.01))
    for d in arrays:
        np.testing.assert_allclose(d.copy_to_host(), expected, rtol=1e-6)


def test_trap_is_reported_and_a_fresh_process_recovers():
    # An illegal address is a sticky error: CUDA keeps the context unusable (on driver 580 even a
    # primary-context reset does not bring it back), so the error must surface, clearly, at the next
    # sync and on later calls, without a crash; a new process then has the GPU again.
    out = run_python(
        """
        import numba_cuda_c as cuda, numpy as np
        m = cuda.SourceModule('extern "C" __global__ void trap(int *p) { *(volatile int *)0x10 = 1; }')
        d = cuda.device_array(1, np.int32)
        m.get_function("trap")[1, 1](d)
        for call in (cuda.synchronize, lambda: cuda.device_array(4), cuda.stream().synchronize):
            try:
                call()
                raise SystemExit("no error")
            except cuda.CudaAPIError as e:
                assert "CUDA_ERROR_ILLEGAL_ADDRESS" in str(e) and e.code == 700, e
        print("trap reported")
        """
    )
    assert "trap reported" in out
    out = run_python(
        """
        import numba_cuda_c as cuda, numpy as np
        assert list(cuda.to_device(np.arange(3)).copy_to_host()) == [0, 1, 2]
        print("fresh ok")
        """
    )
    assert "fresh ok" in out
