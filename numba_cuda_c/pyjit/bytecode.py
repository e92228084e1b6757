"""A function's syntax tree rebuilt from its bytecode, for functions that have no source to read
(made with exec from a string, as code generators and numba's own tests make kernels).

Straight-line code (names, constants, attributes, calls, subscripts, arithmetic, comparisons, tuples,
unpacking, assignments, return) and `if` statements are rebuilt: a branch is an `if` from its conditional jump
to where its paths meet again (`if a and b: X else: Y` comes back as `if a: (if b: X else: Y) else: Y`, the
same). A loop, a conditional expression or anything else raises Unreadable, and the caller reports that its
source cannot be read. The bytecode of CPython 3.11 to 3.13 is understood (older bytecode is Unreadable)."""

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
# TO_BOOL (3.13) only stands before a conditional jump or `not`, which test truth themselves
_SKIPPED = {"RESUME", "NOP", "PRECALL", "COPY_FREE_VARS", "MAKE_CELL", "CACHE", "EXTENDED_ARG", "TO_BOOL"}
_CONDITIONS = {  # a conditional jump -> the test under which it falls through (into the `if` body)
    "POP_JUMP_IF_FALSE": lambda v: v,
    "POP_JUMP_IF_TRUE": lambda v: ast.UnaryOp(op=ast.Not(), operand=v),
    "POP_JUMP_IF_NONE": lambda v: ast.Compare(left=v, ops=[ast.IsNot()], comparators=[ast.Constant(value=None)]),
    "POP_JUMP_IF_NOT_NONE": lambda v: ast.Compare(left=v, ops=[ast.Is()], comparators=[ast.Constant(value=None)]),
}
_CONDITIONS.update({k.replace("IF_", "FORWARD_IF_"): v for k, v in _CONDITIONS.items()})  # 3.11's names
_RETURNS = {"RETURN_VALUE", "RETURN_CONST"}


def _name(identifier):
    return ast.Name(id=identifier, ctx=ast.Load())


def _store(target, value, body, line):
    if isinstance(target, ast.Name):
        target = ast.Name(id=target.id, ctx=ast.Store())
    body.append(ast.Assign(targets=[target], value=value, lineno=line))


def _is_return_none(statement):
    return (
        isinstance(statement, ast.Return)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value is None
    )


def _negated(test):
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _drop_implicit_returns(body):
    """Python's own `return None` at the end of the function (in each branch of a last `if`, where it
    copied the exit into each): falling off the end is the same, and a kernel returns nothing."""
    if body and _is_return_none(body[-1]):
        body.pop()
    elif body and isinstance(body[-1], ast.If):
        _drop_implicit_returns(body[-1].body)
        _drop_implicit_returns(body[-1].orelse)
        body[-1].body = body[-1].body or [ast.Pass()]


class _Flow:
    """The function's instructions as a graph of forward jumps (a loop raises Unreadable), and where the paths
    from each meet again (its immediate postdominator): an `if` statement's two branches are rebuilt from its
    conditional jump up to that point, and the code after it once."""

    def __init__(self, code):
        self.instructions, self.index, waiting = [], {}, []
        for ins in dis.get_instructions(code):
            waiting.append(ins.offset)  # a jump to a skipped instruction goes to the next one kept
            if ins.opname not in _SKIPPED:
                for offset in waiting:
                    self.index[offset] = len(self.instructions)
                waiting = []
                self.instructions.append(ins)
        self.exit = len(self.instructions)  # where every return goes
        self.after = [self.exit] * (self.exit + 1)  # each instruction's meeting point
        for k in reversed(range(self.exit)):  # every jump is forward: those after k are known
            successors = self.successors(k)
            if successors:
                meet = successors[0]
                for other in successors[1:]:
                    meet = self._meet(meet, other)
                self.after[k] = meet

    def target(self, ins):
        if not isinstance(ins.argval, int) or ins.argval <= ins.offset or ins.argval not in self.index:
            raise Unreadable("a loop")
        return self.index[ins.argval]

    def successors(self, k):
        ins = self.instructions[k]
        if ins.opname in _RETURNS:
            return ()
        if ins.opname == "JUMP_FORWARD":
            return (self.target(ins),)
        if ins.opname in _CONDITIONS:
            return (k + 1, self.target(ins))
        if k + 1 >= self.exit:
            raise Unreadable("code that runs past the last instruction")
        return (k + 1,)

    def _meet(self, a, b):
        """The first instruction that every path from a and every path from b reaches: the instructions are in
        an order every path follows, so the earlier of the two moves on to its own meeting point."""
        while a != b:
            if a < b:
                a = self.after[a]
            else:
                b = self.after[b]
        return a


class _Rebuilder:
    """Statements from the instructions of regions of the flow; the values they compute held on a stack, as
    syntax trees."""

    def __init__(self, code):
        self.flow = _Flow(code)
        self.first_line = code.co_firstlineno
        self.stack, self.unpacked, self.line = [], 0, 1

    def region(self, k, stop):
        """The statements from instruction k up to instruction `stop` (which every path from k reaches, or the
        exit), a branch as an `if` statement."""
        body = []
        while k < stop:
            ins = self.flow.instructions[k]
            line = ins.positions.lineno if ins.positions is not None else None
            if line is not None:  # a statement's line, relative to the function's (as the source's are)
                self.line = line - self.first_line + 1
            if ins.opname in _CONDITIONS:
                line = self.line
                test, k, orelse_start = self.condition(k)
                meet = self.flow.after[k]
                then = self.region(k + 1, meet)
                orelse = self.region(orelse_start, meet)
                body.append(ast.If(test=test, body=then or [ast.Pass()], orelse=orelse, lineno=line))
                k = meet
            elif ins.opname == "JUMP_FORWARD":
                k = self.flow.target(ins)
            else:
                self.instruction(ins, body)
                if ins.opname in _RETURNS:
                    break
                k += 1
        if self.stack:  # a branch that leaves a value behind: a conditional expression
            raise Unreadable("a conditional expression")
        return body

    def condition(self, k):
        """The test of the conditional jump at k, joined with those of the jumps that continue it (`a and b`: both
        jump to the `else`; `a or b`: the first jumps past the second, into the body): (test, the last jump, where
        the `else` starts)."""
        test = _CONDITIONS[self.flow.instructions[k].opname](self.stack.pop())
        if self.stack:  # a value chosen by a condition (`a if c else b`, `x = a and b`)
            raise Unreadable("a conditional expression")
        orelse = self.flow.target(self.flow.instructions[k])
        while True:
            j, scratch = k + 1, []
            while j < self.flow.exit and not scratch:  # the values the next jump tests, and no statement
                if self.flow.instructions[j].opname in _CONDITIONS.keys() | _RETURNS | {"JUMP_FORWARD"}:
                    break
                self.instruction(self.flow.instructions[j], scratch)
                j += 1
            following = self.flow.instructions[j] if j < self.flow.exit else None
            if scratch or following is None or following.opname not in _CONDITIONS or len(self.stack) != 1:
                self.stack.clear()  # no continuation: the body starts at k + 1, rebuilt from there
                return test, k, orelse
            target = self.flow.target(following)
            if target == orelse:
                test = ast.BoolOp(op=ast.And(), values=[test, _CONDITIONS[following.opname](self.stack.pop())])
            elif orelse == j + 1:
                test = ast.BoolOp(
                    op=ast.Or(), values=[_negated(test), _CONDITIONS[following.opname](self.stack.pop())]
                )
            else:
                self.stack.clear()
                return test, k, orelse
            k, orelse = j, target

    def instruction(self, ins, body):
        """One instruction that does not jump: a value pushed, or a statement appended to body."""
        stack, op = self.stack, ins.opname
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
        elif op in ("IS_OP", "CONTAINS_OP"):  # `a is b`, `a in b`; arg 1: `is not`, `not in`
            right, left = stack.pop(), stack.pop()
            test = (ast.IsNot if ins.arg else ast.Is) if op == "IS_OP" else (ast.NotIn if ins.arg else ast.In)
            stack.append(ast.Compare(left=left, ops=[test()], comparators=[right]))
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
            _store(_name(ins.argval), stack.pop(), body, self.line)
        elif op == "STORE_SUBSCR":
            index, container, value = stack.pop(), stack.pop(), stack.pop()
            _store(ast.Subscript(value=container, slice=index, ctx=ast.Store()), value, body, self.line)
        elif op == "UNPACK_SEQUENCE":
            temporary = "unpacked_%d" % self.unpacked
            self.unpacked += 1
            _store(_name(temporary), stack.pop(), body, self.line)
            for k in reversed(range(ins.arg)):  # item 0 on top
                stack.append(ast.Subscript(value=_name(temporary), slice=ast.Constant(value=k), ctx=ast.Load()))
        elif op == "POP_TOP":
            value = stack.pop()
            if isinstance(value, ast.Call):
                body.append(ast.Expr(value=value, lineno=self.line))
        elif op == "RETURN_VALUE":
            body.append(ast.Return(value=stack.pop(), lineno=self.line))
        elif op == "RETURN_CONST":
            body.append(ast.Return(value=ast.Constant(value=ins.argval), lineno=self.line))
        else:
            raise Unreadable(op)


def function_def(pyfunc):
    """An ast.FunctionDef equivalent to pyfunc's code (straight-line code and `if` statements). Unreadable
    otherwise."""
    code = pyfunc.__code__
    if code.co_flags & 0x0C:  # *args, **kwargs
        raise Unreadable("variable arguments")
    rebuilder = _Rebuilder(code)
    body = rebuilder.region(0, rebuilder.flow.exit)
    _drop_implicit_returns(body)
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
