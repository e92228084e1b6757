/* devicearray_functions.c: the module functions that make arrays: device_array, device_array_like,
 * host arrays in pinned, mapped or managed memory (_host_array), and the consumers of
 * __cuda_array_interface__ (is_cuda_array, as_cuda_array, from_cuda_array_interface), which view
 * another library's memory without a copy (the view itself: devicearray.c's devicearray_from_cai). */
#include "arrays/devicearray_functions.h"

#include "arrays/dlpack.h"
#include "arrays/layout.h"
#include "core/memory_alloc.h"
#include "core/stream.h"

/* Module functions */

static PyObject *module_device_array(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"shape", "dtype", "strides", "order", "stream", NULL};
    module_state *st = state_of_module(module);
    PyObject *shape_obj, *dtype_obj = Py_None, *strides_obj = Py_None, *order_obj = Py_None, *stream = Py_None;
    array_layout layout;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO:device_array", keywords, &shape_obj, &dtype_obj,
                                     &strides_obj, &order_obj, &stream))
        return NULL;
    if (numpy_require() < 0 || layout_parse(shape_obj, dtype_obj, strides_obj, order_obj, &layout) < 0)
        return NULL;
    CUstream unused;
    DeviceArrayObject *array = NULL;
    if (stream_handle_from_object(st, stream, &unused) == 0)
        array = devicearray_allocate(st, st->DeviceNDArrayType, layout.ndim, layout.shape, layout.strides, 'C',
                                     layout.dtype, stream);
    Py_DECREF(layout.dtype);
    return (PyObject *)array;
}

/* _host_array(kind, shape, dtype=None, strides=None, order='C', portable=False, wc=False,
 * attach_global=True): a NumPy array in pinned, mapped or managed memory, whose base is the
 * MemoryPointer, so the memory lives exactly as long as the array and its views. */
static PyObject *module_host_array(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"kind",     "shape", "dtype",         "strides", "order",
                               "portable", "wc",    "attach_global", NULL};
    module_state *st = state_of_module(module);
    const char *kind;
    PyObject *shape_obj, *dtype_obj = Py_None, *strides_obj = Py_None, *order_obj = Py_None;
    int portable = 0, write_combined = 0, attach_global = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|OOOppp:_host_array", keywords, &kind, &shape_obj, &dtype_obj,
                                     &strides_obj, &order_obj, &portable, &write_combined, &attach_global))
        return NULL;
    array_layout layout;
    if (numpy_require() < 0 || layout_parse(shape_obj, dtype_obj, strides_obj, order_obj, &layout) < 0)
        return NULL;
    ContextObject *context = context_current(st);
    PyObject *memory = NULL, *result = NULL;
    if (context != NULL && layout.span > 0) {
        if (strcmp(kind, "managed") == 0)
            memory = memory_alloc_managed(st, context, layout.span, attach_global);
        else
            memory =
                memory_alloc_host(st, context, layout.span, strcmp(kind, "mapped") == 0, portable, write_combined);
    }
    if (context != NULL && (memory != NULL || layout.span == 0)) {
        result =
            PyArray_NewFromDescr(&PyArray_Type, layout.dtype, layout.ndim, layout.shape, layout.strides,
                                 memory ? ((MemoryObject *)memory)->host_pointer : NULL, NPY_ARRAY_WRITEABLE, NULL);
        layout.dtype = NULL; /* stolen */
        if (result != NULL && memory != NULL &&
            PyArray_SetBaseObject((PyArrayObject *)result, Py_NewRef(memory)) < 0)
            Py_CLEAR(result);
    }
    Py_XDECREF(layout.dtype);
    Py_XDECREF(memory);
    return result;
}

/* The layout of a new contiguous array like `ary` (numba's _contiguous_strides_like_array, NumPy's
 * empty_like): its shape and dtype, strides packed in the order of its strides' sizes. 0 with
 * layout->dtype a new reference, or -1 with an error. */
static int layout_like(PyObject *ary, array_layout *layout)
{
    if (numpy_require() < 0)
        return -1;
    PyObject *shape_obj = PyObject_GetAttrString(ary, "shape");
    PyObject *dtype_obj = shape_obj ? PyObject_GetAttrString(ary, "dtype") : NULL;
    PyObject *strides_obj = dtype_obj ? PyObject_GetAttrString(ary, "strides") : NULL;
    int status = -1;
    array_layout like;
    if (strides_obj != NULL && layout_parse(shape_obj, dtype_obj, Py_None, Py_None, layout) == 0) {
        int n = layout->ndim;
        if (strides_obj != Py_None && layout_parse_shape(strides_obj, like.strides, "strides") == n) {
            /* axes ordered by decreasing |stride| (a stable sort: ties keep their order) */
            int axes[NPY_MAXDIMS];
            for (int i = 0; i < n; i++)
                axes[i] = i;
            for (int i = 1; i < n; i++)
                for (int j = i; j > 0; j--) {
                    npy_intp a = like.strides[axes[j - 1]], b = like.strides[axes[j]];
                    if ((a < 0 ? -a : a) >= (b < 0 ? -b : b))
                        break;
                    int swap = axes[j];
                    axes[j] = axes[j - 1];
                    axes[j - 1] = swap;
                }
            npy_intp step = PyDataType_ELSIZE(layout->dtype);
            for (int k = n - 1; k >= 0; k--) {
                layout->strides[axes[k]] = step;
                step *= layout->shape[axes[k]] > 0 ? layout->shape[axes[k]] : 1;
            }
        }
        PyErr_Clear(); /* no strides: C order, as layout_parse made them */
        status = 0;
    }
    Py_XDECREF(shape_obj);
    Py_XDECREF(dtype_obj);
    Py_XDECREF(strides_obj);
    return status;
}

/* device_array_like(ary, stream=0): the shape and dtype of `ary`, contiguous in the order of its
 * strides (layout_like). */
static PyObject *module_device_array_like(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"ary", "stream", NULL};
    module_state *st = state_of_module(module);
    PyObject *ary, *stream = Py_None;
    array_layout layout;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device_array_like", keywords, &ary, &stream) ||
        layout_like(ary, &layout) < 0)
        return NULL;
    PyObject *result = (PyObject *)devicearray_allocate(st, st->DeviceNDArrayType, layout.ndim, layout.shape,
                                                        layout.strides, 'C', layout.dtype, stream);
    Py_DECREF(layout.dtype);
    return result;
}

/* _strides_like(ary): the strides device_array_like gives, for the pinned and mapped *_like. */
static PyObject *module_strides_like(PyObject *Py_UNUSED(module), PyObject *ary)
{
    array_layout layout;
    if (layout_like(ary, &layout) < 0)
        return NULL;
    Py_DECREF(layout.dtype);
    PyObject *strides = PyTuple_New(layout.ndim);
    for (int i = 0; strides != NULL && i < layout.ndim; i++) {
        PyObject *item = PyLong_FromSsize_t(layout.strides[i]);
        if (item == NULL) {
            Py_CLEAR(strides);
            break;
        }
        PyTuple_SET_ITEM(strides, i, item);
    }
    return strides;
}

int devicearray_has_cai(PyObject *obj)
{
    PyObject *desc = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (desc != NULL) {
        Py_DECREF(desc);
        return 1;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    return 0;
}

static PyObject *module_is_cuda_array(PyObject *Py_UNUSED(module), PyObject *obj)
{
    int has = devicearray_has_cai(obj);
    return has < 0 ? NULL : PyBool_FromLong(has);
}

static PyObject *module_from_cuda_array_interface(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"desc", "owner", "sync", NULL};
    PyObject *desc, *owner = Py_None;
    int sync = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|Op:from_cuda_array_interface", keywords, &desc, &owner,
                                     &sync))
        return NULL;
    if (numpy_require() < 0)
        return NULL;
    return devicearray_from_cai(state_of_module(module), desc, owner == Py_None ? NULL : owner, sync);
}

PyObject *devicearray_from_object(module_state *st, PyObject *obj, int sync)
{
    if (numpy_require() < 0)
        return NULL;
    if (devicearray_check(st, obj))
        return Py_NewRef(obj);
    PyObject *desc = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (desc == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            if (PyObject_HasAttrString(obj, "__dlpack__") &&
                !PyArray_Check(obj)) /* JAX, and other DLPack-only producers */
                return dlpack_import(st, obj);
            PyErr_SetString(PyExc_TypeError, "*obj* doesn't implement the cuda array interface.");
        }
        return NULL;
    }
    PyObject *result = devicearray_from_cai(st, desc, obj, sync);
    Py_DECREF(desc);
    return result;
}

static PyObject *module_as_cuda_array(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"obj", "sync", NULL};
    PyObject *obj;
    int sync = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:as_cuda_array", keywords, &obj, &sync))
        return NULL;
    return devicearray_from_object(state_of_module(module), obj, sync);
}

PyMethodDef devicearray_module_methods[] = {
    {"device_array", (PyCFunction)(void (*)(void))module_device_array, METH_VARARGS | METH_KEYWORDS,
     "device_array(shape, dtype=np.float64, strides=None, order='C', stream=0): an uninitialised device array."},
    {"device_array_like", (PyCFunction)(void (*)(void))module_device_array_like, METH_VARARGS | METH_KEYWORDS,
     "device_array_like(ary, stream=0): a device array with the shape, dtype and layout of ary."},
    {"_host_array", (PyCFunction)(void (*)(void))module_host_array, METH_VARARGS | METH_KEYWORDS,
     "A NumPy array in pinned, mapped or managed memory."},
    {"_strides_like", module_strides_like, METH_O, "_strides_like(ary): device_array_like's strides for ary."},
    {"is_cuda_array", module_is_cuda_array, METH_O, "True if obj has __cuda_array_interface__."},
    {"as_cuda_array", (PyCFunction)(void (*)(void))module_as_cuda_array, METH_VARARGS | METH_KEYWORDS,
     "as_cuda_array(obj, sync=True): a DeviceNDArray view of a CUDA-array-interface object, without a copy."},
    {"from_cuda_array_interface", (PyCFunction)(void (*)(void))module_from_cuda_array_interface,
     METH_VARARGS | METH_KEYWORDS,
     "from_cuda_array_interface(desc, owner=None, sync=True): a DeviceNDArray view of the described memory."},
    {0},
};
