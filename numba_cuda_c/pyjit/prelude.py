"""The CUDA C every translated module starts with: the array struct and Python's arithmetic."""

PRELUDE = r"""
// --- numba_cuda_c prelude ---------------------------------------------------------------
// An array travels to the kernel by value as {data, shape[N], strides[N]} (strides in bytes):
// the layout the launcher packs (src/launch.c, a parameter of 8 + 16 N bytes).
template <typename T, int N> struct Array {
    T *data;
    long long shape[N];
    long long strides[N];
};
template <typename T, int N> __device__ __forceinline__ T *ncc_at(const Array<T, N> &a, const long long *index) {
    char *p = (char *)a.data;
    for (int d = 0; d < N; ++d) p += index[d] * a.strides[d];
    return (T *)p;
}
__device__ __forceinline__ long long ncc_wrap(long long i, long long n) { return i < 0 ? i + n : i; }
template <typename T> __device__ __forceinline__ T ncc_floordiv(T a, T b) {
    if (b == 0) return 0;
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
template <typename T> __device__ __forceinline__ T ncc_mod(T a, T b) {
    if (b == 0) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
__device__ __forceinline__ double ncc_fmod(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
__device__ __forceinline__ float ncc_fmodf(float a, float b) {
    float r = fmodf(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
// float // float as CPython's float_divmod (and numba): the floor of the exact quotient, so that
// 1.0 // 0.1 is 9.0 where floor(1.0 / 0.1) would be 10.0
#define NCC_FFLOORDIV(name, T, FMOD, FLOOR, COPYSIGN)                                                \
    __device__ __forceinline__ T name(T vx, T wx) {                                                 \
        if (wx == 0) return vx / wx;                                                                \
        T mod = FMOD(vx, wx);                                                                       \
        T div = (vx - mod) / wx;                                                                    \
        if (mod != 0 && ((wx < 0) != (mod < 0))) div -= 1;                                          \
        if (div == 0) return COPYSIGN((T)0, vx / wx);                                               \
        T floordiv = FLOOR(div);                                                                    \
        if (div - floordiv > (T)0.5) floordiv += 1;                                                 \
        return floordiv;                                                                            \
    }
NCC_FFLOORDIV(ncc_ffloordiv, double, fmod, floor, copysign)
NCC_FFLOORDIV(ncc_ffloordiv_f32, float, fmodf, floorf, copysignf)
template <typename T> __device__ __forceinline__ T ncc_ipow(T base, T exp) {
    if (exp < 0) return base == 1 ? 1 : (base == -1 ? ((exp & 1) ? -1 : 1) : 0);
    T result = 1;
    while (exp) {
        if (exp & 1) result *= base;
        exp >>= 1;
        base *= base;
    }
    return result;
}
template <int N, typename T> __device__ __forceinline__ T ncc_powi(T x) {
    T result = x;
    for (int k = 1; k < N; ++k) result *= x;
    return result;
}
template <typename T> __device__ __forceinline__ T ncc_wrapping_add(T a, T b) {
    return (T)((unsigned long long)a + (unsigned long long)b);
}
template <typename T> __device__ __forceinline__ T ncc_wrapping_sub(T a, T b) {
    return (T)((unsigned long long)a - (unsigned long long)b);
}
template <typename T> __device__ __forceinline__ T ncc_wrapping_mul(T a, T b) {
    return (T)((unsigned long long)a * (unsigned long long)b);
}
__device__ __forceinline__ unsigned long long ncc_double_bits(double x) {
    return (unsigned long long)__double_as_longlong(x);
}
__device__ __forceinline__ double ncc_bits_double(unsigned long long x) { return __longlong_as_double((long long)x); }
__device__ __forceinline__ unsigned int ncc_laneid() {
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
__device__ __forceinline__ unsigned int ncc_dynamic_smem_size() {
    unsigned int size;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
    return size;
}
// Floating-point atomic max/min by compare-and-swap: `replace(current, value)` says when value wins.
// max/min let a NaN value in and keep a NaN stored (as Python's max would); nanmax/nanmin ignore
// NaNs unless both are.
#define NCC_FLOAT_ATOMIC(name, T, I, TO_I, FROM_I, replace)                                       \
    __device__ __forceinline__ T name(T *address, T value) {                                      \
        I *p = (I *)address;                                                                        \
        I old = *p, assumed;                                                                        \
        do {                                                                                        \
            assumed = old;                                                                          \
            T current = FROM_I(assumed);                                                            \
            if (!(replace)) break;                                                                  \
            old = atomicCAS(p, assumed, TO_I(value));                                               \
        } while (assumed != old);                                                                   \
        return FROM_I(old);                                                                         \
    }
#define NCC_FLOAT_ATOMICS(T, I, TO_I, FROM_I, suffix)                                                \
    NCC_FLOAT_ATOMIC(ncc_atomic_max##suffix, T, I, TO_I, FROM_I, value > current || isnan(value))   \
    NCC_FLOAT_ATOMIC(ncc_atomic_min##suffix, T, I, TO_I, FROM_I, value < current || isnan(value))   \
    NCC_FLOAT_ATOMIC(ncc_atomic_nanmax##suffix, T, I, TO_I, FROM_I, value > current || isnan(current)) \
    NCC_FLOAT_ATOMIC(ncc_atomic_nanmin##suffix, T, I, TO_I, FROM_I, value < current || isnan(current))
NCC_FLOAT_ATOMICS(float, int, __float_as_int, __int_as_float, _f32)
NCC_FLOAT_ATOMICS(double, unsigned long long, ncc_double_bits, ncc_bits_double, _f64)
"""
