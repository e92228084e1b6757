"""Attributes in kernels (rules of the passes, passes.py): an array's shape, strides, size, ndim, dtype,
real/imag, a recarray's fields, .T, .ctypes.data and its methods; a record's fields; a vector's x/y/z/w; a
namedtuple's fields; a number's real, imag and methods; cuda.threadIdx.x and the other names under cuda; math and
cmath constants; attributes of the Python objects a kernel reads (modules, classes).

The typing rule (type_Attribute) resolves which of these the attribute is and its type; its `how` names the case,
which the C rule (c_Attribute) writes from the base's C."""

import ast
import cmath
import enum
import math

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib import arrays as array_lib
from numba_cuda_c.pyjit.lib.pymath import MATH_CONSTANTS
from numba_cuda_c.pyjit.rules import c_rule, typing_rule
from numba_cuda_c.pyjit.values import BoundMethod, FlatIter, Namespace, Value, as_annotation, literal, typed

INDEX_NAMES = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


class ArrayCtypes:
    """a.ctypes in a kernel: its .data is the array's address (numba's)."""

    def __init__(self, array):
        self.array = array


def global_annotation(walk, obj, node):
    """A Python object read by a kernel: a compile-time object as itself; a value that has C (a number, a
    captured array) typed here and written by python_value in the C rule."""
    return as_annotation(walk.python_value(obj, node), ("global", obj))


@typing_rule(ast.Attribute)
def type_Attribute(walk, node):
    """What base.attr is (how: the case its C rule writes) and its type; a compile-time result as itself."""
    base = walk.expr(node.value)
    attr = node.attr
    t = base.type
    if isinstance(t, types.Opaque):  # g.sync: a library method, called next
        return Value(obj=BoundMethod(attr, base), how=("method", attr))
    if isinstance(base.obj, ArrayCtypes):
        if attr != "data":
            walk.fail(node, "a.ctypes has only .data in kernels")
        return typed(types.uint64, how=("ctypes_data", None))
    if isinstance(t, types.NamedTuple) and base.items is not None and attr in t.fields:  # p.x of a namedtuple
        item = base.items[t.fields.index(attr)]
        return item.annotated(("item", t.fields.index(attr)))
    if isinstance(t, types.VectorType):  # v.x, v.y, v.z, v.w
        if attr not in t.attr_names:
            walk.fail(node, "%s has the elements %s" % (t, ", ".join(t.attr_names)))
        return typed(t.base, how=("member", attr))
    if isinstance(t, types.Array):
        return array_attribute_type(walk, base, attr, node)
    if isinstance(base.obj, Namespace):
        return namespace_attribute(walk, base.obj.path, attr, node)
    if base.obj in (math, cmath) and attr in MATH_CONSTANTS:
        return literal(MATH_CONSTANTS[attr], types.float64)
    if base.obj is cmath and attr in ("infj", "nanj"):
        return literal(getattr(cmath, attr), types.complex128)
    if isinstance(base.obj, enum.Enum) and attr == "value":  # Color.RED.value: the member's value
        return global_annotation(walk, base.obj.value, node)
    if isinstance(base.obj, types.ElementType) and base.code is None:  # a.dtype.type(x), a.dtype.itemsize
        if attr == "type":
            return Value(obj=base.obj)
        if attr == "itemsize":
            return literal(_itemsize(base.obj), types.int64)
    if isinstance(t, types.Scalar):
        return scalar_attribute_type(walk, base, attr, node)
    if isinstance(t, types.Record):
        return typed(walk.field_type(t, attr, node), how=("field", attr))
    if base.obj is not None and hasattr(base.obj, attr):
        return global_annotation(walk, getattr(base.obj, attr), node)
    walk.fail(node, "unsupported attribute %r" % attr)


@c_rule(ast.Attribute)
def c_Attribute(walk, node, annotation):
    kind, what = annotation.how or (None, None)
    if kind is None:  # a compile-time result: a literal, a type, a namespace
        return annotation
    if kind == "global":
        return walk.python_value(what, node)
    base = walk.expr(node.value)
    if kind == "method":
        return Value(obj=BoundMethod(what, base))
    if kind == "item":
        return base.items[what]
    if kind == "ctypes_data":
        return Value("((unsigned long long)%s.data)" % base.obj.array.code, types.uint64)
    if kind == "ctypes":
        return Value(obj=ArrayCtypes(base))
    if kind == "member":
        return Value("(%s).%s" % (base.code, what), annotation.type)
    if kind == "field":
        return walk.field_value(base, what, node)
    if kind == "axes":  # a.shape, a.strides
        return Value(
            type=annotation.type,
            items=[Value("%s.%s[%d]" % (base.code, what, d), types.int64) for d in range(len(annotation.items))],
        )
    if kind == "size":  # what: the array's ndim
        return Value(
            "(" + " * ".join(["%s.shape[%d]" % (base.code, d) for d in range(what)] or ["1"]) + ")", types.int64
        )
    if kind == "nbytes":
        ndim, itemsize = what
        return Value(
            "(" + " * ".join(["%s.shape[%d]" % (base.code, d) for d in range(ndim)] + ["%dLL" % itemsize]) + ")",
            types.int64,
        )
    if kind == "flat":
        return Value(obj=FlatIter(base))
    if kind == "field_view":  # a view of a part or a field of each element: a.real, a.imag, x.value1
        element, offset = what
        return Value("ncc_field_view<%s>(%s, %dLL)" % (element, base.code, offset), annotation.type)
    if kind == "transpose":
        walk.module.require("array_views")
        return Value("ncc_transpose(%s)" % base.code, annotation.type)
    if kind == "real":
        return Value("(%s).re" % base.code, annotation.type) if typing.is_complex(base.type) else base
    if kind == "imag":  # of a complex number
        return Value("(%s).im" % base.code, annotation.type)
    raise AssertionError("attribute case %r" % kind)


def array_attribute_type(walk, base, attr, node):
    t = base.type
    if attr in ("shape", "strides"):
        return Value(
            type=types.Tuple([types.int64] * t.ndim), items=[typed(types.int64)] * t.ndim, how=("axes", attr)
        )
    if attr == "size":
        return typed(types.int64, how=("size", t.ndim))
    if attr == "ndim":
        return literal(t.ndim, types.int64)
    if attr == "itemsize":
        return literal(_itemsize(t.dtype), types.int64)
    if attr == "nbytes":  # what: (ndim, itemsize)
        return typed(types.int64, how=("nbytes", (t.ndim, _itemsize(t.dtype))))
    if attr == "flat":  # a.flat[k], for x in a.flat (sequences.py)
        return Value(obj=FlatIter(base), how=("flat", None))
    if attr == "dtype":  # a compile-time type: cuda.local.array(n, dtype=a.dtype), a.dtype.type(0)
        return Value(obj=t.dtype)
    if attr in ("real", "imag") and typing.is_complex(t.dtype):  # views of the parts, as NumPy's
        part = t.dtype.underlying_float
        offset = 0 if attr == "real" else part.bits // 8
        return typed(types.Array(part, t.ndim, "A"), how=("field_view", (part.ctype, offset)))
    if isinstance(t.dtype, types.Record) and attr in t.dtype.fields:  # a recarray's field: x.value1
        field, offset = t.dtype.fields[attr]
        if not isinstance(field, types.Scalar):
            walk.fail(node, "field %r holds a %s: index the array first (x[i].%s)" % (attr, field, attr))
        if not t.dtype.aligned(attr):
            walk.fail(node, "field %r of a packed record is not aligned: it cannot be viewed as an array" % attr)
        return typed(types.Array(field, t.ndim, "A"), how=("field_view", (field.element_ctype, offset)))
    if attr == "T":
        return typed(types.Array(t.dtype, t.ndim, "A"), how=("transpose", None))
    if attr == "ctypes":  # a.ctypes.data: the address of its first element
        return Value(obj=ArrayCtypes(None), how=("ctypes", None))
    if attr in array_lib.METHODS or attr in array_lib.VIEW_METHODS:  # a.sum(): called next
        return Value(obj=BoundMethod(attr, base), how=("method", attr))
    walk.fail(node, "arrays have no attribute %r in kernels" % attr)


def namespace_attribute(walk, path, attr, node):
    """cuda.threadIdx.x, cuda.warpsize, cuda.laneid, cuda.float32, or a deeper name (cuda.atomic.add)."""
    if len(path) == 2 and path[1] in INDEX_NAMES and attr in ("x", "y", "z"):
        return Value("((int)%s.%s)" % (path[1], attr), types.int32)
    if path == ("cuda",) and attr == "warpsize":
        return literal(32, types.int32)
    if path == ("cuda",) and attr == "laneid":
        return Value("((int)ncc_laneid())", types.int32)
    if path == ("cuda",):
        # cuda.float32, cuda.types.int64: the cuda module's type names are the types module's public ones
        found = types if attr == "types" else None if attr.startswith("_") else vars(types).get(attr)
        if isinstance(found, types.Type) or found is types:
            return global_annotation(walk, found, node)
    return Value(obj=Namespace(path).child(attr))


def scalar_attribute_type(walk, base, attr, node):
    """x.real and x.imag (of real numbers too, as in Python), and the methods z.conjugate, i.bit_count."""
    t = base.type
    if attr == "real":
        if typing.is_complex(t):
            return typed(t.underlying_float, how=("real", None))
        return base.annotated(("real", None))  # the number itself
    if attr == "imag":
        if typing.is_complex(t):
            return typed(t.underlying_float, how=("imag", None))
        return literal(0, typing.as_arith(t))
    if attr == "conjugate" or (attr == "bit_count" and typing.is_int(t)):
        return Value(obj=BoundMethod(attr, base), how=("method", attr))
    walk.fail(node, "numbers have no attribute %r in kernels" % attr)


def _itemsize(dtype):
    """The bytes of one element of an array of this dtype (a.itemsize)."""
    return dtype.size if isinstance(dtype, types.Record) else dtype.bits // 8
