"""Python kernels to CUDA C: checks a function's AST against the supported subset, types it with
numba's rules (typing.py) and writes the CUDA C that NVRTC compiles.

One FunctionTranslator per (function, argument types). Its typing passes run over the body until the
types settle (a variable keeps the type that holds every value assigned to it), annotating each
expression (typedtree.py: its type, and how its C rule is to write it: the resolved call target, the
operator's form, the variable read); then the emitting pass writes the C from those annotations,
every local declared at the top. A construct outside the subset raises KernelTypeError quoting the
source line. This file holds the driver, statements and names; its mixins hold the rest: calls.py
(call targets, argument binding, device function calls), attributes.py, indexing.py, operators.py,
intrinsics.py (translator-written calls: local and shared arrays, ufuncs, print, array views),
bindings.py (re-bound names, nested functions), loops.py, exceptions.py, pyvalues.py (Python objects
as kernel values); source.py reads the function's definition; pyjit/lib holds the library entries
(cuda.*, math, builtins, conversions: one typing rule and one C rule each); module.py is the
compilation unit (ModuleBuilder) that device functions and headers go into.
"""

import ast

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.attributes import Attributes
from numba_cuda_c.pyjit.bindings import Bindings, _single_constants
from numba_cuda_c.pyjit.calls import Calls, parameter_names
from numba_cuda_c.pyjit.exceptions import Raising
from numba_cuda_c.pyjit.indexing import Indexing
from numba_cuda_c.pyjit.intrinsics import Intrinsics
from numba_cuda_c.pyjit.loops import Loops
from numba_cuda_c.pyjit.module import ModuleBuilder, _Unknown
from numba_cuda_c.pyjit.names import ascii_locals
from numba_cuda_c.pyjit.operators import BINOPS, Operators
from numba_cuda_c.pyjit.values import (
    Value,
    as_annotation,
    c_array_type,
    cast,
    literal,
    typed,
)
from numba_cuda_c.pyjit.devicefn import DeviceFunction
from numba_cuda_c.pyjit.pyvalues import PythonValues
from numba_cuda_c.pyjit.source import function_definition
from numba_cuda_c.pyjit.typedtree import TypedTree
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit import rules
from numba_cuda_c.pyjit.rules import c_rule, statement_rule, typing_rule


TYPING_PASSES = 20


class FunctionTranslator(
    Attributes, Calls, Bindings, Operators, Intrinsics, Indexing, Loops, Raising, PythonValues
):
    def __init__(self, pyfunc, argtypes, module, device=False, name=None, constants=None):
        self.pyfunc, self.argtypes, self.module, self.device = pyfunc, list(argtypes), module, device
        self.name = name
        self.declared_return = None  # a device function's declared return type: values convert to it
        self.filename, self.first_line, self.source_lines, self.node = function_definition(pyfunc)
        ascii_locals(self.node)  # ρ, μ_Q: NVRTC takes ASCII identifiers only
        self.globals = dict(pyfunc.__globals__)
        if pyfunc.__closure__:
            for var, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
                try:
                    self.globals[var] = cell.cell_contents
                except ValueError:  # empty: the function itself, while its decorator compiles it (recursion)
                    self.globals.pop(var, None)
        args = self.node.args
        if args.kwarg or (not device and (args.vararg or args.kwonlyargs or args.defaults)):
            self.fail(
                self.node,
                "kernels take plain positional arguments only"
                if not device
                else "device functions take no **kwargs",
            )
        # the parameters in the order a call binds them (parameter_names): a device function's defaults,
        # keyword arguments and *args are bound where it is called (bind_call)
        names = parameter_names(self.node)
        # compile-time arguments of a device function (types, functions, cuda.atomic.add, literal
        # numbers and tuples, by position): their names read as those values, with no parameter
        self.constants = {names[k]: v for k, v in (constants or {}).items()}
        self.params = [n for n in names if n not in self.constants]
        if len(self.params) != len(self.argtypes):
            self.fail(
                self.node,
                "%s takes %d arguments, %d types given" % (pyfunc.__name__, len(self.params), len(self.argtypes)),
            )
        self.vars = dict(zip(self.params, self.argtypes))
        self.single_constants = _single_constants(self.node, self.params)
        self.renames = {}  # Python name -> the variable it is bound to now, where a store re-bound it (binding())
        self.rebindings = {}  # Python name -> its further variables, in the order made (the same in every pass)
        self.nested_functions = {}  # id(def node) -> the Python function of a function defined in this one
        self.local_functions = {}  # name -> DeviceFunction of a function defined in this one, once its def ran
        self.return_type = None
        self.lines = []
        self.depth = 1
        self.emitting = False
        self.called = []  # set again for the emitting pass
        self.assigned = set(self.params)
        self.loop_depth = 0
        self.while_names = []  # the names each enclosing while loop's condition reads
        self.break_flags = []  # per enclosing loop: the flag its breaks set when it has an else, or None
        self.loop_rewrites = {}  # id(for node) -> its rewrite (loops.py), made once for every pass
        self.call_rewrites = {}  # id(call node) -> (node, the expression it is rewritten as): calls.py's rewritten()
        self.launch_bounds = ()  # a kernel's __launch_bounds__ (numba's launch_bounds option)
        self.forceinline = False  # a device function's __forceinline__
        self.current_statement = None
        self.retyping = False  # typing_only, called by the emitting pass
        self.tree = TypedTree()  # each expression's annotation from the typing passes (typedtree.py)

    # -- errors ---------------------------------------------------------------------------------
    def fail(self, node, message, cls=KernelTypeError):
        lineno = getattr(node, "lineno", 1)
        text = self.source_lines[lineno - 1].strip() if 0 < lineno <= len(self.source_lines) else ""
        exc = cls("%s:%d: %s\n    %s" % (self.filename, self.first_line + lineno - 1, message, text))
        exc.located = True
        raise exc

    # -- driver ---------------------------------------------------------------------------------
    def translate(self):
        """The C text of this function."""
        for _ in range(TYPING_PASSES):  # types until they stop changing
            before = (dict(self.vars), self.return_type)
            self.renames = {}
            self.lines = []
            self.hoisted = []
            self.break_flags = []
            self.block(self.node.body)
            if (dict(self.vars), self.return_type) == before:
                break
        else:
            changing = sorted(n for n, t in self.vars.items() if before[0].get(n) != t)
            self.fail(
                self.node,
                "the types of %s did not settle after %d passes"
                % (", ".join(changing) or "the return value", TYPING_PASSES),
            )
        self.emitting = True
        self.renames = {}
        self.called = []  # the device functions the emitted code calls (ModuleBuilder.place)
        self.lines = []
        self.hoisted = []
        self.break_flags = []
        self.assigned = set(self.params)
        self.loop_depth = 0
        self.block(self.node.body)
        if self.device and self.return_type is None:
            self.return_type = types.void
        start = self.line_directive(1) + "\n" if self.module.lineinfo else ""
        return start + self.header() + self.declarations() + "".join(self.hoisted) + "\n".join(self.lines) + "\n}\n"

    def header(self):
        params = []
        for name, t in zip(self.params, self.argtypes):
            if types.flattens(t) and not self.device:  # its leaves, each a parameter (the launch flattens it)
                params.extend(
                    "%s tv_%s" % (c_array_type(leaf) if isinstance(leaf, types.Array) else leaf.ctype, path)
                    for path, leaf in types.tuple_leaves(t, name)
                )
                continue
            if isinstance(t, types.Tuple):  # a struct by value, copied into the tuple's variables
                params.append("%s p_%s" % (self.module.tuple_struct(t), name))
                continue
            ctype = c_array_type(t) if isinstance(t, types.Array) else t.ctype
            params.append("%s v_%s" % (ctype, name))
        if self.device:
            if isinstance(self.return_type, types.Tuple):
                ret = self.module.tuple_struct(self.return_type)
            elif isinstance(self.return_type, types.Array):
                ret = c_array_type(self.return_type)
            elif isinstance(self.return_type, types.Record):
                ret = self.module.record_struct(self.return_type)
            else:
                ret = "void" if self.return_type == types.void else self.return_type.ctype
            inline = "__forceinline__ " if self.forceinline else ""
            return "__device__ %s%s %s(%s) {\n" % (inline, ret, self.name, ", ".join(params))
        qualifier = "__launch_bounds__(%s) " % ", ".join(map(str, self.launch_bounds)) if self.launch_bounds else ""
        return 'extern "C" __global__ void %s%s(%s) {\n' % (qualifier, self.name, ", ".join(params))

    def declarations(self):
        out = []
        for name, t in self.vars.items():
            if name in self.params and types.flattens(t) and not self.device:
                continue  # its leaves are parameters
            if isinstance(t, types.Tuple):  # a tuple variable is one C variable per item
                for k, item in enumerate(t.items):
                    value = "p_%s.f%d" % (name, k) if name in self.params else "{}"
                    out.append("    %s tv_%s_%d = %s;\n" % (item.ctype, name, k, value))
                continue
            if name in self.params or t is None:
                continue
            if isinstance(t, types.Array):  # declared here too, so that a branch can assign it (double buffering)
                out.append("    %s v_%s = {};\n" % (c_array_type(t), name))
                continue
            out.append("    %s v_%s = {};\n" % (t.ctype, name))  # zero: no garbage, even on paths Python rejects
        return "".join(out)

    def emit(self, line):
        if self.emitting:
            self.lines.append("    " * self.depth + line)

    def hoist(self, line):
        """A declaration at the top of the function, whatever block asks for it (as numba allocates
        local arrays once, at entry): it lives as long as the variables that may point into it."""
        if self.emitting:
            self.hoisted.append("    " + line + "\n")

    def block(self, statements):
        for statement in statements:
            try:
                self.statement(statement)
            except _Unknown:
                if self.emitting:
                    self.fail(statement, "a variable is used before it is assigned")
            except KernelTypeError as exc:
                if getattr(exc, "located", False):
                    raise
                self.fail(statement, str(exc))  # raised by typing.py or dtype_of: say where
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                self.fail(statement, "cannot translate this: %s" % exc)

    # -- statements -----------------------------------------------------------------------------
    def line_directive(self, lineno):
        """`#line` to the Python source (lineinfo/debug): NVRTC's line table, then profilers and debuggers,
        name the kernel's file and lines."""
        filename = (self.filename or "<kernel>").replace("\\", "\\\\").replace('"', '\\"')
        return '#line %d "%s"' % (self.first_line + lineno - 1, filename)

    def statement(self, node):
        self.current_statement = node  # where an exception this statement can raise is (exceptions.py)
        if self.emitting and self.module.lineinfo and hasattr(node, "lineno"):
            self.lines.append(self.line_directive(node.lineno))
        rule = rules.STATEMENTS.get(type(node))
        if rule is None:
            self.fail(node, "unsupported statement (%s)" % type(node).__name__)
        if not isinstance(node, (ast.For, ast.While)):
            rule(self, node)
            return
        before = dict(self.renames)
        rule(self, node)
        self.check_bindings(before, node)

    @statement_rule(ast.Pass)
    def stmt_Pass(self, node):
        pass

    @statement_rule(ast.Assert)
    def stmt_Assert(self, node):
        """As numba without debug=True: an assert is not checked (its test is still translated)."""
        self.condition(node.test)

    @statement_rule(ast.Expr)
    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        value = self.expr(node.value)
        if value.code:
            self.emit(value.code + ";")

    @statement_rule(ast.Assign)
    def stmt_Assign(self, node):
        if len(node.targets) != 1:
            self.fail(node, "chained assignment is not supported")
        self.assign(node.targets[0], node.value, node)

    def assign(self, target, value_node, node):
        if isinstance(target, ast.Tuple):
            self.unpack(target, self.expr(value_node), node)
            return
        try:
            value = self.expr(value_node)
        except TypeError as exc:  # a dtype with no device type (np.dtype("O")): numba cannot type the variable
            if not (isinstance(target, ast.Name) and "no device type for dtype" in str(exc)):
                raise
            self.fail(node, "Cannot infer the type of variable %r: %s" % (target.id, str(exc).split("\n")[0]))
        self.store(target, value, node)

    def unpack(self, target, value, node):
        """a, (b, c) = t: numbers and arrays through temporaries (so that a, b = b, a swaps), nested
        tuples item by item."""
        if value.items is None or len(value.items) != len(target.elts):
            self.fail(node, "unpacking needs a tuple of %d values" % len(target.elts))
        temps = []
        for item in value.items:
            if item.items is not None:
                temps.append(item)
                continue
            if not isinstance(item.type, (types.Scalar, types.Array)):
                self.fail(node, "only numbers, arrays and tuples of them can be unpacked")
            temp = self.module.unique("t")
            ctype = c_array_type(item.type) if isinstance(item.type, types.Array) else item.type.ctype
            self.emit("%s %s = %s;" % (ctype, temp, item.code))
            temps.append(Value(temp, item.type))
        for element, temp in zip(target.elts, temps):
            if isinstance(element, ast.Tuple):
                self.unpack(element, temp, node)
            else:
                self.store(element, temp, node)

    def store(self, target, value, node):
        field = self.field_target(target)
        if field is not None:  # r.x = value, a[i].x = value, r["x"] = value
            self.store_field(field[0], field[1], value, node)
            return
        if isinstance(target, ast.Name):
            name = self.binding(target.id, value)
            if self.emitting:
                self.assigned.add(name)
            if isinstance(value.type, types.Array):  # the last array stored (branches may store other layouts)
                if not self.emitting:
                    self.vars[name] = value.type
                elif c_array_type(value.type) != c_array_type(self.vars[name]):
                    self.fail(node, "a variable cannot hold both %s and %s" % (self.vars[name], value.type))
                self.emit("v_%s = %s;" % (name, value.code))  # declared at the top (declarations())
                return
            if value.items is not None:
                self.store_tuple(name, value, node)
                return
            if value.type is None:
                self.fail(node, "only numbers, tuples and arrays can be stored in variables")
            if name in self.params and self.vars[name] != value.type:
                value = Value(cast(value, self.vars[name]), self.vars[name])
            self.emit("v_%s = %s;" % (name, cast(value, self.settle_variable(name, value.type))))
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            indices = self.indices(target) if isinstance(base.type, types.Array) else None  # evaluated once
            if indices is not None and (
                len(indices) < base.type.ndim or any(isinstance(i, ast.Slice) for i in indices)
            ):
                self.assign_into_array(self.view(base, indices, target), value, node)  # a[:, j] = b, a[1:] = 0
                return
            ref, dtype = self.element(target, base, indices)
            if isinstance(dtype, types.Record):
                self.assign_record(ref, dtype, value, node)
                return
            self.emit("%s = %s;" % (ref, cast(value, dtype)))
        else:
            self.fail(node, "cannot assign to this")

    def settle_variable(self, name, t, unify=True):
        """The type of variable `name` once it holds a value of type t: unified with its earlier values (as numba
        types a variable) by the typing passes; the emitting pass reads the settled type, which it must be."""
        settled = typing.unify(self.vars.get(name), t) if unify else t
        if self.emitting:
            if settled != self.vars.get(name):  # the typing passes ended with types that still change
                raise KernelTypeError(
                    "internal error: variable %r typed as %s, emitted as %s" % (name, self.vars.get(name), settled)
                )
            return settled
        self.vars[name] = settled
        return settled

    def settle_return(self, t, unify=True):
        """The device function's return type once it returns a value of type t (settle_variable's rule)."""
        settled = typing.unify(self.return_type, t) if unify and self.return_type is not None else t
        if self.emitting and settled != self.return_type:
            raise KernelTypeError(
                "internal error: the return value typed as %s, emitted as %s" % (self.return_type, settled)
            )
        self.return_type = settled
        return settled

    def store_tuple(self, name, value, node):
        """t = (a, b): each item in its own C variable, typed by unification as a scalar would be."""
        old = self.vars.get(name)
        if name in self.params or (
            old is not None and not (isinstance(old, types.Tuple) and len(old.items) == len(value.items))
        ):
            self.fail(node, "a variable cannot hold both %s and %s" % (old, value.type))
        if not all(isinstance(item.type, types.Scalar) for item in value.items):
            self.fail(node, "tuples stored in variables hold numbers only")
        olds = old.items if old is not None else [None] * len(value.items)
        unified = [typing.unify(o, item.type) for o, item in zip(olds, value.items)]
        t = self.settle_variable(
            name,
            value.type.like(unified) if isinstance(value.type, types.NamedTuple) else types.Tuple(unified),
            unify=False,
        )
        temps = []
        for item, item_type in zip(value.items, t.items):  # through temporaries: t = t[1], t[0] swaps
            temps.append(self.module.unique("t"))
            self.emit("%s %s = %s;" % (item_type.ctype, temps[-1], cast(item, item_type)))
        for k, temp in enumerate(temps):
            self.emit("tv_%s_%d = %s;" % (name, k, temp))

    @statement_rule(ast.AugAssign)
    def stmt_AugAssign(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            self.fail(node, "unsupported operator")
        field = self.field_target(node.target)
        if field is not None:  # r.x += value: read, compute, write back
            current = self.field_value(field[0], field[1], node)
            self.store_field(field[0], field[1], self.binop(op, current, self.expr(node.value), node), node)
            return
        if isinstance(node.target, ast.Name):
            current = self.expr(node.target)  # the value it holds before: typed by the typing passes, as any read
            # `i += stride` where a while loop tests i: an induction variable, assumed not to overflow
            # (as a range() counter), so that NVVM can count the loop's trips and unroll it, as LLVM
            # does numba's; other integer arithmetic wraps
            induction = op in ("+", "-") and any(node.target.id in names for names in self.while_names)
            result = self.binop(op, current, self.expr(node.value), node, wraps=not induction)
            self.store(node.target, result, node)
        elif isinstance(node.target, ast.Subscript):
            ref, dtype = self.element(node.target)
            temp = self.module.unique("r")
            self.emit("%s &%s = %s;" % (dtype.ctype, temp, ref))
            result = self.binop(op, Value(temp, dtype), self.expr(node.value), node)
            self.emit("%s = %s;" % (temp, cast(result, dtype)))
        else:
            self.fail(node, "cannot assign to this")

    @statement_rule(ast.If)
    def stmt_If(self, node):
        value = self.expr(node.test)
        if value.type == types.none:  # `if None:`
            value = literal(False, types.boolean)
        if value.const is not None and value.items is None and not isinstance(value.const, complex):
            # a literal, a global or a compile-time argument: numba prunes the other branch
            self.emit("{")
            self.nested(node.body if value.const else node.orelse)
            self.emit("}")
            return
        before = dict(self.renames)
        self.emit("if (%s) {" % self.truth(value, node.test))
        self.nested(node.body)
        self.check_bindings(before, node)
        if node.orelse:
            self.emit("} else {")
            self.nested(node.orelse)
            self.check_bindings(before, node)
        self.emit("}")

    def nested(self, body):
        self.depth += 1
        self.block(body)
        self.depth -= 1

    def loop_else_begin(self, node):
        """A loop's `else:` runs when no `break` left it: its breaks set a flag declared here."""
        flag = self.module.unique("broke") if node.orelse else None
        if flag:
            self.emit("bool %s = false;" % flag)
        self.break_flags.append(flag)

    def loop_else_end(self, node):
        flag = self.break_flags.pop()
        if flag:
            self.emit("if (!%s) {" % flag)
            self.nested(node.orelse)
            self.emit("}")

    @statement_rule(ast.While)
    def stmt_While(self, node):
        self.loop_else_begin(node)
        self.emit("while (%s) {" % self.condition(node.test))
        self.loop_depth += 1
        self.while_names.append({n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)})
        self.nested(node.body)
        self.while_names.pop()
        self.loop_depth -= 1
        self.emit("}")
        self.loop_else_end(node)

    def range_loop(self, node):
        call = node.iter
        if not 1 <= len(call.args) <= 3 or call.keywords:
            self.fail(node, "range() takes one to three integers")
        if not isinstance(node.target, ast.Name):
            self.fail(node, "the loop variable must be a name")
        bounds = [self.expr(a) for a in call.args]
        for b in bounds:
            if not (typing.is_int(b.type) or b.type == types.boolean):
                self.fail(node, "range() takes integers, not %s" % b.type)
        one = literal(1, types.int64)
        if len(bounds) == 1:
            start, stop, step = literal(0, types.int64), bounds[0], one
        else:
            start, stop, step = (bounds + [one])[:3]
        kind = typing.promote(typing.promote(start.type, stop.type), step.type)
        if kind == types.float64:
            self.fail(node, "range() over a mix of int64 and uint64")
        name = self.binding(node.target.id, Value("", kind))
        self.settle_variable(name, kind)
        counter, limit, stride = (self.module.unique(s) for s in ("i", "stop", "step"))
        ctype = kind.ctype
        self.loop_else_begin(node)
        self.emit("{")
        self.depth += 1
        self.emit("%s %s = %s;" % (ctype, limit, cast(stop, kind)))
        self.emit("%s %s = %s;" % (ctype, stride, cast(step, kind)))
        if step.const is not None:
            condition = "%s %s %s" % (counter, "<" if step.const > 0 else ">", limit)
        else:
            condition = "(%s > 0 ? %s < %s : %s > %s)" % (stride, counter, limit, counter, limit)
        self.emit(
            "for (%s %s = %s; %s; %s += %s) {" % (ctype, counter, cast(start, kind), condition, counter, stride)
        )
        self.depth += 1
        self.emit("v_%s = %s;" % (name, cast(Value(counter, kind), self.vars[name])))
        if self.emitting:
            self.assigned.add(name)
        self.loop_depth += 1
        self.block(node.body)
        self.loop_depth -= 1
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        self.loop_else_end(node)

    @statement_rule(ast.Break)
    def stmt_Break(self, node):
        if self.break_flags and self.break_flags[-1]:
            self.emit("%s = true;" % self.break_flags[-1])
        self.emit("break;")

    @statement_rule(ast.Continue)
    def stmt_Continue(self, node):
        self.emit("continue;")

    @statement_rule(ast.Return)
    def stmt_Return(self, node):
        if not self.device:
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                self.expr(node.value)  # what it returns is typed first: its own errors are the ones to report
                self.fail(node, "a kernel cannot return a value: kernels must have void return type")
            self.emit("return;")
            return
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            if self.return_type not in (None, types.void):
                self.fail(node, "a device function returns a value on some paths and nothing on others")
            self.return_type = types.void
            self.emit("return;")
            return
        value = self.expr(node.value)
        if self.declared_return not in (None, types.void) and not isinstance(self.declared_return, types.Tuple):
            self.return_type = self.declared_return
            self.emit("return %s;" % cast(value, self.return_type))
            return
        if value.items is not None:
            self.return_tuple(value, node)
            return
        if isinstance(value.type, (types.Array, types.Record)):
            # an array (a view: ary[0] of a nested array) as its struct, by value; a record as the address of its
            # first byte, as records are held in kernels (the caller reads or copies it)
            if self.return_type not in (None, value.type):
                self.fail(
                    node,
                    "a device function returns %s on one path and %s on another" % (self.return_type, value.type),
                )
            self.return_type = value.type
            if isinstance(value.type, types.Record):  # its bytes, by value: the record may live in this frame
                temp = self.module.unique("rec")
                self.emit("%s %s;" % (self.module.record_struct(value.type), temp))
                self.emit("memcpy(%s.bytes, %s, %d);" % (temp, value.code, value.type.size))
                self.emit("return %s;" % temp)
                return
            self.emit("return %s;" % value.code)
            return
        if not isinstance(value.type, types.Scalar):
            self.fail(node, "device functions return numbers, arrays and tuples of numbers only")
        self.emit("return %s;" % cast(value, self.settle_return(value.type)))

    def return_tuple(self, value, node):
        old = self.return_type
        if old is not None and not (isinstance(old, types.Tuple) and len(old.items) == len(value.items)):
            recursive = (
                "Return type of recursive function does not converge: "
                if "recursion" in self.module.requirements
                else ""
            )
            self.fail(
                node, "%sa device function returns %s on one path and %s on another" % (recursive, old, value.type)
            )
        if not all(isinstance(item.type, types.Scalar) for item in value.items):
            self.fail(node, "device functions return tuples of numbers only")
        olds = old.items if old is not None else [None] * len(value.items)
        t = self.settle_return(
            types.Tuple([typing.unify(o, item.type) for o, item in zip(olds, value.items)]), unify=False
        )
        codes = ", ".join(cast(item, item_type) for item, item_type in zip(value.items, t.items))
        self.emit("return %s{%s};" % (self.module.tuple_struct(t), codes))

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, node):
        """The node's Value. Each node kind has a typing rule (rules.TYPING), run by the typing passes, which
        annotate the tree with its result, and a C rule (rules.C), run by the emitting pass on that annotation."""
        type_rule = rules.TYPING.get(type(node))
        if type_rule is None:
            self.fail(node, "unsupported expression (%s)" % type(node).__name__)
        annotation = self.tree.get(node) if self.emitting else None
        if annotation is None:  # typing; or a node no typing pass reached (a name never assigned: its error)
            annotation = self.typing_only(type_rule, self, node)
            self.tree.annotate(node, annotation)
        return rules.C[type(node)](self, node, annotation) if self.emitting else annotation

    def typing_only(self, rule, *args):
        """rule(*args) with no C written (typing mode), whichever pass this is."""
        emitting, self.emitting = self.emitting, False
        retyping, self.retyping = self.retyping, self.retyping or emitting
        try:
            return rule(*args)
        finally:
            self.emitting, self.retyping = emitting, retyping

    @typing_rule(ast.Constant)
    def type_Constant(self, node):
        value = node.value
        if isinstance(value, bool):
            return typed(types.boolean, const=value)
        if isinstance(value, int):
            if not -(2**63) <= value < 2**64:
                self.fail(node, "integer constant out of range")
            return typed(types.int64 if value < 2**63 else types.uint64, const=value)
        if isinstance(value, float):
            return typed(types.float64, const=value)
        if isinstance(value, complex):
            return typed(types.complex128, const=value)
        if value is None:  # numba's none type: false, and `x is None` is known when compiling
            return Value(type=types.none)
        if isinstance(value, str):  # a compile-time object: a dtype's name (dtype="int32"), a record's field
            return Value(obj=value)
        self.fail(node, "unsupported constant %r" % (value,))

    @c_rule(ast.Constant)
    def c_Constant(self, node, annotation):
        return literal(annotation.const, annotation.type) if annotation.code is not None else annotation

    @typing_rule(ast.Name)
    def type_Name(self, node):
        """What the name reads (how): a variable, or a value known when compiling (a constant, a global)."""
        name = node.id
        if name in self.local_functions:  # a function defined in this one
            return Value(obj=self.local_functions[name])
        if name in self.constants:
            return as_annotation(self.constants[name], ("value", self.constants[name]))
        variable = self.renames.get(name, name)  # the variable the name is bound to now (binding())
        if variable in self.vars:
            t = self.vars[variable]
            if isinstance(t, types.NumberClass):  # a type argument: a compile-time dtype
                return Value(obj=t.instance_type)
            if variable in self.single_constants:  # N = 100, assigned once: a constant (shapes), as numba infers
                return typed(t, const=self.single_constants[variable], how=("variable", variable))
            if isinstance(t, types.Tuple):
                return as_annotation(_tuple_value(variable, t), ("variable", variable))
            return typed(t, how=("variable", variable))
        if name in self.globals:
            return as_annotation(self.python_value(self.globals[name], node), ("global", self.globals[name]))
        import builtins

        if hasattr(builtins, name):
            return Value(obj=getattr(builtins, name))
        if name == self.pyfunc.__name__:  # itself, recursively, while its decorator compiles it (a signature given)
            return Value(obj=DeviceFunction(self.pyfunc))
        if self.retyping:  # the emitting pass: every name is known by now
            self.fail(node, "name %r is not defined" % name)
        raise _Unknown(name)

    @c_rule(ast.Name)
    def c_Name(self, node, annotation):
        kind, what = annotation.how or (None, None)
        if kind == "variable":
            return self.variable_value(what, node)
        if kind == "global":  # its C is made where it is read (a constant array's view, a captured array)
            return self.python_value(what, node)
        if kind == "value":
            return what
        return annotation  # a compile-time object

    def variable_value(self, name, node):
        """A variable's Value where it is read."""
        # Read before any assignment, outside a loop (where an earlier iteration may have
        # assigned it): Python would raise UnboundLocalError, so this is an error, not garbage.
        if self.emitting and name not in self.assigned and self.loop_depth == 0:
            self.fail(node, "local variable %r is used before it is assigned" % name)
        t = self.vars[name]
        if name in self.single_constants:
            return literal(self.single_constants[name], t)
        if isinstance(t, types.Tuple):
            return _tuple_value(name, t)
        return Value("v_%s" % name, t)

    @typing_rule(ast.Tuple)
    def type_Tuple(self, node):
        items = [self.expr(e) for e in node.elts]
        const = tuple(i.const for i in items) if all(i.const is not None for i in items) else None
        return Value(type=types.Tuple([i.type for i in items]), items=items, const=const)

    @c_rule(ast.Tuple)
    def c_Tuple(self, node, annotation):
        return Value(type=annotation.type, items=[self.expr(e) for e in node.elts], const=annotation.const)

    # -- calls ----------------------------------------------------------------------------------


def _tuple_value(path, t):
    """A tuple variable's Value: an item per C variable tv_<path>_<k>, nested tuples as nested Values."""
    items = []
    for k, item in enumerate(t.items):
        sub = "%s_%d" % (path, k)
        items.append(_tuple_value(sub, item) if isinstance(item, types.Tuple) else Value("tv_" + sub, item))
    return Value(type=t, items=items)


def _translated(translator):
    """translator.translate(); a KernelTypeError also numba's TypingError where numba's errors are loaded."""
    try:
        return translator.translate()
    except KernelTypeError as error:
        converted = typing.numba_compatible(error)
        if converted is error:
            raise
        raise converted from None


def translate_kernel(
    pyfunc,
    argtypes,
    name,
    externs=None,
    captured=None,
    launch_bounds=None,
    debug=False,
    lineinfo=False,
    fastmath=False,
):
    """The CUDA C of a kernel (and the device functions it calls). externs: a list that receives the
    declared device functions (cuda.declare_device) it calls; captured: one that receives the global
    device arrays it reads by pointer (the kernel must keep them alive); launch_bounds: numba's
    (max threads per block[, min blocks per SM[, max blocks per cluster]])."""
    module = ModuleBuilder(FunctionTranslator)
    module.debug = debug
    module.fastmath = fastmath
    module.lineinfo = lineinfo or debug
    translator = FunctionTranslator(pyfunc, argtypes, module, device=False, name=name)
    translator.launch_bounds = tuple(launch_bounds or ())
    text = _translated(translator)
    module.place(translator.called)
    module.pieces.append(text)
    if externs is not None:
        externs.extend(d for _wrapper, declared in module.externs.values() for d in declared)
    if captured is not None:
        captured.extend(module.captured)
    return module.source()


def typed_listing(pyfunc, argtypes):
    """The function's source with the type of each of its variables (and its return type): what
    Dispatcher.inspect_types prints, from a translation of these argument types."""
    module = ModuleBuilder(FunctionTranslator)
    translator = FunctionTranslator(pyfunc, argtypes, module, device=False, name="listing")
    translator.device = True  # a value it returns is typed, not refused
    _translated(translator)
    lines = ["# File: %s" % translator.filename, "# --- LINE %d --- " % translator.first_line]
    lines += translator.source_lines
    lines.append("# --- types ---")
    lines += ["#   %s: %s" % (name, t) for name, t in translator.vars.items()]
    lines.append("#   return: %s" % (translator.return_type or types.void))
    return "\n".join(lines)


def translate_device(pyfunc, argtypes, name, externs=None, declared_return=None, lineinfo=False):
    """The CUDA C of a device function (extern "C" __device__ for compile_ptx), and its return type (the
    declared one, where given: values convert to it)."""
    module = ModuleBuilder(FunctionTranslator)
    module.lineinfo = lineinfo
    translator = FunctionTranslator(pyfunc, argtypes, module, device=True, name=name)
    translator.declared_return = declared_return
    text = _translated(translator)
    module.place(translator.called)
    directive, _, rest = text.partition("\n") if text.startswith("#line") else ("", "", text)
    module.pieces.append((directive + "\n" if directive else "") + 'extern "C" ' + rest)
    if externs is not None:
        externs.extend(d for _wrapper, declared in module.externs.values() for d in declared)
    return module.source(), translator.return_type
