"""Operators in kernels (a mixin of FunctionTranslator, translate.py): arithmetic, bitwise, comparisons (chained,
`in` a tuple), boolean operators, conditional expressions and truth values, typed by numba's rules (typing.py);
datetime64/timedelta64 operands go to datetimes.py. Integer arithmetic of constants folds (2 * N stays a constant,
for shapes and ranges)."""

import ast

from numba_cuda_c import types
from numba_cuda_c.pyjit import datetimes, typing
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import Value, cast, literal

BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}
# `is` between numbers (enum members, `flag is True`) compares values, as numba's literal types do
COMPARES = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "==",
            ast.IsNot: "!="}


class Operators:
    def condition(self, node):
        return self.truth(self.expr(node), node)

    def truth(self, value, node):
        """A translated value as a C condition."""
        if value.type == types.boolean:
            return value.code
        if value.type == types.none:
            return "false"
        if typing.is_complex(value.type):
            return "ncc_nonzero(%s)" % value.code
        if getattr(value.type, "to_float", None):  # a storage-only float (float16)
            return "(%s != 0.0f)" % (value.type.to_float % value.code)
        if isinstance(value.type, types.Scalar):
            return "(%s) != 0" % value.code
        self.fail(node, "a condition must be a number or a bool")

    def expr_IfExp(self, node):
        test = self.condition(node.test)
        a, b = self.expr(node.body), self.expr(node.orelse)
        t = typing.unify(a.type, b.type)
        return Value("(%s ? %s : %s)" % (test, cast(a, t), cast(b, t)), t)

    def expr_UnaryOp(self, node):
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return Value("(!(%s))" % self.condition(node.operand), types.boolean)
        if isinstance(node.op, ast.UAdd):
            return operand
        op = "-" if isinstance(node.op, ast.USub) else "~"
        if datetimes.involved(operand.type):
            try:
                return datetimes.unary(self, op, operand)
            except KernelTypeError as exc:
                self.fail(node, str(exc))
        if operand.const is not None and op == "-" and typing.is_number(operand.type):
            t = typing.unary(op, operand.type) if operand.type != types.boolean else types.int64
            if typing.is_int(t) and -(2**63) <= -operand.const < 2**63:
                t = types.int64  # a negative literal (-9223372036854775808 too), as numba folds it
            return literal(-operand.const, t)
        t = typing.unary(op, operand.type)
        if op == "~" and t == types.boolean:  # numba: ~True is False
            return Value("(!(%s))" % operand.code, t)
        return Value("(%s%s)" % (op, cast(operand, t)), t)

    def expr_BoolOp(self, node):
        op = " && " if isinstance(node.op, ast.And) else " || "
        return Value("(" + op.join(self.condition(v) for v in node.values) + ")", types.boolean)

    def expr_Compare(self, node):
        parts, left = [], self.expr(node.left)
        for op_node, right_node in zip(node.ops, node.comparators):
            if isinstance(op_node, (ast.In, ast.NotIn)):  # x in (1, 2): x == 1 || x == 2
                parts.append(self.membership(left, right_node, isinstance(op_node, ast.NotIn), node))
                left = None
                continue
            op = COMPARES.get(type(op_node))
            if op is None:
                self.fail(node, "unsupported comparison")
            right = self.expr(right_node)
            if types.none in (left.type, right.type) and op in ("==", "!="):  # x is None: known when compiling
                same = left.type == right.type
                parts.append("true" if same == (op == "==") else "false")
                left = right
                continue
            if not (isinstance(left.type, types.Scalar) and isinstance(right.type, types.Scalar)):
                self.fail(node, "only numbers can be compared")
            if datetimes.involved(left.type, right.type):
                try:
                    parts.append(datetimes.compare(self, op, left, right))
                except KernelTypeError as exc:
                    self.fail(node, str(exc))
                left = right
                continue
            t = typing.unify(left.type, right.type)  # a type holding both: int64 < uint64 compares as floats
            if typing.is_complex(t) and op not in ("==", "!="):
                self.fail(node, "complex numbers are not ordered: only == and != compare them")
            parts.append("(%s %s %s)" % (cast(left, t), op, cast(right, t)))
            left = right
        return Value("(" + " && ".join(parts) + ")", types.boolean)

    def membership(self, left, right_node, negated, node):
        """`x in t` for a tuple t of numbers (numba's tuple containment): any item equal."""
        items = self.expr(right_node).items
        if items is None or left is None or not isinstance(left.type, types.Scalar):
            self.fail(node, "`in` takes a number and a tuple of numbers in kernels")
        tests = []
        for item in items:
            if not isinstance(item.type, types.Scalar):
                self.fail(node, "`in` takes a tuple of numbers in kernels")
            t = typing.unify(left.type, item.type)
            tests.append("(%s == %s)" % (cast(left, t), cast(item, t)))
        found = "(" + (" || ".join(tests) or "false") + ")"
        return "(!%s)" % found if negated else found

    def expr_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            self.fail(node, "unsupported operator")
        left, right = self.expr(node.left), self.expr(node.right)
        if not (isinstance(left.type, types.Scalar) and isinstance(right.type, types.Scalar)):
            self.fail(node, "arithmetic works on numbers, not %s and %s" % (left.type, right.type))
        result = self.binop(op, left, right, node)
        folded = _fold_integers(op, left, right, result)  # 2 * N stays a constant (array shapes, ranges)
        return folded if folded is not None else result

    def binop(self, op, left, right, node, wraps=True):
        if datetimes.involved(left.type, right.type):
            try:
                return datetimes.binop(self, op, left, right)
            except KernelTypeError as exc:
                self.fail(node, str(exc))
        try:
            if op == "/":
                t = typing.true_divide(left.type, right.type)
                return Value("(%s / %s)" % (cast(left, t), self.checked_divisor(cast(right, t), t)), t)
            if op in ("&", "|", "^", "<<", ">>"):
                t = (typing.bitwise if op in "&|^" else typing.shift)(left.type, right.type)
                return Value("(%s %s %s)" % (cast(left, t), op, cast(right, t)), t)
            if op in ("//", "%"):
                t = typing.floor_divide(left.type, right.type)
            else:
                t = typing.promote(left.type, right.type) if op != "**" else typing.power(left.type, right.type)
        except KernelTypeError as exc:
            self.fail(node, str(exc))
        a, b = cast(left, t), cast(right, t)
        if op in ("//", "%") and not typing.is_complex(t):
            b = self.checked_divisor(b, t)  # debug=True: ZeroDivisionError, as numba's Python error model
        if op == "**" and typing.is_complex(t):
            return Value("ncc_cpow(%s, %s)" % (a, b), t)
        if op == "//":
            if typing.is_int(t):
                return Value("ncc_floordiv<%s>(%s, %s)" % (t.ctype, a, b), t)
            return Value("%s(%s, %s)" % ("ncc_ffloordiv_f32" if t == types.float32 else "ncc_ffloordiv", a, b), t)
        if op == "%":
            if typing.is_int(t):
                return Value("ncc_mod<%s>(%s, %s)" % (t.ctype, a, b), t)
            return Value("%s(%s, %s)" % ("ncc_fmodf" if t == types.float32 else "ncc_fmod", a, b), t)
        if op == "**":
            if typing.is_float(t) and right.const in (1, 2, 3, 4) and not isinstance(right.const, bool):
                return Value("ncc_powi<%d>(%s)" % (right.const, a), t)  # x**2 as x*x, as LLVM does for numba
            if typing.is_int(t):
                return Value("ncc_ipow<%s>(%s, %s)" % (t.ctype, a, b), t)
            if typing.is_float(t) and typing.is_int(typing.as_arith(right.type)):  # numba's int_power: squaring
                return Value("ncc_fpowi<%s>(%s, (long long)(%s))" % (t.ctype, a, right.code), t)
            return Value("%s(%s, %s)" % ("powf" if t == types.float32 else "pow", a, b), t)
        if typing.is_int(t) and t.kind == "i" and wraps:  # signed overflow wraps, as in numba
            helper = {"+": "ncc_wrapping_add", "-": "ncc_wrapping_sub", "*": "ncc_wrapping_mul"}[op]
            return Value("%s<%s>(%s, %s)" % (helper, t.ctype, a, b), t)
        return Value("(%s %s %s)" % (a, op, b), t)


_INTEGER_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
                "//": lambda a, b: a // b, "%": lambda a, b: a % b, "&": lambda a, b: a & b,
                "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}


def _fold_integers(op, left, right, result):
    """The literal of an operation on two integer constants (Python's semantics are numba's here: // and %
    floor), where it fits the result type; None otherwise."""
    a, b = left.const, right.const
    if op not in _INTEGER_OPS or not (type(a) is int and type(b) is int) or not typing.is_int(result.type):
        return None
    if op in ("//", "%") and b == 0:
        return None
    value = _INTEGER_OPS[op](a, b)
    bits, signed = result.type.bits, result.type.kind == "i"
    low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    return literal(value, result.type) if low <= value < high else None
