"""numba's typing rules (numba_cuda_c.pyjit.typing), without a GPU: the result of every operator on every pair
of scalar types and of unifying two types, against tables read off numba itself; true division, powers,
unary operators, bitwise and math results.
"""

import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import _private_cache  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, types
from numba_cuda_c.pyjit import KernelTypeError, typing

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)


# ---------------------------------------------------------------------------------------------
# numba's typing rules (numba_cuda_c.pyjit.typing)
# ---------------------------------------------------------------------------------------------


T = types


_SHORT = {
    "b1": T.boolean,
    "i1": T.int8,
    "i2": T.int16,
    "i4": T.int32,
    "i8": T.int64,
    "u1": T.uint8,
    "u2": T.uint16,
    "u4": T.uint32,
    "u8": T.uint64,
    "f4": T.float32,
    "f8": T.float64,
}


# What numba 0.68 gives for a + b (the same for - * // %) and for a variable assigned a and b,
# row a, column b: read off numba itself (njit signatures), every pair of scalar types.
NUMBA_ADD = """
      b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8
  b1  i8  i8  i8  i8  i8  i8  i8  i8  i8  f4  f8
  i1  i8  i8  i8  i8  i8  i8  i8  i8  i8  f4  f8
  i2  i8  i8  i8  i8  i8  i8  i8  i8  i8  f4  f8
  i4  i8  i8  i8  i8  i8  i8  i8  i8  i8  f8  f8
  i8  i8  i8  i8  i8  i8  i8  i8  i8  i8  f8  f8
  u1  i8  i8  i8  i8  i8  u8  u8  u8  u8  f4  f8
  u2  i8  i8  i8  i8  i8  u8  u8  u8  u8  f8  f8
  u4  i8  i8  i8  i8  i8  u8  u8  u8  u8  f8  f8
  u8  i8  i8  i8  i8  i8  u8  u8  u8  u8  f8  f8
  f4  f4  f4  f4  f8  f8  f4  f8  f8  f8  f4  f8
  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8
"""


NUMBA_UNIFY = """
      b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8
  b1  b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8
  i1  i1  i1  i2  i4  i8  i2  i4  i8  f8  f4  f8
  i2  i2  i2  i2  i4  i8  i2  i4  i8  f8  f4  f8
  i4  i4  i4  i4  i4  i8  i4  i4  i8  f8  f8  f8
  i8  i8  i8  i8  i8  i8  i8  i8  i8  f8  f8  f8
  u1  u1  i2  i2  i4  i8  u1  u2  u4  u8  f4  f8
  u2  u2  i4  i4  i4  i8  u2  u2  u4  u8  f4  f8
  u4  u4  i8  i8  i8  i8  u4  u4  u4  u8  f8  f8
  u8  u8  f8  f8  f8  f8  u8  u8  u8  u8  f8  f8
  f4  f4  f4  f4  f8  f8  f4  f4  f8  f8  f4  f8
  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8
"""


def _table(text):
    rows = [line.split() for line in text.strip().splitlines()]
    columns = rows[0]
    return [
        (_SHORT[row[0]], _SHORT[column], _SHORT[cell]) for row in rows[1:] for column, cell in zip(columns, row[1:])
    ]


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (T.int32, T.int32, T.int64),
        (T.uint32, T.uint32, T.uint64),
        (T.int64, T.uint64, T.int64),  # numba's choose_result_int: signed when either side is
        (T.float32, T.float32, T.float32),
        (T.float32, T.int64, T.float64),
        (T.float32, T.int16, T.float32),
        (T.float32, T.uint16, T.float64),
        (T.boolean, T.boolean, T.int64),
        (T.boolean, T.float32, T.float32),
    ],
)
def test_promote(a, b, expected):
    assert typing.promote(a, b) == expected
    assert typing.promote(b, a) == expected


def test_promote_every_pair_as_numba():
    wrong = [(a, b, typing.promote(a, b), want) for a, b, want in _table(NUMBA_ADD) if typing.promote(a, b) != want]
    assert wrong == []
    assert len(_table(NUMBA_ADD)) == 121


def test_unify_every_pair_as_numba():
    wrong = [(a, b, typing.unify(a, b), want) for a, b, want in _table(NUMBA_UNIFY) if typing.unify(a, b) != want]
    assert wrong == []


def test_promote_rejects_non_numbers():
    with pytest.raises(KernelTypeError):
        typing.promote(T.float32[:], T.int32)
    with pytest.raises(KernelTypeError):
        typing.promote(T.float32, T.Tuple([T.int64]))


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (T.int32, T.int32, T.float64),
        (T.int64, T.int64, T.float64),
        (T.uint32, T.int8, T.float64),
        (T.boolean, T.boolean, T.float64),
        (T.float32, T.float32, T.float32),
        (T.float32, T.int32, T.float64),
        (T.float32, T.int8, T.float32),
        (T.float32, T.boolean, T.float32),
        (T.uint16, T.float32, T.float64),
        (T.float64, T.float32, T.float64),
    ],
)
def test_true_divide(a, b, expected):
    assert typing.true_divide(a, b) == expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (None, T.int32, T.int32),
        (T.float32, None, T.float32),
        (T.int32, T.int32, T.int32),
        (T.int64, T.float64, T.float64),
        (T.int32, T.float32, T.float64),
        (T.int16, T.float32, T.float32),
        (T.int8, T.int16, T.int16),
        (T.int8, T.uint8, T.int16),
        (T.int32, T.int64, T.int64),
        (T.int32, T.uint32, T.int64),
        (T.int64, T.uint64, T.float64),  # a variable holding both: float64 (unlike int64 + uint64)
        (T.boolean, T.int32, T.int32),
        (T.float32, T.float64, T.float64),
    ],
)
def test_unify(a, b, expected):
    assert typing.unify(a, b) == expected
    assert typing.unify(b, a) == expected


def test_unify_array_with_number_fails():
    with pytest.raises(KernelTypeError):
        typing.unify(T.float32[:], T.float64)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (T.float32, T.int64, T.float32),
        (T.float32, T.int32, T.float32),
        (T.float32, T.uint64, T.float32),
        (T.float64, T.int32, T.float64),
        (T.float32, T.float32, T.float32),
        (T.float32, T.float64, T.float64),
        (T.int32, T.int32, T.int64),
        (T.uint32, T.uint32, T.uint64),
        (T.int64, T.float32, T.float64),
    ],
)
def test_power_typing(a, b, expected):
    assert typing.power(a, b) == expected


@pytest.mark.parametrize(
    "op, t, expected",
    [
        ("-", T.int32, T.int64),
        ("-", T.uint32, T.uint64),
        ("-", T.int64, T.int64),
        ("-", T.float32, T.float32),
        ("-", T.boolean, T.int64),
        ("~", T.int8, T.int64),
        ("~", T.uint32, T.uint64),
        ("~", T.uint64, T.uint64),
        ("~", T.boolean, T.boolean),
        ("not", T.float64, T.boolean),
    ],
)
def test_unary(op, t, expected):
    assert typing.unary(op, t) == expected


def test_invert_takes_integers():
    with pytest.raises(KernelTypeError):
        typing.unary("~", T.float32)


def test_bitwise_and_math_results():
    assert typing.bitwise(T.boolean, T.boolean) == T.boolean
    assert typing.bitwise(T.int32, T.int32) == T.int64
    assert typing.bitwise(T.uint32, T.uint8) == T.uint64
    with pytest.raises(KernelTypeError):
        typing.bitwise(T.float32, T.int32)
    assert typing.math_result(T.float32) == T.float32
    assert typing.math_result(T.float64) == T.float64
    assert typing.math_result(T.int32) == T.float64
