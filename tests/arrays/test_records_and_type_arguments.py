"""Record fields on the device (DeviceRecord and structured arrays: rec['a'], nested records, subarray
fields, copies into NumPy records), types given as kernel arguments (numba's class(float64)
specialisation), recarray fields in kernels, numba's type objects comparing equal to ours, NVRTC's
architecture helpers and a driver.cuInit replaced from Python. On the mock driver (no GPU needed);
kernels compile with NVRTC where it is installed."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c import types
from numba_cuda_c.pyjit.dispatcher import typeof


def nvrtc_or_skip():
    try:
        from numba_cuda_c import _cuda

        _cuda.nvrtc_supported_archs()
    except Exception as exc:  # no NVRTC library on this machine
        pytest.skip("NVRTC is not available: %s" % exc)


def test_record_fields_on_the_device(mock_driver):
    out = run_mock(r"""
from numba_cuda_c.cudadrv.devicearray import DeviceRecord
rec_t = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.str_, 5))], align=True)
with_array = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
with_matrix = np.dtype([("i", np.int32), ("j", np.float32, (3, 3))])
nested = np.dtype([("x", np.int32), ("y", with_matrix)])

recs = cuda.device_array(3, dtype=rec_t)
for i in range(3):
    recs[i]["a"] = (i + 1) / 2
    recs[i]["b"] = i + 1
    recs[i]["c"] = (i + 1) * 1j
    recs[i]["d"] = str(i + 1) * 5
for i in range(3):
    r = recs[i]
    assert type(r) is DeviceRecord, type(r)
    assert (r["a"], r["b"], r["c"], r["d"]) == ((i + 1) / 2, i + 1, (i + 1) * 1j, str(i + 1) * 5)
    assert isinstance(r["b"], np.int32)
# a field of a structured array is a strided view, as NumPy's
assert recs["b"].copy_to_host().tolist() == [1, 2, 3] and recs["b"].strides == (rec_t.itemsize,)

r = cuda.device_array(1, dtype=with_array)[0]
r["g"] = 2
r["h"][1] = 4.0
assert r["g"] == 2 and r["h"].shape == (2,) and r["h"][1] == 4.0

m = cuda.device_array(1, dtype=with_matrix)[0]
mat = np.arange(9, dtype=np.float32).reshape(3, 3)
m["j"][:] = mat
np.testing.assert_equal(m["j"].copy_to_host(), mat)

d = cuda.to_device(np.zeros(2, dtype=nested))
d[1]["y"]["i"] = 7
d[1]["y"]["j"][0, 2] = 2.5
host = d.copy_to_host()
assert host[1]["y"]["i"] == 7 and host[1]["y"]["j"][0, 2] == 2.5 and host[0]["y"]["i"] == 0

for bad, exc in (("zz", KeyError), (3.5, IndexError)):
    try:
        recs[0][bad]
    except exc:
        pass
    else:
        raise AssertionError("rec[%r] did not raise %s" % (bad, exc.__name__))
try:
    cuda.device_array(3)["a"]
except IndexError as e:
    assert "no fields" in str(e), e
else:
    raise AssertionError("a field of a plain array did not raise")
print("fields ok")
""")
    assert "fields ok" in out


def test_copy_to_host_into_numpy_records(mock_driver):
    out = run_mock(r"""
from numba_cuda_c.cudadrv.devicearray import DeviceRecord, auto_device
dt = np.dtype([("a", np.int32), ("b", np.float32)], align=True)
for make in (np.zeros, np.recarray):
    source = make(1, dt)[0]
    source["a"], source["b"] = 10, 11.0
    dev, new = auto_device(source.copy())
    assert type(dev) is DeviceRecord and new
    target = make(1, dt)
    element = target[0]                 # a record that views its array: written in place
    dev.copy_to_host(element)
    assert (target[0]["a"], target[0]["b"]) == (10, 11.0), target
    alone = np.zeros(1, dt)[0].copy()    # a record owning its bytes
    assert dev.copy_to_host(alone) is alone and alone["a"] == 10
try:
    dev.copy_to_host(np.zeros(1, np.dtype([("a", np.int64)]))[0])
except TypeError as e:
    assert "incompatible dtype" in str(e), e
else:
    raise AssertionError("a record of another dtype was accepted")
print("records ok")
""")
    assert "records ok" in out


def test_numba_type_objects_compare_equal_to_ours():
    numba = pytest.importorskip("numba")
    assert types.float32 == numba.float32 and types.float32 != numba.float64
    assert types.int32[::1] == numba.int32[::1] and types.int32[:] != numba.int32[::1]
    dt = np.dtype([("a", np.int32), ("b", np.float32)], align=True)
    assert types.from_dtype(dt) == numba.from_dtype(dt)
    sig = types.void(types.int32[::1], numba.typeof(np.int32))
    assert sig.args == (types.int32[::1], types.NumberClass(types.int32))


def test_types_as_arguments_are_classes():
    assert typeof(np.float64) is types.NumberClass(types.float64)
    assert typeof(np.dtype("f4")) is types.NumberClass(types.float32)
    assert typeof(types.int16) is types.NumberClass(types.int16)
    assert str(typeof(np.int8)) == "class(int8)"
    with pytest.raises(TypeError, match="cannot pass a str"):
        typeof("float32")


def test_kernel_specialised_on_a_type_argument(mock_driver):
    nvrtc_or_skip()
    out = run_mock(r"""
import runpy, tempfile, textwrap, os
source = textwrap.dedent('''
import numpy as np
import numba_cuda_c as cuda

def smem(ary, dty):
    sm = cuda.shared.array(100, dty)
    i = cuda.grid(1)
    sm[i] = i
    cuda.syncthreads()
    ary[i] = sm[i]

def lmem(a, dty):
    c = cuda.local.array(10, dty)
    c[0] = dty(2.5)
    a[0] = c[0]

def recs(x, out1, out2):
    i = cuda.grid(1)
    if i < x.size:
        out1[i] = x.value1[i]
        out2[i] = x.value2[i]
''')
path = os.path.join(tempfile.mkdtemp(), "kernels_mod.py")
open(path, "w").write(source)
k = runpy.run_path(path)
smem = cuda.jit(k["smem"]).specialize(np.zeros(100, np.int32), np.float64)
(sig, text), = smem.inspect_source().items()
assert str(sig[1]) == "class(float64)" and "__shared__ double" in text and "unsigned char v_dty" in text, text
lmem = cuda.jit(k["lmem"])
a = np.zeros(1, np.float32)
lmem[1, 1](a, np.float32)
lmem[1, 1](a, np.int32)
assert {str(s[1]) for s in lmem.overloads} == {"class(float32)", "class(int32)"}, lmem.overloads
text = lmem.inspect_source()[(cuda.types.Array(cuda.float32, 1, "A"), cuda.types.NumberClass(cuda.int32))]
import re
assert re.search(r"\bint storage_\d+\[10\]", text) and "Array<int, 1> v_c" in text, text
r = np.recarray(4, dtype=[("value1", np.int64), ("value2", np.float64)])
rec_kernel = cuda.jit(k["recs"])
rec_kernel[1, 4](r, np.zeros(4, np.int64), np.zeros(4))
(text,) = rec_kernel.inspect_source().values()
assert "ncc_field_view<long long>(v_x, 0LL)" in text and "ncc_field_view<double>(v_x, 8LL)" in text, text
print("type arguments ok")
""")
    assert "type arguments ok" in out


def test_nvrtc_architecture_helpers():
    nvrtc_or_skip()
    from numba_cuda_c.cudadrv import nvrtc

    supported = nvrtc.get_supported_ccs()
    assert supported == sorted(supported) and all(len(cc) == 2 for cc in supported)
    for cc in supported:
        assert nvrtc.get_arch_option(*cc) == "compute_%d%d" % cc
    assert nvrtc.get_arch_option(1000, 0) == "compute_%d%d" % supported[-1]
    for lower, upper in zip(supported, supported[1:]):  # a capability between two: the lower one's
        between = (lower[0], lower[1] + 1)
        if between < upper:
            assert nvrtc.get_arch_option(*between) == "compute_%d%d" % lower
    with pytest.raises(cuda.NvrtcError, match="older than every architecture"):
        nvrtc.get_arch_option(1, 0)
    for cc in supported:
        assert nvrtc.find_closest_arch(cc) == cc
    assert nvrtc.find_closest_arch((1000, 0)) == supported[-1]
    with pytest.raises(cuda.cudadrv.error.CCSupportError, match="GPU compute capability 1.0 is not supported"):
        nvrtc.find_closest_arch((1, 0))
    version = nvrtc._get_nvrtc_version()
    assert isinstance(version, tuple) and len(version) == 2 and version >= (11, 0)


def test_replaced_cu_init_fails_initialisation(mock_driver):
    out = run_mock(r"""
from numba_cuda_c.cudadrv.driver import CudaAPIError, driver
from numba_cuda_c.cudadrv.error import CudaSupportError

def raising(flags):
    assert flags == 0
    raise CudaAPIError(999, "CUDA_ERROR_UNKNOWN")

driver.cuInit = raising
try:
    cuda.device_array(1)
except CudaSupportError as e:
    assert str(e) == "Error at driver init: CUDA_ERROR_UNKNOWN (999)", str(e)
else:
    raise AssertionError("no CudaSupportError")
assert cuda.cuda_error() == "Error at driver init: CUDA_ERROR_UNKNOWN (999)", cuda.cuda_error()
assert not cuda.is_available()
print("init ok")
""")
    assert "init ok" in out


def test_device_arrays_iterate_over_their_first_axis(mock_driver):
    out = run_mock(r"""
d = cuda.to_device(np.arange(6.0))
assert list(d) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and all(isinstance(x, np.float64) for x in d)
rows = list(cuda.to_device(np.arange(6).reshape(3, 2)))
assert len(rows) == 3 and type(rows[0]) is cuda.DeviceNDArray and rows[2].copy_to_host().tolist() == [4, 5]
recs = list(cuda.device_array(2, dtype=np.dtype([("a", np.int32)])))
assert [type(r).__name__ for r in recs] == ["DeviceRecord", "DeviceRecord"]
assert list(zip(cuda.to_device([1, 10]), cuda.to_device([2, 20]))) == [(1, 2), (10, 20)]
try:
    iter(cuda.device_array(()))
except TypeError as e:
    assert "0-d" in str(e)
else:
    raise AssertionError("a 0-d array iterated")
print("iteration ok")
""")
    assert "iteration ok" in out
