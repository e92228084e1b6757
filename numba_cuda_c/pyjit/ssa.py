"""numba's SSA for variables that hold numbers: each assignment has a type of its own, and types meet only where
control flow merges (numba's ReconstructSSA, then its type inference).

A store of a number (a bool, a datetime, None or an Optional) to a name goes to the variable of that store's place
in the source (`def_variable`): `t = u64[i]` then `t *= i64[i]` are two variables, uint64 and int64, as numba's `t`
and `t.1`. Reads follow the name's latest store (the pass's renames). Where paths meet, a phi variable per name and
merge point takes each path's value, converted to the type that holds them all (numba's unification), by a copy at
the end of each path that reaches the merge:
- after an `if`: the names either branch stores (`if_phis`, `end_branch`, `join_if`);
- at a loop's head: the names its body stores (the loop's target too), copied before the loop, at the end of its
  body and at each `continue` (`loop_begin`, `loop_back`); after it, where a `break` leaves it, one more phi for the
  exit (`loop_break`, `loop_end`);
- an unrolled loop (literal_unroll, a tuple): one phi per name for its copies of the body and its else clause
  (`unrolled_begin`, LoopPhis of kind "unrolled").

Arrays, tuples and records keep bindings.py's rule (a variable per kind of value, the same on every path).
A phi's type unifies over the typing passes, as numba's type variables do; a store's variable is typed by its value.
"""

import ast

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.values import Value, cast


def apply_pending(function):
    """Before a typing pass: the loops' back edges of the last pass widen their phis."""
    for phi, t in function.ssa_pending.items():
        function.vars[phi] = typing.unify(function.vars.get(phi), t)
    function.ssa_pending.clear()


def is_number_like(t):
    """Whether a value of type t is a number for SSA: numbers, bools, datetimes, None and Optionals."""
    return isinstance(t, (types.Scalar, types.Optional)) or t is types.none


def stored_names(statements):
    """The names these statements store to (assignments, augmented assignments, loop targets, :=), in the order
    first stored; not those of functions defined in them."""
    found = {}

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                found.setdefault(child.id, None)
            visit(child)

    for statement in statements:
        if isinstance(statement, ast.Name) and isinstance(statement.ctx, ast.Store):
            found.setdefault(statement.id, None)
        visit(statement)
    return list(found)


def def_variable(translator, name, site):
    """The variable of a store of a number to `name` at `site` (the target's node): the name itself for its first
    store (a parameter is its own), `name__sN` for the others."""
    names = translator.function.ssa_names
    # a place in the source, the same in every pass (rewrites make their nodes anew), and which time the pass
    # reaches it (an unrolled loop's bodies are copies of one place)
    place = (
        name,
        getattr(site, "lineno", None),
        getattr(site, "col_offset", None),
        getattr(site, "end_col_offset", None),
    )
    seen = translator.ssa_places[place] = translator.ssa_places.get(place, -1) + 1
    key = ("def",) + place + (seen,)
    variable = names.get(key)
    if variable is None:
        count = names.get(("count", name), 0)
        if count == 0 and name not in translator.params and name not in translator.vars:
            variable = name
        else:
            count = max(count, 1)
            variable = "%s__s%d" % (name, count)
            while variable in translator.vars:  # a name another kind of value holds
                count += 1
                variable = "%s__s%d" % (name, count)
        names[("count", name)] = count + 1
        names[key] = variable
    return variable


def _phi_variable(translator, name, node, kind):
    """The phi variable of `name` at a merge point (an if, a loop's head or exit): `name__pN`."""
    names = translator.function.ssa_names
    key = (kind, name, id(node))
    variable = names.get(key)
    if variable is None:
        count = names.get(("phis", name), 0) + 1
        names[("phis", name)] = count
        variable = names[key] = "%s__p%d" % (name, count)
    return variable


def _bound(translator, name):
    """(variable, type) `name` is bound to on this path, or None (a name no store on this path reached: numbers'
    stores always bind, parameters are bound from the start; or a type not known yet)."""
    variable = translator.renames.get(name, name)
    t = translator.vars.get(variable)
    if name not in translator.renames and name not in translator.params and (t is None or is_number_like(t)):
        return None  # an array's or a tuple's variable named as its name is bound without a rename (bindings.py)
    return None if t is None else (variable, t)


def _refuse_mix(translator, name, other, number, node):
    """numba's SSA cannot unify a number with an array (or a tuple) where paths meet."""
    translator.fail(
        node,
        "variable %r holds a %s here and a %s on another path: a variable that changes type must do so on every path"
        % (name, other, number),
    )


def _copy(translator, phi, name, node, back_edge=False):
    """phi = the value `name` holds now, converted to the phi's type (unified with it): one incoming edge. Gives the
    (variable, type) copied from, None where the name holds no number here. A loop's back edge widens the phi's type
    from the next typing pass on (function.ssa_pending), as numba's type inference sees it: its rounds type the
    head's phi before the body whose values come back to it, so the code after the loop is first typed with the
    phi as it entered the loop (and its types, unified over the rounds, keep that), except where the value is a
    literal, which numba types before its first round."""
    bound = _bound(translator, name)
    if bound is None:
        return None
    variable, source = bound
    if not is_number_like(source):
        if phi in translator.vars:
            _refuse_mix(translator, name, source, translator.vars[phi], node)
        return None
    # a literal's store is typed from the first round: numba types a constant when it builds its constraints
    literal = translator.stored_numbers.get(variable, (None, False))[1]
    if back_edge and not translator.emitting and phi in translator.vars and not literal:
        pending = translator.function.ssa_pending
        pending[phi] = typing.unify(pending.get(phi), source)
        settled = translator.vars[phi]
    else:
        settled = translator.settle_variable(phi, source)
    if settled is not types.none and translator.emitting:  # a typing pass writes nothing (nor converts: a back
        # edge's complex meets a phi still typed as it entered, widened only in the next pass)
        value = translator.variable_value(variable, node) if source is not types.none else Value(type=types.none)
        translator.emit("v_%s = %s;" % (phi, cast(value, settled)))
    if translator.emitting:
        translator.assigned.add(phi)
    return bound


def _bind(translator, name, variable):
    translator.renames[name] = variable  # even to itself: the name is bound on this path


def reaches_end(body):
    """Whether control can leave these statements at their end (not by return, raise, break or continue)."""
    for statement in body:
        if isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            return False
        if isinstance(statement, ast.If) and not (reaches_end(statement.body) or reaches_end(statement.orelse)):
            return False
        if never_ends(statement) and not has_break(statement.body):
            return False
    return True


def never_ends(loop):
    """Whether a loop's test never fails (`while True:`): control leaves it by a break, a return or a raise."""
    return isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) and bool(loop.test.value)


def has_break(body, kind=ast.Break):
    """Whether a loop's body has a break (or a continue: `kind`) of its own (not one of a loop inside it)."""
    for statement in body:
        if isinstance(statement, kind):
            return True
        if isinstance(statement, (ast.For, ast.While)):
            if has_break(statement.orelse, kind):
                return True
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            if has_break(getattr(statement, field, None) or [], kind):
                return True
    return False


# -- if ------------------------------------------------------------------------------------------------------------
def if_phis(translator, node):
    """{name: phi variable} of an `if` whose test is not known when compiling: the names its branches store."""
    return {name: _phi_variable(translator, name, node, "if") for name in stored_names(node.body + node.orelse)}


def end_branch(translator, phis, body, node, before):
    """At the end of a branch: its values copied into the phis (where the branch reaches the end), then the names
    bound as before the `if` for the other branch. Gives {name: type} of what the branch leaves each name with."""
    reached = {}
    if reaches_end(body):
        translator.depth += 1
        for name, phi in phis.items():
            bound = _bound(translator, name)
            if bound is not None:
                reached[name] = bound[1]
                if is_number_like(bound[1]):
                    _copy(translator, phi, name, node)
        translator.depth -= 1
    for name in phis:
        if name in before:
            translator.renames[name] = before[name]
        else:
            translator.renames.pop(name, None)
    return reached


def join_if(translator, phis, branches, node):
    """After the `if`: each name the branches that reach its end left with numbers is its phi (a number on one path
    and an array on another is numba's error)."""
    for name, phi in phis.items():
        held = [branch[name] for branch in branches if name in branch]
        numbers = [t for t in held if is_number_like(t)]
        others = [t for t in held if not is_number_like(t)]
        if numbers and others:
            _refuse_mix(translator, name, others[0], numbers[0], node)
        if numbers:
            _bind(translator, name, phi)


# -- loops ---------------------------------------------------------------------------------------------------------
class LoopPhis:
    """The phis of one loop: at its head (what an iteration starts with) and at its exit (where breaks leave)."""

    def __init__(self, translator, node, names, kind):
        self.kind = kind  # "loop", or "unrolled": a body per item, no back edge
        self.entered = False  # a while loop whose first test is known to pass (loop_begin)
        self.after_test = {}  # a while loop's names its test stores: the variables they hold when it fails
        self.head = {name: _phi_variable(translator, name, node, kind) for name in names}
        # a while loop tests before it starts and again at the end of each iteration (CPython's bytecode, which
        # numba reads): where the test fails, the value before the loop or the iteration's meet, typed as they
        # come (forward), not through the head's phi
        self.tested = kind == "loop" and isinstance(node, ast.While) and not never_ends(node)
        # where a break skips the loop's else clause, what the clause stores meets the break's values too
        exit_names = names + [n for n in stored_names(getattr(node, "orelse", [])) if n not in names]
        self.exit = (
            {name: _phi_variable(translator, name, node, "exit") for name in exit_names}
            if kind == "loop" and (has_break(node.body) or self.tested) and exit_names
            else {}
        )


def loop_begin(translator, node, extra=(), entered=False):
    """Before a loop (its range's bounds evaluated): each name its body stores copied into its head phi, the names
    bound to the phis; the loop's phis pushed for its breaks and continues. `entered`: a while loop whose first test
    is known to pass (numba pruned its failing edge), so its exit does not meet the values before it."""
    names = stored_names(list(extra) + list(node.body))
    phis = LoopPhis(translator, node, names, "loop")
    phis.entered = entered
    _enter(translator, phis, node)
    return phis


def _enter(translator, phis, node):
    """The names bound to the head phis, the values they hold before the loop copied in; the phis pushed."""
    for name, phi in phis.head.items():
        if phis.tested and not phis.entered:
            _type_exit(translator, phis, name)
        if _copy(translator, phi, name, node) is not None or phi in translator.vars:
            _bind(translator, name, phi)
    translator.ssa_loops.append(phis)


def _type_exit(translator, phis, name):
    """A while loop's exit phi takes the type `name` holds here (where the test may fail next), no copy."""
    bound = _bound(translator, name)
    if bound is not None and is_number_like(bound[1]):
        translator.settle_variable(phis.exit[name], bound[1])


def loop_back(translator, node):
    """The end of an iteration (the body's end, a continue): the values copied into the head phis."""
    phis = translator.ssa_loops[-1]
    for name, phi in phis.head.items():
        if phis.tested and phis.entered:  # the loop leaves from this test alone: its values are the exit's
            _copy(translator, phis.exit[name], name, node)
        elif phis.tested:
            _type_exit(translator, phis, name)
        _copy(translator, phi, name, node, back_edge=phis.kind == "loop")


def loop_break(translator, node):
    """A break: the values copied into the exit phis (an unrolled loop's one phi)."""
    phis = translator.ssa_loops[-1]
    for name, phi in (phis.exit if phis.kind == "loop" else phis.head).items():
        _copy(translator, phi, name, node)


def loop_body_end(translator, body, node):
    """After the body's statements: where control reaches the end, the next iteration's values."""
    if reaches_end(body):
        loop_back(translator, node)


def loop_end(translator, phis):
    """After the loop (its else clause not yet): the names bound to the head phis, which the loop leaves with when
    its test fails."""
    translator.ssa_loops.pop()
    for name, phi in phis.head.items():
        if name in phis.after_test:
            _bind(translator, name, phis.after_test[name])
        elif phis.entered and phis.exit.get(name) in translator.vars:  # copied where the test failed (loop_back)
            _bind(translator, name, phis.exit[name])
        elif phi in translator.vars:
            _bind(translator, name, phi)


def loop_exit(translator, phis, node):
    """Where a loop with breaks ends normally (after its else clause): the values copied into the exit phis; then
    the names bound to them, for the code after the loop."""
    for name, phi in phis.exit.items():
        _copy(translator, phi, name, node)


def _bind_typed(translator, phis):
    """The names bound to those of their phis ({name: phi}) that have a type (a value reached them)."""
    for name, phi in phis.items():
        if phi in translator.vars:
            _bind(translator, name, phi)


def bind_exit(translator, phis):
    _bind_typed(translator, phis.exit)


def unrolled_begin(translator, node, bodies):
    """Before an unrolled loop: one phi per name its bodies store, which each body's end, continue and break copy
    into, and which the next body starts from."""
    names = stored_names([s for body in bodies for s in body])
    phis = LoopPhis(translator, node, names, "unrolled")
    _enter(translator, phis, node)
    return phis


def unrolled_body_end(translator, phis, body, node):
    if reaches_end(body):
        loop_back(translator, node)
    _bind_typed(translator, phis.head)


def unrolled_end(translator):
    translator.ssa_loops.pop()


def unrolled_else_end(translator, phis, node):
    """After an unrolled loop's else clause: its values copied into the phis, which the names are bound to."""
    if node.orelse and reaches_end(node.orelse):
        for name, phi in phis.head.items():
            _copy(translator, phi, name, node)
    _bind_typed(translator, phis.head)
