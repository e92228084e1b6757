"""The device libraries numba ships, as a table: one entry per function, in one module per family
(core.py: grid, barriers, fma, bit functions; atomics.py: cuda.atomic.* and the cache hints; pymath.py:
math and cmath; pybuiltins.py: abs, min, len, ...; numbers.py: conversions, number methods, vector
constructors; cg.py: cooperative groups; warp.py; fp16.py, bf16.py and fp8.py; random_numbers.py: xoroshiro128+;
libdevice.py: the __nv_* functions), each with one typing rule and one C rule.

An entry is found by its path under `cuda` (("cg", "this_grid")), by the object a kernel names
(numba_cuda_c.random.xoroshiro128p_uniform_float32, imported into its globals), or by a method of an
opaque device type (("GridGroup", "sync")). Its `requires` names C the source needs (a header, helper
functions: REQUIREMENTS) and what the launch must do (a cooperative launch): the translation returns them
beside its source (translate_kernel's launch_flags), and the disk cache keeps them with it.

Adding a function is one `Intrinsic(...)` in its family's module; the table and the entries' classes are in
table.py."""

import importlib

from numba_cuda_c.pyjit.lib.table import (  # noqa: F401  (the library's names, from its table)
    CAPTURES_DEVICE_MEMORY,
    REQUIREMENTS,
    TABLE,
    Intrinsic,
    Requirement,
)


def lookup(path):
    """The entry for a path, loading the families on first use."""
    _load()
    return TABLE.get(tuple(path))


def requirement(name):
    """The Requirement of this name, loading the families first (bf16's header is its family's: a translation can
    name the type, as a conversion, before anything looked an entry up)."""
    _load()
    return REQUIREMENTS[name]


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


# the modules of the families, one per kind of library function
FAMILIES = (
    "atomics",
    "bf16",
    "cg",
    "core",
    "fp16",
    "fp8",
    "libdevice",
    "numbers",
    "pybuiltins",
    "pymath",
    "random_numbers",
    "warp",
)


def _load():
    """The families, imported at the first lookup (each registers its entries in the table), not with pyjit."""
    if not _loaded:
        for family in FAMILIES:  # each registers its entries as it is imported
            importlib.import_module("numba_cuda_c.pyjit.lib." + family)

        _loaded.append(True)


_loaded = []
