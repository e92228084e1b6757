"""The translator's rules, registered by the AST node kind they translate (as pyjit/lib registers its library
entries by path): each kind of expression has a typing rule and a C rule, each kind of statement one rule, and each
kind of call target (what calls.py's call_target resolves a call to: "library", "device", "print", ...) a typing rule
and a C rule.

    @typing_rule(ast.BinOp)
    def type_BinOp(walk, node): ...            # -> the node's annotation (a Value: its type, and how)

    @c_rule(ast.BinOp)
    def c_BinOp(walk, node, annotation): ...   # -> the node's Value, its C written from the annotation

    @statement_rule(ast.If)
    def stmt_If(walk, node): ...

A rule is a function of the pass walking the function (passes.py: `walk`, which gives expr(), emit(), fail() and the
function's state) and the node, written at module level in the module of its construct (operators.py, indexing.py,
...); the helpers it shares with rules of other modules are module functions too, called by module
(`indexing.view(walk, ...)`), where that makes no circle of imports, and otherwise methods of a mixin of the passes.
The passes find a rule here by `type(node)`, never by its name: a kind with no rule is an unsupported construct."""

TYPING = {}  # ast node class -> its typing rule (pass, node) -> annotation
C = {}  # ast node class -> its C rule (pass, node, annotation) -> Value
STATEMENTS = {}  # ast node class -> its rule (pass, node)
CALL_TYPING = {}  # call target kind -> its typing rule (pass, node, func, what) -> annotation
CALL_C = {}  # call target kind -> its C rule (pass, node, annotation) -> Value


def _registrar(table):
    def register(*kinds):
        def record(rule):
            for kind in kinds:
                if kind in table:  # two rules for one kind: the second would silently win
                    raise ValueError(
                        "%s: a rule for %r is already registered (%s)" % (rule.__name__, kind, table[kind])
                    )
                table[kind] = rule
            return rule

        return record

    return register


typing_rule = _registrar(TYPING)
c_rule = _registrar(C)
statement_rule = _registrar(STATEMENTS)
call_typing_rule = _registrar(CALL_TYPING)
call_c_rule = _registrar(CALL_C)
