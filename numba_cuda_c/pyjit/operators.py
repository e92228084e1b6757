"""Operators in kernels (rules of the passes, passes.py): arithmetic, bitwise, comparisons (chained,
`in` a tuple), boolean operators, conditional expressions and truth values, typed by numba's rules (typing.py);
datetime64/timedelta64 operands go to datetimes.py. Integer arithmetic of constants folds (2 * N stays a constant,
for shapes and ranges)."""

import ast
import enum

from numba_cuda_c import types
from numba_cuda_c.pyjit import datetimes, optional, typing
from numba_cuda_c.pyjit.folding import NOT_FOLDED, PYTHON_COMPARE, python_folded, real_divmod
from numba_cuda_c.pyjit.rules import c_rule, typing_rule
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import (
    Value,
    cast,
    literal,
    power_sign_clear,
    sign_clear,
    sign_clear_as,
    typed,
    with_const,
)

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
COMPARES = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "==",
    ast.IsNot: "!=",
}


# complex.cuh's helpers of a pair of complex operands
_COMPLEX_HELPERS = {"+": "ncc_cadd", "-": "ncc_csub", "*": "ncc_cmul", "/": "ncc_cdiv", "**": "ncc_cpow"}


class Operators:
    def truth(self, value, node):
        """A translated value as a C condition."""
        check_condition(self, value, node)
        if value.type == types.boolean:
            return value.code
        if value.type == types.none:
            return "false"
        if typing.is_complex(value.type):
            return "ncc_nonzero(%s)" % value.code
        if getattr(value.type, "to_float", None):  # a storage-only float (float16)
            return "(%s != 0.0f)" % (value.type.to_float % value.code)
        return "(%s) != 0" % value.code

    @c_rule(ast.UnaryOp)
    def c_UnaryOp(self, node, annotation):
        if annotation.how == "literal":
            return literal(annotation.const, annotation.type)
        if isinstance(node.op, ast.Not):  # of a value that may be None: its number's (numba's `not`)
            return Value("(!(%s))" % self.truth(self.expr(node.operand), node.operand), types.boolean)
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.UAdd):
            if annotation.how != "widened":
                return operand
            return Value(cast(operand, annotation.type), annotation.type)
        op, t = "-" if isinstance(node.op, ast.USub) else "~", annotation.type
        if annotation.how == "datetime":
            return datetimes.unary(self, op, operand)
        if op == "~" and t == types.boolean:  # numba: ~True is False
            return Value("(!(%s))" % operand.code, t)
        width = operand.type
        if typing.is_int(width):  # numba computes at the operand's width (unsigned: C's wrapping), then widens
            unsigned = getattr(types, "uint%d" % width.bits)
            code = "((%s)(%s%s))" % (unsigned.ctype, op, cast(operand, unsigned))
            return Value(cast(Value(cast(Value(code, unsigned), width), width), t), t)
        return Value("(%s%s)" % (op, cast(operand, t)), t)

    def binop(self, op, left, right, node, wraps=True):
        """left op right, typed and written in one (for the rules of statements and calls that compute)."""
        if op == "+" and left.items is not None and right.items is not None:  # t += (x,)
            return self.tuple_of(list(left.items) + list(right.items))
        if datetimes.involved(left.type, right.type):
            try:
                return datetimes.binop(self, op, left, right)
            except KernelTypeError as exc:
                self.fail(node, str(exc))
        t = binop_type(self, op, left, right, node)
        return _signed(Value(self.binop_code(op, left, right, t, wraps), t), op, left, right)

    def binop_code(self, op, left, right, t, wraps=True):
        """The C of left op right, computed in type t."""
        if op in ("//", "%") and t in (types.float32, types.float64) and _real(left.const) and _real(right.const):
            if right.const != 0:  # numba's LLVM folds constants' frem exactly (127 // inf is 0.0, not NaN)
                quotient, remainder = real_divmod(left.const, right.const, single=t == types.float32)
                return literal(quotient if op == "//" else remainder, t).code
        a, b = cast(left, t), cast(right, t)
        if typing.is_complex(t) and op in _COMPLEX_HELPERS:
            # both operands in one braced list, evaluated in order as numba's (complex.cuh's ncc_cpair);
            # numba's complex division: by zero, ZeroDivisionError
            b = self.checked_divisor(b, t) if op == "/" else b
            return "%s(ncc_cpair<%s>{%s, %s})" % (_COMPLEX_HELPERS[op], t.underlying_float.ctype, a, b)
        if op == "/":
            return "(%s / %s)" % (a, self.checked_divisor(b, t))
        if op in ("&", "|", "^", "<<", ">>"):
            return "(%s %s %s)" % (a, op, b)
        if op in ("//", "%") and not typing.is_complex(t):
            b = self.checked_divisor(b, t)  # debug=True: ZeroDivisionError, as numba's Python error model
        if op in ("//", "%") and typing.is_int(t):
            return "ncc_%s<%s>(%s, %s)" % ("floordiv" if op == "//" else "mod", t.ctype, a, b)
        if op in ("//", "%"):
            # where numba's LLVM knows both signs are clear, it knows the remainder's is too (a negative one from
            # frem's inexact expansion is not corrected)
            helper = "ncc_real_floordiv" if op == "//" else "ncc_real_mod"
            known = sign_clear(left) and sign_clear(right)
            return "%s<%s>(%s, %s)" % (helper, "true" if known else "false", a, b)
        if op == "**":
            exponent = typing.power_case(left.type, right.type, typing.is_int_literal(right))[1][1]
            if typing.is_float(t) and type(right.const) is int and 1 <= right.const <= 4:
                # numba's int_power loop, unrolled (a float ** 2.0 is pow)
                return "ncc_powi<%d>(%s)" % (right.const, a)
            if typing.is_int(exponent):  # numba's int_power: squaring, the exponent in its own type
                helper = "ncc_ipow" if typing.is_int(t) else "ncc_fpowi"
                return "%s<%s, %s>(%s, %s)" % (helper, t.ctype, exponent.ctype, a, cast(right, exponent))
            return "%s(%s, %s)" % ("powf" if t == types.float32 else "pow", a, b)
        if typing.is_int(t) and t.kind == "i" and wraps:  # signed overflow wraps, as in numba
            helper = {"+": "ncc_wrapping_add", "-": "ncc_wrapping_sub", "*": "ncc_wrapping_mul"}[op]
            return "%s<%s>(%s, %s)" % (helper, t.ctype, a, b)
        return "(%s %s %s)" % (a, op, b)


def condition(walk, node):
    if isinstance(node, ast.BoolOp) and walk.emitting and walk.tree.get(node) is not None:  # a test: its truth
        return condition_of_bool_op(walk, node)
    return walk.truth(optional.test_value(walk, node), node)


def condition_of_bool_op(walk, node):
    """`if a and b:`: the operands' truths, short-circuited, whatever value the expression would have."""
    op = " && " if isinstance(node.op, ast.And) else " || "
    return "(" + op.join(condition(walk, v) for v in node.values) + ")"


def check_condition(walk, value, node):
    """A typing rule's check that a value can be a condition."""
    if value.type not in (types.boolean, types.none) and not isinstance(value.type, types.Scalar):
        walk.fail(node, "a condition must be a number or a bool")
    if getattr(value.type, "c_conversion", None):  # FP8: numba-cuda types bool() of one but cannot lower it
        walk.fail(node, "a %s value cannot be a condition: convert it to a number first" % value.type)


@typing_rule(ast.IfExp)
def type_IfExp(walk, node):
    """a if c else b: the type holding both (None with a number: an Optional); where c is known when compiling
    (a literal, a test of None, names holding constants: Statements.known_test), the branch it picks alone, as
    numba prunes the other (a test CPython folds is not even typed: its compiler keeps the branch alone); a
    module's constant (math.pi) is not known to numba's pruning."""
    folded = python_folded(node.test)
    if folded is NOT_FOLDED:  # numba's pruning after its SSA, as an `if` statement's (stmt_If)
        known = walk.known_test(node.test)
        folded = NOT_FOLDED if known is None else known
    if folded is not NOT_FOLDED:
        picked = node.body if folded else node.orelse
        return walk.optional_expr(picked).annotated(("picked", picked))
    test = optional.test_value(walk, node.test)
    check_condition(walk, test, node)
    if (
        test.const is not None
        and test.items is None
        and not isinstance(test.const, complex)
        and not walk.reads_module_constant(node.test)  # `x if math.pi else y`: both typed, as numba's
    ):
        picked = node.body if test.const else node.orelse
        return walk.optional_expr(picked).annotated(("picked", picked))
    body, orelse = walk.optional_expr(node.body), walk.optional_expr(node.orelse)
    return typed(typing.unify(body.type, orelse.type))


@c_rule(ast.IfExp)
def c_IfExp(walk, node, annotation):
    if annotation.how and annotation.how[0] == "picked":
        return walk.optional_expr(annotation.how[1])
    t = annotation.type
    test, a, b = condition(walk, node.test), walk.optional_expr(node.body), walk.optional_expr(node.orelse)
    if t is types.none:  # None either way
        return Value(type=types.none)
    value = Value("(%s ? %s : %s)" % (test, cast(a, t), cast(b, t)), t)
    value.nonnegative = sign_clear(a) and sign_clear(b)  # LLVM's select of two it knows
    return value


@typing_rule(ast.UnaryOp)
def type_UnaryOp(walk, node):
    folded = python_folded(node)
    if folded is not NOT_FOLDED:  # CPython's compiler folds it: numba types the constant (-5, ~7, not 0)
        return walk.constant_value(folded, node).annotated("literal")
    operand = walk.expr(node.operand)
    if isinstance(node.op, ast.Not):
        check_condition(walk, operand, node)
        return typed(types.boolean)
    if isinstance(node.op, ast.UAdd):
        if not typing.is_number(operand.type) or typing.unary("+", operand.type) == operand.type:
            return operand
        return typed(typing.unary("+", operand.type), how="widened")  # +int8 is int64, as numba's
    op = "-" if isinstance(node.op, ast.USub) else "~"
    if datetimes.involved(operand.type):
        try:
            return typed(datetimes.unary(walk, op, operand).type, how="datetime")
        except KernelTypeError as exc:
            walk.fail(node, str(exc))
    # a constant that is not a literal (a literal's negation is folded above): wraps at its width, as computed
    width = operand.type if typing.is_int(operand.type) else None
    if operand.const is not None and op == "-" and typing.is_number(operand.type):
        t, value = typing.unary(op, operand.type), -operand.const
        if typing.is_int(t) and type(value) is int:
            value = _wrapped(_wrapped(value, width or t), t)
        return typed(t, const=value, how="literal")
    t = typing.unary(op, operand.type)
    if op == "~" and type(operand.const) is int and typing.is_int(t):  # ~N stays a constant (shapes)
        return typed(t, const=_wrapped(_wrapped(~operand.const, width or t), t), how="literal")
    return typed(t)


@typing_rule(ast.BoolOp)
def type_BoolOp(walk, node):
    """a and b, a or b: as in Python (and numba, whose phi joins the operands), the operand that decided, so
    the type holding all of them; bools give a bool."""
    operands = [optional.test_value(walk, v) for v in node.values]
    for value, v in zip(operands, node.values):
        check_condition(walk, value, v)
    kinds = [value.type for value in operands]
    if all(t == types.boolean for t in kinds) or not all(typing.is_number(t) for t in kinds):
        return typed(types.boolean)
    t = None
    for kind in kinds:
        t = typing.unify(t, kind)
    return typed(t, how="operand")


@c_rule(ast.BoolOp)
def c_BoolOp(walk, node, annotation):
    if annotation.how != "operand":
        op = " && " if isinstance(node.op, ast.And) else " || "
        return Value("(" + op.join(condition(walk, v) for v in node.values) + ")", types.boolean)
    # each operand evaluated once, left to right, the next only where the one before did not decide
    t = annotation.type
    code = cast(walk.expr(node.values[-1]), t)
    for v in reversed(node.values[:-1]):
        first = Value("ncc_decides", t)
        taken = (code, first.code) if isinstance(node.op, ast.And) else (first.code, code)
        code = "([&]() -> %s { %s ncc_decides = %s; return %s ? %s : %s; })()" % (
            t.ctype,
            t.ctype,
            cast(walk.expr(v), t),
            walk.truth(first, v),
            taken[0],
            taken[1],
        )
    return Value(code, t)


@typing_rule(ast.Compare)
def type_Compare(walk, node):
    """Each comparison's form (how): membership, a `None` test known now, datetimes, or numbers compared as
    the type that holds both."""
    forms, left = [], walk.optional_expr(node.left)
    for op_node, right_node in zip(node.ops, node.comparators):
        if isinstance(op_node, (ast.In, ast.NotIn)):  # x in (1, 2): x == 1 || x == 2
            forms.append(
                ("in", membership_types(walk, optional.unwrapped(walk, left), walk.expr(right_node), node))
            )
            left = None
            continue
        op = COMPARES.get(type(op_node))
        if op is None:
            walk.fail(node, "unsupported comparison")
        right = walk.optional_expr(right_node)
        if isinstance(left.obj, enum.Enum) and isinstance(right.obj, enum.Enum) and op in ("==", "!="):
            # two enum members (globals): Python's answer, known when compiling (Color.red != Shape.circle
            # though their values are equal; IntEnum members compare as their values)
            same = left.obj is right.obj if isinstance(op_node, (ast.Is, ast.IsNot)) else left.obj == right.obj
            forms.append(("known", same == (op == "==")))
            left = right
            continue
        none_test = optional.none_test(walk, op_node, left, right)  # x is None: its flag, or known when compiling
        if none_test is not None:
            forms.append(none_test)
            left = right
            continue
        if types.none in (left.type, right.type):
            walk.fail(node, "None is compared with is, is not, == and != only")
        left, right = optional.unwrapped(walk, left), optional.unwrapped(walk, right)
        if not (isinstance(left.type, types.Scalar) and isinstance(right.type, types.Scalar)):
            walk.fail(node, "only numbers can be compared")
        elif datetimes.involved(left.type, right.type):
            try:
                datetimes.compare(walk, op, left, right)
            except KernelTypeError as exc:
                walk.fail(node, str(exc))
            forms.append(("datetime", op))
        else:
            t = typing.unify(left.type, right.type)  # a type holding both: int64 < uint64 compares as floats
            if getattr(t, "c_conversion", None):  # FP8 values: numba-cuda defines no comparison on them
                walk.fail(node, "%s values cannot be compared: convert them to numbers first" % t)
            if typing.is_complex(t) and op not in ("==", "!="):
                walk.fail(node, "complex numbers are not ordered: only == and != compare them")
            forms.append(("numbers", (op, t)))
        left = right
    return typed(types.boolean, how=forms, const=folded_comparison(walk, node, forms))


def folded_comparison(walk, node, forms):
    """The value of a comparison of number constants (N > 2: known when compiling, as numba's branch pruning
    knows it), or None."""
    if all(form == "known" for form, _ in forms):  # enum members, `x is None`
        return all(what for _, what in forms)
    operands = [walk.tree.get(n) for n in [node.left] + list(node.comparators)]
    if any(form != "numbers" for form, _ in forms) or not all(
        o is not None and o.items is None and _is_number(o.const) for o in operands
    ):
        return None
    result = True
    for (_, (op, _t)), a, b in zip(forms, operands, operands[1:]):
        result = result and _COMPARE_VALUES[op](a.const, b.const)
    return bool(result)


@c_rule(ast.Compare)
def c_Compare(walk, node, annotation):
    if annotation.const is not None:
        return literal(annotation.const, types.boolean)
    parts, left = [], walk.optional_expr(node.left)
    for (form, what), op_node, right_node in zip(annotation.how, node.ops, node.comparators):
        right = walk.optional_expr(right_node)
        if form in ("in", "numbers", "datetime"):
            left, right = optional.unwrapped(walk, left), optional.unwrapped(walk, right)
        if form == "none_test":
            parts.append(optional.none_test_code(walk, what, left, right))
        elif form == "in":
            found = (
                "("
                + (
                    " || ".join("(%s == %s)" % (cast(left, t), cast(item, t)) for item, t in zip(right.items, what))
                    or "false"
                )
                + ")"
            )
            parts.append("(!%s)" % found if isinstance(op_node, ast.NotIn) else found)
        elif form == "known":
            parts.append("true" if what else "false")
        elif form == "datetime":
            parts.append(datetimes.compare(walk, what, left, right))
        else:
            op, t = what
            parts.append("(%s %s %s)" % (cast(left, t), op, cast(right, t)))
        left = right
    return Value("(" + " && ".join(parts) + ")", types.boolean)


def membership_types(walk, left, right, node):
    """`x in t` for a tuple t of numbers (numba's tuple containment): the type each item compares as."""
    if right.items is None or left is None or not isinstance(left.type, types.Scalar):
        walk.fail(node, "`in` takes a number and a tuple of numbers in kernels")
    compared = []
    for item in right.items:
        if not isinstance(item.type, types.Scalar):
            walk.fail(node, "`in` takes a tuple of numbers in kernels")
        compared.append(typing.unify(left.type, item.type))
        if getattr(compared[-1], "c_conversion", None):  # FP8 values: no comparison (numba-cuda's)
            walk.fail(node, "%s values cannot be compared: convert them to numbers first" % compared[-1])
    return compared


@typing_rule(ast.BinOp)
def type_BinOp(walk, node):
    op = BINOPS.get(type(node.op))
    if op is None:
        walk.fail(node, "unsupported operator")
    folded = python_folded(node)
    if folded is not NOT_FOLDED:  # CPython's compiler folds it: numba types the constant (9 ** -2 is a float)
        return walk.constant_value(folded, node).annotated("literal")
    left, right = walk.expr(node.left), walk.expr(node.right)
    if op == "+" and left.items is not None and right.items is not None:  # t + (x,) (sequences.py)
        return walk.tuple_concat_type(left, right, node)
    if not (isinstance(left.type, types.Scalar) and isinstance(right.type, types.Scalar)):
        walk.fail(node, "arithmetic works on numbers, not %s and %s" % (left.type, right.type))
    if datetimes.involved(left.type, right.type):
        return typed(walk.binop(op, left, right, node).type, how="datetime")
    t = binop_type(walk, op, left, right, node)
    folded = _fold_integers(op, left, right, t)  # 2 * N stays a constant (array shapes, ranges)
    return typed(t, const=folded, how="literal" if folded is not None else None)


@c_rule(ast.BinOp)
def c_BinOp(walk, node, annotation):
    if annotation.how == "literal":
        return literal(annotation.const, annotation.type)
    op, left, right = BINOPS[type(node.op)], walk.expr(node.left), walk.expr(node.right)
    if annotation.how == ("tuple_concat", None):
        return walk.tuple_of(list(left.items) + list(right.items))
    if annotation.how == "datetime":
        return walk.binop(op, left, right, node)
    if op in ("//", "%") and typing.is_float(annotation.type):  # LLVM folds a remainder of constants it sees
        left, right = (with_const(v, walk.llvm_number(n)) for v, n in ((left, node.left), (right, node.right)))
    return _signed(Value(walk.binop_code(op, left, right, annotation.type), annotation.type), op, left, right)


def binop_type(walk, op, left, right, node):
    """The result type of left op right, by numba's rules."""
    try:
        if op == "/":
            return typing.true_divide(left.type, right.type)
        if op in ("&", "|", "^", "<<", ">>"):
            return (typing.bitwise if op in "&|^" else typing.shift)(left.type, right.type)
        if op in ("//", "%"):
            return typing.floor_divide(left.type, right.type)
        if op == "**":
            return typing.power(left.type, right.type, typing.is_int_literal(right))
        return typing.promote(left.type, right.type)
    except KernelTypeError as exc:
        walk.fail(node, str(exc))


def _signed(value, op, left, right):
    """value (left op right) marked sign_clear where LLVM knows it: +, *, / or % of two floats it knows (frem takes
    the dividend's sign; numba's correction adds the divisor, its zero copies the divisor's sign), // or % of two
    integers it knows, a power it knows (values.power_sign_clear), an integer identity of one it knows
    (_identity_of)."""
    if op in ("+", "*", "/", "%") and typing.is_float(value.type) and sign_clear(left) and sign_clear(right):
        value.nonnegative = True
    if (
        op in ("//", "%")
        and typing.is_int(value.type)
        and sign_clear_as(left, value.type)
        and sign_clear_as(right, value.type)
    ):
        value.nonnegative = True  # sdiv and srem of such (numba's corrections fold away)
    if op == "**" and power_sign_clear(right.const, value.type):
        value.nonnegative = True
    if typing.is_int(value.type) and _identity_of(op, left, right, value.type):
        value.nonnegative = True  # `u8 ** 1`, `u8 + 0`, `1 * u8`: LLVM folds them to the zext, whose sign it knows
    return value


def _identity_of(op, left, right, t):
    """Whether left op right is one operand itself, an integer LLVM knows is not negative as t (x ** 1, x + 0,
    0 + x, x - 0, x * 1, 1 * x). numba's LLVM knows no more of integer arithmetic here: `u8 * 3` and `u8 ** 3`
    keep the correction of a float % by them (their sitofp stays a sitofp)."""

    def constant(value, number):
        return type(value.const) in (int, bool) and value.const == number

    neutral = {"**": 1, "-": 0, "+": 0, "*": 1}.get(op)
    if neutral is None:
        return False
    kept = left if constant(right, neutral) else right if op in ("+", "*") and constant(left, neutral) else None
    return kept is not None and sign_clear_as(kept, t)


def _real(constant):
    """A constant that is a real number (a bool, an int, a float): not None, not complex."""
    return type(constant) in (bool, int, float)


_COMPARE_VALUES = {COMPARES[kind]: compare for kind, compare in PYTHON_COMPARE.items()}  # by COMPARES' op


def _wrapped(value, t):
    """An integer value as integer type t holds it (modulo its width)."""
    value &= (1 << t.bits) - 1
    return value - (1 << t.bits) if t.kind == "i" and value >= 1 << (t.bits - 1) else value


def _is_number(value):
    """A constant that is a real number (a bool, an int, a float): what comparisons and branches fold."""
    return type(value) in (bool, int, float)


_INTEGER_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
    "**": lambda a, b: a**b,
}


def _fold_integers(op, left, right, t):
    """The value of an operation on two integer (or bool) constants (Python's semantics are numba's here: // and %
    floor, << and >> of a count below the width, ** of a small exponent), where it fits the result type t; None
    otherwise. Array shapes need it (cuda.local.array(1 << 4, ...), (2 ** 4, N // 2))."""
    a, b = left.const, right.const
    if op not in _INTEGER_OPS or not (type(a) in (int, bool) and type(b) in (int, bool)) or not typing.is_int(t):
        return None
    if op in ("//", "%") and b == 0:
        return None  # raises at run time (debug), or is what the device computes
    if (op in ("<<", ">>") and not 0 <= b < t.bits) or (op == "**" and not 0 <= b < 256):
        return None  # a shift past the width or a negative power: computed at run time, as numba's LLVM does
    if op != "**":  # numba converts both operands to the result type first (a uint64 2**63 is -2**63 in int64)
        a, b = _wrapped(int(a), t), _wrapped(int(b), t)
    elif type(a) is int:
        a = _wrapped(a, t)  # int_power: the base in the result type, the exponent in its own
    value = _INTEGER_OPS[op](a, b)
    bits, signed = t.bits, t.kind == "i"
    low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    return value if low <= value < high else None
