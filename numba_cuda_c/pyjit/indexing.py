"""Indexing in kernels: array elements (through the strides, negative indices wrapped as numba
does), views made by slicing (a[1:], a[:, j]), and tuple items (by a constant, or by a variable for
tuples of one type). Rules of the passes (passes.py), which give expr(), fail() and emit().
"""

import ast
import enum

from numba_cuda_c import types
from numba_cuda_c.pyjit import attributes, exceptions, sequences, strings, typing
from numba_cuda_c.pyjit.rules import c_rule, typing_rule
from numba_cuda_c.pyjit.values import FlatIter, Value, c_array_type, cast, element_ref, typed, wrapped_index


class Indexing:
    def indices(self, node):
        """The subscript's entries: translated Values, or ast.Slice nodes."""
        if isinstance(node.slice, ast.Tuple):
            entries = node.slice.elts
        elif isinstance(node.slice, ast.Slice):
            return [node.slice]
        else:
            value = self.expr(node.slice)
            if value.items is not None:  # a[cuda.grid(2)]
                return list(value.items)
            return [value]
        return [e if isinstance(e, ast.Slice) else self.expr(e) for e in entries]

    def element(self, node, base=None, indices=None):
        """A reference (an lvalue) to one element, and its type."""
        if base is None:
            base = self.expr(node.value)
        if isinstance(base.obj, FlatIter):  # a.flat[k] = x, a.flat[k] (sequences.py)
            return sequences.flat_ref(self, base, node)
        if isinstance(base.type, types.CPointer):
            indices = self.indices(node) if indices is None else indices
            index = indices[0] if len(indices) == 1 else None
            if index is None or isinstance(index, ast.Slice) or not typing.is_int(index.type):
                self.fail(node, "a pointer is indexed by one integer")
            return "(%s)[%s]" % (base.code, cast(index, types.int64)), base.type.dtype
        if not isinstance(base.type, types.Array):
            self.fail(node, "only arrays can be indexed")
        if indices is None:
            indices = self.indices(node)
        if len(indices) != base.type.ndim or any(isinstance(i, ast.Slice) for i in indices):
            self.fail(
                node,
                "%d-dimensional array: assign to one element, with %d integer indices"
                % (base.type.ndim, base.type.ndim),
            )
        codes = [index_code(self, base, axis, i, node) for axis, i in enumerate(indices)]
        return element_ref(base, codes), base.type.dtype

    def assign_into_array(self, target, value, node):
        """target[...] = value: an array of the target's dimensions (size-1 dimensions broadcast) or a
        number, converted to the target's dtype element by element (numba's setitem of a view)."""
        dtype = target.type.dtype
        check_assign_into_array(self, target.type, value, node)
        if isinstance(value.type, types.Array):
            source, element = value.code, value.type.dtype
        else:
            source, element = "ncc_scalar_input(%s)" % value.code, value.type
        body = "return %s;" % cast(Value("e0", element), dtype)
        self.emit("ncc_map(%s, [=](%s e0) { %s }, %s);" % (target.code, element.ctype, body, source))

    def assign_record(self, address, record_type, value, node):
        """a[i] = r, r.inner = s: the record's bytes, as numba copies a record."""
        if value.type != record_type:
            self.fail(node, "a record of %s is assigned a %s" % (record_type, value.type))
        self.emit("memcpy(%s, %s, %d);" % (address, value.code, record_type.size))

    def field(self, record, name, node):
        t = record.type
        self.field_type(t, name, node)  # refuses a field the record does not have
        field_type, offset = t.fields[name]
        return field_type, "(%s + %d)" % (record.code, offset), t.aligned(name)

    def field_type(self, record_type, name, node):
        """The type of a record's field as read (field_value): a nested record, a view of a nested array, a number."""
        if name not in record_type.fields:
            self.fail(node, "the record has no field %r (it has %s)" % (name, ", ".join(record_type.fields)))
        t = record_type.fields[name][0]
        return t.array if isinstance(t, types.NestedArray) else t

    def field_value(self, record, name, node):
        """A field's value: read in place (an lvalue where the field is aligned); a nested record is a
        reference into this one, a nested array a C-order view of its elements."""
        field_type, address, aligned = self.field(record, name, node)
        if isinstance(field_type, (types.Record, types.CharSeq)):
            return Value(address, field_type)
        if isinstance(field_type, types.NestedArray):
            t, strides, step = field_type.array, [], field_type.dtype.bits // 8
            for n in reversed(field_type.shape):
                strides.insert(0, step)
                step *= n
            code = "(%s{(%s *)%s, {%s}, {%s}})" % (
                c_array_type(t),
                field_type.dtype.element_ctype,
                address,
                ", ".join("%dLL" % n for n in field_type.shape),
                ", ".join("%dLL" % s for s in strides),
            )
            return Value(code, t)
        if aligned:
            return Value("(*(%s *)%s)" % (field_type.ctype, address), field_type)
        return Value("ncc_load_bytes<%s>(%s)" % (field_type.ctype, address), field_type)

    def store_field(self, record, name, value, node):
        field_type, address, aligned = self.field(record, name, node)
        if isinstance(field_type, types.Record):
            self.assign_record(address, field_type, value, node)
            return
        if isinstance(field_type, types.CharSeq):  # r["name"] = "ABC" (strings.py)
            strings.assign_string(self, address, field_type, value, node)
            return
        if isinstance(field_type, types.NestedArray):  # r.j = b: element by element, broadcast as NumPy
            self.assign_into_array(self.field_value(record, name, node), value, node)
            return
        code = cast(value, field_type)
        if aligned:
            self.emit("(*(%s *)%s) = %s;" % (field_type.ctype, address, code))
        else:
            self.emit("ncc_store_bytes<%s>(%s, %s);" % (field_type.ctype, address, code))

    def field_target(self, target):
        """(record Value, field name) where an assignment's target is r.x or r["x"]; else None."""
        if isinstance(target, ast.Attribute):
            record, name = self.expr(target.value), target.attr
        elif isinstance(target, ast.Subscript) and isinstance(target.slice, (ast.Constant, ast.UnaryOp)):
            record = self.expr(target.value)
            if not isinstance(record.type, types.Record):
                return None  # a[0] = x of an array
            name = field_name(self, target, record.type)
        else:
            return None
        if not isinstance(record.type, types.Record):
            self.fail(target, "only a record's fields can be assigned as attributes")
        return record, name

    def view(self, base, indices, node):
        """Slicing inside a kernel (a[1:], a[i], a[:, j]): a new Array struct over the same data."""
        t = base.type
        if len(indices) > t.ndim:
            self.fail(node, "too many indices")
        temp = self.module.unique("view")
        shape, strides, offset = [], [], []
        for axis in range(t.ndim):
            extent, stride = "%s.shape[%d]" % (base.code, axis), "%s.strides[%d]" % (base.code, axis)
            index = indices[axis] if axis < len(indices) else ast.Slice(None, None, None)
            if not isinstance(index, ast.Slice):
                offset.append("(%s) * %s" % (index_code(self, base, axis, index, node), stride))
                continue
            parts = [
                None if p is None else cast(self.expr(p), types.int64)
                for p in (index.lower, index.upper, index.step)
            ]
            step = parts[2] or "1LL"
            start = parts[0] or ("0LL" if parts[2] is None else "(%s > 0 ? 0LL : %s - 1)" % (step, extent))
            stop = parts[1] or (
                "%s" % extent if parts[2] is None else "(%s > 0 ? %s : -1LL - %s)" % (step, extent, extent)
            )
            s = self.module.unique("s")
            for line in (
                "long long {s}_step = {step}, {s}_len = {extent};",
                "long long {s}_start = {start}, {s}_stop = {stop};",
                "if ({s}_start < 0) {s}_start += {s}_len;",
                "if ({s}_stop < 0) {s}_stop += {s}_len;",
                "if ({s}_step > 0) {{ {s}_start = min(max({s}_start, 0LL), {s}_len); "
                "{s}_stop = min(max({s}_stop, 0LL), {s}_len); }}",
                "else {{ {s}_start = min(max({s}_start, -1LL), {s}_len - 1); "
                "{s}_stop = min(max({s}_stop, -1LL), {s}_len - 1); }}",
            ):
                self.emit(line.format(s=s, step=step, extent=extent, start=start, stop=stop))
            length = (
                "({s}_step > 0 ? ({s}_stop > {s}_start ? ({s}_stop - {s}_start + {s}_step - 1) / {s}_step : 0LL)"
                " : ({s}_start > {s}_stop ? ({s}_start - {s}_stop - {s}_step - 1) / (-{s}_step) : 0LL))"
            ).format(s=s)
            shape.append(length)
            strides.append("%s * %s_step" % (stride, s))
            offset.append("%s_start * %s" % (s, stride))
        view_type = types.Array(t.dtype, len(shape), "A")
        self.emit(
            "%s %s = {(%s *)((char *)%s.data + %s), {%s}, {%s}};"
            % (
                c_array_type(view_type),
                temp,
                t.dtype.element_ctype,
                base.code,
                " + ".join(offset) or "0",
                ", ".join(shape) or "0",
                ", ".join(strides) or "0",
            )
        )
        return Value(temp, view_type)


def check_assign_into_array(walk, t, value, node):
    """An array of type t can be assigned this value as a whole: an array of its dimensions or a number."""
    if not isinstance(t.dtype, types.Scalar):
        walk.fail(node, "only arrays of numbers can be assigned to as a whole")
    if isinstance(value.type, types.Array):
        if value.type.ndim != t.ndim:
            walk.fail(
                node, "cannot assign a %d-dimensional array to a %d-dimensional one" % (value.type.ndim, t.ndim)
            )
    elif not isinstance(value.type, types.Scalar):
        walk.fail(node, "an array is assigned an array or a number")


@typing_rule(ast.Subscript)
def type_Subscript(walk, node):
    """What base[index] is (how: the case its C rule writes) and its type."""
    base = walk.expr(node.value)
    if isinstance(base.obj, enum.EnumMeta) and isinstance(node.slice, ast.Constant):  # Color["red"]
        try:
            return attributes.global_annotation(walk, base.obj[node.slice.value], node)
        except KeyError:
            walk.fail(node, "%s has no member %r" % (base.obj.__name__, node.slice.value))
    if isinstance(base.obj, FlatIter):  # a.flat[k] (sequences.py)
        return sequences.flat_element_type(walk, base, node)
    if base.items is not None:  # a tuple (a.shape[0], cuda.grid(2)[1], t[i], t[1:])
        walk.refuse_range_as_tuple(base, node, "indexed")
        if isinstance(node.slice, ast.Slice):
            return sequences.tuple_slice_type(walk, base, node)
        return tuple_item_type(walk, base, walk.expr(node.slice), node)
    if isinstance(base.type, types.Record):  # r["x"]
        name = field_name(walk, node, base.type)
        return typed(walk.field_type(base.type, name, node), how=("field", name))
    if isinstance(base.type, types.CPointer):  # p[i]: raw, as numba's pointers
        indices = walk.indices(node)
        if len(indices) != 1 or isinstance(indices[0], ast.Slice) or not typing.is_int(indices[0].type):
            walk.fail(node, "a pointer is indexed by one integer")
        return typed(base.type.dtype, how=("element", None))
    if not isinstance(base.type, types.Array):
        walk.fail(node, "only arrays and tuples can be indexed")
    indices = walk.indices(node)
    ndim = base.type.ndim
    if len(indices) > ndim:
        walk.fail(node, "too many indices")
    for axis, index in enumerate(indices):
        if isinstance(index, ast.Slice):
            for part in (index.lower, index.upper, index.step):
                if part is not None and not isinstance(walk.expr(part).type, types.Scalar):
                    walk.fail(node, "slices take integers")
        else:
            check_index(walk, index, node)
    if any(isinstance(i, ast.Slice) for i in indices) or len(indices) < ndim:
        kept = ndim - sum(1 for i in indices if not isinstance(i, ast.Slice))
        return typed(types.Array(base.type.dtype, kept, "A"), how=("view", None))
    return typed(base.type.dtype, how=("element", None))


@c_rule(ast.Subscript)
def c_Subscript(walk, node, annotation):
    kind, what = annotation.how or (None, None)
    if kind is None:  # a compile-time result
        return annotation
    if kind == "global":
        return walk.python_value(what, node)
    base = walk.expr(node.value)
    if kind == "item":
        return base.items[what]
    if kind == "tuple_slice":
        return sequences.tuple_slice(walk, base, what)
    if kind == "select":
        return tuple_item(walk, base, walk.expr(node.slice), node)
    if kind == "field":
        return walk.field_value(base, what, node)
    indices = walk.indices(node)
    if kind == "view":
        return walk.view(base, indices, node)
    ref, dtype = walk.element(node, base, indices)
    return Value(ref, dtype)


def tuple_item_type(walk, base, index, node):
    """A constant index picks an item; a variable one selects at run time, from a tuple whose items share a
    type (as numba's UniTuple)."""
    n = len(base.items)
    if isinstance(index.const, int) and not isinstance(index.const, bool):
        if not -n <= index.const < n:
            walk.fail(node, "tuple index %d out of range for %d items" % (index.const, n))
        item = base.items[index.const]
        return item.annotated(("item", index.const))
    if not typing.is_int(index.type):
        walk.fail(node, "tuples are indexed by integers")
    item_type = base.items[0].type
    if not all(item.type == item_type and isinstance(item_type, types.Scalar) for item in base.items):
        walk.fail(node, "a tuple of mixed types is indexed by constants only")
    return typed(item_type, how=("select", None))


def tuple_item(walk, base, index, node):
    """t[i] of a variable i (tuple_item_type checked it): the item selected at run time."""
    n = len(base.items)
    k = walk.module.unique("k")
    walk.emit("long long %s = %s;" % (k, exceptions.checked_tuple_index(walk, cast(index, types.int64), n)))
    code = base.items[-1].code
    for position in range(n - 2, -1, -1):
        code = "(%s == %d ? %s : %s)" % (k, position, base.items[position].code, code)
    return Value(code, base.items[0].type)


def check_index(walk, index, node):
    """An array index is an integer (a bool, a 0-d array of an integer)."""
    t = index.type.dtype if isinstance(index.type, types.Array) and index.type.ndim == 0 else index.type
    if not (typing.is_int(t) or t == types.boolean):
        walk.fail(node, "array indices must be integers, not %s" % t)


def index_code(walk, base, axis, index, node):
    check_index(walk, index, node)
    if isinstance(index.type, types.Array) and index.type.ndim == 0:  # a 0-d array of an integer: its value
        index = Value("(*%s.data)" % index.code, index.type.dtype)
    return wrapped_index(index, base, axis)


# -- records --------------------------------------------------------------------------------
def field_name(walk, node, record_type):
    """The field r["x"] names; r[k], a constant integer, names the k-th field (numba's)."""
    key = node.slice.value if isinstance(node.slice, ast.Constant) else walk.expr(node.slice).const  # r[-1]
    if (
        isinstance(key, int)
        and not isinstance(key, bool)
        and -len(record_type.fields) <= key < len(record_type.fields)
    ):
        return list(record_type.fields)[key]
    if not isinstance(key, str):
        walk.fail(node, "a record's fields are read as r.name, r['name'] or r[k] with a constant k")
    return key
