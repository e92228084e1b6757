/* devicearray_views.c: DeviceNDArray's views over the same memory (slices and indexing, reshape,
 * ravel, transpose, view, split) and the element reads and writes of __getitem__/__setitem__.
 * The type itself, its attributes and __cuda_array_interface__ are in devicearray.c. */
#include "arrays/devicearray.h"
#include "arrays/layout.h"
#include "arrays/indexing.h"
#include "arrays/views.h"

#include "driver/errors.h"
#include "core/memory.h"
#include "core/stream.h"
#include "core/copies.h"
#include "arrays/transfer.h"

/* Views */

/* A view of `self` with another layout over the same memory. */
static PyObject *make_view(DeviceArrayObject *self, PyTypeObject *type, int ndim, const npy_intp *shape,
                           const npy_intp *strides, PyArray_Descr *dtype, npy_intp offset)
{
    module_state *st = state_of((PyObject *)self);
    CUdeviceptr data = self->data ? self->data + offset : 0;
    return (PyObject *)devicearray_wrap(st, type, ndim, shape, strides, dtype ? dtype : self->dtype, data,
                                        self->owner, self->context, self->stream);
}

/* Copies one element of `dtype` at `data` to the host: a NumPy scalar, as numba's integer indexing
 * and record field reads give. */
static PyObject *element_to_host(DeviceArrayObject *self, CUdeviceptr data, PyArray_Descr *dtype)
{
    npy_intp itemsize = PyDataType_ELSIZE(dtype);
    char buffer[64];
    char *host = itemsize <= (npy_intp)sizeof buffer ? buffer : PyMem_Malloc(itemsize);
    if (host == NULL)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    if (transfer_copy(state_of((PyObject *)self), self->context, host, 0, data, (size_t)itemsize,
                      devicearray_effective_stream(self, NULL), 1) == 0)
        result = PyArray_Scalar(host, dtype, NULL);
    if (host != buffer)
        PyMem_Free(host);
    return result;
}

/* rec['a'] / recs['a']: a record's scalar field is read to the host (numba's DeviceRecord); a nested
 * record is a DeviceRecord; anything else is a device view. */
static PyObject *field_subscript(DeviceArrayObject *self, PyObject *name)
{
    module_state *st = state_of((PyObject *)self);
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], offset;
    PyArray_Descr *dtype;
    int ndim;
    if (devicearray_field(self, name, &ndim, shape, strides, &dtype, &offset) < 0)
        return NULL;
    if (ndim == 0 && PyDataType_HASFIELDS(dtype))
        return make_view(self, st->DeviceRecordType, 0, shape, strides, dtype, offset);
    if (ndim == 0)
        return element_to_host(self, self->data + offset, dtype);
    return make_view(self, st->DeviceNDArrayType, ndim, shape, strides, dtype, offset);
}

PyObject *DeviceNDArray_subscript(PyObject *op, PyObject *key)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    module_state *st = state_of(op);
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], offset;
    int ndim;
    /* the hot case, d[i:j] of a 1-d array, without building a tuple */
    if (PySlice_Check(key) && self->ndim >= 1) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0)
            return NULL;
        Py_ssize_t length = PySlice_AdjustIndices(self->shape[0], &start, &stop, step);
        memcpy(shape, self->shape, self->ndim * sizeof *shape);
        memcpy(strides, self->strides, self->ndim * sizeof *strides);
        shape[0] = length;
        strides[0] *= step;
        return make_view(self, Py_TYPE(op), self->ndim, shape, strides, NULL,
                         length > 0 ? start * self->strides[0] : 0);
    }
    if (PyUnicode_Check(key))
        return field_subscript(self, key);
    if (devicearray_index(self, key, &ndim, shape, strides, &offset) < 0)
        return NULL;
    int is_element = ndim == 0 && self->ndim > 0;
    if (is_element && PyDataType_HASFIELDS(self->dtype))
        return make_view(self, st->DeviceRecordType, 0, shape, strides, NULL, offset);
    if (is_element)
        return element_to_host(self, self->data + offset, self->dtype);
    return make_view(self, Py_TYPE(op) == st->DeviceRecordType ? st->DeviceNDArrayType : Py_TYPE(op), ndim, shape,
                     strides, NULL, offset);
}

/* iter(d): its first axis, as numba's sequence protocol and NumPy give: the numbers of a 1-d array
 * (copied to the host at once), else views (DeviceRecords for records); a 0-d array is not iterable. */
static PyObject *iterate_first_axis(PyObject *op)
{
    PyObject *items = PyList_New(0);
    if (items == NULL)
        return NULL;
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    for (npy_intp i = 0; i < self->shape[0]; i++) {
        PyObject *index = PyLong_FromSsize_t((Py_ssize_t)i);
        PyObject *item = index ? DeviceNDArray_subscript(op, index) : NULL;
        Py_XDECREF(index);
        if (item == NULL || PyList_Append(items, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(items);
            return NULL;
        }
        Py_DECREF(item);
    }
    PyObject *iterator = PyObject_GetIter(items);
    Py_DECREF(items);
    return iterator;
}

PyObject *DeviceNDArray_iter(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    if (self->ndim > 1 || PyDataType_HASFIELDS(self->dtype))
        return iterate_first_axis(op); /* views, and DeviceRecords */
    /* numbers: one copy to the host, not one per element */
    PyObject *host = PyObject_CallMethod(op, "copy_to_host", NULL);
    PyObject *iterator = host ? PyObject_GetIter(host) : NULL;
    Py_XDECREF(host);
    return iterator;
}

Py_ssize_t DeviceNDArray_length(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return self->shape[0];
}

/* reshape(*newshape, order='C'): a view, for contiguous arrays only (as numba). */
PyObject *DeviceNDArray_reshape(PyObject *op, PyObject *args, PyObject *kwargs)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    char order = 'C';
    PyObject *order_obj = kwargs ? PyDict_GetItemString(kwargs, "order") : NULL;
    if ((kwargs && PyDict_GET_SIZE(kwargs) > (order_obj ? 1 : 0)) || layout_parse_order(order_obj, &order) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "reshape() takes only the keyword argument order");
        return NULL;
    }
    PyObject *shape_obj = PyTuple_GET_SIZE(args) == 1 ? PyTuple_GET_ITEM(args, 0) : args;
    int ndim = layout_parse_shape(shape_obj, shape, "shape");
    if (ndim < 0)
        return NULL;
    npy_intp known = 1, size;
    int unknown = -1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == -1 && unknown < 0)
            unknown = i;
        else if (shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "can only specify one unknown dimension, and no negative ones");
            return NULL;
        } else if (__builtin_mul_overflow(known, shape[i], &known)) {
            PyErr_SetString(PyExc_ValueError,
                            "array is too big: the new shape has more elements than any array can");
            return NULL;
        }
    }
    if (unknown >= 0 && known == 0) { /* any length fits: ambiguous, as NumPy says */
        PyErr_SetString(PyExc_ValueError, "cannot reshape into a shape with both -1 and a zero dimension");
        return NULL;
    }
    if (unknown >= 0)
        shape[unknown] = self->size / known;
    if (layout_check(ndim, shape, NULL, PyDataType_ELSIZE(self->dtype), &size, NULL) < 0)
        return NULL;
    if (size != self->size) {
        PyErr_SetString(PyExc_ValueError, "reshape changes the size of the array"); /* numba's words */
        return NULL;
    }
    if (!(order == 'C' ? devicearray_is_c_contiguous(self) : devicearray_is_f_contiguous(self))) {
        PyErr_SetString(PyExc_NotImplementedError, "operation requires copying");
        return NULL;
    }
    layout_contiguous_strides(ndim, shape, PyDataType_ELSIZE(self->dtype), order, strides);
    return make_view(self, Py_TYPE(op), ndim, shape, strides, NULL, 0);
}

PyObject *DeviceNDArray_ravel(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"order", "stream", NULL};
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    const char *order = "C";
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|sO:ravel", keywords, &order, &stream))
        return NULL;
    if (strlen(order) != 1 || strchr("CFA", order[0]) == NULL) { /* numba's words, 'K' included */
        PyErr_SetString(PyExc_ValueError, "order not C|F|A");
        return NULL;
    }
    int c = devicearray_is_c_contiguous(self), f = devicearray_is_f_contiguous(self);
    if (!((order[0] != 'F' && c) || (order[0] != 'C' && f))) {
        PyErr_SetString(PyExc_NotImplementedError, "ravel on non-contiguous array");
        return NULL;
    }
    npy_intp shape = self->size, stride = PyDataType_ELSIZE(self->dtype);
    PyObject *view = make_view(self, Py_TYPE(op), 1, &shape, &stride, NULL, 0);
    if (view != NULL && !stream_is_default(stream)) {
        CUstream unused;
        if (stream_handle_from_object(state_of(op), stream, &unused) < 0) {
            Py_DECREF(view);
            return NULL;
        }
        Py_XSETREF(((DeviceArrayObject *)view)->stream, Py_NewRef(stream));
    }
    return view;
}

/* transpose(axes=None) and T: a strided view (NumPy's semantics; numba copies 2-d arrays). */
PyObject *DeviceNDArray_transpose(PyObject *op, PyObject *args)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    npy_intp axes[NPY_MAXDIMS], shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    PyObject *axes_obj = PyTuple_GET_SIZE(args) == 1 ? PyTuple_GET_ITEM(args, 0) : args;
    int n = self->ndim;
    if (axes_obj == Py_None || PyTuple_GET_SIZE(args) == 0) {
        for (int i = 0; i < n; i++)
            axes[i] = n - 1 - i;
    } else if (layout_parse_shape(axes_obj, axes, "axes") != n) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "invalid axes list %R", axes_obj); /* numba's words */
        return NULL;
    }
    int seen[NPY_MAXDIMS] = {0};
    for (int i = 0; i < n; i++) {
        npy_intp a = axes[i] < 0 ? axes[i] + n : axes[i];
        if (a < 0 || a >= n || seen[a]++) {
            PyErr_Format(PyExc_ValueError, "invalid axes list %R", axes_obj);
            return NULL;
        }
        shape[i] = self->shape[a];
        strides[i] = self->strides[a];
    }
    return make_view(self, Py_TYPE(op), n, shape, strides, NULL, 0);
}

PyObject *DeviceNDArray_get_T(PyObject *op, void *Py_UNUSED(closure))
{
    PyObject *empty = PyTuple_New(0);
    PyObject *result = empty ? DeviceNDArray_transpose(op, empty) : NULL;
    Py_XDECREF(empty);
    return result;
}

/* view(dtype): the same bytes as another type; the last axis must be contiguous (as NumPy). */
PyObject *DeviceNDArray_view(PyObject *op, PyObject *dtype_obj)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyArray_Descr *dtype = layout_parse_dtype(dtype_obj);
    if (dtype == NULL)
        return NULL;
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    npy_intp old_size = PyDataType_ELSIZE(self->dtype), new_size = PyDataType_ELSIZE(dtype);
    int n = self->ndim;
    memcpy(shape, self->shape, n * sizeof *shape);
    memcpy(strides, self->strides, n * sizeof *strides);
    PyObject *result = NULL;
    if (PyDataType_REFCHK(dtype) || new_size == 0) {
        PyErr_SetString(PyExc_TypeError, "cannot view a device array as an object or flexible dtype");
    } else if (old_size != new_size) {
        /* numba's (NumPy's) words */
        if (n == 0 || strides[n - 1] != old_size)
            PyErr_SetString(PyExc_ValueError,
                            "To change to a dtype of a different size, the last axis must be contiguous");
        else if ((shape[n - 1] * old_size) % new_size != 0)
            PyErr_SetString(PyExc_ValueError, "When changing to a larger dtype, its size must be a divisor of the "
                                              "total size in bytes of the last axis of the array.");
        else {
            shape[n - 1] = shape[n - 1] * old_size / new_size;
            strides[n - 1] = new_size;
            result = make_view(self, Py_TYPE(op), n, shape, strides, dtype, 0);
        }
    } else {
        result = make_view(self, Py_TYPE(op), n, shape, strides, dtype, 0);
    }
    Py_DECREF(dtype);
    return result;
}

PyObject *DeviceNDArray_bind(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"stream", NULL};
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *stream = Py_None;
    CUstream unused;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:bind", keywords, &stream) ||
        stream_handle_from_object(state_of(op), stream, &unused) < 0)
        return NULL;
    DeviceArrayObject *view =
        (DeviceArrayObject *)make_view(self, Py_TYPE(op), self->ndim, self->shape, self->strides, NULL, 0);
    if (view != NULL) {
        Py_CLEAR(view->stream);
        view->stream = stream_is_default(stream) ? NULL : Py_NewRef(stream);
    }
    return (PyObject *)view;
}

/* getitem(key, stream=0) / setitem(key, value, stream=0): indexing on a given stream, as numba's. */
PyObject *DeviceNDArray_getitem(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"item", "stream", NULL};
    PyObject *key, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:getitem", keywords, &key, &stream))
        return NULL;
    if (stream_is_default(stream))
        return DeviceNDArray_subscript(op, key);
    PyObject *bound_args = PyTuple_Pack(1, stream);
    PyObject *bound = bound_args ? DeviceNDArray_bind(op, bound_args, NULL) : NULL;
    Py_XDECREF(bound_args);
    if (bound == NULL)
        return NULL;
    PyObject *result = DeviceNDArray_subscript(bound, key);
    Py_DECREF(bound);
    return result;
}

PyObject *DeviceNDArray_setitem(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"key", "value", "stream", NULL};
    PyObject *key, *value, *stream = Py_None;
    CUstream unused;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:setitem", keywords, &key, &value, &stream) ||
        stream_handle_from_object(state_of(op), stream, &unused) < 0)
        return NULL;
    return devicearray_assign(op, key, value, stream) < 0 ? NULL : Py_NewRef(Py_None);
}

/* split(section, stream=0): consecutive 1-d views of `section` elements (the last may be shorter). */
PyObject *DeviceNDArray_split(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"section", "stream", NULL};
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    Py_ssize_t section;
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|O:split", keywords, &section, &stream))
        return NULL;
    if (self->ndim != 1) {
        PyErr_SetString(PyExc_ValueError, "only 1-d arrays can be split");
        return NULL;
    }
    if (section <= 0) {
        PyErr_SetString(PyExc_ValueError, "section must be positive");
        return NULL;
    }
    PyObject *parts = PyList_New(0);
    for (npy_intp begin = 0; parts != NULL && begin < self->shape[0]; begin += section) {
        npy_intp length = self->shape[0] - begin < section ? self->shape[0] - begin : section;
        PyObject *part = make_view(self, Py_TYPE(op), 1, &length, self->strides, NULL, begin * self->strides[0]);
        if (part == NULL || PyList_Append(parts, part) < 0)
            Py_CLEAR(parts);
        Py_XDECREF(part);
    }
    return parts;
}
