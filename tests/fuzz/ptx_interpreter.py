"""A PTX interpreter for the fuzzer's kernels, so that numba-cuda's PTX and ours can be compared on the CPU, bit for
bit, where no GPU is at hand (ptx_differential.py).

It runs one kernel entry of a PTX module thread by thread over byte buffers, for the instructions NVVM emits for
integer and float arithmetic, conversions, comparisons, selects, branches and global and local loads and stores.
Registers hold bit patterns; each instruction reads them as its type says (so `mov.b64 %rd, %fd` moves bits).
Float arithmetic is IEEE with round-to-nearest (fma exact, through fractions) and the GPU's canonical NaN; calls of
the module's .func functions run too. What it cannot do exactly (approximate, flushing or directed-rounding
instructions, half-precision floats, vector accesses, shared memory, textures, atomics) raises Unsupported, and the case is not compared: a
wrong emulation must not be mistaken for a difference."""

import bisect
import math
import re
import struct
from fractions import Fraction


class Unsupported(Exception):
    """The kernel uses what the interpreter does not emulate exactly."""


_F32_NAN, _F64_NAN = 0x7FFFFFFF, 0x7FFFFFFFFFFFFFFF  # what the GPU's float instructions write for a NaN


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0]


def bits32(x):
    if x != x:
        return _F32_NAN
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0x7F800000 if x > 0 else 0xFF800000


def bits64(x):
    return _F64_NAN if x != x else struct.unpack("<Q", struct.pack("<d", x))[0]


def round_f32(x):
    """A double rounded to float32 (the double holding an exact or once-rounded value; see fma)."""
    if x != x or x in (math.inf, -math.inf):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _exact_to_f32(q):
    """A Fraction rounded once to float32 (nearest, ties to even)."""
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    q = abs(q)
    exponent = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** exponent > q:
        exponent -= 1
    exponent = max(exponent, -126)  # subnormals share the smallest normal exponent's step
    if exponent > 127:
        return sign * math.inf
    step = Fraction(2) ** (exponent - 23)
    units = q / step
    whole = units.numerator // units.denominator
    rest = units - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    value = whole * step
    if value >= Fraction(2) ** 128 - Fraction(2) ** 103:
        return sign * math.inf
    return sign * float(value)


def _signed(value, width):
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _width(t):
    """The bits of a PTX type (u32, s8, f64, b16, ...); a predicate's: 1."""
    return 1 if t == "pred" else int(t[1:])


class Memory:
    """Byte buffers at made-up addresses: the arrays of a launch, the parameters, frames, the module's globals."""

    def __init__(self):
        self.starts, self.blocks = [], []
        self.next = 0x100000

    def add(self, data):
        start = self.next
        self.starts.append(start)
        self.blocks.append(data)
        self.next += (len(data) + 0x1FFF) & ~0xFFF
        return start

    def _find(self, address, size):
        k = bisect.bisect_right(self.starts, address) - 1
        if k >= 0 and address + size <= self.starts[k] + len(self.blocks[k]):
            return self.blocks[k], address - self.starts[k]
        raise Unsupported("an access outside every buffer: %#x" % address)

    def load(self, address, size):
        data, offset = self._find(address, size)
        return int.from_bytes(data[offset : offset + size], "little")

    def store(self, address, size, value):
        data, offset = self._find(address, size)
        data[offset : offset + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


_LINE = re.compile(r"^(@!?%\w+\s+)?([a-z][\w.]*)\s*(.*?)\s*;$")


class Function:
    """An `.entry` or a `.func` of a PTX module: its parameters and return parameters (name, bytes), its
    instructions (guard, opcode, operands), its labels, the buffers it declares in its body (.local frames,
    .param slots of its calls: name -> bytes) and the registers it names without a % (inline asm's)."""

    def __init__(self, header, body):
        returns, _, rest = header.partition(")") if header.lstrip().startswith("(") else ("", "", header)
        m = re.match(r"\s*(\w+)\s*(?:\((.*)\))?\s*$", rest, re.S)
        if not m:
            raise Unsupported("a function header: " + header[:80])
        self.name = m.group(1)
        self.params = _params(m.group(2) or "")
        self.returns = _params(returns.strip().lstrip("("))
        self.instructions, self.labels, self.buffers, self.named_registers = [], {}, {}, set()
        statement = ""
        for raw in body.splitlines():
            line = raw.split("//")[0].strip()
            line = (
                line.replace("{", " ").replace("}", " ").strip()
                if not re.search(r"[{]\s*%|%\w+\s*[}]", line)
                else line
            )
            if not line:
                continue
            statement = (statement + " " + line).strip()
            if statement.endswith(":"):
                self.labels[statement[:-1]] = len(self.instructions)
                statement = ""
                continue
            if not statement.endswith(";"):
                continue
            self._statement(statement)
            statement = ""

    def _statement(self, text):
        if text.startswith("{") and not re.match(r"^\{\s*%", text):
            text = text[1:].strip()
        if text.startswith(".reg"):
            for name in text.rstrip(";").split(None, 2)[-1].split(","):
                name = name.strip()
                if name and not name.startswith("%"):
                    self.named_registers.add(name)
            return
        if re.match(r"^\.(pragma|loc|file)\b", text):  # (not .local)
            return
        if text.startswith((".local", ".param", ".shared")):
            m = re.search(r"(\w+)(?:\[(\d+)\])?\s*;$", text)
            kind = re.findall(r"\.([bsuf]\d+)", text)
            size = (
                int(m.group(2)) * (_width(kind[-1]) // 8 if m.group(2) else 1)
                if m.group(2)
                else _width(kind[-1]) // 8
            )
            if text.startswith(".shared"):
                raise Unsupported("shared memory")
            self.buffers[m.group(1)] = max(size, 1)
            return
        if text.startswith("."):
            raise Unsupported("a directive in the body: " + text)
        m = _LINE.match(text)
        if not m:
            raise Unsupported("cannot read: " + text)
        guard = m.group(1).strip() if m.group(1) else None
        self.instructions.append((guard, m.group(2), _split_operands(m.group(3))))


def _params(text):
    found = []
    for decl in _split_operands(text):
        words = decl.split()
        if not words:
            continue
        m = re.match(r"(\w+)(?:\[(\d+)\])?", words[-1])
        kind = [w for w in words if re.match(r"^\.[bsuf]\d+$", w)]
        size = int(m.group(2)) if m.group(2) else _width(kind[-1][1:]) // 8
        found.append((m.group(1), max(size, 1)))
    return found


class Module:
    """A PTX module's functions (name -> Function) and initialised globals."""

    def __init__(self, ptx):
        self.globals = _module_globals(ptx)
        self.functions, self.entries = {}, []
        for m in re.finditer(r"\.(entry|func)\s+", ptx):
            brace = ptx.find("{", m.end())
            semicolon = ptx.find(";", m.end())
            if semicolon != -1 and semicolon < brace:
                continue  # a declaration (prototype) only
            header = ptx[m.end() : brace]
            depth, k = 1, brace + 1
            while depth:
                depth += ptx[k] == "{"
                depth -= ptx[k] == "}"
                k += 1
            function = Function(header, ptx[brace + 1 : k - 1])
            self.functions[function.name] = function
            if m.group(1) == "entry":
                self.entries.append(function)


def _module_globals(ptx):
    """The module's initialised .global/.const arrays (libdevice's tables): name -> bytes."""
    found = {}
    for m in re.finditer(
        r"\.(?:global|const)\s+(?:\.align\s+\d+\s+)?\.(b8|u8|b32|u32|b64|u64|f32|f64)\s+(\w+)\[(\d+)\]"
        r"(?:\s*=\s*\{([^}]*)\})?",
        ptx,
    ):
        t, name, count = m.group(1), m.group(2), int(m.group(3))
        size = _width(t) // 8
        data = bytearray(size * count)
        if m.group(4):
            for k, item in enumerate(x.strip() for x in m.group(4).split(",")):
                data[k * size : (k + 1) * size] = (int(item, 0) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
        found[name] = data
    return found


def _split_operands(text):
    operands, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            operands.append(current.strip())
            current = ""
            continue
        depth += ch in "{[("
        depth -= ch in "}])"
        current += ch
    if current.strip():
        operands.append(current.strip())
    return operands


def _immediate(text, t):
    if text.startswith(("0d", "0f")):  # a float's bits in hex
        return int(text[2:], 16)
    if t and t[0] == "f" and re.match(r"^-?\d+\.\d*(e[-+]?\d+)?$", text):
        return bits64(float(text)) if t == "f64" else bits32(float(text))
    try:
        return int(text, 0) & ((1 << 64) - 1)
    except ValueError:
        raise Unsupported("an operand: " + text) from None


class Thread:
    """One thread's run of a function: its registers, and the symbols (parameters, buffers) its code names."""

    STEP_LIMIT = 200_000

    def __init__(self, module, function, memory, symbols, special, depth=0):
        self.module, self.k, self.mem, self.special, self.depth = module, function, memory, special, depth
        self.regs = {}
        self.symbols = dict(symbols)
        for name, size in function.buffers.items():  # this frame's .local and call .param buffers
            self.symbols[name] = memory.add(bytearray(size))

    # -- operands -----------------------------------------------------------------------------------------------------
    def read(self, text, t):
        if text.startswith("%") and text in self.special:
            return self.special[text]
        if text.startswith("%") or text in self.k.named_registers:
            return self.regs.get(text, 0)  # an undefined register: a value on a path not taken
        if text in self.symbols:
            return self.symbols[text]
        if text.startswith("-") and text[1:].startswith("%"):
            raise Unsupported("a negated register operand")
        return _immediate(text, t)

    def write(self, text, value, t):
        width = _width(t) if t else 64
        self.regs[text] = value & ((1 << width) - 1) if width > 1 else (1 if value else 0)

    def address(self, text):
        inner = text.strip("[]")
        m = re.match(r"^([%\w$.]+)\s*(?:\+\s*(-?\w+))?$", inner)
        if not m:
            raise Unsupported("an address: " + text)
        base = m.group(1)
        if base.startswith("%") or base in self.symbols or base in self.k.named_registers:
            value = self.read(base, "u64")
        else:
            value = int(base, 0)
        return (value + (int(m.group(2), 0) if m.group(2) else 0)) & ((1 << 64) - 1)

    def call(self, operands):
        """call (ret), f, (a, b): f's parameters are the caller's .param buffers of those names."""
        if operands[0].startswith("("):
            returns, name, args = operands[0], operands[1], operands[2] if len(operands) > 2 else "()"
        else:
            returns, name, args = "()", operands[0], operands[1] if len(operands) > 1 else "()"
        callee = self.module.functions.get(name.strip())
        if callee is None or self.depth > 64:
            raise Unsupported("a call of " + name)
        symbols = {n: s for n, s in self.symbols.items() if n in self.module.globals}
        actual = [a.strip() for a in args.strip("()").split(",") if a.strip()]
        for (formal, _), given in zip(callee.params, actual):
            symbols[formal] = self.symbols[given]
        for (formal, _), given in zip(
            callee.returns, [r.strip() for r in returns.strip("()").split(",") if r.strip()]
        ):
            symbols[formal] = self.symbols[given]
        Thread(self.module, callee, self.mem, symbols, self.special, self.depth + 1).run()

    # -- the loop -----------------------------------------------------------------------------------------------------
    def run(self):
        pc, steps, code = 0, 0, self.k.instructions
        while pc < len(code):
            steps += 1
            if steps > self.STEP_LIMIT:
                raise Unsupported("too many steps")
            guard, op, operands = code[pc]
            pc += 1
            if guard is not None:
                negate = guard.startswith("@!")
                p = self.regs.get(guard.lstrip("@!"), 0)
                if bool(p) == negate:
                    continue
            if op.startswith("bra"):
                pc = self.k.labels[operands[0]]
                continue
            if op == "ret" or op == "exit":
                return
            if op.startswith("call"):
                self.call(operands)
                continue
            execute(self, op, operands)


def _register_width(name):
    """A register's width by NVVM's naming (%rd, %fd: 64; %r, %f: 32; %rs, %h: 16); inline asm's own: 64."""
    m = re.match(r"%([a-z]+)\d", name)
    prefix = m.group(1) if m else ""
    return {"rd": 64, "fd": 64, "r": 32, "f": 32, "rs": 16, "h": 16}.get(prefix, 64)


def _float(t, bits):
    return f32(bits) if t == "f32" else f64(bits)


def _to_bits(t, x):
    return bits32(x) if t == "f32" else bits64(x)


def _rounded(t, x):
    return round_f32(x) if t == "f32" else x


def _cmp(op, a, b, t):
    """setp's comparison: a float's ordered ones are false with a NaN, its unordered ones (equ, ltu, ...) true."""
    if t[0] == "f":
        unordered = a != a or b != b
        if op in ("num", "nan"):
            return unordered == (op == "nan")
        if op in ("equ", "neu", "ltu", "leu", "gtu", "geu"):
            if unordered:
                return True
            op = op[:-1]
        elif unordered:
            return False
    op = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}.get(op, op)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op]


def _value(thread, text, t):
    """An operand as a number of type t: a float, or an int (signed for .s types)."""
    raw = thread.read(text, t)
    if t[0] == "f":
        return _float(t, raw)
    width = _width(t)
    return _signed(raw, width) if t[0] == "s" else raw & ((1 << width) - 1)


def _store_number(thread, dst, value, t):
    if t[0] == "f":
        thread.write(dst, _to_bits(t, _rounded(t, value)), t)
    else:
        thread.write(dst, int(value), t)


def execute(th, op, ops):
    parts = op.split(".")
    name, mods = parts[0], parts[1:]
    if any(m in ("f16", "bf16", "f16x2", "bf16x2") for m in mods):  # not modelled: half floats (their bits move)
        raise Unsupported("a half-precision instruction: " + op)
    t = next((m for m in reversed(mods) if re.match(r"^[subf](8|16|32|64)$|^pred$", m)), None)
    if name in ("mov",):
        if ops[1].startswith("{"):  # mov.b64 %rd, {%r1, %r2}: packing
            items = [i.strip() for i in ops[1].strip("{}").split(",")]
            width = _width(t) // len(items)
            value = 0
            for k, item in enumerate(items):
                value |= (th.read(item, "b%d" % width) & ((1 << width) - 1)) << (k * width)
            th.write(ops[0], value, t)
        elif ops[0].startswith("{"):  # mov.b64 {%r1, %r2}, %rd: unpacking
            items = [i.strip() for i in ops[0].strip("{}").split(",")]
            width = _width(t) // len(items)
            value = th.read(ops[1], t)
            for k, item in enumerate(items):
                if item != "_":
                    th.write(item, value >> (k * width), "b%d" % width)
        else:
            th.write(ops[0], th.read(ops[1], t), t)
        return
    if name == "cvta":
        th.write(ops[0], th.read(ops[1], "u64"), "u64")
        return
    if name == "ld" or name == "st":
        t = mods[-1]
        size = max(_width(t) // 8, 1)
        if name == "ld":
            address = th.address(ops[1])
            if ops[0].startswith("{"):
                raise Unsupported("a vector load")
            value = th.mem.load(address, size)
            if t[0] == "s":  # sign-extended to the register's width (ld.global.s16 %rd1: 64 bits)
                value = _signed(value, _width(t))
            th.write(ops[0], value, "b%d" % max(_register_width(ops[0]), _width(t)))
        else:
            if ops[1].startswith("{"):
                raise Unsupported("a vector store")
            th.mem.store(th.address(ops[0]), size, th.read(ops[1], t))
        return
    if name == "cvt":
        _cvt(th, mods, ops)
        return
    if name == "setp":
        cmp, t = mods[0], mods[-1]
        if len(ops) > 3:
            raise Unsupported("setp with a boolean operand")
        a, b = _value(th, ops[1], t), _value(th, ops[2], t)
        result = _cmp(cmp, a, b, t)
        names = ops[0].split("|")
        th.write(names[0], result, "pred")
        if len(names) > 1:
            th.write(names[1], not result, "pred")
        return
    if name == "selp":
        p = th.regs.get(ops[3], 0)
        th.write(ops[0], th.read(ops[1] if p else ops[2], t), t)
        return
    if name in ("and", "or", "xor", "not", "cnot"):
        if t == "pred":  # an operand is a predicate register or an immediate (xor.pred %p2, %p1, -1: not)

            def truth(text):
                return bool(th.regs.get(text, 0)) if text.startswith("%") else int(text, 0) != 0

            a = truth(ops[1])
            if name == "not":
                th.write(ops[0], not a, "pred")
                return
            b = truth(ops[2])
            th.write(ops[0], {"and": a and b, "or": a or b, "xor": bool(a) != bool(b)}[name], "pred")
            return
        a = th.read(ops[1], t)
        if name == "not":
            th.write(ops[0], ~a, t)
        elif name == "cnot":
            th.write(ops[0], 1 if a == 0 else 0, t)
        else:
            b = th.read(ops[2], t)
            th.write(ops[0], {"and": a & b, "or": a | b, "xor": a ^ b}[name], t)
        return
    if name in ("shl", "shr"):
        width = _width(t)
        a, n = _value(th, ops[1], t), th.read(ops[2], "u32") & 0xFFFFFFFF
        if name == "shl":
            th.write(ops[0], a << n if n < width else 0, t)
        else:
            th.write(ops[0], (a >> min(n, width)) if t[0] != "s" else (a >> min(n, width - 1)), t)
        return
    if t is not None and t[0] == "f":
        _float_op(th, name, mods, t, ops)
        return
    if t is not None:
        _int_op(th, name, mods, t, ops)
        return
    raise Unsupported("the instruction " + op)


def _float_op(th, name, mods, t, ops):
    if any(m in ("approx", "ftz", "sat", "full") for m in mods):
        raise Unsupported("an approximate or flushing float instruction: " + ".".join([name] + mods))
    if any(m in ("rz", "rm", "rp") for m in mods):
        raise Unsupported("a directed rounding: " + ".".join([name] + mods))
    vals = [_value(th, o, t) for o in ops[1:]]
    if name == "add":
        r = vals[0] + vals[1]
    elif name == "sub":
        r = vals[0] - vals[1]
    elif name == "mul":
        r = vals[0] * vals[1]  # (Python's inf * 0 is NaN, as IEEE's)
    elif name in ("fma", "mad"):
        r = _fma(vals[0], vals[1], vals[2], t)
        _store_number(th, ops[0], r, t)
        return
    elif name == "div":
        a, b = vals
        if b == 0:  # (where Python raises)
            r = math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1, b)
        else:
            r = a / b
    elif name == "neg":
        th.write(ops[0], th.read(ops[1], t) ^ (1 << (_width(t) - 1)), t)  # bits: a NaN keeps its payload
        return
    elif name == "abs":
        th.write(ops[0], th.read(ops[1], t) & ~(1 << (_width(t) - 1)), t)
        return
    elif name in ("min", "max"):
        a, b = vals
        if a != a:
            r = b
        elif b != b:
            r = a
        elif a == b == 0:
            r = (a if math.copysign(1, a) < 0 else b) if name == "min" else (a if math.copysign(1, a) > 0 else b)
        else:
            r = min(a, b) if name == "min" else max(a, b)
    elif name == "sqrt":
        a = vals[0]
        r = math.nan if a < 0 or a != a else (math.sqrt(a) if t == "f64" else _sqrt32(a))
        if t == "f32":
            th.write(ops[0], bits32(r), t)
            return
    elif name == "rcp":
        a = vals[0]
        r = math.copysign(math.inf, a) if a == 0 else 1.0 / a
    elif name == "copysign":
        th.write(
            ops[0],
            (th.read(ops[2], t) & ~(1 << (_width(t) - 1))) | (th.read(ops[1], t) & (1 << (_width(t) - 1))),
            t,
        )
        return
    elif name == "testp":
        a = vals[0]
        kind = mods[0]
        th.write(
            ops[0],
            {
                "finite": math.isfinite(a),
                "infinite": math.isinf(a),
                "number": a == a,
                "notanumber": a != a,
                "normal": a != 0 and math.isfinite(a) and abs(a) >= (2.0**-126 if t == "f32" else 2.0**-1022),
                "subnormal": a != 0 and abs(a) < (2.0**-126 if t == "f32" else 2.0**-1022),
            }[kind],
            "pred",
        )
        return
    else:
        raise Unsupported("the float instruction " + name)
    if isinstance(r, float) and r != r:
        th.write(ops[0], _F32_NAN if t == "f32" else _F64_NAN, t)
        return
    _store_number(th, ops[0], r, t)


def _sqrt32(a):
    """float32 square root, correctly rounded: the double root rounded once more is exact here (53 >= 2 * 24 + 2)."""
    return round_f32(math.sqrt(a))


def _fma(a, b, c, t):
    if any(x != x for x in (a, b, c)) or any(math.isinf(x) for x in (a, b, c)):
        product = a * b if not ((math.isinf(a) and b == 0) or (math.isinf(b) and a == 0)) else math.nan
        r = product + c
        return math.nan if r != r else r
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:  # -0.0 only from a negative zero product and -0.0 (IEEE's sum of exact zeros); else +0.0
        negative_product = math.copysign(1, a) * math.copysign(1, b) < 0
        return -0.0 if negative_product and math.copysign(1, c) < 0 else 0.0
    if t == "f32":
        return _exact_to_f32(exact)
    try:
        return float(exact)  # correctly rounded
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _int_op(th, name, mods, t, ops):
    width = _width(t)
    signed = t[0] == "s"
    mask = (1 << width) - 1

    def v(k, tt=t):
        return _value(th, ops[k], tt)

    if name == "add":
        th.write(ops[0], v(1) + v(2), t)
    elif name == "sub":
        th.write(ops[0], v(1) - v(2), t)
    elif name == "mul" or name == "mad":
        product = v(1) * v(2)
        if "wide" in mods:
            th.write(
                ops[0],
                product + (v(3, ("s" if signed else "u") + str(2 * width)) if name == "mad" else 0),
                ("s" if signed else "u") + str(2 * width),
            )
            return
        if "hi" in mods:
            product >>= width
        th.write(ops[0], product + (v(3) if name == "mad" else 0), t)
    elif name == "div":
        a, b = v(1), v(2)
        if b == 0:
            th.write(ops[0], mask, t)  # the GPU's: all ones
        else:
            q = abs(a) // abs(b)
            th.write(ops[0], q if (a < 0) == (b < 0) else -q, t)
    elif name == "rem":
        a, b = v(1), v(2)
        if b == 0:
            th.write(ops[0], a, t)
        else:
            r = abs(a) % abs(b)
            th.write(ops[0], -r if a < 0 else r, t)
    elif name == "neg":
        th.write(ops[0], -v(1), t)
    elif name == "abs":
        th.write(ops[0], abs(v(1)), t)
    elif name in ("min", "max"):
        th.write(ops[0], (min if name == "min" else max)(v(1), v(2)), t)
    elif name == "clz":
        a = th.read(ops[1], t) & mask
        th.write(ops[0], width - a.bit_length(), "u32")
    elif name == "popc":
        th.write(ops[0], bin(th.read(ops[1], t) & mask).count("1"), "u32")
    elif name == "brev":
        a = th.read(ops[1], t) & mask
        th.write(ops[0], int(format(a, "0%db" % width)[::-1], 2), t)
    elif name == "bfe":
        a, pos, length = v(1), th.read(ops[2], "u32") & 0xFF, th.read(ops[3], "u32") & 0xFF
        field = (a >> pos) & ((1 << length) - 1) if length else 0
        if signed and length and field >> (length - 1):
            field -= 1 << length
        th.write(ops[0], field, t)
    elif name == "bfi":
        a, b = th.read(ops[1], t), th.read(ops[2], t)
        pos, length = th.read(ops[3], "u32") & 0xFF, th.read(ops[4], "u32") & 0xFF
        field_mask = ((1 << length) - 1) << pos
        th.write(ops[0], (b & ~field_mask) | ((a << pos) & field_mask), t)
    elif name == "slct":
        raise Unsupported("slct")
    else:
        raise Unsupported("the integer instruction " + name)


def _cvt(th, mods, ops):
    dst_t, src_t = mods[-2], mods[-1]
    rounding = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
    if "sat" in mods or "ftz" in mods:
        raise Unsupported("cvt.sat/ftz")
    raw = th.read(ops[1], src_t)
    if src_t[0] == "f":
        x = _float(src_t, raw)
        if dst_t[0] == "f":
            if rounding in ("rni", "rzi", "rmi", "rpi"):
                if x != x or math.isinf(x):
                    r = x
                else:
                    r = {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}[rounding](
                        x
                    )  # round: to even
                    r = math.copysign(float(r), x) if r == 0 else float(r)
                th.write(ops[0], _to_bits(dst_t, r), dst_t)
            elif dst_t == "f32" and src_t == "f64":
                if rounding not in (None, "rn"):
                    raise Unsupported("cvt with a directed rounding")
                th.write(ops[0], bits32(x), "f32")  # struct's pack rounds to nearest
            else:
                th.write(ops[0], _to_bits(dst_t, x), dst_t)
            return
        # float -> integer: rounding given (rzi the usual), saturating, NaN -> 0
        width, signed = _width(dst_t), dst_t[0] == "s"
        if x != x:
            r = 0
        else:
            if math.isinf(x):
                r = (1 << (width - 1)) - 1 if x > 0 else -(1 << (width - 1))
                if not signed:
                    r = (1 << width) - 1 if x > 0 else 0
            else:
                r = {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil, None: math.trunc}[
                    rounding
                ](x)
                lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
                r = max(lo, min(hi, int(r)))
        th.write(ops[0], r, dst_t)
        return
    # integer source
    width_s = _width(src_t)
    value = _signed(raw, width_s) if src_t[0] == "s" else raw & ((1 << width_s) - 1)
    if dst_t[0] == "f":
        if rounding not in (None, "rn"):
            raise Unsupported("cvt with a directed rounding")
        if dst_t == "f64":
            th.write(ops[0], bits64(float(value)), "f64")  # Python's int -> float rounds to nearest even
        else:
            th.write(ops[0], bits32(_exact_to_f32(Fraction(value))), "f32")
        return
    th.write(ops[0], value, dst_t)


def run_kernel(ptx, param_bytes, memory, n_threads, block=32):
    """Runs every thread of a 1-d launch of the module's (first) kernel: param_bytes are its parameters' bytes.
    Returns the addresses of its parameters and globals (name -> address in memory)."""
    module = Module(ptx)
    if not module.entries:
        raise Unsupported("no kernel entry")
    kernel = module.entries[0]
    if len(kernel.params) != len(param_bytes):
        raise Unsupported("%d parameters, %d given" % (len(kernel.params), len(param_bytes)))
    symbols = {name: memory.add(bytearray(data)) for (name, _), data in zip(kernel.params, param_bytes)}
    for name, data in module.globals.items():
        symbols[name] = memory.add(bytearray(data))
    for i in range(n_threads):
        tid, ctaid = i % block, i // block
        special = {
            "%tid.x": tid,
            "%ntid.x": block,
            "%ctaid.x": ctaid,
            "%tid.y": 0,
            "%tid.z": 0,
            "%ctaid.y": 0,
            "%ctaid.z": 0,
            "%ntid.y": 1,
            "%ntid.z": 1,
            "%nctaid.x": (n_threads + block - 1) // block,
            "%nctaid.y": 1,
            "%nctaid.z": 1,
            "%laneid": tid % 32,
            "%warpid": tid // 32,
        }
        Thread(module, kernel, memory, symbols, special).run()
    return symbols
