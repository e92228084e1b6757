"""FP8 in kernels (numba.cuda's numba.cuda._internal.cuda_fp8, ours numba_cuda_c.fp8): the types fp8_e5m2, fp8_e4m3
and fp8_e8m0 made from numbers and converted to numbers, CUDA's storage conversions with their saturation,
interpretation and rounding modes, numba's own objects as ours, and the errors for what numba-cuda does not define
on them. Every kernel compiles with NVRTC in CI; on the GPU each result is compared bit for bit with numba-cuda's
where it is installed, and with the numbers numba-cuda's own tests expect."""

import os
import pickle
import types as pytypes

import numpy as np
import pytest

import fp8_kernels as fk
import numba_cuda_c as cuda
from gpu import needs_nvrtc, numba_cuda_or_skip, requires_gpu
from subproc import run_python
from numba_cuda_c import fp8, types
from numba_cuda_c._internal import cuda_fp8
from numba_cuda_c.pyjit import lib
from numba_cuda_c.pyjit.translate import translate_kernel
from numba_cuda_c.pyjit.typing import KernelTypeError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FP8_TYPES = ("fp8_e5m2", "fp8_e4m3", "fp8_e8m0")
# numba-cuda's names in numba.cuda._internal.cuda_fp8 that programs use (its __all__ but the x2/x4 vector types)
NUMBA_NAMES = FP8_TYPES + fp8.FUNCTIONS + ("saturation_t", "fp8_interpretation_t")
CC = (8, 9)  # the first architecture with FP8 instructions (older ones convert in software; numba skips them)

F32 = types.float32[::1]


def fp8_entries():
    lib._load()
    return sorted((path[1], entry) for path, entry in lib.TABLE.items() if path[0] == "fp8")


def test_the_modules_name_numbas_objects():
    for module in (fp8, cuda_fp8):
        for name in NUMBA_NAMES:
            assert name in dir(module), name
            assert getattr(module, name) is getattr(fp8, name)
    assert cuda_fp8._type_fp8_e4m3 is fp8.fp8_e4m3  # numba's type object of the class is the same type here
    assert [fp8.fp8_e5m2.__name__, fp8.fp8_e8m0.__name__] == ["fp8_e5m2", "fp8_e8m0"]  # numba's tests print these
    # CUDA's enumerators (cuda_fp8.h, driver_types.h)
    assert (fp8.saturation_t.NOSAT, fp8.saturation_t.SATFINITE) == (0, 1)
    assert (fp8.fp8_interpretation_t.E4M3, fp8.fp8_interpretation_t.E5M2) == (0, 1)
    assert [int(m) for m in fp8.cudaRoundMode] == [0, 1, 2, 3]
    with pytest.raises(AttributeError, match="no attribute 'cvt_nothing'"):
        fp8.cvt_nothing


def test_on_the_host_they_are_device_types_and_functions():
    with pytest.raises(TypeError, match="device function"):
        fp8.cvt_float_to_fp8(1.0, fp8.saturation_t.NOSAT, fp8.fp8_interpretation_t.E4M3)
    with pytest.raises(TypeError, match="fp8_e4m3 is a device type"):
        fp8.fp8_e4m3(1.0)
    with pytest.raises(TypeError, match="no NumPy dtype"):
        fp8.fp8_e5m2.dtype
    assert fp8.fp8_e4m3(types.float32) == types.Signature(fp8.fp8_e4m3, [types.float32])
    for t in (fp8.fp8_e5m2, fp8.fp8_e4m3, fp8.fp8_e8m0, fp8.bfloat16_raw, *fp8.VECTORS.values()):
        assert pickle.loads(pickle.dumps(t)) is t


def test_host_arrays_cannot_hold_fp8():
    # numba-cuda has no NumPy dtype for its FP8 types: ml_dtypes' float8 arrays are refused, as there
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for dtype in (ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn):
        with pytest.raises(TypeError, match="no device type for dtype"):
            types.from_dtype(np.dtype(dtype))


def source_of(kernel, argtypes):
    return translate_kernel(kernel, argtypes, "k")


def test_conversions_are_cudas_constructors_and_operators():
    def kernel(out, x, n):
        out[0] = fp8.fp8_e4m3(x[0])
        out[1] = types.int64(fp8.fp8_e8m0(n[0]))
        out[2] = types.float16(fp8.fp8_e5m2(types.int8(n[0])))

    source = source_of(kernel, (F32, F32, types.int64[::1]))
    assert "#include <cuda_fp8.h>" in source
    # the constructor numba-cuda's overload resolution picks for each source type, then C++'s operator
    assert "static_cast<float>(__nv_fp8_e4m3(static_cast<float>(" in source
    assert "static_cast<long long>(__nv_fp8_e8m0(static_cast<long long>(" in source
    assert "static_cast<__half>(__nv_fp8_e5m2(static_cast<short>(" in source
    assert "cuda_fp8.h" not in source_of(lambda out: None, (F32,))  # only translations that use FP8


def test_a_variable_of_fp8_type_needs_the_header():
    def kernel(out, x):
        v = fp8.fp8_e5m2(x[0])
        out[0] = v

    source = source_of(kernel, (F32, F32))
    assert "__nv_fp8_e5m2 v_v" in source and "#include <cuda_fp8.h>" in source


def test_storage_conversions_take_cudas_modes():
    def kernel(out, x):
        out[0] = fp8.cvt_float_to_fp8(x[0], fp8.saturation_t.SATFINITE, fp8.fp8_interpretation_t.E5M2)
        out[1] = fp8.cvt_double_to_e8m0(x[0], 0, fp8.cudaRoundMode.cudaRoundPosInf)

    source = source_of(kernel, (types.uint8[::1], F32))
    assert (
        "__nv_cvt_float_to_fp8(" in source
        and "(__nv_saturation_t)(1LL), (__nv_fp8_interpretation_t)(1LL)" in source
    )
    assert "__nv_cvt_double_to_e8m0(((double)(" in source and "(enum cudaRoundMode)(2LL)" in source


def cuda_bindings_round_mode():
    """cuda.bindings.runtime.cudaRoundMode where installed (numba's own tests pass its members), else a stand-in
    of the same kind: an int subclass that is not an enum.Enum (cuda-bindings' FastEnum)."""
    try:
        from cuda.bindings.runtime import cudaRoundMode

        return cudaRoundMode
    except ImportError:

        class Mode(int):
            pass

        return pytypes.SimpleNamespace(cudaRoundPosInf=Mode(2), cudaRoundZero=Mode(1))


def test_cuda_bindings_round_modes_are_their_numbers():
    mode = cuda_bindings_round_mode()

    def kernel(out, x):
        out[0] = fp8.cvt_float_to_e8m0(x[0], fp8.saturation_t.NOSAT, mode.cudaRoundPosInf)
        out[1] = fp8.cvt_float_to_e8m0(x[0], fp8.saturation_t.NOSAT, mode.cudaRoundZero)

    source = source_of(kernel, (types.uint8[::1], F32))
    assert "(enum cudaRoundMode)(2LL)" in source and "(enum cudaRoundMode)(1LL)" in source


def numba_like_module():
    """A module named numba.cuda._internal.cuda_fp8 holding objects as numba-cuda's are (classes made by type(),
    its type instances, functions, IntEnums), for the translator to map to ours without numba installed."""
    module = pytypes.ModuleType("numba.cuda._internal.cuda_fp8")
    namespace = {"__name__": module.__name__}
    exec(
        "import enum\n"
        "class saturation_t(enum.IntEnum):\n    NOSAT = 0\n    SATFINITE = 1\n"
        "class fp8_interpretation_t(enum.IntEnum):\n    E4M3 = 0\n    E5M2 = 1\n"
        "class _type_class_fp8_e4m3:\n    name = 'fp8_e4m3'\n"
        "_type_fp8_e4m3 = _type_class_fp8_e4m3()\n"
        "fp8_e4m3 = type('fp8_e4m3', (), {'_nbtype': _type_fp8_e4m3})\n"
        "fp8_e5m2 = type('fp8_e5m2', (), {})\n"
        "fp8x2_e4m3 = type('fp8x2_e4m3', (), {})\n"
        "def cvt_float_to_fp8():\n    pass\n",
        namespace,
    )
    module.__dict__.update(namespace)
    return module


@needs_nvrtc
def test_numbas_own_objects_are_ours():
    numba_fp8 = numba_like_module()

    def kernel(out, x):
        v = numba_fp8.fp8_e4m3(x[0])
        local = cuda.local.array(2, numba_fp8._type_fp8_e4m3)
        local[0] = v
        out[0] = numba_fp8.cvt_float_to_fp8(
            types.float32(local[0]), numba_fp8.saturation_t.SATFINITE, numba_fp8.fp8_interpretation_t.E4M3
        )
        out[1] = types.uint8(numba_fp8.fp8_e5m2(x[1]))
        out[2] = numba_fp8.fp8x2_e4m3(cuda.float32x2(x[0], x[1])).__x

    source = source_of(kernel, (types.uint8[::1], F32))
    assert "__nv_fp8_e4m3(static_cast<float>(" in source and "__nv_cvt_float_to_fp8(" in source
    assert "Array<__nv_fp8_e4m3, 1>" in source
    cuda.compile_ptx(kernel, (types.uint8[::1], F32), cc=CC)


def _call_of(name):
    """A call of the fp8 library entry `name` in a kernel of (out float64[::1], x uint8[::1], y float64[::1]),
    giving a number."""
    if name.startswith("fp8x"):  # a vector type's constructor: its bytes
        count = int(name[4])
        vector = "cuda.float%dx%d(%s)" % (32 if count == 2 else 64, count, ", ".join(["y[0]"] * count))
        return "fp8.%s(%s).__x" % (name, vector)
    if name.startswith("fp8_"):
        return "types.float32(fp8.%s(x[0]))" % name
    if name == "cvt_e8m0_to_bf16raw":
        return "fp8.cvt_e8m0_to_bf16raw(x[0]).x"
    value = {  # cvt_<source>_to_<format>(value, saturation, mode)
        "float": "types.float32(y[0])",
        "double": "y[0]",
        "float2": "cuda.float32x2(y[0], y[1])",
        "double2": "cuda.float64x2(y[0], y[1])",
        "bfloat16raw": "fp8.cvt_e8m0_to_bf16raw(x[0])",
    }[name.split("_")[1]]
    return "fp8.%s(%s, fp8.saturation_t.SATFINITE, 1)" % (name, value)


@needs_nvrtc
@pytest.mark.parametrize("name, entry", fp8_entries(), ids=[name for name, _ in fp8_entries()])
def test_every_function_compiles(name, entry):
    namespace = {"fp8": fp8, "types": types, "cuda": cuda}
    exec("def generated(out, x, y):\n    out[0] = %s\n" % _call_of(name), namespace)
    argtypes = (types.float64[::1], types.uint8[::1], types.float64[::1])
    ptx, _ = cuda.compile_ptx(namespace["generated"], argtypes, cc=CC)
    assert "st.global" in ptx


ARGTYPES = {
    "convert": (F32, F32, types.float64[::1], F32, F32, types.int64[:, ::1], types.uint64[:, ::1], types.int32[::1]),
    "construct": (types.float64[::1], types.int64[::1], types.float32[:, ::1]),
    "storage": (F32, types.float64[::1], types.uint8[::1], types.uint8[:, ::1], types.uint8[:, ::1],
                types.uint16[::1], types.uint16[:, ::1]),
    "arrays_and_device_functions": (F32, types.float32[:, ::1]),
    "vectors": (F32, types.float64[::1], types.uint32[:, ::1], types.uint32[:, ::1]),
}  # fmt: skip


@needs_nvrtc
@pytest.mark.parametrize("kernel", ["convert", "construct"])
@pytest.mark.parametrize("type_name", FP8_TYPES)
def test_kernels_compile_for_each_type(kernel, type_name):
    ours = fk.bound(getattr(fk, kernel), cuda, fp8, type_name)
    for cc in (CC, (9, 0)):
        ptx, _ = cuda.compile_ptx(ours, ARGTYPES[kernel], cc=cc)
        assert ".entry" in ptx


@needs_nvrtc
@pytest.mark.parametrize("kernel", ["storage", "arrays_and_device_functions", "vectors"])
def test_kernels_compile(kernel):
    for cc in (CC, (7, 5)):  # before 8.9, cuda_fp8.h converts in software
        ptx, _ = cuda.compile_ptx(getattr(fk, kernel), ARGTYPES[kernel], cc=cc)
        assert ".entry" in ptx


def _fails(kernel, argtypes, match):
    with pytest.raises(KernelTypeError, match=match):
        cuda.compile_ptx(kernel, argtypes, cc=CC)


def test_what_numba_defines_no_rule_for_is_refused():
    # numba-cuda gives FP8 values conversions only: arithmetic, comparisons and conversions between formats fail
    def arithmetic(out, x):
        out[0] = types.float32(fp8.fp8_e5m2(x[0]) + fp8.fp8_e5m2(x[1]))

    def comparison(out, x):
        out[0] = fp8.fp8_e5m2(x[0]) < fp8.fp8_e5m2(x[1])

    def between_formats(out, x):
        out[0] = types.float32(fp8.fp8_e4m3(fp8.fp8_e5m2(x[0])))

    def from_complex(out, x):
        out[0] = types.float32(fp8.fp8_e4m3(complex(x[0], 1.0)))

    def negated(out, x):
        out[0] = types.float32(-fp8.fp8_e4m3(x[0]))

    def printed(out, x):
        print(fp8.fp8_e4m3(x[0]))

    _fails(arithmetic, (F32, F32), "no arithmetic between fp8_e5m2 and fp8_e5m2")
    _fails(comparison, (F32, F32), "fp8_e5m2 values cannot be compared")
    _fails(between_formats, (F32, F32), "cannot convert fp8_e5m2 to fp8_e4m3")
    _fails(from_complex, (F32, F32), "cannot convert complex128 to fp8_e4m3")
    _fails(negated, (F32, F32), "no unary operator - for fp8_e4m3")
    _fails(printed, (F32, F32), "print")


def test_storage_conversions_refuse_what_their_signatures_do_not_take():
    def bad_saturation(out, x):
        out[0] = fp8.cvt_float_to_fp8(x[0], 5, fp8.fp8_interpretation_t.E5M2)

    def bad_rounding(out, x):
        out[0] = fp8.cvt_float_to_e8m0(x[0], 0, 7)

    def float_mode(out, x):
        out[0] = fp8.cvt_float_to_fp8(x[0], 1.5, 0)

    def too_few(out, x):
        out[0] = fp8.cvt_float_to_fp8(x[0])

    def not_raw(out, x):
        out[0] = fp8.cvt_bfloat16raw_to_fp8(x[0], 1, 0)

    def not_a_vector(out, x):
        out[0] = fp8.cvt_float2_to_fp8x2(x[0], 1, 0)

    def not_a_pair(out, x):
        out[0] = fp8.fp8x2_e4m3(cuda.float32x4(x[0], x[1], x[2], x[3])).__x

    u8 = (types.uint8[::1], F32)
    _fails(bad_saturation, u8, r"argument 2 of cvt_float_to_fp8\(\) is a saturation_t: one of NOSAT \(0\), SAT")
    _fails(bad_rounding, u8, r"argument 3 of cvt_float_to_e8m0\(\) is a cudaRoundMode: one of cudaRoundNearest")
    _fails(
        float_mode, u8, r"argument 2 of cvt_float_to_fp8\(\) is a saturation_t \(NOSAT, SATFINITE\), not float64"
    )
    _fails(too_few, u8, r"cvt_float_to_fp8\(\) takes 3 arguments \(1 given\)")
    _fails(not_raw, u8, r"argument 1 of cvt_bfloat16raw_to_fp8\(\) takes a bfloat16_raw, not float32")
    _fails(not_a_vector, u8, r"argument 1 of cvt_float2_to_fp8x2\(\) takes a float32x2, not float32")
    _fails(not_a_pair, u8, r"fp8x2_e4m3\(\) takes a float32x2 or a float64x2, not \(float32x4\)")


def test_an_fp8_value_is_no_condition():
    # numba-cuda types bool() of an FP8 value but has no lowering for it: refused here when translating
    def kernel(out, x):
        if fp8.fp8_e5m2(x[0]):
            out[0] = 1

    def negation(out, x):
        out[0] = not fp8.fp8_e8m0(x[0])

    _fails(kernel, (F32, F32), "a fp8_e5m2 value cannot be a condition: convert it to a number first")
    _fails(negation, (F32, F32), "a fp8_e8m0 value cannot be a condition")


# -- on the GPU ----------------------------------------------------------------------------------------------------


def _fp8_or_skip():
    if not cuda.is_fp8_supported():
        pytest.skip("FP8 needs compute capability 8.9 (numba-cuda's is_fp8_supported)")


def _inputs():
    """Floats across every FP8 format's range and beyond: FP8 values, ties between them, powers of two from the
    smallest subnormal float32 to the largest, overflows, infinities, NaN; and integers to construct from."""
    e4m3 = np.array([1, 1.0625, 1.125, 0.015625, 0.001953125, 448, 464, 480, 57344, 61440], np.float64)
    x = np.concatenate(
        [
            np.linspace(-600, 600, 2401),
            np.linspace(-2, 2, 513),
            2.0 ** np.arange(-149, 128),
            -(2.0 ** np.arange(-20, 20)),
            e4m3,
            -e4m3,
            [0.0, -0.0, np.inf, -np.inf, np.nan, 1e20, -1e20, 1e300, 3.4e38, 1.5 * 2.0**127, 7e-46],
            np.nextafter(2.0 ** np.arange(-10, 127), np.inf),
        ]
    )
    n = np.concatenate([np.arange(-300, 300), [2**15, 2**16 + 3, 2**31 - 1, 2**40 + 1, -(2**62), 2**63 - 1]])
    n = np.resize(n, x.size).astype(np.int64)
    return x, n


def _run_convert(jit, kernel, x32):
    size = x32.size
    outs = [np.zeros(size, np.float32), np.zeros(size), np.zeros(size, np.float32), np.zeros(size, np.float32),
            np.zeros((size, 4), np.int64), np.zeros((size, 4), np.uint64), np.zeros(size, np.int32)]  # fmt: skip
    jit(kernel)[(size + 127) // 128, 128](x32, *outs)
    return outs


def _run_construct(jit, kernel, x, n):
    out = np.zeros((x.size, 12), np.float32)
    jit(kernel)[(x.size + 127) // 128, 128](x, n, out)
    return [out]


def _run_storage(jit, kernel, x):
    size = x.size
    x32 = x.astype(np.float32)
    e = (np.arange(size) % 256).astype(np.uint8)
    outs = [np.zeros((size, 12), np.uint8), np.zeros((size, 12), np.uint8), np.zeros(size, np.uint16),
            np.zeros((size, 6), np.uint16)]  # fmt: skip
    jit(kernel)[(size + 127) // 128, 128](x32, x, e, *outs)
    return outs


def _bits(a):
    """An array's bytes as unsigned integers: NaNs compare by their bits."""
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _same_as_numba(run, kernel_name, type_name, *inputs):
    numba_cuda = numba_cuda_or_skip()
    _fp8_or_skip()
    numba_fp8 = pytest.importorskip("numba.cuda._internal.cuda_fp8")
    kernel = getattr(fk, kernel_name)
    ours = run(cuda.jit, fk.bound(kernel, cuda, fp8, type_name), *inputs)
    theirs = run(numba_cuda.jit, fk.bound(kernel, numba_cuda, numba_fp8, type_name), *inputs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_array_equal(_bits(a), _bits(b), err_msg="output %d of %s" % (k, kernel_name))
    return ours


@requires_gpu
@pytest.mark.parametrize("type_name", FP8_TYPES)
def test_conversions_bit_for_bit_as_numba_cuda(type_name):
    x, _ = _inputs()
    f32, f64, *_ = _same_as_numba(_run_convert, "convert", type_name, x.astype(np.float32))
    assert np.isnan(f32[np.isnan(x)]).all()  # NaN stays NaN in every format (numba's test_fp8_nan_conversions)
    np.testing.assert_array_equal(f32.astype(np.float64), f64)  # an FP8 value is a float32: widened exactly


@requires_gpu
@pytest.mark.parametrize("type_name", FP8_TYPES)
def test_constructors_bit_for_bit_as_numba_cuda(type_name):
    x, n = _inputs()
    (out,) = _same_as_numba(_run_construct, "construct", type_name, x, n)
    _rounded_as_the_format(type_name, x, out[:, 2])  # from float64
    _rounded_as_the_format(type_name, x.astype(np.float32).astype(np.float64), out[:, 1])  # from float32


def _rounded_as_the_format(type_name, x, got):
    """Where x is finite and in the format's range: e4m3 and e5m2 round to nearest even (ml_dtypes' float8 types
    do too, where x is a float32: from a float64 they round twice), e8m0 rounds up to a power of two (CUDA's
    constructors use cudaRoundPosInf; frexp finds it exactly, where log2 rounds)."""
    if type_name == "fp8_e8m0":
        inside = (x >= 2.0**-126) & (x <= 2.0**127)
        mantissa, exponent = np.frexp(x[inside])  # x = mantissa * 2**exponent, mantissa in [0.5, 1)
        np.testing.assert_array_equal(got[inside], np.ldexp(1.0, exponent - (mantissa == 0.5)))
        return
    ml_dtypes = pytest.importorskip("ml_dtypes")
    dtype, largest = {"fp8_e4m3": (ml_dtypes.float8_e4m3fn, 448), "fp8_e5m2": (ml_dtypes.float8_e5m2, 57344)}[
        type_name
    ]
    inside = (np.abs(x) <= largest) & (x.astype(np.float32) == x)
    np.testing.assert_array_equal(got[inside], x[inside].astype(dtype).astype(np.float32))


@requires_gpu
def test_storage_conversions_bit_for_bit_as_numba_cuda():
    x, _ = _inputs()
    _same_as_numba(_run_storage, "storage", "fp8_e4m3", x)


@requires_gpu
def test_the_numbers_numbas_own_tests_expect():
    # numba-cuda's test_fp8_bindings.py, its inputs and expected bytes (no numba-cuda needed)
    _fp8_or_skip()
    fp8_out, e8m0, raws = np.zeros(8, np.uint8), np.zeros(5, np.uint8), np.zeros(1, np.uint16)
    over32 = np.array([np.nextafter(np.float32(2.0**127), np.float32(np.inf))], np.float32)
    over64 = np.array([np.nextafter(2.0**127, np.inf)])
    e = np.array([127, 254], np.uint8)  # 1.0 and 2**127 in e8m0
    cuda.jit(fk.conformance_values)[1, 1](
        fp8_out, e8m0, raws, np.array([1e20], np.float32), np.array([1e300]), over32, over64, e
    )
    assert list(fp8_out[:6]) == [0x7C, 0x7B, 0x7F, 0x7E, 0x7C, 0x7E]  # Inf / MAXNORM, NaN / MAXNORM
    assert list(e8m0[:4]) == [0xFF, 0xFE, 0xFF, 0xFE]  # NOSAT overflow: NaN; SATFINITE: 2**127
    assert raws[0] == 0x3F80 and e8m0[4] == 127  # 1.0 in bfloat16, and back
    assert list(fp8_out[6:]) == [0x7F, 0x7B]


@requires_gpu
def test_arrays_tuples_and_device_functions():
    _fp8_or_skip()
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.arange(32, dtype=np.float32) - 16
    out = np.zeros((32, 2), np.float32)
    cuda.jit(fk.arrays_and_device_functions)[1, 32](x, out)
    np.testing.assert_array_equal(out[:, 0], x[::-1].astype(ml_dtypes.float8_e5m2).astype(np.float32))
    np.testing.assert_array_equal(out[:, 1], 2 * x)  # -32 ... 30: e4m3 values


@requires_gpu
def test_vector_types_are_cudas_constructors():
    _fp8_or_skip()
    x, _ = _inputs()
    got, want = np.ones((x.size, 6), np.uint32), np.zeros((x.size, 6), np.uint32)
    cuda.jit(fk.vectors)[(x.size + 127) // 128, 128](x.astype(np.float32), x, got, want)
    np.testing.assert_array_equal(got, want)


PROGRAM = """
import numba_cuda_c, numba_cuda_c.alias
numba_cuda_c.alias.install()
from numba import cuda
from numba.cuda._internal.cuda_fp8 import cvt_float_to_fp8, fp8_e4m3, saturation_t, fp8_interpretation_t
import numba.cuda.fp8
assert fp8_e4m3 is numba_cuda_c.fp8.fp8_e4m3 and numba.cuda.fp8 is numba_cuda_c.fp8


def kernel(out, x):
    out[0] = cvt_float_to_fp8(cuda.float32(fp8_e4m3(x[0])), saturation_t.SATFINITE, fp8_interpretation_t.E4M3)


ptx, _ = cuda.compile_ptx(kernel, "void(uint8[::1], float32[::1])", cc=(8, 9))
print("fp8 under the alias", "cvt.rn.satfinite.e4m3x2.f32" in ptx)
"""


@needs_nvrtc
def test_a_translation_naming_bfloat16_before_any_library_lookup_compiles():
    # the first kernel of a fresh process converts through bfloat16 and calls no library function: the bf16
    # header (its family's requirement) is found all the same
    out = run_python(
        """
        from numba_cuda_c import compile_ptx, float32
        from numba_cuda_c.fp8 import fp8_e4m3
        from numba_cuda_c.types import bfloat16

        def kernel(out, x):
            out[0] = float32(fp8_e4m3(bfloat16(x[0])))

        ptx, _ = compile_ptx(kernel, "void(float32[::1], float32[::1])", cc=(8, 9))
        print("compiled", ".entry" in ptx)
        """,
        PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    assert "compiled True" in out


@needs_nvrtc
def test_a_program_importing_numbas_fp8_runs_under_the_alias(tmp_path):
    # numba-cuda's module path (numba.cuda._internal.cuda_fp8) finds ours: programs import FP8 from there
    (tmp_path / "program.py").write_text(PROGRAM)
    out = run_python(
        "import runpy; runpy.run_path(%r)" % str(tmp_path / "program.py"),
        PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    assert "fp8 under the alias True" in out
