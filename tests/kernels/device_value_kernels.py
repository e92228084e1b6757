"""Kernels for test_device_function_values.py (in a file of their own: the translator reads their source)."""

import numpy as np

import numba_cuda_c as cuda

NOTHING = None
RECORD = np.dtype([("i", np.int32), ("j", np.int32, (2, 3))])


@cuda.jit(device=True)
def mapper(args):
    a, b, c = args
    return a + b + c


@cuda.jit(device=True)
def reducer(a, b):
    return a + b


def tuple_arguments(A, B):
    i = cuda.grid(1)
    if i < B.size:
        args = A[i], A[i] + B[i], B[i]
        B[i] = reducer(mapper(args), 1)


@cuda.jit(device=True)
def first(ary):
    return ary[0]


@cuda.jit(device=True)
def nested(record):
    return record["j"]


@cuda.jit(device=True)
def local_record():
    scratch = cuda.local.array(1, RECORD)
    scratch[0]["i"] = 42
    return scratch[0]  # returned by value: the caller's copy outlives this frame


def records_and_arrays(ary, out, flat):
    out[0] = first(ary)  # a record returned, copied into out[0]
    out[1] = local_record()
    flat[0] = nested(ary[0])[1, 2]
    flat[1] = first(flat.reshape(2, -1))[1]


def none_globals(b):
    if NOTHING:
        b[0] = 1.0
    if NOTHING is None:
        b[1] = 2.0
    if NOTHING is not None:
        b[2] = 3.0
    b[3] = 4.0 if not NOTHING else 5.0


def record_fields_by_position(ary, out):
    out[0] = first(ary[0])  # a record's item 0 is its first field (numba's)
    ary[1][-2] = 9  # of two fields, -2 is the first
