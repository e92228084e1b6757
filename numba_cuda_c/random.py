"""numba.cuda.random: xoroshiro128+ generators for kernels, the same streams of numbers as numba's for
the same seed and launch.

    states = create_xoroshiro128p_states(n, seed=1)        # one generator per thread
    x = xoroshiro128p_uniform_float32(states, i)            # in a kernel: [0, 1), advancing states[i]

State i is the seed's state (splitmix64) advanced by (subsequence_start + i) * 2**64 steps, so no two
threads' streams overlap. numba computes them one after another on the CPU; here a GPU kernel computes
each directly, jumping by the powers of two of its index (the jump is linear over GF(2): the jump by
2**k steps is a 128x128 bit matrix, made once per process with NumPy).
"""

import numpy as np

from numba_cuda_c import _cuda
from numba_cuda_c.toolchain.compiler import SourceModule
from numba_cuda_c.pyjit import lib as _lib
from numba_cuda_c.xoroshiro import MASK as _MASK
from numba_cuda_c.xoroshiro import PUBLIC_NAMES as _PUBLIC_NAMES
from numba_cuda_c.xoroshiro import jump as _jump
from numba_cuda_c.xoroshiro import splitmix64 as _splitmix64
from numba_cuda_c.xoroshiro import xoroshiro128p_dtype, xoroshiro128p_type  # noqa: F401

_lib._load()
xoroshiro128p_next = _lib.TABLE[("random", "xoroshiro128p_next")]
xoroshiro128p_jump = _lib.TABLE[("random", "xoroshiro128p_jump")]
xoroshiro128p_uniform_float32 = _lib.TABLE[("random", "xoroshiro128p_uniform_float32")]
xoroshiro128p_uniform_float64 = _lib.TABLE[("random", "xoroshiro128p_uniform_float64")]
xoroshiro128p_normal_float32 = _lib.TABLE[("random", "xoroshiro128p_normal_float32")]
xoroshiro128p_normal_float64 = _lib.TABLE[("random", "xoroshiro128p_normal_float64")]

_powers = []  # _powers[k]: the jump by 2**(64 + k) steps, as a 128x128 0/1 matrix (column i: image of bit i)


def _jump_power(k):
    if not _powers:
        columns = [_jump(1 << i, 0) if i < 64 else _jump(0, 1 << (i - 64)) for i in range(128)]
        bits = np.array([[(c[r // 64] >> (r % 64)) & 1 for c in columns] for r in range(128)], dtype=np.float64)
        _powers.append(bits)
    while len(_powers) <= k:  # squaring: exact in float64 (sums of at most 128 ones), then mod 2
        _powers.append(np.mod(_powers[-1] @ _powers[-1], 2))
    return _powers[k]


def _packed_powers(count):
    """The first `count` jump powers as columns of two uint64 words: (count, 128, 2)."""
    out = np.empty((max(count, 1), 128, 2), dtype=np.uint64)
    weights = np.uint64(1) << np.arange(64, dtype=np.uint64)
    for k in range(count):
        bits = _jump_power(k).astype(np.uint64)  # [row, column]
        out[k, :, 0] = (bits[:64, :] * weights[:, None]).sum(axis=0, dtype=np.uint64)
        out[k, :, 1] = (bits[64:, :] * weights[:, None]).sum(axis=0, dtype=np.uint64)
    return out


_INIT_SOURCE = r"""
// state t = jump^(start + t) (seed state): the jump by 2**k applied for each set bit k of start + t
extern "C" __global__ void ncc_xoroshiro128p_init(unsigned long long *states, long long n, unsigned long long s0,
                                                  unsigned long long s1, unsigned long long start,
                                                  const unsigned long long *powers, int npowers) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned long long a = s0, b = s1, e = start + (unsigned long long)t;
    for (int k = 0; k < npowers && e; k++, e >>= 1) {
        if (!(e & 1)) continue;
        const unsigned long long *columns = powers + (long long)k * 256;
        unsigned long long ra = 0, rb = 0;
        for (int i = 0; i < 64; i++)
            if ((a >> i) & 1) { ra ^= columns[2 * i]; rb ^= columns[2 * i + 1]; }
        for (int i = 0; i < 64; i++)
            if ((b >> i) & 1) { ra ^= columns[128 + 2 * i]; rb ^= columns[128 + 2 * i + 1]; }
        a = ra;
        b = rb;
    }
    states[2 * t] = a;
    states[2 * t + 1] = b;
}
"""
_init_module = []


def _init_kernel():
    if not _init_module:
        _init_module.append(SourceModule(_INIT_SOURCE, name="ncc_xoroshiro128p_init.cu"))
    return _init_module[0].get_function("ncc_xoroshiro128p_init")


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialises RNG states on the GPU: states[i] starts (subsequence_start + i) * 2**64 steps into
    the sequence of `seed`, as numba's. states: a 1-d device array of xoroshiro128p_dtype."""
    if states.dtype != xoroshiro128p_dtype or states.ndim != 1:
        raise TypeError("states must be a 1-d device array of xoroshiro128p_dtype")
    n = states.shape[0]
    if n == 0:
        return
    if not states.is_c_contiguous():
        raise ValueError("states must be contiguous")
    seed, start = int(seed) & _MASK, int(subsequence_start) & _MASK
    z = _splitmix64(seed)
    last = start + n - 1
    npowers = min(last.bit_length(), 64)
    powers = _cuda.to_device(_packed_powers(npowers), stream=stream)
    kernel = _init_kernel()
    blocks = (n + 255) // 256
    kernel[blocks, 256, stream](
        states, np.int64(n), np.uint64(z), np.uint64(z), np.uint64(start), powers, np.int32(npowers)
    )
    if stream == 0 or stream is None:
        return
    stream.synchronize()  # `powers` is freed when this returns


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of n RNG states, initialised as init_xoroshiro128p_states does."""
    states = _cuda.device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


__all__ = list(_PUBLIC_NAMES)
