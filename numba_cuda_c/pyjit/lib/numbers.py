"""Numbers made and asked in kernels: conversions (np.float32(x), cuda.types.int32(x), numba.int64(x)), a number's
methods (z.conjugate(), i.bit_count()) and the constructors of CUDA's vector types (cuda.float32x4(...), float4).

A conversion's entry is made for its type on first use (`conversion`); methods are found as ("number", name)."""

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import TABLE, Intrinsic
from numba_cuda_c.pyjit.values import cast


def conversion(t):
    """The entry that converts one number to the scalar type t."""
    entry = TABLE.get(("convert", t.name))
    if entry is None:

        def typing_rule(args):
            if len(args) != 1:
                raise TypeError("a conversion takes one value")
            cast(args[0], t)  # refuses what does not convert (a complex number to a real one), saying why
            return t

        entry = Intrinsic(("convert", t.name), typing_rule, lambda codes, args, result: cast(args[0], result))
    return entry


def converting_function(family, name, c_name, argument_types, result, requires=()):
    """cuda.<family>.<name>(...) (cuda.fp16, cuda.bf16): real numbers converted to argument_types, then c_name's C
    call, whose result has type `result`. The entry's `signature` says what it takes and gives (tools and tests)."""

    def typing_rule(args):
        if len(args) != len(argument_types):
            raise TypeError(
                "cuda.%s.%s takes %d argument%s"
                % (family, name, len(argument_types), "s"[len(argument_types) == 1 :])
            )
        for a in args:
            if not typing.is_real(a.type):
                raise TypeError("cuda.%s.%s takes real numbers, not %s" % (family, name, a.type))
        return result

    def emit(codes, args, result_type):
        return "%s(%s)" % (c_name, ", ".join(cast(a, t) for a, t in zip(args, argument_types)))

    entry = Intrinsic((family, name), typing_rule, emit, requires=requires, doc="CUDA's %s" % c_name)
    entry.signature = (tuple(argument_types), result)
    return entry


def _method(result):
    def typing_rule(args):  # args[0]: the number the method is of
        if len(args) != 1:
            raise TypeError("wrong number of arguments")
        return result(args[0].type)

    return typing_rule


def _bit_count(codes, args, result):
    """Ones in |x|, as Python counts them."""
    x = args[0]
    wide = x.type.bits == 64
    unsigned = "unsigned long long" if wide else "unsigned int"
    if x.type.kind == "i":
        operand = "(%s)ncc_abs(%s)" % (unsigned, cast(x, types.int64 if wide else types.int32))
    else:
        operand = cast(x, types.uint64 if wide else types.uint32)
    return "(long long)__popc%s(%s)" % ("ll" if wide else "", operand)


Intrinsic(("number", "bit_count"), _method(lambda t: types.int64), _bit_count)
Intrinsic(
    ("number", "conjugate"),
    _method(lambda t: t),
    lambda codes, args, t: "ncc_conj(%s)" % codes[0] if typing.is_complex(t) else codes[0],
)


def _vector(alias, vector):
    """cuda.float32x4(...): numbers and vectors of the same base type, their elements in order, as many as the vector
    holds (numba's constructors: float32x3(float32x2(a, b), c), float32x2(float32x1(a), b), ...)."""

    def typing_rule(args):
        count = 0
        for arg in args:
            if isinstance(arg.type, types.VectorType):
                if arg.type.base != vector.base:
                    raise TypeError("cuda.%s takes %s vectors, not %s" % (name, vector.base, arg.type))
                count += arg.type.count
            elif isinstance(arg.type, types.Scalar) and not typing.is_complex(arg.type):
                count += 1
            else:
                raise TypeError("cuda.%s takes numbers and %s vectors" % (name, vector.base))
        if count != vector.count:
            raise TypeError("cuda.%s takes %d elements, %d given" % (name, vector.count, count))
        return vector

    def emit(codes, args, result, translator):
        elements = []
        for arg in args:
            if isinstance(arg.type, types.VectorType):  # evaluated once, read element by element
                temp = translator.module.unique("vec")
                translator.emit("%s %s = %s;" % (arg.type.ctype, temp, arg.code))
                elements += ["%s.%s" % (temp, a) for a in arg.type.attr_names]
            else:
                elements.append(cast(arg, vector.base))
        return "make_%s(%s)" % (vector.ctype, ", ".join(elements))

    name = vector.name  # numba's, in messages
    Intrinsic((alias,), typing_rule, emit, statements=True)


for _name, _vector_type in types.VECTOR_TYPES.items():
    _vector(_name, _vector_type)
