"""cuda.fp16: numba's half-precision arithmetic, math and comparisons, as CUDA's __hadd, hsqrt, __heq, ...
on float16 (arguments of any real type convert to float16 first, as numba's do)."""

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import Intrinsic
from numba_cuda_c.pyjit.values import cast

# name -> (CUDA's function, argument count)
FUNCTIONS = {
    "hadd": ("__hadd", 2), "hsub": ("__hsub", 2), "hmul": ("__hmul", 2), "hdiv": ("__hdiv", 2),
    "hneg": ("__hneg", 1), "habs": ("__habs", 1), "hfma": ("__hfma", 3), "hmax": ("__hmax", 2),
    "hmin": ("__hmin", 2), "hsqrt": ("hsqrt", 1), "hrsqrt": ("hrsqrt", 1), "hrcp": ("hrcp", 1),
    "hlog": ("hlog", 1), "hlog2": ("hlog2", 1), "hlog10": ("hlog10", 1), "hexp": ("hexp", 1),
    "hexp2": ("hexp2", 1), "hexp10": ("hexp10", 1), "hsin": ("hsin", 1), "hcos": ("hcos", 1),
    "hceil": ("hceil", 1), "hfloor": ("hfloor", 1), "htrunc": ("htrunc", 1), "hrint": ("hrint", 1),
}  # fmt: skip
COMPARISONS = {"heq": "__heq", "hne": "__hne", "hgt": "__hgt", "hge": "__hge", "hlt": "__hlt", "hle": "__hle"}


def _half(name, function, count, result):
    def typing_rule(args):
        if len(args) != count:
            raise TypeError("wrong number of arguments")
        if not all(typing.is_real(a.type) for a in args):
            raise TypeError("cuda.fp16.%s takes real numbers" % name)
        return result

    def emit(codes, args, result_type):
        return "%s(%s)" % (function, ", ".join(cast(a, types.float16) for a in args))

    Intrinsic(("fp16", name), typing_rule, emit)


for _name, (_function, _count) in FUNCTIONS.items():
    _half(_name, _function, _count, types.float16)
for _name, _function in COMPARISONS.items():
    _half(_name, _function, 2, types.boolean)
