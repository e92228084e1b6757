"""The library's table (pyjit/lib/__init__.py loads its families into it): the entries (Intrinsic) by path, the C
they require (Requirement), and the mark of a translation that captures device memory. The families register here."""

TABLE = {}  # path -> Intrinsic

# The first line of a translation that bakes in a global device array's pointer: valid in this process
# only, so a translation read from the disk cache with it is made again (the dispatcher checks).
CAPTURES_DEVICE_MEMORY = "// numba_cuda_c: captures device memory by pointer"

REQUIREMENTS = {}  # name -> Requirement


class Requirement:
    """C the source needs once (`code`, placed after the prelude), and launch flags it implies."""

    def __init__(self, name, code, launch=()):
        self.name, self.code, self.launch = name, code, tuple(launch)
        REQUIREMENTS[name] = self


class Intrinsic:
    """A device function numba provides. typing(args) -> result type (raise TypeError with the reason
    to refuse the arguments), or a literal Value where the result is known when compiling (len of a tuple);
    emit(codes, args, result) -> the C expression. Calling one on the host
    is an error, as numba's are (they are device functions)."""

    def __init__(
        self, path, typing, emit, requires=(), doc=None, statements=False, sign_clear=None, llvm_constants=False
    ):
        self.path, self.typing, self.emit, self.requires = tuple(path), typing, emit, tuple(requires)
        # sign_clear(args): whether numba's LLVM knows the result's sign bit is clear (values.sign_clear)
        self.sign_clear = sign_clear
        # llvm_constants: emit's arguments carry the numbers numba's LLVM folds them to (Statements.llvm_number),
        # for a function whose result LLVM folds otherwise than it computes at run time (divmod's frem)
        self.llvm_constants = llvm_constants
        # statements: emit(codes, args, result, translator) may write statements first (translator.emit)
        # and, for a tuple result, returns the items' C expressions
        self.statements = statements
        self.__name__ = self.path[-1]
        self.__qualname__ = ".".join(self.path)
        self.__doc__ = doc
        TABLE[self.path] = self

    def __call__(self, *args, **kwargs):
        raise TypeError("%s is a device function: call it from a @cuda.jit kernel" % self.__qualname__)

    def __repr__(self):
        return "<device function cuda.%s>" % self.__qualname__
