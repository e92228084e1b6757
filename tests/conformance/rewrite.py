"""The import rewrite of the conformance runner: points a numba-cuda test file's user-facing imports at a target.

The target is `numba_cuda_c` (our run) or `numba.cuda` (numba-cuda's own run, the same rewrite, so the two are
compared fairly). Only import statements change (found with `ast`, replaced in place, line numbers kept); numba's
internals that the tests use for themselves (`config`, `core.errors`, `tests.support`, ...) stay numba's.
"""

import ast

# The module that replaces `numba.cuda.testing` in both runs (tests/conformance/cuda_testing.py, copied beside
# the rewritten files).
TESTING_SHIM = "cuda_testing"

# numba.cuda submodules a user imports: they move to the target (`numba.cuda.cudadrv.driver` ->
# `numba_cuda_c.cudadrv.driver`). Every other numba.cuda submodule is numba-cuda's compiler or test machinery.
USER_SUBMODULES = frozenset(
    ["cudadrv", "types", "random", "libdevice", "fp16", "bf16", "fp8", "cg", "kernels", "launchconfig"]
)
# Modules under numba.cuda._internal (numba-cuda's generated bindings) that programs import names from
# (`from numba.cuda._internal.cuda_fp8 import fp8_e4m3`): they move to the target as the submodules above do.
USER_INTERNAL_MODULES = frozenset(["_internal.cuda_fp8"])

# Names of `from numba.cuda import X` that are numba-cuda's internals (its configuration, its compiler's
# modules), kept as numba's. Every other name (kernels' API, types, host API) moves to the target.
INTERNAL_CUDA_NAMES = frozenset(
    """config HAS_NUMBA core np typing descriptor dispatcher compiler cudaimpl cudadecl flags errors
    extending utils simulator simulator_init tests typeconv misc datamodel api api_util args cext cgutils codegen
    cpython cuda_paths debuginfo decorators device_init deviceufunc initialize intrinsics itanium_mangler locks
    lowering mathimpl memory_management models nvvmutils serialize stubs target ufuncs vectorizers cloudpickle
    printimpl cudamath libdevicedecl libdeviceimpl libdevicefuncs vector_types _compat _internal""".split()
)

# numba.cuda's public functions, where a test imports them from the internal module that defines them
# (`from numba.cuda.compiler import compile_ptx`): they move to the target's top level.
PUBLIC_REEXPORTS = {
    "api": frozenset(
        """from_cuda_array_interface as_cuda_array is_cuda_array is_float16_supported is_bfloat16_supported
        is_fp8_supported to_device device_array managed_array pinned_array mapped_array open_ipc_array synchronize
        device_array_like mapped_array_like pinned_array_like stream default_stream legacy_default_stream
        per_thread_default_stream external_stream pinned mapped event select_device get_current_device
        list_devices close detect defer_cleanup""".split()
    ),
    "compiler": frozenset(
        "compile compile_all compile_for_current_device compile_ptx compile_ptx_for_current_device".split()
    ),
    "decorators": frozenset(["jit", "declare_device"]),
    "device_init": frozenset(["is_available", "cuda_error"]),
}

# numba.cuda modules of which a part is user-facing: the names given move to the same module under the target
# (`from numba.cuda.np import numpy_support` -> `from numba_cuda_c.np import numpy_support`); others stay numba's.
PARTLY_USER_MODULES = {
    "numba.cuda.np": frozenset(["numpy_support"]),
    "numba.cuda.np.numpy_support": frozenset(["from_dtype", "as_dtype", "numpy_version", "carray", "farray"]),
}

# `from numba import X` names that are numba's scalar types (and the `types` module): users who also use numba on
# the CPU give these as signatures and dtypes; they move to the target.
NUMBA_TYPE_NAMES = frozenset(
    """types boolean b1 bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp intc uintc i1 i2 i4 i8
    u1 u2 u4 u8 float16 float32 float64 f2 f4 f8 complex64 complex128 c8 c16 void none byte char uchar short ushort
    int_ uint long_ ulong longlong ulonglong float_ double size_t ssize_t bfloat16""".split()
)


# `from numba import X` names that make CUDA ufuncs with target="cuda" (numba's documented way to write them);
# numba.cuda and the target both export them, taking target="cuda". They move only in a file that uses them for
# CUDA alone (every use names target="cuda"): elsewhere numba's CPU ufuncs are the tests' references.
NUMBA_UFUNC_NAMES = frozenset(["vectorize", "guvectorize"])


def _names_used_for_cuda_only(tree):
    """The names bound by `from numba import vectorize/guvectorize [as X]` whose every use is a call, or a
    functools.partial of it, with target="cuda"."""
    bound = {
        (a.asname or a.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and not node.level
        for a in node.names
        if a.name in NUMBA_UFUNC_NAMES
    }
    cuda_uses, uses = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in bound:
            uses[node.id] = uses.get(node.id, 0) + 1
        if isinstance(node, ast.Call):
            names_cuda = any(
                k.arg == "target" and isinstance(k.value, ast.Constant) and k.value.value == "cuda"
                for k in node.keywords
            )
            callee = node.func
            if isinstance(callee, ast.Name) and callee.id == "partial" and node.args:
                callee = node.args[0]
            if names_cuda and isinstance(callee, ast.Name) and callee.id in bound:
                cuda_uses[callee.id] = cuda_uses.get(callee.id, 0) + 1
    return frozenset(name for name in bound if uses.get(name) and cuda_uses.get(name) == uses[name])


def _alias(a):
    return a.name if a.asname is None else "%s as %s" % (a.name, a.asname)


def _from(module, aliases):
    return "from %s import %s" % (module, ", ".join(_alias(a) for a in aliases))


def _import_as(module, asname):
    return "import %s as %s" % (module, asname)


def _rewrite_import(node, target):
    """`import ...`: statements to replace it with, or None to keep it."""
    out, changed = [], False
    for a in node.names:
        parts = a.name.split(".")
        if a.asname is not None and parts[:2] == ["numba", "cuda"]:
            if len(parts) == 2:
                out.append(_import_as(target, a.asname))
                changed = True
                continue
            if parts[2] == "testing":
                out.append(_import_as(TESTING_SHIM, a.asname))
                changed = True
                continue
            if parts[2] in USER_SUBMODULES or ".".join(parts[2:]) in USER_INTERNAL_MODULES:
                out.append(_import_as(".".join([target] + parts[2:]), a.asname))
                changed = True
                continue
        # `import numba.cuda` (no alias) binds `numba`: left alone, as are all other modules.
        out.append("import " + _alias(a))
    return out if changed else None


# Modules of numba's extension API: a file that imports one defines numba types and data models (numba's
# register_model asserts its types subclass numba's), so there `types` is that API's vocabulary and stays numba's.
EXTENSION_MODULES = frozenset(
    [
        "numba.extending",
        "numba.cuda.extending",
        "numba.core.extending",
        "numba.cuda.models",
        "numba.core.datamodel",
        "numba.cuda.datamodel",
    ]
)


def _defines_numba_extensions(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "") in EXTENSION_MODULES:
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "numba.cuda"
            and any(a.name in ("extending", "models", "datamodel") for a in node.names)
        ):
            return True
    return False


def _rewrite_from(node, target, local_packages, keep_types=False, cuda_ufuncs=frozenset()):
    """`from ... import ...`: statements to replace it with, or None to keep it. keep_types: `types` (and
    numba's type names) stay numba's (a module defining numba extensions). cuda_ufuncs: the local names of
    numba's vectorize/guvectorize that this file uses for CUDA only (they move)."""
    if node.level:
        return None
    module = node.module or ""
    parts = module.split(".")
    if keep_types and (
        module in ("numba.types", "numba.core.types", "numba.cuda.types")
        or (module in ("numba", "numba.core", "numba.cuda") and all(a.name in NUMBA_TYPE_NAMES for a in node.names))
    ):
        return None
    moved, kept = [], []  # (module, alias)
    cuda_aliases = []

    if module == "numba":
        for a in node.names:
            if a.name == "cuda":
                cuda_aliases.append(a)
            elif a.name in NUMBA_TYPE_NAMES or (
                a.name in NUMBA_UFUNC_NAMES and (a.asname or a.name) in cuda_ufuncs
            ):
                moved.append((target, a))
            else:
                kept.append((module, a))
    elif module == "numba.core":
        for a in node.names:
            if a.name == "types":
                moved.append((target, a))
            else:
                kept.append((module, a))
    elif module in ("numba.types", "numba.core.types"):
        moved = [(target + ".types", a) for a in node.names]
    elif module == "numba.cuda":
        for a in node.names:
            if a.name == "testing":
                cuda_aliases.append(a)  # handled below: the shim module
            elif a.name in INTERNAL_CUDA_NAMES:
                kept.append((module, a))
            else:
                moved.append((target, a))
    elif module in PARTLY_USER_MODULES:
        for a in node.names:
            if a.name in PARTLY_USER_MODULES[module]:
                moved.append((target + module[len("numba.cuda") :], a))
            else:
                kept.append((module, a))
    elif parts[:2] == ["numba", "cuda"] and len(parts) > 2:
        sub, rest = parts[2], ".".join(parts[2:])
        if sub == "testing" and len(parts) == 3:
            moved = [(TESTING_SHIM, a) for a in node.names]
        elif sub in USER_SUBMODULES or rest in USER_INTERNAL_MODULES:
            moved = [(target + "." + rest, a) for a in node.names]
        elif any(rest + "." + a.name in USER_INTERNAL_MODULES for a in node.names):
            for a in node.names:  # from numba.cuda._internal import cuda_fp8, cuda_bf16: the first moves
                if rest + "." + a.name in USER_INTERNAL_MODULES:
                    moved.append((target + "." + rest, a))
                else:
                    kept.append((module, a))
        elif sub == "tests" and len(parts) >= 4 and parts[3] in local_packages:
            # A sibling module of the rewritten files (a use-case module): its rewritten copy.
            moved = [(".".join(parts[3:]), a) for a in node.names]
        elif sub in PUBLIC_REEXPORTS and len(parts) == 3:
            for a in node.names:
                if a.name in PUBLIC_REEXPORTS[sub]:
                    moved.append((target, a))
                else:
                    kept.append((module, a))
        else:
            return None
    else:
        return None

    if not moved and not cuda_aliases:
        return None
    out = []
    for a in cuda_aliases:
        if a.name == "cuda":
            out.append(_import_as(target, a.asname or "cuda"))
        else:
            out.append(_import_as(TESTING_SHIM, a.asname or "testing"))
    for mod in dict.fromkeys(m for m, _ in moved):
        out.append(_from(mod, [a for m, a in moved if m == mod]))
    if kept:
        out.append(_from(module, [a for _, a in kept]))
    return out


def rewrite_source(source, target, local_packages=()):
    """Returns `source` with its user-facing numba.cuda imports pointed at `target` ("numba_cuda_c" or
    "numba.cuda"). `local_packages`: the test folders copied beside it (`numba.cuda.tests.cudapy.x` imports
    become `cudapy.x` for those). Raises SyntaxError if the result does not parse (it always should)."""
    tree = ast.parse(source)
    data = source.encode("utf-8")
    line_starts = [0]
    for line in data.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    edits = []
    keep_types = _defines_numba_extensions(tree)
    cuda_ufuncs = _names_used_for_cuda_only(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            stmts = _rewrite_import(node, target)
        elif isinstance(node, ast.ImportFrom):
            stmts = _rewrite_from(node, target, frozenset(local_packages), keep_types, cuda_ufuncs)
        else:
            continue
        if stmts is None:
            continue
        start = line_starts[node.lineno - 1] + node.col_offset
        end = line_starts[node.end_lineno - 1] + node.end_col_offset
        text = "; ".join(stmts)
        # Keep the line numbers of what follows (tracebacks, and tests that inspect their own source) when the
        # rest of the last line is only a comment.
        rest = data[end : line_starts[node.end_lineno] if node.end_lineno < len(line_starts) else len(data)]
        if rest.strip() == b"" or rest.lstrip().startswith(b"#"):
            text += "\n" * (node.end_lineno - node.lineno)
        edits.append((start, end, text.encode("utf-8")))
    for start, end, text in sorted(edits, reverse=True):
        data = data[:start] + text + data[end:]
    result = data.decode("utf-8")
    ast.parse(result)
    return result


def unredirected_imports(source, local_packages=()):
    """The user-facing numba.cuda imports of `source` that the rewrite would leave pointing at numba.cuda
    (`import numba.cuda` with no alias, whose uses are attribute chains): (line, text) pairs, for reports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if a.asname is None and parts[:2] == ["numba", "cuda"] and len(parts) >= 2:
                    if (
                        len(parts) == 2
                        or parts[2] in USER_SUBMODULES
                        or ".".join(parts[2:]) in USER_INTERNAL_MODULES
                    ):
                        found.append((node.lineno, "import " + a.name))
    return found
