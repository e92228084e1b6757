"""A differential kernel fuzzer: random kernels of integer and floating-point arithmetic, compiled by numba-cuda and
by numba_cuda_c, run on the same GPU with the same inputs, their results compared bit for bit.

    python3 tests/fuzz/diff_kernels.py --seed 1 --cases 500 --jobs 14 [--out DIR] [--case N]

Each case (reproducible alone: --seed S --case N) is a kernel over 1-d input arrays of random dtypes filled with edge
values (0, ±1, each type's extremes, NaN, ±inf, ±0.0, subnormals, huge and tiny). Its statements assign variables
(re-assigned with other types, in place, in branches and loops), and it stores results r0, r1, ...: each into a
float64 array and an int64 array. Compared: every result's type (numba's typemap against ours) and its values (the
float64 array bit for bit; the int64 array where the result is an integer). A kernel numba refuses is skipped;
one numba runs and we refuse is a failure.
"""

import argparse
import importlib.util
import json
import os
import random
import sys
import tempfile
import traceback

N = 64
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
DTYPES = INTS + FLOATS + ["bool"]
FAMILIES = ("arith", "unary", "bitwise", "inplace", "compare", "branches", "loops", "builtins", "math", "literals")


# -- inputs ----------------------------------------------------------------------------------------------------------
def edge_values(dtype, rng):
    import numpy as np

    dt = np.dtype(dtype)
    if dt.kind == "b":
        values = [False, True]
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        values = [0, 1, 2, 3, 7, info.max, info.min, info.max - 1, info.min + 1, info.max // 2]
        if dt.kind == "i":
            values += [-1, -2, -3, -7]
        values += [rng.randint(int(info.min), int(info.max)) for _ in range(6)]
        values += [rng.randint(-100 if dt.kind == "i" else 0, 100) for _ in range(10)]
    else:
        info = np.finfo(dt)
        values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, float("nan"), float("inf"), float("-inf")]
        values += [float(info.max), float(info.min), float(info.tiny), float(info.tiny) / 4, float(info.eps)]
        values += [1e10, -1e10, 1e-10, 123.456, 2.0**40]
        values += [rng.uniform(-100, 100) for _ in range(8)]
    out = np.array([values[k % len(values)] for k in range(N)], dtype=dt)
    rng.shuffle(out)
    return out


# -- the generator -----------------------------------------------------------------------------------------------------
class Gen:
    """A random kernel: statements over typed leaves. A kind per expression (int, float, bool) steers operators
    towards what numba types (bitwise operators on integers); numba decides the rest."""

    def __init__(self, rng, families):
        self.rng = rng
        self.families = families
        self.ninputs = rng.randint(2, 4)
        self.dtypes = [rng.choice(DTYPES) for _ in range(self.ninputs)]
        self.vars = {}  # name -> kind
        self.lines = []
        self.results = 0

    def kind_of(self, dtype):
        return "bool" if dtype == "bool" else "float" if dtype.startswith("float") else "int"

    def leaf(self, want=None):
        r = self.rng.random()
        candidates = [(f"a{k}[i]", self.kind_of(d)) for k, d in enumerate(self.dtypes)]
        candidates += list(self.vars.items())
        if want:
            candidates = [c for c in candidates if c[1] == want or (want == "int" and c[1] == "bool")]
        if r < 0.2 and "literals" in self.families or not candidates:
            return self.literal(want)
        return self.rng.choice(candidates)

    def literal(self, want=None):
        rng = self.rng
        if want == "float" or (want is None and rng.random() < 0.3):
            return repr(rng.choice([0.5, 1.5, -2.0, 3.25, 1e-3, 1e20, 0.0, -0.0, 2.0])), "float"
        if want == "bool":
            return rng.choice(["True", "False"]), "bool"
        value = rng.choice([0, 1, 2, 3, 5, 7, 100, 255, 256, 65535, 2**31 - 1, 2**31, 2**32, 2**62, 2**63 - 1])
        if rng.random() < 0.3:
            return "(-%d)" % value, "int"
        return str(value), "int"

    def expr(self, depth=0, want=None):
        rng = self.rng
        if depth > 2 or rng.random() < 0.3:
            return self.leaf(want)
        fams = self.families
        choice = rng.random()
        if want == "bool":
            a, _ = self.expr(depth + 1)
            b, _ = self.expr(depth + 1)
            return "(%s %s %s)" % (a, rng.choice(["<", "<=", "==", "!=", ">", ">="]), b), "bool"
        if choice < 0.35 and "arith" in fams:
            op = rng.choice(["+", "-", "*", "//", "%", "**"] + ([] if want == "int" else ["/"]))
            a, ka = self.expr(depth + 1, want)
            b, kb = self.expr(depth + 1, want)
            if op == "**" and (kb != "int" or rng.random() < 0.7):  # mostly small exponents
                b, kb = rng.choice(["2", "3", "(-1)", "0", "4"]), "int"
            kind = "float" if "float" in (ka, kb) or op == "/" else "int"
            return "(%s %s %s)" % (a, op, b), kind
        if choice < 0.5 and "bitwise" in fams:
            op = rng.choice(["&", "|", "^", "<<", ">>"])
            a, _ = self.expr(depth + 1, "int")
            b, _ = self.expr(depth + 1, "int")
            if op in ("<<", ">>"):
                b = "(%s & 31)" % b
            return "(%s %s %s)" % (a, op, b), "int"
        if choice < 0.62 and "unary" in fams:
            op = rng.choice(["-", "+", "~", "not "])
            a, ka = self.expr(depth + 1, "int" if op == "~" else want)
            return "(%s%s)" % (op, a), "bool" if op == "not " else ka
        if choice < 0.72 and "compare" in fams:
            op = rng.choice(["<", "<=", "==", "!=", ">", ">="])
            a, _ = self.expr(depth + 1)
            b, _ = self.expr(depth + 1)
            if rng.random() < 0.3:
                c, kc = self.expr(depth + 1)
                b_, kb_ = self.expr(depth + 1)
                return "(%s if %s %s %s else %s)" % (c, a, op, b, b_), kc if kc == kb_ else "float"
            return "(%s %s %s)" % (a, op, b), "bool"
        if choice < 0.85 and "builtins" in fams:
            f = rng.choice(["abs", "min", "max", "round", "int", "bool", "divmod", "pow", "and", "or"]
                           + ([] if want == "int" else ["float"]))  # fmt: skip
            a, ka = self.expr(depth + 1, want)
            if f in ("min", "max"):
                b, kb = self.expr(depth + 1, want)
                return "%s(%s, %s)" % (f, a, b), "float" if "float" in (ka, kb) else ka
            if f in ("and", "or"):
                b, kb = self.expr(depth + 1, want)
                return "(%s %s %s)" % (a, f, b), "float" if "float" in (ka, kb) else ka
            if f == "divmod":
                b, kb = self.expr(depth + 1, want)
                return "divmod(%s, %s)[%d]" % (a, b, rng.randint(0, 1)), "float" if "float" in (ka, kb) else "int"
            if f == "pow":
                return "pow(%s, %s)" % (a, rng.choice(["2", "3", "-1", "0"])), ka
            kind = {"int": "int", "float": "float", "bool": "bool", "round": "int"}.get(f, ka)
            return "%s(%s)" % (f, a), kind
        if "math" in fams and want != "int":
            f = rng.choice(["floor", "ceil", "trunc", "sqrt", "fabs", "exp", "log", "sin", "cos", "tan", "atan",
                            "isnan", "isinf", "isfinite", "copysign", "fmod", "atan2", "hypot", "pow", "tanh",
                            "expm1", "log1p", "erf", "degrees"])  # fmt: skip
            a, _ = self.expr(depth + 1)
            if f in ("copysign", "fmod", "atan2", "hypot", "pow"):
                b, _ = self.expr(depth + 1)
                return "math.%s(%s, %s)" % (f, a, b), "float"
            return "math.%s(%s)" % (f, a), "bool" if f.startswith("is") else "float"
        return self.leaf(want)

    def new_var(self, kind):
        name = "v%d" % len(self.vars)
        self.vars[name] = kind
        return name

    def statement(self, indent, depth=0):
        rng = self.rng
        fams = self.families
        r = rng.random()
        pad = "    " * indent
        if r < 0.25 and "inplace" in fams and self.vars:
            name = rng.choice(list(self.vars))
            op = rng.choice(["+=", "-=", "*=", "//=", "%=", "&=", "|=", "^=", "/="])
            want = "int" if op in ("&=", "|=", "^=") else None
            if want and self.vars[name] == "float":
                op, want = "+=", None
            e, k = self.expr(1, want)
            self.lines.append("%s%s %s %s" % (pad, name, op, e))
            if op == "/=" or k == "float":
                self.vars[name] = "float"
            return
        if r < 0.4 and "branches" in fams and depth < 2:
            c, _ = self.expr(1)
            name = rng.choice(list(self.vars)) if self.vars and rng.random() < 0.6 else None
            self.lines.append("%sif %s:" % (pad, c))
            e1, k1 = self.expr(1)
            e2, k2 = self.expr(1)
            if name is None:
                name = self.new_var(k1)
            self.lines.append("%s    %s = %s" % (pad, name, e1))
            self.lines.append("%selse:" % pad)
            self.lines.append("%s    %s = %s" % (pad, name, e2))
            self.vars[name] = "float" if "float" in (k1, k2, self.vars[name]) else k1
            return
        if r < 0.55 and "loops" in fams and depth < 1:
            init, k0 = self.expr(1)
            acc = self.new_var(k0)
            self.lines.append("%s%s = %s" % (pad, acc, init))
            j = "j%d" % len(self.lines)
            bound = rng.choice(["3", "a0.size % 5", "n", "int(a0[i] != 0) + 2"])
            if rng.random() < 0.7:
                self.lines.append("%sfor %s in range(%s):" % (pad, j, bound))
            else:
                self.lines.append("%s%s = 0" % (pad, j))
                self.lines.append("%swhile %s < 4:" % (pad, j))
                self.lines.append("%s    %s += 1" % (pad, j))
            self.vars[j] = "int"
            e, k = self.expr(1)
            op = rng.choice(["+", "-", "*", "max"])
            if op == "max":
                self.lines.append("%s    %s = max(%s, %s)" % (pad, acc, acc, e))
            else:
                self.lines.append("%s    %s = %s %s %s" % (pad, acc, acc, op, e))
            if rng.random() < 0.3:
                c, _ = self.expr(2)
                self.lines.append("%s    if %s:" % (pad, c))
                self.lines.append("%s        %s" % (pad, rng.choice(["break", "continue"])))
            if k == "float":
                self.vars[acc] = "float"
            return
        e, k = self.expr()
        if self.vars and rng.random() < 0.3:
            name = rng.choice(list(self.vars))
            self.vars[name] = k
        else:
            name = self.new_var(k)
        self.lines.append("%s%s = %s" % (pad, name, e))

    def kernel(self):
        nstatements = self.rng.randint(2, 7)
        for _ in range(nstatements):
            self.statement(2)
        nresults = self.rng.randint(1, 3)
        results = []
        for k in range(nresults):
            e, _ = self.expr(0)
            if self.vars and self.rng.random() < 0.5:
                e = self.rng.choice(list(self.vars))
            results.append("        r%d = %s" % (k, e))
            results.append("        of[i, %d] = r%d" % (k, k))
            results.append("        oi[i, %d] = r%d" % (k, k))
        params = ", ".join(["of", "oi", "n"] + ["a%d" % k for k in range(self.ninputs)])
        body = ["def kernel(%s):" % params, "    i = cuda.grid(1)", "    if i < a0.size:"]
        body += self.lines + results
        return "\n".join(body) + "\n", self.dtypes, nresults


def generate(seed, case, families=FAMILIES):
    rng = random.Random(seed * 1_000_003 + case)
    chosen = [f for f in families if rng.random() < 0.6] or list(families)
    g = Gen(rng, chosen)
    source, dtypes, nresults = g.kernel()
    return source, dtypes, nresults, chosen


# -- running both ------------------------------------------------------------------------------------------------------
HEADERS = {
    "numba": "import math\nimport numpy as np\nfrom numba import cuda\n\n",
    "ours": "import math\nimport numpy as np\nimport numba_cuda_c as cuda\n\n",
}


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _types_numba(dispatcher):
    """{r<k>: str(type)} from numba's typemap (SSA names r0, r0.1: the last assignment's)."""
    overload = next(iter(dispatcher.overloads.values()))
    typemap = overload.type_annotation.typemap
    found = {}
    for var, t in typemap.items():
        base = var.split(".")[0]
        if base.startswith("r") and base[1:].isdigit():
            found[base] = str(t)
    return found


def _types_ours(function, argtypes):
    from numba_cuda_c.pyjit.translate import variable_types

    found = {}
    for var, t in variable_types(function, argtypes)[0].items():
        base = var.split("__")[0]
        if base.startswith("r") and base[1:].isdigit():
            found[base] = str(t)
    return found


def run_case(seed, case, workdir, families=FAMILIES):
    import numpy as np

    from numba import cuda as ncuda

    import numba_cuda_c as ours
    from numba_cuda_c import types as T

    source, dtypes, nresults, chosen = generate(seed, case, families)
    rng = random.Random(seed * 7 + case)
    inputs = [edge_values(d, rng) for d in dtypes]
    record = {"case": case, "source": source, "dtypes": dtypes, "families": chosen}
    results = {}
    for label in ("numba", "ours"):
        path = os.path.join(workdir, "k_%d_%d_%s.py" % (seed, case, label))
        with open(path, "w") as f:
            f.write(HEADERS[label] + source)
        try:
            mod = _load(path, "k_%d_%d_%s" % (seed, case, label))
            lib = ncuda if label == "numba" else ours
            kernel = lib.jit(mod.kernel)
            of = np.zeros((N, nresults), np.float64)
            oi = np.zeros((N, nresults), np.int64)
            d_of, d_oi = lib.to_device(of), lib.to_device(oi)
            d_in = [lib.to_device(a) for a in inputs]
            kernel[1, N](d_of, d_oi, 3, *d_in)
            lib.synchronize()
            if label == "numba":
                rtypes = _types_numba(kernel)
            else:
                argtypes = [T.Array(T.float64, 2, "C"), T.Array(T.int64, 2, "C"), T.int64] + [
                    T.Array(T.from_dtype(a.dtype), 1, "C") for a in inputs
                ]
                rtypes = _types_ours(mod.kernel, argtypes)
            results[label] = (d_of.copy_to_host(), d_oi.copy_to_host(), rtypes)
        except Exception as exc:  # noqa: BLE001 -- a compiler's refusal or crash is the finding
            results[label] = exc
            if label == "numba":
                record["status"] = "numba refused"
                record["error"] = "%s: %s" % (
                    type(exc).__name__,
                    str(exc).splitlines()[0][:300] if str(exc) else "",
                )
                return record
    if isinstance(results["ours"], Exception):
        exc = results["ours"]
        record["status"] = "we refused"
        record["error"] = "%s: %s" % (type(exc).__name__, str(exc)[:600])
        return record
    nf, ni, nt = results["numba"]
    of_, oi_, ot = results["ours"]
    diffs = []
    for k in range(nresults):
        key = "r%d" % k
        if nt.get(key) != ot.get(key):
            diffs.append("%s: type numba %s, ours %s" % (key, nt.get(key), ot.get(key)))
        a, b = nf[:, k].view(np.uint64), of_[:, k].view(np.uint64)
        both_nan = np.isnan(nf[:, k]) & np.isnan(of_[:, k])
        bad = np.nonzero((a != b) & ~both_nan)[0]
        if len(bad):
            j = int(bad[0])
            diffs.append(
                "%s: float64 differs at %d elements, e.g. [%d]: numba %r ours %r; inputs %s"
                % (key, len(bad), j, nf[j, k], of_[j, k], [inputs[m][j].item() for m in range(len(inputs))])
            )
        is_int = nt.get(key, "").startswith(("int", "uint", "bool"))
        if is_int:
            bad = np.nonzero(ni[:, k] != oi_[:, k])[0]
            if len(bad):
                j = int(bad[0])
                diffs.append(
                    "%s: int64 differs at %d elements, e.g. [%d]: numba %d ours %d; inputs %s"
                    % (key, len(bad), j, ni[j, k], oi_[j, k], [inputs[m][j].item() for m in range(len(inputs))])
                )
    record["status"] = "different" if diffs else "same"
    if diffs:
        record["diffs"] = diffs
    return record


def _worker(args):
    seed, cases, families = args
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
    from gpu import let_numba_import

    let_numba_import()
    import warnings

    warnings.simplefilter("ignore")
    workdir = tempfile.mkdtemp(prefix="diffk-")
    sys.path.insert(0, workdir)
    out = []
    for case in cases:
        try:
            out.append(run_case(seed, case, workdir, families))
        except Exception:  # noqa: BLE001
            out.append({"case": case, "status": "error", "error": traceback.format_exc()[-800:]})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--case", type=int, default=None, help="run this one case")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    families = tuple(args.families.split(","))
    cases = [args.case] if args.case is not None else list(range(args.cases))
    if args.case is not None:
        print(generate(args.seed, args.case, families)[0])
    import multiprocessing

    chunks = [(args.seed, cases[k :: args.jobs], families) for k in range(min(args.jobs, len(cases)))]
    context = multiprocessing.get_context("spawn")
    with context.Pool(len(chunks)) as pool:
        records = [r for chunk in pool.map(_worker, chunks) for r in chunk]
    counts = {}
    for r in records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    for r in sorted(records, key=lambda r: r["case"]):
        if r["status"] in ("different", "we refused", "error"):
            print("=" * 100)
            print(
                "case %d (%s) %s: dtypes %s"
                % (r["case"], ",".join(r.get("families", ())), r["status"], r.get("dtypes"))
            )
            print(r.get("source", ""))
            for line in r.get("diffs", []) or [r.get("error", "")]:
                print("  " + line)
    print("seed %d: %d kernels: %s" % (args.seed, len(records), json.dumps(counts, sort_keys=True)))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "fuzz_seed%d.json" % args.seed), "w") as f:
            json.dump({"seed": args.seed, "counts": counts, "records": records}, f)
    return 1 if counts.get("different") or counts.get("we refused") else 0


if __name__ == "__main__":
    sys.exit(main())
