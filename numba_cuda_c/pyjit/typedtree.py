"""The typed tree: what the typing passes learn about each expression of a function, for the emitter.

FunctionTranslator (translate.py) runs its typing passes until the variables' types settle; each pass
annotates every expression node it types with a Value that has a type (or is a compile-time object,
or a tuple of typed items), constant facts, and `how`: what the node's C rule needs to know (the
resolved call target, the operator's form, the variable a name reads). The last typing pass, the one
in which nothing changed, leaves the annotations the emitting pass reads: for a node kind with a C
rule (c_<Kind>), the emitter writes C from the annotation and types nothing. A node kind that still has
one combined rule (expr_<Kind>) is typed again while emitting, and must agree with its annotation: a
disagreement is a translator bug, reported as one (not C of another type).

Annotations are kept by node identity: the AST the passes walk is the same object every pass (loop
rewrites and unrolled bodies are made once, loops.py). A node a rule makes afresh each pass (pow(a, b) as
a ** b, operator.add(a, b) as a + b, f(*t)) has no annotation when emitting: FunctionTranslator.expr types
it there, before writing it."""

from numba_cuda_c.pyjit.typing import KernelTypeError


class TypedTree:
    def __init__(self):
        self.annotations = {}  # id(node) -> (node, Value): the node kept, so that its id is not reused

    def annotate(self, node, value):
        self.annotations[id(node)] = (node, value)

    def get(self, node):
        """The node's annotation, or None (a node the typing passes did not reach)."""
        found = self.annotations.get(id(node))
        return found[1] if found is not None and found[0] is node else None

    def check(self, node, value, annotation):
        """A combined rule's emitted value against its annotation: the same type (or both untyped)."""
        if annotation is None or (value.items is None) != (annotation.items is None):
            return
        if value.type != annotation.type and value.items is None:
            raise KernelTypeError(
                "internal error: %s typed as %s, emitted as %s" % (type(node).__name__, annotation.type, value.type)
            )
