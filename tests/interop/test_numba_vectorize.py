"""numba's own @vectorize / @guvectorize with target='cuda', as numba's documentation writes CUDA ufuncs, run
unchanged under `python -m numba_cuda_c`: numba's CPU package imports numba.cuda.vectorizers, which is
numba_cuda_c.vectorizers there, and the ufuncs it builds are ours. Needs numba (the CPU package) installed; skipped
without it. In CI the programs run on the mock driver (kernels compiled by NVRTC, launched and recorded, not run:
types, shapes, dispatch to the right loop, out= and stream= objects); on the GPU their results are checked against
NumPy, and against numba-cuda running the same program where it is installed."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from gpu import needs_nvrtc, requires_gpu
from mock_driver import HERE as SUPPORT, ROOT, mock_driver  # noqa: F401  (mock_driver is a fixture)

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("numba") is None, reason="numba (the CPU package) is not installed"
)

# The program, written for numba.cuda. It prints one JSON line: what each call gave (type, dtype, shape, values).
PROGRAM = r"""
import json, sys
import numpy as np
if not hasattr(np, "row_stack"):  # numba-cuda 0.30 (the plain run) imports it; NumPy 2.5 removed it
    np.row_stack = np.vstack
from numba import cuda, vectorize, guvectorize
import numba

ON_GPU = sys.argv[1] == "gpu"


@vectorize(["float32(float32, float32)", "float64(float64, float64)", numba.int64(numba.int64, numba.int64)],
           target="cuda")
def axpb(a, b):
    return 2 * a + b


@guvectorize(["void(float32[:], float32[:], float32[:])", "void(float64[:], float64[:], float64[:])"],
             "(n),()->(n)", target="cuda")
def shift(x, k, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + k[0]


report = {"vectorize": type(axpb).__name__, "guvectorize": type(shift).__name__}


def record(name, call):
    try:
        value = call()
    except Exception as e:  # reported, not raised: the numba-cuda run may refuse what we take
        report[name] = {"error": "%s: %s" % (type(e).__name__, e)}
        return
    device = hasattr(value, "copy_to_host") or hasattr(value, "__cuda_array_interface__")
    host = value.get() if hasattr(value, "get") else value.copy_to_host() if device else np.asarray(value)
    report[name] = {"device": device, "dtype": str(host.dtype), "shape": list(host.shape),
                    "values": host.tolist() if ON_GPU else None}


x32 = np.arange(10, dtype=np.float32)
x64 = np.linspace(0, 1, 12).reshape(3, 4)
i64 = np.arange(5, dtype=np.int64)
record("host_f32", lambda: axpb(x32, x32))
record("host_f64_2d", lambda: axpb(x64, x64))
record("host_i64", lambda: axpb(i64, i64))
record("scalar_broadcast", lambda: axpb(x32, np.float32(3)))
record("python_number", lambda: axpb(x64, 0.5))
record("row_broadcast", lambda: axpb(x64, x64[0]))
d = cuda.to_device(x32)
record("device_in", lambda: axpb(d, d))
record("mixed_in", lambda: axpb(d, x32))
out = cuda.device_array_like(d)
stream = cuda.stream()


def on_stream():
    assert axpb(d, x32, out=out, stream=stream) is out
    stream.synchronize()
    return out


def into_host():
    host_out = np.empty_like(x32)
    assert axpb(x32, x32, out=host_out) is host_out
    return host_out


record("device_out_stream", on_stream)
record("host_out", into_host)
record("numbers", lambda: axpb(1.5, 2.25))
record("gu_host", lambda: shift(np.ones((3, 4), np.float32), np.float32(2)))
record("gu_device", lambda: shift(cuda.to_device(x64), 1.0))


def gu_into():
    gu_out = cuda.device_array((3, 4), np.float64)
    shift(x64, 2.0, out=gu_out)
    return gu_out


record("gu_out", gu_into)
if ON_GPU:
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        c = cupy.asarray(x32)
        record("cupy_in", lambda: axpb(c, c))
        record("cupy_out", lambda: axpb(c, c, out=cupy.empty_like(c)))
print("REPORT " + json.dumps(report))
"""


def run_program(tmp_path, alias, target, **env):
    """Runs PROGRAM (under `python -m numba_cuda_c` where alias, else plainly: numba-cuda); its report."""
    script = tmp_path / "ufunc_program.py"
    script.write_text(PROGRAM)
    environ = dict(os.environ, **env)
    environ["PYTHONPATH"] = os.pathsep.join([ROOT, SUPPORT] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    command = (
        [sys.executable, "-m", "numba_cuda_c", str(script), target]
        if alias
        else [sys.executable, str(script), target]
    )
    done = subprocess.run(command, env=environ, cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    line = [text for text in done.stdout.splitlines() if text.startswith("REPORT ")][-1]
    return json.loads(line[len("REPORT ") :])


EXPECTED_TYPES = {  # (device array returned, dtype, shape), as numba-cuda gives them
    "host_f32": (False, "float32", [10]),
    "host_f64_2d": (False, "float64", [3, 4]),
    "host_i64": (False, "int64", [5]),
    "scalar_broadcast": (False, "float32", [10]),
    "python_number": (False, "float64", [3, 4]),
    "row_broadcast": (False, "float64", [3, 4]),
    "device_in": (True, "float32", [10]),
    "mixed_in": (True, "float32", [10]),
    "device_out_stream": (True, "float32", [10]),
    "host_out": (False, "float32", [10]),
    "numbers": (False, "float64", []),
    "gu_host": (False, "float32", [3, 4]),
    "gu_device": (True, "float64", [3, 4]),
    "gu_out": (True, "float64", [3, 4]),
}


@needs_nvrtc
def test_numbas_vectorize_builds_our_ufuncs_under_the_alias_on_the_mock_driver(tmp_path, mock_driver):  # noqa: F811
    report = run_program(tmp_path, True, "mock", NUMBA_CUDA_DRIVER=mock_driver)
    assert report["vectorize"] == "CUDAUFunc" and report["guvectorize"] == "CUDAGUFunc", report
    check_types(report)


def check_types(report):
    for name, (device, dtype, shape) in EXPECTED_TYPES.items():
        got = report[name]
        assert "error" not in got, (name, got)
        assert (got["device"], got["dtype"], got["shape"]) == (device, dtype, shape), (name, got)


def test_builders_check_numbas_options_as_numba_cuda():
    import warnings

    from numba_cuda_c.vectorizers import CUDAGUFuncVectorize, CUDAVectorize

    def f(a, b):
        return a

    with pytest.raises(TypeError, match="caching is not supported"):
        CUDAVectorize(f, cache=True)
    with pytest.raises(KeyError, match="does not support option: 'fastmath'"):
        CUDAVectorize(f, targetoptions={"fastmath": True})
    with pytest.raises(ValueError, match="Invalid identity value 5"):
        CUDAVectorize(f, identity=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        builder = CUDAVectorize(f, identity="reorderable", targetoptions={"nopython": True})
    assert "nopython kwarg for cuda target is redundant" in str(caught[0].message)
    assert builder.pyfunc is f and builder.identity == "reorderable"
    with pytest.raises(TypeError, match="writable_args are not supported"):
        CUDAGUFuncVectorize(f, "(n)->(n)", writable_args=(0,))
    with pytest.raises(TypeError, match="nopython flag must be True"):
        CUDAGUFuncVectorize(f, "(n)->(n)", targetoptions={"nopython": False})
    with pytest.raises(TypeError, match="target options are not supported: 'is_dynamic'"):
        CUDAGUFuncVectorize(f, "(n)->(n)", targetoptions={"is_dynamic": True})
    with pytest.raises(ValueError, match="bad gufunc layout"):
        CUDAGUFuncVectorize(f, "(n)->")


@needs_nvrtc
def test_numbas_decorators_refuse_as_numba_cuda_under_the_alias(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(
        "from numba import vectorize, guvectorize\n"
        "def f(a, b):\n    return a\n"
        "for call in (lambda: vectorize(['f8(f8, f8)'], target='cuda', fastmath=True)(f),\n"
        "             lambda: guvectorize('(n)->(n)', target='cuda')(f),\n"
        "             lambda: vectorize(['f8(f8)'], target='cuda')(f),\n"
        "             lambda: guvectorize(['int32(f8[:], f8[:])'], '(n)->(n)', target='cuda')(f)):\n"
        "    try:\n        call()\n    except (KeyError, TypeError) as e:\n        print(type(e).__name__, e)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    done = subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4, done.stdout
    assert lines[0].startswith("KeyError") and "does not support option: 'fastmath'" in lines[0]
    assert "not supported: 'is_dynamic'" in lines[1]
    assert "has 1 arguments" in lines[2]
    assert "guvectorized functions cannot return values" in lines[3]


def _numpy_results():
    import numpy as np

    x32 = np.arange(10, dtype=np.float32)
    x64 = np.linspace(0, 1, 12).reshape(3, 4)
    i64 = np.arange(5, dtype=np.int64)
    return {
        "host_f32": 3 * x32,
        "host_f64_2d": 3 * x64,
        "host_i64": 3 * i64,
        "scalar_broadcast": 2 * x32 + 3,
        "python_number": 2 * x64 + 0.5,
        "row_broadcast": 2 * x64 + x64[0],
        "device_in": 3 * x32,
        "mixed_in": 3 * x32,
        "device_out_stream": 3 * x32,
        "host_out": 3 * x32,
        "numbers": np.float64(2 * 1.5 + 2.25),
        "gu_host": np.full((3, 4), 3, np.float32),
        "gu_device": x64 + 1,
        "gu_out": x64 + 2,
        "cupy_in": 3 * x32,
        "cupy_out": 3 * x32,
    }


@requires_gpu
def test_numbas_vectorize_results_under_the_alias_match_numpy_and_numba_cuda(tmp_path):
    import numpy as np

    ours = run_program(tmp_path, True, "gpu")
    check_types(ours)
    want = _numpy_results()
    for name, got in ours.items():
        if isinstance(got, dict):
            assert "error" not in got, (name, got)
            np.testing.assert_allclose(np.asarray(got["values"]), want[name], rtol=1e-6, err_msg=name)
    if "cupy_in" in ours:  # CuPy arrays in (and out): device arrays back, as numba-cuda gives
        assert ours["cupy_in"]["device"] and ours["cupy_out"]["device"]
    # numba-cuda running the same program, where it is installed: the same report
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import numpy as np; np.row_stack = np.vstack; from numba import cuda; "
            "assert 'numba_cuda_c' not in cuda.__name__; print(cuda.is_available())",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if probe.returncode != 0 or probe.stdout.strip() != "True":
        pytest.skip("numba-cuda is not installed or sees no GPU: compared with NumPy only")
    theirs = run_program(tmp_path, False, "gpu")
    assert theirs["vectorize"] == "CUDAUFuncDispatcher", theirs  # numba-cuda's own builders ran
    compared, wrong = 0, []
    for name, got in theirs.items():
        if not isinstance(got, dict) or "error" in got:  # what numba-cuda refuses, we may take
            continue
        assert ours[name]["device"] == got["device"] and ours[name]["dtype"] == got["dtype"], (name, got)
        # numbers alone: numba-cuda gives a 1-element array, we give the number (as NumPy's ufuncs)
        theirs_values = np.ravel(got["values"])
        if not np.allclose(theirs_values, np.ravel(want[name]), rtol=1e-6):
            # numba-cuda 0.30 broadcasts a row against a matrix as its first element: NumPy decides, above
            wrong.append(name)
            continue
        np.testing.assert_allclose(np.ravel(ours[name]["values"]), theirs_values, rtol=1e-6, err_msg=name)
        compared += 1
    assert compared >= 10 and wrong in ([], ["row_broadcast"]), (theirs, wrong)
