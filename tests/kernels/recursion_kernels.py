"""Recursive device functions for tests/kernels/test_recursion.py (a module: the decorators with signatures
compile at import, before their names are bound)."""

import numba_cuda_c as cuda


@cuda.jit("i8(i8)", device=True)
def fib_declared(n):
    if n < 2:
        return n
    return fib_declared(n - 1) + fib_declared(n - 2)


def make_fib_closure():
    @cuda.jit("i8(i8)", device=True)  # compiled before `fib_closure` (a closure cell) is bound
    def fib_closure(n):
        if n < 2:
            return n
        return fib_closure(n - 1) + fib_closure(n - 2)

    return fib_closure


fib_closure = make_fib_closure()


@cuda.jit(device=True)
def fib_inferred(n):
    if n < 2:
        return n
    return fib_inferred(n - 1) + fib_inferred(n - 2)


@cuda.jit
def type_change_self(x, y):  # a kernel's function, called as a device function: recursion changes types
    if x > 1 and y > 0:
        return x + type_change_self(x - y, y)
    else:
        return y


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit(device=True)
def runaway_self(x):
    return runaway_self(x)


def kernel(r, x, y):
    r[0] = fib_declared(x[0])
    r[1] = fib_inferred(x[0])
    r[2] = type_change_self(x[0], y[0])
    r[3] = is_even(x[0])
    r[4] = fib_closure(x[0])


def runaway_kernel(r):
    r[0] = runaway_self(1)


def plain_kernel(r):
    r[0] = 1.0
