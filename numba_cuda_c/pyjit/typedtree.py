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


class TypedTree:
    def __init__(self):
        self.annotations = {}  # id(node) -> (node, Value): the node kept, so that its id is not reused

    def annotate(self, node, value):
        self.annotations[id(node)] = (node, value)

    def get(self, node):
        """The node's annotation, or None (a node the typing passes did not reach)."""
        found = self.annotations.get(id(node))
        return found[1] if found is not None and found[0] is node else None
