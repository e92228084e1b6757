"""NumPy's whole-array reductions in kernels, as numba supports them: np.sum(a) and a.sum(), prod, min,
max, mean, var, std, all, any, argmin, argmax, the nan* forms and count_nonzero. Each walks every
element in C order (any dimensions, any strides) in one thread, with numba's result types: integer sums
and products in 64 bits, means and variances of integers in float64, NaN propagated by min and max
(skipped by the nan* forms)."""

import numpy as np

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement

Requirement(
    "array_reductions",
    r"""// --- whole-array reductions (pyjit/lib/arrays.py) -------------------------------------------
template <typename T, int N, typename F> __device__ void ncc_each(const Array<T, N> &a, F f) {
    long long n = 1, index[N > 0 ? N : 1] = {};
    for (int d = 0; d < N; ++d) n *= a.shape[d];
    for (long long i = 0; i < n; ++i) {
        f(*ncc_at(a, index), i);
        for (int d = N - 1; d >= 0; --d) {
            if (++index[d] < a.shape[d]) break;
            index[d] = 0;
        }
    }
}
template <typename T> __device__ __forceinline__ bool ncc_isnan_any(T x) { return x != x; }
template <typename R, bool SkipNan, typename T, int N> __device__ R ncc_array_sum(const Array<T, N> &a) {
    R s = R(0);
    ncc_each(a, [&](T x, long long) { if (!(SkipNan && ncc_isnan_any(x))) s += (R)x; });
    return s;
}
template <typename R, bool SkipNan, typename T, int N> __device__ R ncc_array_prod(const Array<T, N> &a) {
    R s = R(1);
    ncc_each(a, [&](T x, long long) { if (!(SkipNan && ncc_isnan_any(x))) s *= (R)x; });
    return s;
}
// min (Max false) or max; SkipNan: nanmin/nanmax (all NaN: NaN); else the first NaN wins, as NumPy's.
// Arg: the flat index instead of the value.
template <bool Max, bool SkipNan, bool Arg, typename T, int N> __device__ long long ncc_array_extreme_at(
        const Array<T, N> &a, T *best) {
    bool seen = false, nan = false;
    long long at = 0;
    ncc_each(a, [&](T x, long long i) {
        if (nan) return;
        if (ncc_isnan_any(x)) {
            if (!SkipNan) { nan = true; *best = x; at = i; }
            return;
        }
        if (!seen || (Max ? x > *best : x < *best)) { *best = x; at = i; seen = true; }
    });
    if (!seen && !nan) *best = (T)NCC_NAN;
    return at;
}
template <bool Max, bool SkipNan, typename T, int N> __device__ T ncc_array_extreme(const Array<T, N> &a) {
    T best = T(0);
    ncc_array_extreme_at<Max, SkipNan, false>(a, &best);
    return best;
}
template <bool Max, typename T, int N> __device__ long long ncc_array_arg_extreme(const Array<T, N> &a) {
    T best = T(0);
    return ncc_array_extreme_at<Max, false, true>(a, &best);
}
template <typename R, bool SkipNan, typename T, int N> __device__ R ncc_array_mean(const Array<T, N> &a) {
    R s = R(0);
    long long count = 0;
    ncc_each(a, [&](T x, long long) { if (!(SkipNan && ncc_isnan_any(x))) { s += (R)x; ++count; } });
    return s / (R)count;
}
// numba's var: the mean first, then the mean of squared deviations (ddof 0)
template <typename R, typename T, int N> __device__ R ncc_array_var(const Array<T, N> &a) {
    R m = ncc_array_mean<R, false>(a), s = R(0);
    long long count = 0;
    ncc_each(a, [&](T x, long long) { R d = (R)x - m; s += d * d; ++count; });
    return s / (R)count;
}
template <bool All, typename T, int N> __device__ bool ncc_array_all_any(const Array<T, N> &a) {
    bool result = All;
    ncc_each(a, [&](T x, long long) { if ((x != T(0)) != All) result = !All; });
    return result;
}
template <typename T, int N> __device__ long long ncc_array_count_nonzero(const Array<T, N> &a) {
    long long count = 0;
    ncc_each(a, [&](T x, long long) { count += x != T(0); });
    return count;
}
""",
)

Requirement(
    "array_views",
    r"""// --- reshape, view, transpose in kernels (pyjit/lib/arrays.py) -------------------------------
// a.reshape(shape): a view with the new shape, where the elements' order allows one without a copy
// (NumPy's no-copy rule, C order: each run of old axes that merges into new ones is contiguous).
// Returns 0, 1 (the sizes differ, or two -1s: ValueError) or 2 (no view is possible: numba's
// NotImplementedError). One -1 in the shape takes the rest of the size.
template <typename T, int N, int M> __device__ int ncc_reshape(const Array<T, N> &a, long long (&shape)[M],
                                                                Array<T, M> *out) {
    long long size = 1, known = 1;
    int unknown = -1;
    for (int d = 0; d < N; ++d) size *= a.shape[d];
    for (int d = 0; d < M; ++d) {
        if (shape[d] < 0) {
            if (unknown >= 0 || shape[d] != -1) return 1;
            unknown = d;
        } else {
            known *= shape[d];
        }
    }
    if (unknown >= 0) {
        if (known == 0 || size % known != 0) return 1;
        shape[unknown] = size / known;
    } else if (known != size) {
        return 1;
    }
    out->data = a.data;
    long long step = sizeof(T);
    for (int d = M - 1; d >= 0; --d) {  // C-contiguous strides: right for an empty array, and the start
        ((long long *)out->shape)[d] = shape[d];
        ((long long *)out->strides)[d] = step;
        step *= shape[d];
    }
    if (size == 0) return 0;
    long long old_shape[N > 0 ? N : 1], old_strides[N > 0 ? N : 1];
    int old_n = 0;
    for (int d = 0; d < N; ++d)  // axes of length 1 place nothing
        if (a.shape[d] != 1) { old_shape[old_n] = a.shape[d]; old_strides[old_n] = a.strides[d]; ++old_n; }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < M && oi < old_n) {
        long long np_ = shape[ni], op = old_shape[oi];
        while (np_ != op) {
            if (np_ < op) np_ *= shape[nj++];
            else op *= old_shape[oj++];
        }
        for (int k = oi; k < oj - 1; ++k)
            if (old_strides[k] != old_shape[k + 1] * old_strides[k + 1]) return 2;
        ((long long *)out->strides)[nj - 1] = old_strides[oj - 1];
        for (int k = nj - 1; k > ni; --k)
            ((long long *)out->strides)[k - 1] = out->strides[k] * shape[k];
        ni = nj++;
        oi = oj++;
    }
    return 0;
}
// a.view(dtype): the same bytes as elements of U; the last axis is rescaled (it must be contiguous and
// its bytes a multiple of U's size). Returns 0, or 1 (numba's ValueError).
template <typename U, typename T, int N> __device__ int ncc_view_as(const Array<T, N> &a, Array<U, N> *out) {
    out->data = (U *)a.data;
    for (int d = 0; d < N; ++d) {
        ((long long *)out->shape)[d] = a.shape[d];
        ((long long *)out->strides)[d] = a.strides[d];
    }
    if (sizeof(U) == sizeof(T)) return 0;
    if (N == 0) return 1;
    long long bytes = a.shape[N - 1] * (long long)sizeof(T);
    if ((a.shape[N - 1] > 1 && a.strides[N - 1] != (long long)sizeof(T)) || bytes % (long long)sizeof(U) != 0) return 1;
    ((long long *)out->shape)[N - 1] = bytes / (long long)sizeof(U);
    ((long long *)out->strides)[N - 1] = sizeof(U);
    return 0;
}
// a.T, a.transpose(): the axes reversed
template <typename T, int N> __device__ __forceinline__ Array<T, N> ncc_transpose(const Array<T, N> &a) {
    Array<T, N> t = a;
    for (int d = 0; d < N; ++d) {
        ((long long *)t.shape)[d] = a.shape[N - 1 - d];
        ((long long *)t.strides)[d] = a.strides[N - 1 - d];
    }
    return t;
}
""",
)

VIEW_METHODS = ("reshape", "view", "transpose", "fill")  # a.reshape(shape), ..., a.fill(value): intrinsics.py

OBJECTS = {}  # NumPy function -> Intrinsic (np.sum)
METHODS = {}  # array method name -> Intrinsic (a.sum())


def _array(name, args):
    if len(args) != 1 or not isinstance(args[0].type, types.Array):
        raise TypeError("np.%s in a kernel takes one array (no axis, no out)" % name)
    dtype = args[0].type.dtype
    if not isinstance(dtype, types.Scalar) or typing.is_complex(dtype) or dtype.to_float:
        raise TypeError(
            "np.%s in a kernel takes arrays of integers, booleans, float32 or float64, not %s" % (name, dtype)
        )
    return dtype


def _accumulated(dtype):
    """numba's sum and product types: 64-bit integers for integers and booleans."""
    if dtype == types.boolean or (typing.is_int(dtype) and dtype.kind == "i"):
        return types.int64
    if typing.is_int(dtype):
        return types.uint64
    return dtype


def _fractional(dtype):
    return dtype if typing.is_float(dtype) else types.float64


def _entry(name, result_of, emit, method=True, function=True):
    def typing_rule(args):
        return result_of(_array(name, args))

    entry = Intrinsic(
        ("np", name),
        typing_rule,
        lambda codes, args, result: emit(codes[0], args[0].type, result),
        requires=("array_reductions",),
    )
    if function and hasattr(np, name):
        OBJECTS[getattr(np, name)] = entry
    if method:
        METHODS[name] = entry
    return entry


def _template(helper, *flags):
    """emit for `helper<result or flags...>(a)`."""

    def emit(code, array, result):
        params = [("true" if f else "false") if isinstance(f, bool) else f for f in flags]
        params = [result.ctype if p == "R" else p for p in params]
        return "%s<%s>(%s)" % (helper, ", ".join(params), code)

    return emit


_entry("sum", _accumulated, _template("ncc_array_sum", "R", False))
_entry("nansum", _accumulated, _template("ncc_array_sum", "R", True), method=False)
_entry("prod", _accumulated, _template("ncc_array_prod", "R", False))
_entry("nanprod", _accumulated, _template("ncc_array_prod", "R", True), method=False)
for _name, _max, _skip, _method in (
    ("min", False, False, True),
    ("amin", False, False, False),
    ("max", True, False, True),
    ("amax", True, False, False),
    ("nanmin", False, True, False),
    ("nanmax", True, True, False),
):
    _entry(_name, lambda d: d, _template("ncc_array_extreme", _max, _skip), method=_method)
_entry("argmin", lambda d: types.int64, _template("ncc_array_arg_extreme", False))
_entry("argmax", lambda d: types.int64, _template("ncc_array_arg_extreme", True))
_entry("mean", _fractional, _template("ncc_array_mean", "R", False))
_entry("nanmean", _fractional, _template("ncc_array_mean", "R", True), method=False)
_entry("var", _fractional, _template("ncc_array_var", "R"))
_entry(
    "std",
    _fractional,
    lambda code, array, result: "sqrt(%s)" % _template("ncc_array_var", "R")(code, array, result),
)
_entry("all", lambda d: types.boolean, _template("ncc_array_all_any", True))
_entry("any", lambda d: types.boolean, _template("ncc_array_all_any", False))
_entry("count_nonzero", lambda d: types.int64, _template("ncc_array_count_nonzero"), method=False)
