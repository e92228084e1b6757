"""The xoroshiro128+ generator's host-side arithmetic, on Python ints (numba's cuda.random): the state dtype,
one step, the jump by 2**64 steps and splitmix64 seeding. numba_cuda_c.random builds its jump matrices from it;
the simulator's random module runs on it. Its state's dtype and numba's record type of it are here, for both."""

import numpy as np

from numba_cuda_c.types import from_dtype

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = from_dtype(xoroshiro128p_dtype)  # numba's record type of a state, for signatures

MASK = (1 << 64) - 1
JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


def splitmix64(seed):
    """The first state of the sequence for `seed` (numba's init_xoroshiro128p_state): both words z."""
    z = (seed + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _rotate_left(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def step(s0, s1):
    """The state after (s0, s1)."""
    s1 ^= s0
    return _rotate_left(s0, 55) ^ s1 ^ ((s1 << 14) & MASK), _rotate_left(s1, 36)


def jump(s0, s1):
    """The state 2**64 steps after (s0, s1) (numba's xoroshiro128p_jump)."""
    t0 = t1 = 0
    for word in JUMP:
        for bit in range(64):
            if word >> bit & 1:
                t0 ^= s0
                t1 ^= s1
            s0, s1 = step(s0, s1)
    return t0, t1


# numba.cuda.random's names, which the compiled module (numba_cuda_c/random.py) and the simulator's both give
PUBLIC_NAMES = (
    "xoroshiro128p_dtype",
    "xoroshiro128p_type",
    "create_xoroshiro128p_states",
    "init_xoroshiro128p_states",
    "xoroshiro128p_next",
    "xoroshiro128p_jump",
    "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64",
)
