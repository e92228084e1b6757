/* argument_kinds.h: what a launch argument is, told once per argument and launch (argument_kinds.c).
 *
 * Both per-launch paths need it: a @cuda.jit launch keys its arguments' types (argument_types.c) and
 * then converts and packs them (launch_arguments.c); a CUDA C kernel's launch only converts. Dispatch
 * hands the kinds the key found to the launch, so each argument is looked at once. The usual kinds
 * are told by their exact type, inline; NumPy's are told out of line. */
#ifndef NUMBA_CUDA_C_ARGUMENT_KINDS_H
#define NUMBA_CUDA_C_ARGUMENT_KINDS_H

#include "arrays/devicearray.h"

typedef enum {
    ARGUMENT_ERROR = -1,     /* telling failed (NumPy's API could not be loaded): an exception is set */
    ARGUMENT_DEVICE_ARRAY,   /* a DeviceNDArray, or an instance of a subclass of it */
    ARGUMENT_DEVICE_RECORD,  /* exactly a DeviceRecord: a record in device memory */
    ARGUMENT_FLOAT,          /* exactly float */
    ARGUMENT_INT,            /* exactly int */
    ARGUMENT_BOOL,           /* True or False */
    ARGUMENT_COMPLEX,        /* exactly complex */
    ARGUMENT_TUPLE,          /* exactly tuple (a namedtuple is OTHER) */
    ARGUMENT_MEMORY_POINTER, /* a MemoryPointer: the kernel takes its address */
    ARGUMENT_NUMPY_ARRAY,    /* exactly numpy.ndarray */
    ARGUMENT_NUMPY_SCALAR,   /* a NumPy scalar other than a record */
    ARGUMENT_NUMPY_RECORD,   /* a np.void: a NumPy record, or raw bytes */
    ARGUMENT_ENUM_MEMBER,    /* a member of an enum.Enum class (an IntEnum's too) */
    ARGUMENT_TYPE,           /* a type given as an argument (np.float64, a dtype, numba_cuda_c.int32 or
                                numba's type object): a compile-time constant of a @cuda.jit kernel */
    ARGUMENT_OTHER,          /* anything else, looked at by whoever takes it: other int subclasses,
                                ndarray subclasses, CUDA-array-interface objects, foreign buffers
                                (cuda.core, DLPack) */
} argument_kind;

/* NumPy's kinds, enum members, types and OTHER: the part of argument_kind_of that loads NumPy's API
 * and looks beyond an exact type. */
argument_kind argument_kind_beyond_python(module_state *st, PyObject *arg);

static inline argument_kind argument_kind_of(module_state *st, PyObject *arg)
{
    PyTypeObject *type = Py_TYPE(arg);
    if (type == st->DeviceNDArrayType)
        return ARGUMENT_DEVICE_ARRAY;
    if (type == &PyFloat_Type)
        return ARGUMENT_FLOAT;
    if (type == &PyLong_Type)
        return ARGUMENT_INT;
    if (type == &PyBool_Type)
        return ARGUMENT_BOOL;
    if (type == &PyComplex_Type)
        return ARGUMENT_COMPLEX;
    if (type == &PyTuple_Type)
        return ARGUMENT_TUPLE;
    if (type == st->DeviceRecordType)
        return ARGUMENT_DEVICE_RECORD;
    if (devicearray_check(st, arg))
        return ARGUMENT_DEVICE_ARRAY;
    if (type == st->MemoryPointerType)
        return ARGUMENT_MEMORY_POINTER;
    return argument_kind_beyond_python(st, arg);
}

#endif
