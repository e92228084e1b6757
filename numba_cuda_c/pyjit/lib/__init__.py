"""The device libraries numba ships, as a table: one entry per function, in one module per family
(core.py: grid, barriers, fma, bit functions; atomics.py: cuda.atomic.* and the cache hints; pymath.py: math and cmath; pybuiltins.py: abs, min, len, ...; numbers.py: conversions, number methods, vector constructors; cg.py: cooperative groups; warp.py; fp16.py and bf16.py; random.py:
xoroshiro128+; libdevice.py: the __nv_* functions), each with
one typing rule and one C rule.

An entry is found by its path under `cuda` (("cg", "this_grid")), by the object a kernel names
(numba_cuda_c.random.xoroshiro128p_uniform_float32, imported into its globals), or by a method of an
opaque device type (("GridGroup", "sync")). Its `requires` names C the source needs (a header, helper
functions: REQUIREMENTS) and what the launch must do (a cooperative launch): the translation carries
them as its first lines (translate.py), so they survive the disk cache.

Adding a function is one `Intrinsic(...)` in its family's module."""

TABLE = {}  # path -> Intrinsic

# The first line of a translation that bakes in a global device array's pointer: valid in this process
# only, so a translation read from the disk cache with it is made again (the dispatcher checks).
CAPTURES_DEVICE_MEMORY = "// numba_cuda_c: captures device memory by pointer"

# A translation's first line naming what its launch must do ("// numba_cuda_c launch: cooperative"):
# written by translate.py, read back by the dispatcher (from the disk cache too) without importing it
LAUNCH_MARK = "// numba_cuda_c launch: "


def launch_flags_of(source):
    """The launch flags a translation's first lines name."""
    for line in source.splitlines()[:3]:
        if line.startswith(LAUNCH_MARK):
            return line[len(LAUNCH_MARK) :].split()
    return []

REQUIREMENTS = {}  # name -> Requirement


class Requirement:
    """C the source needs once (`code`, placed after the prelude), and launch flags it implies."""

    def __init__(self, name, code, launch=()):
        self.name, self.code, self.launch = name, code, tuple(launch)
        REQUIREMENTS[name] = self


class Intrinsic:
    """A device function numba provides. typing(args) -> result type (raise TypeError with the reason
    to refuse the arguments), or a literal Value where the result is known when compiling (len of a tuple);
    emit(codes, args, result) -> the C expression. Calling one on the host
    is an error, as numba's are (they are device functions)."""

    def __init__(self, path, typing, emit, requires=(), doc=None, statements=False):
        self.path, self.typing, self.emit, self.requires = tuple(path), typing, emit, tuple(requires)
        # statements: emit(codes, args, result, translator) may write statements first (translator.emit)
        # and, for a tuple result, returns the items' C expressions
        self.statements = statements
        self.__name__ = self.path[-1]
        self.__qualname__ = ".".join(self.path)
        self.__doc__ = doc
        TABLE[self.path] = self

    def __call__(self, *args, **kwargs):
        raise TypeError("%s is a device function: call it from a @cuda.jit kernel" % self.__qualname__)

    def __repr__(self):
        return "<device function cuda.%s>" % self.__qualname__


def lookup(path):
    """The entry for a path, loading the families on first use."""
    _load()
    return TABLE.get(tuple(path))


def module_functions(family, namespace, what):
    """__getattr__ and __dir__ for a user-facing module that names a family's functions (numba_cuda_c.libdevice,
    numba_cuda_c.bf16): each name found in the table on first use, then kept in the module's namespace."""

    def __getattr__(name):
        entry = lookup((family, name))
        if entry is None:
            raise AttributeError("%s has no function %r" % (what, name))
        namespace[name] = entry
        return entry

    def __dir__():
        _load()
        return sorted({n for n in namespace if not n.startswith("_")} | {p[1] for p in TABLE if p[0] == family})

    return __getattr__, __dir__


def _load():
    if not _loaded:
        from numba_cuda_c.pyjit.lib import atomics, bf16, cg, core, fp16, libdevice, numbers, pybuiltins, pymath, random, warp  # noqa: F401  (registering)

        _loaded.append(True)


_loaded = []
