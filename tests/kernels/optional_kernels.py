"""Kernels of test_optional.py: values that are a number or None (numba's Optional), None arguments and left-out
arguments with defaults. make(cuda) builds them with that module's jit (numba_cuda_c, or numba-cuda on the GPU, to
compare results from the same source); each kernel writes what it saw for each input, one thread per input."""

import numpy as np


def make(cuda):
    jit = cuda.jit

    @jit(device=True)
    def bin_of(x, n):  # a binning helper: None out of range (the program issue 29 reports)
        if x < 0.0 or x > 1.0:
            return None
        b = int(x * n)
        if b >= n:
            return n - 1
        return b

    @jit(device=True)
    def maybe(x):  # a bare return on the other path
        if x > 5:
            return x - 1
        else:
            return

    @jit(device=True)
    def falls_off(x):  # returns None where control reaches its end
        if x > 5:
            return x * 2

    @jit(device=True)
    def maybe_float32(x):
        if x > 5:
            return np.float32(x) / np.float32(4)
        return None

    @jit(device=True)
    def doubled_or_zero(v):  # takes an Optional
        if v is None:
            return 0
        return v * 2

    @jit(device=True)
    def plus(x, y=None):  # `y is None` known when compiling: one branch
        if y is None:
            return x
        return x + y

    @jit(device=True)
    def plus_filled(x, y=None):  # the None argument assigned a number
        if y is None:
            y = 7
        return x + y

    @jit
    def histogram(xs, counts, outside):
        i = cuda.grid(1)
        if i < xs.shape[0]:
            b = bin_of(xs[i], counts.shape[0])
            if b is not None:
                cuda.atomic.add(counts, b, 1)
            else:
                cuda.atomic.add(outside, 0, 1)

    @jit
    def uses(out, xs):
        i = cuda.grid(1)
        if i >= xs.shape[0]:
            return
        x = xs[i]
        r = maybe(x)
        out[i, 0] = 1 if r is None else 0
        out[i, 1] = r is not None
        out[i, 2] = doubled_or_zero(r)
        out[i, 3] = doubled_or_zero(falls_off(x))
        if r is not None and r >= 0 and r < 8:  # numba converts r to its number once it is known not None
            out[i, 4] = r
        m = r if r is not None else 3.5  # Optional(int64) with float64: Optional(float64)
        out[i, 5] = m
        v = None
        if x > 3:
            v = x * 2.5
        out[i, 6] = -1.0 if v is None else v
        s = maybe(x)
        if s is None:
            s = 999
        out[i, 7] = s
        out[i, 8] = plus(x) + plus(x, 3) * 10 + plus_filled(x) * 100
        f = maybe_float32(x)
        out[i, 9] = -2.0 if f is None else f
        maybe(x)  # a result dropped: not converted

    @jit
    def as_number(out, xs):  # r used as its number: numba's TypeError where it is None
        i = cuda.grid(1)
        if i < xs.shape[0]:
            out[i] = -7
            r = maybe(xs[i])
            out[i] = r + 1

    @jit
    def with_default(out, y=None, scale=3):
        if y is None:
            out[0] = scale
        else:
            out[0] = y * scale

    return {k: v for k, v in locals().items() if k not in ("cuda", "jit")}


def make_recursive(jit):
    """numba's own case (numba-cuda's test_recursion, skipped there): an Optional that a recursive function returns
    and tests."""

    @jit
    def foo(x):
        if x > 5:
            return x - 1
        else:
            return

    @jit
    def bar(x):
        out = foo(x)
        if out is None:
            return out
        elif out < 8:
            return out
        else:
            return x * bar(out)

    return bar


def recursive_kernel(bar):
    def kernel(r, x):
        res = bar(x[0])
        if res is None:
            res = 999
        r[0] = res

    return kernel
