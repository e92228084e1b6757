"""The kernel language numba compiles that the translator once refused (issue 29, section 4): chained assignment,
the walrus operator, lambdas (closures reading the variables they capture where called), tuple slices and
concatenation, range objects in variables, enum members' values and comparisons, a.itemsize / a.nbytes / a.flat /
np.ndindex / a.dtype.type(x), the operator module's in-place functions, constant folding in array shapes, and the
cuda.fp16 / cuda.bf16 functions numba-cuda has. Translation, NVRTC compilation and errors in CI; on the GPU, each
kernel's results against the same Python run on the host and against numba-cuda compiling the same function."""

import numpy as np
import pytest

import numba_cuda_c as cuda
import syntax_kernels as sk
from gpu import needs_nvrtc, numba_cuda_or_skip, rebind, requires_gpu
from numba_cuda_c.pyjit import KernelTypeError, lib
from numba_cuda_c.pyjit.translate import translate_kernel

# kernel, signature, its arguments after `out` (made fresh for each run), out's dtype and size
CASES = [
    (sk.chained, "void(float64[::1], int64)", lambda: (7,), np.float64, 3),
    (sk.walrus, "void(int64[::1], int64)", lambda: (9,), np.int64, 4),
    (sk.walrus_in_expressions, "void(int64[::1], int64)", lambda: (9,), np.int64, 4),
    (sk.lambdas, "void(int64[::1], int64)", lambda: (4,), np.int64, 3),
    (sk.tuples, "void(float64[::1], int64)", lambda: (5,), np.float64, 2),
    (sk.ranges, "void(int64[::1], int64)", lambda: (17,), np.int64, 3),
    (sk.enums, "void(float64[::1], int64)", lambda: (2,), np.float64, 8),
    (
        sk.array_attributes,
        "void(float64[::1], float32[:, ::1])",
        lambda: (np.arange(12, dtype=np.float32).reshape(3, 4),),
        np.float64,
        4,
    ),
    (sk.in_place_operators, "void(int64[::1], int64, int64)", lambda: (13, 3), np.int64, 10),
]
IDS = [case[0].__name__ for case in CASES]
NUMBA_CANNOT = {
    sk.walrus_in_expressions
}  # numba-cuda 0.30 refuses these (its TypingError): compared with Python only


def on_the_host(kernel, args, dtype, size):
    out = np.zeros(size, dtype)
    rebind(kernel, apply_device=sk.apply)(out, *args)
    return out


@needs_nvrtc
@pytest.mark.parametrize("kernel, signature", [case[:2] for case in CASES], ids=IDS)
def test_kernels_compile(kernel, signature):
    ptx, _ = cuda.compile_ptx(kernel, signature, cc=(8, 0))
    assert ".entry" in ptx or ".visible .func" in ptx


@needs_nvrtc
def test_constant_expressions_in_array_shapes_fold():
    source = translate_kernel(sk.folded_shapes, [cuda.types.Array(cuda.types.int64, 1, "A")], "k")
    # 1 << 4; (2 ** 4, N // 2 + 1, ~-3); max(N, 2) * 2; abs(-N) + len((1, 2)); int(4.0) - (N if N > 2 else 1);
    # min(N, 8) % 2 + (64 >> 3) - 2 ** (N - 1): each array's storage sized when compiling
    for declaration in ("int storage_1[16];", "__shared__ int storage_3[64];", "{16LL, 2LL, 2LL}", "[6];", "[1];"):
        assert declaration in source
    cuda.compile_ptx(sk.folded_shapes, "void(int64[::1])", cc=(8, 0))


@needs_nvrtc
def test_more_operator_functions_compile():
    cuda.compile_ptx(sk.more_operator_functions, "void(int64[::1], int64, int64)", cc=(8, 0))


@needs_nvrtc
def test_half_and_bfloat16_functions_compile():
    cuda.compile_ptx(sk.half_functions, "void(float32[::1], float16, float16)", cc=(8, 0))
    cuda.compile_ptx(sk.bfloat16_functions, "void(float32[::1], float32, float32)", cc=(8, 0))
    cuda.compile_ptx(sk.bfloat16_constructor, "void(float32[::1], float32)", cc=(8, 0))


def fp16_entries():
    lib.lookup(("fp16", "hadd"))  # loads the families
    return sorted((path[1], entry) for path, entry in lib.TABLE.items() if path[0] == "fp16")


# numba-cuda 0.30's numba.cuda.fp16.__all__ and numba.cuda.bf16.__all__ (less its registries), which kernels reach
# as cuda.fp16.<name> and cuda.bf16.<name>
NUMBA_FP16 = (
    "__half __double2half __float2half __float2half_rd __float2half_rn __float2half_ru __float2half_rz "
    "__int2half_rd __int2half_rn __int2half_ru __int2half_rz __ll2half_rd __ll2half_rn __ll2half_ru __ll2half_rz "
    "__short2half_rd __short2half_rn __short2half_ru __short2half_rz __uint2half_rd __uint2half_rn __uint2half_ru "
    "__uint2half_rz __ull2half_rd __ull2half_rn __ull2half_ru __ull2half_rz __ushort2half_rd __ushort2half_rn "
    "__ushort2half_ru __ushort2half_rz __half2char_rz __half2float __half2int_rd __half2int_rn __half2int_ru "
    "__half2int_rz __half2ll_rd __half2ll_rn __half2ll_ru __half2ll_rz __half2short_rd __half2short_rn "
    "__half2short_ru __half2short_rz __half2uchar_rz __half2uint_rd __half2uint_rn __half2uint_ru __half2uint_rz "
    "__half2ull_rd __half2ull_rn __half2ull_ru __half2ull_rz __half2ushort_rd __half2ushort_rn __half2ushort_ru "
    "__half2ushort_rz __short_as_half __ushort_as_half __half_as_short __half_as_ushort habs __habs hadd __hadd "
    "__hadd_rn __hadd_sat hdiv __hdiv heq __heq __hequ hfma __hfma __hfma_relu __hfma_sat hge __hge __hgeu hgt "
    "__hgt __hgtu __hisinf __hisnan hle __hle __hleu hlt __hlt __hltu hmax __hmax __hmax_nan hmin __hmin "
    "__hmin_nan hmul __hmul __hmul_rn __hmul_sat hne __hne hneg __hneg __hneu hsub __hsub __hsub_rn __hsub_sat "
    "atomicAdd hceil hcos hexp hexp10 hexp2 hfloor hlog hlog10 hlog2 hrcp hrint hrsqrt hsin hsqrt htanh "
    "htanh_approx htrunc"
).split()
NUMBA_BF16_UNORDERED = ("hequ", "hneu", "hgeu", "hgtu", "hleu", "hltu", "bfloat16")


def test_the_half_tables_hold_numba_cudas_names():
    lib.lookup(("fp16", "hadd"))
    assert [n for n in NUMBA_FP16 if lib.lookup(("fp16", n)) is None] == []
    assert [n for n in NUMBA_BF16_UNORDERED if lib.lookup(("bf16", n)) is None] == []


@needs_nvrtc
@pytest.mark.parametrize("name, entry", fp16_entries(), ids=[name for name, _ in fp16_entries()])
def test_every_fp16_function_compiles(name, entry):
    argument_types, result = entry.signature
    params = ", ".join("a%d" % k for k in range(len(argument_types)))
    namespace = {"f": entry}
    exec("def generated(out, %s):\n    out[0] = f(%s)\n" % (params, params), namespace)
    out = cuda.types.Array(result if result != cuda.types.boolean else cuda.types.int32, 1, "C")
    ptx, _ = cuda.compile_ptx(namespace["generated"], (out,) + argument_types, cc=(8, 0))
    assert "st.global" in ptx


# -- errors ---------------------------------------------------------------------------------------------------
def slices_by_a_variable(out, n):
    t = (1, 2, 3)
    out[0] = t[n:][0]


def indexes_a_range(out, n):
    out[0] = range(n)[0]


def unpacks_a_range(out, n):
    a, b, c = range(n)
    out[0] = a


def walrus_of_a_tuple(out, n):
    if (t := (n, n)) is not None:
        out[0] = t[0]


def one_name_two_functions(out, x):
    f = np.sin
    f = np.cos
    out[0] = f(x)


def a_range_of_floats(out, x):
    r = range(x)
    out[0] = len(r)


@needs_nvrtc
@pytest.mark.parametrize(
    "kernel, signature, words",
    [
        (
            sk.escapes,
            "void(int64[::1], int64)",
            "Cannot capture the non-constant value associated with variable 'offset'",
        ),
        (slices_by_a_variable, "void(int64[::1], int64)", "a tuple is sliced by constants"),
        (indexes_a_range, "void(int64[::1], int64)", "range objects cannot be indexed"),
        (unpacks_a_range, "void(int64[::1], int64)", "range objects cannot be unpacked"),
        (walrus_of_a_tuple, "void(int64[::1], int64)", r"\(t := \.\.\.\) in a kernel takes a number or an array"),
        (one_name_two_functions, "void(float64[::1], float64)", "variable 'f' is bound to"),
        (a_range_of_floats, "void(int64[::1], float64)", "range\\(\\) takes integers, not float64"),
    ],
    ids=["escape", "slice", "range-index", "range-unpack", "walrus-tuple", "two-objects", "range-float"],
)
def test_what_numba_refuses_is_refused_with_its_reason(kernel, signature, words):
    with pytest.raises(KernelTypeError, match=words):
        cuda.compile_ptx(kernel, signature)


# -- on the GPU -----------------------------------------------------------------------------------------------
@requires_gpu
@pytest.mark.parametrize("kernel, signature, arguments, dtype, size", CASES, ids=IDS)
def test_results_as_python_and_numba_cuda(kernel, signature, arguments, dtype, size):
    expected = on_the_host(kernel, arguments(), dtype, size)
    got = np.zeros(size, dtype)
    cuda.jit(kernel)[1, 1](got, *arguments())
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    if kernel in NUMBA_CANNOT:
        return
    numba_cuda = numba_cuda_or_skip()
    theirs = np.zeros(size, dtype)
    numba_kernel = rebind(kernel, cuda=numba_cuda, apply_device=numba_cuda.jit(device=True)(sk.apply))
    numba_cuda.jit(numba_kernel)[1, 1](theirs, *arguments())
    np.testing.assert_allclose(got, theirs, rtol=1e-6)


@requires_gpu
def test_folded_shapes_on_the_gpu():
    out = np.zeros(6, np.int64)
    cuda.jit(sk.folded_shapes)[1, 1](out)
    assert list(out) == [16, 64, 6, 5, 1, 5]


@requires_gpu
def test_more_operator_functions_on_the_gpu():
    out = np.zeros(3, np.int64)
    cuda.jit(sk.more_operator_functions)[1, 1](out, 4, 5)
    expected = np.zeros(3, np.int64)
    sk.more_operator_functions(expected, 4, 5)
    assert list(out) == list(expected)


@requires_gpu
@pytest.mark.parametrize(
    "kernel, size, number",
    [(sk.half_functions, 8, np.float16), (sk.bfloat16_functions, 4, np.float32)],
    ids=["fp16", "bf16"],
)
def test_half_functions_as_numba_cuda(kernel, size, number):
    numba_cuda = numba_cuda_or_skip()
    theirs_kernel = numba_cuda.jit(rebind(kernel, cuda=numba_cuda))
    for x, y in ((0.5, -1.25), (3.0, float("nan")), (float("inf"), 2.0), (-7.75, -7.75)):
        ours, theirs = np.zeros(size, np.float32), np.zeros(size, np.float32)
        cuda.jit(kernel)[1, 1](ours, number(x), number(y))
        theirs_kernel[1, 1](theirs, number(x), number(y))
        np.testing.assert_array_equal(ours, theirs)


@requires_gpu
def test_bfloat16_and_half_constructors_on_the_gpu():
    out = np.zeros(1, np.float32)
    cuda.jit(sk.bfloat16_constructor)[1, 1](out, np.float32(1.5))
    assert out[0] == 3.0
