"""numba's cuda.guvectorize: a generalized ufunc whose core function runs on the GPU, one thread per
element of the loop (broadcast) dimensions.

    @cuda.guvectorize(["void(float32[:, :], float32[:, :], float32[:, :])"], "(m,n),(n,p)->(m,p)")
    def matmul(A, B, C): ...

    C = matmul(A, B)                   # host arrays in: host arrays out; a device array in: device out
    matmul(A, B, out=C)                # into an array (or pass the outputs after the inputs)

Each argument's last dimensions are its core dimensions (the layout names them); the others broadcast
together as NumPy's gufuncs do. On the device every argument becomes a C-contiguous array of shape
(loop size, *core shape), and the kernel calls the core function with item i of each: a view of the
core dimensions, a number for an argument declared as a scalar, or a one-element view for an array
argument whose core is "()" (an output written as out[0]).
"""

import re

import numpy as np

from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit.dispatcher import jit
from numba_cuda_c.ufunc import accepts, jit_from_source

BLOCK = 128
_LAYOUT = re.compile(r"^\s*(\(.*?\)(?:\s*,\s*\(.*?\))*)\s*->\s*(\(.*?\)(?:\s*,\s*\(.*?\))*)\s*$")
_SUPPORTED_OPTIONS = {"nopython", "cache", "fastmath", "target", "writable_args", "is_dynamic"}


def parse_layout(layout):
    """'(m,n),(n,p)->(m,p)' -> ([('m', 'n'), ('n', 'p')], [('m', 'p')])."""
    match = _LAYOUT.match(layout)
    if match is None:
        raise ValueError("bad gufunc layout %r: expected '(m,n),(n)->(m)'" % layout)

    def groups(text):
        return [
            tuple(d.strip() for d in group.split(",") if d.strip()) for group in re.findall(r"\(([^)]*)\)", text)
        ]

    return groups(match.group(1)), groups(match.group(2))


def _kernel_source(modes):
    """A kernel calling `fn` with item i of each argument: 'view' a[i], 'scalar' a[i] (a number), or
    'one' a[i:i + 1] (a one-element array)."""
    names = ["a%d" % k for k in range(len(modes))]
    items = [("%s[i:i + 1]" if mode == "one" else "%s[i]") % name for name, mode in zip(names, modes)]
    return "def gufunc_kernel(n, %s):\n" "    i = cuda.grid(1)\n" "    if i < n:\n" "        fn(%s)\n" % (
        ", ".join(names),
        ", ".join(items),
    )


def _make_kernel(fn, modes):
    """The kernel for these argument modes (jit_from_source)."""
    filename = "<numba_cuda_c gufunc kernel %s>" % "-".join(modes)
    return jit_from_source(_kernel_source(modes), "gufunc_kernel", filename, {"fn": fn})


class _Loop:
    """One signature: the dtypes of the arguments and how each goes to the core function."""

    def __init__(self, signature, cores, name):
        self.dtypes, self.modes = [], []
        for k, (t, core) in enumerate(zip(signature.args, cores)):
            if isinstance(t, types.Array):
                if t.ndim != len(core) and not (len(core) == 0 and t.ndim == 1):
                    raise TypeError(
                        "%s: argument %d is declared %d-dimensional, but the layout gives it %d core dimensions"
                        % (name, k, t.ndim, len(core))
                    )
                self.dtypes.append(np.dtype(t.dtype.dtype))
                self.modes.append("one" if len(core) == 0 else "view")
            elif isinstance(t, types.Scalar):
                if core:
                    raise TypeError(
                        "%s: argument %d is a scalar, but the layout gives it core dimensions" % (name, k)
                    )
                self.dtypes.append(np.dtype(t.dtype))
                self.modes.append("scalar")
            else:
                raise TypeError("%s: guvectorize takes arrays and numbers, not %s" % (name, t))


class CUDAGUFunc:
    """The generalized ufunc @cuda.guvectorize makes."""

    def __init__(self, pyfunc, signatures, layout):
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.layout = layout
        self.input_cores, self.output_cores = parse_layout(layout)
        self.nin, self.nout = len(self.input_cores), len(self.output_cores)
        cores = self.input_cores + self.output_cores
        if pyfunc.__code__.co_argcount != len(cores):
            raise TypeError(
                "layout %r names %d arguments; %s takes %d"
                % (layout, len(cores), self.__name__, pyfunc.__code__.co_argcount)
            )
        self.loops = []
        for sig in signatures:
            if isinstance(sig, (tuple, list)):
                signature = types.Signature(types.void, [types.parse_type(t) for t in sig])
            else:
                signature = types.parse_signature(sig)
            if signature.return_type not in (None, types.void):
                raise TypeError(
                    "guvectorized functions cannot return values: signature %s specifies %s return type"
                    % (sig, signature.return_type)
                )
            if len(signature.args) != len(cores):
                raise TypeError(
                    "signature %s has %d arguments; the layout %r has %d"
                    % (sig, len(signature.args), layout, len(cores))
                )
            self.loops.append(_Loop(signature, cores, self.__name__))
        self._device = jit(device=True)(pyfunc)
        self._kernels = {}

    @property
    def ntypes(self):
        return len(self.loops)

    def _kernel(self, modes):
        kernel = self._kernels.get(modes)
        if kernel is None:
            kernel = self._kernels[modes] = _make_kernel(self._device, modes)
        return kernel

    def _loop(self, dtypes, values):
        # numba's rule first: the loop whose input types are exactly the inputs' (an int64 array picks an int64
        # loop listed after a float64 one); then the first they cast to safely, as NumPy's gufuncs
        for loop in self.loops:
            if all(d == a for d, a in zip(dtypes, loop.dtypes)):
                return loop
        for loop in self.loops:
            if all(accepts(v, d, a) for v, d, a in zip(values, dtypes, loop.dtypes)):
                return loop
        # numba's fallback: the first loop whose types cast safely to the inputs' (a narrowing: host inputs are
        # converted to the loop's types; device inputs cannot be, and raise in _device_input)
        for loop in self.loops:
            if all(np.can_cast(a, d) for d, a in zip(dtypes, loop.dtypes)):
                return loop
        raise TypeError(
            "gufunc %s has no loop for the input types (%s)" % (self.__name__, ", ".join(map(str, dtypes)))
        )

    def __call__(self, *args, out=None, stream=0):
        nin, nall = self.nin, self.nin + self.nout
        if len(args) not in (nin, nall):
            raise TypeError(
                "gufunc accepts %d positional arguments, or %d positional arguments (input and output arrays). "
                "Got %d positional argument%s." % (nin, nall, len(args), "" if len(args) == 1 else "s")
            )
        outputs = list(args[nin:])
        if out is not None:
            if outputs:
                raise ValueError("cannot specify argument 'out' as both positional and keyword")
            outputs = list(out) if isinstance(out, tuple) else [out]
            if len(outputs) != self.nout:
                raise ValueError("%s has %d outputs, out gives %d" % (self.__name__, self.nout, len(outputs)))
        # outputs given as CUDA array interface objects: device arrays (returned so, as numba)
        outputs = [
            _cuda.as_cuda_array(o) if _cuda.is_cuda_array(o) and not isinstance(o, _cuda.DeviceNDArray) else o
            for o in outputs
        ]
        on_device = [_cuda.is_cuda_array(a) for a in args[:nin]]
        inputs = [_cuda.as_cuda_array(a) if d else np.asarray(a) for a, d in zip(args[:nin], on_device)]
        loop = self._loop([a.dtype for a in inputs], args[:nin])
        sizes, loop_shapes = {}, []
        for k, (array, core) in enumerate(zip(inputs, self.input_cores)):
            loop_shapes.append(self._bind(sizes, array.shape, core, k))
        loop_shape = _loop_shape(loop_shapes)
        output_shapes = []
        for k, core in enumerate(self.output_cores):
            missing = [d for d in core if d not in sizes]
            if missing:
                raise ValueError(
                    "%s: output %d's dimension %s is not given by any input" % (self.__name__, k, missing[0])
                )
            output_shapes.append(tuple(loop_shape) + tuple(sizes[d] for d in core))
        for k, (given, shape) in enumerate(zip(outputs, output_shapes)):
            if tuple(given.shape) != shape:
                raise ValueError(
                    "%s: output %d has shape %s, the result %s" % (self.__name__, k, tuple(given.shape), shape)
                )
        count = int(np.prod(loop_shape)) if loop_shape else 1
        device_args = [
            self._device_input(array, device, dtype, tuple(loop_shape), core, count, stream)
            for array, device, dtype, core in zip(inputs, on_device, loop.dtypes, self.input_cores)
        ]
        results, writebacks = [], []
        for k, shape in enumerate(output_shapes):
            dtype = loop.dtypes[nin + k]
            flat_shape = (count,) + shape[len(loop_shape) :]
            given = outputs[k] if outputs else None
            if given is not None and _cuda.is_cuda_array(given):
                target = _cuda.as_cuda_array(given)
                if target.dtype == dtype and target.is_c_contiguous():
                    device_args.append(target.reshape(*flat_shape))
                    results.append(given)
                    continue
            staged = _cuda.device_array(flat_shape, dtype=dtype, stream=stream)
            device_args.append(staged)
            writebacks.append((k, staged, shape, given))
            results.append(None)
        if count:
            self._kernel(tuple(loop.modes))[(count + BLOCK - 1) // BLOCK, BLOCK, stream](count, *device_args)
        returns_host = not any(on_device) and not any(_cuda.is_cuda_array(o) for o in outputs)
        for k, staged, shape, given in writebacks:
            if given is None:
                result = staged.reshape(*shape) if shape else staged.reshape(1)
                if returns_host:
                    host = result.copy_to_host(stream=stream)
                    result = host.reshape(shape)
                results[k] = result
            elif _cuda.is_cuda_array(given):  # another dtype or layout: through the host
                host = staged.copy_to_host(stream=stream).reshape(shape).astype(given.dtype)
                _cuda.as_cuda_array(given).copy_to_device(host, stream=stream)
                results[k] = given
            else:
                np.copyto(given, staged.copy_to_host(stream=stream).reshape(shape), casting="unsafe")
                results[k] = given
        if stream not in (0, None):
            stream.synchronize()
        results = [r[()] if isinstance(r, np.ndarray) and r.ndim == 0 else r for r in results]
        return results[0] if self.nout == 1 else tuple(results)

    def _bind(self, sizes, shape, core, position):
        """The loop shape of an argument, its core dimensions bound to their names (checked)."""
        if len(shape) < len(core):
            raise ValueError(
                "%s: input %d has %d dimensions; its core %s needs %d"
                % (self.__name__, position, len(shape), core, len(core))
            )
        split = len(shape) - len(core)
        for name, size in zip(core, shape[split:]):
            if sizes.setdefault(name, size) != size:
                raise ValueError(
                    "%s: dimension %s is %d in input %d, %d before"
                    % (self.__name__, name, size, position, sizes[name])
                )
        return tuple(shape[:split])

    def _device_input(self, array, device, dtype, loop_shape, core, count, stream):
        """An input as a C-contiguous device array of shape (loop size, *core shape)."""
        core_shape = tuple(array.shape[len(array.shape) - len(core) :]) if core else ()
        full = loop_shape + core_shape
        flat = (count,) + core_shape
        if device and array.dtype != dtype:
            raise TypeError(
                "compatible signature is possible by casting but %s does not support .astype()" % type(array)
            )
        if device and tuple(array.shape) == full and array.is_c_contiguous():
            return array.reshape(*flat)
        host = array.copy_to_host(stream=stream) if device else array
        if device and stream not in (0, None):
            stream.synchronize()
        if int(np.prod(host.shape[: host.ndim - len(core_shape)])) == 1:  # one element of the loop: for every one
            host = host.reshape(core_shape)
        staged = np.ascontiguousarray(np.broadcast_to(host, full), dtype=dtype).reshape(flat)
        return _cuda.to_device(staged, stream=stream)


def _loop_shape(shapes):
    """The loop dimensions of a call from its inputs' (their dimensions outside the core): numba's rule, the
    largest (the first of those of one size) where every other is the same or one element; otherwise NumPy's
    broadcasting of them (which numba refuses)."""
    if not shapes:
        return ()
    sizes = [int(np.prod(s)) for s in shapes]
    largest = tuple(shapes[sizes.index(max(sizes))])
    if all(tuple(s) == largest or size == 1 and len(s) <= 1 for s, size in zip(shapes, sizes)):
        return largest
    return tuple(np.broadcast_shapes(*shapes))


def guvectorize(signatures, layout, target="cuda", **options):
    """@cuda.guvectorize(signatures, layout): numba's decorator, making a CUDAGUFunc."""
    if target != "cuda":
        raise ValueError("numba_cuda_c's guvectorize makes CUDA gufuncs: target must be 'cuda', not %r" % target)
    unknown = set(options) - _SUPPORTED_OPTIONS
    if unknown:
        raise TypeError(
            "The following target options are not supported: %s" % ", ".join("'%s'" % o for o in sorted(unknown))
        )
    if options.get("nopython", True) is not True:
        raise TypeError("nopython flag must be True")
    sigs = [signatures] if isinstance(signatures, str) else list(signatures or ())
    if not sigs:
        raise TypeError(
            "cuda.guvectorize needs signatures: @cuda.guvectorize(['void(float32[:], float32[:])'], '(n)->(n)')"
        )

    def decorate(pyfunc):
        return CUDAGUFunc(pyfunc, sigs, layout)

    return decorate
