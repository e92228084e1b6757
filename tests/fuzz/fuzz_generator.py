"""The kernel fuzzer's generator: a random kernel (Python source) and its inputs, from (seed, case) alone.

A case is `random.Random(seed * 1_000_003 + case)`: the same seed and case give the same text and the same input
arrays in any process. Each expression carries a coarse type (a NumPy dtype name, after numba's rules roughly: 64-bit
integer arithmetic, floats win) that only steers the choice of operators towards what numba types (bitwise operators
on integers, a float converted to an integer only where it is finite and in range); numba decides the rest, and a
kernel numba refuses is skipped by the runner.

Results: a kernel assigns r0, r1, ... once each (so numba's typemap names them `r0`, ...) and stores a real result
into f<j> (float64) and n<j> (int64), a complex one into c<j> (complex128). The runner compares the column that holds
numba's type exactly: n<j> for integers and booleans, f<j> for floats, c<j> for complex numbers.
"""

import random
from dataclasses import dataclass, field

import numpy as np

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
REALS = INTS + FLOATS + ["bool"]

# families run by default; `shiftedge` (shift counts < 0 or >= 64: LLVM poison in numba) only when asked for
FAMILIES = (
    "arith unary bitwise inplace compare ifexp branches loops builtins math cmath literals casts divzero".split()
)
EXTRA_FAMILIES = ["shiftedge"]

MATH1 = "floor ceil trunc sqrt exp log log10 log2 log1p expm1 sin cos tan asin acos atan sinh cosh tanh".split()
MATH1 += "asinh acosh atanh fabs erf erfc gamma lgamma degrees radians isnan isinf isfinite".split()
MATH2 = "copysign pow fmod hypot atan2".split()
CMATH1 = "sqrt exp log log10 sin cos tan sinh cosh tanh asin acos atan asinh acosh atanh".split()
INT_LITERALS = [0, 1, 2, 3, 7, 100, 127, 128, 255, 256, 300, 32767, 65535, 65536, 2**31 - 1, 2**31, 2**32]
INT_LITERALS += [2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1]
FLOAT_LITERALS = ["0.0", "-0.0", "0.1", "0.5", "1.5", "2.5", "-2.5", "3.25", "1e-3", "1e16", "1e20", "1e308"]
FLOAT_LITERALS += ["1e-310", "65504.0", "6.1e-05", "3.4028235e38", "math.inf", "-math.inf", "math.nan", "math.pi"]
N_MIN, N_MAX = 64, 256

# Our refusals of what numba refuses too, where the generator's coarse types cannot see it coming (a loop's
# accumulator unified to float64 at the loop head, then given to a bitwise operator): without numba (CI), a refusal
# matching one of these is not held against us.
NUMBA_REFUSES_TOO = [
    r"bitwise operators take integers, not (float|complex)",
    r"Int value is too large",  # a constant (CPython folds constant expressions) past uint64: numba's typeof
]


def numba_refuses_too(error):
    import re

    return any(re.search(p, error or "") for p in NUMBA_REFUSES_TOO)


TAME = 100.0  # tame float inputs lie in [-TAME, TAME]: converted to any integer type, they fit


def kind(t):
    return "b" if t == "bool" else t[0] if t[0] in "iu" else "f" if t.startswith("float") else "c"


def bits(t):
    return 1 if t == "bool" else int("".join(ch for ch in t if ch.isdigit()))


def promote(a, b):
    """numba's result type of a + b, roughly: steers the generator, decides nothing."""
    ka, kb = kind(a), kind(b)
    if "c" in (ka, kb):
        return "complex64" if {a, b} <= {"complex64", "float32", "float16", "bool"} else "complex128"
    if "f" in (ka, kb):
        floats = [t for t in (a, b) if kind(t) == "f"]
        return "float32" if floats == ["float32"] * 2 or set(floats) == {"float16", "float32"} else "float64"
    if "u" in (ka, kb) and "i" in (ka, kb):
        return "float64" if "uint64" in (a, b) else "int64"
    return "uint64" if "u" in (ka, kb) and "i" not in (ka, kb) else "int64"


@dataclass
class Array:
    name: str
    dtype: str
    tame: bool = False  # finite floats in [-TAME, TAME], halves among them


@dataclass
class Case:
    seed: int
    index: int
    families: list
    source: str  # the kernel `k`, with no imports (see MODULE_HEADER)
    outputs: list  # [(name, dtype)]: parameters first
    inputs: list  # [Array]
    results: list  # [(result variable, {"f": out name, "n": ..., "c": ...})]
    arrays: dict = field(default_factory=dict)  # name -> host numpy array (outputs zeroed)

    @property
    def family(self):
        return "+".join(self.families)

    def module_text(self):
        return MODULE_HEADER + self.source


MODULE_HEADER = """import cmath
import math

import numpy as np

cuda = None  # numba-cuda's or numba_cuda_c's module: bound per compiler by the runner


"""


class Gen:
    def __init__(self, rng, families):
        self.rng, self.families = rng, families
        self.vars = {}  # name -> coarse type
        self.lines = []
        self.counter = 0
        complexes = "cmath" in families
        pool = REALS + COMPLEX if complexes else REALS
        n = rng.randint(2, 5)
        self.inputs = [Array("a%d" % k, rng.choice(pool)) for k in range(n)]
        if complexes and not any(kind(a.dtype) == "c" for a in self.inputs):
            self.inputs[rng.randrange(n)].dtype = rng.choice(COMPLEX)
        if {"builtins", "casts"} & set(families):
            self.inputs.append(Array("a%d" % n, rng.choice(["float32", "float64"]), tame=True))

    def fresh(self, prefix="v"):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def has(self, name):
        return name in self.families

    # -- leaves ------------------------------------------------------------------------------------------------------
    def leaf(self, want=None):
        """An input element, a variable, `i` or a literal, of the wanted coarse kind ('int' covers bool)."""
        rng = self.rng
        cands = [("%s[i]" % a.name, a.dtype) for a in self.inputs if not a.tame]
        cands += list(self.vars.items()) * 2 + [("i", "int64")]
        cands = [c for c in cands if accepts(want, c[1])]
        if not cands or rng.random() < (0.35 if self.has("literals") else 0.1):
            return self.literal(want)
        return rng.choice(cands)

    def literal(self, want=None):
        rng = self.rng
        if want == "bool":
            return rng.choice(["True", "False"]), "bool"
        if want == "complex":
            return rng.choice(["1j", "(0.5 + 2j)", "(-1.5 - 0j)", "complex(0.0, -1.0)"]), "complex128"
        if want != "int" and (want == "float" or rng.random() < 0.35):
            return rng.choice(FLOAT_LITERALS), "float64"
        value = rng.choice(INT_LITERALS) if self.has("literals") or rng.random() < 0.3 else rng.randint(0, 9)
        if rng.random() < 0.3 and value:
            return "(-%d)" % value, "int64"
        return str(value), "uint64" if value >= 2**63 else "int64"

    def tame(self, unsigned=False):
        """A finite float within [-TAME, TAME] (or [0, TAME]): converts to any integer type without overflow."""
        arrays = [a for a in self.inputs if a.tame]
        text = (
            "%s[i]" % self.rng.choice(arrays).name if arrays else self.rng.choice(["2.5", "-3.5", "0.5", "99.75"])
        )
        return ("abs(%s)" % text if unsigned else text), "float64"

    # -- expressions -------------------------------------------------------------------------------------------------
    def expr(self, depth=0, want=None):
        rng = self.rng
        if depth >= 2 or rng.random() < 0.2 + 0.2 * depth:
            return self.leaf(want)
        makers = [m for f in self.families for m in MAKERS.get(f, ())]
        for _ in range(6):
            made = rng.choice(makers)(self, depth + 1, want)
            if made is not None and accepts(want, made[1]):
                return made
        return self.leaf(want)

    def real(self, depth, want=None):
        e = self.expr(depth, want or "real")
        return e if kind(e[1]) != "c" else self.leaf("real")

    def integer(self, depth):
        return self.expr(depth, "int")

    def condition(self, depth):
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            return compare(self, depth, None)
        if r < 0.65 and self.has("compare"):
            (a, _), (b, _) = self.expr(depth + 1), self.expr(depth + 1)
            return "(%s %s %s)" % (a, rng.choice(["and", "or"]), b), "bool"
        return self.expr(depth)

    # -- statements --------------------------------------------------------------------------------------------------
    def emit(self, pad, text):
        self.lines.append("    " * pad + text)

    def statement(self, pad, nested=0):
        rng = self.rng
        forms = [self.assign] * 3
        forms += [self.inplace] * (4 if self.has("inplace") else 0)
        forms += [self.branch] * (3 if self.has("branches") and nested < 2 else 0)
        forms += [self.loop] * (3 if self.has("loops") and nested < 1 else 0)
        forms += [self.divmod_statement] * (1 if self.has("builtins") else 0)
        rng.choice(forms)(pad, nested)

    def assign(self, pad, nested):
        e, t = self.expr()
        name = self.fresh()
        self.emit(pad, "%s = %s" % (name, e))
        self.vars[name] = t

    def inplace(self, pad, nested):
        rng = self.rng
        name = self.fresh("t")
        start, t = self.leaf(rng.choice([None, "int"]))
        self.emit(pad, "%s = %s" % (name, start))
        for _ in range(rng.randint(1, 3)):
            ops = ["+=", "-=", "*=", "//=", "%=", "/=", "**="]
            if kind(t) in "iub":
                ops += ["&=", "|=", "^=", "<<=", ">>="] * 2
            op = rng.choice(ops)
            if op in ("&=", "|=", "^="):
                e, et = self.integer(2)
            elif op in ("<<=", ">>="):
                e, et = shift_count(self, 2, t)
            elif op == "**=":
                e, et = power_exponent(self, t)
            else:
                e, et = self.real(2)
            self.emit(pad, "%s %s %s" % (name, op, e))
            t = "float64" if op == "/=" else promote(t, et)
        self.vars[name] = t

    def branch(self, pad, nested):
        rng = self.rng
        c, _ = self.condition(1)
        name = self.fresh("b")
        (e1, t1), (e2, t2) = self.expr(1), self.expr(1)
        if rng.random() < 0.3:  # assigned before, re-assigned on one path
            self.emit(pad, "%s = %s" % (name, e1))
            self.emit(pad, "if %s:" % c)
            self.emit(pad + 1, "%s = %s" % (name, e2))
        else:
            self.emit(pad, "if %s:" % c)
            self.emit(pad + 1, "%s = %s" % (name, e1))
            if rng.random() < 0.3:
                before = dict(self.vars)
                self.statement(pad + 1, nested + 1)
                self.vars = (
                    before  # unassigned on the other path: a read there is undefined in numba (LLVM's undef)
                )
            self.emit(pad, "else:")
            self.emit(pad + 1, "%s = %s" % (name, e2))
        self.vars[name] = promote(t1, t2) if t1 != t2 else t1

    def loop(self, pad, nested):
        rng = self.rng
        acc, j = self.fresh("acc"), self.fresh("j")
        init, t = self.leaf(rng.choice([None, "int"]))
        self.emit(pad, "%s = %s" % (acc, init))
        count = rng.choice(["3", "1", "5", "0"]) if rng.random() < 0.5 else "(%s & 7)" % self.integer(2)[0]
        if rng.random() < 0.6:
            self.emit(pad, "for %s in range(%s):" % (j, count))
        else:
            self.emit(pad, "%s = 0" % j)
            self.emit(pad, "while %s < %s:" % (j, count))
            self.emit(pad + 1, "%s += 1" % j)
        self.vars[j] = "int64"
        if rng.random() < 0.4:
            self.emit(pad + 1, "if %s:" % self.condition(2)[0])
            self.emit(pad + 2, rng.choice(["break", "continue"]))
        e, et = self.real(1)
        retype = rng.random() < 0.3
        same_ints = kind(et) in "iub" and kind(t) in "iub" and (kind(et) == "u") == (kind(t) == "u") and not retype
        op = rng.choice(["+", "-", "*", "max", "min", "^"] if same_ints else "+-*")  # numba refuses float ^ int
        if op in ("max", "min"):
            self.emit(pad + 1, "%s = %s(%s, %s)" % (acc, op, acc, e))
        else:
            self.emit(pad + 1, "%s = %s %s %s" % (acc, acc, op, e))
        if retype:
            self.emit(pad + 1, "%s = %s" % (acc, self.leaf()[0]))  # the accumulator re-typed in the body
        del self.vars[j]
        self.vars[acc] = promote(t, et)

    def divmod_statement(self, pad, nested):
        (a, ta), (b, tb) = self.real(2), self.real(2)
        q, r = self.fresh("q"), self.fresh("m")
        self.emit(pad, "%s, %s = divmod(%s, %s)" % (q, r, a, b))
        self.vars[q] = self.vars[r] = promote(ta, tb)

    def kernel(self):
        rng = self.rng
        for _ in range(rng.randint(1, 7)):
            self.statement(2)
        results = []
        for j in range(rng.randint(1, 3)):
            names = list(self.vars)
            if names and rng.random() < 0.5:
                e = rng.choice(names)
                t = self.vars[e]
            else:
                e, t = self.expr()
            self.emit(2, "r%d = %s" % (j, e))
            cols = {"c": "c%d" % j} if kind(t) == "c" else {"f": "f%d" % j, "n": "n%d" % j}
            for col in cols.values():
                self.emit(2, "%s[i] = r%d" % (col, j))
            results.append(("r%d" % j, cols))
        outputs = [(c, OUT_DTYPES[k]) for _, cols in results for k, c in cols.items()]
        params = [o for o, _ in outputs] + [a.name for a in self.inputs]
        head = ["def k(%s):" % ", ".join(params), "    i = cuda.grid(1)", "    if i < %s.size:" % "a0"]
        return "\n".join(head + self.lines) + "\n", outputs, results


OUT_DTYPES = {"f": "float64", "n": "int64", "c": "complex128"}


def accepts(want, t):
    k = kind(t)
    return {
        None: True,
        "real": k != "c",
        "int": k in "iub",
        "bool": k == "b",
        "float": k == "f",
        "complex": k == "c",
    }[want]


# -- the families' expressions: each (gen, depth, want) -> (text, coarse type) or None -----------------------------
def arith(g, d, want):
    op = g.rng.choice(["+", "-", "*", "/", "//", "%", "**"])
    if want == "int" and op == "/":
        op = "//"
    (a, ta) = g.real(d, "int" if want == "int" else None)
    if op == "**":
        b, tb = power_exponent(g, ta)
    else:
        b, tb = g.real(d, "int" if want == "int" else None)
    t = "float64" if op == "/" and kind(promote(ta, tb)) != "f" else promote(ta, tb)
    return "(%s %s %s)" % (a, op, b), t


def power_exponent(g, base_type):
    """A non-negative integer exponent for an integer base (negative ones are the `divzero` family's), any else."""
    rng = g.rng
    if kind(base_type) in "iub":
        if rng.random() < 0.6:
            return str(rng.randint(0, 6)), "int64"
        return "(%s & 7)" % g.integer(3)[0], "int64"
    return g.real(3) if rng.random() < 0.5 else (rng.choice(["2", "0.5", "3", "-1", "2.0", "-0.5"]), "float64")


def unary(g, d, want):
    op = g.rng.choice(["-", "+", "~", "not "])
    a, t = g.expr(d, "int" if op == "~" else ("real" if op == "not " else want))
    if op == "not ":
        return "(not %s)" % a, "bool"
    if op == "~" and t == "bool":
        return "(~%s)" % a, "bool"
    return "(%s%s)" % (op, a), t


def bitwise(g, d, want):
    op = g.rng.choice(["&", "|", "^", "<<", ">>"])
    a, ta = g.integer(d)
    if op in ("<<", ">>"):
        b, _ = shift_count(g, d, ta)
        return "(%s %s %s)" % (a, op, b), ta if ta != "bool" else "int64"
    b, tb = g.integer(d)
    return "(%s %s %s)" % (a, op, b), "bool" if ta == tb == "bool" else promote(ta, tb)


def shift_count(g, d, t):
    """A shift count in range: a literal at the edges (0, the type's width less one, 63) or a masked value."""
    rng = g.rng
    if g.has("shiftedge") and rng.random() < 0.5:
        return rng.choice(["64", "65", "(-1)", str(bits(t)), g.integer(d)[0]]), "int64"
    if rng.random() < 0.5:
        return str(rng.choice([0, 1, 2, 7, 8, 15, 31, 32, 62, 63, max(bits(t) - 1, 0)])), "int64"
    return "(%s & %d)" % (g.integer(d)[0], rng.choice([7, 15, 31, 63])), "int64"


def compare(g, d, want):
    rng = g.rng
    ops = ["<", "<=", "==", "!=", ">", ">="]
    parts = [g.real(d)[0] for _ in range(rng.choice([2, 2, 2, 3]))]
    text = parts[0]
    for p in parts[1:]:
        text += " %s %s" % (rng.choice(ops), p)
    return "(%s)" % text, "bool"


def ifexp(g, d, want):
    c, _ = g.condition(d)
    (a, ta), (b, tb) = g.expr(d, want), g.expr(d, want)
    return "(%s if %s else %s)" % (a, c, b), ta if ta == tb else promote(ta, tb)


def builtins(g, d, want):
    rng = g.rng
    f = rng.choice(["abs", "min", "max", "max3", "round", "round2", "int", "float", "bool", "divmod", "pow"])
    if f in ("int", "round") or (f == "round2" and want == "int"):
        a, t = g.tame() if rng.random() < 0.7 else g.integer(d)
        return "%s(%s)" % ("int" if f == "int" else "round", a), "int64"
    if f == "round2":
        return "round(%s, %d)" % (g.real(d, "float")[0], rng.randint(-2, 3)), "float64"
    if f == "pow":
        a, t = g.real(d)
        b, _ = power_exponent(g, t)
        return "pow(%s, %s)" % (a, b), promote(t, "int64")
    if f == "divmod":
        (a, ta), (b, tb) = g.real(d, want), g.real(d, want)
        return "divmod(%s, %s)[%d]" % (a, b, rng.randint(0, 1)), promote(ta, tb)
    if f in ("min", "max", "max3"):
        args = [g.real(d, want) for _ in range(3 if f == "max3" else 2)]
        t = args[0][1]
        for _, u in args[1:]:
            t = promote(t, u) if t != u else t
        return "%s(%s)" % (f[:3], ", ".join(a for a, _ in args)), t
    a, t = g.expr(d, "real" if f != "abs" else None)
    if f == "abs":
        return "abs(%s)" % a, "float64" if kind(t) == "c" else t
    return "%s(%s)" % (f, a), {"float": "float64", "bool": "bool"}[f]


def mathfn(g, d, want):
    rng = g.rng
    if rng.random() < 0.3:
        f = rng.choice(MATH2)
        (a, _), (b, _) = g.real(d), g.real(d)
        return "math.%s(%s, %s)" % (f, a, b), "float64"
    if rng.random() < 0.1:
        return "math.ldexp(%s, (%s & 63))" % (g.real(d, "float")[0], g.integer(d)[0]), "float64"
    f = rng.choice(MATH1)
    a, t = g.real(d)
    return "math.%s(%s)" % (f, a), "bool" if f.startswith("is") else t if kind(t) == "f" else "float64"


def cmathfn(g, d, want):
    rng = g.rng
    r = rng.random()
    if r < 0.35:
        op = rng.choice(["+", "-", "*", "/", "**", "==", "!="])
        (a, ta), (b, tb) = g.expr(d, "complex"), g.expr(d)
        if rng.random() < 0.5:
            (a, ta), (b, tb) = (b, tb), (a, ta)
        return "(%s %s %s)" % (a, op, b), "bool" if op in ("==", "!=") else promote(ta, tb)
    if r < 0.6:
        return "cmath.%s(%s)" % (rng.choice(CMATH1), g.expr(d, "complex")[0]), "complex128"
    if r < 0.75:
        f = rng.choice(["cmath.isnan", "cmath.isinf", "cmath.isfinite", "cmath.phase", "abs"])
        return "%s(%s)" % (f, g.expr(d, "complex")[0]), "float64" if f in ("cmath.phase", "abs") else "bool"
    if r < 0.9:
        a, t = g.expr(d, "complex")
        attr = rng.choice([".real", ".imag", ".conjugate()"])
        return "%s%s" % (a, attr), t if attr == ".conjugate()" else "float64"
    (a, _), (b, _) = g.real(d), g.real(d)
    return ("complex(%s, %s)" if rng.random() < 0.5 else "cmath.rect(%s, %s)") % (a, b), "complex128"


def literals(g, d, want):
    a, t = g.leaf(want)
    b, tb = g.literal(None if want != "int" else "int")
    op = g.rng.choice(["+", "-", "*", "//", "%", "<", "==", "&", "|"] if kind(promote(t, tb)) in "iub" else "+-*<")
    if g.rng.random() < 0.5:
        a, b, t, tb = b, a, tb, t
    return "(%s %s %s)" % (a, op, b), "bool" if op in ("<", "==") else promote(t, tb)


def casts(g, d, want):
    rng = g.rng
    target = rng.choice(INTS + ["float16", "float32", "float64"])
    if kind(target) in "iu" and rng.random() < 0.6:
        a, _ = g.tame(unsigned=target[0] == "u")  # a float in range: out of range is undefined in numba
    else:
        a, t = g.integer(d) if kind(target) in "iu" else g.real(d)
    return "np.%s(%s)" % (target, a), target


def divzero(g, d, want):
    rng = g.rng
    a, ta = g.integer(d)
    r = rng.random()
    if r < 0.6:
        b = rng.choice(["0", "(%s * 0)" % g.integer(d)[0], g.integer(d)[0]])
        return "(%s %s %s)" % (a, rng.choice(["//", "%"]), b), promote(ta, "int64")
    b = rng.choice(["(-1)", "(-2)", "(-%d)" % rng.randint(3, 70), g.integer(d)[0]])
    return "(%s ** %s)" % (rng.choice([a, "0", "1", "(-1)", "2"]), b), promote(ta, "int64")


MAKERS = {
    "arith": [arith] * 3,
    "unary": [unary] * 2,
    "bitwise": [bitwise] * 3,
    "shiftedge": [bitwise] * 2,
    "inplace": [arith],
    "compare": [compare] * 3,
    "ifexp": [ifexp] * 2,
    "branches": [arith, compare],
    "loops": [arith],
    "builtins": [builtins] * 3,
    "math": [mathfn] * 3,
    "cmath": [cmathfn] * 4,
    "literals": [literals] * 2 + [arith],
    "casts": [casts] * 3 + [arith],
    "divzero": [divzero] * 3,
}


# -- inputs -----------------------------------------------------------------------------------------------------------
def edge_values(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return [False, True]
    if dt.kind in "iu":
        info = np.iinfo(dt)
        values = [0, 0, 1, 2, 3, 7, int(info.max), int(info.min), int(info.max) - 1, int(info.max) // 2 + 1]
        return values + ([-1, -2, -7, int(info.min) + 1] if dt.kind == "i" else [])
    info = np.finfo(dt)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 100.0, np.nan, np.inf, -np.inf]
    values += [float(info.max), float(info.min), float(info.tiny), float(info.smallest_subnormal), float(info.eps)]
    values += [2.0**53 + 2, 2.0**63, 2.0**64, 1e10, -1e10, 1e-10, 65504.0, 65520.0]
    return values


def fill(array, n, nprng):
    dt = np.dtype(array.dtype)
    if array.tame:  # finite, within [-TAME, TAME], with halves (rounding)
        values = np.round(nprng.uniform(-TAME, TAME, n) * 2) / 2
        values[: n // 3] = nprng.uniform(-TAME, TAME, n // 3)
        return nprng.permutation(values).astype(dt)
    if dt.kind == "c":
        part = np.dtype("float%d" % (dt.itemsize * 4))
        values = np.empty(n, dt)
        values.real = fill(Array("", part.name), n, nprng)
        values.imag = fill(Array("", part.name), n, nprng)
        return values
    with np.errstate(over="ignore", invalid="ignore"):
        edges = np.array(edge_values(dt.name), dtype=np.float64 if dt.kind == "f" else object).astype(dt)
    if dt.kind == "b":
        random_part = nprng.integers(0, 2, n).astype(dt)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        wide = nprng.integers(int(info.min), int(info.max), n, dtype=dt, endpoint=True)
        small = nprng.integers(-9 if dt.kind == "i" else 0, 10, n).astype(dt)
        random_part = np.where(nprng.random(n) < 0.5, wide, small)
    else:
        random_part = np.where(nprng.random(n) < 0.5, nprng.normal(0, 10, n), nprng.uniform(-1e4, 1e4, n))
        random_part = random_part.astype(dt)
    values = np.concatenate([edges, random_part])[:n] if len(edges) < n else edges[:n]
    return nprng.permutation(values)


# -- a case -----------------------------------------------------------------------------------------------------------
def case_rng(seed, index):
    return random.Random(seed * 1_000_003 + index)


def generate(seed, index, families=FAMILIES):
    """The case's kernel and its input arrays: a function of (seed, index, families) only."""
    rng = case_rng(seed, index)
    families = list(families)
    chosen = [rng.choice(families)]
    if len(families) > 1 and rng.random() < 0.25:  # a mix of two
        other = rng.choice([f for f in families if f != chosen[0]])
        chosen = sorted([chosen[0], other])
    g = Gen(rng, chosen)
    source, outputs, results = g.kernel()
    case = Case(seed, index, chosen, source, outputs, g.inputs, results)
    n = rng.randint(N_MIN, N_MAX)
    nprng = np.random.default_rng(rng.getrandbits(63))
    for name, dtype in outputs:
        case.arrays[name] = np.zeros(n, dtype)
    for a in g.inputs:
        case.arrays[a.name] = fill(a, n, nprng)
    return case
