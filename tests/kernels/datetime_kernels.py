"""Kernels for test_datetimes.py (in a file of their own: the translator reads their source)."""

import numpy as np

import numba_cuda_c as cuda

START = np.datetime64("2005-03-01T00:00:00", "s")  # a global datetime64: a constant of its unit


def differences(start, end, delta):
    for i in range(cuda.grid(1), delta.size, cuda.gridsize(1)):
        delta[i] = end[i] - start[i]


def scalars(dates, target, delta, matches, shifted):
    for i in range(cuda.grid(1), matches.size, cuda.gridsize(1)):
        matches[i] = dates[i] == target
        shifted[i] = dates[i] - delta


def arithmetic(dates, delta, out_seconds, out_days, ratios, flags):
    i = cuda.grid(1)
    if i < dates.size:
        out_seconds[i] = dates[i] - START  # days and seconds meet in seconds
        twice = delta * 2
        out_days[i] = abs(-twice) + dates[i]
        ratios[i] = twice / delta
        flags[i] = dates[i] != dates[i] or dates[i] < START
