"""A function's syntax tree rebuilt from its bytecode, for functions that have no source to read
(made with exec from a string, as code generators and numba's own tests make kernels).

Only straight-line code is rebuilt (names, constants, attributes, calls, subscripts, arithmetic,
comparisons, tuples, unpacking, assignments, return): a function with a branch or a loop raises
Unreadable, and the caller reports that its source cannot be read. The bytecode of CPython 3.11 to
3.13 is understood (older bytecode is Unreadable)."""

import ast
import dis
import sys


class Unreadable(Exception):
    """The bytecode holds something this rebuilder does not."""


_NULL = object()  # what PUSH_NULL and the NULL half of a global or method load leave on the stack

_UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_NOT": ast.Not, "UNARY_INVERT": ast.Invert, "UNARY_POSITIVE": ast.UAdd}
_BINARY = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod, "**": ast.Pow,
    "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift, "@": ast.MatMult,
}  # fmt: skip
_COMPARE = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_SKIPPED = {"RESUME", "NOP", "PRECALL", "COPY_FREE_VARS", "MAKE_CELL", "CACHE", "EXTENDED_ARG"}


def _name(identifier):
    return ast.Name(id=identifier, ctx=ast.Load())


def _store(target, value, body):
    if isinstance(target, ast.Name):
        target = ast.Name(id=target.id, ctx=ast.Store())
    body.append(ast.Assign(targets=[target], value=value, lineno=1))


def function_def(pyfunc):
    """An ast.FunctionDef equivalent to pyfunc's straight-line code. Unreadable otherwise."""
    code = pyfunc.__code__
    if code.co_flags & 0x0C:  # *args, **kwargs
        raise Unreadable("variable arguments")
    stack, body, unpacked = [], [], 0
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op in _SKIPPED:
            continue
        if op == "PUSH_NULL":
            stack.append(_NULL)
        elif op in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_NAME"):
            stack.append(_name(ins.argval))
        elif op == "LOAD_FAST_LOAD_FAST":  # 3.13: two locals at once
            first, second = ins.argval
            stack += [_name(first), _name(second)]
        elif op == "LOAD_GLOBAL":
            if ins.arg & 1:  # 3.11+: NULL + name, for a call
                stack.append(_NULL)
            stack.append(_name(ins.argval))
        elif op == "LOAD_CONST":
            stack.append(ast.Constant(value=ins.argval))
        elif op in ("LOAD_ATTR", "LOAD_METHOD"):  # 3.12+: LOAD_ATTR's low bit marks a method load
            owner = stack.pop()
            if op == "LOAD_METHOD" or (op == "LOAD_ATTR" and sys.version_info >= (3, 12) and ins.arg & 1):
                stack.append(_NULL)
            stack.append(ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Load()))
        elif op in ("CALL", "CALL_FUNCTION", "CALL_METHOD"):
            args = [stack.pop() for _ in range(ins.arg)][::-1]
            function = stack.pop()
            if stack and stack[-1] is _NULL:
                stack.pop()
            elif function is _NULL:  # 3.11's order: NULL above the callable
                function = stack.pop()
            if any(a is _NULL for a in args) or function is _NULL:
                raise Unreadable("a call's stack")
            stack.append(ast.Call(func=function, args=args, keywords=[]))
        elif op == "BINARY_OP":
            symbol = ins.argrepr.rstrip("=") if ins.argrepr not in _BINARY else ins.argrepr
            if symbol not in _BINARY:
                raise Unreadable("operator %s" % ins.argrepr)
            right, left = stack.pop(), stack.pop()
            stack.append(ast.BinOp(left=left, op=_BINARY[symbol](), right=right))
        elif op in _UNARY:
            stack.append(ast.UnaryOp(op=_UNARY[op](), operand=stack.pop()))
        elif op == "COMPARE_OP":
            symbol = ins.argval if isinstance(ins.argval, str) else ins.argrepr
            symbol = symbol.replace("bool(", "").replace(")", "")
            if symbol not in _COMPARE:
                raise Unreadable("comparison %s" % symbol)
            right, left = stack.pop(), stack.pop()
            stack.append(ast.Compare(left=left, ops=[_COMPARE[symbol]()], comparators=[right]))
        elif op == "BINARY_SUBSCR":
            index, container = stack.pop(), stack.pop()
            stack.append(ast.Subscript(value=container, slice=index, ctx=ast.Load()))
        elif op == "BUILD_TUPLE":
            items = [stack.pop() for _ in range(ins.arg)][::-1]
            stack.append(ast.Tuple(elts=items, ctx=ast.Load()))
        elif op == "STORE_FAST":
            _store(_name(ins.argval), stack.pop(), body)
        elif op == "STORE_SUBSCR":
            index, container, value = stack.pop(), stack.pop(), stack.pop()
            _store(ast.Subscript(value=container, slice=index, ctx=ast.Store()), value, body)
        elif op == "UNPACK_SEQUENCE":
            temporary = "unpacked_%d" % unpacked
            unpacked += 1
            _store(_name(temporary), stack.pop(), body)
            for k in reversed(range(ins.arg)):  # item 0 on top
                stack.append(ast.Subscript(value=_name(temporary), slice=ast.Constant(value=k), ctx=ast.Load()))
        elif op == "POP_TOP":
            value = stack.pop()
            if isinstance(value, ast.Call):
                body.append(ast.Expr(value=value, lineno=1))
        elif op == "RETURN_VALUE":
            body.append(ast.Return(value=stack.pop(), lineno=1))
        elif op == "RETURN_CONST":
            body.append(ast.Return(value=ast.Constant(value=ins.argval), lineno=1))
        else:
            raise Unreadable(op)
    # a bare `return None` at the end is Python's, not the function's
    if (
        body
        and isinstance(body[-1], ast.Return)
        and isinstance(body[-1].value, ast.Constant)
        and body[-1].value.value is None
    ):
        body.pop()
    arguments = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=n) for n in code.co_varnames[: code.co_argcount]],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
    function = ast.FunctionDef(
        name=pyfunc.__name__,
        args=arguments,
        body=body or [ast.Pass()],
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=1,
    )
    if hasattr(ast.FunctionDef, "type_params"):
        function.type_params = []
    return ast.fix_missing_locations(function)
