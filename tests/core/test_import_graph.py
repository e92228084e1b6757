"""The package's import graph: no circle among numba_cuda_c's modules (an import inside a function counts as an
arrow too), no import that runs up the declared layers (the package's, pyjit's, and src/'s includes), and
`import numba_cuda_c` loads neither the Python-kernel translator (pyjit) nor NumPy."""

import ast
import os
import re
import subprocess
import sys

import pytest

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


# The package's layers, lowest first (docs/ARCHITECTURE.md draws them): a module imports modules of its own layer
# (without a circle) and of the layers below, never one above. A name stands for a module and everything under it.
PACKAGE_LAYERS = [
    (
        "ground",
        "_cuda _version config types alias args errors launchconfig pool stubs xoroshiro np notebook fp8_types",
    ),
    ("toolchain", "toolchain"),  # what makes device code: NVRTC, the linker, linkable code, the libraries' paths
    ("driver", "cudadrv"),
    ("translator", "pyjit"),
    (
        "features",
        "random reduction ufunc gufunc vectorizers dask simulator " "_info",
    ),
    ("face", "__init__ bf16 libdevice fp8 _internal __main__ compiler"),  # numba's names: what programs import
    ("programs", "kernels"),  # written with numba's names, as a user's program is
]
# pyjit's own: the vocabulary of types and values, the library of functions kernels call, the rules that type and
# write each construct, the passes that run them, and the front that compiles and launches
PYJIT_LAYERS = [
    ("vocabulary", "typing values datetime_units folding names options rules strings overloads arguments pickling "
     "bytecode source typedtree devicefn extern ssa complex_prelude prelude"),
    ("library", "lib"),
    ("rules", "attributes bindings calls datetimes exceptions indexing intrinsics loops operators optional sequences "
     "syntax pyvalues statements module"),
    ("passes", "passes translate"),
    ("front", "__init__ ptx launching bundles kernel_loader specialiser c_launch dispatcher bundle_builder"),
]  # fmt: skip
# src/'s folders, lowest first; extension.c (the module's init) stands on all of them
C_LAYERS = ["driver", "core", "arrays", "launch", "extension.c"]


def _layer_of(name, prefix, layers):
    """The index of the layer a dotted module name (under prefix) belongs to, or None outside prefix."""
    if name == prefix:
        rest = "__init__"
    elif name.startswith(prefix + "."):
        rest = name[len(prefix) + 1 :]
    else:
        return None
    for index, (_label, members) in enumerate(layers):
        if any(rest == m or rest.startswith(m + ".") for m in members.split()):
            return index
    raise AssertionError("%s is in no layer of %s: declare it in test_import_graph.py" % (name, prefix))


def _upward(graph, prefix, layers):
    """The imports of modules under prefix that reach a module of a higher layer under the same prefix."""
    found = []
    for name, targets in graph.items():
        own = _layer_of(name, prefix, layers)
        if own is None:
            continue
        for target in targets:
            other = _layer_of(target, prefix, layers)
            if other is not None and other > own:
                found.append("%s (%s) -> %s (%s)" % (name, layers[own][0], target, layers[other][0]))
    return sorted(found)


def test_no_import_runs_up_the_layers():
    modules = _modules()
    graph = {name: (_imports(name, path, modules) if path else set()) for name, path in modules.items()}
    assert _upward(graph, "numba_cuda_c", PACKAGE_LAYERS) == []
    pyjit = {name: targets for name, targets in graph.items() if name.startswith("numba_cuda_c.pyjit")}
    assert _upward(pyjit, "numba_cuda_c.pyjit", PYJIT_LAYERS) == []


def test_the_layers_catch_an_upward_import():
    graph = {"numba_cuda_c.types": {"numba_cuda_c.pyjit.typing"}, "numba_cuda_c.pyjit.typing": set()}
    assert _upward(graph, "numba_cuda_c", PACKAGE_LAYERS) == [
        "numba_cuda_c.types (ground) -> numba_cuda_c.pyjit.typing (translator)"
    ]
    assert _circles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]


def _c_includes():
    """(file under src/, its layer's index, the layer index of each quoted include naming a layer's folder)."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    if not os.path.isdir(src):
        pytest.skip("no src/ beside the tests (an installed package)")
    for folder, _dirs, files in os.walk(src):
        for file in files:
            if not file.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, file)
            relative = os.path.relpath(path, src)
            own = C_LAYERS.index(relative.split(os.sep)[0])
            text = open(path, encoding="utf8").read()
            included = [i.split("/")[0] for i in re.findall(r'#include "([^"]+)"', text) if "/" in i]
            yield relative, own, [C_LAYERS.index(i) for i in included if i in C_LAYERS]


def test_no_c_include_runs_up_src_layers():
    upward = [(f, C_LAYERS[own], [C_LAYERS[i] for i in inc if i > own]) for f, own, inc in _c_includes()]
    assert [u for u in upward if u[2]] == []
