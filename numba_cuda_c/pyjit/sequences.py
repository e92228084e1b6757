"""Sequences in kernels beyond arrays (rules of the passes, passes.py), as numba compiles them: tuples sliced by
constants (`t[1:]`) and concatenated (`t + (x,)`), range objects held in variables (`r = range(n)`, iterated, len(r),
r.start), an array's flat view (`for x in a.flat`, `a.flat[k]`), and np.ndindex(shape) (the index tuples of a shape,
in C order). The loops over them are rewritten into range() loops (loops.py asks range_loop_of, and
length_of/element_of here for ndindex and .flat)."""

import ast

import numpy as np

from numba_cuda_c import types
from numba_cuda_c.pyjit import lib, syntax, typing
from numba_cuda_c.pyjit.rules import call_c_rule, call_typing_rule
from numba_cuda_c.pyjit.values import FlatIter, Value, cast, literal, typed

lib.Requirement(
    "flat_index",
    r"""// --- a.flat[k]: the k-th element in C order (pyjit/sequences.py) ---------------------------------------
template <typename T, int N> __device__ __forceinline__ T *ncc_flat(const Array<T, N> &a, long long k) {
    char *p = (char *)a.data;
    for (int d = N - 1; d >= 0; --d) {
        long long n = a.shape[d];
        p += (k % n) * a.strides[d];
        k /= n;
    }
    return (T *)p;
}
""",
)


class Sequences:
    def tuple_concat_type(self, left, right, node):
        """t + u of two tuples: one tuple of t's items, then u's (numba's tuple concatenation)."""
        return self.tuple_of(list(left.items) + list(right.items), how=("tuple_concat", None))

    def tuple_of(self, items, how=None):
        const = tuple(i.const for i in items) if all(i.const is not None for i in items) else None
        return Value(type=types.Tuple([i.type for i in items]), items=items, const=const, how=how)

    def refuse_range_as_tuple(self, value, node, what):
        """A range object is not the tuple it is held in: indexing and unpacking it are refused, as numba does."""
        if isinstance(value.type, types.RangeType):
            self.fail(
                node,
                "range objects cannot be %s in kernels (iterate over them, or use len(), .start, .stop, .step)"
                % what,
            )


# -- tuples ------------------------------------------------------------------------------------------------
def tuple_slice_type(walk, base, node):
    """t[1:], t[::-1], t[a:b] of constants: the tuple of those items (numba's static slice of a tuple)."""
    bounds = []
    for part in (node.slice.lower, node.slice.upper, node.slice.step):
        value = walk.expr(part) if part is not None else None
        if value is not None and not (type(value.const) in (int, bool) and value.items is None):
            walk.fail(node, "a tuple is sliced by constants (t[1:], t[:n] with n known when compiling)")
        bounds.append(None if value is None else int(value.const))
    if bounds[2] == 0:
        walk.fail(node, "slice step cannot be zero")
    picked = list(range(len(base.items)))[slice(*bounds)]
    items = [base.items[k].annotated(("item", k)) for k in picked]
    return walk.tuple_of(items, how=("tuple_slice", picked))


def tuple_slice(walk, base, picked):
    return walk.tuple_of([base.items[k] for k in picked])


def range_loop_of(walk, node):
    """`for i in r` over a range object (not a range() call): the loop `for i in range(r.start, r.stop, r.step)`,
    r held in a variable first where it is an expression. None for any other loop."""
    it = node.iter
    if isinstance(it, ast.Call) or not isinstance(walk.expr(it).type, types.RangeType):
        return None
    prelude = []
    name = iterable_name(walk, it, prelude, "range")
    parts = [ast.Attribute(value=name, attr=a, ctx=ast.Load()) for a in ("start", "stop", "step")]
    call = ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=parts, keywords=[])
    loop = ast.For(target=node.target, iter=call, body=node.body, orelse=node.orelse, type_comment=None)
    return prelude + [loop]


# -- a.flat ------------------------------------------------------------------------------------------------
def flat_element_type(walk, base, node):
    """a.flat[k]: the k-th element in C order, k an integer."""
    index = walk.expr(node.slice)
    if index.items is not None or not (typing.is_int(index.type) or index.type == types.boolean):
        walk.fail(node, "a.flat is indexed by one integer in kernels")
    return typed(base.obj.array.type.dtype, how=("element", None))


def flat_ref(walk, base, node):
    """An lvalue of a.flat[k] (a record's address), and its type."""
    array = base.obj.array
    walk.module.require("flat_index")
    code = "ncc_flat(%s, %s)" % (array.code, cast(walk.expr(node.slice), types.int64))
    dtype = array.type.dtype
    if isinstance(dtype, types.Record):
        return "((unsigned char *)%s)" % code, dtype
    return "(*%s)" % code, dtype


def iterable_name(walk, it, prelude, stem):
    """A name that reads what a loop iterates: itself where it is a name, else a variable assigned it before the
    loop (in `prelude`), so that it is evaluated once."""
    if isinstance(it, ast.Name):
        return it
    name = ast.Name(id=walk.module.unique(stem), ctx=ast.Load())
    prelude.append(ast.Assign(targets=[ast.Name(id=name.id, ctx=ast.Store())], value=it))
    return name


def iterates_sequence(walk, it):
    """Whether a loop's iterable is np.ndindex(...) or a.flat (whose loops sequence_length/element write)."""
    return _is_ndindex(walk, it) or _is_flat(walk, it)


def sequence_length(walk, it, node, prelude, held):
    """len() of what a loop iterates, for np.ndindex(shape) and a.flat, as an expression (the shape held in
    a variable before the loop: `held`, by node); None for the other iterables (loops.py's)."""
    if _is_ndindex(walk, it):
        extents = ndindex_shape(walk, it, node)
        shape = it.args[0] if len(it.args) == 1 and walk.expr(it.args[0]).items is not None else None
        name = ast.Name(id=walk.module.unique("ndshape"), ctx=ast.Load())
        value = shape if shape is not None else ast.Tuple(elts=list(it.args), ctx=ast.Load())
        prelude.append(ast.Assign(targets=[ast.Name(id=name.id, ctx=ast.Store())], value=value))
        held[id(it)] = (name, len(extents))
        length = ast.Constant(1)
        for axis in range(len(extents)):
            length = ast.BinOp(length, ast.Mult(), _item(name, axis))
        return length
    if _is_flat(walk, it):
        return ast.Attribute(value=it.value, attr="size", ctx=ast.Load())
    if not isinstance(it, ast.Call) and isinstance(walk.expr(it).type, types.RangeType):  # enumerate(r)
        held[id(it)] = name = iterable_name(walk, it, prelude, "range")
        return ast.Call(ast.Name(id="len", ctx=ast.Load()), [name], [])
    return None


def sequence_element(walk, it, k, node, held):
    """The k-th item of np.ndindex(shape) (its index tuple, C order) or of a.flat; None for the others."""
    if _is_ndindex(walk, it):
        name, ndim = held[id(it)]
        items = []
        for axis in range(ndim):
            inner = ast.Constant(1)
            for later in range(axis + 1, ndim):
                inner = ast.BinOp(inner, ast.Mult(), _item(name, later))
            items.append(ast.BinOp(ast.BinOp(k, ast.FloorDiv(), inner), ast.Mod(), _item(name, axis)))
        return ast.Tuple(elts=items, ctx=ast.Load())
    if _is_flat(walk, it):
        return ast.Subscript(value=it, slice=k, ctx=ast.Load())
    if not isinstance(it, ast.Call) and isinstance(walk.expr(it).type, types.RangeType):  # r.start + k * r.step
        name = held[id(it)]
        step = ast.BinOp(k, ast.Mult(), ast.Attribute(value=name, attr="step", ctx=ast.Load()))
        return ast.BinOp(ast.Attribute(value=name, attr="start", ctx=ast.Load()), ast.Add(), step)
    return None


# -- range objects -------------------------------------------------------------------------------------------
@call_typing_rule("range")
def type_call_range(walk, node, func, what):
    """range(stop), range(start, stop[, step]) as a value (r = range(n)): its start, stop and step, of the
    integer type that holds them (a range() loop's own form is statements.py's range_loop)."""
    if node.keywords or not 1 <= len(node.args) <= 3:
        walk.fail(node, "range() takes one to three integers")
    args = [walk.expr(a) for a in node.args]
    for a in args:
        if not (typing.is_int(a.type) or a.type == types.boolean):
            walk.fail(node, "range() takes integers, not %s" % a.type)
    kind = types.uint64 if all(a.type.kind == "u" for a in args) else types.int64
    t = types.RangeType([kind] * 3)
    return Value(type=t, items=[typed(kind)] * 3, how=("range", None))


@call_c_rule("range")
def c_call_range(walk, node, annotation):
    kind = annotation.type.items[0]
    args = [walk.expr(a) for a in node.args]
    if len(args) == 1:
        args = [literal(0, kind)] + args
    start, stop, step = (args + [literal(1, kind)])[:3]
    if step.const == 0:
        walk.fail(node, "range() arg 3 must not be zero")
    items = [syntax.held(walk, Value(cast(v, kind), kind, const=v.const), node) for v in (start, stop, step)]
    return Value(type=annotation.type, items=items)


# -- loops over np.ndindex(shape) and a.flat ---------------------------------------------------------------
def ndindex_shape(walk, it, node):
    """The shape np.ndindex(...) iterates: one tuple of integers, or integers."""
    args = [walk.expr(a) for a in it.args]
    if it.keywords:
        walk.fail(node, "np.ndindex() takes a shape")
    extents = args[0].items if len(args) == 1 and args[0].items is not None else args
    if any(e.items is not None or not typing.is_int(typing.as_arith(e.type)) for e in extents):
        walk.fail(node, "np.ndindex() takes a shape: integers, or a tuple of them")
    return extents


def _item(name, axis):
    return ast.Subscript(value=name, slice=ast.Constant(axis), ctx=ast.Load())


def _is_ndindex(translator, it):
    if not isinstance(it, ast.Call):
        return False
    try:
        return translator.expr(it.func).obj is np.ndindex
    except Exception:  # not a name or attribute known now: not ndindex
        return False


def _is_flat(translator, it):
    return isinstance(it, ast.Attribute) and it.attr == "flat" and isinstance(translator.expr(it).obj, FlatIter)
