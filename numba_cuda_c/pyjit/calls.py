"""Calls in kernels (rules of the passes, passes.py): what a call's target is (a device function, a
library entry, a builtin, math, a NumPy ufunc or function, a conversion, a declared extern, numba's @overload) and how
its arguments bind (positional, keywords, defaults, *args, f(*t)); device functions' compile-time arguments (types,
functions, literal numbers) specialise them."""

import ast
import functools
import inspect

import numpy as np

from numba_cuda_c import types
from numba_cuda_c.np import numpy_support
from numba_cuda_c.pyjit import lib, optional, overloads, rules
from numba_cuda_c.pyjit.devicefn import DeviceFunction
from numba_cuda_c.pyjit.extern import ExternFunction
from numba_cuda_c.pyjit.extern import call as extern_call
from numba_cuda_c.pyjit.extern import call_type as extern_call_type
from numba_cuda_c.pyjit.lib import arrays as array_lib
from numba_cuda_c.pyjit.lib import numbers, pybuiltins, pymath
from numba_cuda_c.pyjit.rules import c_rule, call_c_rule, call_typing_rule, typing_rule
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import BoundMethod, Namespace, Value, cast, dtype_of, literal, typed, with_const


class Calls:
    def rewritten(self, node, make):
        """The expression a call is rewritten as (pow(a, b) as a ** b), made once for every pass, so that the typing
        passes' annotations of it are the ones the emitting pass reads."""
        found = self.function.call_rewrites.get(id(node))
        if found is None or found[0] is not node:
            made = make()
            found = self.function.call_rewrites[id(node)] = (
                node,
                made and ast.fix_missing_locations(ast.copy_location(made, node)),
            )
        return found[1]


def spread_starred(walk, node):
    """f(a, *t): the call with t's items as arguments, t evaluated once (into variables named after
    the call's place, the same in every pass); the call node is made once (rewritten())."""
    args = []
    for position, arg in enumerate(node.args):
        if not isinstance(arg, ast.Starred):
            args.append(arg)
            continue
        value = walk.expr(arg.value)
        if value.items is None:
            walk.fail(node, "*args in a kernel takes a tuple")
        for k, item in enumerate(value.items):
            name = ast.Name(id="starred_%d_%d_%d_%d" % (node.lineno, node.col_offset, position, k), ctx=ast.Store())
            if item.obj is not None and item.code is None:  # a function, a type: read as itself
                walk.constants[name.id] = item
            else:
                walk.store(ast.copy_location(name, arg), item, node)
            args.append(ast.copy_location(ast.Name(id=name.id, ctx=ast.Load()), arg))
    return walk.rewritten(node, lambda: ast.Call(func=node.func, args=args, keywords=node.keywords))


def overload_implementation(walk, function, node):
    """A DeviceFunction of the implementation numba's @overload gives for this call (overloads.py), or None.
    The arguments are typed (call_target runs in typing rules only: no C is written)."""
    values = [walk.expr(a) for a in node.args]
    keyword_types = {k.arg: walk.expr(k.value).type for k in node.keywords}
    argtypes = tuple(v.type for v in values)
    constants = tuple(v.const if v.items is None else None for v in values)
    key = (function, argtypes, constants, tuple(sorted(keyword_types.items())))
    if key not in walk.module.overloads:
        implementation = overloads.implementation(function, argtypes, keyword_types, constants)
        walk.module.overloads[key] = DeviceFunction(implementation) if implementation is not None else None
    return walk.module.overloads[key]


def bind_call(walk, pyfunc, node):
    """A device function call's arguments, one Value per parameter in parameter_names' order, as Python binds
    them: positional, then keywords, then the function's defaults (constants of their own); a *args
    parameter gets the extra positional arguments as a tuple."""
    code = pyfunc.__code__
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    positional = [walk.optional_expr(a) for a in node.args]  # a value that may be None is passed as it is
    values, extra = positional[: code.co_argcount], positional[code.co_argcount :]
    varargs = bool(code.co_flags & inspect.CO_VARARGS)
    if extra and not varargs:
        walk.fail(
            node,
            "%s() takes %d positional arguments but %d were given"
            % (pyfunc.__name__, code.co_argcount, len(positional)),
        )
    bound = dict(zip(names, values))
    for keyword in node.keywords:
        if keyword.arg is None or keyword.arg not in names:
            walk.fail(node, "%s() got an unexpected keyword argument %r" % (pyfunc.__name__, keyword.arg))
        if keyword.arg in bound:
            walk.fail(node, "%s() got multiple values for argument %r" % (pyfunc.__name__, keyword.arg))
        bound[keyword.arg] = walk.optional_expr(keyword.value)
    defaults = dict(
        zip(
            names[code.co_argcount - len(pyfunc.__defaults__ or ()) : code.co_argcount],
            pyfunc.__defaults__ or (),
        )
    )
    defaults.update(pyfunc.__kwdefaults__ or {})
    for name in names:
        if name not in bound:
            if name not in defaults:
                walk.fail(node, "%s() missing required argument %r" % (pyfunc.__name__, name))
            bound[name] = walk.python_value(defaults[name], node)
    result = [bound[name] for name in names]
    if varargs:
        result.append(
            Value(
                type=types.Tuple([v.type for v in extra]),
                items=extra,
                const=tuple(v.const for v in extra) if all(v.const is not None for v in extra) else None,
            )
        )
    return result


def device_argument(walk, value, node):
    """A value as a device function's argument: numbers, arrays and records as they are; a tuple of numbers
    as the struct the callee takes (tuple_struct)."""
    if value.items is not None and all(isinstance(i.type, types.Scalar) for i in value.items):
        t = value.type if isinstance(value.type, types.RangeType) else types.Tuple([i.type for i in value.items])
        return Value("%s{%s}" % (walk.module.tuple_struct(t), ", ".join(i.code for i in value.items)), t)
    if not isinstance(value.type, (types.Scalar, types.Array, types.Record, types.Optional)):
        walk.fail(node, "device functions take numbers, arrays, records and tuples of numbers")
    return value


@typing_rule(ast.Call)
def type_Call(walk, node):
    """A call's typing rule: its target resolved (call_target) and typed by that kind's rule (rules.CALL_TYPING);
    `how` names the kind and what its C rule (rules.CALL_C) needs. f(*t) is the call f(t_0, t_1, ...) after
    the stores of t's items (spread_starred)."""
    if any(isinstance(a, ast.Starred) for a in node.args):
        spread = spread_starred(walk, node)
        value = walk.expr(spread)
        return value.annotated(("spread", spread))
    func = walk.expr(node.func)
    if node.keywords and not walk.keywords_allowed(node, func.obj):
        walk.fail(node, "keyword arguments are not supported here")
    kind, what = call_target(walk, func, node)
    return rules.CALL_TYPING[kind](walk, node, func, what)


@c_rule(ast.Call)
def c_Call(walk, node, annotation):
    return rules.CALL_C[annotation.how[0]](walk, node, annotation)


@call_c_rule("spread")
def c_call_spread(walk, node, annotation):
    return walk.expr(spread_starred(walk, node))  # the items' stores, then the call made of them


def call_target(walk, func, node):
    """(kind, what) of a call's target: a library entry (pyjit/lib), a device function (a @cuda.jit function or
    numba's @overload implementation), a declared extern, one of the calls the translator writes (local and
    shared arrays, syncwarp, print, array views, ufuncs, carray), or a call rewritten as an operator."""
    import builtins

    target = func.obj
    entry = library_entry(walk, func, node)
    if entry is not None:
        return "library", entry
    if isinstance(target, Namespace):
        return walk.cuda_target(target.path, node)
    if isinstance(target, BoundMethod) and isinstance(target.value.type, types.Array):  # not entries: the views
        return "array_view", target.name  # a.reshape(...), a.view(dtype), a.transpose(), a.fill(v)
    if target is builtins.pow and len(node.args) == 2 and not node.keywords:  # pow(a, b) is a ** b
        return "rewrite", walk.rewritten(
            node, lambda: ast.BinOp(left=node.args[0], op=ast.Pow(), right=node.args[1])
        )
    if getattr(target, "__module__", None) in ("_operator", "operator") and not node.keywords:
        rewritten = walk.rewritten(node, lambda: _operator_as_expression(target, node))  # operator.add(a, b): a + b
        if rewritten is not None:
            return "rewrite", rewritten
    if target is builtins.range:  # r = range(n): a range object (sequences.py; range() loops are statements.py's)
        return "range", None
    if target is np.dtype:  # np.dtype("int32"): a compile-time dtype, as numba types it
        return "dtype", None
    if target is numpy_support.carray or target is numpy_support.farray:  # an array over a pointer
        return "pointer_array", "C" if target is numpy_support.carray else "F"
    if isinstance(target, np.ufunc):  # np.sin(x), np.sin(x, out)
        return "ufunc", target
    if getattr(target, "__module__", None) in ("math", "cmath") and callable(target):  # not a library entry
        walk.fail(node, "%s.%s is not supported in kernels" % (target.__module__, target.__name__))
    if target is builtins.print:
        return "print", None
    if isinstance(target, ExternFunction):
        return "extern", target
    # a @cuda.jit function (device=False too: numba-cuda compiles a kernel called here as a device function)
    device = _device_target(target)
    if device is None and callable(target) and not isinstance(target, type):
        device = overload_implementation(walk, target, node)  # numba's @overload
    if device is not None:
        return "device", device
    if isinstance(node.func, ast.Name):  # numba's words for a global it cannot type
        walk.fail(node, "Untyped global name %r: cannot call %r in a kernel" % (node.func.id, target))
    walk.fail(node, "cannot call %r in a kernel" % (target,))


# -- the typing rule and the C rule of each kind of call target ------------------------------------
@call_typing_rule("library")
def type_call_library(walk, node, func, entry):
    receiver = [func.obj.value] if isinstance(func.obj, BoundMethod) else []  # a method: the value it is of first
    args = receiver + [walk.expr(a) for a in node.args]
    try:
        result = entry.typing(args)
    except TypeError as exc:
        walk.fail(node, str(exc))
    if isinstance(result, Value):  # known when compiling (len of a tuple, isinstance): that literal
        return result.annotated(("known", entry))
    if isinstance(result, types.Tuple) and entry.statements:
        return Value(type=result, items=[typed(t) for t in result.items], how=("library", entry))
    return typed(result, how=("library", entry))


@call_c_rule("library")
def c_call_library(walk, node, annotation):
    method = walk.expr(node.func).obj
    receiver = method.value if isinstance(method, BoundMethod) else None  # g.sync(): of an opaque value
    entry = annotation.how[1]
    args = [walk.expr(a) for a in node.args]
    if entry.llvm_constants:
        args = [with_const(value, walk.llvm_number(a)) for value, a in zip(args, node.args)]
    return walk.library_call_code(entry, args, annotation.type, receiver)


@call_c_rule("known")
def c_call_known(walk, node, annotation):  # a compile-time result: the annotation is the value
    return annotation


@call_typing_rule("device")
def type_call_device(walk, node, func, target):
    return device_call_type(walk, target, node)


@call_c_rule("device")
def c_call_device(walk, node, annotation):
    return device_call_code(walk, node, annotation)


@call_typing_rule("rewrite")
def type_call_rewrite(walk, node, func, rewritten):
    value = walk.expr(rewritten)
    return value.annotated(("rewrite", rewritten))


@call_c_rule("rewrite")
def c_call_rewrite(walk, node, annotation):
    return walk.expr(annotation.how[1])


@call_typing_rule("dtype")
def type_call_dtype(walk, node, func, what):
    args = [walk.expr(a) for a in node.args]
    constants = [a.obj if a.code is None else a.const for a in args]
    if node.keywords or len(args) != 1 or constants[0] is None:
        walk.fail(node, "np.dtype() in a kernel takes one constant (a name or a type)")
    return Value(obj=np.dtype(constants[0]), how=("known", None))


@call_typing_rule("extern")
def type_call_extern(walk, node, func, extern):
    return typed(extern_call_type(walk, extern, node), how=("extern", extern))


@call_c_rule("extern")
def c_call_extern(walk, node, annotation):
    return extern_call(walk, annotation.how[1], node)


def device_call_type(walk, target, node):
    """A device function call's typing rule: its arguments bound, the compile-time ones taken out, the others
    converted to a declared signature's types; the callee translated for them (ModuleBuilder.device_function).
    The annotation's `how` says what the C rule needs: the callee's C name, which arguments are compile-time,
    the declared argument types."""
    args = bind_call(walk, target.py_func, node)
    constants = compile_time_arguments(target, args, node, walk)
    args = [device_argument(walk, a, node) for k, a in enumerate(args) if k not in constants]
    declared = target.declared_signature([a.type for a in args]) if not constants else None
    argtypes = list(declared.args) if declared is not None else [a.type for a in args]
    try:
        name, return_type = walk.module.device_function(
            target.py_func,
            argtypes,
            declared.return_type if declared else None,
            constants,
            forceinline=target.inline,
        )
    except KernelTypeError as exc:  # an error in the callee: numba's lines naming the callee and this call
        walk.function.add_call_context(exc, target.numba_type_text(), node)
        raise
    how = ("device", (target, name, frozenset(constants), argtypes))
    if isinstance(return_type, types.Tuple):
        return Value(type=return_type, items=[typed(t) for t in return_type.items], how=how)
    return typed(None if return_type == types.void else return_type, how=how)


def device_call_code(walk, node, annotation):
    """A device function call's C rule: the arguments (converted to the types the callee was translated for)
    passed to the callee the typing rule resolved; a record or a tuple it returns held in a temporary."""
    target, name, constants, argtypes = annotation.how[1]
    args = [a for k, a in enumerate(bind_call(walk, target.py_func, node)) if k not in constants]
    codes = []
    for a, t in zip(args, argtypes):
        a = device_argument(walk, a, node)
        if isinstance(t, types.Scalar):  # a declared number: a value that may be None checked (optional.py)
            a = optional.unwrapped(walk, a)
        codes.append(cast(a, t) if a.type != t and isinstance(t, (types.Scalar, types.Optional)) else a.code)
    walk.called.append(name)
    walk.module.write(name)  # its C, the first time an emitting pass calls it (typed by device_call_type)
    code = "%s(%s)" % (name, ", ".join(codes))
    return_type = annotation.type
    if isinstance(return_type, types.Record):  # its bytes, held here; read and copied by address
        temp = walk.module.unique("ret")
        walk.emit("%s %s = %s;" % (walk.module.record_struct(return_type), temp, code))
        return Value("%s.bytes" % temp, return_type)
    if isinstance(return_type, types.Tuple):  # a struct, held once, read item by item
        temp = walk.module.unique("ret")
        walk.emit("%s %s = %s;" % (walk.module.tuple_struct(return_type), temp, code))
        items = [Value("%s.f%d" % (temp, k), item) for k, item in enumerate(return_type.items)]
        return Value(type=return_type, items=items)
    return Value(code, return_type)


def library_entry(walk, func, node):
    """The library entry (pyjit/lib) a call's target is, or None: cuda.<path>, a method of an opaque device
    type (g.sync()), an entry imported by name, a NumPy function on arrays (np.sum)."""
    target = func.obj
    if isinstance(target, Namespace):
        return lib.lookup(target.path[1:])
    if isinstance(target, BoundMethod) and isinstance(target.value.type, types.Opaque):
        entry = lib.lookup((target.value.type.name, target.name))
        if entry is None:
            walk.fail(node, "%s has no method %r in kernels" % (target.value.type.name, target.name))
        return entry
    if isinstance(target, BoundMethod) and isinstance(target.value.type, types.Scalar):  # z.conjugate()
        return lib.lookup(("number", target.name))
    if isinstance(target, BoundMethod) and isinstance(target.value.type, types.Array):  # a.sum(); views: None
        return array_lib.METHODS.get(target.name)
    if isinstance(target, types.Scalar) or (isinstance(target, type) and issubclass(target, np.generic)):
        return numbers.conversion(dtype_of(target))  # np.float32(x), types.int32(x)
    if isinstance(target, lib.Intrinsic):  # from numba_cuda_c.random import xoroshiro128p_uniform_float32
        return target
    if callable(target) and getattr(target, "__module__", None) in (
        "math",
        "cmath",
    ):  # math.sin, from math import sin
        path = pymath.path_for(target)
        return lib.lookup(path) if path else None
    if getattr(target, "__module__", None) == "builtins":  # abs, min, len, ... (print is not an entry)
        path = pybuiltins.path_for(target)
        return lib.lookup(path) if path else None
    if (
        callable(target)
        and (getattr(target, "__module__", None) or "").startswith("numpy")  # None: a function exec'd
        and target in array_lib.OBJECTS
    ):
        return array_lib.OBJECTS[target]  # np.sum(a)
    return None


_OPERATOR_BINARY = {
    "add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "truediv": ast.Div, "floordiv": ast.FloorDiv,
    "mod": ast.Mod, "pow": ast.Pow, "and_": ast.BitAnd, "or_": ast.BitOr, "xor": ast.BitXor,
    "lshift": ast.LShift, "rshift": ast.RShift, "concat": ast.Add,
}  # fmt: skip
_OPERATOR_COMPARE = {
    "lt": ast.Lt, "le": ast.LtE, "gt": ast.Gt, "ge": ast.GtE, "eq": ast.Eq, "ne": ast.NotEq, "is_": ast.Is,
    "is_not": ast.IsNot,
}  # fmt: skip
_OPERATOR_UNARY = {"neg": ast.USub, "pos": ast.UAdd, "invert": ast.Invert, "inv": ast.Invert, "not_": ast.Not}


def _operator_as_expression(function, node):
    """operator.add(a, b) (or iadd, which on numbers and tuples makes a new value too) as the expression a + b
    (operator.concat(t, u) as t + u); None for the operator functions that are not arithmetic, comparisons or
    unary operators."""
    name = function.__name__
    if name.startswith("i") and name not in _OPERATOR_UNARY:  # iadd, iand (and_), iconcat: in-place forms
        name = next((n for n in (name[1:], name[1:] + "_") if n in _OPERATOR_BINARY), name)
    args = node.args
    if name in _OPERATOR_BINARY and len(args) == 2:
        expression = ast.BinOp(left=args[0], op=_OPERATOR_BINARY[name](), right=args[1])
    elif name in _OPERATOR_COMPARE and len(args) == 2:
        expression = ast.Compare(left=args[0], ops=[_OPERATOR_COMPARE[name]()], comparators=[args[1]])
    elif name in _OPERATOR_UNARY and len(args) == 1:
        expression = ast.UnaryOp(op=_OPERATOR_UNARY[name](), operand=args[0])
    elif name == "abs" and len(args) == 1:
        expression = ast.Call(func=ast.Name(id="abs", ctx=ast.Load()), args=list(args), keywords=[])
    elif name == "contains" and len(args) == 2:  # contains(t, x) is x in t
        expression = ast.Compare(left=args[1], ops=[ast.In()], comparators=[args[0]])
    elif name == "getitem" and len(args) == 2:
        expression = ast.Subscript(value=args[0], slice=args[1], ctx=ast.Load())
    else:
        return None
    return ast.fix_missing_locations(ast.copy_location(expression, node))


def _device_target(obj):
    """The DeviceFunction a call's target is (a @cuda.jit function gives one), or None."""
    return obj if isinstance(obj, DeviceFunction) else getattr(obj, "__ncc_device_function__", None)


def _is_compile_time(value):
    """A value known when compiling: an object (a type, a function, cuda.atomic.add), a literal number,
    or a tuple of literal numbers."""
    if value.obj is not None and value.code is None:
        return True
    if value.items is not None:
        return all(_is_compile_time(item) for item in value.items)
    if value.type is types.none and value.code is None:  # None
        return True
    return value.const is not None and value.code is not None


def _constant_key(value):
    if value.obj is not None and value.code is None:
        obj = value.obj
        if isinstance(obj, Namespace):
            return ("name", obj.path)
        try:
            hash(obj)
            return ("object", obj)
        except TypeError:
            return ("id", id(obj))
    if value.items is not None:
        return ("tuple",) + tuple(_constant_key(item) for item in value.items)
    return ("number", str(value.type), value.const)


@functools.lru_cache(maxsize=None)
def _stored_names(code):
    """The names a function's code assigns (a parameter assigned cannot be a compile-time constant);
    asked at every call site in every typing pass, so read once per function."""
    import dis

    return frozenset(i.argval for i in dis.get_instructions(code) if i.opname in ("STORE_FAST", "DELETE_FAST"))


def parameter_names(function):
    """A function definition's parameters in the order calls bind them (bind_call): positional, keyword-only,
    then *args (the order of its code's co_varnames)."""
    args = function.args
    return (
        [a.arg for a in args.posonlyargs + args.args]
        + [a.arg for a in args.kwonlyargs]
        + ([args.vararg.arg] if args.vararg else [])
    )


def compile_time_arguments(target, args, node, translator):
    """{position: Value} of a device function call's arguments that specialise the callee (numba's
    literal and object arguments): objects always; literal numbers and tuples where the callee has no
    declared signature and never assigns that parameter."""
    code = target.py_func.__code__
    params = code.co_varnames[
        : code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)
    ]
    if len(args) != len(params):
        translator.fail(node, "%s takes %d arguments, %d given" % (target.py_func.__name__, len(params), len(args)))
    stored = _stored_names(target.py_func.__code__)
    # a recursive call's numbers are values: as literals each call (f(n - 1)) would make a new function
    recursive = any(key[0] is target.py_func for key in translator.module.translating)
    constants = {}
    for k, (param, value) in enumerate(zip(params, args)):
        if not _is_compile_time(value):
            continue
        is_object = value.obj is not None and value.code is None
        if recursive and not is_object and value.type is not types.none:
            continue
        if is_object and param in stored:
            translator.fail(
                node,
                "%s assigns its parameter %r, which is given a %r" % (target.py_func.__name__, param, value.obj),
            )
        # None always (the callee assigns it to the parameter's name first: optional.prologue)
        if is_object or value.type is types.none or (not target.declared and param not in stored):
            constants[k] = _known(value)
    return constants


def _known(value):
    """A compile-time argument as the callee reads it: objects as they are, numbers as their literals (a
    typing pass's Value has no C)."""
    if value.items is not None:
        return Value(type=value.type, items=[_known(i) for i in value.items], const=value.const)
    if (value.obj is not None or value.type is types.none) and value.code is None:
        return value
    return literal(value.const, value.type)
