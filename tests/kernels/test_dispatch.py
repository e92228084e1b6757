"""The C per-call path of @cuda.jit launches (_cuda.Dispatch), without a GPU: the argument types
become one key, `specialise` runs once per key, and what the key cannot describe goes to Python."""

import collections
import enum
import gc
import sys
import weakref

import numpy as np
import pytest

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c import _cuda


class Recorder:
    """A specialise() that returns a launch stand-in and records its calls."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)
        return lambda *launch_args: ("launched", len(self.calls), launch_args)


def test_specialise_runs_once_per_argument_types():
    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    a32, b32, a64 = np.zeros(3, np.float32), np.ones(5, np.float32), np.zeros(3)
    assert dispatch(a32, 1, 2.5) == ("launched", 1, (a32, 1, 2.5))
    assert dispatch(b32, 7, -1.0) == ("launched", 1, (b32, 7, -1.0))  # same types: no new specialisation
    assert dispatch(a64, 1, 2.5)[1] == 2  # another dtype
    assert dispatch(a32.reshape(3, 1), 1, 2.5)[1] == 3  # another number of dimensions
    assert dispatch(a32, True, 2.5)[1] == 4  # bool is not int
    assert dispatch(a32, 1, 2.5j)[1] == 5  # nor is complex float
    assert dispatch(a32, np.float32(1), 2.5)[1] == 6  # NumPy scalars by dtype
    assert dispatch(a32, np.float16(1), 2.5)[1] == 7
    assert len(recorder.calls) == 7 and len(dispatch.configs) == 7


def test_arguments_without_a_key_always_ask_python():
    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    point = collections.namedtuple("point", "x y")(1, 2)  # converted to a tuple: typed in Python each time
    dispatch(point)
    dispatch(point)
    dispatch(object())  # whatever the key cannot describe: Python decides (here, it accepts)
    dispatch(object())
    assert len(recorder.calls) == 4 and len(dispatch.configs) == 0


def test_records_are_keyed_by_their_dtype():
    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    rec_x = np.dtype([("x", np.int32)])
    rec_xy = np.dtype([("x", np.int32), ("y", np.float64)])
    dispatch(np.zeros(2, dtype=rec_x))
    dispatch(np.ones(5, dtype=np.dtype([("x", np.int32)])))  # an equal dtype: the same key
    assert len(recorder.calls) == 1
    dispatch(np.zeros(2, dtype=rec_xy))  # another structure
    dispatch(np.zeros((2, 2), dtype=rec_x))  # another number of dimensions
    dispatch(np.zeros(2, dtype=rec_x)[0])  # a NumPy record (np.void), copied at launch: not an array
    dispatch(np.zeros(2, dtype=rec_xy)[1])
    dispatch(np.zeros(1, dtype=rec_xy)[0])
    assert len(recorder.calls) == 5 and len(dispatch.configs) == 5


def test_datetimes_and_byte_orders_are_keyed_by_their_dtype():
    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    dispatch(np.zeros(2, "M8[s]"))
    dispatch(np.zeros(3, "M8[s]"))
    dispatch(np.zeros(2, "M8[ms]"))  # the unit is part of the type
    dispatch(np.datetime64(1, "s"))
    dispatch(np.datetime64(2, "s"))
    dispatch(np.zeros(2, ">f4"))  # another byte order: another dtype
    dispatch(np.zeros(2, "<f4"))
    assert len(recorder.calls) == 5


def test_enum_members_are_keyed_by_their_value_type():
    class Color(enum.Enum):
        RED = 1
        GREEN = 2
        HALF = 0.5

    class Shape(enum.IntEnum):
        CIRCLE = 1

    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    dispatch(Color.RED)
    dispatch(Color.GREEN)  # passed as its value: an int, as RED's
    dispatch(Shape.CIRCLE)  # an int too, converted the same way
    assert len(recorder.calls) == 1
    dispatch(Color.HALF)  # a float value
    dispatch(1)  # a plain int is not a member (no conversion at launch)
    assert len(recorder.calls) == 3 and len(dispatch.configs) == 3

    class Named(enum.Enum):
        A = "a"

    dispatch(Named.A)  # not a number: Python types (and refuses) it each time
    dispatch(Named.A)
    assert len(recorder.calls) == 5 and len(dispatch.configs) == 3


def test_errors_propagate_and_keyword_arguments_are_refused():
    def refuse(*args):
        raise TypeError("cannot pass a str to a kernel")

    dispatch = _cuda.Dispatch(refuse)
    with pytest.raises(TypeError, match="cannot pass a str"):
        dispatch(1)
    assert len(dispatch.configs) == 0
    with pytest.raises(TypeError, match="positional arguments only"):
        dispatch(1, x=2)
    with pytest.raises(TypeError, match="callable"):
        _cuda.Dispatch(3)


def test_callbacks_make_every_call_ask_python_and_more_lends_attributes():
    """While the callbacks list (numba's pre_launch_callbacks) holds any, every call asks specialise (which runs
    them); emptied, calls find their LaunchConfig in C again. `more` answers for attributes a Dispatch lacks."""

    class More:
        args = ("the", "arguments")

    recorder = Recorder()
    callbacks = []
    dispatch = _cuda.Dispatch(recorder, None, None, callbacks=callbacks, more=More())
    dispatch(1)
    dispatch(2)
    assert len(recorder.calls) == 1
    callbacks.append(print)
    dispatch(3)
    dispatch(4)
    assert len(recorder.calls) == 3 and dispatch.pre_launch_callbacks is callbacks
    callbacks.clear()
    dispatch(5)
    assert len(recorder.calls) == 3
    assert dispatch.args == ("the", "arguments") and dispatch.configs is not None
    with pytest.raises(AttributeError, match="griddim"):
        dispatch.griddim  # its own attribute, made without info: not More's
    with pytest.raises(AttributeError):
        dispatch.nothing
    with pytest.raises(AttributeError, match="pre_launch_callbacks"):
        _cuda.Dispatch(recorder).pre_launch_callbacks
    with pytest.raises(TypeError, match="callbacks is a list"):
        _cuda.Dispatch(recorder, callbacks=(print,))


def test_no_reference_leaks():
    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    a = np.zeros(4, np.float32)
    dispatch(a, 1)
    before = sys.getrefcount(a), sys.getrefcount(recorder)
    for _ in range(1000):
        dispatch(a, 1)
    assert (sys.getrefcount(a), sys.getrefcount(recorder)) == before


def test_a_cycle_through_the_specialiser_is_collected():
    recorder = Recorder()
    recorder.dispatch = _cuda.Dispatch(recorder)  # the dispatcher holds its Dispatch objects, and they it
    recorder.dispatch(1)
    alive = weakref.ref(recorder)
    del recorder
    gc.collect()
    assert alive() is None


def test_tuples_are_keyed_by_their_items_types():
    recorder = Recorder()
    dispatch = _cuda.Dispatch(recorder)
    a32 = np.zeros(3, np.float32)
    dispatch((1, 2.0))
    dispatch((3, -1.5))
    assert len(recorder.calls) == 1
    dispatch((1.0, 2))  # the same items in another order
    dispatch((1, 2.0, 3))  # another length
    dispatch(((1, 2.0), a32))  # nested, with an array
    dispatch(((5, 6.0), np.ones(9, np.float32)))
    dispatch(((5, 6.0), a32.reshape(3, 1)))
    dispatch(())
    dispatch((), ())
    assert len(recorder.calls) == 7 and len(dispatch.configs) == 7
    deep = 1
    for _ in range(20):  # deeper than a key describes: Python types it each time
        deep = (deep,)
    dispatch(deep)
    dispatch(deep)
    assert len(recorder.calls) == 9


def test_specialize_takes_types_and_caches_per_types(mock_driver):
    out = run_mock(r"""
import runpy, tempfile, os
path = os.path.join(tempfile.mkdtemp(), "spec_mod.py")
open(path, "w").write("def f(x, y):\n    pass\n")
f = cuda.jit(runpy.run_path(path)["f"])
assert len(f.specializations) == 0
a = f.specialize(cuda.float32[:], cuda.float32[:])
c = f.specialize(cuda.float32[::1], cuda.float32[::1])
assert len(f.specializations) == 2 and a is not c
assert f.specialize(cuda.float32[::1], cuda.float32[::1]) is c
try:
    c.specialize(cuda.float32[::1], cuda.float32[::1])
except RuntimeError as e:
    assert "Dispatcher already specialized" in str(e)
else:
    raise AssertionError("a specialized dispatcher specialized again")
f[1, 1](np.zeros(3, np.float32), np.zeros(3, np.float32))
regs = f.get_regs_per_thread()  # keyed by signature, found with any layout's types, as numba's
assert regs[(cuda.float32[::1], cuda.float32[::1])] == regs[(cuda.float32[:], cuda.float32[:])]
print("ok")
""")
    assert out.strip().endswith("ok")


def test_argument_hints_and_extensions(mock_driver):
    """cuda.In copies to the device only, cuda.Out back only, cuda.InOut both; numba's extensions see each
    argument first (here turning every host array into cuda.In)."""
    out = run_mock(r"""
import runpy, tempfile, os
path = os.path.join(tempfile.mkdtemp(), "hint_mod.py")
open(path, "w").write("def f(a):\n    a[0] = 3\n")
f = cuda.jit(runpy.run_path(path)["f"])
host = np.arange(4.0)

def copies():
    return mock.calls("cuMemcpyHtoD") + mock.calls("cuMemcpyHtoDAsync"), mock.calls("cuMemcpyDtoH") + mock.calls("cuMemcpyDtoHAsync")

for hint, expected in [(cuda.In, (1, 0)), (cuda.Out, (0, 1)), (cuda.InOut, (1, 1))]:
    f[1, 1](host)  # compiled and loaded: only the hint's copies are counted below
    mock.reset()
    f[1, 1](hint(host))
    assert copies() == expected, (hint.__name__, copies())

class DefaultIn:
    def prepare_args(self, ty, val, **kwargs):
        return ty, cuda.args.wrap_arg(val, default=cuda.In)

f.extensions.append(DefaultIn())
mock.reset()
f[1, 1](host)
assert copies() == (1, 0), copies()
print("ok")
""")
    assert out.strip().endswith("ok")
