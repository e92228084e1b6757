// --- complex numbers (pyjit/complex_prelude.py) ----------------------------------------------
// NumPy's layout (real part, then imaginary part, aligned as the part), an aggregate so that
// shared and local arrays of it need no constructor; numba-cuda's arithmetic and cmath.
template <typename T> struct ncc_complex {
    T re, im;
};
// libdevice by the part's type, as numba's math.f calls it for a float32 or a float64
#define NCC_NV1(name)                                                                               \
    extern "C" __device__ float __nv_##name##f(float);                                              \
    extern "C" __device__ double __nv_##name(double);                                               \
    __device__ __forceinline__ float ncc_nv_##name(float x) { return __nv_##name##f(x); }           \
    __device__ __forceinline__ double ncc_nv_##name(double x) { return __nv_##name(x); }
#define NCC_NV2(name)                                                                               \
    extern "C" __device__ float __nv_##name##f(float, float);                                       \
    extern "C" __device__ double __nv_##name(double, double);                                       \
    __device__ __forceinline__ float ncc_nv_##name(float x, float y) { return __nv_##name##f(x, y); } \
    __device__ __forceinline__ double ncc_nv_##name(double x, double y) { return __nv_##name(x, y); }
NCC_NV1(cos) NCC_NV1(sin) NCC_NV1(tan) NCC_NV1(exp) NCC_NV1(log) NCC_NV1(sqrt) NCC_NV1(cosh) NCC_NV1(sinh)
NCC_NV1(tanh) NCC_NV1(asinh) NCC_NV1(log1p) NCC_NV2(hypot) NCC_NV2(atan2) NCC_NV2(pow)
#undef NCC_NV1
#undef NCC_NV2
// numba raises ZeroDivisionError here: without debug=True the kernel's thread ends
#ifndef NCC_COMPLEX_RAISE
#define NCC_COMPLEX_RAISE() asm volatile("exit;")
#endif
template <typename T, typename U> __device__ __forceinline__ ncc_complex<T> ncc_to_complex(U x) {
    return {(T)x, (T)0};
}
template <typename T, typename U> __device__ __forceinline__ ncc_complex<T> ncc_to_complex(const ncc_complex<U> &z) {
    return {(T)z.re, (T)z.im};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_complex_of(T re, T im) { return {re, im}; }
template <typename T> __device__ __forceinline__ ncc_complex<T> operator+(ncc_complex<T> a, ncc_complex<T> b) {
    return {a.re + b.re, a.im + b.im};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> operator-(ncc_complex<T> a, ncc_complex<T> b) {
    return {a.re - b.re, a.im - b.im};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> operator-(ncc_complex<T> a) { return {-a.re, -a.im}; }
// (ac - bd) + (ad + bc)i, in numba's order
template <typename T> __device__ __forceinline__ ncc_complex<T> operator*(ncc_complex<T> a, ncc_complex<T> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// Both operands of a complex operation, evaluated in order: a braced list is sequenced left to right, a call's
// arguments are not. The order matters: NVVM orders a sum's operands by when their loads come (its Reassociate
// pass) and fuses the first product of a + b into an FMA; numba loads a's parts, then b's.
template <typename T> struct ncc_cpair {
    ncc_complex<T> a, b;
};
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cadd(ncc_cpair<T> p) { return p.a + p.b; }
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_csub(ncc_cpair<T> p) { return p.a - p.b; }
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cmul(ncc_cpair<T> p) { return p.a * p.b; }
template <typename T> __device__ __forceinline__ bool operator==(ncc_complex<T> a, ncc_complex<T> b) {
    return a.re == b.re && a.im == b.im;
}
template <typename T> __device__ __forceinline__ bool operator!=(ncc_complex<T> a, ncc_complex<T> b) {
    return !(a == b);
}
template <typename T> __device__ __forceinline__ bool ncc_nonzero(ncc_complex<T> a) { return a.re != 0 || a.im != 0; }
// a / b for b != 0: scaled by b's larger part (a NaN part takes the second branch, as numba's)
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cquot(ncc_complex<T> a, ncc_complex<T> b) {
    if (fabs(b.re) >= fabs(b.im)) {
        if (b.re == 0) return {(T)NCC_NAN, (T)NCC_NAN};
        T ratio = b.im / b.re;
        T denom = b.re + b.im * ratio;
        return {(a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom};
    }
    if (b.im == 0) return {(T)NCC_NAN, (T)NCC_NAN};
    T ratio = b.re / b.im;
    T denom = b.re * ratio + b.im;
    return {(a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom};
}
// Python's a / b (the / operator, cmath.log(z, base)): by zero, ZeroDivisionError
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cdiv(ncc_complex<T> a, ncc_complex<T> b) {
    if (b.re == 0 && b.im == 0) NCC_COMPLEX_RAISE();
    return ncc_cquot(a, b);
}
// C's a / b (NumPy's ufuncs): by zero, NaNs
template <typename T> __device__ __forceinline__ ncc_complex<T> operator/(ncc_complex<T> a, ncc_complex<T> b) {
    if (b.re == 0 && b.im == 0) return {(T)NCC_NAN, (T)NCC_NAN};
    return ncc_cquot(a, b);
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cdiv(ncc_cpair<T> p) { return ncc_cdiv(p.a, p.b); }
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_conj(ncc_complex<T> z) { return {z.re, -z.im}; }
template <typename T> __device__ __forceinline__ bool ncc_cisnan(ncc_complex<T> z) { return isnan(z.re) || isnan(z.im); }
template <typename T> __device__ __forceinline__ bool ncc_cisinf(ncc_complex<T> z) { return isinf(z.re) || isinf(z.im); }
template <typename T> __device__ __forceinline__ bool ncc_cisfinite(ncc_complex<T> z) {
    return isfinite(z.re) && isfinite(z.im);
}
template <typename T> __device__ __forceinline__ T ncc_cabs(ncc_complex<T> z) { return ncc_nv_hypot(z.re, z.im); }
template <typename T> __device__ __forceinline__ T ncc_phase(ncc_complex<T> z) { return ncc_nv_atan2(z.im, z.re); }
// cmath.rect(r, phi): cos and sin in phi's type, the products in W (the wider type); an infinite r keeps a zero
// cos or sin a zero (divided by r, for its sign)
template <typename W, typename R, typename P> __device__ ncc_complex<W> ncc_rect(R r, P phi) {
    if (!isfinite(phi)) {
        if (r == 0) return {(W)fabs(r), (W)0};
        if (isinf(r)) return {(W)r, (W)phi};
    }
    P c = ncc_nv_cos(phi), s = ncc_nv_sin(phi);
    W real = c == 0 && isinf(r) ? (W)c / (W)r : (W)c * (W)r;
    W imag = s == 0 && isinf(r) ? (W)s / (W)r : (W)s * (W)r;
    return {real, imag};
}
// a ** b: numba-cuda's cpow (CPython's polar form); the result len * (cos + sin * 1j) as numba's complex
// arithmetic computes it, the products with the zero parts included (they make NaNs of infinities)
template <typename T> __device__ ncc_complex<T> ncc_cpow(ncc_complex<T> a, ncc_complex<T> b) {
    if (b.re == 0 && b.im == 0) return {(T)1, (T)0};
    if (a.re == 0 && b.re == 0) return {(T)0, (T)0};
    T vabs = ncc_nv_hypot(a.re, a.im);
    T len = ncc_nv_pow(vabs, b.re);
    T at = ncc_nv_atan2(a.im, a.re);
    T phase = at * b.re;
    if (b.im != 0) {
        len /= ncc_nv_exp(at * b.im);
        phase += b.im * ncc_nv_log(vabs);
    }
    T c = ncc_nv_cos(phase), s = ncc_nv_sin(phase);
    T xr = c + s * (T)0, xi = (T)0 + (s + (T)0);  // cos + sin * 1j
    return {len * xr - xi * (T)0, len * xi + xr * (T)0};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cpow(ncc_cpair<T> p) { return ncc_cpow(p.a, p.b); }
template <typename T> __device__ ncc_complex<T> ncc_cexp(ncc_complex<T> z) {
    T x = z.re, y = z.im;
    if (isfinite(x)) {
        if (!isfinite(y)) return {(T)NCC_NAN, (T)NCC_NAN};
        T c = ncc_nv_cos(y), s = ncc_nv_sin(y), r = ncc_nv_exp(x);
        return {r * c, r * s};
    }
    if (isnan(x)) return {x, y != 0 ? x : y};
    if (x > 0) {  // +inf: the angle's cos and sin times x, a zero staying zero
        if (!isfinite(y)) return {x, (T)NCC_NAN};
        T real = ncc_nv_cos(y), imag = ncc_nv_sin(y);
        if (real != 0) real *= x;
        if (imag != 0) imag *= x;
        return {real, imag};
    }
    if (!isfinite(y)) return {(T)0, (T)0};  // -inf
    T r = ncc_nv_exp(x), c = ncc_nv_cos(y), s = ncc_nv_sin(y);
    return {r * c, r * s};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_clog(ncc_complex<T> z) {
    return {ncc_nv_log(ncc_nv_hypot(z.re, z.im)), ncc_nv_atan2(z.im, z.re)};
}
// cmath.log10: log's parts divided by ln 10 (a float64 constant: a complex128 result)
template <typename T> __device__ __forceinline__ ncc_complex<double> ncc_clog10_wide(ncc_complex<T> z) {
    ncc_complex<T> l = ncc_clog(z);
    const double ln10 = 0x1.26bb1bbb55516p+1;
    return {l.re / ln10, l.im / ln10};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_clog10(ncc_complex<T> z) {  // NumPy's log10
    ncc_complex<T> l = ncc_clog(z);
    const T ln10 = (T)2.302585092994045684;
    return {l.re / ln10, l.im / ln10};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_clog2(ncc_complex<T> z) {
    ncc_complex<T> l = ncc_clog(z);
    const T ln2 = (T)0.693147180559945309417;
    return {l.re / ln2, l.im / ln2};
}
// NumPy's order of complex numbers (its CLT/CLE): by real part, then imaginary part; a NaN part compares false
template <typename T> __device__ __forceinline__ bool ncc_clt(ncc_complex<T> a, ncc_complex<T> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <typename T> __device__ __forceinline__ bool ncc_cle(ncc_complex<T> a, ncc_complex<T> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
// np.maximum/np.minimum: a NaN wins (the first one); np.fmax/np.fmin: a NaN loses
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cmaximum(ncc_complex<T> a, ncc_complex<T> b) {
    return ncc_cisnan(a) || ncc_cle(b, a) ? a : b;
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cminimum(ncc_complex<T> a, ncc_complex<T> b) {
    return ncc_cisnan(a) || ncc_cle(a, b) ? a : b;
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cfmax(ncc_complex<T> a, ncc_complex<T> b) {
    return ncc_cisnan(b) || ncc_cle(b, a) ? a : b;
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cfmin(ncc_complex<T> a, ncc_complex<T> b) {
    return ncc_cisnan(b) || ncc_cle(a, b) ? a : b;
}
// the part's largest finite value / (1 + sqrt 2), past which cmath.sqrt scales its argument by 1/4
__device__ __forceinline__ float ncc_csqrt_large(float) { return 0x1.a82796p+126f; }
__device__ __forceinline__ double ncc_csqrt_large(double) { return 0x1.a827999fcef32p+1022; }
// cmath.sqrt: NumPy's npy_csqrt; past the special values in float64 (numba's 0.25 makes a complex64's parts
// float64), rounded to the part's type at the end
template <typename T> __device__ ncc_complex<T> ncc_csqrt(ncc_complex<T> z) {
    T a = z.re, b = z.im;
    if (a == 0 && b == 0) return {fabs(b), b};
    if (isinf(b)) return {fabs(b), b};
    if (isnan(a)) return {a, a};
    if (isinf(a)) {
        if (a < 0) return {fabs(b - b), copysign(a, b)};
        return {a, copysign(b - b, b)};
    }
    bool scale = fabs(a) >= ncc_csqrt_large(a) || fabs(b) >= ncc_csqrt_large(a);
    double x = a, y = b, real, imag;
    if (scale) {
        x *= 0.25;
        y *= 0.25;
    }
    if (x >= 0) {
        double t = ncc_nv_sqrt((x + ncc_nv_hypot(x, y)) * 0.5);
        real = t;
        imag = y / (2 * t);
    } else {
        double t = ncc_nv_sqrt((-x + ncc_nv_hypot(x, y)) * 0.5);
        real = fabs(y) / (2 * t);
        imag = copysign(t, y);
    }
    if (scale) return {(T)(real * 2), (T)imag};
    return {(T)real, (T)imag};
}
template <typename T> __device__ ncc_complex<T> ncc_csinh(ncc_complex<T> z) {
    T x = z.re, y = z.im;
    if (isinf(x)) {
        if (isnan(y)) return {x, y};
        T real = ncc_nv_cos(y), imag = ncc_nv_sin(y);
        if (real != 0) real *= x;
        if (imag != 0) imag *= fabs(x);
        return {real, imag};
    }
    return {ncc_nv_cos(y) * ncc_nv_sinh(x), ncc_nv_sin(y) * ncc_nv_cosh(x)};
}
template <typename T> __device__ ncc_complex<T> ncc_ccosh(ncc_complex<T> z) {
    T x = z.re, y = z.im;
    if (isinf(x)) {
        T real, imag;
        if (isnan(y) || y == 0) {
            real = fabs(x);
            imag = y;
        } else {
            real = copysign(x, ncc_nv_cos(y));
            imag = copysign(x, ncc_nv_sin(y));
        }
        return {real, x < 0 ? -imag : imag};
    }
    return {ncc_nv_cos(y) * ncc_nv_cosh(x), ncc_nv_sin(y) * ncc_nv_sinh(x)};
}
// cmath.tanh: CPython's c_tanh, with numba's float64 constants (a complex128 result)
template <typename T> __device__ ncc_complex<double> ncc_ctanh_wide(ncc_complex<T> z) {
    T x = z.re, y = z.im;
    if (isinf(x)) {
        double real = copysign(1.0, (double)x);
        double imag = isinf(y) ? 0.0 : copysign(0.0, ncc_nv_sin(2.0 * y));
        return {real, imag};
    }
    T tx = ncc_nv_tanh(x), ty = ncc_nv_tan(y);
    double cx = 1.0 / ncc_nv_cosh(x);
    T txty = tx * ty;
    double denom = 1.0 + txty * txty;
    return {tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_ctanh(ncc_complex<T> z) {
    return ncc_to_complex<T>(ncc_ctanh_wide(z));
}
// sin, cos and tan through sinh, cosh and tanh of iz: sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz)
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_csin(ncc_complex<T> z) {
    ncc_complex<T> r = ncc_csinh(ncc_complex<T>{-z.im, z.re});
    return {r.im, -r.re};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_ccos(ncc_complex<T> z) {
    return ncc_ccosh(ncc_complex<T>{-z.im, z.re});
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_ctan(ncc_complex<T> z) {
    ncc_complex<double> r = ncc_ctanh_wide(ncc_complex<T>{-z.im, z.re});
    return {(T)r.im, (T)-r.re};
}
// acos, acosh and asinh: CPython's algorithms. Past FLT_MAX / 4 (numba's float32 threshold, for complex128
// too) from log(hypot(z/2)) + ln 4; below it from two float64 square roots
template <typename T> __device__ __forceinline__ bool ncc_clarge(ncc_complex<T> z) {
    return fabs(z.re) > (T)0x1.fffffep+125f || fabs(z.im) > (T)0x1.fffffep+125f;
}
template <typename T> __device__ __forceinline__ double ncc_clog_half_hypot(ncc_complex<T> z) {
    return ncc_nv_log(ncc_nv_hypot(z.re * 0.5, z.im * 0.5)) + 0x1.62e42fefa39efp+0;  // + ln 4
}
template <typename T> __device__ ncc_complex<T> ncc_cacos(ncc_complex<T> z) {
    if (ncc_clarge(z)) {
        T real = ncc_nv_atan2(fabs(z.im), z.re);
        double imag = copysign(ncc_clog_half_hypot(z), (double)-z.im);
        return {real, (T)imag};
    }
    ncc_complex<double> s1 = ncc_csqrt(ncc_complex<double>{1.0 - z.re, (double)-z.im});
    ncc_complex<double> s2 = ncc_csqrt(ncc_complex<double>{1.0 + z.re, (double)z.im});
    double real = 2.0 * ncc_nv_atan2(s1.re, s2.re);
    double imag = ncc_nv_asinh(s2.re * s1.im - s2.im * s1.re);
    return {(T)real, (T)imag};
}
// cmath.acosh: a complex128 result (numba's float64 constants)
template <typename T> __device__ ncc_complex<double> ncc_cacosh_wide(ncc_complex<T> z) {
    if (ncc_clarge(z)) {
        double real = ncc_clog_half_hypot(z);
        T imag = ncc_nv_atan2(z.im, z.re);
        return {real, (double)imag};
    }
    ncc_complex<double> s1 = ncc_csqrt(ncc_complex<double>{z.re - 1.0, (double)z.im});
    ncc_complex<double> s2 = ncc_csqrt(ncc_complex<double>{z.re + 1.0, (double)z.im});
    double real = ncc_nv_asinh(s1.re * s2.re + s1.im * s2.im);
    double imag = 2.0 * ncc_nv_atan2(s1.im, s2.re);
    return {real, imag};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_cacosh(ncc_complex<T> z) {
    return ncc_to_complex<T>(ncc_cacosh_wide(z));
}
template <typename T> __device__ ncc_complex<T> ncc_casinh(ncc_complex<T> z) {
    if (ncc_clarge(z)) {
        double real = copysign(ncc_clog_half_hypot(z), (double)z.re);
        T imag = ncc_nv_atan2(z.im, fabs(z.re));
        return {(T)real, imag};
    }
    ncc_complex<double> s1 = ncc_csqrt(ncc_complex<double>{1.0 + z.im, (double)-z.re});
    ncc_complex<double> s2 = ncc_csqrt(ncc_complex<double>{1.0 - z.im, (double)z.re});
    double real = ncc_nv_asinh(s1.re * s2.im - s2.re * s1.im);
    double imag = ncc_nv_atan2((double)z.im, s1.re * s2.re - s1.im * s2.im);
    return {(T)real, (T)imag};
}
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_casin(ncc_complex<T> z) {
    ncc_complex<T> r = ncc_casinh(ncc_complex<T>{-z.im, z.re});  // asin z = -i asinh(iz)
    return {r.im, -r.re};
}
// cmath.atanh: CPython's c_atanh on z or -z (whichever has a real part >= 0), in float64 past the argument
template <typename T> __device__ ncc_complex<T> ncc_catanh(ncc_complex<T> z) {
    bool negate = z.re < 0;
    if (negate) z = -z;
    T ay = fabs(z.im);
    double real, imag;
    if (isnan(z.re) || z.re > 0x1.fffffeffffffcp+62 || ay > 0x1.fffffeffffffcp+62) {  // sqrt(FLT_MAX / 4)
        if (isinf(z.im)) {
            real = copysign(0.0, (double)z.re);
        } else if (isinf(z.re)) {
            real = 0.0;
        } else {
            double h = ncc_nv_hypot(z.re * 0.5, z.im * 0.5);
            real = z.re / 4.0 / h / h;
        }
        imag = -copysign(0x1.921fb54442d18p+0, (double)-z.im);  // pi / 2
    } else if (z.re == 1 && ay < 0x1p-63) {  // sqrt(FLT_MIN)
        if (ay == 0) {
            real = (double)NCC_INFINITY;
            imag = z.im;
        } else {
            real = -ncc_nv_log(ncc_nv_sqrt(ay) / ncc_nv_sqrt(ncc_nv_hypot((double)ay, 2.0)));
            imag = copysign(ncc_nv_atan2(2.0, (double)-ay) / 2, (double)z.im);
        }
    } else {
        T sqay = ay * ay;
        double zr1 = 1.0 - z.re;
        real = ncc_nv_log1p(4.0 * z.re / (zr1 * zr1 + sqay)) * 0.25;
        imag = -ncc_nv_atan2(-2.0 * z.im, zr1 * (1.0 + z.re) - sqay) * 0.5;
    }
    if (isnan(z.im)) imag = (double)NCC_NAN;
    return {(T)(negate ? -real : real), (T)(negate ? -imag : imag)};
}
// atan z = -i atanh(iz); for an infinite real part with a NaN imaginary one, numba keeps atanh's real part's sign
template <typename T> __device__ __forceinline__ ncc_complex<T> ncc_catan(ncc_complex<T> z) {
    ncc_complex<T> r = ncc_catanh(ncc_complex<T>{-z.im, z.re});
    if (isinf(z.re) && isnan(z.im)) return {r.im, r.re};
    return {r.im, -r.re};
}
