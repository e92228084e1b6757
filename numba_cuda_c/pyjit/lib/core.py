"""CUDA's own device functions that numba names under cuda.*: the thread's place in the grid (grid, gridsize),
barriers and memory fences, nanosleep, the syncthreads reductions, fma, cbrt and the bit functions (popc, clz,
ffs, brev)."""

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import Intrinsic
from numba_cuda_c.pyjit.values import cast


def _count(args, n):
    if len(args) != n:
        raise TypeError("wrong number of arguments")


def _position(name, axis_code):
    """cuda.grid(ndim) / cuda.gridsize(ndim): an int64, or a tuple of ndim of them."""

    def typing_rule(args):
        _count(args, 1)
        ndim = args[0].const
        if ndim is None:  # numba's RequireLiteralValue: the dimension count must be known when compiling
            raise TypeError("RequireLiteralValue: cuda.%s(ndim) needs ndim as a literal 1, 2 or 3" % name)
        if ndim not in (1, 2, 3):
            raise TypeError("cuda.%s(ndim) takes 1, 2 or 3" % name)
        return types.int64 if ndim == 1 else types.Tuple([types.int64] * ndim)

    def emit(codes, args, result, translator):
        items = [axis_code % {"axis": axis} for axis in "xyz"[: args[0].const]]
        return items[0] if len(items) == 1 else items

    Intrinsic((name,), typing_rule, emit, statements=True)


_position("grid", "((long long)threadIdx.%(axis)s + (long long)blockIdx.%(axis)s * (long long)blockDim.%(axis)s)")
_position("gridsize", "((long long)blockDim.%(axis)s * (long long)gridDim.%(axis)s)")


def _statement(name, code):
    """A barrier or fence: no arguments, no value."""

    def typing_rule(args):
        _count(args, 0)

    Intrinsic((name,), typing_rule, lambda codes, args, result: code)


_statement("syncthreads", "__syncthreads()")
_statement("threadfence", "__threadfence()")
_statement("threadfence_block", "__threadfence_block()")
_statement("threadfence_system", "__threadfence_system()")


def _nanosleep_typing(args):
    _count(args, 1)
    if not typing.is_int(args[0].type):
        raise TypeError("cuda.nanosleep takes an integer number of nanoseconds")


# sleep about ns nanoseconds (sm_70+)
Intrinsic(
    ("nanosleep",), _nanosleep_typing, lambda codes, args, result: "__nanosleep(%s)" % cast(args[0], types.uint32)
)


def _syncthreads_reduction(name):
    def typing_rule(args):
        _count(args, 1)
        return types.int32

    Intrinsic((name,), typing_rule, lambda codes, args, result: "__%s((int)(%s))" % (name, codes[0]))


for _name in ("syncthreads_count", "syncthreads_and", "syncthreads_or"):
    _syncthreads_reduction(_name)


def _fma_typing(args):
    _count(args, 3)
    a, b, c = (v.type for v in args)
    return typing.math_result(typing.promote(typing.promote(a, b), c))


Intrinsic(
    ("fma",),
    _fma_typing,
    lambda codes, args, t: "%s(%s)"
    % ("fmaf" if t == types.float32 else "fma", ", ".join(cast(a, t) for a in args)),
)


def _cbrt_typing(args):
    _count(args, 1)
    return typing.math_result(args[0].type)


Intrinsic(
    ("cbrt",),
    _cbrt_typing,
    lambda codes, args, t: "%s(%s)" % ("cbrtf" if t == types.float32 else "cbrt", cast(args[0], t)),
)


def _bits(name):
    """popc, clz, ffs (an int32 count) and brev (the bits reversed, unsigned), on 32- or 64-bit integers."""

    def typing_rule(args):
        _count(args, 1)
        t = args[0].type
        if not typing.is_int(t):
            raise TypeError("cuda.%s takes an integer" % name)
        if name == "brev":
            return types.uint64 if t.bits == 64 else types.uint32
        return types.int32

    def emit(codes, args, result):
        wide = args[0].type.bits == 64
        if name == "brev":
            return "__brev%s(%s)" % ("ll" if wide else "", cast(args[0], result))
        operand = "(long long)(%s)" % codes[0] if wide else "(int)(%s)" % codes[0]
        return "__%s%s(%s)" % (name, "ll" if wide else "", operand)

    Intrinsic((name,), typing_rule, emit)


for _name in ("popc", "clz", "ffs", "brev"):
    _bits(_name)
