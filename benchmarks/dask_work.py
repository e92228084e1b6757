"""What the Dask workers of bench_dask.py run: the library is the one named by BENCH_DASK_LIB in the worker's
environment ("ours": numba_cuda_c, "numba": numba-cuda), set by bench_dask.py before it starts the cluster."""

import os

import numpy as np

if os.environ.get("BENCH_DASK_LIB", "ours") == "numba":
    np.row_stack = getattr(np, "row_stack", np.vstack)  # numba-cuda 0.30 under NumPy 2.5
    from numba import cuda
else:
    import numba_cuda_c as cuda


ROUNDS = 200


@cuda.jit
def polynomial(a, rounds):
    # a few microseconds on an H100 at the default rounds (bench_dask.py --rounds 20000: about 1.6 ms): the task
    # is mostly its copies and Dask's own work, what a host-side library changes
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        for _ in range(rounds):
            x = x * 0.999 + 0.001
        a[i] = x


def small_gpu_task(seed, n=1 << 20, rounds=ROUNDS):
    """A task as a user writes one: data to the device, a kernel, a number back."""
    d = cuda.to_device(np.full(n, seed, dtype=np.float32))
    polynomial[(n + 255) // 256, 256](d, rounds)
    return float(d[:1].copy_to_host()[0])


def make_array(nbytes):
    return cuda.to_device(np.ones(nbytes // 8, dtype=np.float64))


def first_element(d):
    return float(d[:1].copy_to_host()[0])


def nothing(seed):
    """A task that does nothing: how many tasks a second Dask itself hands out."""
    return seed


def host_scalar(seed):
    return np.zeros(1)


def use_host(a):
    return float(a[0])
