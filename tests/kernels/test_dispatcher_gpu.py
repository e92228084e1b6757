"""numba's dispatcher around a launch, on the GPU, beside numba-cuda where it is installed: argument extensions,
pre-launch callbacks, print()'s formats in constant memory, and kernels declared with
cuda.random.xoroshiro128p_type."""

import numpy as np
import pytest

import numba_cuda_c as cuda
import dispatcher_kernels as dk
from gpu import numba_cuda_or_skip, requires_gpu

pytestmark = requires_gpu


def _default_in(target):
    """numba's test extension: every argument as target.In(...) (copied to the device, not back)."""

    class DefaultIn:
        def prepare_args(self, ty, val, **kwargs):
            return ty, target.args.wrap_arg(val, default=target.In)

    return DefaultIn()


def test_an_extension_makes_arrays_input_only():
    kernel = cuda.jit(dk.add_one, extensions=[_default_in(cuda)])
    host = np.zeros(64)
    kernel[1, 64](host)
    assert not host.any()  # copied to the device only
    device = cuda.to_device(host)
    kernel[1, 64](device)
    np.testing.assert_array_equal(device.copy_to_host(), np.ones(64))


def test_an_extension_as_numba_cuda_applies_it():
    numba_cuda = numba_cuda_or_skip()

    def add_one(a):
        i = numba_cuda.grid(1)
        if i < a.size:
            a[i] += 1

    theirs_kernel = numba_cuda.jit(add_one)
    theirs_kernel.extensions.append(_default_in(numba_cuda))
    ours, theirs = np.arange(32.0), np.arange(32.0)
    cuda.jit(dk.add_one, extensions=[_default_in(cuda)])[1, 32](ours)
    theirs_kernel[1, 32](theirs)
    np.testing.assert_array_equal(ours, theirs)  # untouched both: copied in only
    ours_device, theirs_device = cuda.to_device(ours), numba_cuda.to_device(theirs)
    cuda.jit(dk.add_one, extensions=[_default_in(cuda)])[1, 32](ours_device)
    theirs_kernel[1, 32](theirs_device)
    np.testing.assert_array_equal(ours_device.copy_to_host(), theirs_device.copy_to_host())


def test_pre_launch_callbacks_run_before_each_launch():
    kernel = cuda.jit(dk.add_one)
    device = cuda.to_device(np.zeros(16))
    configured = kernel[1, 16]
    seen = []
    configured.pre_launch_callbacks.append(
        lambda compiled, config: seen.append((compiled.argument_types, config.blockdim, device.copy_to_host()[0]))
    )
    configured(device)
    configured(device)
    assert [s[2] for s in seen] == [0.0, 1.0]  # each before its launch
    assert seen[0][:2] == (kernel.signatures[0], (16, 1, 1))
    np.testing.assert_array_equal(device.copy_to_host(), np.full(16, 2.0))


def test_print_formats_are_in_constant_memory():
    kernel = cuda.jit(dk.print_when)
    kernel[1, 1](1, False)
    kernel[1, 1](1.0, False)
    assert kernel.get_const_mem_size(cuda.void(cuda.int64, cuda.boolean)) >= 6  # b"%lld\n\0", as numba's
    assert kernel.get_const_mem_size(cuda.void(cuda.float64, cuda.boolean)) >= 4  # b"%f\n\0"


def test_a_kernel_declared_with_the_state_type_gives_numbas_numbers():
    from numba_cuda_c.random import create_xoroshiro128p_states, xoroshiro128p_type

    kernel = cuda.jit(cuda.void(xoroshiro128p_type[::1], cuda.float32[::1]))(dk.uniform_numbers)
    states = create_xoroshiro128p_states(256, seed=7)
    out = cuda.device_array(256, dtype=np.float32)
    kernel[2, 128](states, out)
    got = out.copy_to_host()
    assert ((got >= 0) & (got < 1)).all() and len(set(got.tolist())) > 200

    numba_cuda = numba_cuda_or_skip()
    nrandom = pytest.importorskip("numba.cuda.random")

    def numba_uniform(states, out):
        i = numba_cuda.grid(1)
        if i < out.shape[0]:
            out[i] = nrandom.xoroshiro128p_uniform_float32(states, i)

    sig = numba_cuda.types.void(nrandom.xoroshiro128p_type[::1], numba_cuda.types.float32[::1])
    theirs = numba_cuda.device_array(256, dtype=np.float32)
    numba_cuda.jit(sig)(numba_uniform)[2, 128](nrandom.create_xoroshiro128p_states(256, seed=7), theirs)
    np.testing.assert_array_equal(got, theirs.copy_to_host())
