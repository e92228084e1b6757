"""Python's forms of assignment and functions in kernels (rules of the passes, passes.py), as numba compiles them:
chained assignment (`a = b = 0`), the walrus operator (`(n := f(x)) > 0`), `lambda` (a function of its own, as a
nested def: bindings.py), and names bound to compile-time objects (`f = lambda x: ...`, `dt = np.float32`), which
read as those objects where they are used, as numba types such a variable by the object."""

import ast

from numba_cuda_c import types
from numba_cuda_c.pyjit import bindings, statements
from numba_cuda_c.pyjit.devicefn import DeviceFunction
from numba_cuda_c.pyjit.rules import c_rule, typing_rule
from numba_cuda_c.pyjit.values import Namespace, Value, c_array_type, cast, typed


class Syntax:
    # -- a = b = value ------------------------------------------------------------------------------------------
    def assign_chained(self, node):
        """a = b = value: the value computed once, then stored in each target from left to right (Python's order;
        `a = a[0] = x` too)."""
        value = held(self, self.expr(node.value), node)
        for target in node.targets:
            if isinstance(target, ast.Tuple):
                statements.unpack(self, target, value, node)
            else:
                self.store(target, value, node)

    # -- names bound to compile-time objects ----------------------------------------------------------------------
    def store_object(self, name, value, node):
        """f = lambda x: ..., dt = np.float32, op = cuda.atomic.add: the name reads as that object from here on.
        numba types a variable by the object it holds, so one name holds one object, and no number."""
        if name in self.vars:
            self.fail(node, "a variable cannot hold both %s and %r" % (self.vars[name], value.obj))
        known = self.constants.get(name)
        if known is not None and not _same_object(known.obj, value.obj):
            self.fail(
                node,
                "variable %r is bound to %r and to %r: numba types it by the object it holds, which must be one"
                % (name, known.obj, value.obj),
            )
        self.constants[name] = value


def held(walk, value, node):
    """A value read several times, computed once: a number or an array in a temporary, a tuple item by item;
    constants and compile-time objects as they are."""
    if value.items is not None:
        items = [held(walk, item, node) for item in value.items]
        return Value(type=value.type, items=items, const=value.const)
    if value.code is None or value.const is not None or not isinstance(value.type, (types.Scalar, types.Array)):
        return value
    temp = walk.module.unique("t")
    ctype = c_array_type(value.type) if isinstance(value.type, types.Array) else value.type.ctype
    walk.emit("%s %s = %s;" % (ctype, temp, value.code))
    return Value(temp, value.type)


# -- (name := value) -------------------------------------------------------------------------------------------
@typing_rule(ast.NamedExpr)
def type_NamedExpr(walk, node):
    """(n := value): the value stored in n (a variable, typed as an assignment types it), and the expression's
    value is n's."""
    value = walk.expr(node.value)
    variable, t = walrus_variable(walk, node, value)
    return typed(t, how=("walrus", variable))


@c_rule(ast.NamedExpr)
def c_NamedExpr(walk, node, annotation):
    value = walk.expr(node.value)
    variable, t = walrus_variable(walk, node, value)
    walk.assigned.add(variable)
    return Value("(v_%s = %s)" % (variable, cast(value, t) if isinstance(t, types.Scalar) else value.code), t)


def walrus_variable(walk, node, value):
    """The variable (n := value) stores in, and its type: a number, or an array (an expression in C: the
    assignment is one, so that it may stand in a while loop's condition or after `and`)."""
    name = node.target.id
    if value.items is not None or not isinstance(value.type, (types.Scalar, types.Array)):
        walk.fail(node, "(%s := ...) in a kernel takes a number or an array, not %s" % (name, value.type))
    variable = walk.binding(name, value, site=node.target)
    if isinstance(value.type, types.Array):
        if not walk.emitting:
            walk.vars[variable] = value.type
        elif c_array_type(value.type) != c_array_type(walk.vars[variable]):
            walk.fail(node, "a variable cannot hold both %s and %s" % (walk.vars[variable], value.type))
        return variable, walk.vars[variable]
    if variable in walk.params and walk.vars[variable] != value.type:
        return variable, walk.vars[variable]  # a parameter keeps its type: the value converts to it
    return variable, walk.settle_variable(variable, value.type)


# -- lambda ------------------------------------------------------------------------------------------------
@typing_rule(ast.Lambda)
def type_Lambda(walk, node):
    """lambda x: ...: a device function of its own (a nested function: bindings.py), called where it is or
    passed on as a compile-time argument."""
    function = walk.function.nested_functions.get(id(node))
    if function is None:
        function = walk.function.nested_functions[id(node)] = bindings.nested_function(walk, node)
    return Value(obj=DeviceFunction(function))


@c_rule(ast.Lambda)
def c_Lambda(walk, node, annotation):
    return annotation


def _same_object(a, b):
    """Whether two compile-time objects are the same (a function defined once, a name under cuda)."""
    if isinstance(a, DeviceFunction) and isinstance(b, DeviceFunction):
        return a.py_func is b.py_func
    if isinstance(a, Namespace) and isinstance(b, Namespace):
        return a.path == b.path
    return a is b or a == b
