"""What Dask workers run in tests/interop/test_dask.py and benchmarks/bench_dask.py: importable there (a spawned
worker gets the parent's sys.path), so that these pickle by reference."""

import os

import numpy as np

import numba_cuda_c as cuda


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def make(n):
    return cuda.to_device(np.arange(n, dtype=np.float64))


def to_host(d):
    return d.copy_to_host()


def plus_one_on_device(d):
    add_one[(d.size + 255) // 256, 256](d)
    return d


def import_copy_launch_copy_back(n):
    """One task's whole round: the package imported in the worker, a copy in, a launch, a copy back."""
    d = make(n)
    add_one[(n + 255) // 256, 256](d)
    return float(d.copy_to_host().sum())


def my_device():
    """(CUDA_VISIBLE_DEVICES, the current device's UUID) of the calling worker."""
    return os.environ.get("CUDA_VISIBLE_DEVICES"), cuda.get_current_device().uuid


def pointer_of(d):
    return d.device_ctypes_pointer.value


def stream_bound_configuration():
    """What cannot travel: the client asking for it must get an exception, not a wait."""
    return add_one[1, 1, cuda.stream()]
