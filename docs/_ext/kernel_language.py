"""The kernel-language tables of the documentation (docs/kernel_language.rst), made at build time from the
translator's own registries, so that they cannot drift from it:

- the syntax: the AST node kinds that have a rule in numba_cuda_c/pyjit/rules.py (STATEMENTS, TYPING, and the call
  target kinds of CALL_TYPING / CALL_C), the operators of pyjit/operators.py (BINOPS, COMPARES), and the Python
  statement and expression kinds that have no rule (refused by the translator);
- the library: every entry of pyjit/lib's TABLE (pyjit/lib/table.py, filled by the families pyjit/lib/__init__.py
  loads), grouped by family, each spelled as a kernel writes it.

The words beside each kind are written here (NOTES, CALL_NOTES, FAMILY_TITLES); a kind the translator registers
without words here, or words for a kind it no longer registers, is an error (`Drift`), which fails the docs build.

`syntax_rst()` and `library_rst()` return the reStructuredText; they need no Sphinx (tests/interop/
test_docs_examples.py calls them). `setup(app)` registers the directive `.. kernel-language:: syntax|library`."""

import ast

# The words for each AST node kind with a rule: (what a kernel writes, notes). Keyed by the kind's name.
NOTES = {
    # statements (rules.STATEMENTS)
    "Assign": (
        "``x = e``, ``a[i] = e``, ``a, b = t``",
        "Variables hold numbers, arrays and tuples of numbers; numbers stored in one variable unify, as numba types "
        "them. A name re-bound to a value of another kind (an array of another type, a tuple of another length) gets "
        "a variable of its own, as numba's SSA, and loops and branches must end with the bindings they began with. "
        "Chained (``x = y = e``).",
    ),
    "AugAssign": ("``x += e``, ``a[i] *= e``", "Every operator of the table below."),
    "If": (
        "``if`` / ``elif`` / ``else``",
        "A condition known when compiling (``if N > 4`` on a global) prunes the other "
        "branch, as numba's branch pruning.",
    ),
    "While": ("``while c:``", "With ``break`` and ``continue``."),
    "For": (
        "``for i in range(...)``",
        "Over ``range``, arrays (a view per item for two or more dimensions), tuples (the body once per item), "
        "``enumerate``, ``zip`` and ``cuda.literal_unroll`` (numba's ``literal_unroll``).",
    ),
    "Break": ("``break``", ""),
    "Continue": ("``continue``", ""),
    "Return": (
        "``return e``",
        "Kernels return nothing; device functions return numbers, arrays and tuples of numbers.",
    ),
    "Pass": ("``pass``", ""),
    "Expr": ("a call as a statement", "``cuda.syncthreads()``, ``print(...)``, a device function's call."),
    "Assert": (
        "``assert c``",
        "Checked with ``debug=True, opt=False`` (the launch raises AssertionError, as numba's); otherwise not "
        "checked, as numba's.",
    ),
    "Raise": (
        "``raise ValueError('why')``",
        "An exception class with constant arguments; the launch raises it on the host, naming the thread and block.",
    ),
    "FunctionDef": ("``def inner(...):``", "A function defined inside a kernel or device function (closures)."),
    # expressions (rules.TYPING and rules.C)
    "Name": (
        "``x``",
        "A variable, or a global read when compiling (a number, a NumPy array frozen in, a function).",
    ),
    "Constant": (
        "``1``, ``2.5``, ``1j``, ``True``, ``None``",
        "Strings as names (a dtype, a record field), in ``print``, and stored into S and U arrays and record "
        "fields (cut or padded with zeros, as NumPy stores them).",
    ),
    "Tuple": (
        "``(a, b)``",
        "Of numbers and arrays; as arguments, variables and device functions' results; sliced (``t[1:]``) and "
        "concatenated (``t + (x,)``).",
    ),
    "BinOp": ("``a + b``", "The operators of the table below, with numba's typing of mixed types."),
    "UnaryOp": ("``-a``, ``+a``, ``~a``, ``not a``", ""),
    "BoolOp": ("``a and b``, ``a or b``", ""),
    "Compare": ("``a < b``", "Chained (``a < b < c``), ``is`` / ``is not`` (``x is None``), ``in`` a tuple."),
    "IfExp": ("``a if c else b``", "None on one side and a number on the other: an Optional, as numba types it."),
    "NamedExpr": ("``(x := e)``", "Binds a number or an array, as an assignment."),
    "Lambda": ("``f = lambda x: e``", "Bound to a name and called in the kernel, as a function defined there."),
    "Attribute": (
        "``a.shape``, ``cuda.threadIdx.x``",
        "Array attributes (``shape``, ``strides``, ``size``, ``ndim``, ``dtype``, ``T``, ``real``, ``imag``), "
        "record and namedtuple fields, vector members (``v.x``), ``math`` and ``cmath`` constants.",
    ),
    "Subscript": (
        "``a[i, j]``, ``a[1:, ::2]``",
        "Indexing and slicing arrays (views), records by field name, tuples by a constant.",
    ),
    "Call": ("``f(x)``", "What is called is one of the call targets of the next table."),
}

# The words for each call-target kind (rules.CALL_TYPING / rules.CALL_C), keyed by the kind.
CALL_NOTES = {
    "library": "A device library function: the entries of the library tables below.",
    "device": "A ``@cuda.jit(device=True)`` function (or a kernel, called as one), a function defined inside the "
    "kernel, a ``@numba.jit`` function, or a function with numba's ``@overload`` (where numba is loaded).",
    "extern": "A function declared with ``cuda.declare_device`` and linked in (``link=``).",
    "print": "``print(...)`` of string constants and numbers (printf on the device).",
    "new_array": "``cuda.shared.array(shape, dtype)`` and ``cuda.local.array(shape, dtype)``: a constant shape.",
    "const_array": "``cuda.const.array_like(a)``: a global NumPy array in constant memory.",
    "syncwarp": "``cuda.syncwarp(mask)``.",
    "ufunc": "A NumPy ufunc on numbers, or into an ``out`` array (``np.sin(x)``, ``np.add(a, b, out)``).",
    "array_view": "``a.reshape(...)``, ``a.view(dtype)``, ``a.transpose()``, ``a.fill(v)``.",
    "pointer_array": "``carray(ptr, shape, dtype)`` / ``farray`` of ``numba_cuda_c.np.numpy_support``: an array "
    "over the memory a pointer argument points at.",
    "dtype": "``np.dtype('int32')``: a type known when compiling.",
    "rewrite": "Calls written as operators: ``pow(a, b)``, ``operator.add(a, b)``.",
    "known": "A call whose result is known when compiling (``len`` of a tuple, ``isinstance``).",
    "spread": "``f(*t)``: a tuple spread into arguments.",
    "range": "``range(...)`` as a value: stored in a variable, then iterated or measured (``len(r)``).",
}

# Each library family's title (the module of pyjit/lib its entries are registered by).
FAMILY_TITLES = {
    "core": "Threads, barriers and bit functions (``cuda.*``)",
    "warp": "Warp functions (``cuda.*``)",
    "atomics": "Atomics and cache hints (``cuda.atomic.*``, ``cuda.ldca``, ...)",
    "cg": "Cooperative groups (``cuda.cg``)",
    "pymath": "``math`` and ``cmath``",
    "pybuiltins": "Python built-in functions",
    "numbers": "Number methods and CUDA vector types",
    "arrays": "NumPy reductions on arrays",
    "random_numbers": "Random numbers (``numba_cuda_c.random``, numba's ``numba.cuda.random``)",
    "fp16": "float16 (``cuda.fp16``)",
    "bf16": "bfloat16 (``numba_cuda_c.bf16``, numba's ``numba.cuda.bf16``)",
    "fp8": "FP8 (``numba_cuda_c.fp8``, numba's ``numba.cuda._internal.cuda_fp8``)",
    "libdevice": "libdevice (``cuda.libdevice``: the ``__nv_*`` functions)",
}
FAMILY_ORDER = tuple(FAMILY_TITLES)


class Drift(Exception):
    """The translator registers something these pages have no words for (or the reverse)."""


def _registries():
    """The translator's registries, every rule and entry loaded: (rules module, lib package, operators module)."""
    import numba_cuda_c.pyjit.passes  # noqa: F401  (the passes inherit every rule class: this registers them all)
    from numba_cuda_c.pyjit import lib, operators, rules

    lib._load()  # the families (pyjit/lib/__init__.py's FAMILIES) register their entries
    return rules, lib, operators


def _check(kind_names, notes, what):
    missing = sorted(set(kind_names) - set(notes))
    stale = sorted(set(notes) - set(kind_names))
    if missing or stale:
        raise Drift(
            "docs/_ext/kernel_language.py: %s %s%s"
            % (
                what,
                "registered without words here: %s" % ", ".join(missing) if missing else "",
                ("; " if missing else "") + "words here for kinds not registered: %s" % ", ".join(stale)
                if stale
                else "",
            )
        )


def _list_table(header, rows, widths):
    """An RST list-table of rows of cells (RST text)."""
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: %s" % " ".join(map(str, widths)), ""]
    for row in [header] + rows:
        for i, cell in enumerate(row):
            lines.append(("   * - " if i == 0 else "     - ") + (cell or ""))
    return lines + [""]


def _unsupported(base, registered):
    names = sorted(c.__name__ for c in base.__subclasses__() if c not in registered)
    return ", ".join("``%s``" % n for n in names)


def python_kinds(registry):
    """The registry's node kinds that are Python's: the translator also registers nodes of its own (optional.py's
    FallThrough, the end of a device function's body), which no kernel writes."""
    return [kind for kind in registry if getattr(ast, kind.__name__, None) is kind]


def syntax_rst():
    """The syntax part: statements, expressions, operators, call targets and what has no rule."""
    rules, _, operators = _registries()
    statements = [k.__name__ for k in python_kinds(rules.STATEMENTS)]
    expressions = [k.__name__ for k in python_kinds(rules.TYPING)]
    if set(rules.TYPING) != set(rules.C):
        raise Drift("pyjit/rules.py: an expression kind has a typing rule and no C rule, or the reverse")
    _check(statements + expressions, NOTES, "AST node kinds")
    calls = sorted(set(rules.CALL_TYPING) | set(rules.CALL_C))
    _check(calls, CALL_NOTES, "call target kinds")

    out = ["Statements", "~~~~~~~~~~", ""]
    out += _list_table(
        ["Statement", "Written", "Notes"], [[k, *NOTES[k]] for k in sorted(statements)], (12, 30, 58)
    )
    out += ["Expressions", "~~~~~~~~~~~", ""]
    out += _list_table(
        ["Expression", "Written", "Notes"], [[k, *NOTES[k]] for k in sorted(expressions)], (12, 30, 58)
    )
    out += ["Operators", "~~~~~~~~~", ""]
    binops = ", ".join("``%s``" % symbol for symbol in operators.BINOPS.values())
    compares = ", ".join(
        "``%s``" % ast.unparse(ast.Compare(ast.Name("a"), [op()], [ast.Name("b")])) for op in operators.COMPARES
    )
    out += [
        "Arithmetic and bitwise (``BinOp``, ``AugAssign``): %s." % binops,
        "",
        "Comparisons (``Compare``): %s." % compares,
        "",
    ]
    out += [
        "Call targets",
        "~~~~~~~~~~~~",
        "",
        "A call is resolved to one kind of target, each with its own typing and C rule:",
        "",
    ]
    out += _list_table(["Kind", "What"], [["``%s``" % k, CALL_NOTES[k]] for k in calls], (15, 85))
    out += [
        "Not translated",
        "~~~~~~~~~~~~~~",
        "",
        "These kinds of Python statement have no rule: a kernel that uses one is refused with "
        "``unsupported statement (Kind)``: %s." % _unsupported(ast.stmt, rules.STATEMENTS),
        "",
        "These kinds of expression have no rule of their own, so a kernel that uses one as a value is refused with "
        "``unsupported expression (Kind)``: %s. (A few appear inside other rules: a slice in a subscript, "
        "``*t`` in a call, a list of constants as a shared array's shape.)" % _unsupported(ast.expr, rules.TYPING),
        "",
    ]
    return out


def spelling(path, methods=()):
    """How a kernel writes the library entry at `path`."""
    head, name = path[0], path[-1]
    if len(path) == 1:
        return "``cuda.%s``" % head
    if head in ("atomic", "cg", "fp16", "libdevice"):
        return "``cuda.%s.%s``" % (head, name)
    if head in ("math", "cmath"):
        return "``%s.%s``" % (head, name)
    if head == "builtins":
        return "``%s``" % name
    if head == "number":
        return "``x.%s()``" % name
    if head == "np":
        return "``np.%s(a)``" % name + (", ``a.%s()``" % name if name in methods else "")
    if head == "random":
        return "``numba_cuda_c.random.%s``" % name
    if head in ("bf16", "fp8"):
        return "``numba_cuda_c.%s.%s``" % (head, name)
    if head == "GridGroup":  # a method of the opaque group cuda.cg.this_grid() returns
        return "``g.%s()`` (``g = cuda.cg.this_grid()``)" % name
    raise Drift(
        "docs/_ext/kernel_language.py: no spelling for the library path %r (add one to spelling())" % (path,)
    )


def _first_line(doc):
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def documented_entries(table):
    """The table's (path, entry) pairs that are library functions: not a number type's conversion, which the
    translator registers where a kernel first calls the type (so the table's size depends on what was compiled)."""
    return [(path, entry) for path, entry in table.items() if path[0] != "convert"]


def library_rst():
    """The library part: every entry of pyjit/lib's TABLE, by family."""
    _, lib, _ = _registries()
    from numba_cuda_c.pyjit.lib import arrays

    families = {}
    for path, entry in documented_entries(lib.TABLE):
        # the low-precision types' entries by their module (numbers.py types fp16's and bf16's), others by the
        # family module that registers them
        family = path[0] if path[0] in ("fp16", "bf16", "fp8") else entry.typing.__module__.rsplit(".", 1)[-1]
        families.setdefault(family, []).append((path, entry))
    _check(list(families), FAMILY_TITLES, "library families")
    out = [
        "The translator's library has %d entries in %d families (``numba_cuda_c/pyjit/lib``)."
        % (sum(map(len, families.values())), len(families)),
        "",
    ]
    for family in FAMILY_ORDER:
        entries = families[family]
        title = "%s: %d" % (FAMILY_TITLES[family], len(entries))
        out += [title, "~" * len(title), ""]
        names = [spelling(path, arrays.METHODS) for path, _ in entries]
        out += [", ".join(names) + ".", ""]
        noted = [(name, _first_line(entry.__doc__)) for name, (_, entry) in zip(names, entries) if entry.__doc__]
        out += ["- %s: %s" % (name, doc) for name, doc in noted] + ([""] if noted else [])
    return out


def setup(app):
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class KernelLanguage(SphinxDirective):
        required_arguments = 1  # syntax | library

        def run(self):
            part = self.arguments[0]
            if part not in ("syntax", "library"):
                raise self.error("kernel-language takes 'syntax' or 'library', not %r" % part)
            try:
                lines = syntax_rst() if part == "syntax" else library_rst()
            except Drift as drift:
                raise self.error(str(drift))
            holder = nodes.Element()
            nested_parse_with_titles(self.state, StringList(lines, source="kernel-language " + part), holder)
            return holder.children

    app.add_directive("kernel-language", KernelLanguage)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
