"""No class of the package has more than 60 methods, those its bases of the package give it counted (the translator's
passes were one object of 180 methods built from 14 mixins; their rules are module functions now)."""

import importlib
import inspect
import pkgutil

import numba_cuda_c

MOST = 60


def _methods(cls):
    """The functions cls has from classes of the package (its own and its bases'), properties not counted."""
    found = set()
    for klass in cls.__mro__:
        if klass.__module__.startswith("numba_cuda_c"):
            found |= {name for name, value in vars(klass).items() if inspect.isfunction(value)}
    return found


def _classes():
    for info in pkgutil.walk_packages(numba_cuda_c.__path__, "numba_cuda_c."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # a module of an optional dependency (Dask's serializers) where it is not installed
            continue
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                yield value


def test_no_class_has_more_than_60_methods():
    sizes = {"%s.%s" % (c.__module__, c.__qualname__): len(_methods(c)) for c in _classes()}
    assert len(sizes) > 100  # the walk found the package's classes
    assert sizes["numba_cuda_c.pyjit.passes.EmittingPass"] > 20
    assert {name: n for name, n in sizes.items() if n > MOST} == {}
