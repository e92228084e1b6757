"""Variables and the functions defined in a kernel (rules of the passes, passes.py): a name re-bound
to a value of another kind gets a variable of its own (numba's SSA), which loops and branches must end with as they
began; `def inner(...)` inside a kernel is a device function of its own, closing over the enclosing constants
(numba's make_function)."""

import ast
import copy

from numba_cuda_c import types
from numba_cuda_c.pyjit import ssa
from numba_cuda_c.pyjit.devicefn import DeviceFunction
from numba_cuda_c.pyjit.folding import python_folded
from numba_cuda_c.pyjit.rules import statement_rule


class Bindings:
    def binding(self, name, value, site=None):
        """The variable a store of `value` to the Python name goes to: the one the name is bound to now, unless the
        value cannot live there (an array of another type, an array where a number or a tuple was, a tuple of
        another length, or the reverse); then one of the name's variables it fits, or a new one (numba's SSA gives
        each binding its own type). Loads follow the name's latest binding; a loop or a branch must end with the
        bindings it started with (checked in statement()). A number stored at `site` (the target's node) goes to
        that store's own variable, as numba's SSA gives each assignment its own type (ssa.py)."""
        if site is not None and value.items is None and ssa.is_number_like(value.type):
            variable = self.renames[name] = ssa.def_variable(self, name, site)  # bound on this path, even to itself
            return variable
        current = self.renames.get(name, name)
        if current not in self.vars or _fits(self.vars[current], value):
            return current
        candidates = [name] + self.function.rebindings.get(name, [])
        fitting = next((c for c in candidates if c in self.vars and _fits(self.vars[c], value)), None)
        if fitting is None:
            fitting = "%s__%d" % (name, len(self.function.rebindings.get(name, [])) + 1)
            self.function.rebindings.setdefault(name, []).append(fitting)
        if fitting == name:
            self.renames.pop(name, None)
        else:
            self.renames[name] = fitting
        return fitting


def check_bindings(walk, before, node):
    """A loop's body (or a branch) must leave each name bound to the variable it started with: its next
    iteration, or the code after it, reads one variable whatever path ran."""
    for name in sorted(set(before) | set(walk.renames)):
        was, now = before.get(name, name), walk.renames.get(name, name)
        if any(ssa.is_number_like(walk.vars.get(v)) for v in (was, now)):
            continue  # numbers meet in phis (ssa.py)
        if was != now:
            walk.fail(
                node,
                "variable %r holds a %s here and a %s on another path: a variable that changes "
                "type must do so on every path"
                % (name, walk.vars.get(walk.renames.get(name, name)), walk.vars.get(before.get(name, name))),
            )


def nested_function(walk, node):
    """The Python function of a nested definition (a def, or a lambda), compiled from its lines in the file (so
    that it is read as any other function), its free names bound to what they are in the enclosing function:
    constants, compile-time arguments, functions. A variable of the enclosing function it reads becomes a
    keyword-only parameter of its own, whose default (Captured) reads the variable where the function is called
    in the function that defined it, as numba inlines a closure called there; called anywhere else (it escaped:
    passed to another function), numba's error."""
    if getattr(node, "decorator_list", None):
        walk.fail(node, "functions defined inside kernels take no decorators")
    inner_names = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    inner_names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    inner_names |= {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef)}
    free = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - inner_names
    namespace = dict(walk.function.globals)
    stores = _store_counts(walk.node)
    captured = {}
    for name in sorted(free):
        if name in walk.function.local_functions:
            namespace[name] = walk.function.local_functions[name].py_func
        elif name in walk.constants:
            value = walk.constants[name]
            namespace[name] = value.obj if value.code is None else value.const
        elif name in walk.function.single_constants:
            namespace[name] = walk.function.single_constants[name]
        elif name in walk.vars or stores.get(name):
            location = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
            captured[name] = Captured(name, walk.function, location, stores.get(name, 0) > 1)
    if not walk.function.source_lines:
        walk.fail(node, "a function defined inside a kernel needs the kernel's source (define it in a file)")
    definition = copy.deepcopy(node)
    if captured:  # def inner(val, *, z): z is read where inner is called (Captured)
        definition.args.kwonlyargs += [ast.arg(arg=name) for name in captured]
        definition.args.kw_defaults += [None] * len(captured)
    ast.increment_lineno(definition, walk.function.first_line - 1)  # the file's own lines: inspect finds it there
    if isinstance(node, ast.Lambda):
        function = eval(
            compile(ast.fix_missing_locations(ast.Expression(body=definition)), walk.function.filename, "eval"),
            namespace,
        )
    else:
        exec(
            compile(
                ast.fix_missing_locations(ast.Module(body=[definition], type_ignores=[])),
                walk.function.filename,
                "exec",
            ),
            namespace,
        )
        function = namespace[node.name]
    if captured:
        function.__kwdefaults__ = dict(function.__kwdefaults__ or {}, **captured)
    # its definition as the translator reads it (source.py): the parameters it was compiled with, its lines
    # counted from its first (as inspect's text of a function counts them)
    shape = copy.deepcopy(definition)
    ast.increment_lineno(shape, 1 - shape.lineno)
    if isinstance(node, ast.Lambda):
        body = [ast.Return(value=shape.body)]
        shape = ast.FunctionDef(name="lambda_", args=shape.args, body=body, decorator_list=[], returns=None)
        if hasattr(ast.FunctionDef, "type_params"):
            shape.type_params = []
        shape = ast.fix_missing_locations(ast.copy_location(shape, body[0].value))
    function.__ncc_definition__ = (
        walk.function.filename,
        walk.function.first_line + node.lineno - 1,
        walk.function.source_lines[node.lineno - 1 :],
        shape,
    )
    return function


def captured_value(walk, captured, node):
    """A variable a nested function reads (Captured): its value where the function is called, in the function
    that defined it; numba's error where the function escaped to another."""
    if captured.owner is not walk.function:
        if captured.multiple:
            walk.fail(
                node,
                "Cannot capture a constant value for variable %r as there are multiple definitions present."
                % captured.name,
            )
        walk.fail(
            node,
            "Cannot capture the non-constant value associated with variable %r in a function that may escape."
            % captured.name,
        )
    return walk.expr(captured.node)


@statement_rule(ast.FunctionDef)
def stmt_FunctionDef(walk, node):
    """def inner(...) inside a kernel or device function (numba's make_function): a device function of its
    own, called or passed on as a value, closing over the enclosing function's constants."""
    function = walk.function.nested_functions.get(id(node))
    if function is None:
        function = walk.function.nested_functions[id(node)] = nested_function(walk, node)
    walk.function.local_functions[node.name] = DeviceFunction(function)


class Captured:
    """The default of a nested function's parameter that stands for a variable of the function that defined it
    (nested_function): read there (captured_value)."""

    def __init__(self, name, owner, node, multiple):
        self.name, self.owner, self.node, self.multiple = name, owner, node, multiple

    def __repr__(self):
        return "<captured variable %s>" % self.name


def _fits(held, value):
    """Whether a variable of type `held` can take `value` (numbers unify; arrays and tuples keep their type)."""
    if isinstance(value.type, types.Array) or isinstance(held, types.Array):
        return held == value.type
    if value.items is not None or isinstance(held, types.Tuple):
        return isinstance(held, types.Tuple) and value.items is not None and len(held.items) == len(value.items)
    return True


def _store_counts(function):
    """{name: how many times it is assigned} in a function's body, nested functions' excluded."""
    counts = {}

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                counts[child.id] = counts.get(child.id, 0) + 1
            visit(child)

    visit(function)
    return counts


def _own_statements(body):
    """The statements of a body and of the blocks in it (branches, loops), not of functions defined in it."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _own_statements(getattr(statement, field, None) or [])


def _single_constants(function, params):
    """{name: value} of the locals assigned once in the function (in a branch or a loop too, not in a function defined
    in it), an int or a bool: numba knows their value where a constant is needed (cuda.shared.array(N, ...) after
    N = 100), and prunes the branches and loops they decide (`if n:`, `while n:`), as its literal typing does."""
    stores = _store_counts(function)
    found = {}
    for statement in _own_statements(function.body):
        if (
            isinstance(statement, ast.Assign)
            and all(isinstance(target, ast.Name) for target in statement.targets)  # a = b = 0 too
            and type(python_folded(statement.value)) in (int, bool)  # `n = 1 ** 2` too: CPython folds it
        ):
            for target in statement.targets:
                if stores.get(target.id) == 1 and target.id not in params:
                    found[target.id] = python_folded(statement.value)
    return found
