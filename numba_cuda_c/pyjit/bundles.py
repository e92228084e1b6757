"""Ahead-of-time bundles of @cuda.jit kernels: every kernel a module declares signatures for, compiled for the
architectures asked (CUBIN, and PTX for newer GPUs where asked), in one file shipped beside the module
(`python -m numba_cuda_c build module.py` writes module.bundle) or named by the user (load_bundle). A dispatcher
looks its kernels up there before it translates or compiles anything (specialiser.py): a process that only
launches bundled kernels never loads NVRTC nor imports the translator.

A kernel is found by its qualified name, its module file's content (SHA-256), its argument types and its options;
the bundle also holds the package's version. Where any differs, or the GPU's architecture has neither a CUBIN nor
PTX it can take, the bundle is not used: the kernel compiles as it would without one, and where that cannot be
(no NVRTC) the error says why the bundle was refused and what to do. A bundle never gives another kernel.

The file: MAGIC, then marshal's bytes of a dict (the header's fields and the entries): bytes, strings, numbers,
tuples and dicts only, no code."""

import marshal
import os

from numba_cuda_c import _cuda, _version
from numba_cuda_c.toolchain import compiler

MAGIC = b"numba_cuda_c kernel bundle 1\n"
SUFFIX = ".bundle"

_beside = {}  # module file -> its Bundle, or None where there is none (looked for once)
_named = []  # bundles load_bundle() named, first named first
_digests = {}  # module file -> (size, mtime_ns, SHA-256 of its bytes)
building = False  # bundle_builder imports the module: its declared signatures are recorded, not compiled and loaded


class Bundle:
    """A bundle file's header and entries: entries[key] = {"name": the kernel's C name, "source": its CUDA C,
    "launch_flags": (...), "images": {(major, minor): CUBIN}, "ptx": ((major, minor), PTX) or None}."""

    def __init__(self, path, content):
        self.path = path
        self.package = content["package"]
        self.files = content["files"]  # module file's base name -> its SHA-256 when built
        self.entries = content["entries"]

    @classmethod
    def read(cls, path):
        with open(path, "rb") as f:
            data = f.read()
        if not data.startswith(MAGIC):
            raise ValueError(
                "%s is not a numba_cuda_c kernel bundle (python -m numba_cuda_c build makes them)" % path
            )
        try:
            content = marshal.loads(data[len(MAGIC) :])
        except (EOFError, ValueError, TypeError) as exc:
            raise ValueError("%s: a damaged kernel bundle (%s): build it again" % (path, exc)) from None
        return cls(path, content)

    def write(self):
        content = {"package": self.package, "files": self.files, "entries": self.entries}
        with open(self.path, "wb") as f:
            f.write(MAGIC + marshal.dumps(content))


def load_bundle(path):
    """Use the kernels of this bundle (python -m numba_cuda_c build ... -o PATH) before compiling, besides those
    shipped beside their modules. ValueError where the file is not a bundle."""
    bundle = Bundle.read(os.fspath(path))
    _named.insert(0, bundle)
    return bundle


def entry_key(py_func, argtypes, options):
    """What a bundled kernel must match: its qualified name, its module file's name and content, its argument types
    and the options its compilation depends on."""
    filename = py_func.__code__.co_filename
    compiled_options = sorted((k, v) for k, v in options.items() if k != "cache")
    return repr(
        (py_func.__qualname__, os.path.basename(filename), file_digest(filename), argtypes, compiled_options)
    )


def file_digest(filename):
    """The SHA-256 of a module file's bytes (kept while its size and time stay), or '' where it cannot be read."""
    try:
        info = os.stat(filename)
    except OSError:
        return ""
    known = _digests.get(filename)
    if known is None or known[:2] != (info.st_size, info.st_mtime_ns):
        with open(filename, "rb") as f:
            known = _digests[filename] = (info.st_size, info.st_mtime_ns, compiler._sha256(f.read()).hexdigest())
    return known[2]


def find(py_func, argtypes, options):
    """(entry, image) of a bundled kernel for these argument types on the current device; else (None, why not):
    why is None where no bundle applies to this function at all."""
    filename = py_func.__code__.co_filename
    beside = _beside.get(filename, False)
    if beside is False:
        path = os.path.splitext(filename)[0] + SUFFIX
        beside = _beside[filename] = Bundle.read(path) if os.path.isfile(path) else None
    bundles = _named + ([beside] if beside is not None else [])
    base = os.path.basename(filename)
    bundles = [b for b in bundles if base in b.files]
    if not bundles:
        return None, None
    key = entry_key(py_func, argtypes, options)
    reasons = []
    for bundle in bundles:
        entry = bundle.entries.get(key)
        if bundle.package != _version.__version__:
            reasons.append(
                "%s was built by numba_cuda_c %s, this is %s" % (bundle.path, bundle.package, _version.__version__)
            )
        elif bundle.files[base] != file_digest(filename):
            reasons.append("%s changed since %s was built" % (filename, bundle.path))
        elif entry is None:
            reasons.append(
                "%s has no kernel %s(%s) with these options (a bundle holds the kernels that declare signatures)"
                % (bundle.path, py_func.__qualname__, ", ".join(map(str, argtypes)))
            )
        else:
            image, why = _image_for_device(bundle, entry)
            if image is not None:
                return entry, image
            reasons.append(why)
    return None, "; ".join(reasons) + ": build the bundle again (python -m numba_cuda_c build)"


def _image_for_device(bundle, entry):
    """The CUBIN for the current device's architecture, else PTX of an architecture it can run; (None, why)."""
    cc = tuple(_cuda.get_context().device.compute_capability)
    image = entry["images"].get(cc)
    if image is not None:
        return image, None
    ptx = entry["ptx"]
    if ptx is not None and tuple(ptx[0]) <= cc:
        return ptx[1], None
    built = ", ".join("sm_%d%d" % a for a in sorted(entry["images"])) or "no CUBIN"
    return None, "%s has %s and %s for this GPU (sm_%d%d): add --arch %d%d or --ptx" % (
        bundle.path,
        built,
        "no PTX" if ptx is None else "PTX of sm_%d%d" % tuple(ptx[0]),
        cc[0],
        cc[1],
        cc[0],
        cc[1],
    )
