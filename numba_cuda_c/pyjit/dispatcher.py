"""@cuda.jit: the decorator and the dispatcher that specialises a Python kernel on its argument
types, translates it (translate.py), compiles it with NVRTC (compiler.py, with its caches) and
launches it through the C launch path (a Kernel of src/launch/kernel.c)."""

import collections
import enum
import functools
import itertools
import os
import pickle
import re
import sys
import threading
import time
import weakref
import zlib

import numpy as np

from numba_cuda_c import _cuda, _version, compiler, errors, types
from numba_cuda_c.args import as_hint
from numba_cuda_c.cudadrv import foreign_arguments
from numba_cuda_c.pyjit.extern import MARK as _EXTERN_MARK, links_of
from numba_cuda_c.pyjit.lib import CAPTURES_DEVICE_MEMORY as _CAPTURES_MARK  # light: not the translator
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.devicefn import DeviceFunction, argument_kinds, normalise
from numba_cuda_c.pyjit.options import CARVEOUTS, check_options, nvrtc_options
from numba_cuda_c.pyjit.ptx import compile_ptx

_SCALAR_OF_PYTHON = {int: types.int64, float: types.float64, bool: types.boolean, complex: types.complex128}
_SCALAR_OF_DTYPE = {}


def _scalar_of_dtype(dtype):
    # NumPy's == (and hash) ignore align=True; numba's Record types do not: the flag is part of the key
    key = dtype if dtype.fields is None else (dtype, dtype.isalignedstruct)
    t = _SCALAR_OF_DTYPE.get(key)
    if t is None:
        t = _SCALAR_OF_DTYPE[key] = types.from_dtype(dtype)
    return t


def _array_dtype(dtype):
    """An array's element type. Kernels read elements in the machine's byte order: an array in the
    other (dtype('>f8') on x86) is refused, as numba refuses to type it."""
    if not dtype.isnative:
        raise ValueError(
            "unsupported array dtype %r for a kernel: not in the machine's byte order; convert it first, "
            "e.g. a.astype(a.dtype.newbyteorder('='))" % dtype
        )
    return _scalar_of_dtype(dtype)


_DeviceNDArray = _cuda.DeviceNDArray
_DeviceRecord = _cuda.DeviceRecord


def typeof(value):
    """numba's typeof for kernel arguments: arrays by dtype and dimensions (every layout shares one
    translation: the code indexes through strides), Python scalars as int64/float64/bool, NumPy
    scalars by their dtype."""
    cls = type(value)
    t = _SCALAR_OF_PYTHON.get(cls)
    if t is not None:
        return t
    if value is None:  # numba's none: known when compiling, not passed (pyjit/optional.py)
        return types.none
    if isinstance(value, tuple):  # numbers: one struct; with arrays or tuples in it: flattened (_flattening)
        items = tuple(typeof(item) for item in value)
        if not all(isinstance(item, (types.Scalar, types.Array, types.Tuple)) for item in items):
            raise TypeError("tuples passed to kernels hold numbers, arrays and tuples of them")
        return types.tuple_type(value, items)
    if cls is _DeviceRecord:  # a record in device memory: passed by reference
        return _scalar_of_dtype(value.dtype)
    if cls is _DeviceNDArray or isinstance(value, (_DeviceNDArray, np.ndarray)):
        return types.Array(_array_dtype(value.dtype), value.ndim, "A")
    if isinstance(value, np.void):  # copied to the device for the launch, and back (_with_conversions)
        return _scalar_of_dtype(value.dtype)
    if isinstance(value, enum.Enum) and isinstance(value.value, (int, float)):  # its value (_with_conversions)
        return typeof(value.value)
    if isinstance(value, np.generic):
        return _scalar_of_dtype(value.dtype)
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        return types.Array(_array_dtype(np.dtype(cai["typestr"])), len(cai["shape"]), "A")
    kind = _type_argument(value)
    if kind is not None:
        return kind
    device = foreign_arguments.as_device_array(value)  # cuda.core Buffer, StridedMemoryView, DLPack
    if device is not None:
        return types.Array(_array_dtype(device.dtype), device.ndim, "A")
    hint = as_hint(value)  # cuda.In(x), cuda.Out(x), cuda.InOut(x): x's type (_with_conversions)
    if hint is not None:
        return typeof(hint.value)
    raise TypeError("cannot pass a %s to a kernel" % type(value).__name__)


def _type_argument(value):
    """A type given as an argument (np.float64, np.dtype('f4'), numba_cuda_c.int32 or numba's):
    numba's class(float64), on which the kernel is specialised. None for anything else."""
    try:
        if isinstance(value, types.Scalar):
            return types.NumberClass(value)
        if types.is_numba_type(value):  # numba.float64, or numba's typeof(np.float64) itself
            ours = types.from_numba(value)
            return ours if isinstance(ours, types.NumberClass) else types.NumberClass(ours)
        if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.number)):
            return types.NumberClass(_scalar_of_dtype(np.dtype(value)))
    except TypeError:
        return None
    return None


def _leaves(value):
    for item in value:
        if isinstance(item, tuple):
            yield from _leaves(item)
        else:
            yield item


def _flattening(launch, positions):
    """The launch for tuples holding arrays (or tuples), which the kernel takes as their leaves, one
    parameter each (types.flattens): the C launcher then copies host arrays in and out as it does any."""

    def launch_flattened(*args):
        flat = []
        for k, value in enumerate(args):
            if k in positions:
                flat.extend(_leaves(value))
            else:
                flat.append(value)
        return launch(*flat)

    return launch_flattened


def _omitting(launch, kept):
    """The launch for a kernel given None or leaving out arguments that have defaults: only the arguments at the
    positions kept are passed (the others are known when compiling, pyjit/optional.py)."""

    def launch_without(*args):
        return launch(*[args[k] for k in kept])

    return launch_without


def _with_defaults(py_func, argtypes):
    """The argument types of a call that leaves out arguments with defaults: numba's Omitted(default) for each."""
    defaults = py_func.__defaults__ or ()
    count = py_func.__code__.co_argcount
    missing = count - len(argtypes)
    if 0 < missing <= len(defaults):
        return argtypes + tuple(types.Omitted(d) for d in defaults[len(defaults) - missing :])
    return argtypes


def _needs_conversion(value):
    return (
        isinstance(value, np.void)
        or (isinstance(value, enum.Enum) and not isinstance(value, int))  # an IntEnum member is the int it is
        or (isinstance(value, tuple) and type(value) is not tuple)  # a namedtuple: as the tuple it is
        or as_hint(value) is not None
    )


def _plain_tuple(value):
    return tuple(_plain_tuple(v) if isinstance(v, tuple) else v for v in value)


def _with_conversions(launch, positions, stream):
    """The launch for arguments the C launcher does not take as they are, passed as numba passes them:
    a NumPy record copied to the device first and back into it after (a record read from an array is a
    view of it, so the array sees the kernel's writes), an enum member as its value, cuda.In/Out/InOut
    copying one way or both; on the launch's stream."""

    def launch_with_conversions(*args):
        args = list(args)
        after = []  # what runs once the kernel is launched: copies back
        for k in positions:
            value = args[k]
            if isinstance(value, enum.Enum):
                args[k] = value.value
            elif isinstance(value, tuple):
                args[k] = _plain_tuple(value)
            elif isinstance(value, np.void):
                device = args[k] = _cuda.to_device(value, stream=stream)
                after.append(functools.partial(device.copy_to_host, value, stream=stream))
            else:
                args[k] = as_hint(value).to_device(after, stream=stream)
        launch(*args)
        for step in after:
            step()

    return launch_with_conversions


def _launch_key(key):
    """f[griddim, blockdim, stream, sharedmem]'s key checked as numba does, with the dims as 3-tuples."""
    if not isinstance(key, tuple) or not 2 <= len(key) <= 4:
        raise ValueError("must specify at least the griddim and blockdim: f[griddim, blockdim]")
    return _cuda._parse_launch_dims(key[0], key[1]) + key[2:]


MAX_LAUNCHERS = 1024  # launch configurations a dispatcher keeps (each with its own argument-type keys)


class Specialisation:
    """One compiled signature of a kernel: its argument types, its CUDA C (and the C name of the kernel
    in it), what it is linked with (None: nothing, not relocatable), the global device arrays its code
    reads by pointer (kept alive as long as the kernel may run), what its launch must do (cooperative,
    a deep stack), how often the disk cache had its translation, and, once loaded, its Kernel."""

    __slots__ = (
        "argtypes",
        "name",
        "source",
        "captured",
        "links",
        "launch_flags",
        "cache_hits",
        "cache_misses",
        "kernel",
    )

    def __init__(self, argtypes, name, source, captured, links, launch_flags):
        self.argtypes, self.name, self.source, self.captured, self.links = argtypes, name, source, captured, links
        self.launch_flags = frozenset(launch_flags)
        self.cache_hits = self.cache_misses = 0
        self.kernel = None


class Dispatcher:
    """A Python function compiled for the GPU: a kernel (launched as f[griddim, blockdim](*args)) or,
    with device=True, a device function other kernels call."""

    def __init__(self, py_func, sigs=None, device=False, **options):
        self.py_func, self.device = py_func, device
        self.options = options
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__module__ = getattr(py_func, "__module__", None)
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self._sigs = list(sigs) if sigs else None  # as given: a pickled dispatcher is made again from them
        self.specializations = {}  # argument types -> the Dispatcher specialize() made for them
        # numba's extensions: objects whose prepare_args(ty, val, stream=, retr=) -> (ty, val) see each
        # argument before the launch (libraries wrap arguments this way); retr gets what runs after it
        self.extensions = []
        self._specialisations = {}  # argument types -> Specialisation, in the order they were made
        self._compile_lock = threading.RLock()
        self._launchers = {}  # launch key -> _cuda.Dispatch (at most MAX_LAUNCHERS)
        self._small_grids = set()  # the launchers of grids under 128 blocks: numba warns at each configuration
        self._refreshing = False  # recompile(): translations are made again, not read from the disk cache
        self._declared = []  # a device function's declared signatures: calls convert to them
        # what the translator needs of it, called in a kernel (the protocol: translate.py imports no dispatcher)
        self.__ncc_device_function__ = DeviceFunction(
            py_func, self._declared, bool(options.get("forceinline")) or options.get("inline") == "always"
        )
        self._as_declared = {}  # a kernel's declared argument types as written, by their normalised key
        for sig in sigs or ():
            self.compile(sig)
        # numba's rule: a kernel given a signature (not a list of them) or made by specialize() is
        # specialised, and its attributes (get_regs_per_thread() ...) are numbers, not dicts by signature
        self._specialized = False

    @property
    def _kernels(self):
        """The loaded kernels by argument types, in the order their signatures were made."""
        return {t: s.kernel for t, s in self._specialisations.items() if s.kernel is not None}

    @property
    def signatures(self):
        """numba's: the argument types of each compiled kernel (or declared device function), in order."""
        return [s.args for s in self._declared] if self.device else list(self._kernels)

    def compile(self, sig):
        signature = types.parse_signature(sig)
        argtypes = normalise(signature.args)
        if self.device:
            compile_ptx(self.py_func, argtypes, device=True)  # checks it translates
            self._declared.append(types.Signature(signature.return_type, argtypes))
            return None
        argtypes = _with_defaults(self.py_func, argtypes)  # a signature of the arguments before the defaulted
        self._as_declared[argtypes] = tuple(signature.args)  # layouts as written, for numba's messages
        return self._kernel(argtypes)

    def _source(self, argtypes):
        """(name, CUDA C) of the kernel for these argument types: its Specialisation's."""
        specialisation = self._specialisation(argtypes)
        return specialisation.name, specialisation.source

    def _specialisation(self, argtypes):
        """The Specialisation of these argument types, translated at the first need (or read from the disk
        cache), not yet compiled."""
        specialisation = self._specialisations.get(argtypes)
        if specialisation is None:
            key = self._cache_key(argtypes)
            # the kernel's C name, the same in every process (the disk cache's source holds it); each
            # signature is a module of its own, so a short digest only tells them apart in profilers
            name = "ncc_%s_%08x" % (re.sub(r"\W", "_", self.py_func.__name__), zlib.crc32(repr(argtypes).encode()))
            externs = []  # the declared device functions it calls (cuda.declare_device)
            captured = []  # the global device arrays it reads by pointer

            def translate():
                from numba_cuda_c.pyjit.translate import translate_kernel  # ast and inspect: only when needed

                del externs[:], captured[:]
                flags = []
                source = translate_kernel(
                    self.py_func,
                    argtypes,
                    name,
                    externs,
                    captured,
                    launch_bounds=self.options.get("launch_bounds"),
                    debug=bool(self.options.get("debug")),
                    lineinfo=bool(self.options.get("lineinfo")),
                    fastmath=bool(self.options.get("fastmath")),
                    launch_flags=flags,
                )
                return source, flags

            hit = None  # no disk cache
            if key is None:
                text, flags = translate()
            else:  # numba's stats count what the disk cache had and had not
                (text, flags), hit = compiler.cached_translation(key, translate, refresh=self._refreshing)
            if not externs and _EXTERN_MARK in text:  # from the disk cache: learn the declarations' links
                text, flags = translate()
            if not captured and text.startswith(_CAPTURES_MARK):  # another process's pointers: made again
                text, flags = translate()
            specialisation = Specialisation(argtypes, name, text, captured, self._link_list(externs), flags)
            specialisation.cache_hits, specialisation.cache_misses = int(hit is True), int(hit is False)
            self._specialisations[argtypes] = specialisation
        return specialisation

    def _link_list(self, externs):
        """What a kernel calling these declared device functions is linked with: the link= option's
        files, then the declarations'; None where it is not linked at all."""
        link = self.options.get("link") or ()
        link = [link] if isinstance(link, (str, os.PathLike)) else list(link)
        if not link and not externs:
            return None
        return link + [item for item in links_of(externs) if item not in link]

    def _cache_key(self, argtypes):
        """With cache=True, what the translation depends on, as numba's cache index: the function's
        file (path, size, modification time), its qualified name, line and bytecode, the types and
        options, and our version. As in numba, a change to another file's device function or to a
        global's value is not seen: touch the kernel's file, or clear the cache. None: no disk cache."""
        if not self.options.get("cache"):
            return None
        code = self.py_func.__code__
        try:
            info = os.stat(code.co_filename)
        except OSError:
            return None  # not from a file (an interactive session): memory only
        stamp = (info.st_size, info.st_mtime_ns)
        return repr(
            (
                "jit translation",
                _version.__version__,
                code.co_filename,
                stamp,
                self.py_func.__qualname__,
                code.co_firstlineno,
                code.co_code,
                _closure_key(self.py_func),
                argtypes,
                sorted(self.options.items()),
            )
        )

    def _kernel(self, argtypes):
        specialisation = self._specialisations.get(argtypes)
        if specialisation is None or specialisation.kernel is None:
            with self._compile_lock:  # threads launching a new signature at once: one compiles and loads
                specialisation = self._specialisation(argtypes)
                if specialisation.kernel is None:
                    started = time.perf_counter()
                    specialisation.kernel = self._set_up(self._load(specialisation), specialisation)
                    _log_slow_compile(self.py_func.__name__, argtypes, time.perf_counter() - started)
        return specialisation.kernel

    def _nvrtc_options(self):
        return nvrtc_options(
            **{
                k: v
                for k, v in self.options.items()
                if k in ("debug", "lineinfo", "fastmath", "max_registers", "opt")
            }
        )

    def _load(self, specialisation):
        """The Kernel of a translation: compiled by NVRTC (the disk cache keyed by its source), linked where it calls
        declared device functions or links files, and loaded."""
        name, source, links, argtypes = (
            specialisation.name,
            specialisation.source,
            specialisation.links,
            specialisation.argtypes,
        )
        options = self._nvrtc_options()
        disk_cache = bool(self.options.get("cache"))
        if links is None:
            module = compiler.SourceModule(
                source, options=options, name=self.py_func.__name__ + ".cu", disk_cache=disk_cache
            )
            return module.get_function(name)
        # relocatable code, linked by the driver with the files it needs
        from numba_cuda_c.cudadrv import linker  # loaded by kernels that link only

        for item in links:
            linker.check_link_item(item)  # numba's errors first, before compiling
        image = compiler.compile_image(
            source, options + ["-rdc=true"], name=self.py_func.__name__ + ".cu", disk_cache=disk_cache
        )
        image = linker.link_kernel(
            image, links, self.options.get("max_registers") or 0, bool(self.options.get("lineinfo"))
        )
        with_callbacks = linker.has_callbacks(links)
        if with_callbacks:
            dispatcher = weakref.ref(self)  # the registry of such loads must not keep the dispatcher alive

            def forget():
                alive = dispatcher()
                if alive is not None:
                    alive._forget(argtypes)

            return linker.load_with_callbacks(image, with_callbacks, name, forget)
        return compiler.load_module(image).get_function(name)

    def _set_up(self, kernel, specialisation):
        """The kernel, set up for its launch flags and the shared_memory_carveout option."""
        if "cooperative" in specialisation.launch_flags:  # its code syncs the grid
            kernel._set_cooperative(True)
        if "deep_stack" in specialisation.launch_flags:  # recursive device functions
            kernel._set_min_stack_size(RECURSION_STACK_BYTES)
        carveout = self.options.get("shared_memory_carveout")
        if carveout is not None:
            kernel.set_shared_memory_carveout(CARVEOUTS.get(str(carveout).lower(), carveout))
        return kernel

    @property
    def stats(self):
        """numba's compile statistics: the disk cache's folder and, per signature, how often a compilation found
        its translation there (cache_hits) or made it (cache_misses). Only cache=True counts."""
        hits, misses = collections.Counter(), collections.Counter()
        for t, s in self._specialisations.items():
            hits[t] += s.cache_hits
            misses[t] += s.cache_misses
        return _CompileStats(compiler.cache_dir(), +hits, +misses)

    def recompile(self):
        """numba's: compiles each signature compiled so far again, reading the function's globals as they are now
        (a changed global is seen), and with cache=True writes the disk cache anew."""
        if self.device:
            return
        with self._compile_lock:
            signatures = list(self._kernels)
            counts = {t: (s.cache_hits, s.cache_misses) for t, s in self._specialisations.items()}
            self._specialisations = {}
            self._launchers.clear()
            self._small_grids.clear()
            self._refreshing = True
            try:
                for argtypes in signatures:
                    self._kernel(argtypes)
            finally:
                self._refreshing = False
                for argtypes, (hits, misses) in counts.items():  # numba's stats go on counting
                    specialisation = self._specialisations.get(argtypes)
                    if specialisation is not None:
                        specialisation.cache_hits += hits
                        specialisation.cache_misses += misses

    def _forget(self, argtypes):
        """Drops a compiled kernel (its context was reset): the next launch compiles and loads again."""
        specialisation = self._specialisations.get(argtypes)
        if specialisation is not None:
            specialisation.kernel = None
        self._launchers.clear()
        self._small_grids.clear()

    # -- pickling (Dask's client.submit(kernel[blocks, threads]), multiprocessing) ---------------------
    def __reduce__(self):
        """A module-level kernel pickles by reference (its module and name); any other (made in a
        function, a closure) by value: its Python function through cloudpickle, as numba does. The
        other process compiles it lazily (from the disk cache where cache=True)."""
        module = _importable_module(self.__module__)
        if module is not None and _lookup(module, self.__qualname__) is self:
            return self.__qualname__
        payload = _function_payload(self.py_func)
        return (_rebuild_dispatcher, (payload, self._sigs, self.device, self.options, self._specialized))

    def _reduce_launch(self, key):
        stream = key[2] if len(key) > 2 else 0
        if not _is_default_stream(stream):
            raise TypeError(
                "a launch configuration bound to a stream cannot be pickled: a stream does not cross processes; "
                "pickle the kernel and configure it where it runs (kernel[griddim, blockdim, stream])"
            )
        return (_rebuild_launch, (self, key))

    def __getitem__(self, key):
        try:  # the hot path: a launch configuration seen before
            launcher = self._launchers.get(key)
        except TypeError:  # dims given as lists: _launcher keys them as tuples
            launcher = None
        if launcher is None:
            launcher = self._launcher(key)
        if launcher in self._small_grids:  # numba warns at each configuration of under 128 blocks
            errors.warn_low_occupancy(launcher.griddim)
        if self.extensions:
            return functools.partial(self._launch_extended, launcher, key[2] if len(key) > 2 else 0)
        return launcher

    def _launch_extended(self, launcher, stream, *args):
        retr = []
        prepared = []
        for value in args:
            argtype = typeof(value)
            for extension in self.extensions:
                argtype, value = extension.prepare_args(argtype, value, stream=stream, retr=retr)
            prepared.append(value)
        launcher(*prepared)
        for step in retr:
            step()

    def _launcher(self, key):
        if self.device:
            raise TypeError("a device function is called from kernels, not launched")
        try:
            launcher = self._launchers.get(key)
        except TypeError:  # dims given as lists, as numba allows: keyed by the dims as tuples
            key = _launch_key(key)
            launcher = self._launchers.get(key)
        if launcher is None:
            _launch_key(key)  # numba's checks, now
            # the per-call path is C (src/launch/dispatch.c): it keys the arguments' types and finds the
            # LaunchConfig; specialise() runs on the first call of each key
            griddim, blockdim = _cuda._parse_launch_dims(key[0], key[1])
            info = (self, griddim, blockdim, key[2] if len(key) > 2 else 0, key[3] if len(key) > 3 else 0)
            if len(self._launchers) >= MAX_LAUNCHERS:  # a program configuring ever new grids: start afresh
                self._launchers.clear()
                self._small_grids.clear()
            launcher = self._launchers[key] = _cuda.Dispatch(
                self._specialiser(key), functools.partial(self._reduce_launch, key), info
            )
            if griddim[0] * griddim[1] * griddim[2] < 128:
                self._small_grids.add(launcher)
        return launcher

    def _specialiser(self, key):
        configs = {}  # argument types -> LaunchConfig

        def specialise(*args):
            argtypes = _with_defaults(self.py_func, tuple([typeof(a) for a in args]))
            config = configs.get(argtypes)
            if config is None:
                if self._sigs and not self.device:  # numba: given signatures, nothing else is compiled
                    config = configs[argtypes] = self._declared_launch(argtypes, key, args)
                else:
                    config = configs[argtypes] = self._checked(self._kernel(argtypes)[key], argtypes)
            kept = [k for k, t in enumerate(argtypes) if t is not types.none and not isinstance(t, types.Omitted)]
            flat = [j for j, k in enumerate(kept) if types.flattens(argtypes[k])]
            if flat:
                config = _flattening(config, flat)
            if len(kept) != len(argtypes):
                config = _omitting(config, kept)
            converted = [k for k, a in enumerate(args) if _needs_conversion(a)]
            return _with_conversions(config, converted, key[2] if len(key) > 2 else 0) if converted else config

        return specialise

    def _checked(self, launch, argtypes):
        """With debug=True, a kernel that can raise: each launch is followed by a check of what it
        recorded, raised here as numba does (pyjit/exceptions.py)."""
        if not self.options.get("debug"):
            return launch
        from numba_cuda_c.pyjit import exceptions  # loaded by debug kernels only

        table = exceptions.table_of(self._specialisations[argtypes].source)
        if not table:
            return launch
        kernel = self._specialisations[argtypes].kernel

        def launch_and_check(*args):
            launch(*args)
            exceptions.check(kernel, table)

        return launch_and_check

    def _declared_launch(self, argtypes, key, args=()):
        """The launch for arguments of these types among the kernels compiled from the declared
        signatures, as numba chooses: the one whose conversions cost least (numba's rating; two equally
        good ones are ambiguous); the converting launch casts the numbers first (Python numbers to the
        declared number types, an int to a pointer), so the packed bytes are the declared type's."""
        actual = normalise(argtypes)
        if actual in self._kernels:
            return self._checked(self._kernels[actual][key], actual)
        best = typing.best_signatures(
            self._kernels,
            lambda declared: argument_kinds(actual, declared) if len(declared) == len(actual) else None,
        )
        if len(best) > 1:
            raise TypeError(
                "Ambiguous overloading for %r (%s):\n%s"
                % (
                    self.py_func,
                    ", ".join(map(typing.numba_repr, _with_layouts(argtypes, args))),
                    "\n".join(
                        "(%s) -> none" % ", ".join(map(typing.numba_repr, self._as_declared.get(d, d)))
                        for d in best[:2]
                    ),
                )
            )
        if best:
            declared = best[0]
            launch = self._checked(self._kernels[declared][key], declared)
            casts = [_caster(a, d) for a, d in zip(actual, declared)]

            def converting_launch(*args):
                return launch(*[c(v) if c else v for c, v in zip(casts, args)])

            return converting_launch
        raise TypeError(
            "No matching definition for argument type(s) %s (the kernel was compiled for %s)"
            % (", ".join(map(str, argtypes)), "; ".join("(%s)" % ", ".join(map(str, d)) for d in self._kernels))
        )

    def __call__(self, *args, **kwargs):
        if self.device:
            raise TypeError("device function %s can only be called from a kernel" % self.__name__)
        raise ValueError(
            "launch configuration was not specified for kernel %s. Use the syntax: %s[griddim, blockdim](*args)"
            % (self.__name__, self.__name__)
        )

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launch configuration covering ntasks threads (at most tpb per block; 128 by default)."""
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count")
        tpb = tpb or 128
        return self[max(1, (ntasks + tpb - 1) // tpb), tpb, stream, sharedmem]

    def specialize(self, *args):
        """A dispatcher fixed to the types of these arguments."""
        if self._specialized:
            raise RuntimeError("Dispatcher already specialized")
        # values, or types themselves (numba's f.specialize(float32[::1]) takes either)
        argtypes = _with_defaults(self.py_func, tuple(a if isinstance(a, types.Type) else typeof(a) for a in args))
        specialised = self.specializations.get(argtypes)  # one per types as given (layouts too), as numba
        if specialised is None:
            specialised = Dispatcher(self.py_func, device=self.device, **self.options)
            specialised._kernel(normalise(argtypes))
            specialised._specialized = True
            self.specializations[argtypes] = specialised
        return specialised

    @property
    def specialized(self):
        """True if the dispatcher is fixed to one signature (given at decoration, or by specialize())."""
        return self._specialized

    @property
    def overloads(self):
        """The compiled kernels by argument types; looked up with any layout's types, as numba's
        overloads[sig] is (int32[:, ::1] finds the kernel every 2-d int32 array shares)."""
        return _Overloads(self._kernels)

    @property
    def definitions(self):
        return dict(self._kernels)

    def _pick(self, signature):
        if signature is None:
            return list(self._kernels)
        return [normalise(types.parse_signature(signature).args)]

    def inspect_source(self, signature=None):
        """The generated CUDA C: for one signature, or a dict for every compiled one."""
        found = _Overloads({t: self._source(t)[1] for t in self._pick(signature)})  # looked up as numba keys it
        return found if signature is None else found.popitem()[1]

    def inspect_asm(self, signature=None):
        """The PTX: for one signature, or a dict for every compiled one."""

        def ptx(t):
            if self.device:  # the device function alone, as compile_ptx(device=True) makes it
                flags = {k: v for k, v in self.options.items() if k in ("debug", "lineinfo", "fastmath", "opt")}
                return compile_ptx(self.py_func, t, device=True, cc=compiler.default_arch(), **flags)[0]
            name, source = self._source(t)
            relocatable = ["-rdc=true"] if self._specialisation(t).links is not None else []
            return compiler.compile_image(
                source,
                self._nvrtc_options() + relocatable,
                name=self.py_func.__name__ + ".cu",
                ptx=True,
                disk_cache=False,
            ).decode()

        picked = self._pick(signature)
        if signature is None and self.device:
            picked = [s.args for s in self._declared]
        found = _Overloads({t: ptx(t) for t in picked})  # looked up by the signature as declared
        return found if signature is None else found.popitem()[1]

    def inspect_types(self, file=None, signature=None, pretty=False, **kwargs):
        """numba's typed listing, printed to `file` (stdout): for each compiled signature (or the one given), the
        function's source and the type of each of its variables, as our translator types them."""
        from numba_cuda_c.pyjit.translate import typed_listing  # the translator: only when needed

        if pretty:
            raise NotImplementedError(
                "inspect_types(pretty=True) renders numba's IR with pygments; use pretty=False"
            )
        file = file or sys.stdout
        picked = self._pick(signature) if not self.device else [s.args for s in self._declared]
        for argtypes in picked:
            print("%s %s" % (self.py_func.__name__, tuple(argtypes)), file=file)
            print("-" * 80, file=file)
            print(typed_listing(self.py_func, argtypes), file=file)
            print("=" * 80, file=file)

    def inspect_llvm(self, signature=None):
        """numba's LLVM IR: there is none here. NotImplementedError saying what there is instead."""
        raise NotImplementedError(
            "numba_cuda_c compiles CUDA C with NVRTC, so a kernel has no LLVM IR: inspect_source() gives its CUDA C, "
            "inspect_asm() its PTX, inspect_sass() its SASS"
        )

    def inspect_sass(self, signature=None):
        """The SASS (nvdisasm -gi of the kernel's CUBIN for the current device): for one signature, or a dict for
        every compiled one. Needs the toolkit's nvdisasm (RuntimeError where it is missing), as numba's."""
        return self._disassembled(signature, ["-gi"])

    def inspect_sass_cfg(self, signature=None):
        """The control-flow graph of the SASS (nvdisasm -cfg, DOT format), as numba's."""
        return self._disassembled(signature, ["-cfg"])

    def _disassembled(self, signature, flags):
        if self.device:
            raise TypeError("a device function has no SASS of its own: inspect a kernel that calls it")

        def sass(t):
            name, source = self._source(t)
            relocatable = ["-rdc=true"] if self._specialisation(t).links is not None else []
            cubin = compiler.compile_image(
                source, self._nvrtc_options() + relocatable, name=self.py_func.__name__ + ".cu", disk_cache=False
            )
            return compiler.disassemble(cubin, flags)

        found = _Overloads({t: sass(t) for t in self._pick(signature)})
        return found if signature is None else found.popitem()[1]

    def inspect_lto_ptx(self, signature=None):
        """numba's PTX after link-time optimisation: a kernel and its device functions are one NVRTC
        program here, so this is inspect_asm's PTX."""
        return self.inspect_asm(signature)

    def _attribute(self, method, signature):
        found = _Overloads({t: getattr(self._kernel(t), method)() for t in self._pick(signature)})
        return found if signature is None and not self._specialized else found.popitem()[1]

    def get_regs_per_thread(self, signature=None):
        return self._attribute("get_regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature=None):
        return self._attribute("get_shared_mem_per_block", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._attribute("get_max_threads_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._attribute("get_local_mem_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        return self._attribute("get_const_mem_size", signature)

    def declared_signature(self, argtypes):
        """The declared signature a device-function call with these argument types uses (devicefn.py)."""
        return self.__ncc_device_function__.declared_signature(argtypes)

    def __repr__(self):
        return "<%s %s>" % ("device function" if self.device else "kernel", self.__name__)

    def _repr_html_(self):
        from numba_cuda_c import notebook  # the notebook helpers: loaded in a notebook only

        return notebook.html_of(self)


# Compiles slower than this are logged at INFO (logger "numba_cuda_c"): a user who waits knows on what.
SLOW_COMPILE_SECONDS = 1.0


def _log_slow_compile(name, argtypes, seconds):
    if seconds >= SLOW_COMPILE_SECONDS:
        import logging

        logging.getLogger("numba_cuda_c").info(
            "compiled and loaded kernel %s(%s) in %.1f s", name, ", ".join(map(str, argtypes)), seconds
        )


# The per-thread stack a kernel with recursive device functions gets (the context's default is 1 KiB: a
# few dozen frames). The driver reserves it for every thread that can be resident (about 2 GiB at 8 KiB
# on an H100), so only such kernels raise it, and never lower it again.
RECURSION_STACK_BYTES = 8192


def jit(func_or_sig=None, device=False, **options):
    """numba's @cuda.jit: @jit, @jit(sig), @jit([sig, ...]), @jit(device=True), and the options
    debug, lineinfo, fastmath, opt, max_registers, cache, inline, forceinline (device functions
    __forceinline__), link, lto (accepted: a kernel and its device functions are one NVRTC program, so
    they are optimised together already), launch_bounds (__launch_bounds__) and shared_memory_carveout."""
    check_options(options)
    errors.jit_options_checked(options)
    if (
        callable(func_or_sig)
        and not isinstance(func_or_sig, (types.Type, types.Signature))
        and not types.is_numba_type(func_or_sig)
    ):
        return Dispatcher(func_or_sig, device=device, **options)
    sigs = None
    if func_or_sig is not None:
        sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]

    def decorate(func):
        dispatcher = Dispatcher(func, sigs=sigs, device=device, **options)
        dispatcher._specialized = not device and func_or_sig is not None and not isinstance(func_or_sig, list)
        return dispatcher

    return decorate


# -- pickling helpers --------------------------------------------------------------------------------------


def _lookup(module, qualname):
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


_CompileStats = collections.namedtuple("_CompileStats", ("cache_path", "cache_hits", "cache_misses"))


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
    its pickle by value through cloudpickle (a script's function, one made in a function, a lambda, a closure)."""
    module = _importable_module(getattr(func, "__module__", None))
    if module is not None and _lookup(module, func.__qualname__) is func:
        return func
    for name in ("cloudpickle", "numba.cloudpickle"):
        try:
            cloudpickle = __import__(name, fromlist=["dumps"])
        except ImportError:
            continue
        return ("by value", cloudpickle.dumps(func))
    raise pickle.PicklingError(
        "%s is defined inside a function: pickling it needs cloudpickle (pip install cloudpickle), or define "
        "it at module level" % func.__qualname__
    )


def _function_of_payload(payload):
    """The function _function_payload pickled."""
    return pickle.loads(payload[1]) if isinstance(payload, tuple) and payload[:1] == ("by value",) else payload


def _rebuild_dispatcher(payload, sigs, device, options, specialized):
    dispatcher = Dispatcher(_function_of_payload(payload), sigs=sigs, device=device, **options)
    dispatcher._specialized = specialized
    return dispatcher


def _is_default_stream(stream):
    if stream is None or (isinstance(stream, int) and stream == 0):
        return True
    handle = getattr(stream, "handle", None)
    value = getattr(handle, "value", handle)
    return value in (0, None)


def _rebuild_launch(dispatcher, key):
    return dispatcher[key]


class _Overloads(dict):
    """Dispatcher.overloads: keys as given (a tuple of types, a signature string) normalised."""

    def _key(self, key):
        if not isinstance(key, tuple) or not all(isinstance(t, types.Type) for t in key):
            key = tuple(types.parse_signature(key).args)
        return normalise(key)

    def __getitem__(self, key):
        return dict.__getitem__(self, self._key(key))

    def __contains__(self, key):
        try:
            return dict.__contains__(self, self._key(key))
        except TypeError:
            return False

    def get(self, key, default=None):
        return self[key] if key in self else default


def _with_layouts(argtypes, args):
    """The argument types with their arrays' layouts as numba's typeof gives them ('C', 'F' or 'A'), for messages
    (kernels are keyed with layout 'A': one translation serves every layout)."""
    shown = []
    for t, value in itertools.zip_longest(argtypes, args):
        flags = getattr(value, "flags", None)
        if isinstance(t, types.Array) and flags is not None:
            layout = "C" if flags["C_CONTIGUOUS"] else "F" if flags["F_CONTIGUOUS"] else "A"
            t = types.Array(t.dtype, t.ndim, layout)
        shown.append(t)
    return shown[: len(argtypes)]


def _caster(actual, declared):
    """The host conversion of one argument (None: passed as it is)."""
    if actual == declared or isinstance(declared, types.CPointer):
        return None
    if isinstance(declared, types.Scalar):
        convert = declared.dtype.type
        if declared.kind in "iu":  # a Python int wraps into a declared integer, as numba's ctypes packing does

            def wrapping(value, bits=declared.bits, signed=declared.kind == "i"):
                if isinstance(value, int) and not isinstance(value, bool):
                    value &= (1 << bits) - 1
                    if signed and value >> (bits - 1):
                        value -= 1 << bits
                return convert(value)

            return wrapping
        return convert
    return None
