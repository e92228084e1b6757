"""libdevice (numba's cuda.libdevice): every __nv_* function, with libdevice's own signature
(libdevice_table.py). Arguments convert to the parameter types; output pointers (sincos's, frexp's)
become a tuple of results after the return value, as numba returns them: sincos(x) -> (s, c)."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.lib.libdevice_table import FUNCTIONS
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement
from numba_cuda_c.pyjit.values import cast

C_TYPES = {
    "int": types.int32,
    "unsigned int": types.uint32,
    "long long": types.int64,
    "unsigned long long": types.uint64,
    "float": types.float32,
    "double": types.float64,
    "unsigned short": types.uint16,
}


def _entry(name, ret, params):
    inputs = [C_TYPES[c] for c, pointer in params if not pointer]
    outputs = [C_TYPES[c] for c, pointer in params if pointer]
    results = ([] if ret == "void" else [C_TYPES[ret]]) + outputs
    result = None if not results else results[0] if len(results) == 1 else types.Tuple(results)

    def typing(args):
        if len(args) != len(inputs):
            raise TypeError(
                "libdevice.%s takes %d argument%s" % (name, len(inputs), "" if len(inputs) == 1 else "s")
            )
        for a in args:
            if not isinstance(a.type, types.Scalar) or a.type.kind == "c":
                raise TypeError("libdevice.%s takes real numbers, not %s" % (name, a.type))
        return result

    def emit(codes, args, result_type, translator):
        converted = iter([cast(a, t) for a, t in zip(args, inputs)])
        if not outputs:
            return "__nv_%s(%s)" % (name, ", ".join(converted))
        temps = [translator.module.unique("out") for _ in outputs]  # the output pointers' targets
        for t, temp in zip(outputs, temps):
            translator.emit("%s %s;" % (t.ctype, temp))
        pointed = iter(temps)
        call = "__nv_%s(%s)" % (name, ", ".join("&" + next(pointed) if p else next(converted) for _c, p in params))
        if ret == "void":
            translator.emit(call + ";")
            return temps if len(temps) > 1 else temps[0]
        value = translator.module.unique("ret")
        translator.emit("%s %s = %s;" % (C_TYPES[ret].ctype, value, call))
        return [value] + temps

    # declared where used: NVRTC links libdevice, whose definitions these names then resolve to
    declaration = 'extern "C" __device__ %s __nv_%s(%s);\n' % (
        ret,
        name,
        ", ".join(c + (" *" if pointer else "") for c, pointer in params),
    )
    Requirement("libdevice." + name, declaration)
    Intrinsic(("libdevice", name), typing, emit, requires=("libdevice." + name,), statements=True)


for _name, (_ret, _params) in FUNCTIONS.items():
    _entry(_name, _ret, _params)
