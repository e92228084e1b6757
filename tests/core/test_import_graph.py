"""The package's import graph: no circle among numba_cuda_c's modules (an import inside a function counts as an
arrow too), and `import numba_cuda_c` loads neither the Python-kernel translator (pyjit) nor NumPy."""

import ast
import os
import subprocess
import sys

import numba_cuda_c

PACKAGE_DIR = os.path.dirname(os.path.abspath(numba_cuda_c.__file__))


def _modules():
    """{dotted name: path, or None for an extension module} of every module of the package."""
    root = os.path.dirname(PACKAGE_DIR)
    found = {}
    for folder, _dirs, files in os.walk(PACKAGE_DIR):
        for file in files:
            if file.endswith(".py"):
                name = os.path.relpath(os.path.join(folder, file[:-3]), root).replace(os.sep, ".")
                name = name[: -len(".__init__")] if name.endswith(".__init__") else name
                found[name] = os.path.join(folder, file)
            elif file.endswith(".so"):
                found[os.path.relpath(os.path.join(folder, file.split(".")[0]), root).replace(os.sep, ".")] = None
    return found


def _imports(name, path, modules):
    """The package's modules that module `name` imports, at module level or inside a function."""
    is_package = path.endswith("__init__.py")
    targets = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf8").read(), path)):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):  # from a.b import c: the submodule a.b.c if there is one, else a.b
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: None if is_package else -1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            candidates = [base + "." + a.name if base + "." + a.name in modules else base for a in node.names]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in modules:
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                targets.add(candidate)
    return targets


def _circles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_import_circle_in_the_package():
    modules = _modules()
    graph = {name: (_imports(name, path, modules) if path else set()) for name, path in modules.items()}
    assert _circles(graph) == []


def test_importing_the_package_loads_neither_the_translator_nor_numpy():
    code = "import sys, numba_cuda_c; print(sorted(m for m in sys.modules if m == 'numpy' or '.pyjit' in m))"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE_DIR))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
