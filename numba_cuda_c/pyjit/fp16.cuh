#include <cuda_fp16.h>
// Conversions into __half, one overload per widened source type (values.py widens the others).
__device__ __forceinline__ __half ncc_to_half(double x) { return __double2half(x); }
__device__ __forceinline__ __half ncc_to_half(float x) { return __float2half_rn(x); }
__device__ __forceinline__ __half ncc_to_half(long long x) { return __ll2half_rn(x); }
__device__ __forceinline__ __half ncc_to_half(unsigned long long x) { return __ull2half_rn(x); }
// Conversions between __half and integers, and __half to double, as numba writes them: one cvt each, from and to
// the integer's own width (cvt.rn.f16.s8, cvt.f64.f16); a half becomes an integer rounded to the nearest
// (cvt.rni.s32.f16: numba's, where NumPy truncates), saturated to the integer's range.
#define NCC_HALF_INT(T, PTX, REG, C)                                                                 \
    __device__ __forceinline__ __half ncc_int_to_half(T x) {                                        \
        unsigned short h;                                                                            \
        asm("cvt.rn.f16." PTX " %0, %1;" : "=h"(h) : C((REG)x));                                   \
        return __ushort_as_half(h);                                                                  \
    }                                                                                                \
    template <> __device__ __forceinline__ T ncc_from_half<T>(__half x) {                           \
        REG r;                                                                                       \
        asm("cvt.rni." PTX ".f16 %0, %1;" : "=" C(r) : "h"(__half_as_ushort(x)));                  \
        return (T)r;                                                                                 \
    }
template <typename T> __device__ __forceinline__ T ncc_from_half(__half x);
NCC_HALF_INT(signed char, "s8", short, "h")
NCC_HALF_INT(short, "s16", short, "h")
NCC_HALF_INT(int, "s32", int, "r")
NCC_HALF_INT(long long, "s64", long long, "l")
NCC_HALF_INT(unsigned char, "u8", unsigned short, "h")
NCC_HALF_INT(unsigned short, "u16", unsigned short, "h")
NCC_HALF_INT(unsigned int, "u32", unsigned int, "r")
NCC_HALF_INT(unsigned long long, "u64", unsigned long long, "l")
template <> __device__ __forceinline__ double ncc_from_half<double>(__half x) {
    double d;
    asm("cvt.f64.f16 %0, %1;" : "=d"(d) : "h"(__half_as_ushort(x)));
    return d;
}
