"""Python kernels to CUDA C: checks a function's AST against the supported subset, types it with
numba's rules (typing.py) and writes the CUDA C that NVRTC compiles.

One FunctionTranslator per (function, argument types): the function's state (its parameters, variables and their
types, return type, typed tree, constants, globals) and the driver. type() runs typing passes over the body until
the types settle (a variable keeps the type that holds every value assigned to it), annotating each expression
(typedtree.py: its type, and how its C rule is to write it: the resolved call target, the operator's form, the
variable read); emit() then runs one emitting pass, which writes the C from those annotations, every local declared
at the top. The passes are objects of their own (passes.py), in which the rules run: rules registered by AST node
kind (rules.py), written in the module of their construct: statements.py (statements, names, constants, tuples),
calls.py (call targets, argument binding, device function calls), attributes.py, indexing.py, operators.py,
intrinsics.py (translator-written calls: local and shared arrays, ufuncs, print, array views), bindings.py
(re-bound names, nested functions), loops.py, exceptions.py, pyvalues.py (Python objects as kernel values). A
construct outside the subset raises KernelTypeError quoting the source line. source.py reads the function's
definition; pyjit/lib holds the library entries (cuda.*, math, builtins, conversions: one typing rule and one C rule
each); module.py is the compilation unit (ModuleBuilder) that device functions and headers go into.
"""

from numba_cuda_c import types
from numba_cuda_c.pyjit import optional, ssa, typing
from numba_cuda_c.pyjit.bindings import _single_constants
from numba_cuda_c.pyjit.calls import parameter_names
from numba_cuda_c.pyjit.module import ModuleBuilder
from numba_cuda_c.pyjit.names import ascii_locals
from numba_cuda_c.pyjit.passes import EmittingPass, TypingPass
from numba_cuda_c.pyjit.source import function_definition
from numba_cuda_c.pyjit.typedtree import TypedTree
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import c_array_type

TYPING_PASSES = 20


class FunctionTranslator:
    """A function for one set of argument types: what its passes learn and share, and their driver."""

    typing_pass, emitting_pass = TypingPass, EmittingPass  # the passes' classes (a test records what they do)

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
        if args.kwarg or (not device and (args.vararg or args.kwonlyargs)):
            self.fail(
                self.node,
                "kernels take plain positional arguments only"
                if not device
                else "device functions take no **kwargs",
            )
        # the parameters in the order a call binds them (parameter_names): a device function's defaults,
        # keyword arguments and *args are bound where it is called (bind_call)
        names = parameter_names(self.node)
        if not constants:  # arguments that are None or left out (a kernel's defaults): known, no C parameter
            constants, self.argtypes = optional.omitted_arguments(self.argtypes)
        # compile-time arguments of a device function (types, functions, cuda.atomic.add, literal
        # numbers and tuples, by position): their names read as those values, with no parameter
        self.constants = {names[k]: v for k, v in (constants or {}).items()}
        self.params = [n for n in names if n not in self.constants]
        if len(self.params) != len(self.argtypes):
            self.fail(
                self.node,
                # Python's wording: a launch or a signature with the wrong number of arguments
                "%s() takes %d positional argument%s but %d %s given"
                % (
                    pyfunc.__name__,
                    len(self.params),
                    "" if len(self.params) == 1 else "s",
                    len(self.argtypes),
                    "was" if len(self.argtypes) == 1 else "were",
                ),
            )
        self.vars = dict(zip(self.params, self.argtypes))
        # None arguments assigned to their names first; a device function's end, where control reaches it, returns
        # None (optional.py)
        self.node.body = optional.prologue(self) + self.node.body + (optional.fall_through(self) if device else [])
        self.single_constants = _single_constants(self.node, self.params)
        self.rebindings = {}  # Python name -> its further variables, in the order made (the same in every pass)
        self.ssa_names = {}  # the variables of numbers' stores and of their phis, by place (ssa.py)
        self.ssa_pending = {}  # loop phis' types from their back edges, for the next typing pass (ssa.py)
        self.nested_functions = {}  # id(def node) -> the Python function of a function defined in this one
        self.local_functions = {}  # name -> DeviceFunction of a function defined in this one, once its def ran
        self.return_type = None
        self.loop_rewrites = {}  # id(for node) -> its rewrite (loops.py), made once for every pass
        self.call_rewrites = {}  # id(call node) -> (node, the expression it is rewritten as): calls.py's rewritten()
        self.launch_bounds = ()  # a kernel's __launch_bounds__ (numba's launch_bounds option)
        self.forceinline = False  # a device function's __forceinline__
        self.tree = TypedTree()  # each expression's annotation from the typing passes (typedtree.py)
        self.untyped = []  # the statements the last typing pass could not type (a name never assigned)
        self.emitting = False  # its emitting pass has begun (ModuleBuilder.recursive_return_type)
        self.called = []  # the device functions its C calls, once emitted (ModuleBuilder.place)

    # -- errors ---------------------------------------------------------------------------------
    def fail(self, node, message, cls=KernelTypeError):
        lineno = getattr(node, "lineno", 1)
        text = self.source_lines[lineno - 1].strip() if 0 < lineno <= len(self.source_lines) else ""
        exc = cls("%s:%d: %s\n    %s" % (self.filename, self.first_line + lineno - 1, message, text))
        exc.located = True
        raise exc

    def add_call_context(self, exc, callee, node):
        """Adds numba's context lines to an error raised while typing a function this one calls at `node`: the
        callee, and where the call is."""
        if exc.args and isinstance(exc.args[0], str):
            line = self.first_line + getattr(node, "lineno", 1) - 1
            context = "\nDuring: resolving callee type: %s\nDuring: typing of call at %s (%d)" % (
                callee,
                self.filename,
                line,
            )
            exc.args = (exc.args[0] + context,) + exc.args[1:]

    # -- driver ---------------------------------------------------------------------------------
    def type(self):
        """Runs typing passes until the types stop changing."""
        for _ in range(TYPING_PASSES):
            ssa.apply_pending(self)  # what loops' back edges brought in the last pass
            before = (dict(self.vars), self.return_type)
            last = self.typing_pass(self).run()
            if (dict(self.vars), self.return_type) == before and not self.widens_phis():
                break
        else:
            changing = sorted(n for n, t in self.vars.items() if before[0].get(n) != t)
            self.fail(
                self.node,
                "the types of %s did not settle after %d passes"
                % (", ".join(changing) or "the return value", TYPING_PASSES),
            )
        self.untyped = last.untyped

    def widens_phis(self):
        """Whether the last pass's loop back edges would change a phi's type (another pass is needed)."""
        return any(typing.unify(self.vars.get(p), t) != self.vars.get(p) for p, t in self.ssa_pending.items())

    def emit(self):
        """The C text of this function, written by its emitting pass (after type())."""
        self.emitting = True
        written = self.emitting_pass(self).run()
        self.called = written.called
        if self.device and self.return_type is None:
            self.return_type = types.void
        start = self.line_directive(1) + "\n" if self.module.lineinfo else ""
        body = "".join(written.hoisted) + "\n".join(written.lines)
        return start + self.header() + self.declarations() + body + "\n}\n"

    def translate(self):
        """The C text of this function: its types settled, then its C written."""
        self.type()
        return self.emit()

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
            if name in self.params or t is None or t is types.none:  # None: no C variable
                continue
            if isinstance(t, types.Array):  # declared here too, so that a branch can assign it (double buffering)
                out.append("    %s v_%s = {};\n" % (c_array_type(t), name))
                continue
            out.append("    %s v_%s = {};\n" % (t.ctype, name))  # zero: no garbage, even on paths Python rejects
        return "".join(out)

    def line_directive(self, lineno):
        """`#line` to the Python source (lineinfo/debug): NVRTC's line table, then profilers and debuggers,
        name the kernel's file and lines."""
        filename = (self.filename or "<kernel>").replace("\\", "\\\\").replace('"', '\\"')
        return '#line %d "%s"' % (self.first_line + lineno - 1, filename)


def _translated(translator):
    """translator.translate(); a KernelTypeError also numba's TypingError where numba's errors are loaded."""
    try:
        return translator.translate()
    except KernelTypeError as error:
        converted = typing.numba_compatible(error)
        if converted is error:
            raise
        raise converted from None


def _module(debug=False, lineinfo=False, fastmath=False):
    """The ModuleBuilder of one compilation, with numba's options: debug=True records the exceptions kernels raise
    (and writes #line directives, as lineinfo does); fastmath leaves float division unchecked."""
    module = ModuleBuilder(FunctionTranslator)
    module.debug, module.fastmath, module.lineinfo = debug, fastmath, lineinfo or debug
    return module


def _function_text(translator, externs):
    """The C of the function the translator is of, the device functions it calls placed in its module before it;
    externs (a list, or None) receives the declared device functions (cuda.declare_device) it calls."""
    text = _translated(translator)
    translator.module.place(translator.called)
    if externs is not None:
        externs.extend(d for _wrapper, declared in translator.module.externs.values() for d in declared)
    return text


def translate_kernel(
    pyfunc, argtypes, name, externs=None, captured=None, launch_bounds=None, launch_flags=None, **options
):
    """The CUDA C of a kernel (and the device functions it calls). externs: a list that receives the
    declared device functions (cuda.declare_device) it calls; captured: one that receives the global
    device arrays it reads by pointer (the kernel must keep them alive); launch_flags: one that receives
    what its launch must do ("cooperative": it syncs the grid; "deep_stack": it recurses); launch_bounds:
    numba's (max threads per block[, min blocks per SM[, max blocks per cluster]]); options: numba's debug,
    lineinfo and fastmath (_module)."""
    module = _module(**options)
    translator = FunctionTranslator(pyfunc, argtypes, module, device=False, name=name)
    translator.launch_bounds = tuple(launch_bounds or ())
    module.pieces.append(_function_text(translator, externs))
    if captured is not None:
        captured.extend(module.captured)
    if launch_flags is not None:
        launch_flags.extend(module.launch_flags())
    return module.source()


def _typed(pyfunc, argtypes):
    """A translator that has typed (and translated) the function for these argument types."""
    translator = FunctionTranslator(pyfunc, argtypes, _module(), device=False, name="listing")
    translator.device = True  # a value it returns is typed, not refused
    _translated(translator)
    return translator


def variable_types(pyfunc, argtypes):
    """({variable: type}, return type) of the function translated for these argument types: numba's typemap."""
    translator = _typed(pyfunc, argtypes)
    return dict(translator.vars), translator.return_type or types.void


def typed_listing(pyfunc, argtypes):
    """The function's source with the type of each of its variables (and its return type): what
    Dispatcher.inspect_types prints, from a translation of these argument types."""
    translator = _typed(pyfunc, argtypes)
    lines = ["# File: %s" % translator.filename, "# --- LINE %d --- " % translator.first_line]
    lines += translator.source_lines
    lines.append("# --- types ---")
    lines += ["#   %s: %s" % (name, t) for name, t in translator.vars.items()]
    lines.append("#   return: %s" % (translator.return_type or types.void))
    return "\n".join(lines)


def translate_device(pyfunc, argtypes, name, externs=None, declared_return=None, lineinfo=False, fastmath=False):
    """The CUDA C of a device function (extern "C" __device__ for compile_ptx), and its return type (the
    declared one, where given: values convert to it)."""
    module = _module(lineinfo=lineinfo, fastmath=fastmath)
    translator = FunctionTranslator(pyfunc, argtypes, module, device=True, name=name)
    translator.declared_return = declared_return
    text = _function_text(translator, externs)
    directive, _, rest = text.partition("\n") if text.startswith("#line") else ("", "", text)
    module.pieces.append((directive + "\n" if directive else "") + 'extern "C" ' + rest)
    return module.source(), translator.return_type
