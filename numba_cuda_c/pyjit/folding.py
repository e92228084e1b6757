"""CPython's constant folding, as numba sees it: numba reads the bytecode, where CPython's compiler has already
folded expressions of number constants (its AST optimizer), so `9 ** -2` reaches numba as the float 0.0123...,
`2 ** 63` as an int that types as uint64, and `if 1 + 1:` as no test at all."""

import ast
import math
import operator
import warnings

NOT_FOLDED = object()
_FOLDED_BITS = 128  # CPython's ast optimizer folds no integer wider (MAX_INT_SIZE)
_PYTHON_UNARY = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}
PYTHON_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}  # fmt: skip
# the comparisons of two numbers, as Python computes them (numba's branch pruning evaluates these too)
PYTHON_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}  # fmt: skip


def python_folded(node):
    """The number CPython's compiler folds an expression of number constants to (its AST optimizer: unary and
    binary operators, within its limits on integer size; a division by zero is left to run), else NOT_FOLDED.
    numba reads the bytecode, so it types that constant: `9 ** -2` is the float 0.0123..., `2 ** 63` a uint64."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) in (bool, int, float, complex) else NOT_FOLDED
    if isinstance(node, ast.UnaryOp) and type(node.op) in _PYTHON_UNARY:
        value = python_folded(node.operand)
        if value is NOT_FOLDED:
            return NOT_FOLDED
        try:
            with warnings.catch_warnings():  # ~True: deprecated, still folded
                warnings.simplefilter("ignore")
                return _PYTHON_UNARY[type(node.op)](value)
        except (TypeError, ValueError, ArithmeticError):
            return NOT_FOLDED
    if isinstance(node, ast.BinOp) and type(node.op) in PYTHON_BINARY:
        a, b = python_folded(node.left), python_folded(node.right)
        if a is NOT_FOLDED or b is NOT_FOLDED:
            return NOT_FOLDED
        if type(a) in (int, bool) and type(b) in (int, bool) and _too_wide(type(node.op), int(a), int(b)):
            return NOT_FOLDED
        try:
            value = PYTHON_BINARY[type(node.op)](a, b)
        except (TypeError, ValueError, ArithmeticError):
            return NOT_FOLDED
        if type(value) is int and value.bit_length() > _FOLDED_BITS:
            return NOT_FOLDED
        return value
    return NOT_FOLDED


def _too_wide(op, a, b):
    """CPython's checks before folding integers (safe_multiply, safe_power, safe_lshift)."""
    if op is ast.Mult:
        return a != 0 and b != 0 and a.bit_length() + b.bit_length() > _FOLDED_BITS
    if op is ast.Pow:
        return a != 0 and b > 0 and a.bit_length() * b > _FOLDED_BITS
    if op is ast.LShift:
        return a != 0 and (b < 0 or b > _FOLDED_BITS or a.bit_length() > _FOLDED_BITS - b)
    return False


_IEEE_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def float64_folded(op, a, b):
    """a op b (+ - * /) as LLVM folds it in float64 where one of two numbers is a float (IEEE's: 1.0 / 0.0 is inf),
    else None: integers wider than a double's 53 bits, whose conversion rounds, and integer arithmetic are left."""
    import numpy as np

    numbers = (a, b)
    if op not in _IEEE_BINARY or not any(type(n) is float for n in numbers):
        return None
    if any(type(n) not in (bool, int, float) or (type(n) is int and abs(n) > 2**53) for n in numbers):
        return None
    with np.errstate(all="ignore"):
        return float(_IEEE_BINARY[op](np.float64(a), np.float64(b)))


def float64_power(base, exponent):
    """base ** exponent for a float base and an integer exponent as numba computes it (static_power_impl and
    int_power: products by squaring, 1.0 / the product for a negative exponent) and LLVM folds it, each step
    rounded in float64; None for other operands and past numba's 0x10000 cutoff (math.pow there)."""
    import numpy as np

    if type(base) is not float or type(exponent) not in (int, bool) or abs(exponent) > 0x10000:
        return None
    with np.errstate(all="ignore"):
        result, square, left = np.float64(1.0), np.float64(base), abs(exponent)
        while left:
            if left & 1:
                result = result * square
            left >>= 1
            square = square * square
        return float(np.float64(1.0) / result if exponent < 0 else result)


def real_divmod(vx, wx, single=False):
    """numba's float divmod (its real_divmod, CPython's float_divmod over LLVM's frem) of two constants, as LLVM
    folds it: frem is the exact IEEE remainder there (fmod: x % inf is x), the rest in the type's precision (float32
    where `single`). (floor quotient, remainder). At run time NVVM's frem is not exact: only constants fold so."""
    import numpy as np

    f = np.float32 if single else np.float64
    with np.errstate(all="ignore"):
        vx, wx = f(vx), f(wx)
        try:
            mod = f(math.fmod(vx, wx))
        except ValueError:  # an infinite dividend or a zero divisor: IEEE's NaN
            mod = f(math.nan)
        div = (vx - mod) / wx
        if mod != 0:  # NaN too, as C's test
            if (wx < 0) != (mod < 0):
                mod, div = mod + wx, div - f(1)
        else:
            mod = f(math.copysign(0.0, wx))
        if div != 0:
            floordiv = f(math.floor(div)) if math.isfinite(div) else div
            if div - floordiv > 0.5:
                floordiv = floordiv + f(1)
        else:
            floordiv = f(math.copysign(0.0, vx / wx))
    return float(floordiv), float(mod)
