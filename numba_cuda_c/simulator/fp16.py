"""cuda.fp16 in the simulator: CUDA's half-precision functions (hadd, hfma, hsqrt, heq, ...) on NumPy float16s;
arithmetic results are float16, comparisons bool. Relies on NumPy."""

import numpy as np

_half = np.float16


def hadd(a, b):
    return _half(_half(a) + _half(b))


def hsub(a, b):
    return _half(_half(a) - _half(b))


def hmul(a, b):
    return _half(_half(a) * _half(b))


def hdiv(a, b):
    return _half(_half(a) / _half(b))


def hfma(a, b, c):
    return _half(np.float32(_half(a)) * np.float32(_half(b)) + np.float32(_half(c)))


def hneg(a):
    return -_half(a)


def habs(a):
    return abs(_half(a))


def hmax(a, b):
    return max(_half(a), _half(b))


def hmin(a, b):
    return min(_half(a), _half(b))


def _unary(function):
    return lambda x: _half(function(np.float32(_half(x))))


hsqrt = _unary(np.sqrt)
hrsqrt = _unary(lambda x: 1 / np.sqrt(x))
hrcp = _unary(lambda x: 1 / x)
hlog = _unary(np.log)
hlog2 = _unary(np.log2)
hlog10 = _unary(np.log10)
hexp = _unary(np.exp)
hexp2 = _unary(np.exp2)
hexp10 = _unary(lambda x: np.float32(10) ** x)
hsin = _unary(np.sin)
hcos = _unary(np.cos)
hceil = _unary(np.ceil)
hfloor = _unary(np.floor)
htrunc = _unary(np.trunc)
hrint = _unary(np.rint)


def heq(a, b):
    return bool(_half(a) == _half(b))


def hne(a, b):
    return bool(_half(a) != _half(b))


def hgt(a, b):
    return bool(_half(a) > _half(b))


def hge(a, b):
    return bool(_half(a) >= _half(b))


def hlt(a, b):
    return bool(_half(a) < _half(b))


def hle(a, b):
    return bool(_half(a) <= _half(b))
