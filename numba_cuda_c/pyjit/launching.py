"""What numba's dispatcher gives around a launch, beyond the launch itself (the C path, src/launch/dispatch.c):
the compiled kernels as numba's overloads hold them (CompiledKernel, with the translation's types as numba's
_type_annotation), a configured launch through numba's argument extensions (ExtendedLaunch), and compilation
per launch configuration for kernels marked launch-config sensitive (LaunchConfigSensitivity, a base of the
Dispatcher)."""

from numba_cuda_c import launchconfig, types
from numba_cuda_c.pyjit.devicefn import normalise


class TypeAnnotation:
    """numba's type annotation of a compiled kernel: `typemap`, the type of each of its variables (and its
    arguments) as the translator typed them; printed, the typed listing inspect_types prints."""

    def __init__(self, py_func, argtypes):
        from numba_cuda_c.pyjit.translate import typed_listing, variable_types  # the translator: when asked for

        self.typemap, self.return_type = variable_types(py_func, argtypes)
        self._listing = typed_listing(py_func, argtypes)

    def __str__(self):
        return self._listing


class CompiledKernel:
    """One compiled signature of a kernel, as numba's Dispatcher.overloads holds it (numba's _Kernel): the loaded
    Kernel's attributes and methods (max_cooperative_grid_blocks, get_regs_per_thread, kernel[griddim, blockdim],
    ...) with numba's own: argument_types, launch_config_sensitive and _type_annotation."""

    __slots__ = ("_specialisation", "_py_func", "_annotation", "argument_types")

    def __init__(self, specialisation, py_func):
        self._specialisation, self._py_func, self._annotation = specialisation, py_func, None
        self.argument_types = specialisation.argtypes

    @property
    def launch_config_sensitive(self):
        """Whether its compilation was marked launch-config sensitive: it serves one launch configuration."""
        return self._specialisation.launch_config_sensitive

    @property
    def _type_annotation(self):
        if self._annotation is None:  # a typing of its own: made only for who asks
            self._annotation = TypeAnnotation(self._py_func, self._specialisation.argtypes)
        return self._annotation

    def _loaded(self):
        kernel = self._specialisation.kernel
        if kernel is None:
            raise RuntimeError("this kernel was unloaded (its context was reset): launch it again to reload it")
        return kernel

    def __getattr__(self, name):
        return getattr(self._loaded(), name)

    def __getitem__(self, key):
        return self._loaded()[key]

    def __repr__(self):
        return "<compiled kernel %s(%s)>" % (self._py_func.__name__, ", ".join(map(str, self.argument_types)))


class ExtendedLaunch:
    """A configured launch of a kernel with numba's argument extensions (@cuda.jit(extensions=[...])): each
    argument and its type (numba's: the compiled kernel's argument type) go through every extension's
    prepare_args(ty, val, stream=, retr=), the last extension first, as numba's; the launch takes the values they
    return, and the functions they append to retr run after it (copies back, as numba's). Every other attribute
    (dispatcher, griddim, pre_launch_callbacks, ...) is the configured launch's."""

    __slots__ = ("_launcher", "_extensions", "_stream", "_argument_types")

    def __init__(self, launcher, extensions, stream, argument_types):
        self._launcher, self._extensions, self._stream = launcher, extensions, stream
        self._argument_types = argument_types  # args -> their types, as the extensions are to see them

    def __call__(self, *args):
        retr = []
        prepared = []
        for argtype, value in zip(self._argument_types(args), args):
            for extension in reversed(self._extensions):
                argtype, value = extension.prepare_args(argtype, value, stream=self._stream, retr=retr)
            prepared.append(value)
        self._launcher(*prepared)
        for step in retr:
            step()

    def __getattr__(self, name):
        return getattr(self._launcher, name)

    def __reduce__(self):
        return self._launcher.__reduce__()


def launch_config_key(info):
    """numba's key of a launch configuration for launch-config-sensitive kernels: (griddim, blockdim, sharedmem)
    of a configured launch's (dispatcher, griddim, blockdim, stream, sharedmem)."""
    return (info[1], info[2], info[4])


class LaunchConfigSensitivity:
    """numba's launch-config-sensitive kernels, for the Dispatcher: a compilation that launch made may be marked
    (mark_launch_config_sensitive(), by code that compiles differently for different launches); from then on,
    each other launch configuration (griddim, blockdim, sharedmem) gets kernels of its own, compiled by a
    dispatcher of its own, as numba's. Dispatchers never marked pay nothing: each launch configuration's C
    dispatch (its Dispatch) finds its kernel once."""

    def _init_launch_config_sensitivity(self):
        self._launch_config_sensitive = False  # a kernel of it was marked
        self._launch_config_default_key = None  # the configuration this dispatcher's own kernels serve
        self._launch_config_is_specialized = False  # it is one configuration's dispatcher
        self._launch_config_specializations = {}  # configuration key -> its dispatcher

    def mark_launch_config_sensitive(self):
        """Mark the compilation in progress, which a launch of this dispatcher made, as launch-config sensitive:
        its kernel serves this launch configuration only. RuntimeError outside such a compilation."""
        launch = launchconfig.current_launch()
        if launch is None:
            raise RuntimeError("No launch config set for this thread")
        if launch.config.dispatcher is not self:
            raise RuntimeError(
                "mark_launch_config_sensitive() must be called on the active launch configuration's dispatcher"
            )
        launch.sensitive = True

    def _launch_config_dispatcher(self, key):
        """The dispatcher whose kernels serve launch configuration `key`: this one, unless it is launch-config
        sensitive and `key` is not the configuration its own kernels serve."""
        if not self._launch_config_sensitive or self._launch_config_is_specialized:
            return self
        if self._launch_config_default_key is None:
            self._launch_config_default_key = key
        if key == self._launch_config_default_key:
            return self
        dispatcher = self._launch_config_specializations.get(key)
        if dispatcher is None:
            dispatcher = self._launch_config_specializations[key] = self._another()
            dispatcher._launch_config_sensitive = dispatcher._launch_config_is_specialized = True
            dispatcher._launch_config_default_key = key
        return dispatcher

    def _compiled_for_launch(self, argtypes, args, key, launch):
        """The CompiledKernel for these arguments (of these types) under launch configuration `key`: compiled by
        _compile_for_args (numba's hook, which a launch calls only where it must compile), marked
        launch-config sensitive where its compilation was."""
        specialisation = self._specialiser.by_types.get(argtypes)
        if specialisation is None or specialisation.kernel is None:
            specialisation = self._compile_for_args(*args)._specialisation
        compiled = self._compiled[argtypes]
        if launch.sensitive:
            specialisation.launch_config_sensitive = True
        if specialisation.launch_config_sensitive:
            self._launch_config_sensitive = True
            if self._launch_config_default_key is None:
                self._launch_config_default_key = key
        return compiled


class Overloads(dict):
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
