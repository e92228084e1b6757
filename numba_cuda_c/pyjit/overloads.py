"""Functions implemented with numba's @overload (numba.cuda.extending / numba.core.extending), called from kernels.

numba's overload decorator registers a typing template in numba's registry; the function it decorates is given
numba's types of a call's arguments and returns the Python function that implements the call (or None: not for
these types). Where numba's registry is loaded (a program that uses numba's overloads imports numba), a kernel's
call of such a function asks that function, with numba's types made from ours, and translates the implementation it
returns as a device function. Overloads for the "cuda" target come before "generic" ones; "cpu" ones are not for
kernels. numba is never imported here.
"""

import sys

from numba_cuda_c import types

_REGISTRIES = ("numba.cuda.typing.templates", "numba.core.typing.templates")
_TYPE_MODULES = ("numba.cuda.types", "numba.core.types")
_TARGET_ORDER = {"cuda": 0, "generic": 1}


def _templates(func):
    """numba's overload templates registered for func, cuda's first."""
    found = []
    for module_name in _REGISTRIES:
        registry = getattr(sys.modules.get(module_name), "builtin_registry", None)
        for registered, function_type in getattr(registry, "globals", ()):
            if registered is not func:
                continue
            for template in getattr(function_type, "templates", ()):
                overload_func = getattr(template, "_overload_func", None)
                target = (getattr(template, "metadata", None) or {}).get("target", "generic")  # numba's default
                if overload_func is not None and target in _TARGET_ORDER and template not in found:
                    found.append(template)
    found.sort(key=lambda t: _TARGET_ORDER[(getattr(t, "metadata", None) or {}).get("target", "generic")])
    return found


def _numba_types():
    for name in _TYPE_MODULES:
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "Array"):
            return module
    return None


def to_numba(t, nt):
    """Our type as numba's (types module nt); None where there is none to give."""
    if isinstance(t, types.Array):
        dtype = to_numba(t.dtype, nt)
        return None if dtype is None else nt.Array(dtype, t.ndim, t.layout)
    if isinstance(t, types.Tuple):
        items = [to_numba(item, nt) for item in t.items]
        return None if any(i is None for i in items) else nt.Tuple(items)
    if t == types.none:
        return nt.none
    if isinstance(t, types.Scalar):
        if t.kind in "Mm":
            return (nt.NPDatetime if t.kind == "M" else nt.NPTimedelta)(t.unit)
        return getattr(nt, "boolean" if t.name == "bool" else t.name, None)
    return None


def implementation(func, argtypes, keyword_types, constants=()):
    """The Python function numba's @overload gives for func called with these types (a list, and a dict for
    keyword arguments), or None where func has no overload for kernels that takes them. constants: the
    arguments' values known when compiling (None where not): as numba, an overload that refuses the types is
    asked again with literal types for those (IntegerLiteral, ...)."""
    module = getattr(func, "__module__", None) or ""
    if module.split(".")[0] in ("numpy", "numba", "math", "cmath", "builtins"):
        return None  # numba's own implementations of NumPy and Python, written for numba's compiler
    templates = _templates(func)
    nt = _numba_types() if templates else None
    if nt is None:
        return None
    args = [to_numba(t, nt) for t in argtypes]
    kwargs = {k: to_numba(t, nt) for k, t in keyword_types.items()}
    if any(a is None for a in args) or any(v is None for v in kwargs.values()):
        return None
    attempts = [args]
    literal = getattr(nt, "literal", None)
    if literal is not None and any(c is not None for c in constants):
        attempts.append([_literal(literal, c, a) for c, a in zip(list(constants) + [None] * len(args), args)])
    for arguments in attempts:
        for template in templates:
            result = template._overload_func(*arguments, **kwargs)
            if isinstance(result, tuple):  # (signature, implementation): numba's form for imprecise types
                result = result[-1]
            if result is not None:
                return result
    return None


def _literal(literal, value, fallback):
    if value is None or isinstance(value, complex):
        return fallback
    try:
        return literal(value)
    except Exception:  # noqa: BLE001  (a value numba has no literal type for)
        return fallback
