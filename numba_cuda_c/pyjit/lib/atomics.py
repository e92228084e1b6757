"""cuda.atomic.*: read-modify-write of one array element (add, sub, max, min, nanmax, nanmin, exch, and_, or_, xor,
inc, dec; compare_and_swap and cas), returning the old value, on the types numba allows; and the cache hints
cuda.ldcg(a, i) / cuda.stcg(a, i, v) (CUDA's __ldcg, __stcg, ...), a load or a store with that cache policy.

The index is an integer or a tuple of them, one per dimension, negative ones wrapped as numba's."""

from numba_cuda_c import types
from numba_cuda_c.pyjit import typing
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement
from numba_cuda_c.pyjit.values import cast, element_ref, wrapped_index

# the C type CUDA's atomic functions take for each element type
CTYPES = {
    "int32": "int", "uint32": "unsigned int", "int64": "unsigned long long", "uint64": "unsigned long long",
    "float32": "float", "float64": "double",
}  # fmt: skip

# numba's names (and_, or_; `and` and `or` too) -> CUDA's functions
FUNCTIONS = {
    "add": "atomicAdd", "sub": "atomicSub", "max": "atomicMax", "min": "atomicMin", "nanmax": "atomicMax",
    "nanmin": "atomicMin", "exch": "atomicExch", "and_": "atomicAnd", "or_": "atomicOr", "xor": "atomicXor",
    "inc": "atomicInc", "dec": "atomicDec", "and": "atomicAnd", "or": "atomicOr",
}  # fmt: skip


# numba gives NVVM an array's data as a generic pointer, so its atomics on global memory are generic ones
# (`atom.add.f64`), as numba's tests read in its PTX; NVRTC knows a kernel's pointer arguments are global and would
# write `atom.global.add.f64`. The same operation on the same memory: a global address is passed on as a generic one
# (a register move NVRTC cannot see through), and a shared or local one, which NVRTC names so from its provenance,
# is kept (its `atom.shared` is numba's too). `__isGlobal` folds wherever the address's space is known.
Requirement(
    "atomics.address",
    "template <typename T> __device__ __forceinline__ T *ncc_atomic_address(T *p) {\n"
    "    if (!__isGlobal(p)) return p;\n"
    "    T *generic;\n"
    '    asm("mov.b64 %0, %1;" : "=l"(generic) : "l"(p));\n'
    "    return generic;\n"
    "}\n",
)
REQUIRES = ("atomics.address",)


def _count(args, n):
    if len(args) != n:
        raise TypeError("wrong number of arguments")


def _check_index(array, index):
    """The array is an array, indexed by one integer per dimension."""
    if not isinstance(array.type, types.Array):
        raise TypeError("atomics act on an array element")
    items = index.items if index.items is not None else [index]
    if len(items) != array.type.ndim:
        raise TypeError("the index must give one integer per dimension")
    for item in items:
        if not typing.is_int(item.type):
            raise TypeError("array indices must be integers, not %s" % item.type)


def _element(array, index):
    """The element's lvalue (C), negative indices wrapped."""
    items = index.items if index.items is not None else [index]
    return element_ref(array, [wrapped_index(item, array, axis) for axis, item in enumerate(items)])


def _operation(op):
    def typing_rule(args):
        _count(args, 3)
        array, index, _value = args
        _check_index(array, index)
        t = array.type.dtype
        if t.name not in CTYPES:
            raise TypeError("atomics take int32, uint32, int64, uint64, float32 or float64, not %s" % t)
        if t.kind == "f" and op not in ("add", "sub", "exch", "max", "min", "nanmax", "nanmin"):
            raise TypeError("cuda.atomic.%s takes integers" % op)
        if op in ("inc", "dec") and t not in (types.uint32, types.uint64, types.int32, types.int64):
            raise TypeError("cuda.atomic.%s takes 32- and 64-bit integer arrays" % op)
        return t

    def emit(codes, args, t):
        array, index, value = args
        ref, v, ctype = "*ncc_atomic_address(&%s)" % _element(array, index), cast(value, t), CTYPES[t.name]
        if t.kind == "f" and op in ("max", "min", "nanmax", "nanmin"):  # a CAS loop (prelude.py)
            return "ncc_atomic_%s%s(&%s, %s)" % (op, "_f32" if t.bits == 32 else "_f64", ref, v)
        function = FUNCTIONS[op]
        if op == "sub" and (t.kind == "f" or t.bits == 64):  # CUDA subtracts 32-bit integers only
            function, v = "atomicAdd", "-(%s)" % v
        if op in ("inc", "dec") and t != types.uint32:  # CUDA has them for uint32 only: a CAS loop
            unsigned = "unsigned long long" if t.bits == 64 else "unsigned int"
            return "ncc_atomic_%s<%s, %s>(&%s, (%s)(%s))" % (op, t.ctype, unsigned, ref, t.ctype, v)
        if op == "exch" and t == types.float64:  # atomicExch has no double overload: swap the bits
            return (
                "__longlong_as_double((long long)atomicExch((unsigned long long *)&%s, "
                "(unsigned long long)__double_as_longlong(%s)))" % (ref, v)
            )
        if t == types.int64 and op in ("max", "min", "nanmax", "nanmin"):  # signed comparison
            ctype = "long long"
        return "((%s)%s((%s *)&%s, (%s)(%s)))" % (t.ctype, function, ctype, ref, ctype, v)

    Intrinsic(("atomic", op), typing_rule, emit, requires=REQUIRES)


for _op in FUNCTIONS:
    _operation(_op)


def _compare_and_swap(name):
    """cas(a, index, old, value); compare_and_swap(a, old, value) on a's first element."""

    def typing_rule(args):
        _count(args, 4 if name == "cas" else 3)
        array = args[0]
        if name == "cas":
            _check_index(array, args[1])
        elif not isinstance(array.type, types.Array):
            raise TypeError("atomics act on an array element")
        t = array.type.dtype
        if t.kind not in "iu" or t.bits not in (32, 64):
            raise TypeError("atomic compare-and-swap takes 32- or 64-bit integers")
        return t

    def emit(codes, args, t):
        array, old, value = args[0], args[-2], args[-1]
        ref = _element(array, args[1]) if name == "cas" else element_ref(array, ["0LL"] * array.type.ndim)
        ref = "*ncc_atomic_address(&%s)" % ref
        ctype = CTYPES[t.name]
        return "((%s)atomicCAS((%s *)&%s, (%s)%s, (%s)%s))" % (
            t.ctype,
            ctype,
            ref,
            ctype,
            old.code,
            ctype,
            value.code,
        )

    Intrinsic(("atomic", name), typing_rule, emit, requires=REQUIRES)


_compare_and_swap("cas")
_compare_and_swap("compare_and_swap")

CACHE_HINTS = ("ldca", "ldcg", "ldcs", "ldlu", "ldcv", "stcg", "stcs", "stwb", "stwt")  # CUDA's __ldcg, ...

# Each hint is inline PTX on the element's bits, `ld.global.cg.b8` ... `.b64`, as numba writes it (its tests read
# those in the PTX; CUDA's __ldcg types them: ld.global.cg.u8); an 8-bit value travels in a 32-bit register, which
# PTX allows for loads and stores. The asm statements' volatility and memory clobbers are those of CUDA's own
# (sm_32_intrinsics.hpp): ld.ca/cg/cs volatile, ld.lu/cv and every store clobbering memory.
_WIDTHS = ((1, "8", "r", "unsigned int"), (2, "16", "h", "unsigned short"), (4, "32", "r", "unsigned int"),
           (8, "64", "l", "unsigned long long"))  # fmt: skip
Requirement(
    "cache_hints.bits",
    "template <typename B, typename T> __device__ __forceinline__ B ncc_bits_of(T value) {\n"
    "    B bits = 0;\n"
    "    memcpy(&bits, &value, sizeof(T));\n"
    "    return bits;\n"
    "}\n"
    "template <typename T, typename B> __device__ __forceinline__ T ncc_from_bits(B bits) {\n"
    "    T value;\n"
    "    memcpy(&value, &bits, sizeof(T));\n"
    "    return value;\n"
    "}\n",
)


def _cache_hint_code(name):
    """The C template of one hint: ncc_ldcg<T>(const T *) -> T, ncc_stcg<T>(T *, T)."""
    hint = name[2:]
    branches = []
    if name.startswith("ld"):
        volatile, clobber = (" volatile", "") if hint in ("ca", "cg", "cs") else ("", ' : "memory"')
        for size, bits, constraint, register in _WIDTHS:
            branches.append(
                'if constexpr (sizeof(T) == %d) {\n        %s b;\n        asm%s("ld.global.%s.b%s %%0, [%%1];" : '
                '"=%s"(b) : "l"(p)%s);\n        return ncc_from_bits<T>((%s)b);\n    }'
                % (
                    size,
                    register,
                    volatile,
                    hint,
                    bits,
                    constraint,
                    clobber,
                    register if size != 1 else "unsigned char",
                )
            )
        signature = "T ncc_%s(const T *p)" % name
    else:
        for size, bits, constraint, register in _WIDTHS:
            branches.append(
                'if constexpr (sizeof(T) == %d) {\n        asm("st.global.%s.b%s [%%0], %%1;" :: "l"(p), '
                '"%s"(ncc_bits_of<%s>(value)) : "memory");\n    }' % (size, hint, bits, constraint, register)
            )
        signature = "void ncc_%s(T *p, T value)" % name
    branches[-1] = branches[-1].replace("if constexpr (sizeof(T) == 8) {", "{  // 8 bytes")  # (the types' sizes)
    return "template <typename T> __device__ __forceinline__ %s {\n    %s\n}\n" % (
        signature,
        " else ".join(branches),
    )


for _name in CACHE_HINTS:
    Requirement("cache_hints." + _name, _cache_hint_code(_name))


def _cache_hint(name):
    """cuda.ldcg(a, i) -> a[i]; cuda.stcg(a, i, value): a an array, i an index or a tuple of them; or a pointer and
    an offset."""
    store = name.startswith("st")

    def typing_rule(args):
        _count(args, 3 if store else 2)
        base, index = args[0], args[1]
        if not isinstance(base.type, (types.Array, types.CPointer)):
            raise TypeError("cuda.%s takes an array or a pointer first" % name)
        dtype = base.type.dtype
        if not isinstance(dtype, types.Scalar) or dtype == types.boolean or typing.is_complex(dtype):
            raise TypeError("%s requires array of integer or float type, not %s" % (name, dtype))  # numba's words
        indices = index.items if index.items is not None else [index]
        for i in indices:
            if not typing.is_int(i.type):
                raise TypeError("%s is not a valid index" % i.type)
        if isinstance(base.type, types.Array) and len(indices) != base.type.ndim:
            got = "a scalar" if index.items is None else "%d" % len(indices)
            raise TypeError("Expected %d indices, got %s" % (base.type.ndim, got))
        if isinstance(base.type, types.CPointer) and len(indices) != 1:
            raise TypeError("a pointer is indexed by one integer")
        return None if store else dtype

    def emit(codes, args, result):
        base, index = args[0], args[1]
        if isinstance(base.type, types.CPointer):
            ref = "(%s)[%s]" % (base.code, cast(index, types.int64))
        else:
            ref = _element(base, index)
        ctype = base.type.dtype.element_ctype
        if store:
            return "ncc_%s<%s>(&%s, %s)" % (name, ctype, ref, cast(args[2], base.type.dtype))
        return "ncc_%s<%s>(&%s)" % (name, ctype, ref)

    Intrinsic((name,), typing_rule, emit, requires=("cache_hints.bits", "cache_hints." + name))


for _name in CACHE_HINTS:
    _cache_hint(_name)
