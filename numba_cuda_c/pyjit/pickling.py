"""How a kernel leaves this process: its Python function pickled by reference where another process can import it,
else by value (cloudpickle), which launch configurations pickle at all (on the default stream only), and the values
a closure captured, as the disk cache keys them."""

import pickle
import sys


def _lookup(module, qualname):
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _closure_key(func):
    """The values a closure captured, for the disk cache's key (as numba's index keys them): make_closure(3) and
    make_closure(5) share their code, not their kernel. A value that does not pickle is keyed by its repr (a
    process's own, most often: cached for this process only)."""
    import hashlib

    values = []
    for cell in func.__closure__ or ():
        try:
            contents = cell.cell_contents
        except ValueError:  # empty: the function itself while its decorator runs
            values.append(None)
            continue
        try:
            values.append(hashlib.sha256(pickle.dumps(contents)).hexdigest())
        except Exception:  # noqa: BLE001  (anything pickle refuses)
            values.append(repr(contents))
    return tuple(values)


def _importable_module(name):
    """The module `name` where another process can import it by that name: not __main__ (a script's kernels,
    the tutorial's client.submit(kernel[blocks, threads]), travel by value, as cloudpickle and numba send
    them: a Dask worker's or a pool process's __main__ is another program)."""
    return None if name in (None, "", "__main__", "__mp_main__") else sys.modules.get(name)


def _function_payload(func):
    """func itself where pickle finds it by reference (a module-level function of an importable module), else
    its pickle by value through cloudpickle (a script's function, one made in a function, a lambda, a closure),
    with its definition as read here: the other process may have no file to read it from (another machine, a
    deleted script), and cloudpickle 3.1 names the code's file "<dynamic-code>" anyway."""
    module = _importable_module(getattr(func, "__module__", None))
    if module is not None and _lookup(module, func.__qualname__) is func:
        return func
    for name in ("cloudpickle", "numba.cloudpickle"):
        try:
            cloudpickle = __import__(name, fromlist=["dumps"])
        except ImportError:
            continue
        return ("by value", cloudpickle.dumps(func), _definition_or_none(func))
    raise pickle.PicklingError(
        "%s is defined inside a function: pickling it needs cloudpickle (pip install cloudpickle), or define "
        "it at module level" % func.__qualname__
    )


def _definition_or_none(func):
    """function_definition(func), or None where it cannot be read (the other process then reads the bytecode,
    and raises there what it cannot read, when the kernel compiles)."""
    from numba_cuda_c.pyjit.source import function_definition
    from numba_cuda_c.pyjit.typing import KernelTypeError

    try:
        return function_definition(func)
    except (KernelTypeError, OSError, TypeError):
        return None


def _function_of_payload(payload):
    """The function _function_payload pickled, with the definition it carried where the sender could read it."""
    if not (isinstance(payload, tuple) and payload[:1] == ("by value",)):
        return payload
    func = pickle.loads(payload[1])
    definition = payload[2] if len(payload) > 2 else None
    if definition is not None and getattr(func, "__ncc_definition__", None) is None:
        func.__ncc_definition__ = definition
    return func


def _is_default_stream(stream):
    if stream is None or (isinstance(stream, int) and stream == 0):
        return True
    handle = getattr(stream, "handle", None)
    value = getattr(handle, "value", handle)
    return value in (0, None)
