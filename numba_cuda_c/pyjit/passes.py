"""The passes over a function's body: TypingPass and EmittingPass, the objects its rules run in.

A function (translate.py's FunctionTranslator) holds what the passes learn and share: its parameters, its variables'
types, its return type, the typed tree (typedtree.py), its constants, globals and AST. A pass holds what one walk
over the body needs: the C lines it writes, the declarations it hoists, the indentation, the names re-bound so far
(renames), the loops it is in (break flags, loop depth, while loops' names), the variables assigned so far, the
device functions called.

- A TypingPass runs each node's typing rule and annotates the tree with the result (its type, and how its C rule
  is to write it); statements settle the variables' and the return value's types (unified with the earlier
  values). It writes nothing: emit() and hoist() are no-ops. The function runs typing passes until the types stop
  changing.
- The EmittingPass, once, after: each node's C rule writes its C from the node's annotation and the settled types;
  a type that differs from the settled one is a translator bug (settle_variable). It types nothing, except a node
  no typing pass annotated (a name never assigned: its error), which it types in a RetypingPass.

Rules are registered by node kind (rules.py) and written as methods of the classes of their constructs
(statements.py, operators.py, indexing.py, ...), which Pass inherits: a rule's `self` is the pass running it, so it
calls expr() (typing or C, by the pass), emit() and the shared helpers as methods, and reads the function's state
through the pass (self.vars, self.module: the function's, FUNCTION_STATE). Library entries (pyjit/lib), extern.py
and datetimes.py are handed the pass as their `translator`.
"""

import ast
from operator import attrgetter

from numba_cuda_c.pyjit import (
    attributes,  # noqa: F401  (registers the attributes' rules)
    bindings,
    loops,  # noqa: F401  (registers the loops' rules)
    optional,
    rules,
    strings,  # noqa: F401  (registers the strings' rules)
    typing,
)
from numba_cuda_c.pyjit.bindings import Bindings
from numba_cuda_c.pyjit.calls import Calls
from numba_cuda_c.pyjit.exceptions import Raising
from numba_cuda_c.pyjit.indexing import Indexing
from numba_cuda_c.pyjit.intrinsics import Intrinsics
from numba_cuda_c.pyjit.module import _Unknown
from numba_cuda_c.pyjit.operators import Operators
from numba_cuda_c.pyjit.optional import OptionalValues
from numba_cuda_c.pyjit.pyvalues import PythonValues
from numba_cuda_c.pyjit.sequences import Sequences
from numba_cuda_c.pyjit.statements import Statements
from numba_cuda_c.pyjit.syntax import Syntax
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import Value, cast, typed

# The function's state that rules read through the pass (self.vars is self.function.vars): the same objects in
# every pass. return_type, which statements set, is a property of its own (Pass.return_type).
# The rest of it (its source, globals, SSA names and caches of rewrites) the rules that need it read as
# walk.function.X.
FUNCTION_STATE = (
    "argtypes", "module", "device", "node", "constants", "params", "vars", "tree",
)  # fmt: skip


class Pass(
    Statements,
    Syntax,
    Sequences,
    Calls,
    Bindings,
    Operators,
    Intrinsics,
    Indexing,
    Raising,
    PythonValues,
    OptionalValues,
):
    """One walk over a function's body: the typing passes' and the emitting pass's common part (each gives its own
    optional_expr(), and what a statement that reads a name not known yet does: untyped_statement())."""

    emitting = False  # whether C is written (EmittingPass)
    retyping = False  # typing in the emitting pass (RetypingPass): every name is known by now

    def __init__(self, function):
        self.function = function
        self.lines = []  # the C of the body's statements
        self.hoisted = []  # declarations at the top of the function (hoist())
        self.depth = 1  # the indentation of emitted lines
        self.renames = {}  # Python name -> the variable it is bound to now, where a store re-bound it (binding())
        self.break_flags = []  # per enclosing loop: the flag its breaks set when it has an else, or None
        self.ssa_loops = []  # per enclosing loop: its phis (ssa.LoopPhis), which breaks and continues copy into
        self.ssa_places = {}  # a store's place -> how many times this pass reached it (ssa.def_variable)
        self.masked_constants = set()  # names whose constants a pruned branch hides (mask_constants)
        # a store's variable -> (the number stored there, whether a literal: numba's pruning knows those, known_test;
        # LLVM knows a module's constant too, `v = math.inf`: stored_number)
        self.stored_numbers = {}
        self.sign_clear_stores = (
            set()
        )  # the variables whose store LLVM knows has its sign clear (stored_sign_clear)
        self.while_names = []  # the names each enclosing while loop's condition reads
        self.loop_depth = 0
        self.assigned = set(function.params)  # the variables assigned so far (a read before is an error)
        self.called = []  # the device functions the emitted code calls (ModuleBuilder.place)
        self.current_statement = None  # where an exception the statement can raise is (exceptions.py)

    @property
    def return_type(self):
        return self.function.return_type

    @return_type.setter
    def return_type(self, t):
        self.function.return_type = t

    def fail(self, node, message, cls=KernelTypeError):
        self.function.fail(node, message, cls)

    def expr(self, node):
        """The node's value (its annotation in a typing pass, its Value in the emitting pass), a value that may be
        None (numba's Optional) as its number (optional.py): where None is allowed, rules ask optional_expr()."""
        return optional.unwrapped(self, self.optional_expr(node))

    def run(self):
        self.block(self.node.body)
        return self

    def emit(self, line):
        """A line of C (the emitting pass's); a typing pass writes nothing."""

    def hoist(self, line):
        """A declaration at the top of the function (the emitting pass's); a typing pass writes nothing."""

    def block(self, statements):
        for statement in statements:
            try:
                self.statement(statement)
            except _Unknown:
                self.untyped_statement(statement)
            except KernelTypeError as exc:
                if getattr(exc, "located", False):
                    raise
                self.fail(statement, str(exc))  # raised by typing.py or dtype_of: say where
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                self.fail(statement, "cannot translate this: %s" % exc)
            if optional.ends_block(self, statement):  # what follows a return is never reached: not translated
                break

    def statement(self, node):
        self.current_statement = node
        rule = rules.STATEMENTS.get(type(node))
        if rule is None:
            self.fail(node, "unsupported statement (%s)" % type(node).__name__)
        if not isinstance(node, (ast.For, ast.While)):
            rule(self, node)
            return
        before = dict(self.renames)
        rule(self, node)
        bindings.check_bindings(self, before, node)

    def typing_rule(self, node):
        rule = rules.TYPING.get(type(node))
        if rule is None:
            kind = type(node).__name__
            self.fail(node, "unsupported expression (%s)%s" % (kind, INSTEAD.get(kind, "")))
        return rule


# What a kernel uses instead of a Python construct it cannot have: device code allocates nothing on a heap
INSTEAD = {
    "List": ": kernels have no lists; use cuda.local.array(n, dtype) (per thread) or cuda.shared.array (per block)",
    "ListComp": ": kernels have no lists; fill a cuda.local.array in a loop",
    "Dict": ": kernels have no dicts; use arrays indexed by integers",
    "DictComp": ": kernels have no dicts; use arrays indexed by integers",
    "Set": ": kernels have no sets; use an array of flags",
    "SetComp": ": kernels have no sets; use an array of flags",
    "JoinedStr": ": kernels have no strings to format; print() takes the values themselves",
}


for _name in FUNCTION_STATE:
    setattr(Pass, _name, property(attrgetter("function." + _name), doc="the function's " + _name))


class TypingPass(Pass):
    """A walk that types: each expression's typing rule, its result annotated in the tree; statements settle the
    variables' and the return value's types. A statement that reads a name not known yet (assigned later in a
    loop, or never) is skipped: the next pass types it (untyped)."""

    def __init__(self, function):
        super().__init__(function)
        self.untyped = []  # the statements skipped (a name not known yet)

    def optional_expr(self, node):
        """The node's annotation: its typing rule's result, recorded in the typed tree."""
        annotation = self.typing_rule(node)(self, node)
        self.tree.annotate(node, annotation)
        wider = None if self.retyping else self.tree.widen(node, annotation)
        return annotation if wider is None else typed(wider)  # what numba's type variable holds by now

    def untyped_statement(self, statement):
        self.untyped.append(statement)

    def settle_variable(self, name, t, unify=True):
        """The type of variable `name` once it holds a value of type t: unified with its earlier values, as numba
        types a variable (the emitting pass reads the settled type)."""
        settled = typing.unify(self.vars.get(name), t) if unify else t
        self.vars[name] = settled
        return settled

    def settle_return(self, t, unify=True):
        """The device function's return type once it returns a value of type t (settle_variable's rule)."""
        settled = typing.unify(self.return_type, t) if unify and self.return_type is not None else t
        self.return_type = settled
        return settled


class RetypingPass(TypingPass):
    """The typing rules the emitting pass runs on a node that no typing pass annotated (a name never assigned,
    whose error it raises: every name is known by now). It walks with the emitting pass's state (the same
    renames, flags and sets) and writes nothing."""

    retyping = True

    def __init__(self, emitting):  # not Pass's: the emitting pass's state, its dicts and lists the same objects
        vars(self).update(vars(emitting))


class EmittingPass(Pass):
    """The walk that writes C: each expression's C rule, from the node's annotation and the settled types."""

    emitting = True

    def optional_expr(self, node):
        """The node's Value, written by its C rule from the annotation the typing passes left."""
        rule = self.typing_rule(node)
        annotation = self.tree.get(node)
        if annotation is None:  # a node no typing pass reached (a name never assigned: its error)
            annotation = self.typing_only(rule, node)
            self.tree.annotate(node, annotation)
        value = rules.C[type(node)](self, node, annotation)
        wider = self.tree.widened_type(node)  # computed in its own type, stored in the wider (TypedTree.widen)
        return value if wider is None else Value(cast(value, wider), wider)

    def typing_only(self, rule, node):
        """A typing rule's annotation of the node, typed now (in a RetypingPass: no C written)."""
        return rule(RetypingPass(self), node)

    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    def hoist(self, line):
        """A declaration at the top of the function, whatever block asks for it (as numba allocates
        local arrays once, at entry): it lives as long as the variables that may point into it."""
        self.hoisted.append("    " + line + "\n")

    def statement(self, node):
        if self.module.lineinfo and hasattr(node, "lineno"):
            self.lines.append(self.function.line_directive(node.lineno))
        super().statement(node)

    def untyped_statement(self, statement):
        self.fail(statement, "a variable is used before it is assigned")

    def settle_variable(self, name, t, unify=True):
        """The settled type of variable `name`, which a value of type t must have given it: a type that still
        changes here is a translator bug (the typing passes ended too soon), not C of another type."""
        settled = typing.unify(self.vars.get(name), t) if unify else t
        if settled != self.vars.get(name):
            raise KernelTypeError(
                "internal error: variable %r typed as %s, emitted as %s" % (name, self.vars.get(name), settled)
            )
        return settled

    def settle_return(self, t, unify=True):
        """The settled return type (settle_variable's check)."""
        settled = typing.unify(self.return_type, t) if unify and self.return_type is not None else t
        if settled != self.return_type:
            raise KernelTypeError(
                "internal error: the return value typed as %s, emitted as %s" % (self.return_type, settled)
            )
        return settled
