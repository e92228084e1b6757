/* state.h: the module state of numba_cuda_c._cuda (PEP 573) and the ways to reach it.
 * Every type and exception object lives here; the only process-wide state is the
 * driver table in api/loader.c. */
#ifndef NUMBA_CUDA_C_MODULE_H
#define NUMBA_CUDA_C_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "driver/api/loader.h"

typedef struct ContextObject ContextObject;

/* The extents of foreign memory the driver reported, by data pointer (foreign.c). */
#define FOREIGN_CACHE_BITS 8
struct foreign_range {
    CUdeviceptr pointer, base;
    size_t size;
};

typedef struct {
    /* exceptions */
    PyObject *CudaSupportError;
    PyObject *CudaDriverError;
    PyObject *CudaAPIError;
    PyObject *NvrtcError;
    PyObject *driver_overrides; /* {"cuMemcpyHtoD": callable, ...} set on numba's driver object, or NULL */
    PyObject *cuda_core_twins;  /* {our error type: (cuda.core's class, a type deriving from both)} (errors.c) */
    /* types */
    PyTypeObject *DeviceType;
    PyTypeObject *ContextType;
    PyTypeObject *StreamType;
    PyTypeObject *EventType;
    PyTypeObject *MemoryInfoType; /* a struct sequence (free, total), as numba's MemoryInfo */
    PyTypeObject *MemoryPointerType;
    PyTypeObject *DeviceNDArrayType;
    PyTypeObject *DeviceRecordType;
    PyTypeObject *ModuleType;
    PyTypeObject *KernelType;
    PyTypeObject *LaunchConfigType;
    PyTypeObject *DispatchType;
    PyTypeObject *ArgumentPlanType;
    PyTypeObject *DLPackTensorType;
    PyTypeObject *GraphType;
    PyTypeObject *GraphExecType;
    /* the Device objects, a tuple built at first use (NULL before) */
    PyObject *devices;
    /* the Context last found current: a cache that turns most lookups into one cuCtxGetCurrent */
    ContextObject *last_context;
    /* what "the default stream" (stream 0) means: 0, or CU_STREAM_PER_THREAD when
     * NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1 at import (numba then calls the _ptds/_ptsz entry points) */
    CUstream default_stream;
    /* Stream.synchronize as defined (its descriptor) and its interned name: the implicit syncs go
     * through Python only when users replaced it on the class (stream.c, stream_synchronize_replaced) */
    PyObject *stream_synchronize;
    PyObject *str_synchronize;
    /* the package's Python modules C calls into, by helper, imported at first need (python_helpers.c) */
#define STATE_PYTHON_HELPERS 32
    PyObject *python_modules[STATE_PYTHON_HELPERS];
    /* NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT / _RATIO, read at import */
    size_t max_pending_count;
    double max_pending_ratio;
    /* copies of at least this many bytes between the device and pageable host memory go through
     * the context's staging ring (NUMBA_CUDA_C_STAGING_THRESHOLD; core/copies.c) */
    size_t staging_threshold;
    /* allocate device memory from the stream-ordered pool (cuMemAllocAsync) instead of cuMemAlloc */
    int memory_pool;
    /* numba's External Memory Management: a plugin class whose instances (one per context) allocate
     * device memory, or NULL */
    PyObject *memory_plugin;
    /* the argument keys of @cuda.jit launches (launch/argument_types.c): {dtype: its number} for the
     * dtypes a type number does not name, and enum's metaclass, found where enum is imported */
    PyObject *dtype_ids;
    PyObject *enum_type;
    /* library search directories for NVRTC and the runtime, set from Python once */
    PyObject *library_dirs;
    /* the MemoryPointers of host memory that dies with its context (rescue.c) */
    struct MemoryObject *rescue_list;
    struct foreign_range foreign_ranges[1 << FOREIGN_CACHE_BITS];
} module_state;

extern PyModuleDef numba_cuda_c_module;

static inline module_state *state_of_module(PyObject *module)
{
    return (module_state *)PyModule_GetState(module);
}

/* The state of the module that defined `type` or the first of its bases that is ours, found by
 * module definition as CPython's own modules do (PEP 573), so that Python subclasses of our types
 * (whose own module is none of ours) work. Our own types are found at the first step of the MRO.
 * NULL, with TypeError, only for a type that derives from none of ours. */
static inline module_state *state_of_type(PyTypeObject *type)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *module = PyType_GetModuleByDef(type, &numba_cuda_c_module);
    return module != NULL ? state_of_module(module) : NULL;
#else
    PyObject *mro = type->tp_mro;
    for (Py_ssize_t i = 0; mro != NULL && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *module =
            PyType_HasFeature(base, Py_TPFLAGS_HEAPTYPE) ? ((PyHeapTypeObject *)base)->ht_module : NULL;
        if (module != NULL && PyModule_GetDef(module) == &numba_cuda_c_module)
            return state_of_module(module);
    }
    PyErr_Format(PyExc_TypeError, "type '%.100s' derives from no numba_cuda_c type", type->tp_name);
    return NULL;
#endif
}

static inline module_state *state_of(PyObject *self)
{
    return state_of_type(Py_TYPE(self));
}

/* state_of(self) for a dealloc, which must not fail: NULL, with no exception, where the interpreter's last
 * collection has already cleared self's type (its MRO is gone, and the module with it: an object kept in a class's
 * dict until then, as a cache of mappings is). Its driver resource is then left to the process's end. */
static inline module_state *state_for_release(PyObject *self)
{
    return Py_TYPE(self)->tp_mro != NULL ? state_of(self) : NULL;
}

/* Whether a str equals an ASCII C string (keyword names). */
static inline int unicode_equals(PyObject *text, const char *ascii)
{
    return PyUnicode_Check(text) && PyUnicode_CompareWithASCIIString(text, ascii) == 0;
}

/* Converts an int-like object (int, NumPy integer) to a C int, with a clear error. */
static inline int int_from_object(PyObject *obj, int *out, const char *what)
{
    long value = PyLong_AsLong(obj);
    if (value == -1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", what, Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    if (value < INT_MIN || value > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "%s is out of range: %ld", what, value);
        return -1;
    }
    *out = (int)value;
    return 0;
}

/* A non-negative integer (size) or number (double) from the environment variable `name`: `fallback` where it
 * is unset or empty, and where it does not parse (with a RuntimeWarning naming it). 0, or -1 with an
 * exception where the warning is an error. Needs the GIL. */
int env_size(const char *name, size_t fallback, size_t *value);
int env_double(const char *name, double fallback, double *value);

/* A heap type made from its spec at module init, kept in the module state (*type, a new reference)
 * and, where `public`, added to the module under its name. `base` NULL: object. 0, or -1 with an error. */
int type_create(PyObject *module, PyType_Spec *spec, PyTypeObject *base, PyTypeObject **type, int public);

/* A tp_dealloc's first step: the object leaves the garbage collector's sight (a GC type's) and loses
 * its weak references (`weakreflist`: its list, NULL where none was made). */
static inline void dealloc_begin(PyObject *op, PyObject *weakreflist)
{
    if (PyType_IS_GC(Py_TYPE(op)))
        PyObject_GC_UnTrack(op);
    if (weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
}

/* Its last: the memory freed, and the reference each instance of a heap type holds on it dropped. */
static inline void dealloc_end(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    type->tp_free(op);
    Py_DECREF(type);
}

/* Adds methods to a type made by a lower layer, from the layer that implements them (context_memory.c adds
 * Context.memalloc, for one), so that a lower file never calls a higher one. At module init only. */
int type_add_methods(PyTypeObject *type, PyMethodDef *methods);
int type_add_getset(PyTypeObject *type, PyGetSetDef *getset);

#endif
