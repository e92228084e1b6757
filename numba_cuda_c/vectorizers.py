"""numba.cuda.vectorizers: what numba's own decorators call for target='cuda'.

    from numba import vectorize, guvectorize

    @vectorize(['float32(float32, float32)'], target='cuda')
    def add(a, b): ...

numba's CPU package (numba/np/ufunc/decorators.py) finds the 'cuda' target by importing
numba.cuda.vectorizers.CUDAVectorize (and CUDAGUFuncVectorize for guvectorize), then builds the ufunc:

    builder = CUDAVectorize(func, identity=..., cache=..., targetoptions={...})
    builder.add(sig) for each signature;  builder.disable_compile();  builder.build_ufunc()

Under numba_cuda_c.alias numba.cuda is this package, so these builders make the ufuncs of
numba_cuda_c.vectorize / guvectorize (ufunc.py, gufunc.py): host, device and CUDA-array-interface arrays,
out=, stream=, numbers broadcast, every signature of the list. The options are checked as numba-cuda's
builders check them (numba_cuda/numba/cuda/deviceufunc.py), with its exceptions and words.
"""

import warnings

# numba's identity values (PyUFunc_Zero, _One, _None, _ReorderableNone), looked up as numba-cuda looks them up
_IDENTITIES = {0: 0, 1: 1, None: None, "reorderable": "reorderable"}


def _check_identity(identity):
    try:
        return _IDENTITIES[identity]
    except KeyError:
        raise ValueError("Invalid identity value %r" % (identity,)) from None


class _Builder:
    """What both builders share: the Python function, its identity and the signatures added."""

    def __init__(self, func, identity, cache):
        if cache:
            raise TypeError("caching is not supported")
        self.py_func = func
        self.identity = _check_identity(identity)
        self.signatures = []

    @property
    def pyfunc(self):
        return self.py_func

    def add(self, sig=None):
        """One more signature (a string such as 'float32(float32, float32)', or numba's or our Signature)."""
        if sig is None:
            raise TypeError("%s needs a signature: the CUDA target compiles no signature at call time" % self.name)
        self.signatures.append(sig)

    def disable_compile(self):
        """numba calls this once the signatures are given: a CUDA ufunc never compiles at call time anyway."""

    @property
    def name(self):
        return type(self).__name__


class CUDAVectorize(_Builder):
    """numba's vectorize(..., target='cuda'): a numba_cuda_c CUDAUFunc (ufunc.py) of the signatures added."""

    def __init__(self, func, identity=None, cache=False, targetoptions=None):
        super().__init__(func, identity, cache)
        for option in targetoptions or {}:
            if option != "nopython":
                raise KeyError(
                    "Unrecognized options. cuda vectorize target does not support option: '%s'" % option
                )  # numba-cuda's words
            warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=2)

    def build_ufunc(self):
        from numba_cuda_c.ufunc import CUDAUFunc  # the translator: loaded where a ufunc is made

        ufunc = CUDAUFunc(self.py_func, self.signatures)
        ufunc.identity = self.identity
        return ufunc


class CUDAGUFuncVectorize(_Builder):
    """numba's guvectorize(..., layout, target='cuda'): a numba_cuda_c CUDAGUFunc (gufunc.py)."""

    def __init__(self, func, sig, identity=None, cache=False, targetoptions=None, writable_args=()):
        super().__init__(func, identity, cache)
        if writable_args:
            raise TypeError("writable_args are not supported")
        options = dict(targetoptions or {})
        if not options.pop("nopython", True):
            raise TypeError("nopython flag must be True")
        if options:  # numba passes is_dynamic=True where no signature list was given: numba-cuda refuses it too
            raise TypeError(
                "The following target options are not supported: %s" % ", ".join(repr(k) for k in options)
            )
        from numba_cuda_c.gufunc import parse_layout

        self.signature = sig
        self.inputsig, self.outputsig = parse_layout(sig)  # a bad layout is refused here, as numba-cuda does

    def build_ufunc(self):
        from numba_cuda_c.gufunc import CUDAGUFunc

        gufunc = CUDAGUFunc(self.py_func, self.signatures, self.signature)
        gufunc.identity = self.identity
        return gufunc
