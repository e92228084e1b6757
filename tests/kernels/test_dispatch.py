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


# -- ArgumentPlan: what one specialisation's launch does to its arguments (src/launch/argument_plan.c) --------------


def _plan_recorder():
    steps = []

    def launch(*args):
        steps.append(("launch", args))
        return None

    def converter(value, after):
        after.append(lambda: steps.append(("after", value)))
        return value * 10

    return steps, launch, converter


def test_an_argument_plan_converts_casts_keeps_and_flattens_in_order():
    steps, launch, converter = _plan_recorder()
    plan = _cuda.ArgumentPlan(
        launch,
        convert=(0,),
        converter=converter,
        casts=(None, None, float),  # by the call's positions: the third argument, before it is kept
        kept=(0, 2, 3),
        flatten=(2,),  # the third kept argument: a tuple, passed as its leaves
        check=lambda: steps.append(("check",)),
    )
    plan(1, "dropped", 2, ((3, (4,)), 5))
    assert steps == [("launch", (10, 2.0, 3, 4, 5)), ("check",), ("after", 1)]
    assert (plan.convert, plan.kept, plan.flatten, plan.casts[2]) == ((0,), (0, 2, 3), (2,), float)


def test_an_argument_plan_stops_at_the_first_error():
    steps, launch, converter = _plan_recorder()

    def failing(*args):
        raise ValueError("launch failed")

    with pytest.raises(ValueError, match="launch failed"):  # neither the check nor the copies back run
        _cuda.ArgumentPlan(failing, convert=(0,), converter=converter, check=lambda: steps.append("check"))(1)
    assert steps == []

    def check():
        raise RuntimeError("the kernel raised")

    with pytest.raises(RuntimeError, match="the kernel raised"):  # as numba: the exception, no copies back
        _cuda.ArgumentPlan(launch, convert=(0,), converter=converter, check=check)(1)
    assert steps == [("launch", (10,))]
    with pytest.raises(ZeroDivisionError):  # a cast that fails: no launch
        _cuda.ArgumentPlan(launch, casts=(lambda v: 1 / v,))(0)
    with pytest.raises(TypeError, match="specialised for more than 1 arguments"):
        _cuda.ArgumentPlan(launch, kept=(0, 1))(5)
    with pytest.raises(TypeError, match="positional arguments only"):
        _cuda.ArgumentPlan(launch)(x=1)
    assert len(steps) == 1


def test_an_argument_plan_checks_what_it_is_made_of():
    def launch(*args):
        return None

    with pytest.raises(TypeError, match="launch must be callable"):
        _cuda.ArgumentPlan(None)
    with pytest.raises(TypeError, match="needs a converter"):
        _cuda.ArgumentPlan(launch, convert=(0,))
    with pytest.raises(TypeError, match="kept is a tuple of positions"):
        _cuda.ArgumentPlan(launch, kept=[0])
    with pytest.raises(TypeError, match="flatten holds non-negative ints"):
        _cuda.ArgumentPlan(launch, flatten=(-1,))
    with pytest.raises(TypeError, match="casts is a tuple of callables or None"):
        _cuda.ArgumentPlan(launch, casts=(1,))
    with pytest.raises(TypeError, match="check must be callable"):
        _cuda.ArgumentPlan(launch, check=3)


def test_an_argument_plan_leaks_nothing_and_is_collected():
    steps, launch, converter = _plan_recorder()
    plan = _cuda.ArgumentPlan(launch, convert=(0,), converter=converter, flatten=(1,))
    a = np.zeros(3)
    item = (a, (a,))
    plan(1, item)
    steps.clear()
    before = sys.getrefcount(a), sys.getrefcount(item), sys.getrefcount(converter)
    for _ in range(1000):
        plan(1, item)
    steps.clear()
    assert (sys.getrefcount(a), sys.getrefcount(item), sys.getrefcount(converter)) == before

    class Holder:
        def __call__(self, *args):
            return None

    holder = Holder()
    holder.plan = _cuda.ArgumentPlan(holder)  # a cycle: the plan holds its launch, which holds it
    alive = weakref.ref(holder)
    del holder
    gc.collect()
    assert alive() is None


def test_launches_that_need_no_plan_call_their_launch_config(mock_driver):
    """A kernel launched with arguments the C launcher takes as they are keeps the bare LaunchConfig; None, a tuple
    holding arrays, a NumPy record or a declared signature's casts make one ArgumentPlan, whose launch is it."""
    out = run_mock(r"""
import runpy, tempfile, os
path = os.path.join(tempfile.mkdtemp(), "plan_mod.py")
open(path, "w").write("def f(a, t, n):\n    a[0] = 1\n\ndef g(a, x):\n    a[0] = x\n")
module = runpy.run_path(path)
f = cuda.jit(module["f"])
g = cuda.jit("void(float32[:], int32)")(module["g"])
a = cuda.device_array(4, np.float32)
record = np.zeros(1, dtype=[("x", np.float32)])[0]
launcher = f[1, 1]
launcher(a, 1, 2.0)
launcher(a, (a, a), 2.0)
launcher(a, 1, record)
launcher(a, None, record)  # None has no key: Python plans it at each call
kinds = sorted(type(c).__name__ for c in launcher.configs.values())
plans = [c for c in launcher.configs.values() if type(c).__name__ == "ArgumentPlan"]
print(kinds)
print(sorted(str((p.flatten, p.kept, p.convert)) for p in plans))
print(all(type(p.launch).__name__ == "LaunchConfig" for p in plans))
g[1, 1](a, 7)  # a Python int: the declared int32 (its cast)
print(sorted(type(c).__name__ for c in g[1, 1].configs.values()))
""")
    kinds, plans, launches, declared = out.strip().splitlines()[-4:]
    assert kinds == "['ArgumentPlan', 'ArgumentPlan', 'LaunchConfig']"
    assert plans == "['((1,), None, None)', '(None, None, (2,))']"
    assert launches == "True" and declared == "['ArgumentPlan']"
