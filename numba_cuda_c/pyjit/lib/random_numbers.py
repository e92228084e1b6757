"""numba's random numbers on the device (numba.cuda.random): xoroshiro128+ generators, one state per
thread in an array of xoroshiro128p_dtype records, giving the same streams of numbers as numba for the
same seed (the host side, create/init_xoroshiro128p_states, is numba_cuda_c/random.py)."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement

Requirement(
    "xoroshiro128p",
    """// xoroshiro128+ (numba.cuda.random): a state is two uint64s, s0 and s1, in a record
__device__ __forceinline__ unsigned long long ncc_rotl64(unsigned long long x, unsigned int k) {
    return (x << k) | (x >> (64u - k));
}
__device__ __forceinline__ unsigned long long ncc_xoroshiro128p_next(unsigned char *state) {
    unsigned long long *s = (unsigned long long *)state;
    unsigned long long s0 = s[0], s1 = s[1], result = s0 + s1;
    s1 ^= s0;
    s[0] = ncc_rotl64(s0, 55u) ^ s1 ^ (s1 << 14u);
    s[1] = ncc_rotl64(s1, 36u);
    return result;
}
__device__ void ncc_xoroshiro128p_jump(unsigned char *state) {  // 2**64 steps ahead
    const unsigned long long jump[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
    unsigned long long *s = (unsigned long long *)state, t0 = 0, t1 = 0;
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < 64; b++) {
            if (jump[i] & (1ull << b)) {
                t0 ^= s[0];
                t1 ^= s[1];
            }
            ncc_xoroshiro128p_next(state);
        }
    s[0] = t0;
    s[1] = t1;
}
// uint64 -> [0, 1): the top 53 bits, as numba's uint64_to_unit_float64
__device__ __forceinline__ double ncc_unit_float64(unsigned long long x) {
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}
__device__ __forceinline__ float ncc_xoroshiro128p_uniform_float32(unsigned char *state) {
    return (float)ncc_unit_float64(ncc_xoroshiro128p_next(state));
}
__device__ __forceinline__ double ncc_xoroshiro128p_uniform_float64(unsigned char *state) {
    return ncc_unit_float64(ncc_xoroshiro128p_next(state));
}
// Box-Muller from two float32 uniforms, as numba (its float64 variant too, with logf of a float32)
__device__ __forceinline__ float ncc_xoroshiro128p_normal_float32(unsigned char *state) {
    float u1 = ncc_xoroshiro128p_uniform_float32(state), u2 = ncc_xoroshiro128p_uniform_float32(state);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318548f * u2);
}
__device__ __forceinline__ double ncc_xoroshiro128p_normal_float64(unsigned char *state) {
    float u1 = ncc_xoroshiro128p_uniform_float32(state), u2 = ncc_xoroshiro128p_uniform_float32(state);
    return sqrt(-2.0 * (double)logf(u1)) * cos(6.283185307179586 * (double)u2);
}
""",
)

STATE_FIELDS = ("s0", "s1")


def _state_arguments(name):
    """(states, index): a 1-d array of xoroshiro128p_dtype records and an integer."""

    def check(args):
        if len(args) != 2:
            raise TypeError("%s(states, index) takes two arguments" % name)
        states, index = args
        t = states.type
        if (
            not isinstance(t, types.Array)
            or t.ndim != 1
            or not isinstance(t.dtype, types.Record)
            or tuple(t.dtype.fields) != STATE_FIELDS
            or any(t.dtype.fields[f][0] != types.uint64 for f in STATE_FIELDS)
        ):
            raise TypeError(
                "%s: states must be a 1-d array of xoroshiro128p_dtype (create_xoroshiro128p_states)" % name
            )
        if not (isinstance(index.type, types.Scalar) and index.type.kind in "iub"):
            raise TypeError("%s: the index must be an integer" % name)

    return check


def _state_pointer(codes):
    return "((unsigned char *)(%s).data + (long long)(%s) * (%s).strides[0])" % (codes[0], codes[1], codes[0])


def _generator(name, result):
    check = _state_arguments(name)

    def typing(args):
        check(args)
        return result

    Intrinsic(
        ("random", name),
        typing,
        lambda codes, args, t: "ncc_%s(%s)" % (name, _state_pointer(codes)),
        requires=("xoroshiro128p",),
    )


_generator("xoroshiro128p_next", types.uint64)
_generator("xoroshiro128p_uniform_float32", types.float32)
_generator("xoroshiro128p_uniform_float64", types.float64)
_generator("xoroshiro128p_normal_float32", types.float32)
_generator("xoroshiro128p_normal_float64", types.float64)
_generator("xoroshiro128p_jump", None)
