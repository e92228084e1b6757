"""The typed tree: what the typing passes learn about each expression of a function, for the emitter.

FunctionTranslator (translate.py) runs typing passes (passes.py) until the variables' types settle; each pass
annotates every expression node it types with a Value that has a type (or is a compile-time object,
or a tuple of typed items), constant facts, and `how`: what the node's C rule needs to know (the
resolved call target, the operator's form, the variable a name reads). The last typing pass, the one
in which nothing changed, leaves the annotations the emitting pass reads: the emitter writes each
node's C from its annotation (its C rule, rules.py) and types nothing; statements read the variables' settled
types (settle_variable), and a difference is reported as a translator bug, not written as C of
another type.

Annotations are kept by node identity: the AST the passes walk is the same object every pass (loop
rewrites, unrolled bodies and calls rewritten as expressions are made once: loops.py, calls.py's
rewritten())."""

import ast

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.values import typed


class TypedTree:
    def __init__(self):
        self.annotations = {}  # id(node) -> (node, Value): the node kept, so that its id is not reused
        self.widened = {}  # id(node) -> (node, the number type its value is converted to: widen())

    def annotate(self, node, value):
        self.annotations[id(node)] = (node, value)

    def get(self, node):
        """The node's annotation, or None (a node the typing passes did not reach)."""
        found = self.annotations.get(id(node))
        return found[1] if found is not None and found[0] is node else None

    def widen(self, node, value):
        """The type an expression's value takes over the typing passes, as numba's type variables do: each round
        of its type inference unifies a variable's new type with what it had (a sum of a loop's phi is uint64 in
        the first round, int64 in the next: its variable is float64). For a number computed by a compound
        expression (its calls and operators resolved with this pass's types), the type it is converted to where
        it is stored, or None where that is its own type."""
        t = value.type
        if not _widens(value) or isinstance(node, (ast.Name, ast.Constant)):
            return None
        found = self.widened.get(id(node))
        earlier = found[1] if found is not None and found[0] is node else None
        wider = t if earlier is None else typing.unify(earlier, t)
        if wider is None or not _widens(typed(wider)):
            return None
        self.widened[id(node)] = (node, wider)
        return None if wider == t else wider

    def widened_type(self, node):
        """The emitting pass's: the type widen() settled on, where it is not the expression's own."""
        found = self.widened.get(id(node))
        if found is None or found[0] is not node:
            return None
        annotation = self.get(node)
        return None if annotation is None or annotation.type == found[1] else found[1]


def _widens(value):
    """A plain number (not a bool, a literal, a tuple or a compile-time object): what numba's unification widens."""
    t = value.type
    return (
        typing.is_number(t)
        and t != types.boolean
        and value.const is None
        and value.items is None
        and value.obj is None
    )
