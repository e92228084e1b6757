"""Functions implemented with numba's @overload, called from kernels: the overload function is asked with numba's
types of the call's arguments and its implementation is translated as a device function; "cuda" overloads come
before "generic" ones, "cpu" ones are not for kernels. In CI against stand-ins for numba's registry and types; on
the GPU with numba-cuda's own @overload."""

import sys
import types as pytypes

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, numba_cuda_or_skip, requires_gpu
from numba_cuda_c.pyjit import KernelTypeError


class _NumbaType:
    def __init__(self, name):
        self.name = name


class _NumbaArray(_NumbaType):
    def __init__(self, dtype, ndim, layout):
        super().__init__("array(%s, %dd, %s)" % (dtype.name, ndim, layout))
        self.dtype, self.ndim = dtype, ndim


def _template(overload_func, target):
    metadata = {"target": target} if target else {}  # numba.core's overload leaves it out: "generic"
    return type("OverloadTemplate", (), {"_overload_func": staticmethod(overload_func), "metadata": metadata})


def twice(x):
    pass


def cpu_only(x):
    pass


def uses_both(x):
    twice(x)


def uses_cpu_only(x):
    cpu_only(x)


def literal_only(x):
    pass


def uses_literal_only(out):
    out[0] = literal_only(3)


@pytest.fixture
def numba_registry(monkeypatch):
    """numba's registry and types modules as stand-ins: what overloads.py reads where numba is loaded."""
    asked = []

    def ol_twice(x):
        asked.append(x)
        if not isinstance(x, _NumbaArray):
            return None

        def impl(x):
            x[0] *= 2

        return impl

    def ol_cpu(x):
        raise AssertionError("a cpu overload is not asked for kernels")

    def ol_literal(x):  # only for a literal, as numba's IntegerLiteral overloads: asked again with one
        if not x.name.startswith("Literal"):
            return None
        value = int(x.name[len("Literal[") : -1])

        def impl(x):
            return value * 2

        return impl

    registry = pytypes.SimpleNamespace(
        globals=[
            (literal_only, pytypes.SimpleNamespace(templates=(_template(ol_literal, "cuda"),))),
            (twice, pytypes.SimpleNamespace(templates=(_template(ol_twice, None),))),
            (cpu_only, pytypes.SimpleNamespace(templates=(_template(ol_cpu, "cpu"),))),
        ]
    )
    numba_types = pytypes.SimpleNamespace(
        Array=_NumbaArray,
        int64=_NumbaType("int64"),
        none=_NumbaType("none"),
        literal=lambda value: _NumbaType("Literal[%d]" % value),
    )
    monkeypatch.setitem(
        sys.modules, "numba.cuda.typing.templates", pytypes.SimpleNamespace(builtin_registry=registry)
    )
    monkeypatch.setitem(sys.modules, "numba.cuda.types", numba_types)
    return asked


@needs_nvrtc
def test_overloads_are_asked_with_numbas_types(numba_registry):
    ptx, _ = cuda.compile_ptx(uses_both, "void(int64[::1])")
    assert "mul" in ptx or "shl" in ptx  # x[0] *= 2
    assert numba_registry and isinstance(numba_registry[0], _NumbaArray) and numba_registry[0].dtype.name == "int64"
    with pytest.raises(KernelTypeError, match="Untyped global name 'cpu_only'"):
        cuda.compile_ptx(uses_cpu_only, "void(int64[::1])")
    ptx, _ = cuda.compile_ptx(uses_literal_only, "void(int64[::1])")
    assert "6;" in ptx  # literal_only(3) is 3 * 2, the implementation the literal type got


@requires_gpu
def test_numba_overloads_on_the_gpu():
    numba_cuda_or_skip()
    import overload_kernels as ok

    x, out = np.ones(1, np.int64), np.zeros(2, np.int64)
    cuda.jit(ok.kernel)[1, 1](x, out)
    assert x[0] == 2 * 29 and list(out) == [6, 7]
