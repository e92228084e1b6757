"""Fails the docs build (a warning, an error under -W) where a public name of numba_cuda_c has no entry in the API
reference (an autodoc directive in api.rst) or has no docstring, so that the reference cannot fall behind the
package.

Public names: those of dir(numba_cuda_c) that do not start with "_", and the names the package's module
__getattr__ loads on first use (jit, compile_ptx, vectorize, ...: its table of lazy names, `_LAZY`). Left to other pages: modules, numba's type objects (float32, void, ...: the types
section lists them) and the device-side names (cuda.grid, cuda.atomic, ...: the kernel-language page)."""

import inspect
import re
import types as pytypes


def lazy_names(package):
    """The names the package's module __getattr__ answers for: its table of lazy names (numba_cuda_c._LAZY)."""
    return {n for n in package._LAZY if not n.startswith("_")}


def public_objects():
    """name -> object of every public name the API reference must document."""
    import numba_cuda_c as package
    from numba_cuda_c import types
    from numba_cuda_c.stubs import DeviceName

    names = {n for n in dir(package) if not n.startswith("_")} | lazy_names(package)
    objects = {}
    for name in sorted(names):
        obj = getattr(package, name)
        if isinstance(obj, (pytypes.ModuleType, types.Type, DeviceName, str)):
            continue
        objects[name] = obj
    return objects


def missing(documented):
    """(names without an entry in the reference, names without a docstring)."""
    objects = public_objects()
    undocumented = sorted(n for n in objects if "numba_cuda_c." + n not in documented)
    no_docstring = sorted(n for n, obj in objects.items() if not (inspect.getdoc(obj) or "").strip())
    return undocumented, no_docstring


def members_without_docstrings():
    """'Class.member' for each method, property or descriptor of a public class (and of what @cuda.jit returns)
    that has no docstring: autodoc leaves such members out of the reference."""
    from numba_cuda_c.pyjit.dispatcher import Dispatcher

    classes = {n: o for n, o in public_objects().items() if inspect.isclass(o)}
    classes["Dispatcher"] = Dispatcher
    found = []
    for name, cls in sorted(classes.items()):
        for member in dir(cls):
            owner = next((c for c in cls.__mro__ if member in vars(c)), None)
            if member.startswith("_") or owner is None or owner.__module__ == "builtins":
                continue
            static = inspect.getattr_static(cls, member)
            if isinstance(static, (staticmethod, classmethod)):
                static = static.__func__
            if isinstance(static, property):
                doc = static.__doc__
            elif callable(static) or inspect.isgetsetdescriptor(static) or inspect.ismemberdescriptor(static):
                doc = inspect.getdoc(getattr(cls, member))
            else:  # a plain class attribute (a constant): no docstring of its own to ask for
                continue
            if not (doc or "").strip():
                found.append("%s.%s" % (name, member))
    return found


def type_names_rst():
    """numba's type objects of the package, each with its other names: one paragraph."""
    import numba_cuda_c as package
    from numba_cuda_c import types

    names = {}
    for name in sorted(dir(package)):
        obj = getattr(package, name)
        if not name.startswith("_") and isinstance(obj, types.Type):
            names.setdefault(id(obj), (obj, []))[1].append(name)
    entries = []
    for obj, aliases in names.values():
        main = str(obj) if str(obj) in aliases else max(aliases, key=len)
        others = [a for a in aliases if a != main]
        entries.append("``%s``" % main + (" (%s)" % ", ".join("``%s``" % a for a in others) if others else ""))
    return [", ".join(sorted(entries)) + ".", ""]


# A docstring of the C extension names its call first, as "name(args): what it does" (C functions carry no
# signature Python can read): the signature is taken from there, and the rest is the docstring.
_CALL = re.compile(r"^(\w+)(\(.*?\))(?::\s+|\.?$)")


def _leading_call(obj, name):
    doc = inspect.getdoc(obj) or ""
    found = _CALL.match(doc.split("\n", 1)[0])
    return found if found is not None and found.group(1) == name.rsplit(".", 1)[-1] else None


def signature_from_docstring(app, what, name, obj, options, signature, return_annotation):
    if signature or what not in ("function", "method"):
        return None
    found = _leading_call(obj, name)
    return (found.group(2), return_annotation) if found is not None else None


def docstring_without_call(app, what, name, obj, options, lines):
    if what in ("function", "method") and lines and _leading_call(obj, name) is not None:
        rest = lines[0][_leading_call(obj, name).end() :]
        lines[0] = rest[:1].upper() + rest[1:]


def setup(app):
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util import logging
    from sphinx.util.docutils import SphinxDirective

    class TypeNames(SphinxDirective):
        def run(self):
            holder = nodes.Element()
            self.state.nested_parse(StringList(type_names_rst(), source="type-names"), self.content_offset, holder)
            return holder.children

    app.add_directive("type-names", TypeNames)
    app.connect("autodoc-process-signature", signature_from_docstring)
    app.connect("autodoc-process-docstring", docstring_without_call)

    logger = logging.getLogger(__name__)

    def check(app, env):
        undocumented, no_docstring = missing(set(env.get_domain("py").objects))
        for name in undocumented:
            logger.warning("numba_cuda_c.%s is public but has no entry in the API reference (docs/api.rst)", name)
        for name in no_docstring:
            logger.warning("numba_cuda_c.%s is public but has no docstring", name)
        for name in members_without_docstrings():
            logger.warning("numba_cuda_c.%s has no docstring (the API reference leaves it out)", name)

    app.connect("env-check-consistency", check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
