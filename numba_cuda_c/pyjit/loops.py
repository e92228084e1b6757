"""For loops over more than range(): arrays, tuples, enumerate(), zip() and literal_unroll(), as numba
iterates them. Rules of the passes (passes.py).

Each is rewritten once into the forms the translator already has, and the rewrite is kept per loop node
(the translator walks the body several times; the same names every time keep the types settling):
- over an array or an enumerate/zip/range of them: `for k in range(n):` binding the target to the k-th
  items first (`x = a[k]`, a view for arrays of two or more dimensions, as numba's iteration);
- over a tuple (whose items may differ in type, arrays included) or literal_unroll(...): the body once
  per item, the target renamed in each copy so that it can take each item's type. A break in an
  unrolled body leaves through a flag (each copy is a `do { } while (0)`, which `continue` ends too).
"""

import ast
import copy

from numba_cuda_c import types
from numba_cuda_c.pyjit import sequences, ssa
from numba_cuda_c.pyjit.rules import statement_rule


def _call_of(node, translator):
    """The object a call node calls (None when it is not a call, or calls something not known now)."""
    if not isinstance(node, ast.Call):
        return None
    try:
        return translator.expr(node.func).obj
    except Exception:  # a method or an expression: not one of ours
        return None


def is_literal_unroll(obj):
    return (
        callable(obj)
        and getattr(obj, "__name__", None) == "literal_unroll"
        and "numba" in (getattr(obj, "__module__", None) or "")
    )


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node


def _target_names(target):
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _bind(target, value, at):
    """Assignments binding a loop target (a name or nested tuples of names) to `value`, item by item
    where both are tuples, so that `i, (x, y)` unpacks an (index, (a[k], b[k])) element."""
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return [s for t, v in zip(target.elts, value.elts) for s in _bind(t, v, at)]
    return [ast.copy_location(ast.Assign(targets=[target], value=value), at)]


def _located(node, at):
    return ast.fix_missing_locations(ast.copy_location(node, at))


@statement_rule(ast.For)
def stmt_For(walk, node):
    rewrite = walk.function.loop_rewrites.get(id(node))
    if rewrite is None:
        rewrite = walk.function.loop_rewrites[id(node)] = rewrite_loop(walk, node)
    kind, payload = rewrite
    if kind == "range":
        walk.range_loop(node)
    elif kind == "indexed":
        walk.block(payload)
    else:
        unrolled_loop(walk, node, payload)


# -- the rewrite ------------------------------------------------------------------------------
def rewrite_loop(walk, node):
    it = node.iter
    over_range_object = sequences.range_loop_of(walk, node)  # for i in r, r = range(...) (sequences.py)
    if over_range_object is not None:
        return ("indexed", [_located(s, node) for s in over_range_object])
    target = _call_of(it, walk)
    if target is range and walk.function.globals.get("range", range) is range:
        return ("range", None)
    if is_literal_unroll(target):
        if len(it.args) != 1 or it.keywords:
            walk.fail(node, "literal_unroll() takes one tuple")
        return ("unrolled", unrolled_bodies(walk, node, it.args[0]))
    if (
        target not in (enumerate, zip)
        and not sequences.iterates_sequence(walk, it)
        and iterable_value(walk, it, node).items is not None
    ):
        return ("unrolled", unrolled_bodies(walk, node, it))
    prelude, held = [], {}
    length = length_of(walk, it, node, prelude, held)
    counter = walk.module.unique("k")
    element = element_of(walk, it, ast.Name(id=counter, ctx=ast.Load()), node, held)
    body = _bind(node.target, element, node) + list(node.body)
    loop = ast.For(
        target=ast.Name(id=counter, ctx=ast.Store()),
        iter=ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[length], keywords=[]),
        body=body,
        orelse=node.orelse,
        type_comment=None,
    )
    return ("indexed", [_located(s, node) for s in prelude + [loop]])


def iterable_value(walk, expr, node):
    value = walk.expr(expr)
    if value.items is None and not isinstance(value.type, types.Array):
        walk.fail(node, "for loops iterate over range(), arrays, tuples, enumerate(), zip() and literal_unroll()")
    return value


def length_of(walk, it, node, prelude, held):
    """An expression for the number of items; an iterable that is an expression (not a name) is
    evaluated once, into a variable assigned before the loop (`held`, by node, for element_of)."""
    length = sequences.sequence_length(
        walk, it, node, prelude, held
    )  # np.ndindex, a.flat, range objects (sequences.py)
    if length is not None:
        return length
    target = _call_of(it, walk)
    if target is enumerate:
        if not 1 <= len(it.args) <= 2:
            walk.fail(node, "enumerate() takes an iterable and a start")
        return length_of(walk, it.args[0], node, prelude, held)
    if target is zip:
        if not it.args:
            walk.fail(node, "zip() needs an iterable")
        lengths = [length_of(walk, a, node, prelude, held) for a in it.args]
        return lengths[0] if len(lengths) == 1 else ast.Call(ast.Name(id="min", ctx=ast.Load()), lengths, [])
    if target is range:
        start, stop, step = range_parts(walk, it, node)
        if step.value > 0:  # max(0, (stop - start + step - 1) // step)
            span = ast.BinOp(ast.BinOp(stop, ast.Sub(), start), ast.Add(), ast.Constant(step.value - 1))
        else:
            span = ast.BinOp(ast.BinOp(start, ast.Sub(), stop), ast.Add(), ast.Constant(-step.value - 1))
        count = ast.BinOp(span, ast.FloorDiv(), ast.Constant(abs(step.value)))
        return ast.Call(ast.Name(id="max", ctx=ast.Load()), [ast.Constant(0), count], [])
    iterable_value(walk, it, node)  # an array or a tuple, else a clear error
    held[id(it)] = name = sequences.iterable_name(walk, it, prelude, "iter")
    return ast.Call(ast.Name(id="len", ctx=ast.Load()), [name], [])


def element_of(walk, it, k, node, held):
    element = sequences.sequence_element(walk, it, k, node, held)
    if element is not None:
        return element
    target = _call_of(it, walk)
    if target is enumerate:
        start = (
            it.args[1]
            if len(it.args) > 1
            else next((kw.value for kw in it.keywords if kw.arg == "start"), ast.Constant(0))
        )
        index = k if isinstance(start, ast.Constant) and start.value == 0 else ast.BinOp(k, ast.Add(), start)
        return ast.Tuple([index, element_of(walk, it.args[0], k, node, held)], ast.Load())
    if target is zip:
        return ast.Tuple([element_of(walk, a, k, node, held) for a in it.args], ast.Load())
    if target is range:
        start, _, step = range_parts(walk, it, node)
        return ast.BinOp(start, ast.Add(), ast.BinOp(k, ast.Mult(), ast.Constant(step.value)))
    return ast.Subscript(value=held[id(it)], slice=k, ctx=ast.Load())


def range_parts(walk, it, node):
    args = list(it.args)
    if not 1 <= len(args) <= 3 or it.keywords:
        walk.fail(node, "range() takes one to three integers")
    if len(args) == 1:
        args = [ast.Constant(0)] + args
    step = args[2] if len(args) == 3 else ast.Constant(1)
    if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant):
        step = ast.Constant(-step.operand.value)
    if not (isinstance(step, ast.Constant) and isinstance(step.value, int) and step.value != 0):
        walk.fail(node, "a range() inside enumerate() or zip() needs a literal step")
    return args[0], args[1], step


def unrolled_bodies(walk, node, tuple_expr):
    """One body per item of the tuple, its target renamed: [(bindings + body)]."""
    value = iterable_value(walk, tuple_expr, node)
    if value.items is None:
        walk.fail(node, "literal_unroll() takes a tuple")
    names = _target_names(node.target)
    bodies = []
    for k in range(len(value.items)):
        # named after the loop's place and the item: another loop may bind the same name to other types
        renamed = {n: "%s_u%d_%d_%d" % (n, node.lineno, node.col_offset, k) for n in names}
        item = ast.Subscript(value=copy.deepcopy(tuple_expr), slice=ast.Constant(k), ctx=ast.Load())
        if isinstance(tuple_expr, ast.Tuple):
            item = copy.deepcopy(tuple_expr.elts[k])
        statements = _bind(copy.deepcopy(node.target), item, node) + copy.deepcopy(node.body)
        bodies.append([_located(_Rename(renamed).visit(s), node) for s in statements])
    return bodies


# -- emitting -----------------------------------------------------------------------------------
def unrolled_loop(walk, node, bodies):
    flag = walk.module.unique("broke")
    walk.emit("{")
    walk.depth += 1
    walk.emit("bool %s = false;" % flag)
    walk.break_flags.append(flag)
    # the numbers the bodies and the else clause store: one phi each (ssa.py)
    phis = ssa.unrolled_begin(walk, node, bodies + [node.orelse])
    walk.loop_depth += 1
    for k, body in enumerate(bodies):
        walk.emit("do {" if k == 0 else "if (!%s) do {" % flag)
        walk.nested(body)
        walk.depth += 1
        ssa.unrolled_body_end(walk, phis, body, node)
        walk.depth -= 1
        walk.emit("} while (0);")
    walk.loop_depth -= 1
    ssa.unrolled_end(walk)
    walk.break_flags.pop()
    if node.orelse:
        walk.emit("if (!%s) {" % flag)
        walk.nested(node.orelse)
        walk.depth += 1
        ssa.unrolled_else_end(walk, phis, node)  # where no break skipped it: its values meet the breaks'
        walk.depth -= 1
        walk.emit("}")
    walk.depth -= 1
    walk.emit("}")
