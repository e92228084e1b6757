"""Pickling, for multiprocessing and Dask (client.submit(kernel[blocks, threads])): device arrays through
the host with their layout intact, @cuda.jit dispatchers (module-level by reference, others by value
through cloudpickle), launch configurations (refused when bound to a stream), SourceModule by its
source. On the mock driver."""

import pickle

import pytest

from gpu import requires_gpu
from mock_driver import ARRAY_LAYOUTS, mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

import numba_cuda_c as cuda


@cuda.jit
def module_kernel(a):
    a[0] = 1


def test_module_level_kernels_and_configurations_pickle_by_reference():
    assert pickle.loads(pickle.dumps(module_kernel)) is module_kernel
    configuration = module_kernel[4, 32]
    assert pickle.loads(pickle.dumps(configuration)) is configuration  # kernel[4, 32] of the same kernel
    again = pickle.loads(pickle.dumps(module_kernel[(2, 2), (8, 8), 0, 128]))
    assert again is module_kernel[(2, 2), (8, 8), 0, 128]


def test_local_kernels_pickle_by_value():
    try:
        import cloudpickle  # noqa: F401  (the test extra installs it)
    except ImportError:
        pytest.importorskip("numba.cloudpickle")  # numba's own copy, which the dispatcher uses too
    scale = 3

    @cuda.jit(fastmath=True, lineinfo=True)
    def local_kernel(a):
        a[0] = scale

    clone = pickle.loads(pickle.dumps(local_kernel))
    assert clone is not local_kernel and clone.py_func.__code__.co_code == local_kernel.py_func.__code__.co_code
    assert clone.py_func.__closure__[0].cell_contents == 3
    assert clone.options == {"fastmath": True, "lineinfo": True} and not clone.specialized


def test_local_kernel_without_cloudpickle_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cloudpickle(name, *args, **kwargs):
        if name in ("cloudpickle", "numba.cloudpickle"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cloudpickle)

    @cuda.jit
    def local_kernel(a):
        a[0] = 1

    with pytest.raises(pickle.PicklingError, match="defined inside a function"):
        pickle.dumps(local_kernel)


def test_arrays_and_stream_bound_configurations(mock_driver):
    out = run_mock(
        ARRAY_LAYOUTS
        + r"""
import pickle
for name, d in cases.items():
    e = pickle.loads(pickle.dumps(d))
    assert type(e) is type(d) and (e.shape, e.strides, e.dtype) == (d.shape, d.strides, d.dtype), name
    np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
    assert d.size == 0 or e.device_ctypes_pointer.value != d.device_ctypes_pointer.value, name
rec = cuda.to_device(np.zeros(1, dtype=[("a", "i4")]))[0]
rec["a"] = 7
clone = pickle.loads(pickle.dumps(rec))
assert type(clone).__name__ == "DeviceRecord" and clone["a"] == 7

import runpy, tempfile, os, textwrap
path = os.path.join(tempfile.mkdtemp(), "pickled_kernels.py")
open(path, "w").write(textwrap.dedent('''
    import numba_cuda_c as cuda

    @cuda.jit
    def kernel(a):
        a[0] = 1
'''))
import sys
sys.path.insert(0, os.path.dirname(path))
import pickled_kernels
s = cuda.stream()
try:
    pickle.dumps(pickled_kernels.kernel[1, 1, s])
except TypeError as e:
    assert "bound to a stream cannot be pickled" in str(e), e
else:
    raise AssertionError("a stream-bound configuration pickled")
assert pickle.loads(pickle.dumps(pickled_kernels.kernel[1, 1, 0])) is pickled_kernels.kernel[1, 1, 0]
print("pickling ok")
"""
    )
    assert "pickling ok" in out


def test_source_module_pickles_as_its_source(mock_driver):
    out = run_mock(r"""
import pickle
from numba_cuda_c.toolchain.compiler import SourceModule
source = 'extern "C" __global__ void k(float *x) { x[0] = 1.0f; }'
module = SourceModule(source, options=["-lineinfo"], name="k.cu")
clone = pickle.loads(pickle.dumps(module))
assert clone is not module and clone.source == source and clone._arguments == module._arguments
clone.get_function("k")
print("source module ok")
""")
    assert "source module ok" in out


def test_configurations_carry_numbas_attributes_through_pickle():
    configuration = pickle.loads(pickle.dumps(module_kernel[5, 8]))
    assert configuration.griddim == (5, 1, 1) and configuration.blockdim == (8, 1, 1)
    assert configuration.stream == 0 and configuration.sharedmem == 0 and configuration.dispatcher is module_kernel
    shaped = module_kernel[(2, 3), [4, 2], 0, 64]
    assert (shaped.griddim, shaped.blockdim, shaped.sharedmem) == ((2, 3, 1), (4, 2, 1), 64)


def test_types_and_signatures_pickle_as_the_same_types():
    import numpy as np

    from numba_cuda_c import types

    interned = [
        types.float32,
        types.boolean,
        types.void,
        types.float32[::1],
        types.int8[:, :],
        types.CPointer(types.uint8),
        types.Record(np.dtype([("a", np.int32)])),
        types.NumberClass(types.float64),
        types.VECTOR_TYPES["float4"],
    ]
    for t in interned:
        assert pickle.loads(pickle.dumps(t)) is t
    for value in (types.UniTuple(types.int32, 2), types.float32(types.float32, types.int64[::1])):
        assert pickle.loads(pickle.dumps(value)) == value


def test_local_ufuncs_pickle_by_value():
    pytest.importorskip("cloudpickle")
    offset = 2.5

    @cuda.vectorize(["float64(float64)", "float32(float32)"])
    def shifted(x):
        return x + offset

    clone = pickle.loads(pickle.dumps(shifted))
    assert clone is not shifted and clone.ntypes == 2 and clone.__name__ == "shifted"
    assert clone.py_func.__closure__[0].cell_contents == 2.5


def test_a_scripts_kernels_travel_by_value():
    """A kernel at the top of a script (module __main__) cannot be found by name in a Dask worker or a spawned
    process, whose __main__ is another program: it pickles by value, as numba's does."""
    pytest.importorskip("cloudpickle")
    import subprocess
    import sys

    from subproc import run_python

    pickled = run_python("""
        import pickle, sys
        import numba_cuda_c as cuda

        @cuda.jit(fastmath=True)
        def script_kernel(a):
            a[0] = 5

        sys.stdout.write(pickle.dumps(script_kernel[4, 32], protocol=0).decode("latin-1"))
    """)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "\n".join(
                [
                    "import pickle, sys",
                    "configuration = pickle.loads(sys.stdin.read().encode('latin-1'))",
                    "assert configuration.griddim == (4, 1, 1) and configuration.blockdim == (32, 1, 1)",
                    "kernel = configuration.dispatcher",
                    "assert kernel.py_func.__name__ == 'script_kernel' and kernel.options == {'fastmath': True}",
                    "print('by value ok')",
                ]
            ),
        ],
        input=pickled,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "by value ok" in done.stdout, done.stdout + done.stderr


def test_mapped_and_managed_arrays_come_back_in_memory_of_their_kind(mock_driver):
    out = run_mock(r"""
import pickle
for make in (cuda.mapped_array, cuda.managed_array):
    for order in ("C", "F"):
        a = make((3, 4), dtype=np.int32, order=order)
        a[...] = np.arange(12).reshape(3, 4)
        b = pickle.loads(pickle.dumps(a, protocol=5))
        assert type(b) is type(a) and b.flags["F_CONTIGUOUS"] == (order == "F"), (make, order)
        np.testing.assert_array_equal(b, a)
        assert b.device_pointer != a.device_pointer and b.__cuda_array_interface__["shape"] == (3, 4)
    view = pickle.loads(pickle.dumps(a[:, ::2]))
    assert type(view) is type(a) and view.shape == (3, 2) and view.device_pointer
print("host arrays ok")
""")
    assert "host arrays ok" in out


@requires_gpu
def test_every_dtype_and_layout_round_trips_on_the_gpu():
    """On the GPU: device arrays of every dtype our arrays take, in every layout (C, F, gaps, reversed axes,
    broadcast, 0-d, empty), and mapped and managed arrays, through pickle; the data and layout intact."""
    import numpy as np

    dtypes = [
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        "M8[ns]",
        "m8[s]",
        np.dtype([("a", "i4"), ("b", "f8"), ("c", "u1", (3,))]),
    ]
    for dtype in map(np.dtype, dtypes):
        base = np.arange(60).reshape(3, 4, 5).astype(dtype) if dtype.fields is None else np.zeros((3, 4, 5), dtype)
        if dtype.fields is not None:
            base["a"] = np.arange(60).reshape(3, 4, 5)
        layouts = {
            "C": cuda.to_device(base),
            "F": cuda.to_device(np.asfortranarray(base)),
            "gaps": cuda.to_device(base)[::2, 1:, ::2],
            "reversed": cuda.to_device(base)[::-1, :, ::-2],
            "broadcast": cuda.to_device(np.broadcast_to(base[0, 0], (4, 5))),
            "0-d": cuda.to_device(base[1, 2, 3:4]).reshape(()),
            "empty": cuda.device_array((0, 3), dtype),
        }
        for name, d in layouts.items():
            e = pickle.loads(pickle.dumps(d, protocol=5))
            assert (e.shape, e.strides, e.dtype) == (d.shape, d.strides, d.dtype), (dtype, name)
            np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host(), err_msg="%s %s" % (dtype, name))
    for make in (cuda.mapped_array, cuda.managed_array):
        a = make((3, 4), dtype=np.float32, order="F")
        a[...] = np.arange(12).reshape(3, 4)
        b = pickle.loads(pickle.dumps(a))
        assert type(b) is type(a) and b.flags["F_CONTIGUOUS"]
        np.testing.assert_array_equal(b, a)


def test_a_kernel_by_value_carries_its_definition(tmp_path):
    """A kernel pickled by value carries its definition as read where it was pickled: the process that compiles it
    may have no file to read (another machine, a script since deleted; cloudpickle 3.1 even names the code's file
    "<dynamic-code>"), and a loop is more than the bytecode reader rebuilds."""
    pytest.importorskip("cloudpickle")
    import subprocess
    import sys

    script = tmp_path / "sender.py"
    script.write_text(
        "import pickle, sys\n"
        "import numba_cuda_c as cuda\n"
        "\n"
        "@cuda.jit\n"
        "def summed(a, out):\n"
        "    total = 0.0\n"
        "    for i in range(a.size):\n"
        "        total += a[i]\n"
        "    out[0] = total\n"
        "\n"
        "sys.stdout.write(pickle.dumps(summed, protocol=0).decode('latin-1'))\n"
    )
    sent = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert sent.returncode == 0, sent.stderr
    script.unlink()
    received = subprocess.run(
        [
            sys.executable,
            "-c",
            "\n".join(
                [
                    "import pickle, sys",
                    "import numba_cuda_c as cuda",
                    "kernel = pickle.loads(sys.stdin.read().encode('latin-1'))",
                    "ptx, _ = cuda.compile_ptx(kernel.py_func, 'void(float64[::1], float64[::1])')",
                    "print('compiled', 'summed' in ptx)",
                ]
            ),
        ],
        input=sent.stdout,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "compiled True" in received.stdout, received.stdout + received.stderr
