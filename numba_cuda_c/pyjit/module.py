"""The CUDA C of one compilation (ModuleBuilder): the prelude and the libraries a translation needs, the structs its
tuples and records travel in, its device functions (each translated once per argument types, placed only where
emitted code calls it), then the kernel; and the marks read back from a translation's first lines (captured
device memory, the exceptions it can raise). What its launch must do (launch_flags) is data the translation returns."""

import re

from numba_cuda_c import types
from numba_cuda_c.pyjit import lib
from numba_cuda_c.pyjit.calls import _constant_key
from numba_cuda_c.pyjit.exceptions import raise_lines
from numba_cuda_c.pyjit.extern import declare_in
from numba_cuda_c.pyjit.names import DEVICE_PREFIX, c_symbol
from numba_cuda_c.pyjit.prelude import COMPLEX, FP16_HEADER, PRELUDE
from numba_cuda_c.pyjit.typing import KernelTypeError


class _Unknown(Exception):
    """A variable whose type is not known yet (first pass): the statement is typed later."""


CAPTURES_DEVICE_MEMORY = lib.CAPTURES_DEVICE_MEMORY
# Recursive device functions: ptxas cannot bound their stack, and the context's default (1 KiB a thread)
# holds only a few frames; the launch flag makes the dispatcher raise the kernel's contexts' stack.
lib.Requirement("recursion", "", launch=("deep_stack",))
lib.Requirement("fp16", FP16_HEADER)
# CUDA's FP8 types and conversions (numba_cuda_c/fp8_types.py, lib/fp8.py)
lib.Requirement("fp8", "#include <cuda_fp8.h>\n")
# A translation whose text names one of these needs that library's header: a float16 or bfloat16 value can
# enter anywhere (a parameter, an array's element, a cast, a constant), and its C type names it; so can an Optional.
HEADER_MARKS = (
    ("fp16", ("__half", "ncc_to_half", "ncc_int_to_half", "ncc_from_half")),
    ("bf16", ("bfloat16", "ncc_to_bf16")),
    ("fp8", ("__nv_fp8", "__nv_bfloat16_raw")),  # a variable, an array's element, a conversion (lib/fp8.py)
    ("optional", ("ncc_optional",)),  # numba's Optional values (optional.py)
)
# The complex-number part of the prelude goes where the C names one of its types or functions
COMPLEX_NAMES = tuple(sorted(set(re.findall(r"\bncc_[a-z0-9_]+(?=\s*[(<{])", COMPLEX))))


class ModuleBuilder:
    """The CUDA C of one compilation: the prelude, device functions, then the kernel."""

    def __init__(self, function_translator):
        # the translator of a device function: FunctionTranslator(pyfunc, argtypes, module, device, name, constants)
        self.function_translator = function_translator
        self.functions = {}  # (pyfunc, argtypes) -> (c name, return type)
        self.constants = {}  # arrays in constant memory (cuda.const.array_like) -> their C names
        self.captured = []  # global device arrays read by pointer: kept alive with the kernel
        self.externs = {}  # declared device functions called (extern.py): name -> (wrapper, [ExternFunction])
        self.typed = {}  # device function C name -> (key, FunctionTranslator): typed, its C not written yet
        self.function_text = {}  # device function C name -> its definition, once an emitting pass called it
        self.function_calls = {}  # device function C name -> the device functions its code calls
        self.placed = set()
        self.translating = {}  # key -> the FunctionTranslator of a device function being typed or written
        self.debug = False  # debug=True: exceptions are recorded and raised on the host (exceptions.py)
        self.fastmath = False  # fastmath=True: float division by zero is not checked, even with debug
        self.lineinfo = False  # lineinfo or debug: #line directives map the C to the Python source's lines
        self.raises = []  # (exception class, args) a raise can record, code k at index k - 1
        self.requirements = {}  # name -> lib.Requirement, in the order first needed
        self.overloads = {}  # (function, argument types, keyword types) -> numba's @overload implementation
        self.pieces = []
        self.counter = 0

    def unique(self, stem):
        self.counter += 1
        return "%s_%d" % (stem, self.counter)

    def device_function(self, pyfunc, argtypes, declared_return=None, constants=None, forceinline=False):
        """A device function's C name and return type for these argument types (and compile-time arguments, by
        position), typed once: its typing passes run here, as a typing pass of its caller asks. Its C is written
        later, once, only if an emitting pass calls it (write()): the caller's early typing passes ask for
        provisional argument types too, whose variants no one calls."""
        constants = constants or {}
        key = (
            pyfunc,
            tuple(argtypes),
            tuple(sorted((k, _constant_key(v)) for k, v in constants.items())),
            forceinline,
        )
        if key in self.translating:  # a call of a function being typed or written: recursion
            return self.functions[key][0], self.recursive_return_type(key, pyfunc)
        if key not in self.functions:
            name = self.unique(c_symbol(pyfunc.__name__, DEVICE_PREFIX))  # <lambda>, max, ρ too
            self.functions[key] = (name, None)
            translator = self.function_translator(
                pyfunc, argtypes, self, device=True, name=name, constants=constants
            )
            translator.declared_return = declared_return
            translator.forceinline = forceinline
            self.translating[key] = translator
            try:
                translator.type()
                if translator.untyped:  # a name never assigned, a recursion that never returns: its
                    self._write_now(name, translator)  # emitting pass says which, before the caller types on
                else:
                    self.typed[name] = (key, translator)
            except BaseException:
                del self.functions[key]
                raise
            finally:
                del self.translating[key]
            return_type = translator.return_type
            self.functions[key] = (name, types.void if return_type is None else return_type)  # emit()'s rule
        return self.functions[key]

    def write(self, name):
        """Writes the C of a typed device function, the first time an emitting pass calls it (a recursive call,
        while it is written, finds it being written)."""
        if name in self.typed:
            key, translator = self.typed.pop(name)
            self.translating[key] = translator
            try:
                self._write_now(name, translator)
            finally:
                del self.translating[key]

    def _write_now(self, name, translator):
        self.function_text[name] = translator.emit()
        self.function_calls[name] = translator.called

    def recursive_return_type(self, key, pyfunc):
        """A recursive call's return type, as numba infers it: the declared one, else what the paths
        that return without recursing give (a typing pass skips the call until one has)."""
        self.require("recursion")  # its launch needs a deeper stack than ptxas can size
        translator = self.translating[key]
        if translator.declared_return is not None:
            return translator.declared_return
        if translator.return_type is not None:
            return translator.return_type
        if translator.emitting:  # its emitting pass: no typing pass is left to learn it
            raise KernelTypeError(
                "cannot type infer runaway recursion: every path of %s calls itself before it returns"
                % pyfunc.__name__
            )
        raise _Unknown(pyfunc.__name__)

    def place(self, called):
        """Puts the definitions of the device functions `called`, and of those they call, in the
        source, callees first, each once."""
        for name in called:
            if name not in self.placed:
                self.placed.add(name)
                self.write(name)  # written already, unless only a function written while it was typed calls it
                text = self.function_text[name]
                self.pieces.append(text[: text.index("{")].rstrip() + ";\n")  # declared first: recursion
                self.place(self.function_calls[name])
                self.pieces.append(text)

    def extern(self, declared):
        """The C name of the wrapper that calls a declared device function, declared once (extern.py)."""
        return declare_in(self, declared)

    def tuple_struct(self, t):
        """The C struct a device function returns a tuple of numbers in (one per tuple type)."""
        name = self.constants.get(("tuple", t))
        if name is None:
            name = self.constants[("tuple", t)] = self.unique("ncc_tuple")
            fields = " ".join("%s f%d;" % (item.ctype, k) for k, item in enumerate(t.items))
            self.pieces.append("struct %s { %s };\n" % (name, fields))
        return name

    def string_constant(self, literal):
        """The C name of a string (the text of a C literal) in constant memory, declared once: numba keeps print()'s
        formats there (a kernel's get_const_mem_size() counts them)."""
        name = self.constants.get(("string", literal))
        if name is None:
            name = self.constants[("string", literal)] = self.unique("ncc_string")
            self.pieces.append('static __constant__ const char %s[] = "%s";\n' % (name, literal))
        return name

    def record_struct(self, t):
        """The C struct a device function returns a record's bytes in, by value (one per record type)."""
        name = self.constants.get(("record", t))
        if name is None:
            name = self.constants[("record", t)] = self.unique("ncc_record")
            self.pieces.append("struct __align__(16) %s { unsigned char bytes[%d]; };\n" % (name, max(t.size, 1)))
        return name

    def require(self, name):
        """A library's C (lib.REQUIREMENTS) the source needs, placed once, after the prelude."""
        if name not in self.requirements:
            self.requirements[name] = lib.REQUIREMENTS[name]

    def launch_flags(self):
        """What a launch of the kernel must do (lib.Requirement's launch): a cooperative launch, a deep stack."""
        return sorted({flag for r in self.requirements.values() for flag in r.launch})

    def source(self):
        marks = CAPTURES_DEVICE_MEMORY + "\n" if self.captured else ""
        marks += raise_lines(self.raises)  # and the exceptions it can raise (exceptions.table_of)
        body = "\n".join(self.pieces)
        libraries = "".join(r.code for r in self.requirements.values())
        headers = "".join(
            lib.requirement(name).code
            for name, names in HEADER_MARKS
            if name not in self.requirements and any(n in body or n in libraries for n in names)
        )
        complex_part = COMPLEX if any(n in body or n in libraries for n in COMPLEX_NAMES) else ""
        return marks + headers + PRELUDE + complex_part + libraries + body
