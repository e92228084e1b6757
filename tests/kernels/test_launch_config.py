"""numba's dispatcher around a launch, on the mock driver (the launch path runs, NVRTC compiles, nothing executes):
the launch configuration current while a launch compiles (numba.cuda.launchconfig), _compile_for_args,
launch-config-sensitive kernels compiled once per configuration, pre_launch_callbacks, argument extensions
(@cuda.jit(extensions=[...])), and the compiled kernels as numba's overloads show them."""

import pytest

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

pytestmark = pytest.mark.usefixtures("mock_driver")

# a kernel defined in a file (the translator reads its source): `kernel(source)` gives a fresh dispatcher
KERNELS = r"""
import os, runpy, tempfile, threading, pickle
from numba_cuda_c import launchconfig

_folder = tempfile.mkdtemp()

def kernel(source, name="f", **options):
    path = os.path.join(_folder, "k%d.py" % len(os.listdir(_folder)))
    with open(path, "w") as f:
        f.write(source)
    return cuda.jit(**options)(runpy.run_path(path)[name])

SET_ONE = "def f(x):\n    x[0] = 1\n"
arr = np.zeros(1, dtype=np.int32)
"""


def _run(snippet):
    """Runs the snippet after KERNELS on the mock driver: it passes where it ends without an exception."""
    out = run_mock([KERNELS, snippet, 'print("snippet done")'])
    assert out.strip().endswith("snippet done")


def test_the_launch_configuration_is_current_while_a_launch_compiles():
    _run(
        r"""
            f = kernel(SET_ONE)
            seen = {}
            original = f._compile_for_args

            def wrapped(*args, **kws):
                seen["config"] = launchconfig.current_launch_config()
                seen["args"] = seen["config"].args
                return original(*args, **kws)

            f._compile_for_args = wrapped
            assert launchconfig.current_launch_config() is None
            f[1, 1](arr)
            config = seen["config"]
            assert config is f[1, 1] and config.dispatcher is f
            assert config.griddim == (1, 1, 1) and config.blockdim == (1, 1, 1) and config.sharedmem == 0
            assert seen["args"][0] is arr
            assert config.args is None  # the arguments of the launch in progress: none now
            assert launchconfig.current_launch_config() is None
            try:
                launchconfig.ensure_current_launch_config()
            except RuntimeError as e:
                assert "No launch config set" in str(e)
            else:
                raise AssertionError("no RuntimeError outside a launch")
            f[1, 1](arr)  # compiled: the launch stays in C, and _compile_for_args is not called again
            seen.clear()
            f[2, 1](arr)  # another configuration finds the same kernel: nothing compiled
            assert seen == {} and len(f.overloads) == 1
        """
    )


def test_capture_compile_config_restores_the_method():
    _run(
        r"""
            f = kernel(SET_ONE)
            original = f._compile_for_args
            with launchconfig.capture_compile_config(f) as capture:
                f[1, 1](arr)
            assert capture["config"].dispatcher is f and capture["config"].blockdim == (1, 1, 1)
            assert "_compile_for_args" not in f.__dict__
            assert f._compile_for_args.__func__ is original.__func__
            try:
                with launchconfig.capture_compile_config(None):
                    pass
            except TypeError as e:
                assert "dispatcher is required" in str(e)
            else:
                raise AssertionError("captured without a dispatcher")
            """
    )


def test_a_launch_config_sensitive_kernel_is_compiled_once_per_configuration():
    _run(
        r"""
            f = kernel(SET_ONE)
            compiled_under = []
            original = f._compile_for_args

            def wrapped(*args, **kws):
                config = launchconfig.ensure_current_launch_config()
                config.dispatcher.mark_launch_config_sensitive()
                compiled_under.append(config.blockdim)
                return original(*args, **kws)

            f._compile_for_args = wrapped
            f[1, 32](arr)
            assert [k.launch_config_sensitive for k in f.overloads.values()] == [True]
            f[1, 32](arr)
            f[1, 64](arr)  # another configuration: a kernel of its own, from a dispatcher of its own
            f[1, 64](arr)
            assert list(f._launch_config_specializations) == [((1, 1, 1), (64, 1, 1), 0)]
            other = f._launch_config_specializations[((1, 1, 1), (64, 1, 1), 0)]
            # compiled by its own _compile_for_args, not the wrapper that marks (numba's: a rewrite marks each)
            assert compiled_under == [(32, 1, 1)], compiled_under
            assert [k.launch_config_sensitive for k in other.overloads.values()] == [False]
            f[1, 32, 0, 0](arr)  # the first configuration again: its kernel
            assert len(f._launch_config_specializations) == 1 and len(f.overloads) == 1
            assert mock.launch()["block"] == (32, 1, 1)

            g = kernel(SET_ONE)
            for marker in (f, g):
                try:
                    marker.mark_launch_config_sensitive()  # no launch in progress
                except RuntimeError as e:
                    assert "No launch config set" in str(e)
                else:
                    raise AssertionError("marked outside a launch")
            h = kernel(SET_ONE)
            original_h = h._compile_for_args

            def marks_another(*args):
                g.mark_launch_config_sensitive()  # not the dispatcher of the launch in progress
                return original_h(*args)

            h._compile_for_args = marks_another
            try:
                h[1, 1](arr)
            except RuntimeError as e:
                assert "active launch configuration's dispatcher" in str(e)
            else:
                raise AssertionError("marked another dispatcher's launch")
            plain = kernel(SET_ONE)
            plain[1, 1](arr)
            assert [k.launch_config_sensitive for k in plain.overloads.values()] == [False]
        """
    )


def test_launch_arguments_are_the_threads_own():
    _run(
        r"""
            f = kernel(SET_ONE)
            configured = f[1, 1]
            barrier = threading.Barrier(2)
            seen, failures = [], []
            original = f._compile_for_args

            def wrapped(*args, **kws):
                config = launchconfig.ensure_current_launch_config()
                barrier.wait(timeout=5)  # both threads are compiling at once
                seen.append(id(config.args[0]))
                return original(*args, **kws)

            f._compile_for_args = wrapped
            arrays = [np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int32)]

            def launch(a):
                try:
                    configured(a)
                except BaseException as e:
                    failures.append(e)

            threads = [threading.Thread(target=launch, args=(a,)) for a in arrays]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=10)
            assert failures == [] and set(seen) == {id(a) for a in arrays}, (failures, seen)
            assert configured.args is None
        """
    )


def test_pre_launch_callbacks_run_before_each_launch():
    _run(
        r"""
            f = kernel(SET_ONE)
            configured = f[5, 8]
            configured(arr)  # compiled and remembered by the C dispatch before any callback
            calls = []

            def first(kernel, config):
                calls.append(("first", kernel.argument_types, config.griddim, config.args[0] is arr,
                              mock.launch_count()))

            def second(kernel, config):
                calls.append(("second", mock.launch_count()))

            configured.pre_launch_callbacks.extend([first, second])
            before = mock.launch_count()
            configured(arr)
            configured(arr)
            assert [c[0] for c in calls] == ["first", "second"] * 2, calls
            assert calls[0][1:] == ((f.signatures[0][0],), (5, 1, 1), True, before)  # before the launch
            assert calls[2][-1] == before + 1 and mock.launch_count() == before + 2
            assert f[5, 8] is configured and f[5, 8].pre_launch_callbacks == [first, second]
            assert f[5, 9].pre_launch_callbacks == []  # each configuration its own
            try:
                pickle.dumps(configured)
            except pickle.PicklingError as e:
                assert "Cannot pickle configured launches with pre-launch callbacks" in str(e)
            else:
                raise AssertionError("pickled a launch with callbacks")
            del configured.pre_launch_callbacks[:]
            configured(arr)
            assert len(calls) == 4
            pickle.loads(pickle.dumps(configured))  # without callbacks it pickles again

            def refuse(kernel, config):
                raise ValueError("not now")

            configured.pre_launch_callbacks.append(refuse)
            count = mock.launch_count()
            try:
                configured(arr)
            except ValueError:
                assert mock.launch_count() == count  # a callback's exception stops the launch
            else:
                raise AssertionError("the callback's exception was lost")
        """
    )


def test_extensions_see_each_argument_last_first():
    _run(
        r"""
            log = []

            class Named:
                def __init__(self, name):
                    self.name = name

                def prepare_args(self, ty, val, stream=None, retr=None):
                    log.append((self.name, ty, stream))
                    retr.append(lambda: log.append(("after " + self.name, mock.launch_count())))
                    return ty, val

            class Doubling:  # passes another array: the kernel sees what the extensions return
                def prepare_args(self, ty, val, stream=None, retr=None):
                    if isinstance(val, np.ndarray):
                        return ty, cuda.In(np.concatenate([val, val]))
                    return ty, val

            extensions = [Named("a"), Named("b")]
            f = kernel("def f(x, n):\n    x[0] = n\n", extensions=extensions)
            assert f.extensions is extensions
            s = cuda.stream()
            configured = f[1, 1, s]
            assert configured.dispatcher is f and configured.griddim == (1, 1, 1)
            assert configured.pre_launch_callbacks == []
            configured(arr, 3)
            launches = mock.launch_count()
            assert [e[0] for e in log] == ["b", "a", "b", "a", "after b", "after a", "after b", "after a"], log
            assert log[0][1:] == (cuda.int32[::1], s) and log[1][1] == cuda.int32[::1]  # numba's layout
            assert log[2][1] == cuda.int64 and log[-1][1] == launches  # after the launch
            del log[:]
            f.extensions.append(Doubling())  # the list is the dispatcher's: later additions count
            mock.reset()
            f[1, 1](arr, 3)
            assert log[0][1] == cuda.int32[::1], log
            # the launch took Doubling's cuda.In(...): copied to the device, not back (a host array goes both ways)
            to_device = mock.calls("cuMemcpyHtoD") + mock.calls("cuMemcpyHtoDAsync")
            to_host = mock.calls("cuMemcpyDtoH") + mock.calls("cuMemcpyDtoHAsync")
            assert (to_device, to_host) == (1, 0), (to_device, to_host)
            assert len(f.overloads) == 1

            declared = kernel("def f(x, n):\n    x[0] = n\n", extensions=[Named("d")])
            declared = cuda.jit("void(int32[::1], float32)", extensions=[Named("d")])(declared.py_func)
            del log[:]
            declared[1, 1](arr, 3)  # the declared signature's types, as numba's kernel gives them
            assert [e[1] for e in log[:2]] == [cuda.int32[::1], cuda.float32], log
        """
    )


def test_overloads_are_numbas_compiled_kernels():
    _run(
        r"""
            f = kernel(
                "import numpy as np\nimport numba_cuda_c as cuda\n\n"
                "def f(x):\n    s = cuda.shared.array(10, dtype=np.int32)\n    s[0] = x[0]\n    x[0] = s[0]\n"
            )
            f[1, 1](arr)
            compiled = next(iter(f.overloads.values()))
            assert compiled is next(iter(f.overloads.values()))  # one object per compiled signature
            assert compiled.argument_types == f.signatures[0] and not compiled.launch_config_sensitive
            assert compiled.get_regs_per_thread() == f.get_regs_per_thread(f.signatures[0])  # the Kernel's own
            assert compiled.name.startswith("ncc_py_f_")  # names.c_symbol's
            annotation = compiled._type_annotation
            assert annotation.typemap["s"].dtype == cuda.int32 and annotation.typemap["s"].ndim == 1
            assert "s: int32[::1]" in str(annotation)
            assert f._compile_for_args(arr) is compiled
            assert f.definitions == dict(f.overloads)
        """
    )
