"""Threads against the GPU (issue 10, items 4/16, 6, 7, 18): many threads launching one kernel, first use of
the device list from many threads, a reset while other threads copy, stream callbacks behind full launch
queues and behind module loads. Each runs in a fresh interpreter under a time limit, so a deadlock fails the
test (with every thread's stack, from faulthandler) instead of hanging the suite, and a crash fails it too."""

import os
import subprocess
import sys
import textwrap

import pytest

from gpu import requires_gpu
from reset_race import scenario

pytestmark = requires_gpu

HEADER = """
import faulthandler, sys, threading
faulthandler.dump_traceback_later({limit}, exit=True)  # a deadlock: every thread's stack, then exit 1
import numpy as np
import numba_cuda_c as cuda
"""


def run_bounded(code, limit, defines=None, **env):
    """Runs `code` in a fresh interpreter (after `defines`: names bound to str values); fails the test if it
    does not finish within `limit` seconds, crashes, or exits non-zero. Returns its stdout."""
    source = textwrap.dedent(HEADER.format(limit=limit))
    source += "".join("%s = %r\n" % item for item in (defines or {}).items()) + textwrap.dedent(code)
    environ = dict(os.environ, NUMBA_CUDA_C_CACHE="0", **env)
    try:
        done = subprocess.run(
            [sys.executable, "-c", source], env=environ, capture_output=True, text=True, timeout=limit + 30
        )
    except subprocess.TimeoutExpired as expired:
        pytest.fail("no progress in %d s (deadlock):\n%s%s" % (limit + 30, expired.stdout, expired.stderr))
    assert done.returncode == 0, "exit status %d (a negative one is a signal: a crash):\n%s%s" % (
        done.returncode,
        done.stdout,
        done.stderr,
    )
    return done.stdout


def test_many_threads_launch_one_kernel_with_numpy_and_cai_arguments():
    out = run_bounded(
        r"""
        module = cuda.SourceModule(r'''
        extern "C" __global__ void affine(const int *x, int *out, int a, int b, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = x[i] * a + b;
        }''')
        affine = module.get_function("affine")
        n = 4096

        class Foreign:  # another library's array: only the interface
            def __init__(self, array):
                self.array = array
                self.__cuda_array_interface__ = array.__cuda_array_interface__

        class Meddler:  # an exporter whose interface launches the same kernel with other arguments
            def __init__(self, array, other):
                self.array, self.other = array, other
            @property
            def __cuda_array_interface__(self):
                affine[1, 32](self.other, self.other, 111, 222, 32)
                return self.array.__cuda_array_interface__

        # one thread first: the arguments of a launch made while converting another's stay apart
        x = np.arange(n, dtype=np.int32)
        target, other = cuda.device_array(n, np.int32), cuda.device_array(32, np.int32)
        affine[(n + 127) // 128, 128](x, Meddler(target, other), 3, 4, n)
        assert (target.copy_to_host() == x * 3 + 4).all(), "an inner launch changed the outer one's arguments"

        errors, barrier = [], threading.Barrier(16)

        def worker(t):
            try:
                rng = np.random.default_rng(t)
                barrier.wait()
                for i in range(150):
                    x = rng.integers(-1000, 1000, n, dtype=np.int32)
                    a, b = t + 1, 1000 * t + i
                    if i % 3 == 0:  # NumPy arguments both ways: copied in, and back after the launch
                        out = np.zeros(n, np.int32)
                        affine[(n + 127) // 128, 128](x, out, a, b, n)
                    elif i % 3 == 1:  # CAI objects
                        dx, dout = cuda.to_device(x), cuda.device_array(n, np.int32)
                        affine[(n + 127) // 128, 128](Foreign(dx), Foreign(dout), a, b, n)
                        out = dout.copy_to_host()
                    else:  # a mix, on a stream of the thread's own
                        s = cuda.stream()
                        dout = cuda.device_array(n, np.int32, stream=s)
                        affine[(n + 127) // 128, 128, s](x, Foreign(dout), a, b, n)
                        out = dout.copy_to_host(stream=s)
                        s.synchronize()
                    if not (out == x * a + b).all():
                        errors.append("thread %d launch %d got another launch's arguments" % (t, i))
                        return
            except Exception as error:
                errors.append("thread %d: %r" % (t, error))

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(16)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("errors", len(errors))
        for e in errors[:10]: print(e)
        """,
        limit=240,
    )
    assert out.startswith("errors 0"), out


def test_first_use_of_the_device_list_from_many_threads():
    out = run_bounded(
        """
        barrier, seen, errors = threading.Barrier(32), [None] * 32, []

        def worker(t):
            try:
                barrier.wait()
                seen[t] = (tuple(cuda.gpus), cuda.gpus[0], cuda.get_current_device())
            except Exception as error:
                errors.append(repr(error))

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(32)]
        for t in threads: t.start()
        for t in threads: t.join()
        assert not errors, errors
        gpus = tuple(cuda.gpus)
        assert all(len(s[0]) == len(gpus) and all(a is b for a, b in zip(s[0], gpus)) for s in seen), \\
            "threads built device lists of their own"
        assert all(s[1] is gpus[0] for s in seen)
        assert all(s[2].id == gpus[0].id for s in seen)
        print("ok", len(gpus))
        """,
        limit=120,
    )
    assert out.startswith("ok ")


def test_reset_and_close_while_threads_copy_large_pageable_arrays():
    # 64 MiB of float32: the staging ring's size range
    out = run_bounded(scenario(n=16 << 20, rounds=12, pause=0.25, settle=0.5), limit=240)
    assert out.startswith("ok ")


SPIN = r"""
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}
extern "C" __global__ void noop(int *p) { if (p) p[0] = 1; }
"""


def test_a_callback_behind_a_long_kernel_then_many_launches_on_its_stream():
    out = run_bounded(
        """
        module = cuda.SourceModule(SPIN_SOURCE)
        spin, noop = module.get_function("spin"), module.get_function("noop")
        rate = cuda.get_current_device().CLOCK_RATE * 1000 or 2_000_000_000  # cycles per second
        s, called = cuda.stream(), []
        spin[1, 1, s](int(rate))  # about a second
        s.add_callback(lambda stream, status, arg: called.append(status), None)
        for _ in range(50_000):  # more than the driver's queue holds: launching waits for the callback
            noop[1, 1, s](0)
        s.synchronize()
        assert called == [0], called
        print("ok")
        """,
        defines={"SPIN_SOURCE": SPIN},
        limit=90,
    )
    assert out.startswith("ok")


def test_source_modules_compiled_at_first_use_while_callbacks_are_added():
    out = run_bounded(
        """
        base = SPIN_SOURCE
        helper = cuda.SourceModule(base)
        spin = helper.get_function("spin")
        rate = cuda.get_current_device().CLOCK_RATE * 1000 or 2_000_000_000
        errors, called, stop = [], [0], threading.Event()
        lock = threading.Lock()

        def callback(stream, status, arg):
            with lock:
                called[0] += 1

        def adder(t):
            added = 0
            try:
                s = cuda.stream()
                while not stop.is_set():
                    spin[1, 1, s](int(rate // 200))  # ~5 ms of work before each callback
                    s.add_callback(callback, t)
                    added += 1
                s.synchronize()
            except Exception as error:
                errors.append("adder %d: %r" % (t, error))
            finally:
                with lock:
                    expected[0] += added

        def compiler(t, barrier, round_):
            try:
                barrier.wait()
                # one source per round, the same in every thread: each compiles it at first use
                source = base + "\\n// round %d\\n" % round_ + r'''
                extern "C" __global__ void put(int *out, int v) { out[threadIdx.x] = v; }'''
                put = cuda.SourceModule(source).get_function("put")
                out = np.zeros(32, np.int32)
                put[1, 32](out, 1000 * round_ + t)
                if not (out == 1000 * round_ + t).all():
                    errors.append("compiler %d round %d: wrong result" % (t, round_))
            except Exception as error:
                errors.append("compiler %d: %r" % (t, error))

        expected = [0]
        adders = [threading.Thread(target=adder, args=(t,)) for t in range(4)]
        for a in adders: a.start()
        for round_ in range(4):
            barrier = threading.Barrier(6)
            compilers = [threading.Thread(target=compiler, args=(t, barrier, round_)) for t in range(6)]
            for c in compilers: c.start()
            for c in compilers: c.join()
        stop.set()
        for a in adders: a.join()
        cuda.synchronize()
        assert not errors, errors
        assert called[0] == expected[0] and expected[0] > 0, (called[0], expected[0])
        print("ok", called[0])
        """,
        defines={"SPIN_SOURCE": SPIN},
        limit=120,
    )
    assert out.startswith("ok ")
