"""Reading a kernel's or device function's definition: its source text parsed (a lambda as the function it is), or,
for a function made with exec from a string, rebuilt from its bytecode (bytecode.py)."""

import ast
import copy
import inspect
import textwrap

from numba_cuda_c.pyjit.bytecode import Unreadable, function_def
from numba_cuda_c.pyjit.typing import KernelTypeError


def function_definition(pyfunc):
    """(file name, first line, source lines, ast.FunctionDef) of a Python function. A function defined inside a
    kernel carries its own (bindings.py's nested_function: its text and the parameters it was compiled with)."""
    given = getattr(pyfunc, "__ncc_definition__", None)
    if given is not None:
        filename, first_line, source_lines, node = given
        return filename, first_line, source_lines, copy.deepcopy(node)
    try:
        source = textwrap.dedent(inspect.getsource(pyfunc))
    except (OSError, TypeError) as exc:  # made with exec from a string: rebuilt from its bytecode
        source = None
        why = exc
    filename = (inspect.getsourcefile(pyfunc) if source is not None else None) or pyfunc.__code__.co_filename
    source_lines = source.splitlines() if source is not None else []
    node = _function_node(pyfunc, source) if source is not None else None
    if node is None and source is not None:
        why = OSError("its source text (%s) does not define it" % filename)
        source_lines = []
    if node is None:
        try:
            node = function_def(pyfunc)
        except Unreadable as unreadable:
            raise KernelTypeError(
                "cannot read the source of %r (%s), and its bytecode holds more than straight-line code and `if` "
                "statements (%s): define "
                "the function in a file or a notebook cell, where Python keeps its source"
                % (pyfunc, why, unreadable)
            ) from None
    return filename, pyfunc.__code__.co_firstlineno, source_lines, node


def _function_node(pyfunc, source):
    """The function's definition in its source; a lambda (cuda.Reduce(lambda a, b: a + b)) as the
    function `def <lambda>(a, b): return a + b`, found on its line by its parameters."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda inside a call that spans lines: the lines from its own
        tree = None
    if pyfunc.__name__ != "<lambda>":
        if tree is None:
            raise KernelTypeError("cannot parse the source of %s" % pyfunc.__qualname__)
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # None where the text is not the function's: Python 3.13 keeps a `-c` program's text under the file
        # name "<string>", which functions exec'd from strings also carry; they are read from bytecode
        return next((n for n in defs if n.name == pyfunc.__name__), defs[0] if defs else None)
    code = pyfunc.__code__
    params = list(code.co_varnames[: code.co_argcount])
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)] if tree is not None else []
    matching = [n for n in lambdas if [a.arg for a in n.args.args] == params]
    if len(matching) != 1:  # its lines alone do not parse (a lambda in a call spanning lines): the whole file's
        matching = _lambdas_on_first_line(pyfunc, params)
    if len(matching) != 1:
        raise KernelTypeError(
            "cannot tell which lambda on line %d is %s: define it with def, or put it on a line of its own"
            % (code.co_firstlineno, pyfunc.__qualname__)
        )
    lam = matching[0]
    body = [ast.Return(value=lam.body, lineno=lam.lineno, col_offset=lam.col_offset)]
    function = ast.FunctionDef(
        name="lambda_",
        args=lam.args,
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=lam.lineno,
        col_offset=lam.col_offset,
    )
    if hasattr(ast.FunctionDef, "type_params"):
        function.type_params = []
    return ast.fix_missing_locations(function)


def _lambdas_on_first_line(pyfunc, params):
    """The lambdas with these parameters that start on pyfunc's first line, found by parsing its whole file, their
    line numbers made relative to that line (as those of inspect.getsource's text)."""
    import copy
    import linecache

    code = pyfunc.__code__
    lines = linecache.getlines(code.co_filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Lambda)
            and node.lineno == code.co_firstlineno
            and [a.arg for a in node.args.args] == params
        ):
            node = copy.deepcopy(node)
            ast.increment_lineno(node, 1 - code.co_firstlineno)
            found.append(node)
    return found
