"""Warp intrinsics (numba's cuda.shfl_*_sync, the votes, match_*_sync, activemask, lanemask_lt):
CUDA's own __shfl_sync, __all_sync, ... with numba's argument checks and result types."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement
from numba_cuda_c.pyjit.values import cast

SHUFFLED = (types.int32, types.int64, types.uint32, types.uint64, types.float32, types.float64)

Requirement(
    "lanemask_lt",
    """__device__ __forceinline__ unsigned int ncc_lanemask_lt() {
    unsigned int mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}
""",
)


def _count(name, args, n):
    if len(args) != n:
        raise TypeError("cuda.%s takes %d arguments" % (name, n))


def _mask(args):
    t = args[0].type
    if not (isinstance(t, types.Scalar) and t.kind in "iu"):
        raise TypeError("Mask type must be an integer")
    return cast(args[0], types.uint32)


def _integer(name, value, what):
    if not (isinstance(value.type, types.Scalar) and value.type.kind in "iu"):
        raise TypeError("cuda.%s: %s must be an integer" % (name, what))


def _shuffle(name, c_name):
    def typing(args):
        _count(name, args, 3)
        _mask(args)
        if args[1].type not in SHUFFLED and args[1].type != types.boolean:
            raise TypeError("cuda.%s shuffles 32- and 64-bit integers and floats, not %s" % (name, args[1].type))
        _integer(name, args[2], "the lane argument")
        return args[1].type

    def emit(codes, args, result):
        value = cast(args[1], types.int32) if result == types.boolean else args[1].code
        code = "%s(%s, %s, %s)" % (c_name, _mask(args), value, cast(args[2], types.int32))
        return "(bool)" + code if result == types.boolean else code

    Intrinsic((name,), typing, emit)


_shuffle("shfl_sync", "__shfl_sync")
_shuffle("shfl_up_sync", "__shfl_up_sync")
_shuffle("shfl_down_sync", "__shfl_down_sync")
_shuffle("shfl_xor_sync", "__shfl_xor_sync")


def _vote(name, result, c_template):
    def typing(args):
        _count(name, args, 2)
        _mask(args)
        t = args[1].type
        if not (isinstance(t, types.Scalar) and t.kind in "iub"):
            raise TypeError("Predicate must be an integer or boolean")
        return result

    def emit(codes, args, result_type):
        return c_template % {"mask": _mask(args), "pred": "(int)((%s) != 0)" % args[1].code}

    Intrinsic((name,), typing, emit)


_vote("all_sync", types.boolean, "((bool)__all_sync(%(mask)s, %(pred)s))")
_vote("any_sync", types.boolean, "((bool)__any_sync(%(mask)s, %(pred)s))")
_vote("eq_sync", types.boolean, "((bool)__uni_sync(%(mask)s, %(pred)s))")
_vote("ballot_sync", types.uint32, "__ballot_sync(%(mask)s, %(pred)s)")

MATCHED = (types.int32, types.int64, types.uint32, types.uint64, types.float32, types.float64)


def _match_typing(name, result):
    def typing(args):
        _count(name, args, 2)
        _mask(args)
        if args[1].type not in MATCHED:
            raise TypeError("cuda.%s matches 32- and 64-bit integers and floats, not %s" % (name, args[1].type))
        return result

    return typing


Intrinsic(
    ("match_any_sync",),
    _match_typing("match_any_sync", types.uint32),
    lambda codes, args, result: "__match_any_sync(%s, %s)" % (_mask(args), args[1].code),
)


def _match_all(codes, args, result, translator):
    predicate = translator.module.unique("pred")
    mask = translator.module.unique("mask")
    translator.emit("int %s;" % predicate)
    translator.emit(
        "unsigned int %s = __match_all_sync(%s, %s, &%s);" % (mask, _mask(args), args[1].code, predicate)
    )
    return [mask, "((bool)%s)" % predicate]


Intrinsic(
    ("match_all_sync",),
    _match_typing("match_all_sync", types.Tuple([types.uint32, types.boolean])),
    _match_all,
    statements=True,
)


def _no_arguments(name, result):
    def typing(args):
        _count(name, args, 0)
        return result

    return typing


Intrinsic(("activemask",), _no_arguments("activemask", types.uint32), lambda codes, args, result: "__activemask()")
Intrinsic(
    ("lanemask_lt",),
    _no_arguments("lanemask_lt", types.uint32),
    lambda codes, args, result: "ncc_lanemask_lt()",
    requires=("lanemask_lt",),
)


def _selp_typing(args):
    _count("selp", args, 3)
    if not all(isinstance(a.type, types.Scalar) for a in args):
        raise TypeError("cuda.selp(predicate, a, b) takes numbers")
    if args[1].type != args[2].type:
        raise TypeError("cuda.selp: a and b must have one type, not %s and %s" % (args[1].type, args[2].type))
    return args[1].type


# a call, so that both values are computed whatever the predicate, as numba's selp computes its operands: C's `?:`
# computes only the one chosen, and a load in the other is then behind a branch (numba-cuda's test_selp counts them)
Requirement(
    "selp",
    "template <typename T> __device__ __forceinline__ T ncc_selp(bool predicate, T a, T b) {\n"
    "    return predicate ? a : b;\n"
    "}\n",
)
Intrinsic(
    ("selp",),
    _selp_typing,
    lambda codes, args, result: "ncc_selp<%s>(%s, %s, %s)"
    % (result.ctype, cast(args[0], types.boolean), codes[1], codes[2]),
    requires=("selp",),
    doc="numba's cuda.selp(predicate, a, b): a where the predicate holds, else b (PTX's selp).",
)
