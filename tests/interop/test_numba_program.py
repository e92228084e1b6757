"""A program written for numba.cuda, run unchanged under `python -m numba_cuda_c` (issue #29's end-to-end check): numba's
own `@vectorize(target='cuda')`, a device function that returns a number or None (numba's Optional), and
`numba.types.int32` as a shared array's dtype, reached through the numba module. Its output is compared with NumPy's
and, where numba-cuda is installed and sees the GPU, with numba-cuda running the same file."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from gpu import requires_gpu
from mock_driver import ROOT

pytestmark = [
    requires_gpu,
    pytest.mark.skipif(
        importlib.util.find_spec("numba") is None, reason="numba (the CPU package) is not installed"
    ),
]

PROGRAM = """
import numpy as np
import numba
from numba import cuda, vectorize

BINS = 8


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def axpb(x, y):
    return 2 * x + y


@cuda.jit(device=True)
def bin_of(value, width, n):
    # the bin of a value, or None outside the bins
    if value < 0:
        return None
    k = int(value) // width
    if k >= n:
        return None
    return k


@cuda.jit
def histogram(values, counts, width):
    per_block = cuda.shared.array(BINS, numba.types.int32)
    t = cuda.threadIdx.x
    if t < BINS:
        per_block[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < values.size:
        k = bin_of(values[i], width, BINS)
        if k is not None:
            cuda.atomic.add(per_block, k, 1)
    cuda.syncthreads()
    if t < BINS:
        cuda.atomic.add(counts, t, per_block[t])


x = np.arange(-50, 1100).astype(np.float32)
y = axpb(x, np.float32(1.0))  # 2x + 1: odd numbers from -99 to 2199
counts = cuda.to_device(np.zeros(BINS, np.int32))
histogram[(y.size + 127) // 128, 128](cuda.to_device(y), counts, 250)
print(type(y).__name__, y.dtype, y[:3].tolist(), counts.copy_to_host().tolist())
"""


def expected():
    y = 2 * np.arange(-50, 1100).astype(np.float32) + 1
    k = np.floor(y[y >= 0]).astype(np.int64) // 250
    counts = np.bincount(k[k < 8], minlength=8)
    return "ndarray float32 %s %s" % (y[:3].tolist(), counts.tolist())


def run(tmp_path, *command):
    script = tmp_path / "histogram.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMBA_CUDA_C_AS_NUMBA_CUDA", None)
    done = subprocess.run(
        [sys.executable, *command, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def test_a_numba_cuda_program_runs_unchanged_under_the_command_line(tmp_path):
    ours = run(tmp_path, "-m", "numba_cuda_c")
    assert ours == expected()
    # numba-cuda itself on the same file, where it is installed (numba-cuda 0.30 imports numpy.row_stack, which
    # NumPy 2.5 removed: put back before the program runs, outside it)
    shim = (
        "import numpy, runpy, sys; numpy.row_stack = numpy.vstack; runpy.run_path(sys.argv[1], run_name='__main__')"
    )
    probe = subprocess.run(
        [sys.executable, "-c", "import numpy; numpy.row_stack = numpy.vstack; from numba import cuda; "
         "assert 'numba_cuda_c' not in cuda.__name__ and cuda.is_available()"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip("numba-cuda is not installed or sees no GPU: compared with NumPy only")
    assert run(tmp_path, "-c", shim) == ours
