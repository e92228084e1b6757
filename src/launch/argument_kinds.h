/* argument_kinds.h: what a launch argument is, told once per argument and launch, all here (the
 * launch and the key include it; it has no .c).
 *
 * Both per-launch paths need it: a @cuda.jit launch keys its arguments' types (argument_types.c) and
 * then converts and packs them (launch_arguments.c); a CUDA C kernel's launch only converts. Dispatch
 * hands the kinds the key found to the launch, so each argument is looked at once. The usual kinds
 * are told by their exact type, inline (argument_kind_of); the rest, which load NumPy's API and look
 * beyond an exact type, by argument_kind_beyond_python, out of the hot path. */
#ifndef NUMBA_CUDA_C_ARGUMENT_KINDS_H
#define NUMBA_CUDA_C_ARGUMENT_KINDS_H

#include "arrays/devicearray.h"
#include "driver/numpy_api.h"

#include <string.h>

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

/* Its type's metaclass is enum's (EnumMeta), looked up once enum is imported: before that, no
 * member can exist. */
static inline int argument_is_enum_member(module_state *st, PyObject *arg)
{
    if (st->enum_type == NULL) {
        PyObject *name = PyUnicode_FromString("enum");
        PyObject *module = name ? PyImport_GetModule(name) : NULL;
        Py_XDECREF(name);
        if (module == NULL)
            return PyErr_Occurred() ? -1 : 0;
        st->enum_type = PyObject_GetAttrString(module, "EnumMeta");
        Py_DECREF(module);
        if (st->enum_type == NULL)
            return -1;
    }
    return PyObject_TypeCheck((PyObject *)Py_TYPE(arg), (PyTypeObject *)st->enum_type);
}

/* Told by the type of the object, or by the module of its class (numba's and ours). */
static inline int argument_is_type(PyObject *arg)
{
    if (PyType_Check(arg) || PyArray_DescrCheck(arg))
        return 1;
    PyObject *module = PyObject_GetAttrString((PyObject *)Py_TYPE(arg), "__module__");
    if (module == NULL) {
        PyErr_Clear();
        return 0;
    }
    const char *name = PyUnicode_Check(module) ? PyUnicode_AsUTF8(module) : NULL;
    int found =
        name != NULL && (strcmp(name, "numba_cuda_c.types") == 0 || strncmp(name, "numba.core.types", 16) == 0 ||
                         strncmp(name, "numba.cuda.types", 16) == 0);
    if (name == NULL)
        PyErr_Clear();
    Py_DECREF(module);
    return found;
}

/* NumPy's kinds, enum members, types and OTHER: the part of argument_kind_of that loads NumPy's API
 * and looks beyond an exact type; never inlined, so that a launch's loop holds the exact-type tests only. */
static Py_NO_INLINE argument_kind argument_kind_beyond_python(module_state *st, PyObject *arg)
{
    if (numpy_require() < 0)
        return ARGUMENT_ERROR;
    if (PyArray_CheckExact(arg))
        return ARGUMENT_NUMPY_ARRAY;
    if (PyArray_IsScalar(arg, Generic))
        return PyArray_IsScalar(arg, Void) ? ARGUMENT_NUMPY_RECORD : ARGUMENT_NUMPY_SCALAR;
    int member = argument_is_enum_member(st, arg);
    if (member != 0)
        return member < 0 ? ARGUMENT_ERROR : ARGUMENT_ENUM_MEMBER;
    return argument_is_type(arg) ? ARGUMENT_TYPE : ARGUMENT_OTHER;
}

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
    if (type == st->MemoryPointerType)
        return ARGUMENT_MEMORY_POINTER;
    if (PyType_IsSubtype(type, st->DeviceNDArrayType)) /* a subclass: the type itself was told first */
        return ARGUMENT_DEVICE_ARRAY;
    return argument_kind_beyond_python(st, arg);
}

#endif
