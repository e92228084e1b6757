/* devicearray.c: a DeviceNDArray object (devicearray.h) made over memory (given, or described by a
 * __cuda_array_interface__) or in new memory, its bytes and contiguity. The Python type, its methods
 * and attributes are devicearray_type.c's. */
#include "arrays/devicearray.h"

#include "arrays/layout.h"
#include "core/foreign.h"
#include "core/memory_alloc.h"
#include "core/stream.h"
#include "driver/errors.h"
#include "driver/python_helpers.h"

static void set_dims(DeviceArrayObject *self, int ndim)
{
    self->ndim = ndim;
    self->shape = ndim <= DEVICEARRAY_INLINE_DIMS ? self->inline_dims : PyMem_Malloc(2 * ndim * sizeof(npy_intp));
    if (self->shape != NULL)
        self->strides = self->shape + ndim;
}

/* No device array holds Python objects: their pointers copied to the host (copy_to_host, __array__,
 * pickling) would be counted by the interpreter. Checked where every array is made, whatever made it
 * (a MemoryPointer given to DeviceNDArray or DeviceRecord, a view, an import). */
static int refuse_objects(PyArray_Descr *dtype)
{
    if (!PyDataType_REFCHK(dtype))
        return 0;
    PyErr_SetString(PyExc_TypeError, "arrays of Python objects cannot live on the device");
    return -1;
}

DeviceArrayObject *devicearray_wrap(module_state *Py_UNUSED(st), PyTypeObject *type, int ndim,
                                    const npy_intp *shape, const npy_intp *strides, PyArray_Descr *dtype,
                                    CUdeviceptr data, PyObject *owner, ContextObject *context, PyObject *stream)
{
    if (refuse_objects(dtype) < 0)
        return NULL;
    DeviceArrayObject *self = (DeviceArrayObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    set_dims(self, ndim);
    if (self->shape == NULL) {
        self->ndim = 0;
        Py_DECREF(self);
        return (DeviceArrayObject *)PyErr_NoMemory();
    }
    self->size = 1;
    for (int i = 0; i < ndim; i++) {
        self->shape[i] = shape[i];
        self->strides[i] = strides[i];
        self->size *= shape[i];
    }
    self->dtype = (PyArray_Descr *)Py_NewRef((PyObject *)dtype);
    self->data = data;
    self->owner = Py_XNewRef(owner);
    self->context = (ContextObject *)Py_NewRef((PyObject *)context);
    /* any stream object (ours, or one with __cuda_stream__), checked by the caller's copy or constructor */
    self->stream = stream_is_default(stream) ? NULL : Py_NewRef(stream);
    self->cai = NULL;
    self->weakreflist = NULL;
    return self;
}

DeviceArrayObject *devicearray_allocate(module_state *st, PyTypeObject *type, int ndim, const npy_intp *shape,
                                        const npy_intp *strides, char order, PyArray_Descr *dtype, PyObject *stream)
{
    npy_intp own_strides[NPY_MAXDIMS], size;
    npy_intp itemsize = PyDataType_ELSIZE(dtype);
    size_t span;
    if (ndim > NPY_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "too many dimensions: %d (at most %d)", ndim, NPY_MAXDIMS);
        return NULL;
    }
    if (refuse_objects(dtype) < 0) /* before the driver is asked for anything */
        return NULL;
    if (itemsize == 0) {
        PyErr_SetString(PyExc_TypeError, "the dtype has no size: flexible types need a length (e.g. 'S8')");
        return NULL;
    }
    /* every size checked before the driver is asked for anything */
    if (strides == NULL) {
        if (layout_check(ndim, shape, NULL, itemsize, &size, NULL) < 0)
            return NULL;
        layout_contiguous_strides(ndim, shape, itemsize, order, own_strides);
        strides = own_strides;
    }
    if (layout_check(ndim, shape, strides, itemsize, &size, &span) < 0)
        return NULL;
    for (int i = 0; i < ndim && span > 0; i++)
        if (strides[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative strides are not allowed for a new allocation");
            return NULL;
        }
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    DeviceArrayObject *self = devicearray_wrap(st, type, ndim, shape, strides, dtype, 0, NULL, context, stream);
    if (self == NULL)
        return NULL;
    if (span > 0) {
        self->owner = memory_alloc_device(st, context, span);
        if (self->owner == NULL) {
            Py_DECREF(self);
            return NULL;
        }
        self->data = ((MemoryObject *)self->owner)->device_pointer;
    }
    return self;
}

/* Arrays over memory another library exports (__cuda_array_interface__, numba's consumer side). */

/* A CAI consumer waits for the exporter's stream (desc["stream"]) before using the memory, when sync
 * and NUMBA_CUDA_ARRAY_INTERFACE_SYNC allow, as numba does. 0, or -1 with an error. */
static int cai_wait_stream(module_state *st, PyObject *desc, int sync)
{
    PyObject *stream = PyDict_Check(desc) ? PyDict_GetItemString(desc, "stream") : NULL;
    if (stream == NULL || stream == Py_None || !sync)
        return 0;
    /* numba's setting, read where numba_cuda_c/config.py reads the others (numba's loaded config wins) */
    PyObject *name = PyUnicode_FromString("CUDA_ARRAY_INTERFACE_SYNC");
    PyObject *setting = name ? python_call1(st, HELPER_CONFIG_GET, name) : NULL;
    Py_XDECREF(name);
    int wait = setting ? PyObject_IsTrue(setting) : -1;
    Py_XDECREF(setting);
    if (wait <= 0)
        return wait;
    void *handle = PyLong_AsVoidPtr(stream);
    if (handle == NULL && PyErr_Occurred())
        return -1;
    if (stream_synchronize_replaced(st)) { /* numba: external_stream(handle).synchronize() */
        ContextObject *context = context_current(st);
        return context ? stream_call_synchronize(st, context, (CUstream)handle, STREAM_EXTERNAL) : -1;
    }
    return CU_BLOCKING_CALL(st, cuStreamSynchronize, ((CUstream)handle));
}

/* The exporter's stream becomes the imported array's default stream, as an external stream (numba);
 * *stream stays NULL (no default stream) when the interface names none. */
static int cai_stream(module_state *st, ContextObject *context, PyObject *desc, PyObject **stream)
{
    PyObject *value = PyDict_GetItemString(desc, "stream");
    *stream = NULL;
    if (value == NULL || value == Py_None)
        return 0;
    void *handle = PyLong_AsVoidPtr(value);
    if (handle == NULL && PyErr_Occurred())
        return -1;
    *stream = stream_new(st, context, (CUstream)handle, STREAM_EXTERNAL);
    return *stream == NULL ? -1 : 0;
}

PyObject *devicearray_from_cai(module_state *st, PyObject *desc, PyObject *owner, int sync)
{
    if (!PyDict_Check(desc)) {
        PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ must be a dict");
        return NULL;
    }
    PyObject *mask = PyDict_GetItemString(desc, "mask");
    if (mask != NULL && mask != Py_None) {
        PyErr_SetString(PyExc_NotImplementedError, "Masked arrays are not supported");
        return NULL;
    }
    PyObject *shape_obj = PyDict_GetItemString(desc, "shape");
    PyObject *data_obj = PyDict_GetItemString(desc, "data");
    PyObject *typestr = PyDict_GetItemString(desc, "typestr");
    PyObject *descr = PyDict_GetItemString(desc, "descr");
    PyObject *strides_obj = PyDict_GetItemString(desc, "strides");
    if (shape_obj == NULL || data_obj == NULL || typestr == NULL || !PyTuple_Check(data_obj) ||
        PyTuple_GET_SIZE(data_obj) < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "__cuda_array_interface__ needs shape, typestr and data=(pointer, readonly)");
        return NULL;
    }
    /* a structured type is described by descr; typestr alone says only its size */
    PyObject *dtype_spec = (descr != NULL && PyList_Check(descr) && PyList_GET_SIZE(descr) > 1) ? descr : typestr;
    array_layout layout;
    if (layout_parse_view(shape_obj, dtype_spec, strides_obj, &layout) < 0)
        return NULL;
    unsigned long long pointer = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data_obj, 0));
    ContextObject *context = NULL;
    if (pointer != (unsigned long long)-1 || !PyErr_Occurred()) {
        /* the data pointer is element (0, ..., 0): with negative strides the lowest byte lies below it */
        if (layout.span > 0 && (pointer < (unsigned long long)-layout.low ||
                                pointer + (unsigned long long)layout.low > ~0ULL - layout.span))
            PyErr_Format(PyExc_ValueError,
                         "__cuda_array_interface__: the data pointer %p with these shape and strides reaches "
                         "outside the address space",
                         (void *)(uintptr_t)pointer);
        else /* memory of our own (an IPC mapping, a raw allocation) belongs to its context, whichever is current */
            context = owner != NULL && Py_IS_TYPE(owner, st->MemoryPointerType) ? ((MemoryObject *)owner)->context
                                                                                : context_current(st);
    }
    PyObject *result = NULL, *stream = NULL;
    if (context != NULL &&
        foreign_check_extent(st, (CUdeviceptr)pointer, layout.low, layout.span, "__cuda_array_interface__") < 0)
        context = NULL;
    if (context != NULL && cai_wait_stream(st, desc, sync) == 0 && cai_stream(st, context, desc, &stream) == 0)
        result = (PyObject *)devicearray_wrap(st, st->DeviceNDArrayType, layout.ndim, layout.shape, layout.strides,
                                              layout.dtype, (CUdeviceptr)pointer, owner, context, stream);
    Py_XDECREF(stream);
    Py_DECREF(layout.dtype);
    return result;
}

int devicearray_cai_pointer(module_state *st, PyObject *desc, CUdeviceptr *pointer)
{
    PyObject *data = PyDict_Check(desc) ? PyDict_GetItemString(desc, "data") : NULL;
    if (data == NULL || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1) {
        PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__ lacks data=(pointer, readonly)");
        return -1;
    }
    *pointer = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (*pointer == (CUdeviceptr)-1 && PyErr_Occurred())
        return -1;
    /* Whoever takes a bare pointer alone knows its extent: the pointer of a non-empty array must at
     * least lie in an allocation (foreign.c). */
    PyObject *shape = PyDict_GetItemString(desc, "shape");
    size_t elements = 1;
    for (Py_ssize_t i = 0; shape != NULL && PyTuple_Check(shape) && i < PyTuple_GET_SIZE(shape); i++)
        if (PyLong_Check(PyTuple_GET_ITEM(shape, i)) && PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)) == 0)
            elements = 0;
    if (PyErr_Occurred() ||
        foreign_check_extent(st, *pointer, 0, elements, "a __cuda_array_interface__ argument") < 0)
        return -1;
    return cai_wait_stream(st, desc, 1);
}

PyObject *devicearray_effective_stream(DeviceArrayObject *array, PyObject *stream)
{
    if (stream_is_default(stream))
        return array->stream != NULL ? array->stream : stream;
    return stream;
}

size_t devicearray_span(const DeviceArrayObject *array, npy_intp *low)
{
    npy_intp lo = 0, hi = 0;
    *low = 0;
    if (array->size == 0)
        return 0;
    for (int i = 0; i < array->ndim; i++) {
        npy_intp extent = (array->shape[i] - 1) * array->strides[i];
        if (extent < 0)
            lo += extent;
        else
            hi += extent;
    }
    *low = lo;
    return (size_t)(hi - lo + PyDataType_ELSIZE(array->dtype));
}

static int is_contiguous(const DeviceArrayObject *array, char order)
{
    npy_intp expected = PyDataType_ELSIZE(array->dtype);
    if (array->size == 0)
        return 1;
    for (int k = 0; k < array->ndim; k++) {
        int i = order == 'F' ? k : array->ndim - 1 - k;
        if (array->shape[i] == 1)
            continue; /* any stride is fine on an axis of length 1, as NumPy says */
        if (array->strides[i] != expected)
            return 0;
        expected *= array->shape[i];
    }
    return 1;
}

int devicearray_is_c_contiguous(const DeviceArrayObject *array)
{
    return is_contiguous(array, 'C');
}

int devicearray_is_f_contiguous(const DeviceArrayObject *array)
{
    return is_contiguous(array, 'F');
}
