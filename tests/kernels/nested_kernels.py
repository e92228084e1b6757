"""Kernels for test_nested_functions.py (in a file of their own: the translator reads their source). Each
impl_* is made by a factory from a consumer, so that the same Python runs on the host (with the consumer's
Python) as the reference."""

import numba_cuda_c as cuda

OFFSET = 123


def consume(func, *args):
    return func(*args)


def consume_with_keywords(func, *args):
    x, y, z = args
    return func(x, y, z, first=1000) + func(x, y, z, second=1000) + func(x, y, z, first=1000, second=1000)


def make_impls(consumer, keyword_consumer):
    def escape():
        def inner():
            return 10

        return consumer(inner)

    def closure_over_constants(x):
        y = 10

        def add(z):
            return y + z + OFFSET

        return consumer(add, 6) + consumer(add, x)

    def nested_calls():
        def call_inner():
            def inner():
                return 10

            return inner()

        def apply(f):
            return f()

        return consumer(apply, call_inner)

    def defaults_and_keywords():
        t = 12

        def inner(a, b, c, first=123, second=456):
            z = 4
            return first + second + z + t + a + b + c

        return (
            inner(1, 2, 5, 91, 53)
            + consumer(inner, 1, 2, 3, 73)
            + keyword_consumer(inner, 1, 2, 11)
            + inner(1, 2, 4)
        )

    return escape, closure_over_constants, nested_calls, defaults_and_keywords


HOST_IMPLS = make_impls(consume, consume_with_keywords)
DEVICE_IMPLS = [
    cuda.jit(device=True)(f)
    for f in make_impls(cuda.jit(device=True)(consume), cuda.jit(device=True)(consume_with_keywords))
]
escape, closure_over_constants, nested_calls, defaults_and_keywords = DEVICE_IMPLS


def kernel(out, x):
    out[0] = escape()
    out[1] = closure_over_constants(x)
    out[2] = nested_calls()
    out[3] = defaults_and_keywords()


def multiply_defined(c):
    if c:
        x = 3

        def inner(y):
            return y + x

        r = consume_device(inner, 1)
    else:
        x = 6

        def inner(y):
            return y + x

        r = consume_device(inner, 2)
    return r


def captures_a_variable(n):
    z = n * 2

    def inner(val):
        return z + val

    return consume_device(inner, n)


consume_device = cuda.jit(device=True)(consume)
