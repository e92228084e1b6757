"""numba's Linker (numba.cuda.cudadrv.driver.Linker / _Linker) on the driver's JIT linker
(src/launch/linker.c): PTX, CUDA C (compiled here by NVRTC as relocatable code), CUBIN, fatbin, object and
library inputs, from files or memory (LinkableCode), linked into one CUBIN. Linking runs once per
kernel specialisation, so it is Python; the driver's work is in C with the GIL released.

LTO-IR (.ltoir) needs nvJitLink, which numba_cuda_c does not use: it raises LinkerError.
"""

import os

from numba_cuda_c import _cuda
from numba_cuda_c.toolchain import compiler
from numba_cuda_c.toolchain import libraries
from numba_cuda_c.errors import LinkerError
from numba_cuda_c.toolchain.linkable_code import FILE_EXTENSION_MAP, LTOIR, LinkableCode

_CU_JIT_INPUT_CUBIN = FILE_EXTENSION_MAP["cubin"]
_CU_JIT_INPUT_PTX = FILE_EXTENSION_MAP["ptx"]
_CUDA_ERROR_FILE_NOT_FOUND = 301
_NO_LTO = "linking LTO-IR (%s) needs nvJitLink, which numba_cuda_c does not use: link PTX, CUBIN or CUDA C instead"
_cu_cache = {}  # (source, name, cc, includes) -> PTX: a .cu linked into many kernels compiles once


def _suffix(path):
    """The file's extension, as pathlib's suffix (pathlib itself costs the import 20 ms)."""
    name = os.path.basename(path)
    return os.path.splitext(name)[1] if not name.endswith(".") else ""


def _warn(message):
    import warnings

    warnings.warn(message, stacklevel=3)


def _log_size():
    try:
        return max(1, int(os.environ.get("NUMBA_CUDA_LOG_SIZE", "1024")))
    except ValueError:
        return 1024


def _extra_include_dirs():
    text = os.environ.get("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
    return [d for d in text.split(":") if d]


def compile_cu(source, name, cc=None, include_dirs=()):
    """CUDA C -> PTX for linking: relocatable device code (-rdc=true, so that device functions no
    kernel calls are kept), for cc (default: the current device's). NVRTC's log, where it has one,
    becomes a warning as in numba; a failed compile raises NvrtcError with the log."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = bytes(source).decode("utf8")
    cc = tuple(cc[:2]) if cc else compiler.default_arch()
    includes = [*libraries.include_dirs(), *include_dirs, *_extra_include_dirs()]
    key = (source, name, cc, tuple(includes))
    ptx = _cu_cache.get(key)
    if ptx is None:
        options = ["-arch=compute_%d%d" % cc, "-rdc=true"] + ["-I" + d for d in includes]
        ptx, log = _cuda.nvrtc_compile(source, name, options, True)
        if log.strip():
            _warn("NVRTC log messages whilst compiling %s:\n\n%s" % (name, log))
        _cu_cache[key] = ptx
    return ptx


class Linker:
    """numba's Linker: Linker.new(max_registers=0, lineinfo=False, cc=None) (or Linker(...), as
    numba-cuda's _Linker), inputs added with add_ptx, add_cu, add_file(path, kind),
    add_file_guess_ext(path_or_code), ...; complete() -> the CUBIN (bytes). Links for cc, else for
    the current context's device."""

    @classmethod
    def new(cls, max_registers=0, lineinfo=False, cc=None, lto=None, additional_flags=None):
        return cls(max_registers, lineinfo, cc, lto, additional_flags)

    def __init__(self, max_registers=0, lineinfo=False, cc=None, lto=None, additional_flags=None):
        if lto or additional_flags:
            raise ValueError("LTO and additional flags require nvJitLink, which numba_cuda_c does not use")
        self.max_registers = max_registers or None
        self.lineinfo, self.cc, self.lto = lineinfo, cc, False
        self._state = _cuda.Linker(max_registers or 0, bool(lineinfo), tuple(cc[:2]) if cc else None, _log_size())
        self._complete = False

    @property
    def info_log(self):
        """The linker's information log."""
        return self._state.info_log

    @property
    def error_log(self):
        """The linker's error log."""
        return self._state.error_log

    def _add(self, data, kind, name):
        try:
            self._state.add_data(data, kind, name)
        except _api_error() as e:
            raise LinkerError("%s\n%s" % (e, self.error_log)) from None

    def add_ptx(self, ptx, name="<cudapy-ptx>"):
        """Add PTX source (str or bytes) to the link."""
        self._add(ptx.encode() if isinstance(ptx, str) else ptx, _CU_JIT_INPUT_PTX, name)

    def add_cu(self, cu, name="<cudapy-cu>", include_dirs=()):
        """Add CUDA C source (str or bytes) to the link, compiled by NVRTC; name is its file name."""
        ptx = compile_cu(cu, name, self.cc, include_dirs)
        self.add_ptx(ptx, os.path.splitext(name)[0] + ".ptx")

    def add_cu_file(self, path):
        try:
            with open(path, "rb") as f:
                cu = f.read()
        except FileNotFoundError:
            raise LinkerError(f"{path} not found") from None
        self.add_cu(cu, os.path.basename(path), include_dirs=[os.path.dirname(os.path.abspath(path))])

    def add_cubin(self, cubin, name="<cudapy-cubin>"):
        self._add(cubin, _CU_JIT_INPUT_CUBIN, name)

    def add_fatbin(self, fatbin, name="<cudapy-fatbin>"):
        self._add(fatbin, FILE_EXTENSION_MAP["fatbin"], name)

    def add_object(self, obj, name="<cudapy-object>"):
        self._add(obj, FILE_EXTENSION_MAP["o"], name)

    def add_library(self, lib, name="<cudapy-lib>"):
        self._add(lib, FILE_EXTENSION_MAP["a"], name)

    def add_ltoir(self, ltoir, name="<cudapy-ltoir>"):
        raise LinkerError(_NO_LTO % name)

    def add_data(self, data, kind, name):
        """Add in-memory data of a kind (FILE_EXTENSION_MAP's values, or 'cu') to the link."""
        if kind == "cu":
            self.add_cu(data, name)
        elif kind == FILE_EXTENSION_MAP["ltoir"]:
            self.add_ltoir(data, name)
        elif kind in FILE_EXTENSION_MAP.values():
            self._add(data.encode() if isinstance(data, str) else data, kind, name)
        else:
            raise LinkerError(f"Don't know how to link {kind}")

    def add_file(self, path, kind):
        """Add a file of a kind (FILE_EXTENSION_MAP's values, or 'cu') to the link."""
        path = os.fspath(path)
        if kind == "cu":
            return self.add_cu_file(path)
        if not os.path.isfile(path):
            raise LinkerError(f"{path} not found")
        if kind == FILE_EXTENSION_MAP["ltoir"]:
            raise LinkerError(_NO_LTO % path)
        if kind not in FILE_EXTENSION_MAP.values():
            raise LinkerError(f"Don't know how to link {kind}")
        try:
            self._state.add_file(path, kind)
        except _api_error() as e:
            if e.code == _CUDA_ERROR_FILE_NOT_FOUND:
                raise LinkerError(f"{path} not found") from None
            raise LinkerError("%s\n%s" % (e, self.error_log)) from None

    def add_file_guess_ext(self, path_or_code, ignore_nonlto=False):
        """Add a file (its kind from its extension) or a LinkableCode object to the link."""
        if isinstance(path_or_code, (str, os.PathLike)):
            path = os.fspath(path_or_code)
            ext = _suffix(path)
            if ext == "":
                raise RuntimeError("Don't know how to link file with no extension")
            if ext == ".cu":
                return self.add_cu_file(path)
            kind = FILE_EXTENSION_MAP.get(ext.lstrip("."))
            if kind is None:
                raise RuntimeError(f"Don't know how to link file with extension {ext}")
            if ignore_nonlto and kind != FILE_EXTENSION_MAP["ltoir"]:
                _warn(f"Not adding {path} as it is not optimizable at link time, and `ignore_nonlto == True`.")
                return None
            return self.add_file(path, kind)
        if not isinstance(path_or_code, LinkableCode):
            raise TypeError("Expected path to file or a LinkableCode object")
        if ignore_nonlto and not isinstance(path_or_code, LTOIR):
            _warn(
                f"Not adding {path_or_code.name} as it is not optimizable at link time, and `ignore_nonlto == True`."
            )
            return None
        return self.add_data(path_or_code.data, path_or_code.kind, path_or_code.name)

    def get_linked_ptx(self):
        raise LinkerError("linked PTX comes from nvJitLink (LTO), which numba_cuda_c does not use")

    def complete(self):
        """Complete the link; the CUBIN, as bytes."""
        try:
            cubin = self._state.complete()
        except _api_error() as e:
            raise LinkerError("%s\n%s" % (e, self.error_log)) from None
        self._complete = True
        return cubin


def _api_error():
    return _cuda.CudaAPIError


def check_link_item(item):
    """numba's errors for what cannot be linked (no or an unknown extension, a missing file), raised
    before any compile or driver call."""
    if isinstance(item, LinkableCode):
        return
    if not isinstance(item, (str, os.PathLike)):
        raise TypeError("Expected path to file or a LinkableCode object")
    path = os.fspath(item)
    ext = _suffix(path)
    if ext == "":
        raise RuntimeError("Don't know how to link file with no extension")
    if ext != ".cu" and ext.lstrip(".") not in FILE_EXTENSION_MAP:
        raise RuntimeError(f"Don't know how to link file with extension {ext}")
    if not os.path.isfile(path):
        raise LinkerError(f"{path} not found")


def link_kernel(image, links, max_registers=0, lineinfo=False):
    """A kernel's relocatable image (CUBIN or PTX, compiled with -rdc=true) linked with `links`
    (paths or LinkableCode objects): the CUBIN."""
    for item in links:
        check_link_item(item)
    linker = Linker(max_registers, lineinfo)
    if image[:4] == b"\x7fELF":
        linker.add_cubin(image, "<kernel>.cubin")
    else:
        linker.add_ptx(image, "<kernel>.ptx")
    for item in links:
        linker.add_file_guess_ext(item)
    return linker.complete()


# -- numba's link callbacks (LinkableCode setup_callback / teardown_callback) ---------------------------
# numba-cuda gives each callback the cuda.core ObjectCode its kernel was loaded from, whose `handle`
# (a CUlibrary) users read globals through (cuLibraryGetGlobal). A kernel linked with callbacks is
# loaded the same way: cuda.core loads the CUBIN as a library and the kernel runs from that library's
# module, so what setup writes, the kernel reads. Teardown runs once: when the context is reset
# (Context.reset(), which forgets the kernel so that a later launch loads and sets up again), or when
# the kernel is gone.

_loaded_with_callbacks = {}  # context handle -> [_CallbackLoad]


class _CallbackLoad:
    def __init__(self, code, items, forget, context_handle):
        self.code, self.items, self.forget, self.context_handle = code, items, forget, context_handle
        self.torn_down = False

    def teardown(self):
        if self.torn_down:
            return
        self.torn_down = True
        loads = _loaded_with_callbacks.get(self.context_handle, [])
        if self in loads:
            loads.remove(self)
        for item in self.items:
            if item.teardown_callback:
                item.teardown_callback(self.code)


def has_callbacks(links):
    return [
        item for item in links if isinstance(item, LinkableCode) and (item.setup_callback or item.teardown_callback)
    ]


def load_with_callbacks(cubin, items, kernel_name, forget):
    """The kernel `kernel_name` of a linked CUBIN, loaded through cuda.core as numba-cuda does, after
    each item's setup_callback has seen its ObjectCode. `forget()` drops the caller's cached kernel;
    it must not hold the kernel (the registry keeps it until a reset)."""
    try:
        from cuda.core import ObjectCode
    except ImportError:
        raise ImportError(
            "link callbacks (setup_callback / teardown_callback) receive a cuda.core ObjectCode: install "
            "cuda-core (pip install cuda-core)"
        ) from None
    import weakref

    context = _cuda.get_context()
    code = ObjectCode.from_cubin(cubin)
    kernel = _cuda._module_from_library(int(code.handle), code).get_function(kernel_name)
    load = _CallbackLoad(code, items, forget, context.handle)
    for item in items:
        if item.setup_callback:
            item.setup_callback(code)
    _loaded_with_callbacks.setdefault(context.handle, []).append(load)
    weakref.finalize(kernel, load.teardown)
    return kernel


def context_reset(context):
    """Context.reset(): the kernels loaded with callbacks in it are forgotten and torn down."""
    for load in list(_loaded_with_callbacks.pop(context.handle, ())):
        load.forget()
        load.teardown()
