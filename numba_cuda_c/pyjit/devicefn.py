"""What the translator needs of a Python function that kernels call: its Python, its declared signatures and
whether it is inlined. A Dispatcher gives one through `__ncc_device_function__` (the protocol: the translator
imports no dispatcher); the translator makes its own for a function calling itself or a @numba.jit function."""

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.typing import KernelTypeError


def normalise(argtypes):
    """Argument types as kernels are keyed: every array layout shares one translation."""
    return tuple(types.Array(t.dtype, t.ndim, "A") if isinstance(t, types.Array) else t for t in argtypes)


def argument_kinds(actual, declared):
    """numba's conversion kind of each argument (typing.EXACT ... UNSAFE; None: not passed that way): numbers
    by numba's rules, an int for a pointer unsafely, anything else only as itself."""
    kinds = []
    for a, d in zip(actual, declared):
        if isinstance(d, types.CPointer):
            kinds.append(
                typing.EXACT
                if a == d
                else typing.UNSAFE
                if isinstance(a, types.Scalar) and a.kind in "iu"
                else None
            )
        else:
            kinds.append(typing.conversion(a, d))
    return kinds


class DeviceFunction:
    """py_func; declared: its declared Signatures (calls convert to them; shared with the dispatcher, which adds
    to it); inline: forceinline, or numba's inline="always"."""

    def __init__(self, py_func, declared=None, inline=False, dispatcher=False):
        self.py_func = py_func
        self.declared = declared if declared is not None else []
        self.inline = inline
        self.dispatcher = dispatcher  # a @cuda.jit device function's (numba's messages name its dispatcher)

    def numba_type_text(self):
        """The callee as numba's typing errors name it."""
        return ("type(CUDADispatcher(%r))" if self.dispatcher else "Function(%r)") % self.py_func

    def declared_signature(self, argtypes):
        """The declared signature a call with these argument types uses: the one whose conversions cost least
        (numba's rating; of equally good ones the first, as numba's typing picks). None where no signature was
        declared (the call is then typed from its arguments)."""
        if not self.declared:
            return None
        argtypes = normalise(argtypes)
        best = typing.best_signatures(
            [s.args for s in self.declared],
            lambda declared: argument_kinds(argtypes, declared) if len(declared) == len(argtypes) else None,
        )
        if best:
            return next(s for s in self.declared if s.args == best[0])
        raise KernelTypeError(
            "Invalid use of type device function %s with parameters (%s): no declared signature takes them "
            "(declared: %s)"
            % (self.py_func.__name__, ", ".join(map(str, argtypes)), ", ".join(map(str, self.declared)))
        )
