"""numba_cuda_c.random: xoroshiro128+ states and draws the same as numba's for the same seed. The jump
by powers of two (the GPU initialiser's method) against numba's one-after-another jumps in Python (CI);
on the GPU: the states, the uniform draws against a Python model of the generator, and the draws against
numba-cuda's own where it is installed."""

import math

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import numba_cuda_or_skip, requires_gpu
from numba_cuda_c import random as rnd
from numba_cuda_c import xoroshiro
from numba_cuda_c.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64,
    xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)


def sequential_states(n, seed, start=0):
    """numba's init_xoroshiro128p_states_cpu, in Python: each state the previous one jumped."""
    s0 = s1 = xoroshiro.splitmix64(seed & xoroshiro.MASK)
    for _ in range(start):
        s0, s1 = xoroshiro.jump(s0, s1)
    states = [(s0, s1)]
    for _ in range(n - 1):
        states.append(xoroshiro.jump(*states[-1]))
    return states


def jumped(seed, index):
    """The state `index` jumps in, by the powers of two (the GPU kernel's method)."""
    a = b = xoroshiro.splitmix64(seed & xoroshiro.MASK)
    powers = rnd._packed_powers(max(index.bit_length(), 1))
    for k in range(index.bit_length()):
        if index >> k & 1:
            columns = powers[k]
            bits = [(a >> i) & 1 for i in range(64)] + [(b >> i) & 1 for i in range(64)]
            a = b = 0
            for i, bit in enumerate(bits):
                if bit:
                    a ^= int(columns[i, 0])
                    b ^= int(columns[i, 1])
    return a, b


@pytest.mark.parametrize("seed, start", [(1, 0), (42, 3), (-7, 0), (2**63 + 5, 2)])
def test_jump_powers_match_sequential_jumps(seed, start):
    expected = sequential_states(4, seed, start)
    assert [jumped(seed, start + i) for i in range(4)] == expected


def test_device_functions_are_refused_on_the_host():
    with pytest.raises(TypeError, match="device function"):
        xoroshiro128p_uniform_float32(None, 0)


def python_draws(state, count):
    """The generator's uniform float64 draws, in Python: next() and the top 53 bits."""
    s0, s1 = state
    out = []
    for _ in range(count):
        out.append(((s0 + s1) & xoroshiro.MASK) >> 11)
        s0, s1 = xoroshiro.step(s0, s1)
    return [x * (1.0 / 2**53) for x in out]


@cuda.jit
def draw_uniform(states, out64, out32):
    i = cuda.grid(1)
    if i < out64.shape[0]:
        for j in range(out64.shape[1]):
            out64[i, j] = xoroshiro128p_uniform_float64(states, i)
            out32[i, j] = xoroshiro128p_uniform_float32(states, i)


@cuda.jit
def draw_normal(states, out32, out64):
    i = cuda.grid(1)
    if i < out32.size:
        out32[i] = xoroshiro128p_normal_float32(states, i)
        out64[i] = xoroshiro128p_normal_float64(states, i)


@requires_gpu
@pytest.mark.parametrize("seed, start", [(1, 0), (12345, 7)])
def test_states_and_draws_on_the_gpu(seed, start):
    n = 64
    states = create_xoroshiro128p_states(n, seed=seed, subsequence_start=start)
    host = states.copy_to_host()
    expected = sequential_states(n, seed, start)
    assert [(int(r["s0"]), int(r["s1"])) for r in host] == expected
    out64, out32 = cuda.device_array((n, 3)), cuda.device_array((n, 3), dtype=np.float32)
    draw_uniform[1, n](states, out64, out32)
    got64, got32 = out64.copy_to_host(), out32.copy_to_host()
    for i in (0, 1, n - 1):
        model = python_draws(expected[i], 6)  # uniform64 and uniform32 alternate on one state
        assert list(got64[i]) == model[0::2]
        assert list(got32[i]) == [float(np.float32(x)) for x in model[1::2]]
    big = create_xoroshiro128p_states(2**21, seed=3)  # a 3-d grid's worth, made directly per index
    last = big[2**21 - 1]
    assert (int(last["s0"]), int(last["s1"])) == jumped(3, 2**21 - 1)


@requires_gpu
def test_same_numbers_as_numba_cuda():
    numba_cuda = numba_cuda_or_skip()
    nrandom = pytest.importorskip("numba.cuda.random")
    n = 256

    @numba_cuda.jit
    def numba_normal(states, out32, out64):
        i = numba_cuda.grid(1)
        if i < out32.size:
            out32[i] = nrandom.xoroshiro128p_normal_float32(states, i)
            out64[i] = nrandom.xoroshiro128p_normal_float64(states, i)

    theirs = nrandom.create_xoroshiro128p_states(n, seed=2024, subsequence_start=5)
    ours = create_xoroshiro128p_states(n, seed=2024, subsequence_start=5)
    np.testing.assert_array_equal(theirs.copy_to_host().view(np.uint64), ours.copy_to_host().view(np.uint64))
    t32, t64 = numba_cuda.device_array(n, dtype=np.float32), numba_cuda.device_array(n)
    numba_normal[2, 128](theirs, t32, t64)
    o32, o64 = cuda.device_array(n, dtype=np.float32), cuda.device_array(n)
    draw_normal[2, 128](ours, o32, o64)
    np.testing.assert_array_equal(o32.copy_to_host(), t32.copy_to_host())
    np.testing.assert_array_equal(o64.copy_to_host(), t64.copy_to_host())
    assert math.isfinite(float(o64.copy_to_host().sum()))
