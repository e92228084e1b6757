"""What the translation computes, without running anything: device functions without arguments compiled by
NVRTC (cuda.compile_ptx), which folds them to a constant: Python's // and %, wrap-around, powers, loops,
early returns, swaps, unification, true division, bits, truncation, min/max/abs, booleans, chained and
mixed-signedness comparisons, tuple indexing.

The functions live at module level: the translator reads their source with inspect.
"""

import numpy as np
import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import _private_cache, returned_constant  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, types

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)

TRIPLE = (3, 4, 5)


# ---------------------------------------------------------------------------------------------
# What the translation computes: functions NVRTC folds to a constant
# ---------------------------------------------------------------------------------------------


def c_floordiv_mod():
    return (-7) // 2 * 1000 + (-7) % 3 * 100 + 7 // -2 * 10 + 7 % -3


def c_floordiv_mod_more():
    a = -17
    b = 5
    return (a // b) * 1000000 + (a % b) * 10000 + (-a // -b) * 100 + (a % -b)


def c_wraparound():
    x = 9223372036854775807
    return x + 1


def c_wraparound_mul():
    x = 3037000500
    return x * x


def c_int_power():
    return 3**4 + 2**10 + (-2) ** 3


def c_loops():
    s = 0
    i = 0
    while True:
        i += 1
        if i > 20:
            break
        if i % 3 == 0:
            continue
        elif i % 5 == 0:
            s += 100
        else:
            s += i
    for j in range(10, 0, -3):
        s += j * 1000
    return s


def c_early_return():
    for i in range(10):
        if i * i > 20:
            return i
    return -1


def c_swap():
    a = 1
    b = 2
    a, b = b, a
    return a * 10 + b


def c_unify():
    x = 1
    x = x / 4
    return x


def c_true_divide():
    return 7 / 2


def c_bits():
    return (~5) * 1000 + ((-16) >> 2) * 10 + (1 << 3) + (6 & 3) * 100000 + (6 | 3) * 1000000 + (6 ^ 3) * 10000000


def c_int_truncates():
    return int(-2.7) * 10 + int(2.7)


def c_min_max_abs():
    return min(3, -4, 5) * 100 + max(3, -4, 5) * 10 + abs(-7)


def c_bool_arithmetic():
    return True + True


def c_chained_compare():
    x = 5
    return (1 < x < 10) + (1 < x > 10) * 10


def c_invert_bool():
    t = True
    f = ~t
    return f * 10 + (~f) * 1


def c_mixed_signedness():
    big = cuda.uint64(18446744073709551615)
    return big + 1


def c_compare_mixed_signedness():
    big = cuda.uint64(9223372036854775808)
    return (-1 < big) * 10 + (-1 == cuda.uint64(18446744073709551615))


def c_int64_min():
    return -9223372036854775808


def c_tuple_index():
    return TRIPLE[0] * 100 + TRIPLE[-1]


@pytest.mark.parametrize(
    "func, expected",
    [
        (c_floordiv_mod, (-7) // 2 * 1000 + (-7) % 3 * 100 + 7 // -2 * 10 + 7 % -3),
        (c_floordiv_mod_more, (-17 // 5) * 1000000 + (-17 % 5) * 10000 + (17 // -5) * 100 + (-17 % -5)),
        (c_wraparound, int(np.array([2**63 - 1], np.int64).view(np.uint64)[0] + np.uint64(1)) - 2**64),
        (c_wraparound_mul, int(np.multiply(np.int64(3037000500), np.int64(3037000500), dtype=np.int64))),
        (c_int_power, 3**4 + 2**10 + (-2) ** 3),
        (
            c_loops,
            sum(100 if i % 5 == 0 else i for i in range(1, 21) if i % 3) + sum(j * 1000 for j in range(10, 0, -3)),
        ),
        (c_early_return, 5),
        (c_swap, 21),
        (c_unify, 0.25),
        (c_true_divide, 3.5),
        (
            c_bits,
            (~5) * 1000 + ((-16) >> 2) * 10 + (1 << 3) + (6 & 3) * 100000 + (6 | 3) * 1000000 + (6 ^ 3) * 10000000,
        ),
        (c_int_truncates, int(-2.7) * 10 + int(2.7)),
        (c_min_max_abs, -400 + 50 + 7),
        (c_bool_arithmetic, 2),
        (c_chained_compare, 1),
        (c_tuple_index, 305),
        (c_invert_bool, 1),  # ~True is False, as in numba (and NumPy bools)
        (c_mixed_signedness, 0),  # uint64 + int64 is int64 and wraps
        (c_compare_mixed_signedness, 10),
        (c_int64_min, -(2**63)),  # ... but int64 and uint64 compare by value
    ],
)
def test_folded_value(func, expected):
    value, _resty = returned_constant(func)
    assert value == expected
    assert type(value) is type(expected)


def test_folded_types():
    assert returned_constant(c_unify)[1] == types.float64
    assert returned_constant(c_true_divide)[1] == types.float64
    assert returned_constant(c_wraparound)[1] == types.int64
    assert returned_constant(c_bool_arithmetic)[1] == types.int64
    assert returned_constant(c_int64_min)[1] == types.int64
