"""The rules of statements (assignments, if, while, range() loops, return, ...) and of names, constants and
tuples: a class of the rules that the passes (passes.py) inherit, `self` being the pass that runs them. Other
constructs' rules are in their modules (operators.py, indexing.py, calls.py, loops.py, ...)."""

import ast
import builtins
import types as pytypes

from numba_cuda_c import types
from numba_cuda_c.pyjit import bindings, exceptions, operators, optional, ssa, strings, typing
from numba_cuda_c.pyjit.devicefn import DeviceFunction
from numba_cuda_c.pyjit.folding import NOT_FOLDED, PYTHON_BINARY, PYTHON_COMPARE, float64_folded, python_folded
from numba_cuda_c.pyjit.module import _Unknown
from numba_cuda_c.pyjit.operators import BINOPS
from numba_cuda_c.pyjit.rules import c_rule, statement_rule, typing_rule
from numba_cuda_c.pyjit.values import Value, as_annotation, c_array_type, cast, literal, typed

# what a test numba may know when compiling is made of (no call, no store: typing it twice writes nothing twice)
_FOLDABLE = (ast.Constant, ast.Name, ast.Load, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.cmpop, ast.operator,
             ast.unaryop, ast.boolop)  # fmt: skip


def _calls_nothing(test):
    """Whether a test calls and stores nothing: pruning one of its jumps then skips no call of the others."""
    return not any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(test))


def _test_links(test):
    """The parts of a test CPython compiles to a jump each (`a and b`, `a < b == c` as `a < b` and `b == c`), or
    None for another test, or one that calls something (_calls_nothing)."""
    if not _calls_nothing(test):
        return None
    if isinstance(test, ast.BoolOp):
        return list(test.values)
    if isinstance(test, ast.Compare) and len(test.ops) > 1:
        lefts = [test.left] + test.comparators[:-1]
        return [
            ast.Compare(left=a, ops=[op], comparators=[b]) for a, op, b in zip(lefts, test.ops, test.comparators)
        ]
    return None


class Statements:
    def store(self, target, value, node):
        field = self.field_target(target)
        if field is not None:  # r.x = value, a[i].x = value, r["x"] = value
            self.store_field(field[0], field[1], value, node)
            return
        if isinstance(target, ast.Name) and value.obj is not None and value.code is None:
            self.store_object(target.id, value, node)  # f = lambda x: ..., dt = np.float32 (syntax.py)
            return
        if isinstance(target, ast.Name):
            name = self.binding(target.id, value, site=target)
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
                store_tuple(self, name, value, node)
                return
            if value.type is None:
                self.fail(node, "only numbers, tuples and arrays can be stored in variables")
            if name in self.params and self.vars[name] != value.type:
                value = optional.unwrapped(self, value)  # a parameter keeps its type: a number, not None
                value = Value(cast(value, self.vars[name]), self.vars[name])
            settled = self.settle_variable(name, value.type)
            if settled is not types.none:  # a variable that only ever holds None has no C
                self.emit("v_%s = %s;" % (name, cast(value, settled)))
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
            if isinstance(dtype, types.CharSeq):  # a[i] = b"XYZ" (strings.py)
                strings.assign_string(self, ref, dtype, value, node)
                return
            self.emit("%s = %s;" % (ref, cast(value, dtype)))
        else:
            self.fail(node, "cannot assign to this")

    def nested(self, body):
        self.depth += 1
        self.block(body)
        self.depth -= 1

    def known_test(self, test):
        """numba's dead-branch pruning, which runs after its SSA, on the jumps CPython compiles a test to: True or
        False where the test is a constant, a name, or one comparison or binary operation of two operands, each a
        literal or a name whose reaching store holds one (`j = 0` before `while j < 3:`, whatever the loop's body
        stores later), or is made of such jumps (`and`, `or`, `not`, chained comparisons, a nested conditional);
        else None."""

        def operand(node):
            folded = python_folded(node)
            if folded is NOT_FOLDED and isinstance(node, ast.Name) and node.id not in self.masked_constants:
                number, literal_store = self.stored_numbers.get(self.renames.get(node.id, node.id), (None, False))
                return number if literal_store else NOT_FOLDED  # a module's constant: not seen by the pruning
            return folded

        if isinstance(test, ast.Name):
            value = operand(test)
            return None if value is NOT_FOLDED else bool(value)
        folded = python_folded(test)  # CPython settles the jump on a constant
        if folded is not NOT_FOLDED and type(folded) in (int, bool, float, complex, str):
            return bool(folded)
        if isinstance(test, ast.IfExp) and _calls_nothing(test):  # a jump to either side's own jump
            chosen = self.known_test(test.test)
            if chosen is not None:
                return self.known_test(test.body if chosen else test.orelse)
            sides = self.known_test(test.body), self.known_test(test.orelse)
            return sides[0] if sides[0] == sides[1] else None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):  # CPython jumps on the operand
            inner = self.known_test(test.operand)
            return None if inner is None else not inner
        links = _test_links(test)
        if links is not None:  # one conditional jump each in CPython's bytecode, each pruned on its own
            decisive = isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)  # True decides an `or`
            known = [self.known_test(link) for link in links]
            if decisive in known:
                return decisive
            return None if None in known else not decisive
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in PYTHON_COMPARE:
            function, pair = PYTHON_COMPARE[type(test.ops[0])], (test.left, test.comparators[0])
        elif isinstance(test, ast.BinOp) and type(test.op) in PYTHON_BINARY:
            function, pair = PYTHON_BINARY[type(test.op)], (test.left, test.right)
        else:
            return None
        a, b = (operand(node) for node in pair)
        if a is NOT_FOLDED or b is NOT_FOLDED:
            return None
        try:
            return bool(function(a, b))
        except (ArithmeticError, TypeError, ValueError):
            return None

    def reads_module_constant(self, test):
        """Whether a test reads a module's constant (`if math.nan:`): numba's IR gets it by getattr, which its
        dead-branch pruning does not see through, so both branches stay (and are typed)."""
        return any(_module_attribute(self, n) for n in ast.walk(test))

    def stored_sign_clear(self, node):
        """Whether a name reads a store whose value's sign numba's LLVM knows is clear (operators.sign_clear)."""
        return isinstance(node, ast.Name) and self.renames.get(node.id, node.id) in self.sign_clear_stores

    def llvm_number(self, node):
        """The number numba's LLVM folds an expression to: CPython's folded constant, a module's constant
        (`math.inf`, read by getattr), a name whose store holds a number, either negated, float() of one, and
        + - * / of two such in float64 (`v * 1e308` where `v = 1e20`); else None."""
        folded = python_folded(node)
        if folded is not NOT_FOLDED:
            return folded if type(folded) in (bool, int, float) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            number = self.llvm_number(node.operand)
            if number is None:
                return None
            return -number if isinstance(node.op, ast.USub) else +number
        if isinstance(node, ast.BinOp):
            left, right = self.llvm_number(node.left), self.llvm_number(node.right)
            return None if left is None or right is None else float64_folded(type(node.op), left, right)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and len(node.args) == 1
            and not node.keywords
        ):
            convert = self.function.globals.get(node.func.id, getattr(builtins, node.func.id, None))
            number = self.llvm_number(node.args[0]) if convert is float else None
            return None if number is None else float(number)  # `float(1e20)`: sitofp or nothing, folded
        if _module_attribute(self, node):
            number = getattr(self.function.globals[node.value.id], node.attr, None)
            return number if type(number) in (bool, int, float) else None
        return self.stored_number(node)

    def stored_number(self, node):
        """The number a name reads where its reaching store holds a constant, as numba's LLVM sees it after its
        SSA (a module's constant too: `v = math.inf`), else None."""
        if isinstance(node, ast.Name) and node.id not in self.masked_constants:
            return self.stored_numbers.get(self.renames.get(node.id, node.id), (None, False))[0]
        return None

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
        kind = typing.range_type(bounds)  # the bounds as written: range(n) and range(0, n) may differ, as in numba
        if kind is None:
            self.fail(node, "range() takes integers, not %s" % ", ".join(str(b.type) for b in bounds))
        counter, limit, stride = (self.module.unique(s) for s in ("i", "stop", "step"))
        ctype = kind.ctype
        self.emit("{")
        self.depth += 1
        phis = loop_else_begin(self, node, [node.target])
        name = self.binding(node.target.id, Value("", kind), site=node.target)
        self.settle_variable(name, kind)
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
        ssa.loop_body_end(self, node.body, node)
        self.loop_depth -= 1
        self.depth -= 1
        self.emit("}")
        loop_else_end(self, node, phis)
        self.depth -= 1
        self.emit("}")

    def constant_value(self, value, node):
        """A constant's annotation: a literal (int64, or uint64 past it, a bool, a float64, a complex128) or a
        compile-time object."""
        if isinstance(value, bool):
            return typed(types.boolean, const=value)
        if isinstance(value, int):
            if not -(2**63) <= value < 2**64:  # numba's typeof refuses it (a constant CPython folded too)
                self.fail(node, "Int value is too large: %d" % value)
            return typed(types.int64 if value < 2**63 else types.uint64, const=value)
        if isinstance(value, float):
            return typed(types.float64, const=value)
        if isinstance(value, complex):
            return typed(types.complex128, const=value)
        if value is None:  # numba's none type: false, and `x is None` is known when compiling
            return Value(type=types.none)
        if isinstance(value, (str, bytes)):  # a compile-time object: a dtype's name, a record's field, a string
            return Value(obj=value)
        self.fail(node, "unsupported constant %r" % (value,))

    def variable_value(self, name, node):
        """A variable's Value where it is read."""
        # Read before any assignment, outside a loop (where an earlier iteration may have
        # assigned it): Python would raise UnboundLocalError, so this is an error, not garbage.
        if self.emitting and name not in self.assigned and self.loop_depth == 0:
            self.fail(node, "local variable %r is used before it is assigned" % name)
        t = self.vars[name]
        if name in self.function.single_constants:
            return literal(self.function.single_constants[name], t)
        if isinstance(t, types.Tuple):
            return _tuple_value(name, t)
        return Value("v_%s" % name, t)


def unpack(walk, target, value, node):
    """a, (b, c) = t: numbers and arrays through temporaries (so that a, b = b, a swaps), nested
    tuples item by item."""
    walk.refuse_range_as_tuple(value, node, "unpacked")
    if value.items is None or len(value.items) != len(target.elts):
        walk.fail(node, "unpacking needs a tuple of %d values" % len(target.elts))
    temps = []
    for item in value.items:
        if item.items is not None:
            temps.append(item)
            continue
        if not isinstance(item.type, (types.Scalar, types.Array)):
            walk.fail(node, "only numbers, arrays and tuples of them can be unpacked")
        temp = walk.module.unique("t")
        ctype = c_array_type(item.type) if isinstance(item.type, types.Array) else item.type.ctype
        walk.emit("%s %s = %s;" % (ctype, temp, item.code))
        temps.append(Value(temp, item.type))
    for element, temp in zip(target.elts, temps):
        if isinstance(element, ast.Tuple):
            unpack(walk, element, temp, node)
        else:
            walk.store(element, temp, node)


@statement_rule(ast.Pass)
def stmt_Pass(walk, node):
    pass


@statement_rule(ast.Assert)
def stmt_Assert(walk, node):
    """assert test[, message]: where the test fails, AssertionError(message) is raised, as numba compiles an
    assert (a raise of its own): with debug=True it is recorded and raised on the host after the launch; without,
    the thread ends there, as after any raise (exceptions.py)."""
    message = () if node.msg is None else (exceptions.constant_argument(walk, node.msg, node),)
    test = operators.condition(walk, node.test)
    walk.emit("if (!(%s)) { %s; }" % (test, exceptions.raise_code(walk, AssertionError, message)))


@statement_rule(ast.Expr)
def stmt_Expr(walk, node):
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return  # a docstring
    value = walk.optional_expr(node.value)  # a result that may be None, dropped: not checked
    if value.code:
        walk.emit(value.code + ";")


@statement_rule(ast.Assign)
def stmt_Assign(walk, node):
    if len(node.targets) != 1:
        walk.assign_chained(node)  # a = b = value (syntax.py)
        return
    value = assign(walk, node.targets[0], node.value, node)
    target = node.targets[0]
    if isinstance(target, ast.Name):  # numba's SSA knows the constant a store holds (stmt_While prunes on it)
        variable = walk.renames.get(target.id, target.id)
        walk.masked_constants.discard(target.id)
        # and numba's LLVM, whether its sign is clear (a % b's correction)
        if value is not None and operators.sign_clear(value):
            walk.sign_clear_stores.add(variable)
        else:
            walk.sign_clear_stores.discard(variable)
        number, literal_store = python_folded(node.value), True
        if number is NOT_FOLDED:  # `v = -math.inf`: LLVM's, not the pruning's
            number, literal_store = walk.llvm_number(node.value), False
        if type(number) in (int, bool, float):
            walk.stored_numbers[variable] = (number, literal_store)
        else:
            walk.stored_numbers.pop(variable, None)


def assign(walk, target, value_node, node):
    """target = the value of value_node; returns that value (None for a tuple unpacked)."""
    if isinstance(target, ast.Tuple):
        unpack(walk, target, walk.expr(value_node), node)
        return
    try:  # a variable may hold None (numba's Optional): anything else takes the value's number
        value = walk.optional_expr(value_node) if isinstance(target, ast.Name) else walk.expr(value_node)
    except TypeError as exc:  # a dtype with no device type (np.dtype("O")): numba cannot type the variable
        if not (isinstance(target, ast.Name) and "no device type for dtype" in str(exc)):
            raise
        walk.fail(node, "Cannot infer the type of variable %r: %s" % (target.id, str(exc).split("\n")[0]))
    walk.store(target, value, node)
    return value


def store_tuple(walk, name, value, node):
    """t = (a, b): each item in its own C variable, typed by unification as a scalar would be."""
    old = walk.vars.get(name)
    if name in walk.params or (
        old is not None and not (isinstance(old, types.Tuple) and len(old.items) == len(value.items))
    ):
        walk.fail(node, "a variable cannot hold both %s and %s" % (old, value.type))
    if not all(isinstance(item.type, types.Scalar) for item in value.items):
        walk.fail(node, "tuples stored in variables hold numbers only")
    olds = old.items if old is not None else [None] * len(value.items)
    unified = [typing.unify(o, item.type) for o, item in zip(olds, value.items)]
    t = walk.settle_variable(
        name,
        value.type.like(unified) if isinstance(value.type, types.NamedTuple) else types.Tuple(unified),
        unify=False,
    )
    temps = []
    for item, item_type in zip(value.items, t.items):  # through temporaries: t = t[1], t[0] swaps
        temps.append(walk.module.unique("t"))
        walk.emit("%s %s = %s;" % (item_type.ctype, temps[-1], cast(item, item_type)))
    for k, temp in enumerate(temps):
        walk.emit("tv_%s_%d = %s;" % (name, k, temp))


@statement_rule(ast.AugAssign)
def stmt_AugAssign(walk, node):
    op = BINOPS.get(type(node.op))
    if op is None:
        walk.fail(node, "unsupported operator")
    field = walk.field_target(node.target)
    if field is not None:  # r.x += value: read, compute, write back
        current = walk.field_value(field[0], field[1], node)
        walk.store_field(field[0], field[1], walk.binop(op, current, walk.expr(node.value), node), node)
        return
    if isinstance(node.target, ast.Name):
        current = walk.expr(node.target)  # the value it holds before: typed by the typing passes, as any read
        # `i += stride` where a while loop tests i: an induction variable, assumed not to overflow
        # (as a range() counter), so that NVVM can count the loop's trips and unroll it, as LLVM
        # does numba's; other integer arithmetic wraps
        induction = op in ("+", "-") and any(node.target.id in names for names in walk.while_names)
        result = walk.binop(op, current, walk.expr(node.value), node, wraps=not induction)
        walk.store(node.target, result, node)
    elif isinstance(node.target, ast.Subscript):
        ref, dtype = walk.element(node.target)
        temp = walk.module.unique("r")
        walk.emit("%s &%s = %s;" % (dtype.ctype, temp, ref))
        result = walk.binop(op, Value(temp, dtype), walk.expr(node.value), node)
        walk.emit("%s = %s;" % (temp, cast(result, dtype)))
    else:
        walk.fail(node, "cannot assign to this")


@statement_rule(ast.If)
def stmt_If(walk, node):
    short_circuit = isinstance(node.test, ast.BoolOp) and walk.emitting and walk.tree.get(node.test) is not None
    # `if a and b:` tests the operands' truths, short-circuited (typed already: its C written once)
    folded = python_folded(node.test)  # `if 5:` is no test in CPython's bytecode, whatever the constant
    known = walk.known_test(node.test) if folded is NOT_FOLDED else bool(folded)
    if known is not None:
        value = literal(known, types.boolean)
    else:
        value = walk.tree.get(node.test) if short_circuit else optional.test_value(walk, node.test)
    if value.type == types.none:  # `if None:`
        value = literal(False, types.boolean)
    if (
        value.const is not None
        and value.items is None
        and not isinstance(value.const, complex)
        and not walk.reads_module_constant(node.test)
    ):
        # a literal, a global or a compile-time argument: numba prunes the other branch
        walk.emit("{")
        walk.nested(node.body if value.const else node.orelse)
        walk.emit("}")
        optional.pruned_branch(walk, node.body if value.const else node.orelse)
        if folded is NOT_FOLDED:  # pruned by numba after its SSA (CPython leaves no branch for a folded test)
            mask_constants(walk, [node])
        return
    before = dict(walk.renames)
    phis = ssa.if_phis(walk, node)  # the numbers either branch stores meet after it (ssa.py)
    test = operators.condition_of_bool_op(walk, node.test) if short_circuit else walk.truth(value, node.test)
    walk.emit("if (%s) {" % test)
    walk.nested(node.body)
    bindings.check_bindings(walk, before, node)
    branches = [ssa.end_branch(walk, phis, node.body, node, before)]
    if node.orelse or phis:
        walk.emit("} else {")
        walk.nested(node.orelse)
        bindings.check_bindings(walk, before, node)
        branches.append(ssa.end_branch(walk, phis, node.orelse, node, before))
    walk.emit("}")
    ssa.join_if(walk, phis, branches, node)


def loop_else_begin(walk, node, target=(), entered=False):
    """Before a loop: the numbers its body (and its target) store copied into their phis at its head (ssa.py),
    and where an `else:` or a break's values must be told from a normal end, a flag its breaks set."""
    phis = ssa.loop_begin(walk, node, target, entered)
    flag = walk.module.unique("broke") if node.orelse or phis.exit else None
    if flag:
        walk.emit("bool %s = false;" % flag)
    walk.break_flags.append(flag)
    return phis


def loop_else_end(walk, node, phis):
    """After a loop: its `else:` where no break left it; the names as the loop leaves them."""
    ssa.loop_end(walk, phis)
    flag = walk.break_flags.pop()
    if flag:
        walk.emit("if (!%s) {" % flag)
        walk.nested(node.orelse)
        walk.depth += 1
        # `while True:` leaves by its breaks alone
        if ssa.reaches_end(node.orelse) and not ssa.never_ends(node):
            ssa.loop_exit(walk, phis, node)
        walk.depth -= 1
        walk.emit("}")
        ssa.bind_exit(walk, phis)


@statement_rule(ast.While)
def stmt_While(walk, node):
    if all(isinstance(n, _FOLDABLE) for n in ast.walk(node.test)):  # `while 0:`, `while n < 0:` after n = 0
        test = walk.tree.get(node.test) if walk.emitting else optional.test_value(walk, node.test)  # C written once
        # CPython tests before the loop apart from where iterations end, unless a continue jumps to that test
        known = None if ssa.has_break(node.body, ast.Continue) else walk.known_test(node.test)
        if (test.const is not None and test.items is None and not test.const) or known is False:
            walk.nested(node.orelse)  # numba prunes the loop: its else alone runs
            mask_constants(walk, [node])
            return
    else:
        known = None
    # a walrus in the test stores at each iteration's start; a first test known to pass leaves no way around
    phis = loop_else_begin(walk, node, [node.test], entered=known is True)
    walk.emit("while (%s) {" % operators.condition(walk, node.test))
    phis.after_test = {n: walk.renames[n] for n in ssa.stored_names([node.test]) if n in walk.renames}
    walk.loop_depth += 1
    walk.while_names.append({n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)})
    walk.nested(node.body)
    walk.depth += 1
    ssa.loop_body_end(walk, node.body, node)
    walk.depth -= 1
    walk.while_names.pop()
    walk.loop_depth -= 1
    walk.emit("}")
    loop_else_end(walk, node, phis)


def _module_attribute(walk, node):
    """Whether node reads an attribute of a module (math.inf, math.nan): numba's IR reads it by getattr."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and isinstance(walk.function.globals.get(node.value.id), pytypes.ModuleType)
        and node.value.id not in walk.renames
    )


def mask_constants(walk, statements):
    """After a branch or a loop numba pruned: the names they store hold a phi in numba's SSA (made before its
    pruning), which it cannot see through, so their constants are no longer known (until stored again)."""
    walk.masked_constants.update(ssa.stored_names(statements))


@statement_rule(ast.Break)
def stmt_Break(walk, node):
    if walk.ssa_loops:
        ssa.loop_break(walk, node)  # the values it leaves with, into the loop's exit phis
    if walk.break_flags and walk.break_flags[-1]:
        walk.emit("%s = true;" % walk.break_flags[-1])
    walk.emit("break;")


@statement_rule(ast.Continue)
def stmt_Continue(walk, node):
    if walk.ssa_loops:
        ssa.loop_back(walk, node)  # the next iteration's values, into the loop's head phis
    walk.emit("continue;")


@statement_rule(ast.Return)
def stmt_Return(walk, node):
    if not walk.device:
        if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            walk.expr(node.value)  # what it returns is typed first: its own errors are the ones to report
            walk.fail(node, "a kernel cannot return a value: kernels must have void return type")
        walk.emit("return;")
        return
    if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
        optional.return_none(walk, node)  # None: an Optional where other paths return numbers (optional.py)
        return
    value = walk.optional_expr(node.value)
    if value.type is types.none and value.items is None:  # a variable or argument that only holds None
        optional.return_none(walk, node)
        return
    if walk.function.declared_return not in (None, types.void) and not isinstance(
        walk.function.declared_return, types.Tuple
    ):
        walk.return_type = walk.function.declared_return
        if not isinstance(walk.return_type, types.Optional):
            value = optional.unwrapped(walk, value)
        walk.emit("return %s;" % cast(value, walk.return_type))
        return
    if value.items is not None:
        return_tuple(walk, value, node)
        return
    if isinstance(value.type, (types.Array, types.Record)):
        # an array (a view: ary[0] of a nested array) as its struct, by value; a record as the address of its
        # first byte, as records are held in kernels (the caller reads or copies it)
        if walk.return_type not in (None, value.type):
            walk.fail(
                node,
                "a device function returns %s on one path and %s on another" % (walk.return_type, value.type),
            )
        walk.return_type = value.type
        if isinstance(value.type, types.Record):  # its bytes, by value: the record may live in this frame
            temp = walk.module.unique("rec")
            walk.emit("%s %s;" % (walk.module.record_struct(value.type), temp))
            walk.emit("memcpy(%s.bytes, %s, %d);" % (temp, value.code, value.type.size))
            walk.emit("return %s;" % temp)
            return
        walk.emit("return %s;" % value.code)
        return
    if not isinstance(value.type, (types.Scalar, types.Optional)):
        walk.fail(node, "device functions return numbers, arrays and tuples of numbers only")
    if walk.return_type is not None and not isinstance(walk.return_type, (types.Scalar, types.Optional)):
        if walk.return_type is not types.void:
            walk.fail(
                node,
                "a device function returns %s on one path and %s on another" % (walk.return_type, value.type),
            )
    walk.emit("return %s;" % cast(value, walk.settle_return(value.type)))


def return_tuple(walk, value, node):
    old = walk.return_type
    if old is not None and not (isinstance(old, types.Tuple) and len(old.items) == len(value.items)):
        recursive = (
            "Return type of recursive function does not converge: "
            if "recursion" in walk.module.requirements
            else ""
        )
        walk.fail(
            node, "%sa device function returns %s on one path and %s on another" % (recursive, old, value.type)
        )
    if not all(isinstance(item.type, types.Scalar) for item in value.items):
        walk.fail(node, "device functions return tuples of numbers only")
    olds = old.items if old is not None else [None] * len(value.items)
    t = walk.settle_return(
        types.Tuple([typing.unify(o, item.type) for o, item in zip(olds, value.items)]), unify=False
    )
    codes = ", ".join(cast(item, item_type) for item, item_type in zip(value.items, t.items))
    walk.emit("return %s{%s};" % (walk.module.tuple_struct(t), codes))


# -- names, constants and tuples ----------------------------------------------------------------------
@typing_rule(ast.Constant)
def type_Constant(walk, node):
    return walk.constant_value(node.value, node)


@c_rule(ast.Constant)
def c_Constant(walk, node, annotation):
    return literal(annotation.const, annotation.type) if annotation.code is not None else annotation


@typing_rule(ast.Name)
def type_Name(walk, node):
    """What the name reads (how): a variable, or a value known when compiling (a constant, a global)."""
    name = node.id
    if name in walk.function.local_functions:  # a function defined in this one
        return Value(obj=walk.function.local_functions[name])
    if name in walk.constants:
        return as_annotation(walk.constants[name], ("value", walk.constants[name]))
    variable = walk.renames.get(name, name)  # the variable the name is bound to now (binding())
    if variable in walk.vars:
        t = walk.vars[variable]
        if t is types.none:  # a variable that only holds None: known when compiling, as the constant
            return Value(type=types.none)
        if isinstance(t, types.NumberClass):  # a type argument: a compile-time dtype
            return Value(obj=t.instance_type)
        if (
            variable in walk.function.single_constants
        ):  # N = 100, assigned once: a constant (shapes), as numba infers
            return typed(t, const=walk.function.single_constants[variable], how=("variable", variable))
        if isinstance(t, types.Tuple):
            return as_annotation(_tuple_value(variable, t), ("variable", variable))
        return typed(t, how=("variable", variable))
    if name in walk.function.globals:
        return as_annotation(
            walk.python_value(walk.function.globals[name], node), ("global", walk.function.globals[name])
        )
    import builtins

    # itself, recursively, while its decorator compiles it (a signature given): its global once bound, so before
    # a builtin of its name
    if name == walk.function.pyfunc.__name__:
        return Value(obj=DeviceFunction(walk.function.pyfunc))
    if hasattr(builtins, name):
        return Value(obj=getattr(builtins, name))
    if walk.retyping:  # the emitting pass: every name is known by now
        walk.fail(node, "NameError: name %r is not defined" % name)
    raise _Unknown(name)


@c_rule(ast.Name)
def c_Name(walk, node, annotation):
    kind, what = annotation.how or (None, None)
    if kind == "variable":
        value = walk.variable_value(what, node)
        if walk.stored_sign_clear(node):  # numba's LLVM sees the stored value's sign after its SSA
            value.nonnegative = True
        return value
    if kind == "global":  # its C is made where it is read (a constant array's view, a captured array)
        return walk.python_value(what, node)
    if kind == "value":
        return what
    return annotation  # a compile-time object


@typing_rule(ast.Tuple)
def type_Tuple(walk, node):
    items = [walk.expr(e) for e in node.elts]
    const = tuple(i.const for i in items) if all(i.const is not None for i in items) else None
    return Value(type=types.Tuple([i.type for i in items]), items=items, const=const)


@c_rule(ast.Tuple)
def c_Tuple(walk, node, annotation):
    return Value(type=annotation.type, items=[walk.expr(e) for e in node.elts], const=annotation.const)


def _tuple_value(path, t):
    """A tuple variable's Value: an item per C variable tv_<path>_<k>, nested tuples as nested Values."""
    items = []
    for k, item in enumerate(t.items):
        sub = "%s_%d" % (path, k)
        items.append(_tuple_value(sub, item) if isinstance(item, types.Tuple) else Value("tv_" + sub, item))
    return Value(type=t, items=items)
