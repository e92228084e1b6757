"""Fuzzing (hypothesis) of device arrays, against the mock CUDA driver in CI and against the GPU:
shapes, strides, dtypes and byte orders through device_array, to_device, copy_to_host, slicing,
reshape, view and foreign __cuda_array_interface__ dicts. Each case gives NumPy's data or a clear
ValueError/TypeError; a foreign dict that reaches outside its allocation is refused when it comes in
(foreign.c), never copied from. The properties run in one subprocess; each example is logged before
it runs, so a crash names its input."""

import os
import tempfile

import subprocess
import sys

import pytest

from gpu import requires_gpu
from mock_driver import HERE, ROOT, mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

pytest.importorskip("hypothesis")

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "120"))
# Records (DeviceRecord) crash until issue 10 item 1 is merged: then set this to "1".
RECORDS = "1"

PROPERTIES = r"""
import os
from hypothesis import given, settings, strategies as st, HealthCheck, reject
LOG = open(os.environ["FUZZ_LOG"], "w", buffering=1)
CLEAR = (ValueError, TypeError, IndexError, NotImplementedError)
RECORDS = os.environ.get("FUZZ_RECORDS") == "1"  # DeviceRecords: issue 10 item 1 (a crash) until merged
BASE = int(os.environ.get("FUZZ_BASE", "256"))
WINDOW = os.environ.get("FUZZ_WINDOW", "start")
DTYPES = ["u1", "i1", "<i2", ">i2", "<i4", ">u4", "<i8", ">i8", "<f4", ">f4", "<f8", ">f8", "<c8", ">c16", "?",
          "<f2", [("x", "<i4"), ("y", "<f8")], [("a", "u1"), ("b", ">i2")]]
config = settings(max_examples=int(os.environ["FUZZ_MAX_EXAMPLES"]), deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
rng = np.random.default_rng(1)

def record_like(x):
    return not RECORDS and (isinstance(x, np.void) or (np.ndim(x) == 0 and np.asarray(x).dtype.fields is not None))

def native(dtype):
    return dtype.isnative if dtype.fields is None else all(native(f[0]) for f in dtype.fields.values())

def upload(a):
    # to_device refuses data in the other byte order (the device would read its raw bytes)
    if not native(np.asarray(a).dtype):
        try:
            cuda.to_device(a)
        except ValueError as e:
            assert "byte order" in str(e), e
            reject()
        raise AssertionError("to_device accepted the other byte order: %r" % (np.asarray(a).dtype,))
    return cuda.to_device(a)

def log(*what):
    LOG.write(repr(what) + "\n")

def host_array(shape, dtype):
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256 if dtype != np.bool_ else 2, size=int(np.prod(shape, dtype=np.int64)) * dtype.itemsize,
                       dtype=np.uint8)  # a bool is one byte of 0 or 1
    return raw.view(dtype).reshape(shape) if dtype.itemsize else np.zeros(shape, dtype)

def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if got.dtype != want.dtype:  # converted to native order: compare values
        return got.dtype.newbyteorder("=") == want.dtype.newbyteorder("=") and \
            np.ascontiguousarray(got.astype(want.dtype)).tobytes() == np.ascontiguousarray(want).tobytes()
    return np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()

shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
slices = st.builds(slice, st.none() | st.integers(-7, 7), st.none() | st.integers(-7, 7),
                   st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
index_items = st.integers(-6, 6) | slices
indexes = st.lists(index_items, max_size=4).map(tuple)

@config
@given(shape=shapes, dtype=st.sampled_from(DTYPES), order=st.sampled_from("CF"), index=indexes)
def prop_to_device_and_slices(shape, dtype, order, index):
    log("to_device", shape, dtype, order, index)
    a = np.asarray(host_array(shape, dtype), order=order)
    if record_like(a):
        return
    try:
        d = upload(a)
    except CLEAR:
        return
    assert same(d.copy_to_host(), a), (d.copy_to_host(), a)
    try:
        want = a[index]
    except IndexError:
        want = None
    if record_like(want):
        return
    try:
        got = d[index]
    except CLEAR:
        return
    assert want is not None, ("numpy refuses this index", index)
    got = got.copy_to_host() if hasattr(got, "copy_to_host") else got
    assert same(got, want), (got, want)

@config
@given(shape=shapes, dtype=st.sampled_from(DTYPES), index=indexes, value=st.integers(-3, 300))
def prop_strided_host_and_setitem(shape, dtype, index, value):
    log("strided", shape, dtype, index, value)
    a = host_array(shape, dtype)
    try:
        view = a[index]
    except IndexError:
        return
    if record_like(view):
        return
    try:
        d = upload(view)
    except CLEAR:
        return
    assert same(d.copy_to_host(), view)
    if not isinstance(view, np.ndarray) or view.ndim == 0 or np.dtype(dtype).fields:
        return
    e = cuda.device_array(view.shape, view.dtype)
    try:
        e[...] = value
        want = np.full(view.shape, value).astype(view.dtype)
    except CLEAR:
        return
    except OverflowError:
        return
    assert same(e.copy_to_host(), want), (e.copy_to_host(), want)

@config
@given(shape=shapes, dtype=st.sampled_from(DTYPES), newshape=st.lists(st.integers(-1, 8), max_size=4).map(tuple),
       order=st.sampled_from("CF"), newdtype=st.sampled_from(DTYPES))
def prop_device_array_reshape_view(shape, dtype, newshape, order, newdtype):
    log("reshape", shape, dtype, newshape, order, newdtype)
    want = np.empty(shape, dtype, order=order)
    try:
        d = cuda.device_array(shape, dtype, order=order)
    except CLEAR:
        return
    assert d.shape == want.shape and d.dtype == want.dtype, (d.shape, d.dtype)
    assert want.size == 0 or d.strides == want.strides, (d.strides, want.strides)  # NumPy 2.4: empty strides 0
    a = np.asarray(host_array(shape, dtype), order=order)
    if record_like(a):
        return
    d = upload(a)
    try:
        r = d.reshape(newshape, order=order)
    except CLEAR:
        r = None
    try:
        w = a.reshape(newshape, order=order)
    except ValueError:
        w = None
    if r is not None:
        assert w is not None, ("numpy refuses this reshape", newshape)
        assert same(r.copy_to_host(), w), (r.copy_to_host(), w)
    try:
        v = d.view(newdtype)
    except CLEAR:
        return
    try:
        wv = a.view(newdtype)
    except ValueError:  # numba's rule: the last axis's bytes divide by the new itemsize (NumPy 2 is stricter)
        new = np.dtype(newdtype)
        assert a.ndim > 0 and a.flags.c_contiguous and a.shape[-1] * a.itemsize % new.itemsize == 0, \
            ("numpy and numba refuse this view", newdtype)
        if a.size == 0:
            return
        wv = np.frombuffer(a.tobytes(), new).reshape(a.shape[:-1] + (a.shape[-1] * a.itemsize // new.itemsize,))
    assert same(v.copy_to_host(), wv), (v.copy_to_host(), wv)

@config
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), dtype=st.sampled_from(DTYPES[:16]),
       strides=st.none() | st.lists(st.integers(-40, 40), max_size=3).map(tuple), offset=st.integers(0, 64),
       version=st.sampled_from([0, 1, 2, 3, 4]), mutate=st.sampled_from(["none", "shape-list", "typestr", "data",
       "no-shape", "no-typestr", "readonly", "mask", "stream"]), api=st.sampled_from(["from_cai", "as_cuda_array"]))
def prop_foreign_cuda_array_interface(shape, dtype, strides, offset, version, mutate, api):
    log("cai", shape, dtype, strides, offset, version, mutate, api)
    # a window of 256 bytes at the start (the mock) or the end (the GPU) of an allocation of BASE bytes
    base_host = host_array((256,), "u1")
    base = cuda.device_array(BASE, np.uint8)
    window = base[:256] if WINDOW == "start" else base[BASE - 256:]
    window.copy_to_device(base_host)
    pointer = window.__cuda_array_interface__["data"][0] + offset
    desc = {"shape": shape, "typestr": np.dtype(dtype).str, "data": (pointer, False), "version": version,
            "strides": strides}
    if mutate == "shape-list": desc["shape"] = list(shape)
    if mutate == "typestr": desc["typestr"] = "<x9"
    if mutate == "data": desc["data"] = None
    if mutate == "no-shape": del desc["shape"]
    if mutate == "no-typestr": del desc["typestr"]
    if mutate == "readonly": desc["data"] = (pointer, True)
    if mutate == "mask": desc["mask"] = None
    if mutate == "stream": desc["stream"] = 1
    class Exporter:
        __cuda_array_interface__ = desc
    itemsize = np.dtype(dtype).itemsize
    all_strides = strides if strides is not None else np.empty(shape, dtype).strides
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, all_strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, all_strides)) + itemsize
    start = 0 if WINDOW == "start" else BASE - 256  # the window's offset in its allocation
    outside = 0 not in shape and (start + offset + lo < 0 or start + offset + hi > BASE)
    try:
        got = cuda.from_cuda_array_interface(desc, owner=base) if api == "from_cai" else cuda.as_cuda_array(Exporter())
    except CLEAR as e:
        # outside its allocation, and nothing else wrong: refused up front, as a ValueError
        assert not outside or mutate not in ("none", "readonly") or isinstance(e, ValueError), e
        return
    host = got.copy_to_host()  # a CudaAPIError here fails the test: a bad dict must not reach a copy
    if len(all_strides) != len(shape):
        raise AssertionError(("wrong strides accepted", shape, strides))
    if 0 in shape:
        assert host.shape == shape
        return
    assert not outside, ("a dict reaching outside its allocation was accepted", shape, strides, offset)
    if offset + lo < 0:  # below the window, inside the allocation (the GPU's window is at its end): fine,
        assert WINDOW == "end", ("a view below the allocation", shape, strides, offset)  # with nothing to compare
        return
    assert offset + hi <= 256, ("a view past the window", shape, strides, offset)
    want = np.ndarray(shape, np.dtype(dtype), buffer=base_host, offset=offset, strides=strides)
    assert same(host, want), (host, want)

for prop in (prop_to_device_and_slices, prop_strided_host_and_setitem, prop_device_array_reshape_view,
             prop_foreign_cuda_array_interface):
    prop()
    LOG.write("passed %s\n" % prop.__name__)
"""
MOCK_END = """
cuda.close()
gc.collect()
assert not any(mock.live().values()), mock.live()
print("ok")
"""
GPU_PRELUDE = """
import gc
import numpy as np
import numba_cuda_c as cuda
"""


def _fail_with_log(rc, output, log):
    tail = open(log).read().splitlines()[-3:] if os.path.exists(log) else []
    pytest.fail("fuzzing failed (exit %d); last examples tried:\n%s\n%s" % (rc, "\n".join(tail), output[-6000:]))


@pytest.mark.usefixtures("mock_driver")
def test_fuzz_device_arrays_against_numpy_on_the_mock_driver():
    log = os.path.join(tempfile.mkdtemp(prefix="fuzz-"), "examples.log")
    rc, output = run_mock(
        PROPERTIES + MOCK_END,
        timeout=240,
        expect_failure=True,
        FUZZ_LOG=log,
        FUZZ_MAX_EXAMPLES=str(MAX_EXAMPLES),
        FUZZ_RECORDS=RECORDS,
    )
    if rc != 0:
        _fail_with_log(rc, output, log)
    assert output.strip().endswith("ok")


@requires_gpu
def test_fuzz_device_arrays_against_numpy_on_the_gpu():
    # The foreign dicts' window lies at the end of a 2 MiB allocation, whose extent the driver reports
    # exactly (a smaller one may be rounded up): past it is past the allocation.
    log = os.path.join(tempfile.mkdtemp(prefix="fuzz-"), "examples.log")
    env = dict(
        os.environ,
        FUZZ_LOG=log,
        FUZZ_MAX_EXAMPLES=str(MAX_EXAMPLES),
        FUZZ_RECORDS=RECORDS,
        FUZZ_BASE=str(2 << 20),
        FUZZ_WINDOW="end",
        PYTHONPATH=os.pathsep.join([ROOT, HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
    )
    done = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", GPU_PRELUDE + PROPERTIES + 'print("ok")'],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    if done.returncode != 0:
        _fail_with_log(done.returncode, done.stdout + done.stderr, log)
    assert done.stdout.strip().endswith("ok")
