"""Scalar and array types, named as numba's (numba_cuda_c.float32, numba_cuda_c.types.int64, ...),
for signatures ("void(float32[:], int64)", float32(float32, float32)), shared and local arrays.

A scalar type knows its NumPy dtype and its CUDA C spelling; indexing one with slices makes an
array type: float32[:] (1-d, any layout), float32[:, ::1] (2-d, C-contiguous), float32[::1, :] (F).
"""

from types import ModuleType as _ModuleType


class Type:
    """Base of every type. Subclassed as numba's is (class MyType(types.Type): super().__init__(name=...)):
    such a type has a name, and no device form of its own."""

    name = "?"

    def __init__(self, *args, name=None, **kwargs):
        if name is not None:
            self.name = name

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name

    # Types are interned (one object per type), so hashing is by identity and equality is identity
    # first: the dispatcher looks kernels up by tuples of types on every launch. A numba type object
    # that names the same type compares equal (rec._numba_type_ == numba's from_dtype(rec.dtype)).
    __hash__ = object.__hash__

    def __eq__(self, other):
        if self is other:
            return True
        if is_numba_type(other):
            try:
                return from_numba(other) == self
            except TypeError:
                return False
        return NotImplemented


class ElementType(Type):
    """What arrays hold (a Scalar or a Record): indexing one with slices makes an array type."""

    def __getitem__(self, index):
        """float32[:], float32[:, ::1], ...: the array type of this dtype."""
        items = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(s, slice) for s in items):
            raise TypeError("array types are written with slices: float32[:], float32[:, ::1]")
        steps = [s.step for s in items]
        layout = "A"
        if steps and steps[-1] == 1 and all(s is None for s in steps[:-1]):
            layout = "C"
        elif steps and steps[0] == 1 and all(s is None for s in steps[1:]):
            layout = "F" if len(steps) > 1 else "C"
        return Array(self, len(items), layout)


class Scalar(ElementType):
    """A number or boolean. kind: 'b' (bool), 'i' (signed), 'u' (unsigned), 'f' (float), 'c' (complex).

    ctype: its CUDA C spelling (__half for float16; ncc_complex<float>, the prelude's struct laid
    out as NumPy's complex64, for complex64)."""

    # A storage-only float (float16): C code reads it as a float through to_float and makes one from a widened
    # number (a double, long long or unsigned long long) through from_widened; None for the other types.
    to_float = from_widened = None

    def __init__(self, name, kind, bits, ctype, to_float=None, from_widened=None):
        self.name, self.kind, self.bits, self.ctype = name, kind, bits, ctype
        self.element_ctype = ctype  # what an array of it holds
        if to_float is not None:
            self.to_float, self.from_widened = to_float, from_widened

    def __reduce__(self):  # pickled by name: the same interned object where it is unpickled
        return (_named, (self.name,))

    @property
    def underlying_float(self):
        """A complex number's parts: float32 for complex64, float64 for complex128."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def dtype(self):
        import numpy as np

        if self.name == "bfloat16":  # NumPy has none: ml_dtypes' (what numba-cuda and JAX use)
            try:
                import ml_dtypes
            except ImportError:
                raise TypeError("bfloat16 arrays on the host need ml_dtypes (pip install ml_dtypes)") from None
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype("bool" if self.kind == "b" else self.name)

    def __call__(self, *args):
        """float32(float32, float32): a signature (int32(): one of no arguments); float32(x) on the
        host: a NumPy scalar."""
        if all(isinstance(a, Type) or is_numba_type(a) for a in args):
            return Signature(self, args)
        if len(args) == 1:
            return self.dtype.type(args[0])
        raise TypeError("%s() takes one value, or argument types to make a signature" % self.name)


class Array(Type):
    """An array argument: dtype, number of dimensions, layout 'C', 'F' or 'A' (any). Interned."""

    _interned = {}

    def __new__(cls, dtype, ndim, layout="A"):
        key = (dtype, ndim, layout)
        self = cls._interned.get(key)
        if self is None:
            self = cls._interned[key] = super().__new__(cls)
            self.dtype, self.ndim, self.layout = dtype, ndim, layout
            self.name = "%s[%s]" % (dtype.name, ", ".join(_layout_slices(ndim, layout)))
        return self

    def __reduce__(self):
        return (Array, (self.dtype, self.ndim, self.layout))


def _layout_slices(ndim, layout):
    slices = [":"] * ndim
    if ndim and layout == "C":
        slices[-1] = "::1"
    elif ndim and layout == "F":
        slices[0] = "::1"
    return slices


class Record(ElementType):
    """A structured dtype's element (numba's Record): numeric fields at byte offsets. In a kernel a
    record is a reference to one element in device memory (an array's, or a DeviceRecord's); its
    fields read and write in place. Interned by dtype."""

    _interned = {}
    ctype = "unsigned char *"  # a reference: the element's first byte
    element_ctype = "unsigned char"  # what an array of records holds, for its C struct

    def __new__(cls, dtype):
        import numpy as np

        dtype = np.dtype(dtype)
        key = (dtype, dtype.isalignedstruct)  # NumPy's == ignores align=True; numba's Record types do not
        self = cls._interned.get(key)
        if self is None:
            fields = []
            for name, (field_dtype, offset, *_title) in dtype.fields.items():
                if field_dtype.fields is not None:  # a nested record: a reference into this one
                    field_type = Record(field_dtype)
                elif field_dtype.subdtype is not None:  # a nested array (numba's NestedArray): a C-order view
                    base, shape = field_dtype.subdtype
                    field_type = NestedArray(from_dtype(base), shape)
                else:
                    field_type = from_dtype(field_dtype)
                fields.append((name, field_type, offset))
            self = cls._interned[key] = super().__new__(cls)
            self.dtype, self.size, self.fields = dtype, dtype.itemsize, {n: (t, o) for n, t, o in fields}
            self.name = "Record(%s; %d%s)" % (
                ", ".join("%s:%s@%d" % f for f in fields),
                dtype.itemsize,
                "; aligned" if dtype.isalignedstruct else "",
            )
        return self

    def __reduce__(self):
        return (Record, (self.dtype,))

    def aligned(self, name):
        """Whether a field can be read as its type (its offset and the record's size are multiples
        of its size); otherwise it is read and written byte by byte."""
        t, offset = self.fields[name]
        if isinstance(t, (Record, NestedArray, CharSeq)):
            return True  # a reference or a view: its own fields and elements say (a string: its bytes)
        size = t.bits // 8
        return offset % size == 0 and self.size % size == 0


class CharSeq(ElementType):
    """A fixed-size string, an element of an array of dtype S12 or U12 or a record's field (numba's CharSeq and
    UnicodeCharSeq): `count` bytes, or `count` UCS-4 characters (4 bytes each, the machine's order). In a kernel it
    is a reference to its first byte, as a record is; constant strings are assigned to it (strings.py)."""

    _interned = {}
    ctype = "unsigned char *"  # a reference: the first byte
    element_ctype = "unsigned char"  # what an array of them holds, for its C struct

    def __new__(cls, kind, count):
        self = cls._interned.get((kind, count))
        if self is None:
            self = cls._interned[(kind, count)] = super().__new__(cls)
            self.kind, self.count = kind, int(count)
            self.unit = 1 if kind == "S" else 4
            self.size = self.count * self.unit
            self.name = "[%s x %d]" % ("char" if kind == "S" else "unichr", self.count)
        return self

    def __reduce__(self):
        return (CharSeq, (self.kind, self.count))

    @property
    def dtype(self):
        import numpy as np

        return np.dtype("%s%d" % (self.kind, self.count))


class NestedArray(Type):
    """An array inside a record's field (numba's NestedArray): `shape` elements of `dtype` in C order.
    In a kernel, r.field is a view of them (an Array of `ndim` dimensions, layout C)."""

    _interned = {}

    def __new__(cls, dtype, shape):
        shape = tuple(int(n) for n in shape)
        self = cls._interned.get((dtype, shape))
        if self is None:
            self = cls._interned[(dtype, shape)] = super().__new__(cls)
            self.dtype, self.shape, self.ndim = dtype, shape, len(shape)
            self.name = "nestedarray(%s, %s)" % (dtype, shape)
            self.array = Array(dtype, len(shape), "C")
        return self

    def __reduce__(self):
        return (NestedArray, (self.dtype, self.shape))


class NumberClass(Type):
    """A type given as a kernel argument (np.float64, numba.int32, a dtype): numba's class(float64).
    A compile-time constant: the kernel is specialised on it and reads it as a dtype
    (cuda.shared.array(n, dty)); its parameter is one unused byte. Interned."""

    _interned = {}
    ctype = "unsigned char"

    def __new__(cls, instance_type):
        self = cls._interned.get(instance_type)
        if self is None:
            self = cls._interned[instance_type] = super().__new__(cls)
            self.instance_type = instance_type
            self.name = "class(%s)" % instance_type
        return self

    def __reduce__(self):
        return (NumberClass, (self.instance_type,))


class CPointer(Type):
    """numba's CPointer(dtype): a raw pointer argument (an int on the host, e.g. a CUDA array interface's
    data pointer), indexed as x[i] with no bounds and no wrapping. Interned."""

    _interned = {}

    def __new__(cls, dtype):
        if is_numba_type(dtype):  # numba's CPointer(typeof(x).dtype): numba's scalar type made ours
            dtype = from_numba(dtype)
        dtype = dtype if isinstance(dtype, Type) else from_dtype(dtype)
        self = cls._interned.get(dtype)
        if self is None:
            self = cls._interned[dtype] = super().__new__(cls)
            self.dtype = dtype
            self.name = "%s*" % dtype
            self.ctype = "%s *" % dtype.element_ctype
        return self

    def __reduce__(self):
        return (CPointer, (self.dtype,))


class Opaque(Type):
    """A device-side object with methods and no host value (cooperative groups' GridGroup): its C type
    is `ctype`, a struct the library's requirement defines. Interned by name."""

    _interned = {}

    def __new__(cls, name, ctype):
        self = cls._interned.get(name)
        if self is None:
            self = cls._interned[name] = super().__new__(cls)
            self.name, self.ctype = name, ctype
        return self

    def __reduce__(self):
        return (Opaque, (self.name, self.ctype))


class NoneType(Type):
    """numba's none type, also named void: a kernel's return type (void(float32[:]) is a kernel's signature) and
    the type of None in a kernel."""

    name = "void"

    def __call__(self, *args):
        """void(float32[:], int64): a kernel's signature."""
        return Signature(self, args)

    def __reduce__(self):
        return (_named, ("void",))


class Optional(Type):
    """numba's Optional(T) (OptionalType): a value of the number type T, or None. A device function that returns
    a number on some paths and None on others gives one; so does a variable assigned None on some paths. In C a
    struct of the value and a flag (ncc_optional<T>, pyjit/optional.py). Interned by T."""

    _interned = {}

    def __new__(cls, type_):
        if not isinstance(type_, Scalar):
            raise TypeError("Optional holds a number type, not %s" % (type_,))
        return _intern(
            cls, type_, type=type_, name="OptionalType(%s)" % type_, ctype="ncc_optional<%s>" % type_.ctype
        )

    def __reduce__(self):
        return (Optional, (self.type,))


class Omitted(Type):
    """numba's Omitted(value): the type of a kernel's argument left out of the call, whose default the kernel takes
    (a value known when compiling). Interned by the value (by identity where it cannot be hashed)."""

    _interned = {}

    def __new__(cls, value):
        try:
            key = (type(value), value)
            hash(key)
        except TypeError:
            key = ("id", id(value))
        return _intern(cls, key, value=value, name="omitted(default=%r)" % (value,))

    def __reduce__(self):
        return (Omitted, (self.value,))


def _intern(cls, key, **attributes):
    """The one object of cls for key (cls._interned), given these attributes when first made."""
    self = cls._interned.get(key)
    if self is None:
        self = cls._interned[key] = Type.__new__(cls)
        vars(self).update(attributes)
    return self


optional = Optional


class _TupleClass(type):
    """The class of our tuple types, where numba's tuple type objects are instances too, as its own classes name
    them (numba's UniTuple is a UniTuple, its NamedTuple a NamedTuple): code written for numba.cuda tests types
    that numba made (a libdevice function's Signature) against ours (`isinstance(t, types.UniTuple)`)."""

    def __instancecheck__(cls, obj):
        if type.__instancecheck__(cls, obj):
            return True
        if not is_numba_type(obj):
            return False
        ours = _NUMBA_TUPLE_CLASSES.get(type(obj).__name__)
        return ours is not None and issubclass(ours, cls)


class Tuple(Type, metaclass=_TupleClass):
    """A tuple of values (cuda.grid(2), a.shape): only unpacked or indexed by a constant."""

    def __init__(self, items):
        self.items = tuple(items)
        self.name = "Tuple(%s)" % ", ".join(map(str, self.items))

    def __eq__(self, other):  # a NamedTuple is not a plain Tuple (nor equal to one from either side)
        if is_numba_type(other):
            return Type.__eq__(self, other)
        return isinstance(other, Tuple) and not isinstance(other, NamedTuple) and self.items == other.items

    def __hash__(self):
        return hash(self.items)


class NamedTuple(Tuple):
    """A namedtuple's type (numba's NamedTuple): a Tuple whose items also have names (x.x is x[0])."""

    def __init__(self, items, fields, class_name="namedtuple"):
        super().__init__(items)
        self.fields, self.class_name = tuple(fields), class_name
        self.name = "NamedTuple(%s, %s)" % (
            class_name,
            ", ".join("%s:%s" % f for f in zip(self.fields, self.items)),
        )

    def __eq__(self, other):
        if is_numba_type(other):
            return Type.__eq__(self, other)
        return isinstance(other, NamedTuple) and (self.items, self.fields) == (other.items, other.fields)

    def __hash__(self):
        return hash((self.items, self.fields))

    def like(self, items):
        """The same names over other item types."""
        return NamedTuple(items, self.fields, self.class_name)


class RangeType(NamedTuple):
    """A range object held in a variable (numba's range_state64): its start, stop and step, read as r.start,
    r.stop, r.step; iterated, and len() taken, as Python's range."""

    def __init__(self, items):
        super().__init__(items, ("start", "stop", "step"), "range")
        self.name = "range(%s)" % self.items[0]

    def __eq__(self, other):
        return isinstance(other, RangeType) and self.items == other.items

    def __hash__(self):
        return hash(("range", self.items))

    def like(self, items):
        return RangeType(items)


def tuple_type(value, items):
    """The type of a tuple value with these item types: a NamedTuple for a namedtuple."""
    fields = getattr(type(value), "_fields", None)
    if isinstance(fields, tuple) and len(fields) == len(items):
        return NamedTuple(items, fields, type(value).__name__)
    return Tuple(items)


def flattens(t):
    """Whether a tuple argument goes to a kernel as its leaves, each a parameter of its own (arrays in it,
    nested tuples, or none: numba flattens tuples so); a tuple of numbers goes as one struct."""
    return isinstance(t, Tuple) and (not t.items or any(not isinstance(item, Scalar) for item in t.items))


def tuple_leaves(t, path):
    """(path, type) of each leaf of a tuple type, depth first: path_0, path_1_0, ..."""
    for k, item in enumerate(t.items):
        if isinstance(item, Tuple):
            yield from tuple_leaves(item, "%s_%d" % (path, k))
        else:
            yield "%s_%d" % (path, k), item


class UniTuple(Tuple):
    """numba's UniTuple(dtype, count): `count` items of one type (equal to the Tuple of them)."""

    def __init__(self, dtype, count):
        super().__init__([dtype] * count)
        self.dtype, self.count = dtype, count


# numba's tuple classes, by name, as the classes of ours their objects are instances of (_TupleClass)
_NUMBA_TUPLE_CLASSES = {"Tuple": Tuple, "UniTuple": UniTuple, "NamedTuple": NamedTuple, "NamedUniTuple": NamedTuple}


class Signature:
    """return_type(arg types...)."""

    def __init__(self, return_type, args):
        # numba's type objects among them (void(int32[:], numba's typeof(np.int32))) become ours
        self.return_type = from_numba(return_type) if is_numba_type(return_type) else return_type
        self.args = tuple(from_numba(a) if is_numba_type(a) else a for a in args)

    def __repr__(self):
        return "%s(%s)" % (self.return_type, ", ".join(map(str, self.args)))

    def __eq__(self, other):
        return isinstance(other, Signature) and (self.return_type, self.args) == (other.return_type, other.args)

    def __hash__(self):
        return hash((self.return_type, self.args))


boolean = Scalar("bool", "b", 8, "bool")
int8 = Scalar("int8", "i", 8, "signed char")
int16 = Scalar("int16", "i", 16, "short")
int32 = Scalar("int32", "i", 32, "int")
int64 = Scalar("int64", "i", 64, "long long")
uint8 = Scalar("uint8", "u", 8, "unsigned char")
uint16 = Scalar("uint16", "u", 16, "unsigned short")
uint32 = Scalar("uint32", "u", 32, "unsigned int")
uint64 = Scalar("uint64", "u", 64, "unsigned long long")
float16 = Scalar("float16", "f", 16, "__half", to_float="__half2float(%s)", from_widened="ncc_to_half(%s)")
# bfloat16 (numba's cuda.bf16): CUDA's __nv_bfloat16; host arrays of ml_dtypes.bfloat16
bfloat16 = Scalar(
    "bfloat16", "f", 16, "__nv_bfloat16", to_float="__bfloat162float(%s)", from_widened="ncc_to_bf16(%s)"
)
float32 = Scalar("float32", "f", 32, "float")
float64 = Scalar("float64", "f", 64, "double")
complex64 = Scalar("complex64", "c", 64, "ncc_complex<float>")
complex128 = Scalar("complex128", "c", 128, "ncc_complex<double>")
void = none = NoneType()
b1, bool_ = boolean, boolean
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
intp, uintp = int64, uint64
# numba's C-style aliases (LP64), which signature strings may use: 'void(double[:])'
float_, double = float32, float64
char, uchar, byte = int8, uint8, uint8
short, ushort = int16, uint16
intc, uintc = int32, uint32
int_, long_, longlong, ssize_t = int64, int64, int64, int64
uint, ulong, ulonglong, size_t = uint64, uint64, uint64, uint64
# numba's sets of number types, which programs test types against (`if ty in types.signed_domain`)
signed_domain = frozenset([int8, int16, int32, int64])
unsigned_domain = frozenset([uint8, uint16, uint32, uint64])
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset([float32, float64])
complex_domain = frozenset([complex64, complex128])
number_domain = real_domain | integer_domain | complex_domain

SCALARS = {
    t.name: t
    for t in (
        boolean,
        int8,
        int16,
        int32,
        int64,
        uint8,
        uint16,
        uint32,
        uint64,
        float16,
        bfloat16,
        float32,
        float64,
        complex64,
        complex128,
    )
}


class VectorType(Type):
    """One of CUDA's vector types (numba's float32x4, int8x2, ...): `count` numbers of a `base` type, read as
    .x .y .z .w; made in kernels by cuda.float32x4(...) (or an alias, cuda.float4). Its C type is CUDA's
    (float4, longlong2, ...). Interned by name."""

    _interned = {}

    def __new__(cls, base, count):
        name = "%sx%d" % (base.name, count)
        self = cls._interned.get(name)
        if self is None:
            self = cls._interned[name] = super().__new__(cls)
            self.name, self.base, self.count = name, base, count
            self.ctype = "%s%d" % (_VECTOR_C_NAMES[base.name], count)
            self.attr_names = ("x", "y", "z", "w")[:count]
        return self

    def __reduce__(self):
        return (VectorType, (self.base, self.count))


# CUDA's names of the vector types' elements (vector_types.h): char1 ... double4
_VECTOR_C_NAMES = {"int8": "char", "int16": "short", "int32": "int", "int64": "longlong", "uint8": "uchar",
                   "uint16": "ushort", "uint32": "uint", "uint64": "ulonglong", "float32": "float",
                   "float64": "double"}  # fmt: skip
# numba's names: float32x4 ..., and the C aliases it also gives them (float4, double2, long3, ...)
VECTOR_TYPES = {}
for _base, _c_name in _VECTOR_C_NAMES.items():
    for _count in (1, 2, 3, 4):
        _vector = VectorType(globals()[_base], _count)
        VECTOR_TYPES[_vector.name] = _vector
        VECTOR_TYPES["%s%d" % (_c_name, _count)] = _vector
        if _c_name == "longlong":
            VECTOR_TYPES["long%d" % _count] = _vector
        if _c_name == "ulonglong":
            VECTOR_TYPES["ulong%d" % _count] = _vector
del _base, _c_name, _count, _vector


def _named(name):
    """The scalar type (or void) of this name: how they unpickle, as the interned objects."""
    if name == "void":
        return void
    if name not in SCALARS and name.endswith("]"):  # datetime64[D]: made where it is unpickled
        return from_dtype(name)
    return SCALARS[name]


def datetime_type(kind, unit):
    """numba's NPDatetime / NPTimedelta: datetime64[unit] (kind 'M') or timedelta64[unit] (kind 'm'), held
    in kernels as a 64-bit count of units (NaT the smallest one). Interned by name."""
    name = "%s64[%s]" % ("datetime" if kind == "M" else "timedelta", unit)
    t = SCALARS.get(name)
    if t is None:
        t = SCALARS[name] = Scalar(name, kind, 64, "long long")
        t.unit = unit
    return t


def from_dtype(dtype):
    """The type of a NumPy dtype (or anything np.dtype() takes): a scalar, or a Record."""
    import numpy as np

    dtype = np.dtype(dtype)
    if dtype.fields is not None:
        return Record(dtype)
    if dtype.kind in "Mm":
        unit = np.datetime_data(dtype)[0]
        if unit == "generic" or np.datetime_data(dtype)[1] != 1:
            raise TypeError("no device type for dtype %s: kernels take datetime64/timedelta64 of one unit" % dtype)
        return datetime_type(dtype.kind, unit)
    if dtype.kind in "SU" and dtype.itemsize:  # bytes and unicode strings of a fixed size (numba's CharSeq)
        return CharSeq(dtype.kind, dtype.itemsize // (1 if dtype.kind == "S" else 4))
    name = "bool" if dtype.kind == "b" else dtype.name
    try:
        return SCALARS[name]
    except KeyError:
        raise TypeError("no device type for dtype %s" % dtype) from None


def is_numba_type(obj):
    """Whether obj is one of numba's own type objects (numba.float32, numba.types.int32[:], a numba
    Signature): told by the module of its class, so that numba is never imported here. numba's modules are
    not (numba.types is an instance of numba's own module class, whose attributes are the types)."""
    return type(obj).__module__.startswith("numba.") and not isinstance(obj, _ModuleType)


def from_numba(obj):
    """numba's type object (or Signature) as ours, matched by name and attributes: scalars by name
    (numba.float32 is float32), arrays by dtype, ndim and layout, tuples item by item, none as void."""
    if hasattr(obj, "return_type") and hasattr(obj, "args"):  # numba's Signature
        return Signature(from_numba(obj.return_type), [from_numba(a) for a in obj.args])
    name = getattr(obj, "name", None)
    kind = type(obj).__name__
    if name in SCALARS:
        return SCALARS[name]
    if kind in ("NPDatetime", "NPTimedelta"):  # numba's datetime64[unit] / timedelta64[unit]
        return from_dtype(name)
    if name == "__nv_bfloat16":  # numba-cuda's bfloat16 type is named after CUDA's
        return bfloat16
    if name in ("none", "void") or kind == "NoneType":
        return void
    if kind == "Array" and hasattr(obj, "ndim") and hasattr(obj, "layout"):
        return Array(from_numba(obj.dtype), obj.ndim, obj.layout)
    if kind in ("UniTuple", "Tuple") and hasattr(obj, "types"):
        return Tuple([from_numba(t) for t in obj.types])
    if kind == "Record" and hasattr(obj, "dtype"):
        return Record(obj.dtype)
    if kind == "CPointer" and hasattr(obj, "dtype"):
        return CPointer(from_numba(obj.dtype))
    if kind == "NumberClass" and hasattr(obj, "instance_type"):
        return NumberClass(from_numba(obj.instance_type))
    if kind == "DType" and hasattr(obj, "dtype"):  # numba's type of a np.dtype object
        return NumberClass(from_numba(obj.dtype))
    if kind == "Optional" and hasattr(obj, "type"):  # numba's OptionalType(int64)
        return Optional(from_numba(obj.type))
    if kind == "Omitted" and hasattr(obj, "value"):
        return Omitted(obj.value)
    raise TypeError("numba's type %s has no numba_cuda_c equivalent" % (obj,))


def _evaluate(text):
    """A signature string's value: a Type, a tuple of them, or a Signature."""
    namespace = dict(SCALARS, void=void, none=void, boolean=boolean, bool_=boolean)
    namespace.update({k: v for k, v in globals().items() if isinstance(v, Type)})
    # numba's constructors as signatures spell them: 'void(Array(float64, 1, "C"), UniTuple(int32, 3))'
    namespace.update(
        Array=Array, Tuple=Tuple, UniTuple=UniTuple, CPointer=CPointer, Optional=Optional, optional=Optional
    )
    try:
        return eval(text, {"__builtins__": {}}, namespace)  # noqa: S307 -- names are types only
    except Exception as exc:
        raise TypeError("cannot read the signature %r: %s" % (text, exc)) from None


def parse_signature(text):
    """'void(float32[:], int64)' (or a Signature, or a tuple of argument types, ours or numba's)
    -> Signature."""
    if isinstance(text, Signature):
        return text
    if is_numba_type(text):
        value = from_numba(text)
        return value if isinstance(value, Signature) else Signature(void, [value])
    if isinstance(text, (tuple, list)):
        return Signature(void, [parse_type(t) for t in text])
    if not isinstance(text, str):
        raise TypeError("a signature is a string such as 'void(float32[:], int64)', not %r" % (text,))
    value = _evaluate(text)
    if isinstance(value, Type):
        return Signature(void, [value])
    if isinstance(value, tuple):
        return Signature(void, [parse_type(v) for v in value])
    return parse_signature(value)


def parse_declared_signature(sig):
    """A signature that must name its return type (cuda.declare_device's): a Signature, ours or
    numba's, or a string such as 'int32(float32[:])'. numba's TypeError otherwise."""
    value = sig
    if is_numba_type(sig):
        value = from_numba(sig)
    elif isinstance(sig, str):
        value = _evaluate(sig)
    elif not isinstance(sig, (Signature, tuple, list, Type)):
        raise TypeError("a signature is a string such as 'int32(float32[:])', not %r" % (sig,))
    if not isinstance(value, Signature):
        raise TypeError("Return type must be provided for device declarations")
    return value


def parse_type(value):
    if isinstance(value, Type):
        return value
    if is_numba_type(value):
        return from_numba(value)
    if isinstance(value, str):
        sig = parse_signature("(%s,)" % value)
        return sig.args[0]
    return from_dtype(value)
