"""A home for code written against numba.cuda: after `install()`, `from numba import cuda`,
`import numba.cuda` and `numba.cuda.<submodule>` resolve to numba_cuda_c (and its submodules), with or
without numba installed. Libraries that import numba.cuda then run on numba_cuda_c unchanged.

    import numba_cuda_c.alias
    numba_cuda_c.alias.install()     # before anything imports numba.cuda
    import some_library_using_numba_cuda

or, for a whole program: `python -m numba_cuda_c program.py [args]` (or `-m package.module`).

An import-system finder placed ahead of every other (numba-cuda's own redirector included) answers for
`numba.cuda` and its submodules. Where numba itself is not installed it also answers for `numba`, with a
small package holding `cuda` and the type names numba.cuda programs import from numba (`float32`,
`int32`, `void`, `types`, ...). numba's CPU side (`numba.njit`) is numba's, and is absent without it.

With NUMBA_CUDA_C_AS_NUMBA_CUDA=1, the .pth file installed beside the package (numba_cuda_c_alias.pth) puts a
finder of its own first at every interpreter start: a plain object, so the start imports nothing (neither
this module nor importlib.abc), which calls `_hook_fired` at the program's first import of numba; install()
then takes its place. A process that never imports numba pays one string test per import.
"""

import importlib
import importlib.machinery
import importlib.util
import sys
import types as _pytypes

from numba_cuda_c import types

_PREFIX = "numba.cuda"
_TARGET = "numba_cuda_c"


def _target_of(fullname):
    """numba.cuda.X.Y -> numba_cuda_c.X.Y."""
    return _TARGET + fullname[len(_PREFIX) :]


# The loaders and the finder are plain classes: the import system asks only for their methods, and
# importlib.abc costs a process about 25 ms to import (importlib.resources, pathlib, typing).


class _AliasLoader:
    """Puts the aliased module itself in sys.modules under the numba name (the import system returns
    what sys.modules holds once the module has executed)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return None  # a placeholder module: exec_module replaces it

    def exec_module(self, module):
        sys.modules[module.__name__] = importlib.import_module(self.target)


class _NumbaStubLoader:
    """The `numba` package where numba is not installed: `cuda` and the type names."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []  # a package: numba.cuda is found through the finder
        for name in dir(types):
            value = getattr(types, name)
            if isinstance(value, types.Type) or name in ("from_dtype", "typeof"):
                setattr(module, name, value)
        module.types = types
        module.__doc__ = "numba_cuda_c standing in for numba (not installed): numba.cuda and its types only."
        # `from numba import njit` names the module's file in its message, where a real file would be: say why
        module.__file__ = STAND_IN
        module.__getattr__ = _missing_from_the_stand_in


STAND_IN = "numba is not installed: numba_cuda_c stands in for numba.cuda and numba's types only"


def _missing_from_the_stand_in(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("numba has no attribute %r here (%s; pip install numba for the rest)" % (name, STAND_IN))


class _Finder:
    def find_spec(self, fullname, path=None, target=None):
        if fullname == _PREFIX or fullname.startswith(_PREFIX + "."):
            target_name = _target_of(fullname)
            try:
                found = importlib.util.find_spec(target_name)
            except ModuleNotFoundError:
                found = None
            if found is None:  # no other finder may answer (numba-cuda's would mix its modules with ours)
                raise ModuleNotFoundError(
                    "No module named %r (numba_cuda_c stands in for numba.cuda, and has no %s)"
                    % (fullname, target_name),
                    name=fullname,
                )
            is_package = found.submodule_search_locations is not None
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name), is_package=is_package)
        if fullname == "numba" and not _numba_installed():
            return importlib.machinery.ModuleSpec("numba", _NumbaStubLoader(), is_package=True)
        return None


_finder = _Finder()


def _numba_installed():
    return importlib.machinery.PathFinder.find_spec("numba") is not None


# the class name numba_cuda_c_alias.pth gives its finder (the .pth file cannot import anything to compare with)
_HOOK_CLASS = "NumbaCudaCAliasHook"


def _is_hook(finder):
    return type(finder).__name__ == _HOOK_CLASS


def _remove_hooks():
    sys.meta_path[:] = [finder for finder in sys.meta_path if not _is_hook(finder)]


def _hook_fired(hook, fullname, path=None, target=None):
    """Called by numba_cuda_c_alias.pth's finder at the program's first import of numba or numba.<name>:
    install() takes the hook's place, then answers. The import system is going through sys.meta_path while
    this runs: install() puts our finder first before it takes the hook out, so that no finder after the
    hook is passed over."""
    if not installed():
        install()
    return _finder.find_spec(fullname, path, target)


def installed():
    """Whether install() is in effect."""
    return _finder in sys.meta_path


def pending():
    """Whether NUMBA_CUDA_C_AS_NUMBA_CUDA=1's start-up finder waits for the program's first import of numba
    (install() then runs)."""
    return not installed() and any(_is_hook(finder) for finder in sys.meta_path)


def install():
    """Makes numba.cuda (and numba, where it is not installed) resolve to numba_cuda_c, from now on.
    RuntimeError if numba.cuda was imported already (its objects would mix with ours)."""
    if installed():
        sys.meta_path.remove(_finder)
        sys.meta_path.insert(0, _finder)
    else:
        imported = [name for name in sys.modules if name == _PREFIX or name.startswith(_PREFIX + ".")]
        if any(not getattr(sys.modules[name], "__name__", "").startswith(_TARGET) for name in imported):
            raise RuntimeError(
                "numba.cuda is imported already (numba-cuda's own); call numba_cuda_c.alias.install() before "
                "anything imports numba.cuda, or run the program with `python -m numba_cuda_c program.py`"
            )
        sys.meta_path.insert(0, _finder)
    _remove_hooks()  # the start-up finder has nothing left to do


def uninstall():
    """Undoes install(): later imports of numba.cuda find numba-cuda again (modules imported meanwhile stay)."""
    if installed():
        sys.meta_path.remove(_finder)
    _remove_hooks()  # nor may NUMBA_CUDA_C_AS_NUMBA_CUDA's start-up finder install it again
    for name in [n for n in sys.modules if n == _PREFIX or n.startswith(_PREFIX + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(_TARGET):
            del sys.modules[name]
    numba = sys.modules.get("numba")
    if isinstance(numba, _pytypes.ModuleType) and isinstance(getattr(numba, "__loader__", None), _NumbaStubLoader):
        del sys.modules["numba"]
