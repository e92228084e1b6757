"""The mock CUDA driver (tests/support/mockcuda/mock_cuda.c) for tests that need no GPU.

`mock_driver`: a session fixture that compiles the library once (skips where no C compiler exists) and
returns its path. `run_mock(code, **env)`: runs `code` in a fresh interpreter with NUMBA_CUDA_DRIVER set
to the mock (the driver loads once per process), with `cuda` (numba_cuda_c), `np` and `mock` (a `Mock`)
already defined; returns its stdout and fails the test, with the output, on an exception, a crash or a hang.
`Mock` is the control API through ctypes; see tests/support/mockcuda/README.md."""

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(HERE, "mockcuda", "mock_cuda.c")
API = os.path.join(ROOT, "src", "driver", "api")
GCC = shutil.which("gcc") or shutil.which("cc")

_built = []


def mock_library():
    """The path of the compiled mock, built once per process; None (with why) where it cannot be."""
    if not _built:
        if GCC is None:
            _built.append((None, "no C compiler (gcc or cc) on PATH to build the mock CUDA driver"))
        else:
            path = os.path.join(tempfile.mkdtemp(prefix="mockcuda-"), "libmockcuda.so")
            cmd = [
                GCC,
                "-shared",
                "-fPIC",
                "-O1",
                "-g",
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fvisibility=hidden",
                "-I",
                API,
                SOURCE,
                "-o",
                path,
                "-lpthread",
            ]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            _built.append((path, None) if done.returncode == 0 else (None, "mock build failed:\n" + done.stderr))
    return _built[0]


def require_mock():
    import pytest

    path, why = mock_library()
    if path is None:
        if GCC is None:
            pytest.skip(why)
        pytest.fail(why)
    return path


if "pytest" in sys.modules:  # not inside a mock subprocess, where only Mock is used (and importing pytest is slow)
    import pytest

    @pytest.fixture(scope="session")
    def mock_driver():
        return require_mock()


# A snippet for run_mock: `cases`, device arrays of one of each layout and of a few dtypes (pickling and Dask's
# serializers round-trip them all)
ARRAY_LAYOUTS = """\
base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
cases = {
    "C order": cuda.to_device(base),
    "F order": cuda.to_device(np.asfortranarray(base)),
    "gaps": cuda.to_device(base)[::2, 1:, ::2],
    "reversed axes": cuda.to_device(base)[::-1, :, ::-2],
    "empty": cuda.device_array((0, 3)),
    "complex": cuda.to_device(np.arange(5) * (1 + 2j)),
    "bool": cuda.to_device(np.array([True, False])),
    "records": cuda.to_device(np.zeros(2, dtype=[("a", "i4"), ("b", "f8")])),
    "broadcast": cuda.to_device(np.broadcast_to(np.arange(3.0), (4, 3))),
}
"""

PRELUDE = """\
import gc, sys
import numpy as np
import numba_cuda_c as cuda
from mock_driver import Mock, CU
mock = Mock()
"""


def run_mock(code, timeout=120, expect_failure=False, **env):
    """Runs `code` (a string, or a list of strings each dedented on its own, after PRELUDE) against the mock driver in a fresh interpreter; returns its stdout.
    Fails the test with stdout and stderr if it exits non-zero (an exception, a signal) or hangs;
    with expect_failure, returns (returncode, stdout + stderr) instead."""
    path = require_mock()
    environ = dict(os.environ, NUMBA_CUDA_DRIVER=path, **env)
    environ["PYTHONPATH"] = os.pathsep.join([ROOT, HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    environ.setdefault("NUMBA_CUDA_CACHE_DIR", tempfile.mkdtemp(prefix="mockcuda-cache-"))
    parts = code if isinstance(code, (list, tuple)) else [code]
    program = PRELUDE + "\n".join(textwrap.dedent(part) for part in parts)
    try:
        done = subprocess.run(
            [sys.executable, "-X", "faulthandler", "-c", program],
            env=environ,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as hung:
        raise AssertionError("mock snippet hung for %ss:\n%s%s" % (timeout, hung.stdout or "", hung.stderr or ""))
    if expect_failure:
        return done.returncode, done.stdout + done.stderr
    assert done.returncode == 0, "mock snippet failed (exit %d):\n%s%s" % (
        done.returncode,
        done.stdout,
        done.stderr,
    )
    return done.stdout


def _result_codes():
    with open(os.path.join(API, "cuda_api.h")) as f:
        return {
            m.group(1): int(m.group(2)) for m in re.finditer(r"X\((CUDA_(?:ERROR_\w+|SUCCESS)), (\d+)\)", f.read())
        }


CU = _result_codes()  # "CUDA_ERROR_OUT_OF_MEMORY" -> 2

LIVE_KINDS = (
    "device",
    "pinned",
    "mapped",
    "managed",
    "registered",
    "ipc",
    "streams",
    "events",
    "modules",
    "functions",
    "contexts",
    "callbacks",
)
TYPE_NAMES = (
    "DeviceNDArray",
    "DeviceRecord",
    "Stream",
    "Event",
    "MemoryPointer",
    "Module",
    "Kernel",
    "LaunchConfig",
    "Context",
)


def _symbolize(text):
    """backtrace_symbols' "object(+0xoffset) [address]" lines of static functions, with addr2line's
    "function at file:line" appended; text unchanged where addr2line is missing."""
    addr2line = shutil.which("addr2line")
    if addr2line is None:
        return text

    def named(match):
        path, offset = match.group(1), int(match.group(2), 16)
        try:
            done = subprocess.run(
                [addr2line, "-f", "-C", "-e", path, hex(max(offset - 1, 0))],
                capture_output=True,
                text=True,
                timeout=10,
            )
        except (OSError, subprocess.SubprocessError):
            return match.group(0)
        lines = done.stdout.split()
        where = " ".join(lines[:1] + ["at", os.path.basename(lines[1])] if len(lines) >= 2 else lines)
        return "%s  <- %s" % (match.group(0), where) if where else match.group(0)

    # offset - 1: a return address is the instruction after the call, which may be the next line
    return re.sub(r"(/[^\s()]+)\(\+(0x[0-9a-f]+)\)\s*\[0x[0-9a-f]+\]", named, text)


class Mock:
    """The mock's control API. Use inside run_mock snippets (the library the package loaded)."""

    def __init__(self, path=None):
        self.lib = lib = ctypes.CDLL(path or os.environ["NUMBA_CUDA_DRIVER"])
        lib.mock_fail.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_int, ctypes.c_int]
        lib.mock_calls.argtypes = lib.mock_live.argtypes = [ctypes.c_char_p]
        lib.mock_calls.restype = lib.mock_live.restype = lib.mock_launch_count.restype = ctypes.c_long
        size_p = ctypes.POINTER(ctypes.c_size_t)
        lib.mock_set_params.argtypes = [ctypes.c_char_p, ctypes.c_int, size_p, size_p]
        lib.mock_launch_get.restype = ctypes.c_long
        lib.mock_launch_get.argtypes = [
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_uint),
            ctypes.POINTER(ctypes.c_ulonglong),
            ctypes.POINTER(ctypes.c_int),
            size_p,
            size_p,
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        lib.mock_is_device_range.argtypes = [ctypes.c_ulonglong, ctypes.c_size_t]
        lib.mock_under_call_report.restype = ctypes.c_size_t
        lib.mock_under_call_report.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

    def check_same_image(self):
        """The package's driver calls went through this library (ctypes found the image dlopen loaded)."""
        assert self.lib.mock_calls(b"cuInit") == 1, "ctypes loaded another copy of the mock than the package"

    def fail(self, name, code="CUDA_ERROR_OUT_OF_MEMORY", nth=1, always=False):
        """The nth call of entry point `name` (unversioned) from now fails with `code`; always: and every later one."""
        code = CU[code] if isinstance(code, str) else int(code)
        assert self.lib.mock_fail(name.encode(), nth, code, int(always)) == 0

    def clear(self, name):
        self.lib.mock_fail(name.encode(), 0, 0, 0)

    def calls(self, name):
        return self.lib.mock_calls(name.encode())

    def reset(self):
        """Forgets fault rules, call counts and launch records."""
        self.lib.mock_reset()

    def live(self):
        """Live driver objects by kind (see mock_live in mock_cuda.c)."""
        self.check_same_image()
        return {kind: self.lib.mock_live(kind.encode()) for kind in LIVE_KINDS}

    def callback_violations(self):
        """Driver calls made from inside a stream callback (the mock refused them; a real driver may hang)."""
        return self.lib.mock_live(b"callback_violations")

    def destroyed_under_call(self):
        """Contexts destroyed (release or reset) while a copy or an allocation ran in another thread."""
        return self.lib.mock_live(b"destroyed_under_call")

    def destroyed_under_call_report(self):
        """What destroyed_under_call counted: for the first few, the destroying call and every call in flight,
        each with its thread, context and stack (the package's frames named by addr2line where it is found)."""
        size = self.lib.mock_under_call_report(None, 0) + 1
        buf = ctypes.create_string_buffer(size)
        self.lib.mock_under_call_report(buf, size)
        return "%d destroyed under a call\n%s" % (self.destroyed_under_call(), _symbolize(buf.value.decode()))

    def set_params(self, name, sizes, offsets=None):
        """The parameter sizes (and offsets; default: natural alignment) kernel `name` reports; None: the image's."""
        if sizes is None:
            return self.lib.mock_set_params(name.encode(), -1, None, None)
        arr = (ctypes.c_size_t * max(len(sizes), 1))(*sizes)
        offs = (ctypes.c_size_t * len(offsets))(*offsets) if offsets is not None else None
        assert self.lib.mock_set_params(name.encode(), len(sizes), arr, offs) == 0

    def launch_count(self):
        return self.lib.mock_launch_count()

    def launch(self, back=0):
        """The launch `back` launches ago (0: the last) as a dict: name, grid, block, shared, stream, params
        (the bytes of each parameter, as the driver received them)."""
        name = ctypes.create_string_buffer(256)
        dims = (ctypes.c_uint * 7)()
        stream, nparams = ctypes.c_ulonglong(), ctypes.c_int()
        offsets, sizes = (ctypes.c_size_t * 64)(), (ctypes.c_size_t * 64)()
        data = ctypes.create_string_buffer(4096)
        n = self.lib.mock_launch_get(
            back, name, 256, dims, ctypes.byref(stream), ctypes.byref(nparams), offsets, sizes, 64, data, 4096
        )
        assert n >= 0, "no launch recorded %d launches ago" % back
        raw = data.raw[:n]
        params = [raw[offsets[i] : offsets[i] + sizes[i]] for i in range(nparams.value)]
        return {
            "name": name.value.decode(),
            "grid": tuple(dims[0:3]),
            "block": tuple(dims[3:6]),
            "shared": dims[6],
            "stream": stream.value,
            "params": params,
        }

    def is_device_range(self, pointer, size):
        return bool(self.lib.mock_is_device_range(pointer, size))


def type_refcounts(module):
    """sys.getrefcount of the package's types: they must not drift over create/destroy loops."""
    return {name: sys.getrefcount(getattr(module, name)) for name in TYPE_NAMES if hasattr(module, name)}
