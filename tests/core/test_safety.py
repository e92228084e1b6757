"""Memory safety and destruction (issue 10): sizes checked before the driver, objects allocated with
their final type, module state found for subclasses, deallocs that keep the exception in flight,
MemoryPointer in the garbage collector, and objects of a closed context."""

import gc
import re
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c.cudadrv.devicearray import DeviceNDArray, DeviceRecord
from subproc import run_python

TOO_BIG = "too big|span more bytes"  # NumPy's message for sizes, ours for the span of strides
RECORD = np.dtype([("a", np.int32), ("b", np.float64)])


class LikeArray:
    """An array-like with only shape, dtype and strides, as device_array_like reads them."""

    def __init__(self, shape, dtype, strides=None):
        self.shape, self.dtype, self.strides = shape, np.dtype(dtype), strides


# Sizes: every element count and span is checked for overflow, as NumPy does, before any driver call
# (so these run without a GPU, and on one allocate nothing).


@pytest.mark.parametrize(
    "make",
    [
        lambda: cuda.device_array((2**61 + 1, 8), np.uint8),
        lambda: cuda.device_array((2**32, 2**32), np.float32),
        lambda: cuda.device_array((0, 2**62), np.float64),  # NumPy refuses it even though it is empty
        lambda: cuda.device_array((2, 2), np.uint8, strides=(2**62, 2**62)),  # the span overflows
        lambda: cuda.device_array_like(LikeArray((2**61 + 1, 8), np.uint8)),
        lambda: DeviceNDArray((2**61 + 1, 8), None, np.uint8),
        lambda: DeviceNDArray((3,), (2**62,), np.float64),
        lambda: cuda.pinned_array((2**61 + 1, 8), np.uint8),
        lambda: cuda.mapped_array((2**32, 2**32), np.float32),
        lambda: cuda.managed_array((2**61 + 1, 8), np.uint8),
        lambda: cuda.from_cuda_array_interface(
            {"shape": (2**61 + 1, 8), "typestr": "|u1", "data": (1 << 20, False), "version": 3}
        ),
        lambda: cuda.from_cuda_array_interface(
            {"shape": (2, 2), "strides": (2**62, 2**62), "typestr": "<f4", "data": (1 << 20, False), "version": 3}
        ),
    ],
)
def test_shapes_too_big_for_memory_are_refused(make):
    with pytest.raises(ValueError, match=TOO_BIG):
        make()


def test_the_limit_is_numpys():
    # the largest sizes NumPy allows pass the check: they fail for want of a driver or of memory
    for make in (
        lambda: cuda.device_array(2**63 - 1, np.uint8),
        lambda: cuda.device_array((2**31, 2**31 - 1), np.uint8),
        lambda: DeviceNDArray((2**62,), None, np.uint8),
    ):
        with pytest.raises((cuda.CudaSupportError, cuda.CudaAPIError)):
            make()


# Subclasses find the module state through their base (PyType_GetModuleByDef); they used to crash.


class Sub(DeviceNDArray):
    pass


class SubRecord(DeviceRecord):
    pass


def test_subclass_constructor_reaches_the_checks_and_the_driver():
    with pytest.raises(ValueError, match=TOO_BIG):
        Sub((2**61 + 1, 8), None, np.uint8)
    if not cuda.is_available():
        with pytest.raises(cuda.CudaSupportError):
            Sub((4,), None, np.float32)
        with pytest.raises(cuda.CudaSupportError):
            SubRecord(RECORD)
        return
    a = Sub((4,), None, np.float32, cuda.stream())
    assert type(a) is Sub and a.shape == (4,)
    assert type(SubRecord(RECORD)) is SubRecord


def test_device_record_takes_numbas_signature():
    with pytest.raises(TypeError):
        DeviceRecord(RECORD, 0, None, "one too many")
    if not cuda.is_available():
        for make in (lambda: DeviceRecord(RECORD), lambda: DeviceRecord(RECORD, stream=0, gpu_data=None)):
            with pytest.raises(cuda.CudaSupportError):  # not TypeError: the arguments were accepted
                make()
        return
    for record in (DeviceRecord(RECORD), DeviceRecord(dtype=RECORD, stream=0, gpu_data=None)):
        assert type(record) is DeviceRecord
        assert (record.shape, record.strides, record.dtype) == ((), (), RECORD)


def test_memory_pointer_takes_part_in_garbage_collection():
    Py_TPFLAGS_HAVE_GC = 1 << 14
    assert cuda._cuda.MemoryPointer.__flags__ & Py_TPFLAGS_HAVE_GC


# PyUnicode_FromFormat and PyErr_Format lack %llx, %lx, %zx (any length modifier on x), %X, %o and
# floats before Python 3.12: they printed "at 0x%llx" literally on 3.10 and 3.11, which we support.

FORMAT_CALLS = re.compile(r"\b(PyUnicode_FromFormat|PyErr_Format|PyErr_WarnFormat|PyBytes_FromFormat)\s*\(")
CONVERSION = re.compile(r"%([-0 #+]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t)?([a-zA-Z%])")
PORTABLE = {  # conversion -> the length modifiers Python 3.10 accepts with it
    "d": {None, "l", "ll", "z"},
    "i": {None, "l", "ll", "z"},
    "u": {None, "l", "ll", "z"},
    "x": {None},
    "c": {None},
    "s": {None},
    "p": {None},
    "A": {None},
    "U": {None},
    "V": {None},
    "S": {None},
    "R": {None},
    "%": {None},
}


def format_strings():
    src = Path(__file__).resolve().parent.parent.parent / "src"
    for path in sorted(src.rglob("*.c")):
        text = path.read_text()
        for call in FORMAT_CALLS.finditer(text):
            depth, end = 1, call.end()
            while depth and end < len(text):
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            literal = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text[call.end() : end]))
            yield "%s:%d" % (path.name, text.count("\n", 0, call.start()) + 1), literal


def test_format_strings_work_on_every_supported_python():
    found = list(format_strings())
    assert len(found) > 50  # the scan sees the calls
    bad = [
        (where, spec.group(0))
        for where, literal in found
        for spec in CONVERSION.finditer(literal)
        if spec.group(4) not in PORTABLE.get(spec.group(5), set())
    ]
    assert bad == []


# On a GPU.


@requires_gpu
def test_records_keep_the_type_refcounts():
    host = np.zeros((), RECORD)
    array = cuda.to_device(np.zeros(3, RECORD))
    gc.collect()
    before = sys.getrefcount(DeviceRecord), sys.getrefcount(DeviceNDArray)
    for _ in range(300):
        for record in (cuda.to_device(host), DeviceRecord(RECORD), array[1]):
            assert type(record) is DeviceRecord
            del record
    gc.collect()
    assert (sys.getrefcount(DeviceRecord), sys.getrefcount(DeviceNDArray)) == before


@requires_gpu
def test_subclass_instances_behave_as_device_arrays():
    host = np.arange(6, dtype=np.float32)
    a = Sub((6,), None, np.float32, cuda.stream())
    a.copy_to_device(host)
    assert type(a[2:]) is Sub and type(a.reshape(2, 3)) is Sub
    np.testing.assert_array_equal(a[2:].copy_to_host(), host[2:])
    del a
    gc.collect()


@requires_gpu
def test_reshape_and_gpu_data_too_big():
    d = cuda.device_array(8, np.uint8)
    for shape in [(2**61 + 1, 8), (-1, 2**62, 8), (2**63 - 1, 2)]:
        with pytest.raises(ValueError, match=TOO_BIG):
            d.reshape(*shape)
    assert d.reshape(2, -1).shape == (2, 4)
    with pytest.raises(ValueError, match="beyond gpu_data"):
        DeviceNDArray((100,), None, np.float64, gpu_data=d.gpu_data)
    assert DeviceNDArray((2,), None, np.float32, gpu_data=d.gpu_data).shape == (2,)


@requires_gpu
def test_reprs_show_the_address():
    d = cuda.device_array(4, np.float32)
    for obj in (d, d.gpu_data):
        match = re.search(r" at 0x([0-9a-f]+)>$", repr(obj))
        assert match is not None, repr(obj)
        assert int(match.group(1), 16) == d.device_pointer


@requires_gpu
def test_a_free_in_dealloc_keeps_the_exception_in_flight():
    # with the pool, a failed to_device frees its new memory at once while the TypeError is in flight;
    # reporting that through the unraisable hook with the dying MemoryPointer freed it twice (abort)
    out = run_python(
        """
        import sys
        import numpy as np
        import numba_cuda_c as cuda
        seen = []
        sys.unraisablehook = lambda report: seen.append(report)
        cuda._cuda._use_memory_pool(True)
        for _ in range(20):
            try:
                cuda.to_device(np.zeros(4), stream="not a stream")
            except TypeError as error:
                assert "stream" in str(error)
            else:
                raise AssertionError("no TypeError")
        assert seen == [], seen
        print("kept")
        """
    )
    assert "kept" in out


@requires_gpu
def test_cycles_through_memory_manager_objects_are_collected():
    from numba_cuda_c import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryPointer

    backing = cuda.device_array(1 << 16, np.uint8)  # before the plugin: memory it can hand out
    base, handed = backing.device_pointer, []
    freed = []

    class BumpManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
        used = 0

        def initialize(self):
            pass

        def memalloc(self, size):
            pointer = MemoryPointer(
                self.context, base + BumpManager.used, size, owner=backing, finalizer=lambda: freed.append(size)
            )
            BumpManager.used += (size + 255) // 256 * 256
            handed.append(weakref.ref(pointer))
            return pointer

        def get_memory_info(self):
            return (0, 0)

        @property
        def interface_version(self):
            return 1

    cuda.set_memory_manager(BumpManager)
    try:
        d = cuda.device_array(16, np.uint8)
        pointer = handed[-1]()
        pointer.array = d  # array -> MemoryPointer -> plugin pointer -> array: a cycle
        del d, pointer
        gc.collect()
        assert handed[-1]() is None and freed == [16]
    finally:
        cuda.set_memory_manager(None)


@requires_gpu
def test_host_arrays_outlive_close_and_dead_objects_raise():
    out = run_python(
        """
        import numpy as np
        import pytest
        import numba_cuda_c as cuda
        pinned = cuda.pinned_array(1000, np.float64)
        pinned[:] = 7
        mapped = cuda.mapped_array((10, 10), np.int32)
        mapped[:] = 3
        portable = cuda.mapped_array(8, np.int64, portable=True)
        portable[:] = 5
        wc = cuda.mapped_array(3000, np.float32, wc=True)  # cuMemHostAlloc's, which dies with the context
        wc[:] = 4
        managed = cuda.managed_array(5000, np.int64)
        managed[:] = np.arange(5000)
        small_wc = [cuda.mapped_array(3, np.int16, wc=True) for _ in range(8)]  # pages shared with neighbours
        for i, a in enumerate(small_wc):
            a[:] = i
        d = cuda.to_device(np.arange(4.0))
        stream = cuda.stream()
        cuda.close()
        assert pinned.sum() == 7000 and mapped.sum() == 300 and portable.sum() == 40
        assert wc.sum() == 12000 and managed.sum() == 5000 * 4999 // 2
        assert [int(a.sum()) for a in small_wc] == [3 * i for i in range(8)]
        del small_wc[::2]
        assert [int(a.sum()) for a in small_wc] == [3 * i for i in range(1, 8, 2)]
        managed[:] = 1
        assert managed.sum() == 5000
        pinned[:] = 1
        assert pinned.sum() == 1000
        host = np.zeros(4)
        fresh = cuda.device_array(4)
        kernel = cuda.SourceModule('extern "C" __global__ void k(double *x) { x[0] = 1; }').get_function("k")
        calls = [
            lambda: d.copy_to_host(),
            lambda: d.copy_to_device(host),
            lambda: fresh.copy_to_device(d),
            lambda: d.__setitem__(slice(None), 1.0),
            lambda: fresh.__setitem__(slice(None), d),
            lambda: d.get_ipc_handle(),
            lambda: cuda.to_device(host, stream=stream),
            lambda: kernel[1, 1](d),
        ]
        for call in calls:
            with pytest.raises(cuda.CudaDriverError, match="reset or closed"):
                call()
        kernel[1, 1](fresh)
        assert fresh.copy_to_host()[0] == 1
        del pinned, mapped, portable, wc, managed, small_wc, d, stream
        import gc; gc.collect()
        print("after close ok")
        """
    )
    assert "after close ok" in out
