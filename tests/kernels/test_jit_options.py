"""@cuda.jit's options beyond the compile flags, as numba takes them: launch_bounds (__launch_bounds__,
checked in the PTX and by the launch), shared_memory_carveout (numba's names and range, set on the
function in each context), forceinline and lto. Checks and PTX in CI; launches on the GPU."""

import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu


def add_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = i + 1


def nothing():
    pass


@needs_nvrtc
@pytest.mark.parametrize(
    "bounds, present, absent",
    [
        (128, [r"\.maxntid\s+128"], [".minnctapersm", ".maxclusterrank"]),
        ((128,), [r"\.maxntid\s+128"], [".minnctapersm", ".maxclusterrank"]),
        ((128, 2), [r"\.minnctapersm\s+2"], [".maxclusterrank"]),
        ((128, 2, 4), [r"\.minnctapersm\s+2", r"\.maxclusterrank\s+4"], []),
    ],
)
def test_launch_bounds_reach_the_ptx(bounds, present, absent):
    ptx, _ = cuda.compile_ptx(nothing, "void()", launch_bounds=bounds, cc=(9, 0))
    for pattern in present:
        assert re.search(pattern, ptx), pattern
    for text in absent:
        assert text not in ptx


@pytest.mark.parametrize(
    "options, error, words",
    [
        (dict(launch_bounds=(128, 2, 4, 8)), ValueError, "Got 4 launch bounds:"),
        (dict(launch_bounds=(0,)), ValueError, "positive"),
        (dict(shared_memory_carveout=150), ValueError, "must be between -1 and 100"),
        (dict(shared_memory_carveout=-2), ValueError, "must be between -1 and 100"),
        (dict(shared_memory_carveout="InvalidOption"), ValueError, "Invalid carveout value"),
        (dict(shared_memory_carveout=0.5), TypeError, "must be str or int"),
        (dict(no_such_option=1), TypeError, "unknown @jit options: no_such_option"),
    ],
)
def test_bad_options_are_refused_at_decoration(options, error, words):
    with pytest.raises(error, match=words):
        cuda.jit(**options)(add_one)
    with pytest.raises(error, match=words):
        cuda.jit("void(int32[:])", **options)(add_one)


@pytest.mark.parametrize("slip", [3, 2.5, {"device": True}, b"void()"])
def test_what_is_neither_a_function_nor_a_signature_is_refused_at_decoration(slip):
    from numba_cuda_c.simulator import kernel as simulated

    for jit in (cuda.jit, simulated.jit):
        with pytest.raises(TypeError, match="cuda.jit takes a function, a signature or a list of signatures, not "):
            jit(slip)


@needs_nvrtc
def test_forceinline_and_lto_are_accepted():
    helper = cuda.jit(device=True, forceinline=True)(lambda x: x * 2)

    def kernel(a):
        a[0] = helper(a[0])

    dispatcher = cuda.jit(lto=True)(kernel)
    source = dispatcher.inspect_source("void(float64[::1])")
    assert "__device__ __forceinline__ double" in source
    ptx, _ = cuda.compile(lambda x: x + 1, "float64(float64)", device=True, forceinline=True, cc=(9, 0))
    assert ".func" in ptx


@requires_gpu
def test_a_launch_over_the_bound_fails_and_one_within_runs():
    f = cuda.jit(launch_bounds=128)(nothing)
    f[1, 128]()
    cuda.synchronize()
    with pytest.raises(cuda.CudaAPIError, match="CUDA_ERROR_INVALID_VALUE"):
        f[1, 256]()


@requires_gpu
@pytest.mark.parametrize("carveout", ["MaxL1", "MaxShared", "default", 0, 50, 100, -1])
def test_kernels_with_a_carveout_run(carveout):
    x = np.zeros(10, dtype=np.int32)
    for kernel in (
        cuda.jit(shared_memory_carveout=carveout)(add_one),
        cuda.jit("void(int32[:])", shared_memory_carveout=carveout)(add_one),
    ):
        d = cuda.to_device(x)
        kernel[1, 10](d)
        np.testing.assert_array_equal(d.copy_to_host(), np.arange(1, 11))


@needs_nvrtc
def test_compile_all_returns_the_ptx_and_what_it_links(tmp_path):
    source = tmp_path / "add.cu"
    source.write_text('extern "C" __device__ int add_cu(int *ret, int a, int b) { *ret = a + b; return 0; }\n')
    add_cu = cuda.declare_device("add_cu", "int32(int32, int32)", link=[str(source)])
    kernel = tmp_path / "ca_kernel.py"
    kernel.write_text("def k(r, x):\n    r[0] = add_cu(x[0], 2)\n")
    import runpy

    k = runpy.run_path(str(kernel), init_globals={"add_cu": add_cu})["k"]
    with pytest.raises(
        NotImplementedError, match="The C ABI is not supported for kernels"
    ):  # compile_all's default
        cuda.compile_all(k, "void(int32[::1], int32[::1])", device=False, output="ptx", cc=(9, 0))
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fastcall"):
        cuda.compile_ptx(k, "void(int32[::1], int32[::1])", abi="fastcall")
    codes, resty = cuda.compile_all(
        k, "void(int32[::1], int32[::1])", device=False, output="ptx", cc=(9, 0), abi="numba"
    )
    assert len(codes) == 2 and ".visible .entry" in codes[0] and "add_cu" in codes[1] and resty == cuda.void
    codes, resty = cuda.compile_all(lambda x, y: x + y, "float32(float32, float32)", output="ptx", cc=(9, 0))
    assert len(codes) == 1 and ".func" in codes[0] and resty == cuda.float32
    with pytest.raises(NotImplementedError, match="LTO-IR"):
        cuda.compile_all(add_one, "void(int32[::1])")  # numba's default output is LTO-IR
    with pytest.raises(ValueError, match="forced inlining"):
        cuda.compile_all(add_one, "void(int32[::1])", output="ptx", forceinline=True)


@needs_nvrtc
def test_compile_of_a_device_function_keeps_its_declared_return_type_and_name():
    def add(x, y):
        return x + y

    for sig, returned in [
        (cuda.int32(cuda.int32, cuda.int32), cuda.int32),
        ("int16(int16, int16)", cuda.int16),
        ((cuda.float32, cuda.float32), cuda.float32),
    ]:
        ptx, resty = cuda.compile_ptx(add, sig, device=True, cc=(9, 0))
        assert resty == returned, (sig, resty)
    ptx, _ = cuda.compile(add, "int32(int32, int32)", device=True, cc=(9, 0), abi_info={"abi_name": "_Z4funcii"})
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+_Z4funcii\(", ptx)
    with pytest.raises(NotImplementedError, match="Unsupported output type: illegal"):
        cuda.compile(add, "int32(int32, int32)", device=True, output="illegal")


@needs_nvrtc
def test_nanosleep_arch_specific_targets_and_void_kernels():
    def use_nanosleep(x):
        cuda.nanosleep(32)
        cuda.nanosleep(x)

    ptx, _ = cuda.compile_ptx(use_nanosleep, (cuda.uint32,), cc=(9, 0))
    assert ptx.count("nanosleep.u32") == 2
    ptx, _ = cuda.compile_ptx(nothing, (), cc=(9, 0, "a"))  # numba's architecture-specific cc
    assert ".target sm_90a" in ptx

    def returns(x, y):
        return x[0] + y[0]

    with pytest.raises(TypeError, match="must have void return type"):
        cuda.compile_ptx(returns, (cuda.uint32[::1], cuda.uint32[::1]))
