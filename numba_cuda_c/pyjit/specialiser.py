"""A kernel's specialisations (the specialiser): argument types -> a Specialisation, its CUDA C translated at the
first need (translate.py) or read from the disk cache (keyed as numba's cache index), then compiled and loaded
once (kernel_loader.py), under a lock: threads launching a new signature at once get one kernel."""

import collections
import os
import threading
import zlib

from numba_cuda_c import _cuda, _version
from numba_cuda_c.toolchain import compiler
from numba_cuda_c.pyjit import bundles, kernel_loader
from numba_cuda_c.pyjit.extern import MARK as _EXTERN_MARK
from numba_cuda_c.pyjit.extern import links_of
from numba_cuda_c.pyjit.launching import CompiledKernel
from numba_cuda_c.pyjit.lib import CAPTURES_DEVICE_MEMORY as _CAPTURES_MARK  # light: not the translator
from numba_cuda_c.pyjit.names import KERNEL_PREFIX, c_symbol
from numba_cuda_c.pyjit.pickling import _closure_key


class Specialisation:
    """One compiled signature of a kernel: its argument types, its CUDA C (and the C name of the kernel
    in it), what it is linked with (None: nothing, not relocatable), the global device arrays its code
    reads by pointer (kept alive as long as the kernel may run), what its launch must do (cooperative,
    a deep stack), how often the disk cache had its translation, whether its compilation was marked
    launch-config sensitive, and, once loaded, its Kernel (and the CompiledKernel overloads show)."""

    __slots__ = (
        "argtypes",
        "name",
        "source",
        "captured",
        "links",
        "launch_flags",
        "cache_hits",
        "cache_misses",
        "launch_config_sensitive",
        "kernel",
        "compiled",
    )

    def __init__(self, argtypes, name, source, captured, links, launch_flags):
        self.argtypes, self.name, self.source, self.captured, self.links = argtypes, name, source, captured, links
        self.launch_flags = frozenset(launch_flags)
        self.cache_hits = self.cache_misses = 0
        self.launch_config_sensitive = False
        self.kernel = self.compiled = None


CompileStats = collections.namedtuple("_CompileStats", ("cache_path", "cache_hits", "cache_misses"))


class Specialiser:
    """The specialisations of one Python function with one set of options, in the order they were made.
    on_reset: a weak method the loader calls with a signature's argument types where a context reset unloaded
    its kernel (the dispatcher's launches forget it)."""

    def __init__(self, py_func, options, on_reset):
        self.py_func, self.options, self.on_reset = py_func, options, on_reset
        self.by_types = {}  # argument types -> Specialisation
        self.lock = threading.RLock()
        self.refreshing = False  # recompile(): translations are made again, not read from the disk cache

    def kernel(self, argtypes):
        """The loaded Kernel of these argument types: from a bundle that has it (bundles.py), else translated,
        compiled and loaded, at the first need."""
        specialisation = self.by_types.get(argtypes)
        if specialisation is None or specialisation.kernel is None:
            with self.lock:  # threads launching a new signature at once: one compiles and loads
                specialisation = self.by_types.get(argtypes)
                if specialisation is None or specialisation.kernel is None:
                    self._load(argtypes)
                specialisation = self.by_types[argtypes]
        return specialisation.kernel

    def _load(self, argtypes):
        # a bundle's entry and its image for this device, or None and why a bundle of the function was not used
        entry, image_or_refusal = (
            (None, None) if self.refreshing else bundles.find(self.py_func, argtypes, self.options)
        )
        if entry is not None:  # neither the translator nor NVRTC
            specialisation = self.by_types.get(argtypes)
            if specialisation is None:
                specialisation = self.by_types[argtypes] = Specialisation(
                    argtypes, entry["name"], entry["source"], [], None, entry["launch_flags"]
                )
            specialisation.kernel = kernel_loader.load_image(specialisation, image_or_refusal, self.options)
            return
        refused = image_or_refusal
        specialisation = self.specialisation(argtypes)
        try:
            specialisation.kernel = kernel_loader.load(
                specialisation, self.options, self.py_func.__name__, self.on_reset
            )
        except _cuda.NvrtcError as exc:
            if refused is None:
                raise
            raise _cuda.NvrtcError("%s\n(compiled because its bundle was not used: %s)" % (exc, refused)) from exc

    @property
    def kernels(self):
        """The loaded kernels by argument types, in the order their signatures were made."""
        return {t: s.kernel for t, s in self.by_types.items() if s.kernel is not None}

    @property
    def compiled(self):
        """The loaded kernels as numba's overloads hold them (CompiledKernel), by argument types, in order."""
        found = {}
        for t, s in self.by_types.items():
            if s.kernel is not None:
                if s.compiled is None:
                    s.compiled = CompiledKernel(s, self.py_func)
                found[t] = s.compiled
        return found

    def specialisation(self, argtypes):
        """The Specialisation of these argument types, translated at the first need (or read from the disk
        cache), not yet compiled."""
        specialisation = self.by_types.get(argtypes)
        if specialisation is None:
            key = self.cache_key(argtypes)
            # the kernel's C name, the same in every process (the disk cache's source holds it); each
            # signature is a module of its own, so a short digest only tells them apart in profilers
            name = "%s_%08x" % (c_symbol(self.py_func.__name__), zlib.crc32(repr(argtypes).encode()))
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
                (text, flags), hit = compiler.cached_translation(key, translate, refresh=self.refreshing)
            if not externs and _EXTERN_MARK in text:  # from the disk cache: learn the declarations' links
                text, flags = translate()
            if not captured and text.startswith(_CAPTURES_MARK):  # another process's pointers: made again
                text, flags = translate()
            specialisation = Specialisation(argtypes, name, text, captured, self.link_list(externs), flags)
            specialisation.cache_hits, specialisation.cache_misses = int(hit is True), int(hit is False)
            self.by_types[argtypes] = specialisation
        return specialisation

    def link_list(self, externs):
        """What a kernel calling these declared device functions is linked with: the link= option's
        files, then the declarations'; None where it is not linked at all."""
        link = self.options.get("link") or ()
        link = [link] if isinstance(link, (str, os.PathLike)) else list(link)
        if not link and not externs:
            return None
        return link + [item for item in links_of(externs) if item not in link]

    def cache_key(self, argtypes):
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
                KERNEL_PREFIX,  # the kernel's C name is in the source: an entry of another naming is not read
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

    def stats(self):
        """numba's compile statistics: the disk cache's folder and, per signature, how often a compilation found
        its translation there (cache_hits) or made it (cache_misses). Only cache=True counts."""
        hits, misses = collections.Counter(), collections.Counter()
        for t, s in self.by_types.items():
            hits[t] += s.cache_hits
            misses[t] += s.cache_misses
        return CompileStats(compiler.cache_dir(), +hits, +misses)

    def recompile(self):
        """Each signature loaded so far translated and loaded again, reading the function's globals as they are now,
        and with cache=True written to the disk cache anew; numba's stats go on counting."""
        with self.lock:
            signatures = list(self.kernels)
            counts = {t: (s.cache_hits, s.cache_misses) for t, s in self.by_types.items()}
            self.by_types = {}
            self.refreshing = True
            try:
                for argtypes in signatures:
                    self.kernel(argtypes)
            finally:
                self.refreshing = False
                for argtypes, (hits, misses) in counts.items():
                    specialisation = self.by_types.get(argtypes)
                    if specialisation is not None:
                        specialisation.cache_hits += hits
                        specialisation.cache_misses += misses

    def forget(self, argtypes):
        """Drops a loaded kernel (its context was reset): the next launch compiles and loads again."""
        specialisation = self.by_types.get(argtypes)
        if specialisation is not None:
            specialisation.kernel = None
