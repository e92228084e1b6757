"""NumPy's ufuncs on numbers in kernels (np.floor(x), np.isnan(x), ... every ufunc of numba's ufunc_db): each call
takes numba's loop for its argument types (the first of NumPy's loops they convert to safely, which numba's table
implements: pyjit/lib/npufuncs.py), and computes what NumPy's loop computes. The loops chosen and numba's errors in
CI, every ufunc and argument type compiled with NVRTC; on the GPU, every ufunc on every type against NumPy on the
same arrays, and against numba-cuda where it compiles the ufunc."""

import importlib
import sys

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, numba_cuda_or_skip, requires_gpu
from numba_cuda_c import types
from numba_cuda_c.pyjit import KernelTypeError
from numba_cuda_c.pyjit.lib import npufuncs

TYPES = [
    types.boolean, types.int8, types.uint8, types.int16, types.uint16, types.int32, types.uint32, types.int64,
    types.uint64, types.float32, types.float64, types.complex64, types.complex128,
]  # fmt: skip
UFUNCS = sorted(npufuncs.SUPPORTED)
NUMPY_2_1 = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


@pytest.mark.parametrize(
    "ufunc, argtypes, results",
    [
        (np.floor, [types.float32], [types.float32]),
        (np.floor, [types.int64], [types.int64 if NUMPY_2_1 else types.float64]),  # NumPy 2.1's integer loops
        (np.sqrt, [types.int8], [types.float32]),  # int8 converts safely to float32: its loop
        (np.sqrt, [types.int64], [types.float64]),
        (np.arctan2, [types.float32, types.int64], [types.float32]),  # mixed inputs: any integer to a float
        (np.add, [types.int32, types.int32], [types.int32]),
        (np.add, [types.int8, types.uint8], [types.int16]),
        (np.true_divide, [types.int32, types.int32], [types.float64]),
        (np.isnan, [types.int64], [types.boolean]),
        (np.equal, [types.int64, types.uint64], [types.boolean]),
        (np.ldexp, [types.float32, types.int64], [types.float32]),
        (np.divmod, [types.int32, types.int32], [types.int32, types.int32]),
        (np.sign, [types.complex128], [types.complex128]),
        (np.logaddexp, [types.int16, types.int16], [types.float32]),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_the_loop_numba_takes(ufunc, argtypes, results):
    assert npufuncs.loop_types(ufunc.__name__, ufunc, argtypes)[1] == results


@pytest.mark.parametrize(
    "ufunc, argtypes, words",
    [
        (np.gcd, [types.float64, types.float64], r"can't resolve ufunc gcd for types \(float64, float64\)"),
        (np.degrees, [types.complex128], r"can't resolve ufunc degrees"),
        (np.spacing, [types.complex64], r"can't resolve ufunc spacing"),
        (np.left_shift, [types.float32, types.int32], r"can't resolve ufunc left_shift"),
    ],
    ids=["gcd", "degrees", "spacing", "left_shift"],
)
def test_numbas_errors(ufunc, argtypes, words):
    with pytest.raises(TypeError, match=words):
        npufuncs.loop_types(ufunc.__name__, ufunc, argtypes)


def frexp_kernel(out, x):
    out[0] = np.frexp(x)[0]


def isnat_kernel(out, x):
    out[0] = np.isnat(x)


@needs_nvrtc
@pytest.mark.parametrize("kernel", [frexp_kernel, isnat_kernel], ids=["frexp", "isnat"])
def test_ufuncs_outside_numbas_table_are_refused(kernel):
    name = kernel.__name__.split("_")[0]
    with pytest.raises(KernelTypeError, match="NumPy's %s is not supported in kernels" % name):
        cuda.compile_ptx(kernel, "void(float64[::1], float64)")


def argument_types(name, t):
    """The arguments' types of ufunc `name` tried on type t: t for each (ldexp: t and an int64 exponent)."""
    return [t, types.int64] if name == "ldexp" else [t] * getattr(np, name).nin


def supported_types(name):
    """The scalar types numba's loops take for ufunc `name`."""
    found = []
    for t in TYPES:
        try:
            npufuncs.loop_types(name, getattr(np, name), argument_types(name, t))
        except TypeError:
            continue
        found.append(t)
    return found


def result_types(name, t):
    outs = npufuncs.loop_types(name, getattr(np, name), argument_types(name, t))[1]
    return outs[0], outs[-1]


def kernel_of(name, kinds, folder):
    """A kernel in a file of its own (the translator reads source): out_k[i] = np.<name>(a_k[i], b_k[i]) for
    each type k, over the arrays' length (divmod: its two results, in out_k and out2_k)."""
    ufunc = getattr(np, name)
    params, lines = [], []
    for k, _ in enumerate(kinds):
        params += ["o%d" % k, "p%d" % k, "a%d" % k, "b%d" % k]
        call = "np.%s(%s)" % (name, ", ".join(["a%d[i]" % k, "b%d[i]" % k][: ufunc.nin]))
        if ufunc.nout == 2:
            lines.append("        o%d[i], p%d[i] = %s" % (k, k, call))
        else:
            lines.append("        o%d[i] = %s" % (k, call))
    source = "import numpy as np\n\n\ndef kernel(%s):\n    for i in range(a0.size):\n%s\n" % (
        ", ".join(params),
        "\n".join(lines),
    )
    module_name = "ufunc_kernel_%s_%d" % (name, len(kinds))
    (folder / (module_name + ".py")).write_text(source)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(module_name).kernel


def signature_of(name, kinds):
    sig = []
    for t in kinds:
        first, second = result_types(name, t)
        arguments = argument_types(name, t) + [t]  # a unary ufunc's kernel still takes b (unread)
        sig += [types.Array(x, 1, "C") for x in (first, second, arguments[0], arguments[1])]
    return tuple(sig)


@needs_nvrtc
@pytest.mark.parametrize("name", UFUNCS)
def test_every_ufunc_on_every_type_compiles(name, tmp_path):
    kinds = supported_types(name)
    assert kinds, name
    kernel = kernel_of(name, kinds, tmp_path)
    cuda.compile_ptx(kernel, signature_of(name, kinds), cc=(8, 0))


# -- on the GPU -----------------------------------------------------------------------------------------------
def inputs(name, t, rng, n=64):
    """Arguments for ufunc `name` on type t: a spread of values, the special ones among them (zeros, negative
    numbers, infinities and NaN for real floats), kept from what NumPy itself raises on (negative integer powers),
    leaves undefined (complex division by zero, integer overflow in lcm) or computes by another complex formula
    (infinite complex numbers: each library's own special cases)."""
    dtype = t.dtype
    if dtype.kind == "b":
        a, b = rng.integers(0, 2, n).astype(bool), rng.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        limit = 10 if name in ("gcd", "lcm") else 100
        low, high = max(info.min, -limit), min(info.max, limit)
        a, b = rng.integers(low, high + 1, n).astype(dtype), rng.integers(low, high + 1, n).astype(dtype)
        if name in ("power", "left_shift", "right_shift"):
            b = rng.integers(0, 9 if name == "power" else dtype.itemsize * 8 + 2, n).astype(dtype)
    else:
        special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e-30, 3.0])
        if dtype.kind == "c":  # finite real parts, and imaginary parts away from 0
            special = special[np.isfinite(special)]
        a = np.concatenate([special, rng.uniform(-4, 4, n - special.size)])
        b = np.concatenate([special[::-1], rng.uniform(-4, 4, n - special.size)])
        if dtype.kind == "c":
            a = a + 1j * rng.choice([-1, 1], n) * rng.uniform(0.25, 2, n)
            b = b + 1j * rng.choice([-1, 1], n) * rng.uniform(0.25, 2, n)
        a, b = a.astype(dtype), b.astype(dtype)
    if name == "ldexp":
        b = rng.integers(-20, 20, n).astype(np.int64)
    return a, b


def expected_of(name, a, b):
    """NumPy's result, from the arguments converted to numba's loop's input types (NumPy itself would take a half
    precision loop for small integers, which numba skips)."""
    ufunc = getattr(np, name)
    t = types.from_dtype(a.dtype)
    loop_inputs = npufuncs.loop_types(name, ufunc, argument_types(name, t))[0]
    a = a.astype(loop_inputs[0].dtype)
    b = b.astype(loop_inputs[-1].dtype)
    with np.errstate(all="ignore"):
        result = ufunc(a, b) if ufunc.nin == 2 else ufunc(a)
        if name in ("remainder", "floor_divide", "divmod") and a.dtype.kind == "f":
            result = numba_real_divmod(name, a, b)
    return result if ufunc.nout == 2 else (result, result)


def numba_real_divmod(name, a, b):
    """numba-cuda's np.remainder, np.floor_divide and np.divmod of floats, where they are not NumPy's: the floor of
    the quotient, and LLVM's frem (as NVVM computes it: |a| - floor(|a| / |b|) * |b|, a's sign; so NaN for an
    infinite divisor) given the divisor's sign where it is not zero."""
    quotient = np.floor(a / b)
    magnitude = np.abs(a) - np.floor(np.abs(a) / np.abs(b)) * np.abs(b)
    remainder = np.where(a < 0, -magnitude, magnitude)
    remainder = remainder + np.where((remainder != 0) & ((b < 0) != (remainder < 0)), b, 0).astype(a.dtype)
    return {"remainder": remainder, "floor_divide": quotient, "divmod": (quotient, remainder)}[name]


def compare(name, t, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind in "fc":
        rtol = {np.dtype(np.float32): 4e-6, np.dtype(np.complex64): 2e-5, np.dtype(np.float64): 1e-13}.get(
            want.dtype, 1e-11
        )  # complex functions: our formulas and NumPy's differ in their last bits
        if name in ("tan", "arctanh", "arccosh", "tanh", "logaddexp", "logaddexp2", "power", "float_power"):
            rtol *= 8  # CUDA's accuracy near poles and for large results: a few ulps
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True, err_msg="%s(%s)" % (name, t))
    else:
        np.testing.assert_array_equal(got, want, err_msg="%s(%s)" % (name, t))


def numpy_computes(name, t):
    """Whether NumPy computes the loop itself (it refuses a few that numba's table has: np.negative of bools)."""
    try:
        expected_of(name, *inputs(name, t, np.random.default_rng(0), n=16))
    except TypeError:
        return False
    return True


@requires_gpu
@pytest.mark.parametrize("name", UFUNCS)
def test_every_ufunc_on_every_type_as_numpy(name, tmp_path):
    rng = np.random.default_rng(29)
    kinds = [t for t in supported_types(name) if numpy_computes(name, t)]
    kernel = cuda.jit(kernel_of(name, kinds, tmp_path))
    arrays, wanted = [], []
    for t in kinds:
        a, b = inputs(name, t, rng)
        first, second = expected_of(name, a, b)
        outs = [np.zeros(a.size, r.dtype) for r in result_types(name, t)]
        assert [o.dtype for o in outs] == [first.dtype, second.dtype], (name, t)  # the same loop
        arrays += outs + [a, b]
        wanted.append((t, first, second))
    kernel[1, 1](*arrays)
    for k, (t, first, second) in enumerate(wanted):
        compare(name, t, arrays[4 * k], first)
        if getattr(np, name).nout == 2:
            compare(name, t, arrays[4 * k + 1], second)


@requires_gpu
@pytest.mark.parametrize("name", UFUNCS)
def test_floats_as_numba_cuda_where_it_compiles(name, tmp_path):
    """numba-cuda lowers a ufunc in kernels only where its CUDA target's table has the ufunc (np.sin, np.isnan, ...,
    not np.floor in 0.30); where it compiles the float loops, the results are the same."""
    numba_cuda = numba_cuda_or_skip()
    kinds = [t for t in supported_types(name) if t in (types.float32, types.float64)]
    if not kinds:
        pytest.skip("np.%s has no float loops" % name)
    kernel = kernel_of(name, kinds, tmp_path)
    rng = np.random.default_rng(7)
    ours, theirs = [], []
    for t in kinds:
        a, b = inputs(name, t, rng)
        first, second = expected_of(name, a, b)
        for arrays in (ours, theirs):
            arrays += [np.zeros_like(first), np.zeros_like(second), a.copy(), b.copy()]
    try:
        numba_cuda.jit(kernel)[1, 1](*theirs)
    except Exception as exc:  # numba-cuda's CUDA target cannot lower it (its table lacks the ufunc)
        pytest.skip("numba-cuda does not compile np.%s in kernels: %s" % (name, str(exc).splitlines()[0][:200]))
    cuda.jit(kernel)[1, 1](*ours)
    for k in range(0, len(ours), 4):
        compare(name, kinds[k // 4], ours[k], theirs[k])
