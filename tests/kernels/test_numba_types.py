"""numba's own type objects where ours are expected: `from numba import float32` in signatures
(@cuda.jit((numba.float32[:], numba.int32)), cuda.jit(numba.void(...))), dtypes of shared and local
arrays, conversions in kernels and cuda.declare_device signatures, matched by name and attributes; the same
reached through numba's modules (numba.types.int32: numba.types is a module of numba's own class).

With numba installed (the GPU machine) these use numba's real objects; CI has no numba, so the same
mapping is also checked on stand-ins that carry numba's class names, module and attributes."""

import re
import types as pytypes

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import let_numba_import, requires_gpu
from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit.translate import translate_kernel

try:
    _cuda.nvrtc_version()
    HAVE_NVRTC = True
except cuda.NvrtcError:
    HAVE_NVRTC = False
needs_nvrtc = pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC is not installed")


def _numba():
    let_numba_import()
    return pytest.importorskip("numba", reason="numba is not installed")


# -- stand-ins for numba's classes (numba.core.types), for machines without numba -----------------
class _Type:
    def __init__(self, name):
        self.name = name

    def __call__(self, *args):
        return Signature(self, args)

    def __getitem__(self, index):
        items = index if isinstance(index, tuple) else (index,)
        layout = "C" if items[-1].step == 1 else "A"
        return Array(self, len(items), layout)


class Integer(_Type):
    pass


class Float(_Type):
    pass


class Boolean(_Type):
    pass


class NoneType(_Type):
    pass


class Array(_Type):
    def __init__(self, dtype, ndim, layout):
        super().__init__("array(%s, %dd, %s)" % (dtype, ndim, layout))
        self.dtype, self.ndim, self.layout = dtype, ndim, layout


class UniTuple(_Type):
    def __init__(self, dtype, count):
        super().__init__("UniTuple(%s x %d)" % (dtype.name, count))
        self.types = (dtype,) * count


class Tuple(_Type):
    def __init__(self, items):
        super().__init__("Tuple(%s)" % ", ".join(t.name for t in items))
        self.types = tuple(items)


class NPDatetime(_Type):
    pass


class ListType(_Type):
    pass


class Signature:
    def __init__(self, return_type, args):
        self.return_type, self.args = return_type, tuple(args)


for _cls in (Integer, Float, Boolean, NoneType, Array, UniTuple, Tuple, NPDatetime, ListType):
    _cls.__module__ = "numba.core.types.standin"
Signature.__module__ = "numba.core.typing.templates"

fake_float32, fake_int32, fake_bool = Float("float32"), Integer("int32"), Boolean("bool")
fake_void = NoneType("none")


def test_standins_map_by_name_and_attributes():
    assert types.from_numba(fake_float32) is types.float32
    assert types.from_numba(fake_bool) is types.boolean
    assert types.from_numba(fake_void) is types.void
    assert types.from_numba(fake_float32[:, ::1]) is types.float32[:, ::1]
    assert types.from_numba(UniTuple(fake_int32, 2)) == types.Tuple([types.int32, types.int32])
    sig = types.parse_signature(fake_void(fake_float32[:], fake_int32))
    assert (sig.return_type, sig.args) == (types.void, (types.float32[:], types.int32))
    assert types.parse_signature((fake_float32[:], fake_int32)).args == (types.float32[:], types.int32)
    assert types.from_numba(NPDatetime("datetime64[ns]")) is types.from_dtype("M8[ns]")
    with pytest.raises(TypeError, match="no numba_cuda_c equivalent"):
        types.from_numba(ListType("ListType[int64]"))
    assert not types.is_numba_type(types.float32) and not types.is_numba_type(np.float32)


def test_numbas_tuple_types_are_instances_of_ours():
    # code written for numba.cuda tests numba's types against numba.cuda.types (ours, under the alias):
    # numba-cuda's test_libdevice.py asks isinstance(sig.return_type, (types.Tuple, types.UniTuple)) of the
    # Signature numba's libdevicefuncs makes
    pair, mixed = UniTuple(fake_float32, 2), Tuple([fake_float32, fake_int32])
    assert isinstance(pair, types.UniTuple) and isinstance(pair, types.Tuple)
    assert isinstance(mixed, types.Tuple) and not isinstance(mixed, types.UniTuple)
    assert not isinstance(pair, types.NamedTuple) and not isinstance(fake_float32, types.Tuple)
    assert not isinstance(Array(fake_float32, 1, "C"), types.Tuple) and not isinstance((1, 2), types.Tuple)
    assert types.Tuple([types.float32, types.float32]) == pair and types.Tuple([types.float32]) != pair
    assert types.UniTuple(types.float32, 2) == pair
    assert not isinstance(pair, types.Type)  # still numba's: parse_type converts it (isinstance(x, Type) first)
    assert types.parse_type(mixed) == types.Tuple([types.float32, types.int32])


def test_standin_signatures_in_jit_and_declare_device():
    kernel = cuda.jit(fake_void(fake_float32[:]))  # a signature, not the function: a decorator
    assert callable(kernel) and not isinstance(kernel, cuda.pyjit.Dispatcher)
    declared = cuda.declare_device("f1", fake_int32(fake_float32[:]))
    assert (declared.sig.return_type, declared.sig.args) == (types.int32, (types.float32[:],))
    with pytest.raises(TypeError, match="Return type must be provided"):
        cuda.declare_device("f1", (fake_float32[:],))


# -- numba's real objects --------------------------------------------------------------------------
def test_numba_scalars_and_arrays():
    numba = _numba()
    for name in list(types.SCALARS):
        if name == "bfloat16" or "[" in name:  # bfloat16: numba-cuda's own type (below); datetimes: below
            continue
        assert types.parse_type(getattr(numba.types, "bool_" if name == "bool" else name)) is types.SCALARS[name]
    assert types.parse_type(numba.types.NPDatetime("D")) is types.from_dtype("datetime64[D]")
    assert types.parse_type(numba.types.NPTimedelta("ns")[:]) is types.from_dtype("timedelta64[ns]")[:]
    assert types.parse_type(numba.types.int32[:]) is types.int32[:]
    assert types.parse_type(numba.float64[:, ::1]) is types.float64[:, ::1]
    assert types.parse_type(numba.float64[::1, :]) is types.float64[::1, :]
    assert types.parse_type(numba.types.intp) is types.int64
    sig = types.parse_signature(numba.void(numba.float32[:], numba.int32))
    assert (sig.return_type, sig.args) == (types.void, (types.float32[:], types.int32))
    sig = types.parse_signature((numba.float32[:], numba.int32))
    assert sig.args == (types.float32[:], types.int32)
    declared = cuda.declare_device("f1", numba.int32(numba.float32[:]))
    assert (declared.sig.return_type, declared.sig.args) == (types.int32, (types.float32[:],))


def test_numbas_libdevice_signatures_tuple_types_are_instances_of_ours():
    _numba()
    pytest.importorskip("numba.cuda.libdevicefuncs", reason="numba-cuda is not installed")
    from numba.cuda.libdevicefuncs import create_signature, functions

    sincos, frexp = (create_signature(*functions[n]).return_type for n in ("__nv_sincos", "__nv_frexp"))
    assert isinstance(sincos, types.UniTuple) and isinstance(sincos, (types.Tuple, types.UniTuple))
    assert isinstance(frexp, types.Tuple) and not isinstance(frexp, types.UniTuple)
    assert [types.parse_type(t[::1]) for t in frexp] == [types.float64[::1], types.int32[::1]]


def test_numba_cudas_bfloat16_type_is_ours_by_name():
    numba_like = type("Bfloat16", (), {"__module__": "numba.cuda.types.ext_types", "name": "__nv_bfloat16"})()
    assert types.is_numba_type(numba_like) and types.parse_type(numba_like) is types.bfloat16


def shared_and_local_numba_dtypes(out, n):
    sm = cuda.shared.array(16, numba_module.float32)
    lm = cuda.local.array(4, numba_int16)
    i = cuda.grid(1)
    sm[i % 16] = numba_module.float32(n)
    lm[0] = numba_int16(n)
    cuda.syncthreads()
    out[i] = sm[i % 16] + lm[0]


@needs_nvrtc
def test_numba_types_in_kernels():
    numba = _numba()
    global numba_module, numba_int16
    numba_module, numba_int16 = numba, numba.int16
    ptx, resty = cuda.compile_ptx(shared_and_local_numba_dtypes, (numba.float32[:], numba.int32))
    assert resty == types.void
    assert re.search(r"\.shared \.align \d+ \.b8 \w+\[64\]", ptx), ptx  # 16 float32
    assert "cvt.rn.f32.s32" in ptx  # numba.float32(n) of an int32


def plus_one(x):
    return x + 1


@needs_nvrtc
def test_numba_signature_of_a_device_function():
    numba = _numba()
    device = cuda.jit(numba.int32(numba.int32), device=True)(plus_one)
    assert device.signatures == [(types.int32,)]  # numba's: the argument types of each


def fills(out, value):
    sm = cuda.shared.array(8, numba_module.float32)
    i = cuda.grid(1)
    sm[i] = value * 2
    cuda.syncthreads()
    out[i] = sm[i]


@requires_gpu
def test_numba_signatures_launch():
    numba = _numba()
    global numba_module
    numba_module = numba
    for kernel in (
        cuda.jit((numba.float32[:], numba.int32))(fills),
        cuda.jit(numba.void(numba.float32[::1], numba.int32))(fills),
        cuda.jit("void(float32[:], int32)")(fills),
    ):
        out = cuda.device_array(8, np.float32)
        kernel[1, 8](out, 3)
        np.testing.assert_array_equal(out.copy_to_host(), np.full(8, 6, np.float32))


def test_signature_strings_take_numbas_c_style_aliases():
    from numba_cuda_c.types import float32, float64, int8, int32, int64, parse_signature, uint8, uint64

    sig = parse_signature("void(double[:], float_, intc, uchar[:, :], size_t, char, long_)")
    assert [str(a) for a in sig.args] == [
        str(t) for t in (float64[:], float32, int32, uint8[:, :], uint64, int8, int64)
    ]


def test_numba_s_number_domains():
    from numba_cuda_c import types as t

    assert t.int32 in t.signed_domain and t.uint8 in t.unsigned_domain and t.uint8 not in t.signed_domain
    assert t.integer_domain == t.signed_domain | t.unsigned_domain
    assert t.float32 in t.real_domain and t.complex64 in t.complex_domain and t.float16 not in t.number_domain
    assert len(t.number_domain) == 12


def test_like_arrays_take_numpy_s_strides_from_device_arrays_and_views():
    import numpy as np

    from numba_cuda_c import _like_strides

    class DeviceLike:  # what the *_like functions read of a device array: flags are a dict there
        def __init__(self, a):
            self.flags = {"C_CONTIGUOUS": a.flags.c_contiguous, "F_CONTIGUOUS": a.flags.f_contiguous}
            self.ndim, self.shape, self.strides, self.dtype = a.ndim, a.shape, a.strides, a.dtype

    for a in (
        np.zeros((4, 6))[:, ::2],
        np.zeros((4, 6), order="F")[::2],
        np.zeros((3, 4, 5)).transpose(1, 0, 2)[:, :, ::2],
        np.zeros((4, 6), order="F"),
    ):
        for like in (a, DeviceLike(a)):
            assert _like_strides(like) == np.empty_like(a).strides


# -- numba's types reached through numba's modules (numba.types.int32, nb.types.int64, numba.core.types.uint8) -----
class _RedirectSubpackage(pytypes.ModuleType):  # the class of numba.types, a module whose attributes are types
    pass


_RedirectSubpackage.__module__ = "numba.core.utils"


def _standin_numba():
    """numba, numba.types (a _RedirectSubpackage), numba.core and numba.core.types, holding the stand-in types."""
    numba = pytypes.ModuleType("numba")
    numba.core = pytypes.ModuleType("numba.core")
    numba.core.types = pytypes.ModuleType("numba.core.types")
    numba.types = _RedirectSubpackage("numba.types")
    for t in (Integer("int32"), Integer("int64"), Integer("uint8"), Float("float32"), Float("float64"), fake_void):
        for module in (numba, numba.types, numba.core.types):
            setattr(module, t.name, t)
    numba.void = numba.types.void = fake_void
    return numba


def dtypes_through_modules(out):
    s = cuda.shared.array(4, numba.types.int32)
    t = cuda.local.array(2, nb.types.int64)
    u = cuda.shared.array(3, numba.core.types.uint8)
    v = cuda.local.array(1, numba.int32)
    w = cuda.local.array(1, dtype=numba.types.float32)
    s[0] = numba.types.float32(1.5)
    t[0] = nb.types.int64(out[0])
    u[0] = numba.core.types.uint8(3)
    v[0] = numba.int32(2.5)
    w[0] = 1
    out[0] = s[0] + t[0] + u[0] + v[0] + w[0]


def _check_module_chain(module):
    """numba's types through its modules: as dtypes of shared and local arrays, in conversions, in a signature."""
    global numba, nb
    numba = nb = module
    try:
        assert not types.is_numba_type(module.types)  # a module of types, not a type
        assert types.parse_type(module.types.int32) is types.int32
        signature = module.types.void(module.types.float64[::1])
        ptx, resty = cuda.compile_ptx(dtypes_through_modules, signature)  # NVRTC compiles it
        assert resty == types.void and ".entry" in ptx
        source = translate_kernel(dtypes_through_modules, types.parse_signature(signature).args, "k")
        for declared in (
            r"__shared__ int storage_\d+\[4\]",
            r"long long storage_\d+\[2\]",
            r"__shared__ unsigned char storage_\d+\[3\]",
            r"int storage_\d+\[1\]",
            r"float storage_\d+\[1\]",
        ):
            assert re.search(declared, source), declared
        assert "((int)(((float)(1.5))))" in source  # numba.types.float32(1.5), stored in an int32
    finally:
        del numba, nb


@needs_nvrtc
def test_numba_types_through_standin_modules():
    _check_module_chain(_standin_numba())


@needs_nvrtc
def test_numba_types_through_numbas_own_modules():
    numba = _numba()
    import numba.core.types  # noqa: F401  (numba.core.types.uint8)

    _check_module_chain(numba)
