/* devicearray.c: a DeviceNDArray object (devicearray.h) made over memory or in new memory, its
 * bytes and contiguity. The Python type, its methods and attributes are devicearray_type.c's. */
#include "arrays/devicearray.h"

#include "arrays/layout.h"
#include "core/memory_alloc.h"
#include "core/stream.h"

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
