"""numba.cuda.cudadrv.nvvm: libNVVM, for programs that make their own LLVM IR (with llvmlite) and compile it to
PTX or LTO-IR as numba-cuda's module lets them: NVVM() (versions, data layout), compile_ir(), CompilationUnit,
LibDevice, and the llvmlite helpers add_ir_version / set_cuda_kernel / set_launch_bounds.

numba_cuda_c's own kernels never pass through here (NVRTC compiles the CUDA C they are translated to), so libNVVM
is loaded through ctypes only when this module is first used; llvmlite is imported only by the helpers that take
its objects. ctypes releases the GIL during each libNVVM call."""

import ctypes
import os
import threading
import warnings

from numba_cuda_c.toolchain import libraries
from numba_cuda_c.cudadrv.error import NvvmError, NvvmSupportError, NvvmWarning

__all__ = [
    "NVVM",
    "CompilationUnit",
    "LibDevice",
    "compile_ir",
    "add_ir_version",
    "set_cuda_kernel",
    "set_launch_bounds",
    "is_available",
    "nvvmError",
    "NvvmError",
    "NvvmSupportError",
    "NvvmWarning",
]

# What a failing libNVVM call raises (numba re-exports cuda.bindings' nvvmError under this name).
nvvmError = NvvmError

ADDRSPACE_GENERIC = 0
ADDRSPACE_GLOBAL = 1
ADDRSPACE_SHARED = 3
ADDRSPACE_CONSTANT = 4
ADDRSPACE_LOCAL = 5

# NVVM's 64-bit data layout (the NVVM IR specification's)
_DATA_LAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-"
    "v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)

_RESULT_NAMES = (
    "NVVM_SUCCESS",
    "NVVM_ERROR_OUT_OF_MEMORY",
    "NVVM_ERROR_PROGRAM_CREATION_FAILURE",
    "NVVM_ERROR_IR_VERSION_MISMATCH",
    "NVVM_ERROR_INVALID_INPUT",
    "NVVM_ERROR_INVALID_PROGRAM",
    "NVVM_ERROR_INVALID_IR",
    "NVVM_ERROR_INVALID_OPTION",
    "NVVM_ERROR_NO_MODULE_IN_PROGRAM",
    "NVVM_ERROR_COMPILATION",
    "NVVM_ERROR_CANCELLED",
)

_SIGNATURES = {  # name: argument types (every function returns an nvvmResult, an int)
    "nvvmVersion": [ctypes.POINTER(ctypes.c_int)] * 2,
    "nvvmIRVersion": [ctypes.POINTER(ctypes.c_int)] * 4,
    "nvvmCreateProgram": [ctypes.POINTER(ctypes.c_void_p)],
    "nvvmDestroyProgram": [ctypes.POINTER(ctypes.c_void_p)],
    "nvvmAddModuleToProgram": [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p],
    "nvvmLazyAddModuleToProgram": [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p],
    "nvvmVerifyProgram": [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
    "nvvmCompileProgram": [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
    "nvvmGetCompiledResultSize": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)],
    "nvvmGetCompiledResult": [ctypes.c_void_p, ctypes.c_char_p],
    "nvvmGetProgramLogSize": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)],
    "nvvmGetProgramLog": [ctypes.c_void_p, ctypes.c_char_p],
}

_lock = threading.Lock()
_library = []  # [the loaded CDLL], or [None, why not]


def _load():
    """libNVVM as a CDLL with its functions typed, loaded once; NvvmSupportError naming where it was looked for."""
    with _lock:
        if not _library:
            _library.extend(_find_and_load())
    if _library[0] is None:
        raise NvvmSupportError(_library[1])
    return _library[0]


def _find_and_load():
    tried = []
    for folder in libraries.nvvm_dirs():
        for name in sorted(os.listdir(folder), reverse=True):  # libnvvm.so.4 before libnvvm.so
            if name.startswith("libnvvm.so"):
                tried.append(os.path.join(folder, name))
    tried.append("libnvvm.so")  # the dynamic loader's own search path
    problems = []
    for path in tried:
        try:
            return [_typed(ctypes.CDLL(path))]
        except (OSError, AttributeError) as exc:
            problems.append("%s (%s)" % (path, exc))
    try:  # NVIDIA's library finder, where it is installed (cuda-python's); imported only now
        from cuda.pathfinder import load_nvidia_dynamic_lib

        return [_typed(ctypes.CDLL(load_nvidia_dynamic_lib("nvvm").abs_path))]
    except Exception as exc:  # not installed, or it found nothing
        problems.append("cuda.pathfinder (%s)" % exc)
    return [
        None,
        "libNVVM cannot be found or loaded; looked in CUDA_HOME/CUDA_PATH, the conda prefix, NVIDIA's pip "
        "wheels and /usr/local/cuda (nvvm/lib64): " + "; ".join(problems[-3:]),
    ]


def _typed(lib):
    for name, argtypes in _SIGNATURES.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = ctypes.c_int
    lib.nvvmGetErrorString.argtypes = [ctypes.c_int]
    lib.nvvmGetErrorString.restype = ctypes.c_char_p
    return lib


def _check(lib, result, what, log=""):
    if result != 0:
        name = _RESULT_NAMES[result] if 0 <= result < len(_RESULT_NAMES) else "NVVM_ERROR_%d" % result
        error = NvvmError("%s failed with %s (%d)%s" % (what, name, result, (":\n" + log) if log else ""))
        error.status = result
        raise error


def is_available():
    """True when libNVVM can be loaded."""
    try:
        _load()
    except NvvmSupportError:
        return False
    return True


class NVVM:
    """The process's libNVVM (one object): its versions and the data layout NVVM IR uses."""

    _instance = None

    def __new__(cls):
        with _lock:
            if cls._instance is None:
                instance = object.__new__(cls)
                instance._lib = None
                cls._instance = instance
        if cls._instance._lib is None:
            cls._instance._lib = _load()
        return cls._instance

    @property
    def data_layout(self):
        return _DATA_LAYOUT

    def get_version(self):
        """libNVVM's version, (major, minor)."""
        major, minor = ctypes.c_int(), ctypes.c_int()
        _check(self._lib, self._lib.nvvmVersion(ctypes.byref(major), ctypes.byref(minor)), "nvvmVersion")
        return major.value, minor.value

    def get_ir_version(self):
        """The NVVM IR version and debug metadata version it reads, (major, minor, debug major, debug minor)."""
        values = [ctypes.c_int() for _ in range(4)]
        _check(self._lib, self._lib.nvvmIRVersion(*map(ctypes.byref, values)), "nvvmIRVersion")
        return tuple(v.value for v in values)

    def check_options(self, options):
        """Whether libNVVM accepts these options (bytes or str), tried on an empty kernel."""
        major, minor, debug_major, debug_minor = self.get_ir_version()
        probe = _PROBE_IR % (_DATA_LAYOUT, major, minor, debug_major, debug_minor)
        try:
            unit = CompilationUnit({})
            unit.options = [o.decode() if isinstance(o, bytes) else o for o in options]
            unit.add_module(probe.encode())
            unit.verify()
            unit.compile()
        except NvvmError:
            return False
        return True


_PROBE_IR = """target triple = "nvptx64-unknown-cuda"
target datalayout = "%s"
define void @probe() {
entry:
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void ()* @probe, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 %d, i32 %d, i32 %d, i32 %d}
"""


def _option_text(name, value):
    """numba's spelling of an option: underscores become dashes; `-name=value`, booleans as 0/1, None alone."""
    name = name.replace("_", "-")
    if value is None:
        return "-" + name
    return "-%s=%s" % (name, int(value) if isinstance(value, bool) else value)


class CompilationUnit:
    """LLVM IR modules compiled together by libNVVM, to PTX or (with gen_lto=None) LTO-IR. Options are a dict, as
    numba takes them: {"opt": 3, "arch": "compute_90", "gen_lto": None} -> -opt=3 -arch=compute_90 -gen-lto."""

    def __init__(self, options):
        self.driver = NVVM()
        self._lib = self.driver._lib
        self.options = [_option_text(k, v) for k, v in options.items()]
        self.log = ""
        handle = ctypes.c_void_p()
        _check(self._lib, self._lib.nvvmCreateProgram(ctypes.byref(handle)), "nvvmCreateProgram")
        self._handle = handle

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.value:
            self._lib.nvvmDestroyProgram(ctypes.byref(handle))
            self._handle = None

    def add_module(self, buffer):
        """Adds a module of NVVM IR (text or bitcode, bytes)."""
        buffer = _as_bytes(buffer)
        _check(
            self._lib,
            self._lib.nvvmAddModuleToProgram(self._handle, buffer, len(buffer), b""),
            "nvvmAddModuleToProgram",
        )

    def lazy_add_module(self, buffer):
        """Adds a module whose functions are kept only where the others use them (libdevice)."""
        buffer = _as_bytes(buffer)
        _check(
            self._lib,
            self._lib.nvvmLazyAddModuleToProgram(self._handle, buffer, len(buffer), b""),
            "nvvmLazyAddModuleToProgram",
        )

    def _option_array(self):
        encoded = [o.encode() for o in self.options]
        return len(encoded), (ctypes.c_char_p * max(len(encoded), 1))(*encoded)

    def verify(self):
        """Runs NVVM's verifier over the modules added; NvvmError with its log when they are not valid."""
        count, array = self._option_array()
        result = self._lib.nvvmVerifyProgram(self._handle, count, array)
        _check(self._lib, result, "nvvmVerifyProgram", self.get_log() if result else "")

    def compile(self):
        """The PTX or LTO-IR of the modules added (bytes). NVVM's log, where it has one, becomes an NvvmWarning."""
        count, array = self._option_array()
        result = self._lib.nvvmCompileProgram(self._handle, count, array)
        _check(self._lib, result, "nvvmCompileProgram", self.get_log() if result else "")
        size = ctypes.c_size_t()
        _check(
            self._lib,
            self._lib.nvvmGetCompiledResultSize(self._handle, ctypes.byref(size)),
            "nvvmGetCompiledResultSize",
        )
        output = ctypes.create_string_buffer(size.value)
        _check(self._lib, self._lib.nvvmGetCompiledResult(self._handle, output), "nvvmGetCompiledResult")
        self.log = self.get_log()
        if self.log:
            warnings.warn(self.log, category=NvvmWarning)
        return output.raw

    def get_log(self):
        size = ctypes.c_size_t()
        if self._lib.nvvmGetProgramLogSize(self._handle, ctypes.byref(size)) != 0 or size.value <= 1:
            return ""
        log = ctypes.create_string_buffer(size.value)
        if self._lib.nvvmGetProgramLog(self._handle, log) != 0:
            return ""
        return log.value.decode("utf8", "replace")


def _as_bytes(buffer):
    return buffer.encode("utf8") if isinstance(buffer, str) else bytes(buffer)


class LibDevice:
    """libdevice's bitcode (libdevice.10.bc), read once: `.bc` and get()."""

    _bitcode = None

    def __init__(self):
        if LibDevice._bitcode is None:
            path = libraries.libdevice_path()
            if path is None:
                raise RuntimeError(
                    "Missing libdevice file: libdevice.10.bc was not found under CUDA_HOME/CUDA_PATH, "
                    "the conda prefix, NVIDIA's pip wheels or /usr/local/cuda (nvvm/libdevice)"
                )
            with open(path, "rb") as file:
                LibDevice._bitcode = file.read()
        self.bc = LibDevice._bitcode

    def get(self):
        return self.bc


def compile_ir(llvmir, **options):
    """Compiles LLVM IR (a str, or a list of them) with libNVVM, libdevice linked lazily after verification;
    returns the PTX or LTO-IR (bytes). fastmath=True stands for ftz, fma, and approximate division and sqrt."""
    modules = [llvmir] if isinstance(llvmir, (str, bytes)) else list(llvmir)
    if options.pop("fastmath", False):
        options.update({"ftz": True, "fma": True, "prec_div": False, "prec_sqrt": False})
    unit = CompilationUnit(options)
    for module in modules:
        unit.add_module(module)
    unit.verify()
    unit.lazy_add_module(LibDevice().get())  # after verifying: libdevice is not held to the verifier's rules
    return unit.compile()


def add_ir_version(mod):
    """Adds the NVVM IR version libNVVM reads to an llvmlite module (!nvvmir.version)."""
    from llvmlite import ir

    i32 = ir.IntType(32)
    mod.add_named_metadata("nvvmir.version", mod.add_metadata([i32(v) for v in NVVM().get_ir_version()]))


def set_cuda_kernel(function):
    """Marks an llvmlite function as a kernel: its !nvvm.annotations entry, a @llvm.used list holding it (so that
    it is kept), and no noinline attribute (NVVM warns on one, which fails verification)."""
    from llvmlite import ir

    module = function.module
    entry = module.add_metadata((function, ir.MetaDataString(module, "kernel"), ir.Constant(ir.IntType(32), 1)))
    module.add_named_metadata("nvvm.annotations").add(entry)
    pointer = ir.IntType(8).as_pointer()
    used_type = ir.ArrayType(pointer, 1)
    used = ir.GlobalVariable(module, used_type, "llvm.used")
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ir.Constant(used_type, [function.bitcast(pointer)])
    function.attributes.discard("noinline")


def set_launch_bounds(kernel, launch_bounds):
    """Annotates an llvmlite kernel with launch bounds: an int or (max threads per block[, min blocks per
    multiprocessor[, max blocks per cluster]])."""
    if launch_bounds is None:
        return
    if isinstance(launch_bounds, int):
        launch_bounds = (launch_bounds,)
    if len(launch_bounds) > 3:
        raise ValueError(
            "Got %d launch bounds: %s. A maximum of three are supported: (max_threads_per_block, "
            "min_blocks_per_sm, max_blocks_per_cluster)" % (len(launch_bounds), launch_bounds)
        )
    from llvmlite import ir

    module = kernel.module
    annotations = module.add_named_metadata("nvvm.annotations")
    for name, bound in zip(("maxntidx", "minctasm", "cluster_max_blocks"), launch_bounds):
        annotations.add(
            module.add_metadata((kernel, ir.MetaDataString(module, name), ir.Constant(ir.IntType(32), bound)))
        )
