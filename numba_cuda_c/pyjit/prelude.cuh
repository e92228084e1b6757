
// --- numba_cuda_c prelude ---------------------------------------------------------------
// An array travels to the kernel by value as {data, shape[N], strides[N]} (strides in bytes):
// the layout the launcher packs (src/launch/launch.c, a parameter of 8 + 16 N bytes).
template <typename T, int N> struct Array {
    T *data;
    long long shape[N];
    long long strides[N];
};
// A 0-d array (r[()] = x): its data pointer only, as the launcher packs it. Shape and strides are
// empty, so that code written for every N (ncc_at's loop) compiles for it too, and the braces that
// initialise an N-d array ({data, {shape}, {strides}}) initialise it.
struct ncc_no_dims {
    __device__ ncc_no_dims(long long = 0) {}
};
template <typename T> struct Array<T, 0> {
    T *data;
    static constexpr const long long *shape = nullptr;
    static constexpr const long long *strides = nullptr;
    __device__ Array(T *data = nullptr, ncc_no_dims = {}, ncc_no_dims = {}) : data(data) {}
};
template <typename T, int N> __device__ __forceinline__ T *ncc_at(const Array<T, N> &a, const long long *index) {
    char *p = (char *)a.data;
    for (int d = 0; d < N; ++d) p += index[d] * a.strides[d];
    return (T *)p;
}
// NVRTC's headers define neither NAN nor INFINITY
#define NCC_NAN __int_as_float(0x7fc00000)
#define NCC_INFINITY __int_as_float(0x7f800000)
// A record field whose offset does not suit its type (a packed dtype): read and written bytewise.
template <typename T> __device__ __forceinline__ T ncc_load_bytes(const unsigned char *p) {
    T value;
    memcpy(&value, p, sizeof(T));
    return value;
}
template <typename T> __device__ __forceinline__ void ncc_store_bytes(unsigned char *p, T value) {
    memcpy(p, &value, sizeof(T));
}
// A record array's field as an array of its own (numba's recarray attribute, x.value1[i]): the
// same shape and strides, the data `offset` bytes on.
template <typename F, typename T, int N>
__device__ __forceinline__ Array<F, N> ncc_field_view(const Array<T, N> &a, long long offset) {
    Array<F, N> f;
    f.data = (F *)((char *)a.data + offset);
    for (int d = 0; d < N; ++d) {
        f.shape[d] = a.shape[d];
        f.strides[d] = a.strides[d];
    }
    return f;
}
// min() and max() of values not two floats: each evaluated once and in order (a braced list is sequenced), then
// compared pairwise as numba's selects, so that NVVM sees a select of values, as numba's IR, not branches over loads
template <typename T, int N> struct ncc_extremes {
    T v[N];
    __device__ __forceinline__ T max() const {
        T r = v[0];
        for (int k = 1; k < N; ++k) r = v[k] > r ? v[k] : r;
        return r;
    }
    __device__ __forceinline__ T min() const {
        T r = v[0];
        for (int k = 1; k < N; ++k) r = v[k] < r ? v[k] : r;
        return r;
    }
};
// A ufunc on arrays in a kernel (np.sin(x, out)): f of the inputs' elements into each element of out,
// in order. An input whose dimension is 1 repeats along it (broadcast); a number is an input too.
template <typename T> struct ncc_scalar_input_t { T value; };
template <typename T> __device__ __forceinline__ ncc_scalar_input_t<T> ncc_scalar_input(T v) { return {v}; }
template <typename T, int N> __device__ __forceinline__ T ncc_input_at(const Array<T, N> &a, const long long *index) {
    char *p = (char *)a.data;
    for (int d = 0; d < N; ++d) p += (a.shape[d] == 1 ? 0 : index[d]) * a.strides[d];
    return *(T *)p;
}
template <typename T> __device__ __forceinline__ T ncc_input_at(const ncc_scalar_input_t<T> &s, const long long *) {
    return s.value;
}
template <typename T, int N, typename F, typename... In>
__device__ void ncc_map(const Array<T, N> &out, F f, const In &...in) {
    long long size = 1, index[N > 0 ? N : 1];
    for (int d = 0; d < N; ++d) size *= out.shape[d];
    for (long long k = 0; k < size; ++k) {
        long long rest = k;
        char *p = (char *)out.data;
        for (int d = N - 1; d >= 0; --d) {
            index[d] = rest % out.shape[d];
            rest /= out.shape[d];
            p += index[d] * out.strides[d];
        }
        *(T *)p = f(ncc_input_at(in, index)...);
    }
}
// atomic.inc / atomic.dec on what CUDA's atomicInc/atomicDec do not take (64-bit, signed): a CAS loop
// with their rules, in the element's own type: inc wraps to 0 past val; dec to val at 0 or above val.
template <typename T, typename U> __device__ T ncc_atomic_step(T *address, T val, bool up) {
    union { T t; U u; } old, assumed, next;
    old.t = *address;
    do {
        assumed = old;
        if (up) next.t = assumed.t >= val ? (T)0 : (T)(assumed.t + 1);
        else next.t = (assumed.t == 0 || assumed.t > val) ? val : (T)(assumed.t - 1);
        old.u = atomicCAS((U *)address, assumed.u, next.u);
    } while (old.u != assumed.u);
    return old.t;
}
template <typename T, typename U> __device__ __forceinline__ T ncc_atomic_inc(T *address, T val) {
    return ncc_atomic_step<T, U>(address, val, true);
}
template <typename T, typename U> __device__ __forceinline__ T ncc_atomic_dec(T *address, T val) {
    return ncc_atomic_step<T, U>(address, val, false);
}
__device__ __forceinline__ long long ncc_wrap(long long i, long long n) { return i < 0 ? i + n : i; }
// integer // and % as numba's int_divmod: 0 for a zero divisor (its numpy error model) and for the one quotient
// that overflows (the type's minimum by -1)
template <typename T> __device__ __forceinline__ bool ncc_divmod_overflows(T a, T b) {
    return (T)-1 < 0 && b == (T)-1 && a == (T)(1ull << (sizeof(T) * 8 - 1));
}
template <typename T> __device__ __forceinline__ T ncc_floordiv(T a, T b) {
    if (b == 0 || ncc_divmod_overflows(a, b)) return 0;
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
template <typename T> __device__ __forceinline__ T ncc_mod(T a, T b) {
    if (b == 0 || ncc_divmod_overflows(a, b)) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
// float // and % as numba-cuda computes them (its real_divmod, CPython's float_divmod written with LLVM's frem).
// frem is NVVM's PTX, written out here instruction for instruction: |a| - floor(|a| / |b|) * |b| with the product
// a plain mul (which ptxas may fuse with the sub, as it may numba's), given a's sign. So x % inf is NaN, as
// numba's. The remainder then takes the divisor's sign (a zero one too), the quotient is snapped to an integer.
#define NCC_FREM(T, PTX, REG)                                                                                      \
    __device__ __forceinline__ T ncc_frem(T a, T b) {                                                              \
        T r;                                                                                                       \
        asm("{\n\t.reg ." PTX " aa, ab, q, p;\n\tabs." PTX " aa, %1;\n\tabs." PTX " ab, %2;\n\t"                 \
            "div.rn." PTX " q, aa, ab;\n\tcvt.rmi." PTX "." PTX " q, q;\n\tmul." PTX " p, q, ab;\n\t"              \
            "sub." PTX " %0, aa, p;\n\t}"                                                                          \
            : "=" REG(r)                                                                                           \
            : REG(a), REG(b));                                                                                     \
        return a < 0 ? -r : r;                                                                                     \
    }
NCC_FREM(double, "f64", "d")
NCC_FREM(float, "f32", "f")
#undef NCC_FREM
// SignClear: numba's LLVM knows the signs of vx and wx are clear (operators.sign_clear), so `mod < 0` and `wx < 0`
// fold to false there (frem's result takes the dividend's sign), even where frem's expansion is inexact and gives a
// negative one, and where wx is such a remainder (1.0 % (1.0 % 0.1) is +0.0: LLVM takes 1.0 % 0.1 as not negative)
template <bool SignClear, typename T> __device__ __forceinline__ T ncc_real_divmod(T vx, T wx, T *remainder) {
    T mod = ncc_frem(vx, wx);
    T div = (vx - mod) / wx;
    bool divisor_negative = !SignClear && wx < 0;
    if (mod != 0) {  // unordered: NaN too
        if (divisor_negative != (!SignClear && mod < 0)) {
            div = div - (T)1;
            mod = mod + wx;
        }
    } else {
        mod = divisor_negative ? (T)-0.0 : (T)0.0;
    }
    T floordiv;
    if (div != 0 && div == div) {  // ordered
        floordiv = floor(div);
        if (div - floordiv > (T)0.5) floordiv = floordiv + (T)1;
    } else {
        div = div * div;  // a zero with the true quotient's sign
        floordiv = div * vx / wx;
    }
    *remainder = mod;
    return floordiv;
}
template <bool SignClear = false, typename T> __device__ __forceinline__ T ncc_real_floordiv(T vx, T wx) {
    if (wx == 0) return vx / wx;  // numba's numpy error model: inf or NaN
    T mod;
    return ncc_real_divmod<SignClear>(vx, wx, &mod);
}
template <bool SignClear = false, typename T> __device__ __forceinline__ T ncc_real_mod(T vx, T wx) {
    if (wx == 0) return ncc_frem(vx, wx);  // NaN
    T mod;
    ncc_real_divmod<SignClear>(vx, wx, &mod);
    return mod;
}
#ifdef NCC_SIGNED_OVERFLOW_FLAGS
// the fuzzer's build (options.SIGNED_OVERFLOW_FLAGS): a byte per thread, set where a signed operation that numba
// marks nsw overflowed (its result is undefined there)
extern "C" __device__ unsigned char ncc_signed_overflow[1 << 16];
__device__ unsigned char ncc_signed_overflow[1 << 16];
__device__ __noinline__ void ncc_note_overflow() {
    unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
    if (thread < (1u << 16)) ncc_signed_overflow[thread] = 1;
}
#define NCC_OVERFLOWED(condition) \
    do {                          \
        if (condition) ncc_note_overflow(); \
    } while (0)
#else
#define NCC_OVERFLOWED(condition) ((void)0)
#endif
// signed + - * wrap (numba's nsw operations, computed as the hardware does); whether they overflowed
template <typename T> __device__ __forceinline__ bool ncc_mul_overflows(T a, T b) {
    if ((T)-1 > 0) return false;
    if (sizeof(T) < 8) {
        long long wide = (long long)a * (long long)b;
        return wide != (long long)(T)wide;
    }
    long long low = (long long)((unsigned long long)a * (unsigned long long)b);
    return __mul64hi((long long)a, (long long)b) != (low >> 63);
}
// the most negative value of a signed integer type (false for unsigned ones)
template <typename T> __device__ __forceinline__ bool ncc_is_min(T x) {
    return (T)-1 < 0 && x == (T)(1ull << (sizeof(T) * 8 - 1));
}
// float ** int as numba: by repeated squaring (pow past 65536), the inverse for a negative exponent
template <typename T, typename E> __device__ T ncc_fpowi(T a, E b) {
    bool invert = b < 0;  // never for an unsigned exponent
    if (invert && ncc_is_min(b)) asm volatile("exit;");  // numba raises OverflowError (-b overflows): the thread ends
    unsigned long long e = invert ? 0ull - (unsigned long long)b : (unsigned long long)b;
    if (e > 0x10000) return (T)pow((double)a, (double)b);  // numba's math.pow(a, float(b)): in double
    T r = 1;
    while (e) {
        if (e & 1) r *= a;
        e >>= 1;
        a *= a;
    }
    return invert ? (T)(1.0 / (double)r) : r;  // numba's 1.0 / r: a float64 division
}
// round(x, ndigits) as numba-cuda (CPython's fallback double_round, its steps and types): scale by a power of ten
// (computed by squaring, split in two past 1e22), round to an int64 (saturating, as llrint), half-way cases to
// even, scale back in double; x itself where it is not finite or where the scaled value overflows
template <typename T> __device__ T ncc_round_digits(T x, long long ndigits) {
    if (isinf(x) || isnan(x)) return x;
    double pow1, pow2 = 1.0, y;
    if (ndigits >= 0) {
        pow1 = ncc_fpowi(10.0, ndigits > 22 ? ndigits - 22 : ndigits);
        if (ndigits > 22) pow2 = 1e22;
        y = ((double)x * pow1) * pow2;
        if (isinf(y)) return x;
    } else {
        pow1 = ncc_fpowi(10.0, 0ll - ndigits);
        y = (double)x / pow1;
    }
    double z = (double)llrint(y);
    if (fabs(y - z) == 0.5) z = 2.0 * (double)llrint(y / 2.0);
    return (T)(ndigits >= 0 ? (z / pow2) / pow1 : z * pow1);
}
// abs of an integer as numba's (a select of x and its wrapping negation: abs of the minimum is the minimum; C's -x
// would be undefined there, and NVRTC may assume the result is never negative)
template <typename T> __device__ __forceinline__ T ncc_abs(T x) {
    return x < 0 ? ((T)0.5 == (T)0 ? (T)(0ull - (unsigned long long)x) : -x) : x;
}
// int ** int as numba's int_power (its numpy error model, which kernels use): wrapping products by squaring; a
// negative exponent gives 0, except for 1 and -1, and 0x8000... for 0; past 65536, pow() in double, converted
template <typename T, typename E> __device__ __forceinline__ T ncc_ipow(T base, E exp) {
    typedef unsigned long long U;
    U e = (U)exp;
    bool negative = exp < 0;  // never for an unsigned E
    if (negative) {
        if (ncc_is_min(exp)) asm volatile("exit;");  // numba raises OverflowError (-exp overflows): the thread ends
        e = 0ull - (U)exp;
        if (base == 0) return (T)(1ull << (sizeof(T) * 8 - 1));
        if (base != 1 && !(base < 0 && base == (T)-1)) return 0;
    }
    if (e > 0x10000) return (T)pow((double)base, (double)exp);
    U r = 1, a = (U)base;
    while (e) {
        if (e & 1) {
            NCC_OVERFLOWED(ncc_mul_overflows((T)r, (T)a));
            r *= a;
        }
        e >>= 1;
        NCC_OVERFLOWED(e != 0 && ncc_mul_overflows((T)a, (T)a));  // the last square is never used
        a *= a;
    }
    return (T)r;  // 1 / r for a negative exponent: r is 1 or -1 there
}
// x ** N for a constant N as numba unrolls it: squaring, the products in the order its loop makes them
template <int N, typename T> __device__ __forceinline__ T ncc_powi(T x) {
    T result = 1;
    for (int e = N; e != 0; e >>= 1) {
        if (e & 1) result *= x;
        x *= x;
    }
    return result;
}
template <typename T> __device__ __forceinline__ T ncc_wrapping_add(T a, T b) {
    T r = (T)((unsigned long long)a + (unsigned long long)b);
    NCC_OVERFLOWED((T)-1 < 0 && ((a ^ r) & (b ^ r)) < 0);
    return r;
}
template <typename T> __device__ __forceinline__ T ncc_wrapping_sub(T a, T b) {
    T r = (T)((unsigned long long)a - (unsigned long long)b);
    NCC_OVERFLOWED((T)-1 < 0 && ((a ^ b) & (a ^ r)) < 0);
    return r;
}
template <typename T> __device__ __forceinline__ T ncc_wrapping_mul(T a, T b) {
    NCC_OVERFLOWED(ncc_mul_overflows(a, b));
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
// numba's rules: max/min replace only where the comparison holds, so a NaN value never goes in and a
// NaN stored stays; nanmax/nanmin also replace a NaN stored (NaNs ignored, as np.nanmax does).
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
    NCC_FLOAT_ATOMIC(ncc_atomic_max##suffix, T, I, TO_I, FROM_I, value > current)                    \
    NCC_FLOAT_ATOMIC(ncc_atomic_min##suffix, T, I, TO_I, FROM_I, value < current)                    \
    NCC_FLOAT_ATOMIC(ncc_atomic_nanmax##suffix, T, I, TO_I, FROM_I, value > current || isnan(current)) \
    NCC_FLOAT_ATOMIC(ncc_atomic_nanmin##suffix, T, I, TO_I, FROM_I, value < current || isnan(current))
NCC_FLOAT_ATOMICS(float, int, __float_as_int, __int_as_float, _f32)
NCC_FLOAT_ATOMICS(double, unsigned long long, ncc_double_bits, ncc_bits_double, _f64)
// --- datetime64 / timedelta64 (pyjit/datetimes.py): counts of a unit; NaT is the smallest -----------
#define NCC_NAT ((long long)(-9223372036854775807LL - 1))
__device__ __forceinline__ long long ncc_dt_scale(long long a, long long factor) {
    return a == NCC_NAT ? NCC_NAT : a * factor;
}
__device__ __forceinline__ long long ncc_dt_add(long long a, long long b) {
    return (a == NCC_NAT || b == NCC_NAT) ? NCC_NAT : a + b;
}
__device__ __forceinline__ long long ncc_dt_sub(long long a, long long b) {
    return (a == NCC_NAT || b == NCC_NAT) ? NCC_NAT : a - b;
}
__device__ __forceinline__ long long ncc_dt_floor_div(long long a, long long b) {
    return a == NCC_NAT ? NCC_NAT : (a / b - ((a % b != 0) && ((a < 0) != (b < 0))));
}
__device__ __forceinline__ long long ncc_dt_neg(long long a) { return a == NCC_NAT ? NCC_NAT : -a; }
__device__ __forceinline__ long long ncc_dt_abs(long long a) { return (a == NCC_NAT || a >= 0) ? a : -a; }
__device__ __forceinline__ double ncc_dt_ratio(long long a, long long b) {
    return (a == NCC_NAT || b == NCC_NAT) ? (double)NCC_NAN : (double)a / (double)b;
}
// == and the orderings are false where either is NaT; != is true (NumPy's)
__device__ __forceinline__ bool ncc_dt_both(long long a, long long b) { return a != NCC_NAT && b != NCC_NAT; }
