"""CUDA C to a loaded module: NVRTC compilation (src/launch/nvrtc.c), its caches, SourceModule, load_module.

Images are cached in memory and on disk, keyed by the source, the options (the architecture
among them), the program name, the NVRTC version and the output kind. The disk cache lives in
NUMBA_CUDA_C_CACHE_DIR, else $XDG_CACHE_HOME/numba_cuda_c, else ~/.cache/numba_cuda_c; set
NUMBA_CUDA_C_CACHE=0 to bypass it. Entries are written to a temporary file and renamed into
place, so concurrent processes never see half an entry; each carries a digest of its payload, and
an entry that fails the check is compiled again and replaced, never loaded.
"""

import os

from numba_cuda_c import _cuda
from numba_cuda_c.toolchain import libraries

_MAGIC = b"numba_cuda_c image 1\n"
_memory_cache = {}


def cache_dir():
    """The disk cache's directory."""
    explicit = os.environ.get("NUMBA_CUDA_C_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "numba_cuda_c")


def _disk_cache_enabled():
    return os.environ.get("NUMBA_CUDA_C_CACHE", "1") != "0"


def _sha256(data):
    # CPython's own SHA-256 module imports in microseconds; hashlib loads OpenSSL (milliseconds),
    # which a cache hit in a new process would pay
    try:
        from _sha2 import sha256  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data)


def _read_entry(path):
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    head = len(_MAGIC) + 32
    if len(blob) < head or not blob.startswith(_MAGIC):
        return None
    digest, payload = blob[len(_MAGIC) : head], blob[head:]
    return payload if _sha256(payload).digest() == digest else None


def _write_entry(path, payload):
    directory = os.path.dirname(path)
    import tempfile

    try:
        os.makedirs(directory, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + _sha256(payload).digest() + payload)
        os.replace(temporary, path)
    except OSError:
        pass  # a cache that cannot be written is only slower


def cached_translation(key, make, refresh=False):
    """((source, launch_flags), hit): make() -> (the CUDA C of a translation, the flags its launch needs),
    kept in the disk cache under `key` (a str naming everything the translation depends on), and whether it
    was read from there; computed again where the cache is off, unwritable, or its entry fails the digest
    check. refresh: made again and written over the entry (recompile). An entry is the flags, one line
    (words), then the source."""
    if not _disk_cache_enabled():
        return make(), False
    path = os.path.join(cache_dir(), _sha256(key.encode()).hexdigest() + ".jit")
    payload = None if refresh else _read_entry(path)
    if payload is not None:
        flags, _, source = payload.decode().partition("\n")
        return (source, flags.split()), True
    source, flags = make()
    _write_entry(path, (" ".join(flags) + "\n" + source).encode())
    return (source, flags), False


def default_arch():
    """The current device's compute capability, capped at the newest NVRTC supports (PTX then
    carries the code to the newer device through the driver's JIT)."""
    cc = tuple(_cuda.get_context().device.compute_capability)
    supported = _cuda.nvrtc_supported_archs()
    if cc in supported:
        return cc
    older = [arch for arch in supported if arch <= cc]
    if not older:
        raise _cuda.NvrtcError(
            "NVRTC %d.%d cannot compile for compute capability %d.%d: its oldest target is %d.%d"
            % (_cuda.nvrtc_version() + cc + supported[0])
        )
    return max(older)


_NVRTC_NAMES = ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so")
_nvrtc_identity_cache = []


def _nvrtc_identity():
    """Which NVRTC compiles, for the cache key, without loading it (a hit then costs no dlopen):
    the first library file in the search order, with its size and time; else NVRTC's version."""
    if not _nvrtc_identity_cache:
        identity = None
        for directory in libraries.candidate_dirs():
            for name in _NVRTC_NAMES:
                path = os.path.join(directory, name)
                if os.path.exists(path):
                    info = os.stat(path)
                    identity = (os.path.realpath(path), info.st_size, info.st_mtime_ns)
                    break
            if identity:
                break
        _nvrtc_identity_cache.append(identity or _cuda.nvrtc_version())
    return _nvrtc_identity_cache[0]


def nvrtc_version_unloaded():
    """NVRTC's (major, minor) as its library file's name tells it (libnvrtc.so.12.4.127), without loading it; (0, 0)
    where the name does not say, (major, 0) where it says only the major."""
    identity = _nvrtc_identity()
    if isinstance(identity[0], str):  # split by hand: a first regex would cost a disk-cache hit 0.3 ms
        _, found, version = os.path.basename(identity[0]).partition("libnvrtc.so.")
        numbers = version.split(".")[:2] if found else []
        if not numbers or not all(n.isdigit() for n in numbers):
            return (0, 0)
        return (int(numbers[0]), int(numbers[1]) if len(numbers) > 1 else 0)
    return tuple(identity[:2])


def _nvrtc_compile(source, name, options, ptx):
    """NVRTC's image of source; where -minimal (a translation's) leaves out a declaration the source needs after all,
    compiled again without it, so the flag never costs a compilation (an error then is the full headers' error)."""
    try:
        return _cuda.nvrtc_compile(source, name, options, ptx)[0]
    except _cuda.NvrtcError:
        if "-minimal" not in options:
            raise
    return _cuda.nvrtc_compile(source, name, [o for o in options if o != "-minimal"], ptx)[0]


def compile_image(source, options=(), arch=None, name=None, ptx=False, disk_cache=True):
    """Compile CUDA C with NVRTC; returns the CUBIN (or PTX) image as bytes, from a cache if it can.

    arch: (major, minor); default: the current device's (PTX for the newest architecture NVRTC
    knows, where the device is newer still). disk_cache=False: the memory cache only (@cuda.jit
    without cache=True). Raises NvrtcError with the log.
    """
    if not isinstance(source, str):
        raise TypeError("source must be str, not %s" % type(source).__name__)
    name = name or "numba_cuda_c_module.cu"
    options = [str(o) for o in options]
    includes = ["-I" + d for d in libraries.include_dirs()]
    requested = (
        tuple(arch) if arch is not None else ("device",) + tuple(_cuda.get_context().device.compute_capability)
    )
    key = repr((source, options, includes, name, ptx, requested, _nvrtc_identity()))
    key = _sha256(key.encode()).hexdigest()
    image = _memory_cache.get(key)
    if image is not None:
        return image
    path = os.path.join(cache_dir(), key + (".ptx" if ptx else ".cubin"))
    disk_cache = disk_cache and _disk_cache_enabled()
    image = _read_entry(path) if disk_cache else None
    if image is None:
        if arch is None:
            arch = default_arch()
            ptx = ptx or arch != requested[1:]  # the device is newer than NVRTC: the driver finishes the job
        # (9, 0, "a"): an architecture-specific target, sm_90a (numba's cc with a suffix)
        suffix = str(arch[2]) if len(arch) > 2 else ""
        target = ("compute_%d%d" if ptx else "sm_%d%d") % tuple(arch[:2]) + suffix
        image = _nvrtc_compile(source, name, ["-arch=" + target] + includes + options, ptx)
        if disk_cache:
            _write_entry(path, image)
    _memory_cache[key] = image
    return image


class SourceModule:
    """CUDA C source compiled with NVRTC and loaded in the current context.

    ``SourceModule(source, options=(), arch=None, name=None).get_function("kernel")`` gives a Kernel,
    launched as ``kernel[griddim, blockdim, stream, sharedmem](*args)``. Kernels need extern "C".
    A kernel launched in another context (another device, or after cuda.close()) loads the module
    there at that first launch, compiled again for that device's architecture if it differs
    (unless arch was given).
    """

    def __init__(self, source, options=(), arch=None, name=None, disk_cache=True):
        self.source = source
        self._arguments = (source, tuple(options), arch, name, disk_cache)
        self.image = compile_image(source, options, arch, name, disk_cache=disk_cache)
        loader = None
        if arch is None:  # called by the C core with the other context current

            def loader():
                return compile_image(source, options, None, name, disk_cache=disk_cache)

        self.module = _cuda._load_module_image(self.image, loader)

    def get_function(self, name):
        """The Kernel of the extern "C" __global__ function `name` (CudaAPIError where the module has none)."""
        return self.module.get_function(name)

    def __reduce__(self):
        """Pickled as its source and options: compiled (or read from the cache) where it is unpickled."""
        return (SourceModule, self._arguments)

    @property
    def handle(self):
        """The CUmodule handle of the module loaded in the current context, as an int."""
        return self.module.handle


def load_module(image_or_path):
    """Load a PTX, CUBIN or fatbin image (bytes) or file (path) in the current context."""
    if isinstance(image_or_path, (bytes, bytearray, memoryview)):
        image = bytes(image_or_path)
    else:
        with open(os.fspath(image_or_path), "rb") as f:
            image = f.read()
    return _cuda._load_module_image(image)


def disassemble(cubin, flags):
    """nvdisasm's output for a CUBIN (numba's inspect_sass): the toolkit's nvdisasm, found on PATH, then beside
    NVRTC's toolkit (CUDA_HOME, /usr/local/cuda). RuntimeError where there is none."""
    import shutil
    import subprocess
    import tempfile

    candidates = [shutil.which("nvdisasm")] + [
        os.path.join(root, "bin", "nvdisasm")
        for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda")
        if root
    ]
    tool = next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)
    if tool is None:
        raise RuntimeError(
            "nvdisasm is required for SASS inspection: install the CUDA toolkit's nvdisasm and put it " "on PATH"
        )
    with tempfile.NamedTemporaryFile(suffix=".cubin") as image:
        image.write(cubin)
        image.flush()
        done = subprocess.run([tool, *flags, image.name], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("nvdisasm failed: %s" % done.stderr.strip())
    return done.stdout
