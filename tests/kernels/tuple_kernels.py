"""Kernels taking tuples, for tests/kernels/test_tuple_arguments.py (the translator reads their source here)."""


def tuple_of_arrays_and_tuples(r, x):
    a, (b, c) = x
    r[0] = a[0] + b + c[1]
    r[1] = x[1][1].size + len(x)
    c[0] = 7.0  # written through: a host array in a tuple is copied back


def tuple_length(r, x):
    r[0] = len(x)


def named_point(r, p):
    r[0] = p[0] + p[1] * 10


def namedtuple_fields(r1, r2, x):
    r1[0] = x.x
    r1[1] = x.y
    r2[0] = x.r
    p = x  # a namedtuple variable keeps its names
    r2[1] = p.r + x[0]
