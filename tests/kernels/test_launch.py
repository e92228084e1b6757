"""The launch path: every argument converted before any is packed, into storage of the launch's own
(re-entrant and concurrent launches keep their arguments), NumPy arguments copied back only after a
launch that was queued, launch errors as raised, list launch dims, byte order, and no deadlock
between a full launch queue and a stream callback. The first tests need no GPU."""

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

BIG_ENDIAN = ">f8" if sys.byteorder == "little" else "<f8"  # the byte order that is not the machine's


@cuda.jit
def put(out, x, p):
    out[0] = x
    out[1] = p[0]


# Without a GPU


def test_jit_launch_dims_may_be_lists():
    first = put[[2], [32]]
    assert put[[2], [32]] is first  # keyed by the dims as tuples: cached like any launch key
    assert put[(2,), [32, 1]] is first
    assert put[[2, 1, 1], (32,), 0] is not first  # another key (a stream given), still accepted
    with pytest.raises(TypeError, match="griddim"):
        put[[1.5], [32]]
    with pytest.raises(ValueError, match="griddim"):
        put[[1, 2, 3, 4], [32]]
    with pytest.raises(ValueError, match="blockdim"):
        put[[1], [0]]
    with pytest.raises(ValueError, match="griddim and blockdim"):
        put[[1]]


@pytest.mark.parametrize(
    "griddim, blockdim, error, words",
    [
        (2**70, 4, OverflowError, "griddim is too large"),  # past any C integer: named, never Python's bare words
        (4, 2**33, OverflowError, "blockdim is too large"),  # past a launch's 32 bits
        ((1, 2**32), 4, OverflowError, "griddim is too large"),
        (-(2**70), 4, ValueError, "griddim must hold positive sizes"),
        (4, (1, -1), ValueError, "blockdim must hold positive sizes"),
        (0, 4, ValueError, "griddim must hold positive sizes"),
    ],
)
def test_launch_dims_too_large_or_not_positive_say_so_and_name_the_argument(griddim, blockdim, error, words):
    with pytest.raises(error, match=words):
        put[griddim, blockdim]


@pytest.mark.parametrize(
    "host",
    [
        np.arange(4, dtype=BIG_ENDIAN),
        np.arange(8, dtype=BIG_ENDIAN)[::2],  # refused before it is made contiguous
        np.zeros(2, dtype=[("x", BIG_ENDIAN)]),  # a record's field
        np.zeros((), dtype=[("x", np.int32), ("y", BIG_ENDIAN)]),
    ],
)
def test_to_device_refuses_the_other_byte_order(host):
    # refused before any driver call: this runs without a GPU
    with pytest.raises(ValueError, match="byte order"):
        cuda.to_device(host)


def test_jit_launch_refuses_the_other_byte_order():
    class Exporter:
        __cuda_array_interface__ = {"shape": (2,), "typestr": BIG_ENDIAN, "data": (0, False), "version": 3}

    for bad in (np.arange(2, dtype=BIG_ENDIAN), Exporter()):
        with pytest.raises(ValueError, match="byte order"):
            put[1, 1](np.zeros(2), 1, bad)


# On the GPU

SOURCE = r"""
extern "C" __global__ void put(long long *out, long long x, const long long *p) { out[0] = x; out[1] = p[0]; }
extern "C" __global__ void scale(double *a, double factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= factor;
}
struct wide { long long v[600]; };  /* 4800 bytes: past the launch's stack storage */
extern "C" __global__ void wide_sum(long long *out, wide w) {
    long long s = 0;
    for (int i = 0; i < 600; i++) s += (i + 1) * w.v[i];
    out[0] = s;
}
"""
MANY = 70  # parameters: past the launch's stack storage
SOURCE += 'extern "C" __global__ void many(long long *out, %s) { %s }\n' % (
    ", ".join("int a%d" % i for i in range(MANY)),
    " ".join("out[%d] = a%d;" % (i, i) for i in range(MANY)),
)


@pytest.fixture(scope="module")
def module():
    return cuda.SourceModule(SOURCE, name="launch.cu")


class ReentrantExporter:
    """A CUDA-array-interface object whose property launches `kernel` itself, as (111, 222)."""

    def __init__(self, kernel):
        self.kernel, self.calls = kernel, 0
        self.target = cuda.to_device(np.array([999], np.int64))
        self.inner_out = cuda.device_array(2, np.int64)
        self.inner_source = cuda.to_device(np.array([222], np.int64))

    @property
    def __cuda_array_interface__(self):
        self.calls += 1
        self.kernel[1, 1](self.inner_out, 111, self.inner_source)
        return self.target.__cuda_array_interface__


@requires_gpu
@pytest.mark.parametrize("jit", [False, True])
def test_a_launch_inside_argument_conversion_keeps_the_outer_arguments(module, jit):
    kernel = put if jit else module.get_function("put")
    exporter = ReentrantExporter(kernel)
    out = cuda.device_array(2, np.int64)
    kernel[1, 1](out, 1, exporter)
    assert exporter.calls >= 1
    assert out.copy_to_host().tolist() == [1, 999]
    assert exporter.inner_out.copy_to_host().tolist() == [111, 222]


@requires_gpu
@pytest.mark.parametrize("jit", [False, True])
def test_threads_launching_one_kernel_with_numpy_arguments(module, jit):
    kernel = put if jit else module.get_function("put")
    wrong = []

    def work(t):
        for i in range(100):
            out, source = np.zeros(2, np.int64), np.array([t * 1000 + i], np.int64)
            kernel[1, 1](out, t, source)
            if out.tolist() != [t, t * 1000 + i]:
                wrong.append((t, i, out.tolist()))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert wrong == []


@requires_gpu
@pytest.mark.serial
def test_failed_launches_raise_their_own_error_and_copy_nothing_back(module):
    scale = module.get_function("scale")
    host = np.full(4, 7.0)
    with pytest.raises(TypeError, match="argument 1"):  # was SystemError: copied back with an error set
        scale[1, 4](host, "x", 4)
    with pytest.raises(cuda.CudaAPIError, match="CUDA_ERROR_INVALID_VALUE"):  # too much shared memory
        scale[1, 4, 0, 10**8](host, 2.0, 4)
    assert (host == 7.0).all()

    class Failing:
        @property
        def __cuda_array_interface__(self):
            raise KeyError("from the exporter")

    with pytest.raises(KeyError, match="from the exporter"):
        module.get_function("put")[1, 1](np.zeros(2, np.int64), 1, Failing())
    # the device copies of failed launches are freed
    context = cuda.current_context()
    free_before = context.get_memory_info()[0]
    big = np.ones(1 << 20)  # 8 MiB a launch
    for _ in range(200):
        with pytest.raises(cuda.CudaAPIError):
            scale[1, 4, 0, 10**8](big, 2.0, 4)
    assert context.get_memory_info()[0] > free_before - (256 << 20)
    scale[1, 4](host, 2.0, 4)
    assert (host == 14.0).all()


@requires_gpu
def test_more_arguments_and_bytes_than_the_stack_storage(module):
    out = cuda.device_array(MANY, np.int64)
    module.get_function("many")[1, 1](out, *range(100, 100 + MANY))
    assert out.copy_to_host().tolist() == list(range(100, 100 + MANY))
    values = tuple(range(600))
    module.get_function("wide_sum")[1, 1](out, values)
    assert out.copy_to_host()[0] == sum((i + 1) * v for i, v in enumerate(values))


@requires_gpu
def test_jit_launch_with_list_dims_runs(module):
    out, source = cuda.device_array(2, np.int64), cuda.to_device(np.array([5], np.int64))
    put[[1], [1]](out, 4, source)
    assert out.copy_to_host().tolist() == [4, 5]


@requires_gpu
def test_byte_order_is_refused_at_launch_and_in_copies(module):
    with pytest.raises(ValueError, match="byte order"):
        module.get_function("scale")[1, 4](np.ones(4, BIG_ENDIAN), 2.0, 4)
    d = cuda.to_device(np.arange(4.0))
    with pytest.raises(ValueError, match="byte order"):
        d.copy_to_host(np.zeros(4, BIG_ENDIAN))
    with pytest.raises(ValueError, match="byte order"):
        d.copy_to_device(np.zeros(4, BIG_ENDIAN))
    assert d.copy_to_host().tolist() == [0.0, 1.0, 2.0, 3.0]


@cuda.jit
def exchange(a, values):
    i = cuda.grid(1)
    if i < values.size:
        values[i] = cuda.atomic.exch(a, 0, values[i])


@requires_gpu
def test_atomic_exch_float64_returns_the_old_values():
    values = np.arange(1.5, 65.5)
    a = np.array([-0.25])
    exchange[2, 32](a, values)
    assert -0.25 in values and a[0] != -0.25  # the first swap took the old value; the last one's stays
    seen = sorted(values.tolist() + a.tolist())  # each value was swapped out once: none lost or doubled
    assert seen == sorted([-0.25] + np.arange(1.5, 65.5).tolist())


@requires_gpu
def test_a_full_launch_queue_behind_a_stream_callback_does_not_deadlock():
    # The callback waits behind a long kernel and needs the GIL; the launches behind it fill the
    # driver's queue, so cuLaunchKernel blocks: with the GIL held, neither would progress.
    code = """
        import numba_cuda_c as cuda, numpy as np
        m = cuda.SourceModule(r'''
        extern "C" __global__ void spin(long long cycles) {
            long long start = clock64();
            while (clock64() - start < cycles) { }
        }
        extern "C" __global__ void noop(int *p) { }
        ''')
        s = cuda.stream()
        cycles = int(1500 * cuda.get_current_device().CLOCK_RATE)  # 1.5 s
        m.get_function("spin")[1, 1, s](cycles)
        called = []
        s.add_callback(lambda stream, status, arg: called.append(status))
        d, noop = cuda.device_array(1, np.int32), m.get_function("noop")[1, 1, s]
        for _ in range(50_000):
            noop(d)
        s.synchronize()
        print("done", called)
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=90
        )
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: 50 000 launches behind a pending stream callback made no progress in 90 s")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "done [0]" in done.stdout
