"""python -m numba_cuda_c build: an ahead-of-time bundle of a module's kernels (bundles.py says what one is and how
dispatchers use it). No GPU is needed: the module is imported with its declared signatures recorded, not compiled,
and each is translated and compiled by NVRTC for the architectures asked."""

import os

from numba_cuda_c import _version
from numba_cuda_c.pyjit import bundles
from numba_cuda_c.pyjit.bundles import SUFFIX, Bundle, entry_key, file_digest


def parse_archs(text):
    """'80,90' (or 'sm_80,9.0') -> [(8, 0), (9, 0)]."""
    archs = []
    for part in text.split(","):
        digits = part.strip().lower().removeprefix("sm_").removeprefix("compute_").replace(".", "")
        if not digits.isdigit() or len(digits) < 2:
            raise ValueError("--arch takes compute capabilities such as 80,90 (or 8.0,9.0), not %r" % part)
        archs.append((int(digits[:-1]), int(digits[-1])))
    return sorted(set(archs))


def build(target, archs, ptx=False, output=None):
    """Compiles every @cuda.jit kernel with declared signatures of a module (a file's path or a module's name) for
    each architecture (CUBIN) and, with ptx, as PTX of the oldest for newer GPUs; writes the bundle (beside the
    module's file by default). No GPU is needed. Returns (path, [kernel, ...], [(kernel, why not bundled), ...])."""
    from numba_cuda_c.toolchain import compiler
    from numba_cuda_c.pyjit import kernel_loader
    from numba_cuda_c.pyjit.dispatcher import Dispatcher

    module, filename = _import(target)
    base = os.path.basename(filename)
    bundle = Bundle(
        output or os.path.splitext(filename)[0] + SUFFIX,
        {"package": _version.__version__, "files": {base: file_digest(filename)}, "entries": {}},
    )
    done, skipped, seen = [], [], set()
    for dispatcher in vars(module).values():
        if (
            not isinstance(dispatcher, Dispatcher)
            or dispatcher.device
            or not dispatcher._sigs
            or id(dispatcher) in seen
        ):
            continue
        seen.add(id(dispatcher))
        if dispatcher.py_func.__code__.co_filename != filename:
            continue  # imported from another module: bundled with that one
        for sig in dispatcher._sigs:
            argtypes = dispatcher._declared_argtypes(sig)
            what = "%s(%s)" % (dispatcher.py_func.__qualname__, ", ".join(map(str, argtypes)))
            specialisation = dispatcher._specialiser.specialisation(argtypes)
            if specialisation.links is not None:
                skipped.append((what, "it links files or declared device functions: compiled where it runs"))
                continue
            if specialisation.captured:
                skipped.append((what, "it reads global device arrays by pointer, which exist only where it runs"))
                continue
            flags = kernel_loader.nvrtc_options_of(dispatcher.options)
            name = dispatcher.py_func.__name__ + ".cu"
            images = {
                a: compiler.compile_image(specialisation.source, flags, a, name, disk_cache=False) for a in archs
            }
            oldest = archs[0]
            bundle.entries[entry_key(dispatcher.py_func, argtypes, dispatcher.options)] = {
                "name": specialisation.name,
                "source": specialisation.source,
                "launch_flags": tuple(sorted(specialisation.launch_flags)),
                "images": images,
                "ptx": (oldest, compiler.compile_image(specialisation.source, flags, oldest, name, True, False))
                if ptx
                else None,
            }
            done.append(what)
    bundle.write()
    return bundle.path, done, skipped


def _import(target):
    """(module, its file) for a file's path or a module's name, imported with declared signatures recorded only."""
    import importlib
    import importlib.util
    import sys

    bundles.building = True
    try:
        if target.endswith(".py") or os.path.sep in target or os.path.isfile(target):
            path = os.path.abspath(target)
            if not os.path.isfile(path):
                raise FileNotFoundError("no such file: %s" % target)
            name = os.path.splitext(os.path.basename(path))[0]
            sys.path.insert(0, os.path.dirname(path))  # its own imports, as python file.py finds them
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    finally:
        bundles.building = False
    return module, module.__file__
