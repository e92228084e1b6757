"""numba's cuda.vectorize: a NumPy-style ufunc whose element function runs on the GPU.

    @cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
    def add(a, b):
        return a + b

    add(x, y)                 # host arrays in: a host array out; a device array in: a device array out
    add(x, y, out=d_out)      # into a device array;  stream=s: on a stream

The element function becomes a device function for each signature; one kernel per signature applies
it to every element of the broadcast inputs (flattened, contiguous). The signature used is the first
whose argument types the inputs' dtypes convert to safely (NumPy's rule), as numba picks ufunc loops.
"""

import numpy as np

from numba_cuda_c import _cuda, stubs, types
from numba_cuda_c.pyjit.devicefn import normalise
from numba_cuda_c.pyjit.dispatcher import _function_of_payload, _function_payload, jit
from numba_cuda_c.reduction import Reduce

BLOCK = 256


def accepts(value, dtype, loop_dtype):
    """Whether a loop takes an argument: its dtype casts safely to the loop's (NumPy's rule), except
    that a Python number is weak (NumPy 2's rule): an int fits any integer or floating loop, a float
    any floating one."""
    kinds = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}.get(type(value))
    if kinds is not None:
        return loop_dtype.kind in kinds
    return np.can_cast(dtype, loop_dtype, "safe")


def _is_number(value):
    """A Python or NumPy number (a scalar argument), as opposed to an array of any kind."""
    return type(value) in (bool, int, float, complex) or isinstance(value, np.generic)


def jit_from_source(source, name, filename, namespace):
    """@cuda.jit of the function `name` that `source` defines (a template of ours), its source registered
    with linecache under `filename` (the translator reads a kernel's source), run in `namespace`."""
    import linecache

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(namespace, cuda=stubs)  # the templates' cuda.grid: the device-side names
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 -- our own templates
    return jit(namespace[name])


def _make_kernel(nin, fn):
    """The kernel applying `fn` to element i of each of nin inputs, into out[i]."""
    names = ", ".join("a%d" % k for k in range(nin))
    items = ", ".join("a%d[i]" % k for k in range(nin))
    source = (
        "def ufunc_kernel(out, %s):\n"
        "    i = cuda.grid(1)\n"
        "    if i < out.size:\n"
        "        out[i] = fn(%s)\n" % (names, items)
    )
    return jit_from_source(source, "ufunc_kernel", "<numba_cuda_c ufunc kernel %d>" % nin, {"fn": fn})


def _inferred_result(pyfunc, argtypes):
    """The type a ufunc's kernel function returns for these argument types (numba's inferred signature)."""
    from numba_cuda_c.pyjit.translate import translate_device  # the translator: when a signature needs it

    _, result = translate_device(pyfunc, normalise(argtypes), "ncc_result_of_" + pyfunc.__name__)
    return result


class CUDAUFunc:
    """The ufunc @cuda.vectorize makes: call it on arrays or numbers."""

    def __init__(self, pyfunc, signatures):
        self.py_func = pyfunc
        self._signatures = list(signatures)  # as given: the ufunc is made again from them where it is unpickled
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.nin = pyfunc.__code__.co_argcount
        self.nout = 1
        self.types = []  # (argument dtypes, result dtype), in the order given
        self._device = jit(device=True)(pyfunc)
        self._kernel = _make_kernel(self.nin, self._device)
        for sig in signatures:
            try:
                signature = types.parse_declared_signature(sig)
            except TypeError:  # argument types only, as numba allows: the result's type is inferred
                signature = types.parse_signature(sig)
                signature = types.Signature(_inferred_result(pyfunc, signature.args), signature.args)
            if len(signature.args) != self.nin:
                raise TypeError(
                    "signature %s has %d arguments; %s takes %d"
                    % (sig, len(signature.args), self.__name__, self.nin)
                )
            self.types.append(([np.dtype(t.dtype) for t in signature.args], np.dtype(signature.return_type.dtype)))

    @property
    def ntypes(self):
        return len(self.types)

    def __reduce__(self):
        """Pickled as its Python function (by reference, or by value through cloudpickle where it is local, as
        @cuda.jit kernels are) and its signatures; compiled again where it is unpickled."""
        return (_rebuild_ufunc, (_function_payload(self.py_func), self._signatures))

    def _loop(self, dtypes, values=()):
        values = values or [None] * len(dtypes)
        # numba's rule first: a loop whose types are exactly the arguments' (a number's as NumPy types it), then
        # one exactly the arrays' (numbers convert): an int64 array picks an int64 loop listed after a float64
        # one. Then NumPy's: the first loop every argument casts to safely (numba-cuda refuses those calls).
        for exact_numbers in (True, False):
            for args, result in self.types:
                if all(
                    d == a if exact_numbers or not _is_number(v) else accepts(v, d, a)
                    for v, d, a in zip(values, dtypes, args)
                ):
                    return args, result
        for args, result in self.types:
            if all(accepts(v, d, a) for v, d, a in zip(values, dtypes, args)):
                return args, result
        raise TypeError(
            "ufunc %s has no loop for the input types (%s); its signatures: %s"
            % (
                self.__name__,
                ", ".join(map(str, dtypes)),
                "; ".join("%s(%s)" % (r, ", ".join(map(str, a))) for a, r in self.types),
            )
        )

    def __call__(self, *args, out=None, stream=0):
        if len(args) != self.nin:
            raise TypeError("%s takes %d arguments, %d given" % (self.__name__, self.nin, len(args)))
        on_device = [_cuda.is_cuda_array(a) for a in args]
        arrays = [_cuda.as_cuda_array(a) if d else np.asarray(a) for a, d in zip(args, on_device)]
        loop_args, result = self._loop([a.dtype for a in arrays], args)
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        size = int(np.prod(shape))
        inputs = []
        for array, device, dtype in zip(arrays, on_device, loop_args):
            if device and array.shape == shape and array.dtype == dtype and array.is_c_contiguous():
                inputs.append(array.reshape(size) if array.ndim != 1 else array)
                continue
            host = array.copy_to_host(stream=stream) if device else array
            flat = np.ascontiguousarray(np.broadcast_to(host, shape), dtype=dtype).reshape(size)
            inputs.append(_cuda.to_device(flat, stream=stream))
        host_out = None
        if out is not None and _cuda.is_cuda_array(out) and not isinstance(out, _cuda.DeviceNDArray):
            out = _cuda.as_cuda_array(out)  # any CUDA array interface object: returned as a device array, as numba
        if out is not None:
            if tuple(out.shape) != shape:
                raise ValueError("out has shape %s, the result %s" % (tuple(out.shape), shape))
            if _cuda.is_cuda_array(out):
                target = _cuda.as_cuda_array(out)
            else:  # a host array: the result is computed on the device and copied into it
                host_out = out
                if not isinstance(out, np.ndarray) or not out.flags.writeable:
                    raise TypeError("out must be a device array or a writable NumPy array")
                target = _cuda.device_array(shape, dtype=out.dtype, stream=stream)
        else:
            target = _cuda.device_array(shape, dtype=result, stream=stream)
        if size:
            launch = self._kernel[(size + BLOCK - 1) // BLOCK, BLOCK, stream]
            if target.dtype == result and target.is_c_contiguous():
                launch(target.reshape(size) if target.ndim != 1 else target, *inputs)
            else:  # an out of another dtype or layout: computed contiguous, converted through the host
                staged = _cuda.device_array(size, dtype=result, stream=stream)
                launch(staged, *inputs)
                target.copy_to_device(
                    staged.copy_to_host(stream=stream).astype(target.dtype).reshape(shape), stream=stream
                )
        if host_out is not None:
            target.copy_to_host(host_out, stream=stream)
            if stream not in (0, None):
                stream.synchronize()
            return host_out
        if out is not None:
            return out
        if any(on_device):
            return target
        host = target.copy_to_host(stream=stream)
        if stream not in (0, None):
            stream.synchronize()
        return host[()] if host.ndim == 0 else host

    def reduce(self, arr, stream=0):
        """ufunc.reduce of a 1-d array (numba's): the function folded over the elements, on the GPU."""
        if self.nin != 2:
            raise TypeError("reduce needs a function of two arguments")
        if len(arr) == 0:
            raise ValueError("reduce of an empty array, which has no identity here")
        if len(arr) == 1:
            return arr[0]
        return Reduce(self._device)(arr[1:], init=arr[0], stream=stream)  # arr[0] folded in once


def _rebuild_ufunc(payload, signatures):
    return CUDAUFunc(_function_of_payload(payload), signatures)


def vectorize(signatures=None, target="cuda", **options):
    """@cuda.vectorize(signatures): numba's decorator, making a CUDAUFunc (target must be 'cuda')."""
    if callable(signatures) and not isinstance(signatures, (list, tuple, str)):
        raise TypeError("cuda.vectorize needs signatures: @cuda.vectorize(['float32(float32, float32)'])")
    if target != "cuda":
        raise ValueError("numba_cuda_c's vectorize makes CUDA ufuncs: target must be 'cuda', not %r" % target)
    unknown = set(options) - {"nopython", "cache", "fastmath", "identity"}
    if unknown:
        raise KeyError("Unrecognized options: %s" % ", ".join(sorted(unknown)))  # numba's words
    if "nopython" in options:
        import warnings

        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=2)
    sigs = [signatures] if isinstance(signatures, str) else list(signatures or ())
    if not sigs:
        raise TypeError("cuda.vectorize needs signatures: @cuda.vectorize(['float32(float32, float32)'])")

    def decorate(pyfunc):
        return CUDAUFunc(pyfunc, sigs)

    return decorate
