"""Host-API timings, side by side: numba_cuda_c, numba-cuda, CuPy and the C floor.

    python3 benchmarks/bench_host.py                 # every row, full repeats
    python3 benchmarks/bench_host.py --quick         # fewer repeats (a smoke test)
    python3 benchmarks/bench_host.py --rows stream,event --json out.json
    python3 benchmarks/bench_host.py --list          # the registered rows

Prints one table: median time per call of each operation for each library, the C floor (the same
operation through the driver API from C, no Python: benchmarks/floor.c), and the ratios numba-cuda /
ours, CuPy / ours and PyTorch / ours (PyTorch: the CUDA graph rows only; the DLPack rows have PyTorch as the other side) (above 1: we are faster; for the GB/s rows they are ours / theirs, so above 1
still means we are faster). Progress goes to stderr; the table and its notes are printed last, on
stdout.

Organisation
------------
* `ROWS` is the registry: operation name -> {"kind", "unit", "gpu", "ours", "numba", "cupy"}, filled
  by `row()`. An implementation key "cuda" fills both "ours" and "numba" (same API); a library
  without an implementation prints "—". To add a row, call `row()` below; nothing else changes.
* kind "fresh" (unit ms): each implementation is a pair of code strings (pre, stmt); the text
  "{import}" in them is replaced by the library's import line (`IMPORT_CODE`). `stmt` is timed once
  in each of N fresh interpreters (`fresh_interpreter`), after `pre` ran untimed; median of N.
* kind "call" (unit µs): each implementation is a setup function, given the imported module
  (numba_cuda_c, numba.cuda or cupy), returning the zero-argument callable to time. `per_call`
  warms it up, picks a loop count (`number`) so one repeat lasts about `target` seconds, and
  returns the median over `repeat` repeats of (time of `number` calls) / number. The result of
  each call is dropped at once, so its destruction is timed too (for arrays that is the steady
  state of a loop that allocates temporaries; numba and ours queue the free, CuPy pools it).
  Setup may instead return `Keep(fn)`: the results are then kept in a list and freed after the
  timer stops (for creation rows such as stream() and event(): creation alone is timed); the loop
  count is then capped at 500, since creating with thousands of live streams is slower (on the H100,
  stream() took about 7 µs instead of 4 for us, 12 instead of 6 for CuPy).
  Or `SelfTimed(fn)`: fn times what it measures itself and returns microseconds (for a row with
  untimed work between calls, such as draining the GPU's queue before a burst of launches).
* kind "transfer" (unit GB/s, 1e9 bytes per second): the setup function returns a callable that moves
  `nbytes` per call; `per_transfer` calls it once untimed, then times one call per repeat (5; 3 with
  --quick) and reports the median rate. As for "call" rows, the result's destruction is timed too.
  The 256 MiB rows: "H2D pinned" is to_device(h) of a pinned_array h (a new device array each call);
  CuPy: cupy.asarray(h) of a cupyx.empty_pinned array, then the current stream synchronised (asarray
  copies asynchronously; CuPy copies straight from memory it knows is pinned). "D2H pinned" is
  d.copy_to_host(h) into a pinned_array (CuPy: d.get(out=h)); "D2H new array" is d.copy_to_host()
  (CuPy: d.get()), a new pageable NumPy array per call.
* Every cell is measured inside try/except: an API we do not have yet, or a failure, prints
  "n/a [k]" with reason k under the table, and the other cells go on.
* Rows that need a GPU are left out when no library (and not the floor) has one, and named under
  "skipped".

The C floor
-----------
`run_floor` compiles benchmarks/floor.c once per run into a temporary directory, with our own driver
declarations and loader and no CUDA toolkit (`cc -O2 -std=c11 -Isrc/driver/api benchmarks/floor.c
src/driver/api/loader.c -ldl -lpthread`; $CC overrides cc), runs it (with --quick when given) and reads the one
JSON object it prints: operation name -> number (µs per call; GB/s for names with "MiB"; ms for
"first context", a single sample). A row takes the value under its own name (`row(floor=...)` names
another key); the keys that name no row are variants, listed under the table. If compiling or
running fails (no C compiler, no GPU, a failed driver call), the column shows "—" and a note says
why. --no-floor skips it.

numba-cuda 0.30 under numpy 2.5 needs `numpy.row_stack = numpy.vstack` before numba is imported:
`NUMBA_SHIM` is applied in-process and in every fresh interpreter that imports numba.
"""

import argparse
import atexit
import enum
import gc
import itertools
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LIBS = ("ours", "numba", "cupy", "torch")
LABELS = {"ours": "numba_cuda_c", "numba": "numba-cuda", "cupy": "CuPy", "torch": "PyTorch"}
WIDTH = 110  # the table's notes are wrapped to this width
NUMBA_SHIM = "import numpy; numpy.row_stack = numpy.vstack"
# What a program writes to get the module; timed as a whole by the "import" row (for numba the
# shim's `import numpy` is inside it: ours and CuPy import NumPy themselves, if they need it).
IMPORT_CODE = {
    "ours": "import numba_cuda_c as cuda",
    "numba": NUMBA_SHIM + "\nfrom numba import cuda",
    "cupy": "import cupy",
    "torch": "import torch",
}


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------

ROWS = {}


KIND_UNITS = {"call": "us", "fresh": "ms", "transfer": "GB/s"}


def row(name, kind="call", unit=None, gpu=True, nbytes=None, floor=None, **impls):
    """Register an operation. impls: ours=, numba=, cupy=, or cuda= for both ours and numba.

    nbytes: bytes moved per call (kind "transfer"); floor: the key of floor.c's output for this row
    (default: the row's name).
    """
    assert kind in KIND_UNITS, kind
    assert (kind == "transfer") == (nbytes is not None), "nbytes is for (and required by) transfer rows"
    entry = {"kind": kind, "unit": unit or KIND_UNITS[kind], "gpu": gpu, "nbytes": nbytes, "floor": floor or name}
    cuda_impl = impls.pop("cuda", None)
    for lib in LIBS:
        entry[lib] = impls.pop(lib, cuda_impl if lib in ("ours", "numba") else None)
    assert not impls, "unknown implementation keys: %s" % sorted(impls)
    ROWS[name] = entry


class Keep:
    """Setup result meaning: keep what fn() returns until the repeat's timer has stopped.

    At most `limit` objects are alive at once (the loop count is capped there), so that creation
    is timed with a program's usual handful of live objects, not tens of thousands.
    """

    __slots__ = ("fn", "limit")

    def __init__(self, fn, limit=500):
        self.fn = fn
        self.limit = limit


class SelfTimed:
    """Setup result meaning: fn() returns the microseconds of what it measures (the rest of the call is not timed)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


# --- fresh interpreters (ms) ------------------------------------------------------------------

row("import", kind="fresh", gpu=False, ours=("", "{import}"), numba=("", "{import}"), cupy=("", "{import}"))
row(
    "import (numpy preloaded)",
    kind="fresh",
    gpu=False,
    ours=("import numpy", "{import}"),
    numba=("import numpy", "{import}"),
    cupy=("import numpy", "{import}"),
)
# First context, import excluded. numba and ours: current_context() (driver load, cuInit, primary
# context retained and made current). CuPy has no context call: cudaFree(0), the usual idiom that
# makes the CUDA runtime create (or adopt) the primary context, is the equivalent first call.
row(
    "first context",
    kind="fresh",
    cuda=("{import}", "cuda.current_context()"),
    cupy=("{import}", "cupy.cuda.runtime.free(0)"),
)

# --- in-process, per call (µs) -----------------------------------------------------------------

row("stream()", cuda=lambda cuda: Keep(cuda.stream), cupy=lambda cp: Keep(cp.cuda.Stream))
row("event()", cuda=lambda cuda: Keep(cuda.event), cupy=lambda cp: Keep(cp.cuda.Event))


def _record_sync(ev, s):
    record, synchronize = ev.record, ev.synchronize

    def fn():
        record(s)
        synchronize()

    return fn


row(
    "event record+sync (idle stream)",
    cuda=lambda cuda: _record_sync(cuda.event(), cuda.stream()),
    cupy=lambda cp: _record_sync(cp.cuda.Event(), cp.cuda.Stream()),
)
row(
    "stream.synchronize (idle)",
    cuda=lambda cuda: cuda.stream().synchronize,
    cupy=lambda cp: cp.cuda.Stream().synchronize,
)


def _device_array_8b(cuda):
    device_array = cuda.device_array
    return lambda: device_array(1, np.float64)


def _cupy_empty_8b(cp):
    empty = cp.empty
    return lambda: empty(1, np.float64)


row("device_array 8 B", cuda=_device_array_8b, cupy=_cupy_empty_8b)


def _to_device_8b(cuda):
    to_device, a = cuda.to_device, np.zeros(1)
    return lambda: to_device(a)


def _cupy_asarray_8b(cp):
    asarray, a = cp.asarray, np.zeros(1)
    return lambda: asarray(a)


row("to_device 8 B", cuda=_to_device_8b, cupy=_cupy_asarray_8b)
row(
    "copy_to_host 8 B",
    cuda=lambda cuda: cuda.to_device(np.zeros(1)).copy_to_host,
    cupy=lambda cp: cp.asarray(np.zeros(1)).get,
)


def _slice(d):
    return lambda: d[1:]


row(
    "slice d[1:] (16 x f8)",
    cuda=lambda cuda: _slice(cuda.to_device(np.zeros(16))),
    cupy=lambda cp: _slice(cp.asarray(np.zeros(16))),
)


def _cai(d):
    return lambda: d.__cuda_array_interface__


row(
    "d.__cuda_array_interface__",
    cuda=lambda cuda: _cai(cuda.to_device(np.zeros(16))),
    cupy=lambda cp: _cai(cp.asarray(np.zeros(16))),
)
row("get_current_device()", cuda=lambda cuda: cuda.get_current_device, cupy=lambda cp: cp.cuda.Device)
row("current_context()", cuda=lambda cuda: cuda.current_context)

# --- kernel launches, queued without a sync (µs) ------------------------------------------------
# Ours: CUDA C through SourceModule; numba-cuda: the same empty kernels as @cuda.jit; CuPy: RawKernel
# of the same source. The NumPy row passes a host array, copied in and out around the launch
# (numba and ours do that; CuPy has no such launch).

LAUNCH_SOURCE = r"""
extern "C" __global__ void one(float *a) { }
extern "C" __global__ void five(float *a, float *b, float *c, int n, float f) { }
extern "C" __global__ void twice(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= 2;
}
"""


def _numba_kernels(cuda):
    def one(a):
        pass

    def five(a, b, c, n, f):
        pass

    def twice(a, n):
        i = cuda.grid(1)
        if i < n:
            a[i] *= 2

    return {"one": cuda.jit(one), "five": cuda.jit(five), "twice": cuda.jit(twice)}


def _kernels(lib, module):
    if lib == "ours":
        source = module.SourceModule(LAUNCH_SOURCE)
        return {name: source.get_function(name) for name in ("one", "five", "twice")}
    if lib == "numba":
        return _numba_kernels(module)
    raw = module.RawModule(code=LAUNCH_SOURCE)
    return {name: raw.get_function(name) for name in ("one", "five", "twice")}


def _launch1(lib):
    def setup(module):
        k = _kernels(lib, module)["one"]
        if lib == "cupy":
            a = module.empty(16, np.float32)
            return lambda: k((1,), (32,), (a,))
        d = module.device_array(16, np.float32)
        config = k[1, 32]
        config(d)
        return lambda: config(d)

    return setup


def _launch5(lib):
    def setup(module):
        k = _kernels(lib, module)["five"]
        if lib == "cupy":
            a = module.empty(16, np.float32)
            n, f = np.int32(16), np.float32(1.5)
            return lambda: k((1,), (32,), (a, a, a, n, f))
        d = module.device_array(16, np.float32)
        config = k[1, 32]
        config(d, d, d, 16, 1.5)
        return lambda: config(d, d, d, 16, 1.5)

    return setup


def _launch_numpy(lib):
    def setup(module):
        k = _kernels(lib, module)["twice"]
        host = np.ones(16, np.float32)
        config = k[1, 32]
        config(host, 16)
        return lambda: config(host, 16)

    return setup


# CUDA graphs: 100 small kernels (twice(a, 16): one block) launched one by one, then the same 100
# captured once into a graph and replayed with one launch; each call ends with a stream sync. numba-cuda
# has no graphs. PyTorch: a.mul_(2) on a 16-element tensor, eager and in a torch.cuda.CUDAGraph.
GRAPH_KERNELS = 100


def _graph_workload(lib, module):
    """(stream, launch_all, sync): launch_all queues the 100 kernels on stream."""
    if lib == "torch":
        a = module.ones(16, device="cuda")
        stream = module.cuda.Stream()

        def launch_all():
            for _ in range(GRAPH_KERNELS):
                a.mul_(2)

        return stream, launch_all, stream.synchronize
    k = _kernels(lib, module)["twice"]
    if lib == "cupy":
        a, n, stream = module.ones(16, np.float32), np.int32(16), module.cuda.Stream(non_blocking=True)

        def launch_all():
            for _ in range(GRAPH_KERNELS):
                k((1,), (32,), (a, n), stream=stream)

        return stream, launch_all, stream.synchronize
    stream = module.stream()
    d = module.to_device(np.ones(16, np.float32), stream=stream)
    config = k[1, 32, stream]

    def launch_all():
        for _ in range(GRAPH_KERNELS):
            config(d, 16)

    return stream, launch_all, stream.synchronize


def _graph_one_by_one(lib):
    def setup(module):
        stream, launch_all, sync = _graph_workload(lib, module)
        if lib == "torch":

            def run():
                with module.cuda.stream(stream):
                    launch_all()
                sync()

            return run

        def run():
            launch_all()
            sync()

        return run

    return setup


def _graph_replay(lib):
    def setup(module):
        stream, launch_all, sync = _graph_workload(lib, module)
        launch_all()  # compiled and loaded before the capture
        sync()
        if lib == "torch":
            graph = module.cuda.CUDAGraph()
            with module.cuda.graph(graph, stream=stream):
                launch_all()
            replay = graph.replay
        elif lib == "cupy":
            stream.begin_capture()
            launch_all()
            graph = stream.end_capture()
            replay = lambda: graph.launch(stream)  # noqa: E731
        else:
            with stream.capture() as graph:
                launch_all()
            executable = graph.instantiate()
            replay = lambda: executable.launch(stream)  # noqa: E731

        def run():
            replay()
            sync()

        return run

    return setup


row(
    "100 kernels, launched one by one, + sync",
    ours=_graph_one_by_one("ours"),
    numba=_graph_one_by_one("numba"),
    cupy=_graph_one_by_one("cupy"),
    torch=_graph_one_by_one("torch"),
)
row(
    "100 kernels, one CUDA graph launch, + sync",
    ours=_graph_replay("ours"),
    cupy=_graph_replay("cupy"),
    torch=_graph_replay("torch"),
)


# DLPack, both ways, with PyTorch on the other side: export (PyTorch takes a 16-element float32 array of the
# library's through torch.from_dlpack: __dlpack__, the capsule, its stream handshake, the tensor) and import (the
# library takes a 16-element torch tensor through its from_dlpack). numba-cuda 0.30 has neither.
def _dlpack_export(lib):
    def setup(module):
        import torch

        d = module.ones(16, np.float32) if lib == "cupy" else module.to_device(np.ones(16, np.float32))
        return lambda: torch.from_dlpack(d)

    return setup


def _dlpack_import(lib):
    def setup(module):
        import torch

        t = torch.ones(16, device="cuda")
        return lambda: module.from_dlpack(t)

    return setup


row("DLPack export (torch.from_dlpack of an array)", ours=_dlpack_export("ours"), cupy=_dlpack_export("cupy"))
row("DLPack import (from_dlpack of a torch tensor)", ours=_dlpack_import("ours"), cupy=_dlpack_import("cupy"))

row("launch, 1 device-array argument", ours=_launch1("ours"), numba=_launch1("numba"), cupy=_launch1("cupy"))
row("launch, 5 arguments", ours=_launch5("ours"), numba=_launch5("numba"), cupy=_launch5("cupy"))
row("launch with a NumPy argument (in + out)", ours=_launch_numpy("ours"), numba=_launch_numpy("numba"))

# Compiling a small kernel and loading it, in a fresh interpreter with a context already made: a
# unique comment defeats every cache; the second row hits our disk cache (and numba's, cache=True).
_COMPILE_PRE = "{import}\nimport os, tempfile\nos.environ['NUMBA_CUDA_C_CACHE_DIR'] = tempfile.mkdtemp()\n"
_UNIQUE = "'// %f\\n' % time.time()"
row(
    "compile + load a small kernel",
    kind="fresh",
    ours=(_COMPILE_PRE + "cuda.current_context()", "cuda.SourceModule(%s + %r)" % (_UNIQUE, LAUNCH_SOURCE)),
    cupy=(
        "{import}\ncupy.cuda.runtime.free(0)",
        "cupy.RawModule(code=%s + %r).get_function('one')" % (_UNIQUE, LAUNCH_SOURCE),
    ),
)
row(
    "compile, disk-cache hit",
    kind="fresh",
    ours=(
        "import subprocess, sys, os, tempfile\nos.environ['NUMBA_CUDA_C_CACHE_DIR'] = tempfile.mkdtemp()\n"
        "SOURCE = %r\nWARM = 'import sys, numba_cuda_c as c; c.SourceModule(sys.argv[1])'\n"
        "subprocess.run([sys.executable, '-c', WARM, SOURCE], check=True)\n"
        "{import}\ncuda.current_context()" % LAUNCH_SOURCE,
        "cuda.SourceModule(SOURCE)",
    ),
)

# --- @cuda.jit kernels: the same Python source for ours and numba-cuda ----------------------------


def _jit_launch(nargs):
    def setup(cuda):
        @cuda.jit
        def one(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = 1.0

        @cuda.jit
        def five(a, b, c, n, f):
            i = cuda.grid(1)
            if i < n:
                a[i] = b[i] + c[i] * f

        @cuda.jit
        def pair(a, t):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = t[0] + t[1]

        @cuda.jit
        def mode(a, m):
            i = cuda.grid(1)
            if (
                i < a.size and m == 2
            ):  # numba compares an IntEnum member as an int (it does not cast one to a float)
                a[i] = 1.0

        @cuda.jit
        def arrays(t):  # a tuple holding arrays: passed as its leaves (an ArgumentPlan, argument_plan.c)
            i = cuda.grid(1)
            if i < t[0].size:
                t[0][i] = t[1][i]

        d = cuda.device_array(16, np.float32)
        calls = {
            1: (one, (d,)),
            5: (five, (d, d, d, 16, 1.5)),
            "tuple": (pair, (d, (1.0, 2.5))),
            "enum": (mode, (d, _Mode.FAST)),
            "arrays": (arrays, ((d, d),)),
        }
        kernel, args = calls[nargs]
        config = kernel[1, 32]
        config(*args)
        return lambda: config(*args)

    return setup


class _Mode(enum.IntEnum):
    SLOW = 1
    FAST = 2


def _burst(cuda, launch_100):
    """Per launch, the host's time of 100 launches into a drained queue: the GPU's queue is emptied (untimed) first,
    since a loop of launches that outruns the GPU waits for it, and would time the kernels instead."""

    def timed():
        cuda.synchronize()
        start = time.perf_counter_ns()
        launch_100()
        return (time.perf_counter_ns() - start) / 100 / 1000.0

    return SelfTimed(timed)


def _c_api_launches(cuda):
    """Launches of a @cuda.jit kernel from a C loop of another extension, through the C API (numba_cuda_c.h):
    tests/support/c_api_client.c, built here against the installed header."""
    import sysconfig

    folder = tempfile.mkdtemp(prefix="bench_c_api_")
    atexit.register(shutil.rmtree, folder, True)
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support", "c_api_client.c")
    target = os.path.join(folder, "c_api_client" + sysconfig.get_config_var("EXT_SUFFIX"))
    include = ["-I" + sysconfig.get_paths()["include"], "-I" + cuda.get_include()]
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", *include, source, "-o", target], check=True)
    sys.path.insert(0, folder)
    import c_api_client

    @cuda.jit("void(float32[::1], float32)")
    def add(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = x[i] + v

    kernel, d = add.c_kernel("void(float32[::1], float32)"), cuda.device_array(32, np.float32)
    return _burst(cuda, lambda: c_api_client.add_many(kernel, d, 1.0, 100, 0))


row(
    "launch from a C loop, through the C API (per launch)",
    ours=_c_api_launches,
    floor="launch (per launch, a burst of 100)",
)


def _njit_launches(cuda):
    """Launches of a @cuda.jit kernel from a numba @njit loop (dispatcher.c_launcher: docs/njit_launch.rst)."""
    from numba import njit

    @cuda.jit("void(float32[::1], float32)")
    def add(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = x[i] + v

    d = cuda.device_array(32, np.float32)
    launcher = add.c_launcher("void(float32[::1], float32)")
    packed = launcher.pack(d, np.float32(1.0))
    launch, handle, address = launcher.launch, launcher.handle, packed.ctypes.data

    @njit
    def hundred(address):
        failed = 0
        for _ in range(100):
            failed |= launch(handle, 1, 1, 1, 32, 1, 1, 0, 0, address)
        return failed

    hundred(address)  # compiled before timing
    return _burst(cuda, lambda: (launcher, packed, hundred(address)))  # (the launcher and the bytes stay alive)


row("launch from a numba @njit loop (per launch)", ours=_njit_launches, floor="launch (per launch, a burst of 100)")
row("jit launch, 1 array argument", cuda=_jit_launch(1))
row("jit launch, 5 arguments", cuda=_jit_launch(5))
row("jit launch, array and tuple arguments", cuda=_jit_launch("tuple"))
row("jit launch, array and IntEnum arguments", cuda=_jit_launch("enum"))
row("jit launch, a tuple holding arrays", cuda=_jit_launch("arrays"))

# First compile and launch of a small @cuda.jit kernel, in a fresh interpreter with a context made:
# the kernel lives in a module file (our translator reads the source); our disk cache is pointed at
# an empty directory so that nothing is cached.
JIT_MODULE = """{import}
import numpy as np

@cuda.jit
def axpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
"""
_JIT_PRE = (
    "import os, sys, tempfile\nos.environ['NUMBA_CUDA_C_CACHE_DIR'] = tempfile.mkdtemp()\n"
    "_dir = tempfile.mkdtemp(); sys.path.insert(0, _dir)\n"
    "open(os.path.join(_dir, 'jitbench.py'), 'w').write(%r)\n"
    "{import}\nimport numpy as np\ncuda.current_context()\nimport jitbench\n"
    "d = cuda.to_device(np.ones(1024, np.float32))\n"
)
_JIT_STMT = "jitbench.axpy[4, 256](d, d, d, np.float32(2.0)); cuda.synchronize()"
row(
    "jit compile + first launch",
    kind="fresh",
    ours=(_JIT_PRE % JIT_MODULE.replace("{import}", IMPORT_CODE["ours"]), _JIT_STMT),
    numba=(_JIT_PRE % JIT_MODULE.replace("{import}", "from numba import cuda"), _JIT_STMT),
)

# A new process launching a @cuda.jit(cache=True) kernel that an earlier process compiled: the disk
# cache. The first interpreter of the row fills it (in a child, untimed); every timed launch is a hit.
_JIT_CACHE_ROOT = tempfile.mkdtemp(prefix="bench_jit_cache_")
atexit.register(shutil.rmtree, _JIT_CACHE_ROOT, True)
_JIT_CACHED_PRE = """import os, subprocess, sys
_dir = %(directory)r
os.makedirs(_dir, exist_ok=True)
sys.path.insert(0, _dir)
os.environ["NUMBA_CUDA_C_CACHE_DIR"] = os.path.join(_dir, "cache")
if not os.path.exists(os.path.join(_dir, "jitcached.py")):  # written once: its time stamp keys the caches
    open(os.path.join(_dir, "jitcached.py"), "w").write(%(module)r)
    subprocess.run([sys.executable, "-c", %(warm)r], check=True, cwd=_dir)
%(prepare)s
"""
_JIT_CACHED_PREPARE = "{import}\nimport numpy as np\ncuda.current_context()\nimport jitcached\nd = cuda.to_device(np.ones(1024, np.float32))"
_JIT_CACHED_STMT = "jitcached.axpy[4, 256](d, d, d, np.float32(2.0)); cuda.synchronize()"


def _jit_cached(lib):
    imports = IMPORT_CODE[lib]
    prepare = _JIT_CACHED_PREPARE.replace("{import}", imports)
    module = JIT_MODULE.replace("{import}", imports).replace("@cuda.jit", "@cuda.jit(cache=True)")
    return (
        _JIT_CACHED_PRE
        % {
            "directory": os.path.join(_JIT_CACHE_ROOT, lib),
            "module": module,
            "warm": "import sys; sys.path.insert(0, '.')\n" + prepare + "\n" + _JIT_CACHED_STMT,
            "prepare": prepare,
        },
        _JIT_CACHED_STMT,
    )


row(
    "jit first launch in a new process, disk-cache hit",
    kind="fresh",
    ours=_jit_cached("ours"),
    numba=_jit_cached("numba"),
)

# A new process launching a kernel its module declares a signature for, from a bundle beside the module (python -m
# numba_cuda_c build, made once, untimed, for this GPU): the import loads it; neither the translator nor NVRTC runs.
_JIT_BUNDLE_DIR = os.path.join(_JIT_CACHE_ROOT, "bundle")
_JIT_BUNDLE_PRE = """import os, subprocess, sys
_dir = %(directory)r
os.makedirs(_dir, exist_ok=True)
sys.path.insert(0, _dir)
{import}
import numpy as np
cuda.current_context()
cuda.jit  # the decorator's modules, imported untimed as the disk-cache row's setup imports them with its module
if not os.path.exists(os.path.join(_dir, "jitbundled.bundle")):
    open(os.path.join(_dir, "jitbundled.py"), "w").write(%(module)r)
    arch = "%%d%%d" %% cuda.get_current_device().compute_capability
    subprocess.run([sys.executable, "-m", "numba_cuda_c", "build", "jitbundled.py", "--arch", arch], check=True, cwd=_dir)
d = cuda.to_device(np.ones(1024, np.float32))
"""
_JIT_BUNDLE_MODULE = JIT_MODULE.replace("{import}", IMPORT_CODE["ours"]).replace(
    "@cuda.jit", '@cuda.jit("void(float32[::1], float32[::1], float32[::1], float32)")'
)
row(
    "jit first launch in a new process, from a bundle",
    kind="fresh",
    ours=(
        _JIT_BUNDLE_PRE.replace("{import}", IMPORT_CODE["ours"])
        % {"directory": _JIT_BUNDLE_DIR, "module": _JIT_BUNDLE_MODULE},
        "import jitbundled; jitbundled.axpy[4, 256](d, d, d, np.float32(2.0)); cuda.synchronize()",
    ),
)

# --- transfers of 256 MiB (GB/s) ---------------------------------------------------------------

BIG = 256 << 20


# Host memory of each kind, for a library: pinned (ours and numba: pinned_array; CuPy: its pinned
# allocator) or pageable (an ordinary NumPy array, the usual case, which the driver stages itself)
def _pinned_big(cuda):
    h = cuda.pinned_array(BIG, np.uint8)
    h[:] = 1
    return h


def _cupy_pinned_big(cp):
    import cupyx

    h = cupyx.empty_pinned(BIG, np.uint8)
    h[:] = 1
    return h


def _pageable_big(_lib):
    return np.ones(BIG, np.uint8)


# The transfers, over host memory that make_host(lib) gives: to a new device array, into an
# existing one, back into the host memory; ours and numba's API (cuda=), CuPy's (cupy=)
def _h2d(make_host):
    def setup(cuda):
        to_device, h = cuda.to_device, make_host(cuda)
        return lambda: to_device(h)

    return setup


def _cupy_h2d(make_host):
    def setup(cp):
        asarray, h = cp.asarray, make_host(cp)
        synchronize = cp.cuda.get_current_stream().synchronize

        def fn():
            a = asarray(h)
            synchronize()
            return a

        return fn

    return setup


def _h2d_into(make_host):
    def setup(cuda):
        copy_to_device, h = cuda.device_array(BIG, np.uint8).copy_to_device, make_host(cuda)
        return lambda: copy_to_device(h)

    return setup


def _cupy_h2d_into(make_host):
    def setup(cp):
        h, d = make_host(cp), cp.empty(BIG, np.uint8)
        synchronize = cp.cuda.get_current_stream().synchronize

        def fn():
            d.set(h)
            synchronize()

        return fn

    return setup


def _d2h_into(make_host):
    def setup(cuda):
        h = make_host(cuda)
        copy_to_host = cuda.to_device(h).copy_to_host
        return lambda: copy_to_host(h)

    return setup


def _cupy_d2h_into(make_host):
    def setup(cp):
        h, get = make_host(cp), cp.ones(BIG, np.uint8).get
        return lambda: get(out=h)

    return setup


def _transfer_rows(kind, make_host, cupy_make_host, floor_h2d, floor_d2h):
    row(
        "H2D %s 256 MiB" % kind,
        kind="transfer",
        nbytes=BIG,
        cuda=_h2d(make_host),
        cupy=_cupy_h2d(cupy_make_host),
        floor=floor_h2d,
    )
    # the copy alone, into an existing array (the row above allocates the device array too)
    row(
        "H2D %s 256 MiB, existing array" % kind,
        kind="transfer",
        nbytes=BIG,
        cuda=_h2d_into(make_host),
        cupy=_cupy_h2d_into(cupy_make_host),
        floor=floor_h2d,
    )
    row(
        "D2H %s 256 MiB%s" % (kind, ", existing array" if kind == "pageable" else ""),
        kind="transfer",
        nbytes=BIG,
        cuda=_d2h_into(make_host),
        cupy=_cupy_d2h_into(cupy_make_host),
        floor=floor_d2h,
    )


_transfer_rows("pinned", _pinned_big, _cupy_pinned_big, "H2D pinned 256 MiB", "D2H pinned 256 MiB")
_transfer_rows("pageable", _pageable_big, _pageable_big, "H2D pageable 256 MiB", "D2H pageable 256 MiB")


def _peer(lib_kind):
    # device 0's array into device 1's (peer access where the devices allow it); one GPU: n/a
    def setup(lib):
        if lib_kind == "cupy":
            if lib.cuda.runtime.getDeviceCount() < 2:
                raise RuntimeError("needs two GPUs")
            with lib.cuda.Device(0):
                src = lib.ones(BIG, np.uint8)
            with lib.cuda.Device(1):
                dst = lib.empty(BIG, np.uint8)

            def fn():
                with lib.cuda.Device(1):
                    lib.copyto(dst, src)  # CuPy: a peer copy (cudaMemcpyPeerAsync) between devices
                    lib.cuda.get_current_stream().synchronize()

            return fn
        if len(lib.gpus) < 2:
            raise RuntimeError("needs two GPUs")
        with lib.gpus[0]:
            src = lib.to_device(np.ones(BIG, np.uint8))
        with lib.gpus[1]:
            dst = lib.device_array(BIG, np.uint8)
        with lib.gpus[0]:
            dst.copy_to_device(src)  # peer access enabled here, once

        def fn():  # a device-to-device copy does not block the host: wait for it, as CuPy's row does
            dst.copy_to_device(src)
            with lib.gpus[1]:
                lib.synchronize()
            with lib.gpus[0]:
                lib.synchronize()

        return fn

    return setup


row("peer copy 256 MiB", kind="transfer", nbytes=BIG, cuda=_peer("cuda"), cupy=_peer("cupy"))
row(
    "D2H new array 256 MiB",
    kind="transfer",
    nbytes=BIG,
    cuda=lambda cuda: cuda.to_device(np.ones(BIG, np.uint8)).copy_to_host,
    cupy=lambda cp: cp.ones(BIG, np.uint8).get,
)


def _device_array_8b_pool(cuda):
    cuda.set_memory_manager(cuda.pool.StreamOrderedMemoryManager)
    return _device_array_8b(cuda)


# Registered last: it switches our allocator for the rest of the run: ours with
# the stream-ordered pool; the floor is cuMemAllocAsync + cuMemFreeAsync; CuPy always pools.
row("device_array 8 B (pool)", ours=_device_array_8b_pool, cupy=_cupy_empty_8b, floor="device_array 8 B async")


def _h2d_pinned_pool(cuda):
    cuda.set_memory_manager(cuda.pool.StreamOrderedMemoryManager)
    return _h2d(_pinned_big)(cuda)


# to_device with the allocation from the pool, as CuPy's row always is (the floor column: the copy alone)
row(
    "H2D pinned 256 MiB (pool)",
    kind="transfer",
    nbytes=BIG,
    ours=_h2d_pinned_pool,
    cupy=_cupy_h2d(_cupy_pinned_big),
    floor="H2D pinned 256 MiB",
)

# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------


def _loop(fn, number):
    it = itertools.repeat(None, number)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        for _ in it:
            fn()
        t1 = time.perf_counter_ns()
    finally:
        if gc_was_on:
            gc.enable()
    return t1 - t0


def _loop_keep(fn, number):
    it = itertools.repeat(None, number)
    kept = []
    keep = kept.append
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        for _ in it:
            keep(fn())
        t1 = time.perf_counter_ns()
    finally:
        if gc_was_on:
            gc.enable()
    del kept[:]  # freed here, with the timer stopped
    return t1 - t0


def per_call(fn, number=None, repeat=7, target=0.02, max_number=200_000):
    """Median µs per call of fn() (or of Keep(fn)); returns (median, per-repeat samples, number).

    Warm-up: a few calls, then calibration (number doubled until a loop lasts `target` seconds).
    The garbage collector is off inside the timed loops, as in timeit.
    """
    if isinstance(fn, SelfTimed):
        fn = fn.fn
        fn()
        samples = [statistics.mean(fn() for _ in range(number or 20)) for _ in range(repeat)]
        return statistics.median(samples), samples, number or 20
    loop = _loop
    if isinstance(fn, Keep):
        fn, loop, max_number = fn.fn, _loop_keep, min(max_number, fn.limit)
    loop(fn, 3)
    if number is None:
        number = 1
        while number < max_number and loop(fn, number) < target * 1e9:
            number = min(2 * number, max_number)
    samples = [loop(fn, number) / number / 1000.0 for _ in range(repeat)]
    return statistics.median(samples), samples, number


def per_transfer(fn, nbytes, repeat=5):
    """Median GB/s of fn(), which moves nbytes per call; returns (median, per-repeat samples).

    One untimed call first (first allocations, pools), then one timed call per repeat, with the garbage
    collector off as in per_call.
    """
    _loop(fn, 1)
    samples = [nbytes / _loop(fn, 1) for _ in range(repeat)]  # bytes per ns = GB/s
    return statistics.median(samples), samples


_MARK = "@@bench_seconds"


def fresh_interpreter(pre, stmt, env=None, cwd=None, timeout=300):
    """Seconds that `stmt` takes in a new interpreter, after `pre` ran there untimed."""
    code = "import time\n%s\n_t0 = time.perf_counter()\n%s\n_t1 = time.perf_counter()\nprint(%r, repr(_t1 - _t0))\n"
    code %= (pre, stmt, _MARK)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(_MARK):
            return float(line.split()[1])
    err = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
    raise RuntimeError("fresh interpreter: " + err)


# --------------------------------------------------------------------------------------------
# The C floor
# --------------------------------------------------------------------------------------------

FLOOR_SOURCE = os.path.join(REPO, "benchmarks", "floor.c")
API_DIR = os.path.join(REPO, "src", "driver", "api")


def _first_error(text, default):
    """The line of a tool's stderr that says what went wrong (the first naming an error, else the last)."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    pick = next((line for line in lines if "error" in line.lower()), lines[-1] if lines else default)
    return pick if len(pick) <= 300 else pick[:297] + "..."


def floor_unit(key):
    """The unit of a value in floor.c's output, by its documented naming rule."""
    return "GB/s" if "MiB" in key else "ms" if key == "first context" else "us"


def run_floor(workdir, quick, timeout=300):
    """Compiles benchmarks/floor.c into workdir, runs it, and returns
    {"status": "ok", "values": {key: number}, "device": line} or {"status": "failed", "reason": why}."""
    cc = shlex.split(os.environ.get("CC") or "cc")
    exe = os.path.join(workdir, "floor")
    cmd = cc + ["-O2", "-std=c11", "-I" + API_DIR, FLOOR_SOURCE, os.path.join(API_DIR, "loader.c")]
    cmd += ["-ldl", "-lpthread", "-o", exe]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"status": "failed", "reason": "cannot compile floor.c: " + _reason(exc)}
    if done.returncode != 0:
        why = _first_error(done.stderr, "exit status %d" % done.returncode)
        return {"status": "failed", "reason": "compiling floor.c failed: " + why}
    try:
        done = subprocess.run(
            [exe] + (["--quick"] if quick else []), cwd=workdir, capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return {"status": "failed", "reason": "running floor failed: " + _reason(exc)}
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0:
        why = errors[-1] if errors else "exit status %d" % done.returncode
        why = why.removeprefix("floor: ")
        return {"status": "failed", "reason": why}
    try:
        values = json.loads(done.stdout)
        assert isinstance(values, dict) and all(isinstance(v, (int, float)) for v in values.values())
    except (ValueError, AssertionError):
        return {"status": "failed", "reason": "floor printed no JSON object of numbers: %r" % done.stdout[-200:]}
    device = next((line[len("floor: ") :] for line in errors if line.startswith("floor: device")), None)
    return {"status": "ok", "values": values, "device": device}


# --------------------------------------------------------------------------------------------
# The libraries
# --------------------------------------------------------------------------------------------


class Lib:
    def __init__(self, key, selected=True):
        self.key = key
        self.label = LABELS[key]
        self.module = None  # what setup functions get
        self.error = None  # why it is not importable
        self.gpu_error = None  # why it has no usable GPU (None: it has one)
        self.version = None
        self.env = None  # environment of its fresh interpreters
        if not selected:
            self.error = "not selected (--libs)"
            return
        try:
            self.module = getattr(self, "_load_" + key)()
        except Exception as exc:  # noqa: BLE001 -- anything: the column prints "—"
            self.error = "%s: %s" % (type(exc).__name__, exc)
            return
        try:
            self.gpu_error = getattr(self, "_gpu_" + key)()
        except Exception as exc:  # noqa: BLE001
            self.gpu_error = "%s: %s" % (type(exc).__name__, exc)

    # -- ours
    def _load_ours(self):
        try:
            import numba_cuda_c
        except ImportError:
            # Not installed: an in-place build in this checkout will do; children get it too.
            sys.path.insert(0, REPO)
            import numba_cuda_c
        _compile_as_installed(os.path.dirname(os.path.abspath(numba_cuda_c.__file__)))
        # Children import the very same package (their cwd is a neutral directory, see main()).
        root = os.path.dirname(os.path.dirname(os.path.abspath(numba_cuda_c.__file__)))
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        self.version = numba_cuda_c.__version__
        return numba_cuda_c

    def _gpu_ours(self):
        if self.module.is_available():
            return None
        return self.module.cuda_error() or "no CUDA device"

    # -- numba-cuda
    def _load_numba(self):
        exec(NUMBA_SHIM, {})
        from numba import cuda

        try:
            from importlib.metadata import version

            self.version = version("numba-cuda")
        except Exception:  # noqa: BLE001
            import numba

            self.version = "numba " + numba.__version__
        return cuda

    def _gpu_numba(self):
        if self.module.is_available():
            return None
        why = getattr(self.module, "cuda_error", lambda: None)()
        return str(why) if why else "no CUDA device"

    # -- CuPy
    def _load_cupy(self):
        import cupy

        self.version = cupy.__version__
        return cupy

    def _gpu_cupy(self):
        return None if self.module.cuda.runtime.getDeviceCount() > 0 else "no CUDA device"

    # -- PyTorch (only the CUDA graph rows: the launch overhead a graph saves, beside torch.cuda.graphs)
    def _load_torch(self):
        import torch

        self.version = torch.__version__
        return torch

    def _gpu_torch(self):
        return None if self.module.cuda.is_available() else "no CUDA device"


# --------------------------------------------------------------------------------------------
# Running and printing
# --------------------------------------------------------------------------------------------


def _reason(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


def measure_cell(name, spec, lib, args, fresh_cwd):
    """One cell: {"status": "ok", "median", "samples", ...} | {"status": "missing"|"na", "reason"}."""
    impl = spec[lib.key]
    if lib.error is not None:
        return {"status": "missing", "reason": "not importable: " + lib.error}
    if impl is None:
        return {"status": "missing", "reason": "no such operation in " + lib.label}
    if spec["gpu"] and lib.gpu_error is not None:
        return {"status": "na", "reason": "%s: no GPU: %s" % (lib.label, lib.gpu_error)}
    try:
        if spec["kind"] == "fresh":
            pre, stmt = (s.replace("{import}", IMPORT_CODE[lib.key]) for s in impl)
            samples = [1000.0 * fresh_interpreter(pre, stmt, env=lib.env, cwd=fresh_cwd) for _ in range(args.fresh)]
            return {"status": "ok", "median": statistics.median(samples), "samples": samples}
        fn = impl(lib.module)
        if spec["kind"] == "transfer":
            median, samples = per_transfer(fn, spec["nbytes"], repeat=args.transfer_repeat)
            return {"status": "ok", "median": median, "samples": samples}
        median, samples, number = per_call(fn, repeat=args.repeat, target=args.target)
        return {"status": "ok", "median": median, "samples": samples, "number": number}
    except Exception as exc:  # noqa: BLE001 -- a missing API or a failure: "n/a [k]"
        return {"status": "na", "reason": "%s: %s" % (lib.label, _reason(exc))}
    finally:
        fn = None
        gc.collect()


def _fmt(value):
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    if value >= 0.1:
        return "%.2f" % value
    return "%.3f" % value


def _can_print(text):
    try:
        text.encode(sys.stdout.encoding or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def render(results, skipped, meta):
    dash = "—" if _can_print("—µ") else "-"
    micro = "µs" if dash != "-" else "us"
    notes_na = []  # footnote texts of "n/a [k]", numbered from 1

    def cell(c):
        if c["status"] == "ok":
            return _fmt(c["median"])
        if c["status"] == "missing":
            return dash
        if c["reason"] not in notes_na:
            notes_na.append(c["reason"])
        return "n/a [%d]" % (notes_na.index(c["reason"]) + 1)

    def ratio(c, ours, higher_is_better):
        if c["status"] != "ok" or ours["status"] != "ok" or min(ours["median"], c["median"]) <= 0:
            return dash
        if higher_is_better:  # a rate: ours / theirs, so that above 1 still means we are faster
            return _fmt(ours["median"] / c["median"]) + "x"
        return _fmt(c["median"] / ours["median"]) + "x"

    def unit_text(unit):
        return micro if unit == "us" else unit

    header = (
        ["operation", "unit"] + [LABELS[k] for k in LIBS] + ["floor (C)", "numba/ours", "CuPy/ours", "PyTorch/ours"]
    )
    body = []
    for name, res in results.items():
        c = res["cells"]
        rate = res["unit"] == "GB/s"
        ratios = [ratio(c[k], c["ours"], rate) for k in ("numba", "cupy", "torch")]
        floor = dash if res.get("floor") is None else _fmt(res["floor"])
        body.append([name, unit_text(res["unit"])] + [cell(c[k]) for k in LIBS] + [floor] + ratios)
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    widths[0] = max(widths[0], 20)
    fmt = "  ".join(["%-*s", "%-*s"] + ["%*s"] * (len(header) - 2))

    lines = [""]
    title = (
        "numba_cuda_c host-API benchmark -- median per call (fresh-interpreter rows: ms, of %d runs; GB/s: of %d)"
    )
    lines.append(title % (meta["fresh"], meta["transfer_repeat"]))
    for key in ("device", "versions", "harness"):
        if meta.get(key):
            first = "  %-9s " % (key + ":")
            lines += textwrap.wrap(meta[key], WIDTH, initial_indent=first, subsequent_indent=" " * len(first))
    lines.append("")
    lines.append(fmt % tuple(itertools.chain(*zip(widths, header))))
    lines.append("  ".join("-" * w for w in widths))
    for r in body:
        lines.append(fmt % tuple(itertools.chain(*zip(widths, r))))
    if not body:
        lines.append("(no rows)")
    lines.append("")
    notes = [
        "ratios above 1: numba_cuda_c is faster (GB/s rows: ours / theirs).  %s: library not importable, or no "
        "such operation." % dash
    ]
    notes += ["[%d] %s" % (i, text) for i, text in enumerate(notes_na, 1)]
    floor = meta.get("floor") or {}
    if floor.get("status") == "ok":
        text = (
            "floor (C): benchmarks/floor.c, the same driver calls from C with no Python (first context: one "
            "sample). Variants:"
        )
        extras = [
            "%s %s %s" % (k, _fmt(v), unit_text(floor_unit(k))) for k, v in floor["values"].items() if k not in ROWS
        ]
        notes.append(text + " " + ("; ".join(extras) if extras else "none") + ".")
    elif floor.get("status") == "failed":
        notes.append("floor (C) %s: not measured: %s" % (dash, floor["reason"]))
    elif floor.get("reason"):
        notes.append("floor (C) %s: %s" % (dash, floor["reason"]))
    notes += ["skipped (%s): %s" % (why, "; ".join(names)) for why, names in skipped.items()]
    for text in notes:
        lines += textwrap.wrap(text, WIDTH, subsequent_indent="    ")
    return "\n".join(lines)


def _compile_as_installed(root):
    """Compiles the package's modules (under root) to .pyc where they have none or an older one: an installed
    package has them (pip writes them), but a source tree with PYTHONDONTWRITEBYTECODE set (the GPU machines set
    it) would have every fresh process of the import and first-launch rows compile them from source, which
    numba-cuda's and CuPy's installs never do. Returns how many were compiled."""
    import compileall
    import importlib.util

    missing = 0
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                cached = importlib.util.cache_from_source(os.path.join(folder, name))
                missing += not os.path.exists(cached) or os.path.getmtime(cached) < os.path.getmtime(
                    os.path.join(folder, name)
                )
    if missing:
        compileall.compile_dir(root, quiet=1)
    return missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", help="only rows whose name contains one of these comma-separated substrings")
    ap.add_argument("--libs", default=",".join(LIBS), help="comma-separated subset of: " + ", ".join(LIBS))
    ap.add_argument("--quick", action="store_true", help="fewer repeats and shorter loops")
    ap.add_argument("--json", metavar="PATH", help="also write the results (every sample) as JSON")
    ap.add_argument("--list", action="store_true", help="list the registered rows and exit")
    ap.add_argument("--no-floor", action="store_true", help="do not build and run the C floor (benchmarks/floor.c)")
    args = ap.parse_args(argv)
    args.repeat, args.target, args.fresh = (3, 0.005, 3) if args.quick else (7, 0.02, 5)
    args.transfer_repeat = 3 if args.quick else 5

    if args.list:
        for name, spec in ROWS.items():
            have = [LABELS[k] for k in LIBS if spec[k] is not None]
            print("%-40s %-5s %-3s %s" % (name, spec["kind"], "gpu" if spec["gpu"] else "", ", ".join(have)))
        return 0

    wanted = [s.strip().lower() for s in (args.rows or "").split(",") if s.strip()]
    names = [n for n in ROWS if not wanted or any(w in n.lower() for w in wanted)]
    use = [k.strip() for k in args.libs.split(",") if k.strip()]
    bad = [k for k in use if k not in LIBS]
    if bad:
        ap.error("unknown library %s (choose from %s)" % (", ".join(bad), ", ".join(LIBS)))

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    libs = {}
    for key in LIBS:
        lib = libs[key] = Lib(key, key in use)
        log(
            "%-13s %s"
            % (
                lib.label,
                lib.error
                and "not available: " + lib.error
                or "%s, GPU: %s" % (lib.version, "yes" if lib.gpu_error is None else "no (%s)" % lib.gpu_error),
            )
        )
    # The C floor, in its own process, before this one makes a context (it is skipped when no selected
    # row needs a GPU: it would measure nothing shown).
    if args.no_floor:
        floor = {"status": "not run", "reason": "not run (--no-floor)"}
    elif not any(ROWS[n]["gpu"] for n in names):
        floor = {"status": "not run"}
    else:
        with tempfile.TemporaryDirectory(prefix="bench_floor_") as floor_dir:
            floor = run_floor(floor_dir, args.quick)
    log(
        "%-13s %s"
        % (
            "floor (C)",
            {"ok": "%s" % floor.get("device"), "failed": "not available: %s" % floor.get("reason")}.get(
                floor["status"], floor.get("reason") or "not run"
            ),
        )
    )
    floor_ok = floor["status"] == "ok"
    any_gpu = floor_ok or any(lib.error is None and lib.gpu_error is None for lib in libs.values())

    meta = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "fresh": args.fresh,
        "repeat": args.repeat,
        "transfer_repeat": args.transfer_repeat,
        "target_s": args.target,
        "quick": args.quick,
        "floor": floor,
    }
    meta["versions"] = ", ".join(
        ["Python %s" % meta["python"], "NumPy %s" % meta["numpy"]]
        + ["%s %s" % (lib.label, lib.version) for lib in libs.values() if lib.error is None]
    )
    ours = libs["ours"]
    if ours.error is None and ours.gpu_error is None:
        try:
            dev = ours.module.list_devices()[0]
            name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
            drv = ours.module._cuda.driver_get_version()
            cc = "%d.%d" % tuple(dev.compute_capability)
            meta["device"] = "%s (cc %s), driver API %d.%d" % ((name, cc) + tuple(drv))
        except Exception as exc:  # noqa: BLE001
            meta["device"] = "? (%s)" % _reason(exc)
    elif floor_ok and floor.get("device"):
        meta["device"] = floor["device"] + " (from the floor)"
    elif not any_gpu:
        meta["device"] = "no CUDA GPU (%s)" % (ours.gpu_error or "see above")
    empty = per_call(lambda: None, repeat=args.repeat, target=args.target)[0]
    meta["harness"] = "%.0f ns per call (an empty lambda), included in the per-call rows" % (empty * 1000)

    results, skipped = {}, {}
    # Fresh interpreters run in a neutral directory: the checkout in the current directory must not
    # shadow what is installed (ours' children get the parent's package through PYTHONPATH).
    with tempfile.TemporaryDirectory(prefix="bench_host_") as fresh_cwd:
        # Fresh-interpreter rows first, while this process holds no context yet.
        order = sorted(names, key=lambda n: ROWS[n]["kind"] != "fresh")
        for name in order:
            spec = ROWS[name]
            if spec["gpu"] and not any_gpu:
                skipped.setdefault("no CUDA GPU", []).append(name)
                continue
            cells = {}
            for key in LIBS:
                log("  %-40s %s" % (name, LABELS[key]))
                cells[key] = measure_cell(name, spec, libs[key], args, fresh_cwd)
            results[name] = {"unit": spec["unit"], "kind": spec["kind"], "cells": cells}
            results[name]["floor"] = floor["values"].get(spec["floor"]) if floor_ok else None
    results = {n: results[n] for n in names if n in results}  # registry order

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": results, "skipped": skipped}, f, indent=1)
        log("wrote " + args.json)
    print(render(results, skipped, meta), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
