"""The calls the translator writes itself, each with a typing rule and a C rule registered for its kind (rules.py):
local and shared arrays, cuda.const.array_like, syncwarp, print, NumPy ufuncs, array views, carray/farray; and the C
rule every library entry's call goes through (library_call_code). Rules of the passes (passes.py), which give
expr(), fail() and emit(); the library entries themselves are in pyjit/lib.
"""

import ast

from numba_cuda_c import _cuda, types
from numba_cuda_c.np import numpy_support
from numba_cuda_c.pyjit import exceptions, indexing, syntax, typing
from numba_cuda_c.pyjit.lib import npufuncs
from numba_cuda_c.pyjit.rules import call_c_rule, call_typing_rule
from numba_cuda_c.pyjit.values import (
    Value,
    c_array_type,
    cast,
    dtype_of,
    literal,
    typed,
)


class Intrinsics:
    def keywords_allowed(self, node, target):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("array", "syncwarp"):
            return True
        if target in (numpy_support.carray, numpy_support.farray):  # carray(ptr, shape, dtype=...)
            return all(k.arg == "dtype" for k in node.keywords)
        if hasattr(target, "__ncc_device_function__") or type(target).__name__ == "DeviceFunction":
            return True  # bound as Python binds them (translate.py's bind_call)
        if type(target).__name__ == "function":  # perhaps implemented with numba's @overload: bound the same way
            return True
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        return ufunc_supported(self, name) and all(k.arg == "out" for k in node.keywords)  # np.sin(x, out=r)

    def library_call_code(self, entry, args, result, receiver=None):
        """A library function's C rule, for arguments its typing rule gave `result` for."""
        for name in entry.requires:
            self.module.require(name)
        operands = ([receiver] if receiver is not None else []) + args
        codes = [a.code for a in operands]
        if not entry.statements:
            code = entry.emit(codes, operands, result)
        else:
            code = entry.emit(codes, operands, result, self)
            if isinstance(result, types.Tuple):
                return Value(type=result, items=[Value(c, t) for c, t in zip(code, result.items)])
        value = Value(code, result)
        value.nonnegative = entry.sign_clear is not None and entry.sign_clear(operands)
        return value

    def cuda_target(self, path, node):
        """The kind of a cuda.* call that is not a library entry: what the translator writes itself (it reads its
        arguments' source: a constant shape, a global array, a keyword)."""
        name = path[1:]
        if name == ("syncwarp",):
            return "syncwarp", None
        if name in (("shared", "array"), ("local", "array")):
            return "new_array", name[0]
        if name == ("const", "array_like"):
            return "const_array", None
        if name and name[0] == "atomic":  # the operations are library entries (pyjit/lib/atomics.py)
            self.fail(node, "cuda.atomic.%s is not supported" % ".".join(name[1:]))
        self.fail(node, "cuda.%s is not supported in kernels" % ".".join(name))


def constant_array_of(walk, source, node, what):
    """A NumPy array's values as they are now, in the device's constant memory (cuda.const.array_like,
    and a global NumPy array a kernel reads, which numba captures as a constant)."""
    import numpy as np

    scalar = dtype_of(source.dtype)
    values = np.ascontiguousarray(source).ravel()
    if values.nbytes > 60 * 1024:
        walk.fail(node, "%s: %d bytes do not fit in constant memory (64 KiB)" % (what, values.nbytes))
    key = ("const", id(source), source.dtype.str, source.shape, values.tobytes())
    name = walk.module.constants.get(key)
    if name is None:
        name = walk.module.constants[key] = walk.module.unique("ncc_const")
        ctype = scalar.ctype
        if isinstance(scalar, types.Record):  # records: their bytes
            ctype, values = "__align__(16) unsigned char", values.view(np.uint8)
            items = ", ".join("%du" % v for v in values) or "0"
        elif values.dtype.kind in "fc":  # by their bits: exact, NaN too (__half has no constant initialiser)
            unit = values.dtype.itemsize // (2 if values.dtype.kind == "c" else 1)
            ctype, suffix = {
                2: ("unsigned short", "u"),
                4: ("unsigned int", "u"),
                8: ("unsigned long long", "ull"),
            }[unit]
            values = values.view("u%d" % unit)
            items = ", ".join("%d%s" % (v, suffix) for v in values) or "0"
        else:
            items = ", ".join(literal(v.item(), scalar).code for v in values) or "{}"
        walk.module.pieces.append("__constant__ %s %s[%d] = {%s};\n" % (ctype, name, max(values.size, 1), items))
    strides, step = [], source.dtype.itemsize
    for n in reversed(source.shape):
        strides.insert(0, step)
        step *= max(n, 1)
    t = types.Array(scalar, source.ndim, "C")
    temp = walk.module.unique("const")
    walk.emit(
        "%s %s = {(%s *)%s, {%s}, {%s}};"
        % (
            c_array_type(t),
            temp,
            scalar.element_ctype,
            name,
            ", ".join("%dLL" % n for n in source.shape) or "0",
            ", ".join("%dLL" % s for s in strides) or "0",
        )
    )
    return Value(temp, t)


def captured_device_array(walk, source, node):
    """A global device array (or CUDA-array-interface object) a kernel reads: captured by pointer, as
    numba does (its later contents are seen; it must outlive the kernel's use of it). The
    translation says so (CAPTURES_DEVICE_MEMORY), so that no disk cache hands the pointer to
    another process."""
    try:
        array = source if isinstance(source, _cuda.DeviceNDArray) else _cuda.as_cuda_array(source)
    except Exception as exc:
        walk.fail(node, "a global %s cannot be read in a kernel: %s" % (type(source).__name__, exc))
    scalar = dtype_of(array.dtype)
    t = types.Array(scalar, array.ndim, "A")
    pointer = array.device_ctypes_pointer.value or 0
    if all(a.device_ctypes_pointer.value != pointer for a in walk.module.captured):  # once, for all passes
        walk.module.captured.append(array)
    temp = walk.module.unique("captured")
    walk.emit(
        "%s %s = {(%s *)0x%xULL, {%s}, {%s}};"
        % (
            c_array_type(t),
            temp,
            scalar.ctype,
            pointer,
            ", ".join("%dLL" % n for n in array.shape) or "0",
            ", ".join("%dLL" % s for s in array.strides) or "0",
        )
    )
    return Value(temp, t)


@call_typing_rule("print")
def type_call_print(walk, node, func, what):
    """print(...) as numba-cuda's: string constants, integers and floats (printf, spaced); no value."""
    if node.keywords:
        walk.fail(node, "print() in kernels takes no keyword arguments")
    for argument in node.args:
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            if not typing.is_real(walk.expr(argument).type):
                walk.fail(node, "print() in kernels takes strings, integers and floats")
    return typed(None, how=("print", None))


@call_c_rule("print")
def c_call_print(walk, node, annotation):
    formats, values = [], []
    for argument in node.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            formats.append(argument.value.replace("%", "%%"))
            continue
        value = walk.expr(argument)
        if typing.is_float(value.type):
            formats.append("%f")
            values.append(cast(value, types.float64))
        else:
            formats.append("%llu" if value.type.kind == "u" else "%lld")
            values.append(cast(value, types.uint64 if value.type.kind == "u" else types.int64))
    text = " ".join(formats).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return Value("printf(%s)" % ", ".join([walk.module.string_constant(text + "\\n")] + values), None)


def constant_shape(walk, node):
    """A constant int or tuple of ints as a shape tuple; None for anything else (a list too, as numba)."""
    if isinstance(node, ast.List):
        return None
    shape = walk.expr(node).const
    if isinstance(shape, int):
        shape = (shape,)
    if not (isinstance(shape, tuple) and all(isinstance(n, int) and n >= 0 for n in shape)):
        return None
    return shape


def argument_text(walk, node):
    """A call's argument as numba's typing error writes it: float32, array(float32, 1d, A),
    Tuple(Literal[int](1), int32), list(int64)<iv=[5, 6]>, class(float32)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [walk.expr(item) for item in node.elts]
        texts = [
            "Literal[int](%d)" % v.const if isinstance(v.const, int) else typing.numba_text(v.type) for v in items
        ]
        if isinstance(node, ast.List):
            consts = [v.const for v in items]
            known = "<iv=%s>" % consts if all(isinstance(c, int) for c in consts) else ""
            return "list(%s)%s" % (typing.numba_text(items[0].type) if items else "undefined", known)
        return "Tuple(%s)" % ", ".join(texts)
    value = walk.expr(node)
    if value.obj is not None:
        try:
            return "class(%s)" % dtype_of(value.obj)
        except TypeError:
            pass
    return typing.numba_text(value.type)


def no_array_implementation(walk, node, space):
    """numba's TypingError for cuda.<space>.array(...) with arguments none of its implementations takes."""
    arguments = [argument_text(walk, a) for a in node.args]
    arguments += ["%s=%s" % (k.arg, argument_text(walk, k.value)) for k in node.keywords]
    walk.fail(
        node,
        "No implementation of function Function(<function %s.array>) found for signature:\n \n >>> array(%s)\n \n"
        "the shape of a %s array is a constant int or a tuple of constant ints"
        % (space, ", ".join(arguments), space),
    )


@call_typing_rule("new_array")
def type_call_new_array(walk, node, func, space):
    """cuda.shared.array / cuda.local.array's typing rule: a C-order array of a constant shape and a dtype; `how`
    holds what its C rule needs (space, shape, alignment)."""
    args = list(node.args)
    keywords = {k.arg: k.value for k in node.keywords}
    shape_node = args[0] if args else keywords.get("shape")
    dtype_node = args[1] if len(args) > 1 else keywords.get("dtype")
    if shape_node is None or dtype_node is None:
        walk.fail(node, "%s.array(shape, dtype) needs both" % space)
    shape = constant_shape(walk, shape_node)
    if shape is None:
        no_array_implementation(walk, node, space)
    alignment = array_alignment(walk, keywords.get("alignment"), node)
    dtype = walk.expr(dtype_node)
    scalar = dtype_of(dtype.obj if dtype.obj is not None else dtype.type)
    if not isinstance(scalar, (types.Scalar, types.Record)):
        walk.fail(node, "%s arrays hold numbers or records, not %s" % (space, scalar))
    return typed(types.Array(scalar, len(shape), "C"), how=("new_array", (space, shape, alignment)))


@call_c_rule("new_array")
def c_call_new_array(walk, node, annotation):
    """The array's storage (hoisted to the function's top: numba allocates local arrays once) and its view."""
    t, (space, shape, alignment) = annotation.type, annotation.how[1]
    scalar = t.dtype
    count = 1
    for n in shape:
        count *= n
    # a record is its bytes (element_ctype unsigned char), aligned as its widest field may need
    itemsize = scalar.size if isinstance(scalar, types.Record) else scalar.bits // 8
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    storage = walk.module.unique("storage")
    shape_codes = ["%dLL" % n for n in shape]
    element = scalar.element_ctype
    if space == "shared" and count == 0:  # dynamic shared memory: sized at launch
        walk.emit("extern __shared__ unsigned char ncc_dynamic_shared[];")
        data = "(%s *)ncc_dynamic_shared" % element
        if len(shape) == 1:  # as numba: its length is the launch's dynamic shared size / itemsize
            shape_codes = ["((long long)(ncc_dynamic_smem_size() / %dU))" % itemsize]
    else:
        qualifier = "__shared__ " if space == "shared" else ""
        if isinstance(scalar, types.Record) or alignment:
            qualifier += "__align__(%d) " % max(alignment or 0, 16 if isinstance(scalar, types.Record) else 1)
        units = max(count, 1) * (itemsize if isinstance(scalar, types.Record) else 1)
        walk.hoist("%s%s %s[%d];" % (qualifier, element, storage, units))
        data = storage
    temp = walk.module.unique(space)
    walk.emit(
        "%s %s = {%s, {%s}, {%s}};"
        % (c_array_type(t), temp, data, ", ".join(shape_codes), ", ".join("%dLL" % s for s in strides))
    )
    return Value(temp, t)


@call_typing_rule("syncwarp")
def type_call_syncwarp(walk, node, func, what):
    """cuda.syncwarp(mask=all lanes): a barrier of the warp's lanes in the mask."""
    args = [walk.expr(a) for a in node.args] + [walk.expr(k.value) for k in node.keywords]
    if len(args) > 1 or any(k.arg != "mask" for k in node.keywords):
        walk.fail(node, "cuda.syncwarp takes one mask")
    if args and not typing.is_int(typing.as_arith(args[0].type)):
        walk.fail(node, "cuda.syncwarp's mask is an integer, not %s" % args[0].type)
    return typed(None, how=("syncwarp", None))


@call_c_rule("syncwarp")
def c_call_syncwarp(walk, node, annotation):
    masks = [walk.expr(a) for a in node.args] + [walk.expr(k.value) for k in node.keywords]
    return Value("__syncwarp(%s)" % (cast(masks[0], types.uint32) if masks else "0xffffffffu"), None)


def array_alignment(walk, node, at):
    """The alignment= of cuda.local.array / cuda.shared.array: None, or a literal power of 2, a multiple of a
    pointer's size (numba's rules and words: ValueError for a bad number, RequireLiteralValue otherwise)."""
    if node is None:
        return None
    value = walk.expr(node)
    if value.type == types.none:
        return None
    if not (typing.is_int(value.type) and isinstance(value.const, int) and not isinstance(value.const, bool)):
        walk.fail(at, "RequireLiteralValue: alignment must be a constant integer")
    alignment = value.const
    for bad, message in (
        (alignment <= 0, "Alignment must be positive"),
        (alignment & (alignment - 1), "Alignment must be a power of 2"),
        (alignment % 8, "Alignment must be a multiple of 8"),
    ):
        if bad:
            walk.fail(at, message, typing.KernelValueError)
    return alignment


@call_typing_rule("const_array")
def type_call_const_array(walk, node, func, what):
    """cuda.const.array_like(ary): a global NumPy array's values, in the device's constant memory."""
    import numpy as np

    if len(node.args) != 1 or node.keywords:
        walk.fail(node, "cuda.const.array_like takes one array")
    source = global_object(walk, node.args[0])
    if not isinstance(source, np.ndarray) or not (source.dtype.kind in "biufc" or source.dtype.fields is not None):
        walk.fail(node, "cuda.const.array_like takes a global NumPy array of numbers or records")
    return typed(types.Array(dtype_of(source.dtype), source.ndim, "C"), how=("const_array", source))


@call_c_rule("const_array")
def c_call_const_array(walk, node, annotation):
    return constant_array_of(walk, annotation.how[1], node, "cuda.const.array_like")


def global_object(walk, node):
    """The Python object a global name (ARRAY, module.ARRAY) is, not yet made a kernel value; None
    for anything else."""
    if isinstance(node, ast.Name):
        return None if node.id in walk.vars else walk.function.globals.get(node.id)
    if isinstance(node, ast.Attribute):
        base = global_object(walk, node.value)
        return getattr(base, node.attr, None) if base is not None else None
    return None


# -- NumPy ufuncs: on numbers, and elementwise from arrays into an `out` array (numba's kernels); each element
# as numba's loop for its types computes it (lib/npufuncs.py) --
@call_typing_rule("ufunc")
def type_call_ufunc(walk, node, func, ufunc):
    """A ufunc's typing rule: its element rule on the arguments' types (the value on numbers, a tuple's for
    divmod; None for a loop into out); its C rule is ufunc_call."""
    value = ufunc_call(walk, ufunc, node)
    if value.items is not None:
        return Value(type=value.type, items=[typed(i.type) for i in value.items], how=("ufunc", ufunc))
    return typed(value.type, how=("ufunc", ufunc))


@call_c_rule("ufunc")
def c_call_ufunc(walk, node, annotation):
    return ufunc_call(walk, annotation.how[1], node)


def ufunc_call(walk, ufunc, node):
    """np.sin(x) on numbers is its loop's C; np.sin(x, out) / np.add(a, b, out) on arrays is a loop over out's
    elements (inputs of out's shape, or of size 1 along a dimension: broadcast)."""
    name = ufunc.__name__
    if not ufunc_supported(walk, name):
        walk.fail(node, "NumPy's %s is not supported in kernels" % name)
    args = [walk.expr(a) for a in node.args]
    out = [walk.expr(k.value) for k in node.keywords if k.arg == "out"]
    if any(k.arg != "out" for k in node.keywords):
        walk.fail(node, "ufuncs in kernels take their inputs and out= only")
    if len(args) == ufunc.nin + 1 and not out:
        out = [args.pop()]
    if len(args) != ufunc.nin:
        walk.fail(node, "np.%s takes %d input%s" % (name, ufunc.nin, "s" if ufunc.nin > 1 else ""))
    if not out and not any(isinstance(a.type, types.Array) for a in args):
        held = [syntax.held(walk, a, node) for a in args]  # each read once, however often the element's C names it
        return npufuncs.element(walk, name, ufunc, held, node)
    if not out or not isinstance(out[0].type, types.Array):
        walk.fail(node, "np.%s on arrays in a kernel needs an out array (kernels allocate no arrays)" % name)
    if ufunc.nout != 1:
        walk.fail(node, "np.%s on arrays is not supported in kernels (it has %d outputs)" % (name, ufunc.nout))
    target = out[0]
    params, operands = [], []
    for k, a in enumerate(args):
        t = a.type.dtype if isinstance(a.type, types.Array) else a.type
        if isinstance(a.type, types.Array) and a.type.ndim != target.type.ndim:
            walk.fail(node, "np.%s: the inputs must have the out array's dimensions" % name)
        params.append(Value("e%d" % k, t))
        operands.append(a)
    value = npufuncs.element(walk, name, ufunc, params, node)
    element = target.type.dtype
    body = "return %s;" % cast(value, element)
    lam = "[=](%s) { %s }" % (", ".join("%s e%d" % (p.type.ctype, k) for k, p in enumerate(params)), body)
    inputs = ", ".join(
        a.code if isinstance(a.type, types.Array) else "ncc_scalar_input(%s)" % a.code for a in operands
    )
    walk.emit("ncc_map(%s, %s, %s);" % (target.code, lam, inputs))
    return Value("", None)


def ufunc_supported(walk, name):
    return npufuncs.ALIASES.get(name, name) in npufuncs.SUPPORTED


@call_typing_rule("pointer_array")
def type_call_pointer_array(walk, node, func, order):
    """carray(ptr, shape, dtype) / farray(...): an array over the memory a pointer argument points at, C or
    Fortran order, as numba's numpy_support functions."""
    args = [walk.expr(a) for a in node.args]
    dtype = args[2].obj if len(args) > 2 else None
    for keyword in node.keywords:
        dtype = walk.expr(keyword.value).obj
    if len(args) not in (2, 3) or not isinstance(args[0].type, types.CPointer):
        walk.fail(node, "carray/farray take a pointer, a shape and a dtype")
    dtype = dtype_of(dtype) if dtype is not None else args[0].type.dtype
    shape = args[1].items if args[1].items is not None else [args[1]]
    if not all(typing.is_int(n.type) for n in shape):
        walk.fail(node, "carray/farray's shape is an integer or a tuple of integers")
    return typed(types.Array(dtype, len(shape), order), how=("pointer_array", order))


@call_c_rule("pointer_array")
def c_call_pointer_array(walk, node, annotation):
    t, order = annotation.type, annotation.how[1]
    pointer, extents = walk.expr(node.args[0]), walk.expr(node.args[1])
    codes = [cast(n, types.int64) for n in (extents.items if extents.items is not None else [extents])]
    dtype = t.dtype
    strides, step = (
        [None] * len(codes),
        "%dLL" % (dtype.bits // 8 if isinstance(dtype, types.Scalar) else dtype.size),
    )
    for axis in range(len(codes) - 1, -1, -1) if order == "C" else range(len(codes)):
        strides[axis] = step
        step = "(%s * %s)" % (step, codes[axis])
    temp = walk.module.unique("carray")
    walk.emit(
        "%s %s = {(%s *)(%s), {%s}, {%s}};"
        % (c_array_type(t), temp, dtype.element_ctype, pointer.code, ", ".join(codes), ", ".join(strides))
    )
    return Value(temp, t)


@call_typing_rule("array_view")
def type_call_array_view(walk, node, func, name):
    """a.reshape(shape), a.view(dtype), a.transpose(): the view's type; a.fill(value): none."""
    t = func.obj.value.type
    if node.keywords:
        walk.fail(node, "a.%s() takes no keyword arguments in kernels" % name)
    if name == "transpose":
        if node.args:
            walk.fail(node, "a.transpose() in kernels takes no axes")
        return typed(types.Array(t.dtype, t.ndim, "A"), how=("array_view", name))
    args = [walk.expr(a) for a in node.args]
    if name == "fill":
        if len(args) != 1:
            walk.fail(node, "wrong number of arguments")
        indexing.check_assign_into_array(walk, t, args[0], node)
        return typed(None, how=("array_view", name))
    if name == "view":
        if len(args) != 1 or args[0].obj is None:
            walk.fail(node, "a.view(dtype) takes a dtype")
        return typed(types.Array(dtype_of(args[0].obj), t.ndim, "A"), how=("array_view", name))
    if len(args) == 1 and args[0].items is not None:
        args = args[0].items
    if not args or not all(typing.is_int(a.type) for a in args):
        walk.fail(node, "a.reshape() takes a shape: integers, or a tuple of them")
    return typed(types.Array(t.dtype, len(args), "A"), how=("array_view", name))


@call_c_rule("array_view")
def c_call_array_view(walk, node, annotation):
    """The view type_call_array_view typed (a.fill(value): in place). A reshape that no view can give, or a view
    whose dtype does not fit the last axis, raises as numba does (the thread ends; recorded with debug=True)."""
    name, result = annotation.how[1], annotation.type
    array = walk.expr(node.func).obj.value
    walk.module.require("array_views")
    if name == "transpose":
        return Value("ncc_transpose(%s)" % array.code, result)
    args = [walk.expr(a) for a in node.args]
    if name == "fill":  # every element set to a number (a[...] = value)
        walk.assign_into_array(array, args[0], node)
        return Value("", None)
    temp = walk.module.unique(name)
    if name == "view":
        walk.emit("%s %s;" % (c_array_type(result), temp))
        bad = exceptions.raise_code(
            walk,
            ValueError,
            (
                "When changing to a larger dtype, its size must be a divisor of the total size in bytes of the last "
                "axis of the array.",
            ),
        )
        walk.emit("if (ncc_view_as<%s>(%s, &%s)) { %s; }" % (result.dtype.element_ctype, array.code, temp, bad))
        return Value(temp, result)
    if len(args) == 1 and args[0].items is not None:
        args = args[0].items
    shape = walk.module.unique("shape")
    walk.emit("long long %s[%d] = {%s};" % (shape, len(args), ", ".join(cast(a, types.int64) for a in args)))
    walk.emit("%s %s;" % (c_array_type(result), temp))
    status = walk.module.unique("status")
    walk.emit("int %s = ncc_reshape(%s, %s, &%s);" % (status, array.code, shape, temp))
    walk.emit(
        "if (%s == 1) { %s; }"
        % (status, exceptions.raise_code(walk, ValueError, ("total size of new array must be unchanged",)))
    )
    walk.emit(
        "if (%s == 2) { %s; }"
        % (status, exceptions.raise_code(walk, NotImplementedError, ("incompatible shape for array",)))
    )
    return Value(temp, result)
