"""numba's Optional values in kernels (pyjit/optional.py): device functions returning a number or None, variables
assigned None on some paths, `is None` tests, the value used as its number (numba's TypeError where it is None),
None arguments and arguments left out for their defaults. Translation, NVRTC compilation, errors and the launch's
parameters in CI; results on the GPU, compared with numba-cuda where it can compute them."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import numba_cuda_c as cuda
import optional_kernels
from gpu import needs_nvrtc, numba_cuda_or_skip, requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c import types
from numba_cuda_c.pyjit import KernelTypeError, exceptions, typing
from numba_cuda_c.pyjit.dispatcher import typeof
from numba_cuda_c.pyjit.translate import translate_kernel

OURS = optional_kernels.make(cuda)
SIGNATURES = {
    "histogram": [(types.float64[::1], types.int32[::1], types.int32[::1])],
    "uses": [(types.float64[:, ::1], types.int64[::1])],
    "as_number": [(types.int64[::1], types.int64[::1])],
    "with_default": [
        (types.int64[::1], types.Omitted(None), types.Omitted(3)),
        (types.int64[::1], types.int64, types.Omitted(3)),
        (types.int64[::1], types.none, types.int64),
    ],
}
XS = np.array([-3, 0, 4, 5, 6, 8, 9, 12, 40], dtype=np.int64)


# -- translation and compilation ---------------------------------------------------------------------------
@needs_nvrtc
@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_kernels_compile(name):
    for signature in SIGNATURES[name]:
        ptx, resty = cuda.compile_ptx(OURS[name], signature)
        assert resty == types.void and ".entry" in ptx


@needs_nvrtc
def test_device_functions_return_optionals():
    """A bare return, `return None` and the end of the function reached: each makes the number an Optional."""
    for name, expected in (
        ("maybe", types.Optional(types.int64)),
        ("falls_off", types.Optional(types.int64)),
        ("bin_of", types.Optional(types.int64)),
        ("maybe_float32", types.Optional(types.float32)),
        ("doubled_or_zero", types.int64),
    ):
        argtypes = (types.float64, types.int64) if name == "bin_of" else (types.int64,)
        if name == "doubled_or_zero":
            argtypes = (types.Optional(types.int64),)
        _ptx, resty = cuda.compile_ptx(OURS[name], argtypes, device=True)
        assert resty == expected, name


def test_optional_in_c_is_a_value_and_a_flag():
    source = translate_kernel(OURS["uses"].py_func, SIGNATURES["uses"][0], "uses")
    assert "template <typename T> struct ncc_optional { T value; bool valid; };" in source
    assert "ncc_optional<long long> ncc_dev_maybe_" in source  # its return
    assert "(!(v_r).valid)" in source  # r is None: the flag
    assert "ncc_optional_value(v_r)" in source  # r >= 0: its number, checked
    assert "ncc_optional_map<double>(v_r" in source  # r if r is not None else 3.5: Optional(float64)
    source = translate_kernel(OURS["with_default"].py_func, SIGNATURES["with_default"][0], "d")
    assert "ncc_optional" not in source  # y is None known: no Optional at all


def test_none_known_when_compiling_prunes_the_other_branch():
    def kernel(out, y):
        if y is None:
            out[0] = 1
            return
        out[0] = y + 1  # y None: never translated (None + 1 would be an error)
        out[1] = 3 if y is not None else 4

    source = translate_kernel(kernel, (types.int64[::1], types.none), "k")
    assert "v_out" in source and "2LL" not in source and "4LL" not in source
    source = translate_kernel(kernel, (types.int64[::1], types.int64), "k")  # y a number: `y is None` false
    assert "ncc_wrapping_add<long long>(v_y, 1LL)" in source and "3LL" in source


def test_debug_raises_numbas_type_error():
    source = translate_kernel(OURS["as_number"].py_func, SIGNATURES["as_number"][0], "k", debug=True)
    assert "ncc_optional_raise(" in source
    raised = exceptions.table_of(source)
    assert [(cls, args) for cls, args, _where in raised.values()] == [(TypeError, ("expected int64, got None",))]


# -- types and their rules ---------------------------------------------------------------------------------
def test_optional_type():
    t = types.Optional(types.int64)
    assert (
        t is types.Optional(types.int64)
        and str(t) == "OptionalType(int64)"
        and t.ctype == "ncc_optional<long long>"
    )
    assert pickle.loads(pickle.dumps(t)) is t
    assert types.parse_signature("int64(optional(int64))").args == (t,)
    assert types.Omitted(None) is types.Omitted(None) and pickle.loads(
        pickle.dumps(types.Omitted(3))
    ) is types.Omitted(3)
    with pytest.raises(TypeError, match="Optional holds a number type"):
        types.Optional(types.int64[:])

    class Optional:  # numba's class, as from_numba reads it
        __module__ = "numba.core.types.misc"

        def __init__(self, inner):
            self.type, self.name = inner, "OptionalType(%s)" % inner

    class Integer:
        __module__ = "numba.core.types.scalars"
        name = "int32"

    assert types.from_numba(Optional(Integer())) is types.Optional(types.int32)


def test_unification_with_none():
    opt = types.Optional
    assert typing.unify(types.none, types.int64) is opt(types.int64)
    assert typing.unify(types.float32, types.none) is opt(types.float32)
    assert typing.unify(opt(types.int64), types.float64) is opt(types.float64)  # numba's: the numbers unify
    assert typing.unify(opt(types.int8), opt(types.int16)) is opt(types.int16)
    assert typing.unify(types.none, types.none) is types.none
    with pytest.raises(KernelTypeError, match="only numbers can be None"):
        typing.unify(types.none, types.float32[:])


def test_conversions_rank_as_numbas():
    opt = types.Optional(types.int64)
    assert typing.conversion(types.none, opt) == typing.PROMOTE
    assert typing.conversion(types.int64, opt) == typing.PROMOTE
    assert typing.conversion(opt, types.int64) == typing.SAFE
    assert typing.conversion(opt, types.float64) == typing.SAFE
    assert typing.conversion(opt, types.int8) == typing.UNSAFE
    assert typing.conversion(types.complex128, types.Optional(types.float64)) is None


def test_typeof_none():
    assert typeof(None) is types.none


# -- errors --------------------------------------------------------------------------------------------------
maybe = OURS["maybe"]


@cuda.jit("int64(int64)", device=True)
def declared_int(x):
    if x > 0:
        return x
    return None


@cuda.jit(device=True)
def tuple_or_none(x):
    if x > 0:
        return (x, x)
    return None


def truth_of_optional(out, x):
    if maybe(x[0]):
        out[0] = 1


def declared_returns_none(out, x):
    out[0] = declared_int(x[0])


def tuple_then_none(out, x):
    t = tuple_or_none(x[0])
    out[0] = t[0]


def array_or_none(out, x):
    a = None
    if x[0] > 0:
        a = out
    a[0] = 1


def none_arithmetic(out, x):
    out[0] = None + x[0]


def none_ordered(out, x):
    r = maybe(x[0])
    out[0] = r < None


@pytest.mark.parametrize(
    "kernel, message",
    [
        (truth_of_optional, r"bool\(OptionalType\(int64\)\).*test `is not None` first"),
        (declared_returns_none, "declared to return int64 returns None"),
        (tuple_then_none, "returns a value on some paths and nothing on others"),
        (array_or_none, "holds a int64"),
        (none_arithmetic, "arithmetic works on numbers, not void and int64"),
        (none_ordered, "None is compared with is, is not, == and != only"),
    ],
)
def test_errors(kernel, message):
    with pytest.raises(KernelTypeError, match=message):
        translate_kernel(kernel, (types.int64[::1], types.int64[::1]), "k")


# -- the launch: None and left-out arguments are not passed ------------------------------------------------
def test_none_and_omitted_arguments_are_not_launched(mock_driver):  # noqa: F811
    out = run_mock(r"""
import runpy, tempfile, os, struct
path = os.path.join(tempfile.mkdtemp(), "defaults_mod.py")
open(path, "w").write('''
def f(out, n, y=None, z=4):
    if y is None:
        out[0] = n + z
    else:
        out[0] = y
''')
f = cuda.jit(runpy.run_path(path)["f"])
d = cuda.device_array(1, np.int64)
for args, passed in (((3,), [3]), ((3, None), [3]), ((3, None, 5), [3, 5]), ((3, 7), [3, 7]), ((3, 7, 5), [3, 7, 5])):
    for _ in range(2):  # the second launch through the dispatcher's cache
        f[1, 1](d, *args)
        params = mock.launch()["params"]
        assert [struct.unpack("q", p)[0] for p in params[1:]] == passed, (args, params)
t = cuda.types
assert (t.int64[:], t.int64, t.Omitted(None), t.Omitted(4)) in f.signatures
declared = cuda.jit("void(int64[:], int64)")(f.py_func)  # a signature of the arguments before the defaulted
assert declared.signatures == [(t.int64[:], t.int64, t.Omitted(None), t.Omitted(4))]
declared[1, 1](d, 3)
assert [struct.unpack("q", p)[0] for p in mock.launch()["params"][1:]] == [3]
assert f.specialize(d, 3).signatures == declared.signatures
print("launched ok")
""")
    assert "launched ok" in out


# -- on the GPU ----------------------------------------------------------------------------------------------
def _run(kernels, name, *args):
    kernels[name][1, len(XS)](*args)


def _uses_reference(x):
    """What `uses` writes for x, by Python's rules (numba's where they differ: none here)."""
    r = x - 1 if x > 5 else None
    f = x * 2 if x > 5 else None
    v = x * 2.5 if x > 3 else None
    row = [
        1 if r is None else 0,
        r is not None,
        0 if r is None else r * 2,
        0 if f is None else f * 2,
        r if (r is not None and 0 <= r < 8) else 0,
        r if r is not None else 3.5,
        -1.0 if v is None else v,
        999 if r is None else r,
        x + (x + 3) * 10 + (x + 7) * 100,
        -2.0 if x <= 5 else np.float32(x) / np.float32(4),
    ]
    return [float(v) for v in row]


@requires_gpu
def test_uses_on_the_gpu():
    expected = np.array([_uses_reference(int(x)) for x in XS])
    out = np.zeros((len(XS), 10))
    _run(OURS, "uses", out, XS)
    np.testing.assert_array_equal(out, expected)
    numba_cuda = numba_cuda_or_skip()
    theirs = optional_kernels.make(numba_cuda)
    other = np.zeros((len(XS), 10))
    _run(theirs, "uses", other, XS)
    np.testing.assert_array_equal(out, other)


@requires_gpu
def test_histogram_on_the_gpu():
    xs = np.random.default_rng(29).uniform(-0.25, 1.25, 4096)
    counts, outside = np.zeros(10, np.int32), np.zeros(1, np.int32)
    OURS["histogram"][32, 128](xs, counts, outside)
    inside = (xs >= 0) & (xs <= 1)
    expected = np.bincount(np.minimum((xs[inside] * 10).astype(int), 9), minlength=10)
    np.testing.assert_array_equal(counts, expected)
    assert outside[0] == (~inside).sum()
    numba_cuda = numba_cuda_or_skip()
    theirs_counts, theirs_outside = np.zeros(10, np.int32), np.zeros(1, np.int32)
    optional_kernels.make(numba_cuda)["histogram"][32, 128](xs, theirs_counts, theirs_outside)
    np.testing.assert_array_equal(counts, theirs_counts)
    assert outside[0] == theirs_outside[0]


@requires_gpu
def test_none_used_as_a_number_on_the_gpu():
    """Without debug=True the thread ends where the None is used (out keeps -7), as numba-cuda's kernel returns;
    with debug=True numba's TypeError is raised after the launch."""
    out = np.zeros(len(XS), np.int64)
    _run(OURS, "as_number", out, XS)
    np.testing.assert_array_equal(out, np.where(XS > 5, XS, -7))
    debug = cuda.jit(debug=True, opt=False)(OURS["as_number"].py_func)
    with pytest.raises(TypeError, match="expected int64, got None"):
        debug[1, len(XS)](np.zeros(len(XS), np.int64), XS)
    numba_cuda = numba_cuda_or_skip()
    theirs = optional_kernels.make(numba_cuda)
    other = np.zeros(len(XS), np.int64)
    _run(theirs, "as_number", other, XS)
    np.testing.assert_array_equal(out, other)
    with pytest.raises(TypeError, match="expected int64, got None"):
        numba_cuda.jit(debug=True, opt=False)(theirs["as_number"].py_func)[1, len(XS)](other, XS)


@requires_gpu
def test_defaults_and_none_arguments_on_the_gpu():
    out = np.zeros(1, np.int64)
    results = []
    for args in ((), (5,), (None,), (None, 4), (5, 4)):
        OURS["with_default"][1, 1](out, *args)
        results.append(int(out[0]))
    assert results == [3, 15, 3, 4, 20]
    # numba-cuda 0.30's kernels take every argument: a left-out one is its FixupArgs' TypeError, None its
    # NotImplementedError (numba's CPU functions fold both, as ours do)
    numba_cuda = numba_cuda_or_skip()
    theirs = optional_kernels.make(numba_cuda)["with_default"]
    theirs[1, 1](out, 5, 4)
    assert out[0] == 20
    with pytest.raises(TypeError, match="Signature mismatch"):
        theirs[1, 1](out)


@requires_gpu
def test_recursive_optional_on_the_gpu():
    """numba's own case (numba-cuda skips it: it needs a feature of numba's it lacks); compared with Python."""
    python = optional_kernels.make_recursive(lambda f: f)
    kernel = cuda.jit(optional_kernels.recursive_kernel(optional_kernels.make_recursive(cuda.jit)))
    for arg in (0, 5, 10, 15):
        expected = python(arg)
        r = np.zeros(1, np.int64)
        kernel[1, 1](r, np.array([arg], np.int64))
        assert r[0] == (999 if expected is None else expected)


DEFINITIONS = """
import numpy as np
import numba
from numba import cuda


@cuda.jit(device=True)
def bin_index(x, lo, hi, n):  # None outside [lo, hi)
    if x < lo or x >= hi:
        return
    return int((x - lo) / (hi - lo) * n)


@cuda.jit
def histogram(xs, counts):
    shared = cuda.shared.array(16, numba.types.int32)
    t = cuda.threadIdx.x
    if t < 16:
        shared[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < xs.shape[0]:
        b = bin_index(xs[i], 0.0, 1.0, 16)
        if b is not None:
            cuda.atomic.add(shared, b, numba.int32(1))
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(counts, t, shared[t])
"""
RUN = """
xs = np.linspace(-0.5, 1.5, 1000)
counts = np.zeros(16, np.int32)
histogram[8, 128](xs, counts)
inside = xs[(xs >= 0) & (xs < 1)]
assert (counts == np.bincount((inside * 16).astype(int), minlength=16)).all(), counts
print("program ok", type(histogram).__module__)
"""


def _under_the_alias(tmp_path, program, *args):
    (tmp_path / "program.py").write_text(program)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.pathsep.join([root, str(tmp_path), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", *args],
        env=dict(os.environ, PYTHONPATH=path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@needs_nvrtc
def test_a_numba_program_with_optionals_and_numba_types_translates(tmp_path):
    """The program below, under `python -m numba_cuda_c` (numba itself where installed, else the stand-in)."""
    check = (
        DEFINITIONS
        + """
import numba_cuda_c
ptx, _ = numba_cuda_c.compile_ptx(histogram, (numba.types.float64[::1], numba.types.int32[::1]))
assert ".shared" in ptx
print("translated", type(histogram).__module__)
"""
    )
    assert "translated numba_cuda_c" in _under_the_alias(tmp_path, check, str(tmp_path / "program.py"))


@requires_gpu
def test_a_numba_program_with_optionals_and_numba_types_runs_unchanged(tmp_path):
    out = _under_the_alias(tmp_path, DEFINITIONS + RUN, str(tmp_path / "program.py"))
    assert "program ok numba_cuda_c" in out
