"""No class of the package is over 60 methods and properties, counting what it inherits from the package's own
classes (the translator's passes are built from mixins: each mixin's methods count in the pass). A class that grows
past that is a sign to split it by what its parts are for (docs/ARCHITECTURE.md)."""

import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys

LIMIT = 60


def _package_classes():
    import numba_cuda_c

    for info in pkgutil.walk_packages(numba_cuda_c.__path__, "numba_cuda_c."):
        if ".tests" in info.name or info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (distributed, numba) missing here
            continue
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                yield cls


def _members(cls):
    names = set()
    for base in cls.__mro__:
        if base.__module__.startswith("numba_cuda_c"):
            names |= {k for k, v in vars(base).items() if inspect.isfunction(v) or isinstance(v, property)}
    return names


def _sizes():
    return {"%s.%s" % (cls.__module__, cls.__qualname__): len(_members(cls)) for cls in _package_classes()}


def test_no_class_is_over_the_limit():
    # in a fresh interpreter: importing every module (the simulator's, the alias's) must not change this process
    here = os.path.dirname(os.path.abspath(__file__))
    code = (
        "import sys, json; sys.path.insert(0, %r); import test_class_size as t; print(json.dumps(t._sizes()))"
        % here
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    sizes = json.loads(done.stdout.splitlines()[-1])
    assert "numba_cuda_c.pyjit.passes.EmittingPass" in sizes  # the translator's passes are counted
    over = {name: size for name, size in sizes.items() if size > LIMIT}
    assert not over, over
