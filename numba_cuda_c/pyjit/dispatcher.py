"""@cuda.jit: the decorator and the dispatcher that specialises a Python kernel on its argument
types, translates it (translate.py), compiles it with NVRTC (compiler.py, with its caches) and
launches it through the C launch path (a Kernel of src/launch/kernel.c)."""

import functools
import pickle
import sys
import weakref

from numba_cuda_c import _cuda, errors, launchconfig, types
from numba_cuda_c.toolchain import compiler
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.arguments import (  # noqa: F401  (typeof, _caster: also imported from here)
    _caster,
    _needs_conversion,
    _with_defaults,
    _with_layouts,
    argument_plan,
    typeof,
)
from numba_cuda_c.pyjit.devicefn import DeviceFunction, argument_kinds, normalise
from numba_cuda_c.pyjit.launching import (
    ExtendedLaunch,
    LaunchConfigSensitivity,
    launch_config_key,
)
from numba_cuda_c.pyjit.launching import (
    Overloads as _Overloads,
)
from numba_cuda_c.pyjit import bundles, kernel_loader
from numba_cuda_c.pyjit.options import check_options
from numba_cuda_c.pyjit.pickling import (  # noqa: F401  (the payload functions: also imported from here)
    _function_of_payload,
    _function_payload,
    _importable_module,
    _is_default_stream,
    _lookup,
)
from numba_cuda_c.pyjit.ptx import compile_ptx
from numba_cuda_c.pyjit.specialiser import Specialiser


def _launch_key(key):
    """f[griddim, blockdim, stream, sharedmem]'s key checked as numba does, with the dims as 3-tuples."""
    if not isinstance(key, tuple) or not 2 <= len(key) <= 4:
        raise ValueError("must specify at least the griddim and blockdim: f[griddim, blockdim]")
    return _cuda._parse_launch_dims(key[0], key[1]) + key[2:]


MAX_LAUNCHERS = 1024  # launch configurations a dispatcher keeps (each with its own argument-type keys)


class Dispatcher(LaunchConfigSensitivity):
    """A Python function compiled for the GPU: a kernel (launched as ``f[griddim, blockdim](*args)``) or,
    with device=True, a device function other kernels call."""

    def __init__(self, py_func, sigs=None, device=False, extensions=None, **options):
        self.py_func, self.device = py_func, device
        self.options = options  # what the translation depends on (the disk cache's key): not the extensions
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__module__ = getattr(py_func, "__module__", None)
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self._sigs = list(sigs) if sigs else None  # as given: a pickled dispatcher is made again from them
        self.specializations = {}  # argument types -> the Dispatcher specialize() made for them
        # numba's extensions: objects whose prepare_args(ty, val, stream=, retr=) -> (ty, val) see each
        # argument before the launch (libraries wrap arguments this way); retr gets what runs after it. The
        # list given is kept (as numba keeps it: a library may append to it later)
        self.extensions = extensions if extensions is not None else []
        self._init_launch_config_sensitivity()
        # argument types -> Specialisation: translated, compiled and loaded at the first need (specialiser.py)
        self._specialiser = Specialiser(py_func, options, weakref.WeakMethod(self._forget))
        self._launchers = {}  # launch key -> _cuda.Dispatch (at most MAX_LAUNCHERS)
        self._small_grids = set()  # the launchers of grids under 128 blocks: numba warns at each configuration
        self._declared = []  # a device function's declared signatures: calls convert to them
        # what the translator needs of it, called in a kernel (the protocol: translate.py imports no dispatcher)
        self.__ncc_device_function__ = DeviceFunction(
            py_func,
            self._declared,
            bool(options.get("forceinline")) or options.get("inline") == "always",
            dispatcher=True,
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
        return self._specialiser.kernels

    @property
    def _compiled(self):
        """The loaded kernels as numba's overloads hold them (CompiledKernel), by argument types, in order."""
        return self._specialiser.compiled

    @property
    def signatures(self):
        """numba's: the argument types of each compiled kernel (or declared device function), in order."""
        return [s.args for s in self._declared] if self.device else list(self._kernels)

    def compile(self, sig):
        """Compile for the signature `sig` now (numba's): a kernel for its argument types (returned), or, for a
        device function, a declared signature (checked to translate)."""
        signature = types.parse_signature(sig)
        argtypes = normalise(signature.args)
        if self.device:
            compile_ptx(self.py_func, argtypes, device=True)  # checks it translates
            self._declared.append(types.Signature(signature.return_type, argtypes))
            return None
        argtypes = self._declared_argtypes(signature)
        self._as_declared[argtypes] = tuple(signature.args)  # layouts as written, for numba's messages
        if bundles.building:  # python -m numba_cuda_c build: it compiles them for a bundle, not here
            return None
        return self._specialiser.kernel(argtypes)

    def c_kernel(self, signature):
        """The loaded Kernel of this signature (compiled now where it is not yet), for numba_cuda_c's C API
        (numba_cuda_c.h: ncc->kernel_function): C code launches it with its arguments packed as the kernel takes
        them (a device array as ncc->array_argument gives it, a number as its C type)."""
        if self.device:
            raise TypeError("a device function is called from kernels, not launched")
        return self._specialiser.kernel(self._declared_argtypes(signature))

    def c_launcher(self, signature):
        """A launcher of this signature's kernel for compiled code (pyjit/c_launch.py): numba's @njit and @cfunc
        functions call its `launch` (a ctypes function) with its `handle` and arguments packed by its pack()."""
        from numba_cuda_c.pyjit.c_launch import CLauncher  # ctypes: only for who asks

        argtypes = self._declared_argtypes(signature)
        return CLauncher(self.c_kernel(signature), argtypes)

    def _declared_argtypes(self, sig):
        """A kernel's argument types for a declared signature (a string or a Signature): normalised, and with the
        types of the arguments left to their defaults."""
        return _with_defaults(self.py_func, normalise(types.parse_signature(sig).args))

    def _source(self, argtypes):
        """(name, CUDA C) of the kernel for these argument types: its Specialisation's."""
        specialisation = self._specialiser.specialisation(argtypes)
        return specialisation.name, specialisation.source

    @property
    def stats(self):
        """numba's compile statistics: the disk cache's folder and, per signature, how often a compilation found
        its translation there (cache_hits) or made it (cache_misses). Only cache=True counts."""
        return self._specialiser.stats()

    def recompile(self):
        """numba's: compiles each signature compiled so far again, reading the function's globals as they are now
        (a changed global is seen), and with cache=True writes the disk cache anew."""
        if self.device:
            return
        with self._specialiser.lock:
            self._launchers.clear()
            self._small_grids.clear()
            self._launch_config_specializations.clear()  # their kernels: compiled again at their next launch
            self._specialiser.recompile()

    def _forget(self, argtypes):
        """Drops a compiled kernel (its context was reset): the next launch compiles and loads again."""
        self._specialiser.forget(argtypes)
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
        options = dict(self.options, extensions=self.extensions) if self.extensions else self.options
        return (_rebuild_dispatcher, (payload, self._sigs, self.device, options, self._specialized))

    def _reduce_launch(self, key, callbacks):
        if callbacks:  # numba's refusal: functions of this process, called at each launch
            raise pickle.PicklingError("Cannot pickle configured launches with pre-launch callbacks")
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
        if self.extensions:  # each argument through them: a launch in Python (launching.py)
            return ExtendedLaunch(launcher, self.extensions, key[2] if len(key) > 2 else 0, self._argument_types)
        return launcher

    def _argument_types(self, args):
        """The types numba's extensions see for these arguments: the compiled kernel's argument types (the
        declared signature a launch converts them to, or their own types, with numba's layouts)."""
        argtypes = tuple([typeof(a) for a in args])
        if self._sigs and not self.device:
            declared = self._declared_for(argtypes, args)
            return self._as_declared.get(declared, declared)
        return tuple(_with_layouts(argtypes, args))

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
            callbacks = []  # numba's pre_launch_callbacks: while it holds any, every launch runs specialise()
            made = []  # the Dispatch, once made: the launch configuration specialise() makes current
            launcher = self._launchers[key] = made_launcher = _cuda.Dispatch(
                self._specialise_function(key, launch_config_key(info), made, callbacks),
                functools.partial(self._reduce_launch, key, callbacks),
                info,
                callbacks=callbacks,
                more=launchconfig.ATTRIBUTES,  # numba's configured launch's args (of the launch in progress)
            )
            made.append(made_launcher)
            if griddim[0] * griddim[1] * griddim[2] < 128:
                self._small_grids.add(launcher)
        return launcher

    def _specialise_function(self, key, config_key, made, callbacks):
        """specialise(*args), which the C dispatch of launch configuration `key` calls for arguments of types it has
        not seen (every launch while `callbacks` holds any): it finds (compiling where it must) the launch, runs
        numba's pre-launch callbacks, and returns it. The launch configuration is current meanwhile (launchconfig),
        with these arguments."""
        configs = {}  # argument types -> (LaunchConfig, its CompiledKernel, casts, check)
        plans = {}  # (argument types, the positions converted) -> the launch (an ArgumentPlan where it needs one)
        stream = key[2] if len(key) > 2 else 0

        def specialise(*args):
            with launchconfig.launching(made[0], args) as launch:
                argtypes = _with_defaults(self.py_func, tuple([typeof(a) for a in args]))
                found = configs.get(argtypes)
                if found is None:
                    found = configs[argtypes] = self._configured(key, config_key, argtypes, args, launch)
                config, compiled, casts, check = found
                for callback in callbacks:
                    callback(compiled, made[0])
            # arguments a key cannot describe (None, cuda.In(x)) come here at every call: their plan is kept
            convert = tuple(k for k, a in enumerate(args) if _needs_conversion(a))
            plan = plans.get((argtypes, convert))
            if plan is None:
                plan = plans[argtypes, convert] = argument_plan(config, argtypes, convert, stream, casts, check)
            return plan

        return specialise

    def _configured(self, key, config_key, argtypes, args, launch):
        """(launch, CompiledKernel, casts, check) for arguments of these types under launch configuration `key`:
        among the declared signatures' kernels where there are any (numba: then nothing else is compiled; casts
        convert the arguments to the declared types, or None), else compiled for these types by _compile_for_args
        (numba's hook) of the dispatcher that serves this configuration. check: _check's."""
        if self._sigs and not self.device:
            declared = self._declared_for(argtypes, args)
            casts = self._declared_casts(argtypes, declared)
            return self._kernels[declared][key], self._compiled[declared], casts, self._check(declared)
        dispatcher = self._launch_config_dispatcher(config_key)
        compiled = dispatcher._compiled_for_launch(argtypes, args, config_key, launch)
        return compiled[key], compiled, None, dispatcher._check(compiled.argument_types)

    def _compile_for_args(self, *args, **kws):
        """numba's: the kernel for these arguments' types (a CompiledKernel), compiled if it must be. A launch that
        must compile calls it, with its launch configuration current (launchconfig.current_launch_config())."""
        if kws:
            raise TypeError("kernels take positional arguments only")
        argtypes = _with_defaults(self.py_func, tuple([typeof(a) for a in args]))
        self._specialiser.kernel(argtypes)
        return self._compiled[argtypes]

    def _check(self, argtypes):
        """With debug=True, for a kernel that can raise: check(), run after each launch, raises what the kernel
        recorded as numba does (pyjit/exceptions.py); else None."""
        if not self.options.get("debug"):
            return None
        from numba_cuda_c.pyjit import exceptions  # loaded by debug kernels only

        specialisation = self._specialiser.by_types[argtypes]
        table = exceptions.table_of(specialisation.source)
        if not table:
            return None
        return functools.partial(exceptions.check, specialisation.kernel, table)

    def _declared_for(self, argtypes, args=()):
        """The declared signature's argument types a launch with arguments of these types uses, as numba chooses:
        theirs where a kernel has them, else the one whose conversions cost least (numba's rating; two equally
        good ones are ambiguous: TypeError, as where none can take them)."""
        actual = normalise(argtypes)
        if actual in self._kernels:
            return actual
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
            return best[0]
        raise TypeError(
            "No matching definition for argument type(s) %s (the kernel was compiled for %s)"
            % (", ".join(map(str, argtypes)), "; ".join("(%s)" % ", ".join(map(str, d)) for d in self._kernels))
        )

    def _declared_casts(self, argtypes, declared):
        """Where arguments of these types differ from the declared signature's: per argument, what casts it first
        (Python numbers to the declared number types, an int to a pointer), so the packed bytes are the declared
        type's; None where none differs."""
        actual = normalise(argtypes)
        if declared == actual:
            return None
        casts = tuple(_caster(a, d) for a, d in zip(actual, declared))
        return casts if any(casts) else None

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
            specialised = self._another()
            specialised._specialiser.kernel(normalise(argtypes))
            specialised._specialized = True
            self.specializations[argtypes] = specialised
        return specialised

    def _another(self):
        """A new dispatcher of the same function, options and extensions, none of its kernels compiled."""
        return Dispatcher(self.py_func, device=self.device, extensions=self.extensions, **self.options)

    @property
    def specialized(self):
        """True if the dispatcher is fixed to one signature (given at decoration, or by specialize())."""
        return self._specialized

    @property
    def overloads(self):
        """The compiled kernels by argument types; looked up with any layout's types, as numba's
        overloads[sig] is (int32[:, ::1] finds the kernel every 2-d int32 array shares)."""
        return _Overloads(self._compiled)

    @property
    def definitions(self):
        """The compiled kernels, a dict by argument types."""
        return dict(self._compiled)

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
            return kernel_loader.image(
                self._specialiser.specialisation(t), self.options, self.py_func.__name__, True
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
            cubin = kernel_loader.image(
                self._specialiser.specialisation(t), self.options, self.py_func.__name__, False
            )
            return compiler.disassemble(cubin, flags)

        found = _Overloads({t: sass(t) for t in self._pick(signature)})
        return found if signature is None else found.popitem()[1]

    def inspect_lto_ptx(self, signature=None):
        """numba's PTX after link-time optimisation: a kernel and its device functions are one NVRTC
        program here, so this is inspect_asm's PTX."""
        return self.inspect_asm(signature)

    def _attribute(self, method, signature):
        found = _Overloads({t: getattr(self._specialiser.kernel(t), method)() for t in self._pick(signature)})
        return found if signature is None and not self._specialized else found.popitem()[1]

    def get_regs_per_thread(self, signature=None):
        """The registers each thread uses: for one signature, or a dict for every compiled one (one value once specialized)."""
        return self._attribute("get_regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature=None):
        """The static shared memory of each block, in bytes: for one signature, or a dict for every compiled one (one value once specialized)."""
        return self._attribute("get_shared_mem_per_block", signature)

    def get_max_threads_per_block(self, signature=None):
        """The most threads a block may have: for one signature, or a dict for every compiled one (one value once specialized)."""
        return self._attribute("get_max_threads_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        """The local memory of each thread, in bytes: for one signature, or a dict for every compiled one (one value once specialized)."""
        return self._attribute("get_local_mem_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        """The constant memory the kernel uses, in bytes: for one signature, or a dict for every compiled one (one value once specialized)."""
        return self._attribute("get_const_mem_size", signature)

    def declared_signature(self, argtypes):
        """The declared signature a device-function call with these argument types uses (devicefn.py)."""
        return self.__ncc_device_function__.declared_signature(argtypes)

    def __repr__(self):
        return "<%s %s>" % ("device function" if self.device else "kernel", self.__name__)

    def _repr_html_(self):
        from numba_cuda_c import notebook  # the notebook helpers: loaded in a notebook only

        return notebook.html_of(self)


def jit(func_or_sig=None, device=False, **options):
    """numba's @cuda.jit: @jit, @jit(sig), @jit([sig, ...]), @jit(device=True), and the options
    debug, lineinfo, fastmath, opt, max_registers, cache, inline, forceinline (device functions
    __forceinline__), link, lto (accepted: a kernel and its device functions are one NVRTC program, so
    they are optimised together already), launch_bounds (__launch_bounds__), shared_memory_carveout and
    extensions (numba's argument handlers: each launch's arguments through their prepare_args)."""
    check_options(options)
    errors.jit_options_checked(options)
    if (
        callable(func_or_sig)
        and not isinstance(func_or_sig, (types.Type, types.Signature))
        and not types.is_numba_type(func_or_sig)
    ):
        return Dispatcher(func_or_sig, device=device, **options)
    errors.jit_target_checked(func_or_sig)
    sigs = None
    if func_or_sig is not None:
        sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]

    def decorate(func):
        dispatcher = Dispatcher(func, sigs=sigs, device=device, **options)
        dispatcher._specialized = not device and func_or_sig is not None and not isinstance(func_or_sig, list)
        return dispatcher

    return decorate


def _rebuild_dispatcher(payload, sigs, device, options, specialized):
    dispatcher = Dispatcher(_function_of_payload(payload), sigs=sigs, device=device, **options)
    dispatcher._specialized = specialized
    return dispatcher


def _rebuild_launch(dispatcher, key):
    return dispatcher[key]
