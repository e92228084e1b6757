"""The kernel fuzzer's runner: one case compiled and launched by numba-cuda and by numba_cuda_c, its results compared.

A case's module is written to a real file (both compilers read the kernel's source through inspect) and imported
once; its function `k` is bound to numba-cuda's `cuda` for the oracle and to numba_cuda_c for ours (the same code
object, different globals), so the two compile the same text at the same line numbers.

Verdicts: "same"; "undefined" (the same, apart from elements whose thread overflowed a signed +, - or * or an
int ** int product: numba marks these nsw, its result there is undefined); "different" (a result's type in numba's typemap is not ours, or the column holding numba's type
differs bit for bit); "nan-bits" (only NaN payloads or signs differ: counted, a failure with --strict-nan); "refused"
(numba compiled it, we raised); "numba-refused" (skipped); "error" (a launch failed: the CUDA context is suspect
afterwards, and the worker stops).
"""

import importlib.util
import os
import sys
import traceback
import types as pytypes

import numpy as np

from fuzz_generator import kind

THREADS = 64


class ContextLost(Exception):
    """A launch failed: the worker's CUDA context may be poisoned, later cases go to a fresh process."""


def drop_alias():
    """numba_cuda_c's alias (NUMBA_CUDA_C_AS_NUMBA_CUDA=1, numba_cuda_c_alias.pth) would make `numba.cuda` ours:
    the oracle must be numba-cuda itself, so the alias's finders leave sys.meta_path before numba is imported."""
    os.environ.pop("NUMBA_CUDA_C_AS_NUMBA_CUDA", None)
    for finder in list(sys.meta_path):
        if type(finder).__name__ == "NumbaCudaCAliasHook" or type(finder).__module__.startswith("numba_cuda_c"):
            sys.meta_path.remove(finder)
    if "numba.cuda" in sys.modules and sys.modules["numba.cuda"].__name__.startswith("numba_cuda_c"):
        raise RuntimeError("numba.cuda is numba_cuda_c (its alias was installed before the fuzzer ran)")


def import_numba():
    """(numba.cuda, numba.core.types) of numba-cuda, after numba-cuda 0.30's NumPy 2.5 shim (tests/support/gpu.py)."""
    drop_alias()
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    import warnings

    from numba import cuda as ncuda
    from numba.core import types as ntypes

    warnings.simplefilter("ignore")  # numba's performance warnings (small grids)
    if "numba_cuda_c" in (getattr(ncuda, "__file__", "") or "") or ncuda.__name__.startswith("numba_cuda_c"):
        raise RuntimeError("numba.cuda resolved to numba_cuda_c, not numba-cuda: %r" % ncuda)
    return ncuda, ntypes


def load(case, workdir):
    """The case's kernel function `k`, imported from a file of its own (cuda unbound)."""
    name = "fuzz_s%d_c%d_%d" % (case.seed, case.index, abs(hash(case.source)) % 10**8)
    path = os.path.join(workdir, name + ".py")
    with open(path, "w") as f:
        f.write(case.module_text())
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k


def bind(function, cuda_module):
    namespace = dict(function.__globals__, cuda=cuda_module)
    return pytypes.FunctionType(function.__code__, namespace, function.__name__)


def param_names(case):
    return [o for o, _ in case.outputs] + [a.name for a in case.inputs]


def argtypes(case, module):
    """The kernel's argument types (C-contiguous 1-d arrays) in numba's types or ours (same names)."""
    out = []
    for name in param_names(case):
        dtype = case.arrays[name].dtype.name
        out.append(getattr(module, "boolean" if dtype == "bool" else dtype)[::1])
    return tuple(out)


def norm_type(t):
    """A type's name as both print it: numba's literals unliteral'd, 'boolean' as 'bool'."""
    text = str(t)
    if text.startswith("Literal["):  # its value's type: Literal[int](2**64 - 1) is uint64
        text = str(getattr(t, "literal_type", "int64" if text.startswith("Literal[int]") else "bool"))
    return "bool" if text == "boolean" else text


def result_types(typemap, case, separator):
    """{r<j>: type name} of a typemap: the result variables, each assigned once."""
    found = {}
    for var, t in typemap.items():
        base = var.split(separator)[0]
        if base in dict(case.results) and (base not in found or var == base):
            found[base] = norm_type(t)
    return found


def our_types(function, case):
    import numba_cuda_c
    from numba_cuda_c.pyjit.translate import variable_types

    typemap, _ = variable_types(bind(function, numba_cuda_c), argtypes(case, numba_cuda_c.types))
    return {k: norm_type(v) for k, v in typemap.items()}


class Runner:
    """Both compilers in one process (a worker's): compile and launch a case with each."""

    def __init__(self, workdir, strict_nan=False):
        self.ncuda, self.ntypes = import_numba()
        import numba_cuda_c

        self.ours = numba_cuda_c
        self.workdir = workdir
        self.strict_nan = strict_nan
        if workdir not in sys.path:
            sys.path.insert(0, workdir)

    def launch(self, lib, kernel, case):
        arrays = [lib.to_device(case.arrays[n]) for n in param_names(case)]
        n = case.arrays["a0"].size
        try:
            kernel[(n + THREADS - 1) // THREADS, THREADS](*arrays)
            lib.synchronize()
            return {name: d.copy_to_host() for name, d in zip(param_names(case), arrays) if name[0] in "fnc"}
        except Exception as exc:
            raise ContextLost("%s: %s" % (type(exc).__name__, exc)) from exc

    def numba(self, function, case):
        """(outputs, {variable: type}) from numba-cuda, or raises Refusal."""
        kernel = self.ncuda.jit(bind(function, self.ncuda))
        try:
            compiled = kernel.compile(argtypes(case, self.ntypes))
            typemap = compiled.type_annotation.typemap
        except Exception as exc:  # noqa: BLE001 -- numba's typing and lowering errors: the case is skipped
            raise Refusal(exc) from exc
        return self.launch(self.ncuda, kernel, case), typemap

    def mine(self, function, case):
        """(outputs, a bool per element: whether that thread overflowed a signed operation numba marks nsw)."""
        from numba_cuda_c.pyjit.options import SIGNED_OVERFLOW_FLAGS

        kernel = self.ours.jit(bind(function, self.ours), **{SIGNED_OVERFLOW_FLAGS: True})
        try:
            compiled = kernel.compile(argtypes(case, self.ours.types))
        except Exception as exc:  # noqa: BLE001 -- our refusal (or a crash of the translator, NVRTC's errors)
            raise Refusal(exc) from exc
        outputs = self.launch(self.ours, kernel, case)
        pointer, size = compiled._global("ncc_signed_overflow")
        flags = self.ours.from_cuda_array_interface(
            {"data": (pointer, False), "shape": (size,), "typestr": "|u1", "version": 3}, owner=compiled
        ).copy_to_host()
        return outputs, flags[: case.arrays["a0"].size] != 0

    def run(self, case, source=None):
        """A verdict record for the case (its source replaced by `source` where given: the reducer's)."""
        if source is not None:
            case = case_with_source(case, source)
        record = {"case": case.index, "family": case.family, "status": None, "diffs": []}
        function = load(case, self.workdir)
        try:
            theirs, typemap = self.numba(function, case)
        except Refusal as r:
            record.update(status="numba-refused", error=r.text())
            return record
        record["numba_types"] = result_types(typemap, case, ".")
        try:
            mine, overflowed = self.mine(function, case)
        except Refusal as r:
            record.update(status="refused", error=r.text(long=True))
            return record
        try:
            record["our_types"] = result_types(our_types(function, case), case, "__")
        except Exception as exc:  # noqa: BLE001
            record["our_types"] = {"error": "%s: %s" % (type(exc).__name__, exc)}
        record["diffs"], record["undefined"] = compare(
            case, theirs, mine, record["numba_types"], record["our_types"], overflowed
        )
        strict = [d for d in record["diffs"] if d["what"] != "nan-bits" or self.strict_nan]
        status = "different" if strict else "nan-bits" if record["diffs"] else "same"
        record["status"] = "undefined" if status == "same" and record["undefined"] else status
        return record


class Refusal(Exception):
    def __init__(self, exc):
        super().__init__(str(exc))
        self.exc = exc

    def text(self, long=False):
        message = "%s: %s" % (type(self.exc).__name__, self.exc)
        lines = message.splitlines()
        return "\n".join(lines[:12]) if long else (lines[0][:300] if lines else "")


def case_with_source(case, source):
    import copy

    other = copy.copy(case)
    other.source = source
    return other


def compare(case, theirs, mine, numba_types, our_types, overflowed=None):
    """(The differences: each result's type, and the column holding numba's type, bit for bit; how many differing
    elements were left out because their thread overflowed a signed operation, where numba's result is undefined)."""
    diffs, undefined = [], 0
    for result, cols in case.results:
        t, u = numba_types.get(result), our_types.get(result)
        if t != u:
            diffs.append({"what": "type", "result": result, "numba": t, "ours": u})
        col = cols.get("c") or (cols["n"] if t and kind_of_name(t) in "iub" else cols["f"])
        a, b = theirs[col], mine[col]
        differ = a.view(np.uint8).reshape(a.size, -1) != b.view(np.uint8).reshape(b.size, -1)
        rows = np.nonzero(differ.any(axis=1))[0]
        if overflowed is not None:
            undefined += int(overflowed[rows].sum())
            rows = rows[~overflowed[rows]]
        if not len(rows):
            continue
        what = "value"
        if a.dtype.kind in "fc" and np.all(np.isnan(a[rows]) == np.isnan(b[rows])):
            what = "nan-bits" if np.all(np.isnan(a[rows])) else "value"
        j = int(rows[0])
        diffs.append(
            {
                "what": what,
                "result": result,
                "column": "%s (%s)" % (col, a.dtype.name),
                "count": int(len(rows)),
                "element": j,
                "inputs": {x.name: repr(case.arrays[x.name][j].item()) for x in case.inputs},
                "numba": repr(a[j].item()),
                "ours": repr(b[j].item()),
            }
        )
    return diffs, undefined


def kind_of_name(t):
    return kind(t) if t in ("bool",) or t[:3] in ("int", "uin", "flo", "com") else "?"


def describe(record):
    """A record's lines for the report."""
    lines = []
    for d in record.get("diffs", []):
        if d["what"] == "type":
            lines.append("  %s: type numba %s, ours %s" % (d["result"], d["numba"], d["ours"]))
        else:
            lines.append(
                "  %s (%s): %s differ in %d elements; e.g. [%d] numba %s, ours %s; inputs %s"
                % (
                    d["result"],
                    d["what"],
                    d["column"],
                    d["count"],
                    d["element"],
                    d["numba"],
                    d["ours"],
                    d["inputs"],
                )
            )
    if record.get("error"):
        lines.append("  " + record["error"].replace("\n", "\n  "))
    return lines


def safe_run(runner, case, source=None):
    """runner.run with every failure a record: ContextLost is re-raised (the worker must stop)."""
    try:
        return runner.run(case, source)
    except ContextLost:
        raise
    except Exception:  # noqa: BLE001 -- the fuzzer's own failure on this case: reported, the run goes on
        return {
            "case": case.index,
            "family": case.family,
            "status": "error",
            "error": traceback.format_exc()[-1500:],
        }


class TypeRunner:
    """--types-only, no GPU: numba-cuda's typing (numba.cuda.compiler.compile_cuda for a given compute capability:
    typing and lowering to LLVM IR run on the CPU) beside our translation compiled by NVRTC (compile_ptx) and its
    types. Where numba-cuda is not installed (or fails to import), ours alone: every case must compile."""

    CC = (8, 0)

    def __init__(self, workdir, use_numba=True):
        import numba_cuda_c

        self.ours = numba_cuda_c
        self.workdir = workdir
        self.ncuda = self.compile_cuda = None
        self.numba_missing = None
        if use_numba:
            try:
                self.ncuda, self.ntypes = import_numba()
                from numba.cuda import dispatcher
                from numba.cuda.compiler import compile_cuda

                self.compile_cuda = compile_cuda
                # device functions (cmath's, some builtins') ask the current device for its compute capability
                fake = pytypes.SimpleNamespace(compute_capability=self.CC)
                if hasattr(dispatcher, "get_current_device"):
                    dispatcher.get_current_device = lambda: fake
            except Exception as exc:  # noqa: BLE001 -- no numba-cuda here: ours alone
                self.numba_missing = "%s: %s" % (type(exc).__name__, exc)
        if workdir not in sys.path:
            sys.path.insert(0, workdir)

    def run(self, case, source=None):
        if source is not None:
            case = case_with_source(case, source)
        record = {"case": case.index, "family": case.family, "status": None, "diffs": []}
        function = load(case, self.workdir)
        if self.compile_cuda is not None:
            try:
                cres = self.compile_cuda(
                    bind(function, self.ncuda), self.ntypes.void, argtypes(case, self.ntypes), cc=self.CC
                )
                record["numba_types"] = result_types(cres.type_annotation.typemap, case, ".")
            except Exception as exc:  # noqa: BLE001 -- numba refuses: skipped
                record.update(status="numba-refused", error=Refusal(exc).text())
                return record
        try:
            self.ours.compile_ptx(bind(function, self.ours), argtypes(case, self.ours.types))
            record["our_types"] = result_types(our_types(function, case), case, "__")
        except Exception as exc:  # noqa: BLE001 -- our refusal
            record.update(status="refused", error=Refusal(exc).text(long=True))
            return record
        if self.compile_cuda is None:
            record["status"] = "compiled"
            return record
        for result, _ in case.results:
            t, u = record["numba_types"].get(result), record["our_types"].get(result)
            if t != u:
                record["diffs"].append({"what": "type", "result": result, "numba": t, "ours": u})
        record["status"] = "different" if record["diffs"] else "same"
        return record
