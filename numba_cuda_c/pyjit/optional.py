"""None and numba's Optional values in kernels (rules of the passes, passes.py).

numba types a value that is a number on some paths and None on others as Optional(T) (types.Optional): a device
function that returns `n - 1` on one path and None (or nothing, or falls off its end) on another, a variable
assigned None on some paths. In C it is a struct of the value and a flag, ncc_optional<T> (placed where the C
names it: module.py's HEADER_MARKS); None is the struct zeroed.

What may be done with one, as numba does:
- test it: `r is None`, `r is not None` (also `== None`, `!= None`) read its flag; against a value that is never
  None, or always None, the test is known when compiling and the other branch is not translated (numba's branch
  pruning);
- store it in a variable, return it, pass it to a device function (compiled for the Optional), choose it in
  `a if c else b` (unified: Optional(int64) with float64 is Optional(float64), as numba's);
- use it as its number anywhere else (arithmetic, comparisons, indexing, math, stores into arrays): numba converts
  it to T and raises TypeError("expected T, got None") where it is None. Here that is the same exception: with
  debug=True recorded and raised on the host after the launch, without it the thread ends there, as a raise in a
  kernel ends it (numba-cuda's kernel returns); it never reads an undefined number;
- its truth (`if r:`) is numba's typing error: test `r is not None` first.

None arguments: a kernel's argument that is None, or left out where the kernel's parameter has a default (numba's
Omitted), and a device function's None argument are known when compiling: the parameter is a variable assigned the
value at the top of the function (so that `y is None` prunes, and `if y is None: y = 0` makes it an Optional),
with no C parameter; the launch leaves them out (dispatcher.py)."""

import ast

from numba_cuda_c import types
from numba_cuda_c.pyjit import exceptions, lib, ssa
from numba_cuda_c.pyjit.rules import statement_rule
from numba_cuda_c.pyjit.values import Value, cast, literal, typed

lib.Requirement(
    "optional",
    r"""// --- numba's Optional values (pyjit/optional.py) ---------------------------------------------
template <typename T> struct ncc_optional { T value; bool valid; };
// an Optional's number where a number is needed: None raises numba's TypeError; without debug=True the thread
// ends, as a raise ends it
template <typename T> __device__ __forceinline__ T ncc_optional_value(ncc_optional<T> o) {
    if (!o.valid) asm volatile("exit;");
    return o.value;
}
// an Optional as an Optional of another number type: f converts its number, where it has one
template <typename T, typename S, typename F>
__device__ __forceinline__ ncc_optional<T> ncc_optional_map(ncc_optional<S> o, F f) {
    ncc_optional<T> r{};
    if (o.valid) {
        r.value = f(o.value);
        r.valid = true;
    }
    return r;
}
""",
)
# debug=True: the TypeError recorded (exceptions.py's ncc_raise, required before this)
lib.Requirement(
    "optional_raise",
    r"""template <typename T> __device__ __forceinline__ T ncc_optional_raise(ncc_optional<T> o, unsigned int code) {
    if (!o.valid) ncc_raise(code);
    return o.value;
}
""",
)

NONE_TESTS = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)  # against None: a test of the flag (or known)


class FallThrough(ast.stmt):
    """The end of a device function's body where control can arrive: Python returns None there (numba's implicit
    `return None`), which makes a function that returns a number on other paths an Optional one."""

    _fields = ()


class OptionalValues:
    """Optional values' rules (a class the passes inherit, passes.py)."""

    block_ended = False  # the statement just translated was an `if` known when compiling that always returns


def ends_block(walk, statement):
    """Whether control never goes on after this statement (a return, a raise, a break, a continue, an `if` none
    of whose branches goes on, or one whose test was known and whose branch taken does not): the rest of its
    block is dead, as numba prunes it (`if y is None: return x` then `return x + y`, y None), and its
    assignments type nothing (ssa.py)."""
    ended, walk.block_ended = walk.block_ended, False
    if isinstance(statement, ast.If) and not ssa.reaches_end([statement]):
        return True
    return ended or isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue))


def pruned_branch(walk, body):
    """An `if` known when compiling translated only this branch: the block ends here if it never goes on."""
    walk.block_ended = not ssa.reaches_end(body)


def unwrapped(walk, value):
    """A value as its number where a number is needed: an Optional's number, checked (numba's TypeError where
    it is None); any other value as it is."""
    t = value.type
    if not isinstance(t, types.Optional):
        return value
    if not walk.emitting:
        return typed(t.type)
    if walk.module.debug:
        code = exceptions.exception_code(walk, TypeError, ("expected %s, got None" % t.type,))
        walk.module.require("optional_raise")
        return Value("ncc_optional_raise(%s, %du)" % (value.code, code), t.type)
    return Value("ncc_optional_value(%s)" % value.code, t.type)


def test_value(walk, node):
    """The value of a condition (if, while, and/or, a conditional expression's test): numba gives no truth to
    a value that may be None."""
    value = walk.optional_expr(node)
    if isinstance(value.type, types.Optional):
        walk.fail(
            node,
            "No implementation of function Function(<class 'bool'>) found for signature: bool(%s): a value "
            "that may be None has no truth in kernels; test `is not None` first" % value.type,
        )
    return value


def none_test(walk, op, left, right):
    """`left is None` (is not, ==, !=) where one side is None: ("known", result) where neither side can change
    (None against None, or a value that is never None); else ("none_test", (side, negated)) for the flag of the
    Optional on that side. None where neither side is None."""
    if types.none not in (left.type, right.type) or not isinstance(op, NONE_TESTS):
        return None
    negated = isinstance(op, (ast.IsNot, ast.NotEq))
    for side, value in enumerate((left, right)):
        if isinstance(value.type, types.Optional):
            return "none_test", (side, negated)
    return "known", (left.type == right.type) != negated


def none_test_code(walk, what, left, right):
    side, negated = what
    return "(%s(%s).valid)" % ("" if negated else "!", (left, right)[side].code)


def return_none(walk, node):
    """`return`, `return None`, or the return of a value that is always None, in a device function."""
    old = walk.return_type
    if walk.function.declared_return not in (None, types.void) and not isinstance(
        walk.function.declared_return, types.Optional
    ):
        walk.fail(node, "a device function declared to return %s returns None" % walk.function.declared_return)
    if old is None or old is types.none:
        walk.return_type = types.void
        walk.emit("return;")
        return
    if not isinstance(old, (types.Scalar, types.Optional)):
        walk.fail(node, "a device function returns a value on some paths and nothing on others")
    walk.emit("return %s;" % cast(Value(type=types.none), walk.settle_return(types.none)))


@statement_rule(FallThrough)
def stmt_FallThrough(walk, node):
    """Control reaching the end of a device function that returns numbers: it returns None (an Optional)."""
    t = walk.return_type
    if isinstance(t, (types.Scalar, types.Optional)) and walk.function.declared_return in (None, types.void):
        walk.emit("return %s;" % cast(Value(type=types.none), walk.settle_return(types.none)))


def omitted_arguments(argtypes):
    """({position: Value}, the other argument types) of a kernel's arguments that are None (types.none) or left out
    (types.Omitted): known when compiling, no C parameter (prologue() assigns them)."""
    known, rest = {}, []
    for k, t in enumerate(argtypes):
        if t is types.none:
            known[k] = Value(type=types.none)
        elif isinstance(t, types.Omitted):
            known[k] = Value(type=types.none) if t.value is None else Value(obj=t)
        else:
            rest.append(t)
    return known, rest


def prologue(function):
    """The statements that assign a function's None and omitted arguments (taken out of its constants) to their
    parameters' names, as its body's first: variables of their own, which the body may test and assign."""
    statements = []
    node = function.node
    for name, value in list(function.constants.items()):
        if value.type is types.none and value.code is None:
            default = None
        elif isinstance(value.obj, types.Omitted):
            default = value.obj.value
            if default is not None and type(default) not in (bool, int, float, complex):
                function.fail(node, "argument %r left out: kernels take None and numbers as defaults" % name)
        else:
            continue
        del function.constants[name]
        assign = ast.Assign(
            targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(value=default), lineno=node.lineno
        )
        statements.append(ast.fix_missing_locations(ast.copy_location(assign, node)))
    return statements


def fall_through(function):
    """[FallThrough] where control can reach the end of a device function's body, else []."""
    body = function.node.body
    if not body or not _can_fall_through(body):
        return []
    last = body[-1]
    end = FallThrough()
    end.lineno, end.col_offset = getattr(last, "end_lineno", None) or last.lineno, 0
    return [end]


def _can_fall_through(body):
    """Whether control can reach the end of these statements (a structural view: a branch whose test is a literal
    goes one way, `while True:` without a break never ends; otherwise any branch and any loop may end)."""
    return all(_completes(statement) for statement in body)


def _completes(statement):
    if isinstance(statement, (ast.Return, ast.Raise)):
        return False
    if isinstance(statement, ast.If):
        if isinstance(statement.test, ast.Constant):
            return _can_fall_through(statement.body if statement.test.value else statement.orelse)
        return _can_fall_through(statement.body) or _can_fall_through(statement.orelse)
    if isinstance(statement, (ast.While, ast.For)):
        infinite = (
            isinstance(statement, ast.While) and isinstance(statement.test, ast.Constant) and statement.test.value
        )
        if infinite:
            return ssa.has_break(statement.body)
        if statement.orelse:  # the else runs unless a break left the loop
            return ssa.has_break(statement.body) or _can_fall_through(statement.orelse)
        return True
    if isinstance(statement, ast.With):
        return _can_fall_through(statement.body)
    return True


def known_literal(forms):
    """The literal a comparison's Value is when each of its forms is known (a test of None against a value that
    never is, or always is, None), else None."""
    if forms and all(form == "known" for form, _ in forms):
        return literal(all(result for _, result in forms), types.boolean)
    return None
