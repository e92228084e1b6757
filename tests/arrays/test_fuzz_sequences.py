"""Long seeded sequences of mixed transfers, against the mock driver in CI and against the GPU: what one call
decides must not leak into the next. Each step makes a host array (dtypes with Python objects and in both byte
orders, 0-d, empty and 64 Ki-element shapes, views, reversed and broadcast layouts, pinned and mapped memory) and
does one thing with it (to_device with or without a stream or a copy, copy_to_device, assignment, copy_to_host into
a given array, np.asarray with a dtype, a device array over given memory or a foreign interface, boolean keys).
Every step is checked alone: arrays of Python objects and data in the other byte order are refused, everything
else arrives with its bytes; and the device arrays kept from earlier steps still hold what was written to them.
A failure names the seed and the step, so that the sequence can be replayed."""

import os
import subprocess
import sys

import pytest

from gpu import requires_gpu
from mock_driver import HERE, ROOT, mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

STEPS = int(os.environ.get("FUZZ_SEQUENCE_STEPS", "2500"))
SEEDS = (1, 2, 3)

SEQUENCE = r"""
import random, sys
SEED, STEPS = int(sys.argv[-2]), int(sys.argv[-1])
r = random.Random(SEED)
g = np.random.default_rng(SEED)
DTYPES = ["u1", "<i4", ">i4", "<f8", ">f8", "O", "<c8", ">c16", "?", [("x", "<i4"), ("y", "<f8")],
          [("o", "O"), ("y", "<f8")], [("b", ">i2")]]
SHAPES = [(), (0,), (1,), (3,), (4, 5), (0, 3), (2, 3, 4), (65536,)]
LAYOUTS = ["plain", "view", "reversed", "broadcast", "broadcast-one", "fortran", "pinned", "mapped"]


def native(dtype):
    return dtype.isnative if dtype.fields is None else all(native(f[0]) for f in dtype.fields.values())


def host_array(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        return np.empty(shape, dtype)
    raw = g.integers(0, 2 if dtype == np.bool_ else 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def laid_out(a, layout):
    if layout == "view" and a.ndim:
        return a[::2]
    if layout == "reversed" and a.ndim:
        return a[::-1]
    if layout == "broadcast":
        return np.broadcast_to(a, (3,) + a.shape)
    if layout == "broadcast-one" and a.ndim and a.size:
        return np.broadcast_to(a[:1], (4,) + a.shape[1:])
    if layout == "fortran":
        return np.asfortranarray(a)
    if layout in ("pinned", "mapped") and not a.dtype.hasobject:
        made = (cuda.pinned_array if layout == "pinned" else cuda.mapped_array)(a.shape, a.dtype)
        made[...] = a
        return made
    return a


def same_bytes(got, want):
    return got.shape == want.shape and np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


streams = [0, cuda.stream(), cuda.stream()]
kept = []  # (device array, the host bytes it must hold)
memory = cuda.device_array(1 << 20, np.uint8)


def fail(step, *what):
    raise AssertionError("seed %d step %d: %r" % (SEED, step, what))


for step in range(STEPS):
    dtype = np.dtype(r.choice(DTYPES))
    a = laid_out(host_array(dtype, r.choice(SHAPES)), r.choice(LAYOUTS))
    stream = r.choice(streams)
    refuse = a.dtype.hasobject or not native(a.dtype)
    op = r.choice(["to_device", "to_device", "no_copy", "to", "copy_to_device", "assign", "into_host", "asarray",
                   "over_memory", "interface", "boolean"])
    try:
        if op in ("to_device", "no_copy"):
            d = cuda.to_device(a, stream=stream, copy=op == "to_device")
        elif op == "to":
            d = cuda.to_device(a, stream=stream, to=cuda.device_array(a.shape, a.dtype))
        elif op == "copy_to_device":
            d = cuda.device_array(a.shape, a.dtype)
            d.copy_to_device(a, stream=stream)
        elif op == "assign":
            d = cuda.device_array(a.shape, a.dtype)
            d[...] = a
        elif op == "over_memory":
            d = cuda.cudadrv.devicearray.DeviceNDArray(a.shape, None, a.dtype, gpu_data=memory.gpu_data)
        elif op == "interface":
            desc = dict(memory.__cuda_array_interface__, shape=a.shape, typestr=a.dtype.str, strides=None,
                        descr=a.dtype.descr)
            d = cuda.from_cuda_array_interface(desc, owner=memory)
        elif op == "boolean":
            d = cuda.to_device(a, stream=stream)[r.choice([True, False, (True,), (Ellipsis, True)])]
        else:
            values = np.arange(a.size, dtype=np.float64).reshape(a.shape)
            source = cuda.to_device(values)
            if op == "into_host":
                target = np.empty(a.shape, a.dtype)
                source.copy_to_host(target, stream=stream)
                if target.dtype.hasobject:
                    fail(step, "device bytes written into an array of Python objects", a.dtype, a.shape)
            else:
                # numba's __array__: the values converted on the host (Python objects made from them, never raw
                # device bytes where object pointers belong)
                if np.asarray(source, dtype=a.dtype).tolist() != values.astype(a.dtype).tolist():
                    fail(step, "np.asarray with a dtype gave other values", a.dtype, a.shape)
            continue
    except (TypeError, ValueError):
        if op in ("to_device", "no_copy") and not refuse:
            raise
        continue
    if d.dtype.hasobject:
        fail(step, "a device array of Python objects", op, a.dtype, a.shape)
    if op in ("to_device", "no_copy") and refuse:
        fail(step, "to_device accepted", a.dtype, a.shape, op)
    if op == "to_device" and not refuse:
        back = d.copy_to_host(stream=stream)
        if stream:
            stream.synchronize()
        if not same_bytes(back, a):
            fail(step, "the bytes came back different", a.dtype, a.shape)
        kept.append((d, np.array(a, order="C")))  # a copy of its own (np.ascontiguousarray makes 0-d 1-d)
    if len(kept) > 24:
        d_old, want = kept.pop(r.randrange(len(kept)))
        if not same_bytes(d_old.copy_to_host(), want):
            fail(step, "an earlier array's bytes changed", want.dtype, want.shape)
for d_old, want in kept:
    assert same_bytes(d_old.copy_to_host(), want), ("seed %d: a kept array changed" % SEED, want.dtype)
print("sequence ok", SEED, STEPS)
"""


def _program(seed):
    # run_mock and the GPU run take the program as text: the seed and length are its last two arguments
    return "import sys\nsys.argv += [%r, %r]\n" % (str(seed), str(STEPS)) + SEQUENCE


@pytest.mark.usefixtures("mock_driver")
@pytest.mark.parametrize("seed", SEEDS)
def test_long_mixed_transfer_sequences_on_the_mock_driver(seed):
    rc, output = run_mock(_program(seed), timeout=600, expect_failure=True)
    assert rc == 0 and "sequence ok" in output, output[-6000:]


@requires_gpu
@pytest.mark.parametrize("seed", SEEDS)
def test_long_mixed_transfer_sequences_on_the_gpu(seed):
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    )
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-W",
            "ignore",
            "-c",
            "import numpy as np\nimport numba_cuda_c as cuda\n" + _program(seed),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0 and "sequence ok" in done.stdout, (done.stdout + done.stderr)[-6000:]
