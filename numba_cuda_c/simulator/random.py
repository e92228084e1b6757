"""numba.cuda.random in the simulator (numba_cuda_c.random is this module there): xoroshiro128+ generators in an
array of xoroshiro128p_dtype records, one per thread, giving numba's streams of numbers for the same seed. The
states are made on the host, each 2**64 steps past the one before. Its arithmetic is numba_cuda_c/xoroshiro.py's."""

import numpy as np

from numba_cuda_c.simulator.arrays import DeviceNDArray, device_array
from numba_cuda_c.xoroshiro import MASK as _MASK
from numba_cuda_c.xoroshiro import PUBLIC_NAMES as _PUBLIC_NAMES
from numba_cuda_c.xoroshiro import jump as _jumped
from numba_cuda_c.xoroshiro import splitmix64 as _splitmix64
from numba_cuda_c.xoroshiro import step as _step
from numba_cuda_c.xoroshiro import xoroshiro128p_dtype, xoroshiro128p_type  # noqa: F401

_TWO_PI_FLOAT32 = np.float32(2 * np.pi)
_TWO_PI_FLOAT64 = np.float64(2 * np.pi)


def _storage(states):
    return states._array if isinstance(states, DeviceNDArray) else states


def xoroshiro128p_next(states, index):
    """The next uint64 of generator `index`, advancing it."""
    states = _storage(states)
    s0, s1 = int(states["s0"][index]), int(states["s1"][index])
    states["s0"][index], states["s1"][index] = _step(s0, s1)
    return np.uint64((s0 + s1) & _MASK)


def xoroshiro128p_jump(states, index):
    """Advances generator `index` by 2**64 steps."""
    states = _storage(states)
    states["s0"][index], states["s1"][index] = _jumped(int(states["s0"][index]), int(states["s1"][index]))


def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0, 1): the top 53 bits of the next number."""
    return np.float64(int(xoroshiro128p_next(states, index)) >> 11) * np.float64(1.0 / (1 << 53))


def xoroshiro128p_uniform_float32(states, index):
    return np.float32(xoroshiro128p_uniform_float64(states, index))


def xoroshiro128p_normal_float32(states, index):
    """A normally distributed float32 (Box-Muller from two float32 uniforms), advancing the generator twice."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.sqrt(np.float32(-2.0) * np.log(u1)) * np.cos(_TWO_PI_FLOAT32 * u2)


def xoroshiro128p_normal_float64(states, index):
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.sqrt(-2.0 * np.float64(np.log(u1))) * np.cos(_TWO_PI_FLOAT64 * np.float64(u2))


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Fills a 1-d array of states: states[i] starts (subsequence_start + i) * 2**64 steps into the sequence of
    `seed` (splitmix64 of the seed in both words), as numba's."""
    array = _storage(states)
    if array.dtype != xoroshiro128p_dtype or array.ndim != 1:
        raise TypeError("states must be a 1-d array of xoroshiro128p_dtype")
    if not len(array):
        return
    z = _splitmix64(int(seed) & _MASK)
    s0, s1 = z, z
    for _ in range(int(subsequence_start)):
        s0, s1 = _jumped(s0, s1)
    for i in range(len(array)):
        if i:
            s0, s1 = _jumped(s0, s1)
        array["s0"][i], array["s1"][i] = s0, s1


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of n states, initialised as init_xoroshiro128p_states does."""
    states = device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


__all__ = list(_PUBLIC_NAMES)
