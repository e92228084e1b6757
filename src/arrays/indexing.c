/* indexing.c: what a key selects of an array: the layout of a field of a structured array, and of
 * an index, a slice or a tuple of them (numba's and NumPy's rules), over the same memory. Views
 * (views.c) and assignments (transfer.c) use them. */
#include "arrays/indexing.h"
#include "driver/errors.h"
#include "arrays/layout.h"

/* Field `name` of a structured array (numba's rec['a'], and NumPy's recs['a']): the field's layout
 * over the same memory. A subarray field ('h', float32, (3, 3)) adds its dimensions, C-ordered, and
 * *dtype is its element type; *dtype is borrowed from self's dtype. */
int devicearray_field(DeviceArrayObject *self, PyObject *name, int *ndim, npy_intp *shape, npy_intp *strides,
                      PyArray_Descr **dtype, npy_intp *offset)
{
    PyObject *fields = PyDataType_HASFIELDS(self->dtype) ? PyDataType_FIELDS(self->dtype) : NULL;
    PyObject *entry = fields ? PyDict_GetItemWithError(fields, name) : NULL;
    if (entry == NULL) {
        if (!PyErr_Occurred() && fields)
            PyErr_SetObject(PyExc_KeyError, name);
        else if (!PyErr_Occurred())
            PyErr_Format(PyExc_IndexError,
                         "only integers, slices, ellipsis and None are valid indices (not the field name %R: the "
                         "array's dtype has no fields)",
                         name);
        return -1;
    }
    PyArray_Descr *field = (PyArray_Descr *)PyTuple_GET_ITEM(entry, 0);
    *offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 1));
    if (*offset == -1 && PyErr_Occurred())
        return -1;
    *ndim = self->ndim;
    memcpy(shape, self->shape, self->ndim * sizeof *shape);
    memcpy(strides, self->strides, self->ndim * sizeof *strides);
    *dtype = field;
    if (!PyDataType_HASSUBARRAY(field))
        return 0;
    PyArray_ArrayDescr *subarray = PyDataType_SUBARRAY(field);
    PyObject *dims = PyTuple_Check(subarray->shape) ? Py_NewRef(subarray->shape) : PyTuple_Pack(1, subarray->shape);
    if (dims == NULL)
        return -1;
    Py_ssize_t extra = PyTuple_GET_SIZE(dims);
    if (self->ndim + extra > NPY_MAXDIMS) {
        Py_DECREF(dims);
        PyErr_SetString(PyExc_ValueError, "the field's dimensions and the array's are too many");
        return -1;
    }
    *dtype = subarray->base;
    npy_intp stride = PyDataType_ELSIZE(subarray->base);
    for (Py_ssize_t i = extra - 1; i >= 0; i--) {
        shape[self->ndim + i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(dims, i));
        strides[self->ndim + i] = stride;
        stride *= shape[self->ndim + i];
    }
    Py_DECREF(dims);
    *ndim = self->ndim + (int)extra;
    return PyErr_Occurred() ? -1 : 0;
}

/* A boolean scalar index (True, False, np.bool_): NumPy's 0-d boolean array index. */
static int is_bool_scalar(PyObject *item)
{
    return PyBool_Check(item) || PyArray_IsScalar(item, Bool);
}

/* Where a key holds boolean scalars, NumPy indexes "advanced": the booleans and the integers together
 * give one new axis, of length 1 (0 where any boolean is False), at the place of the first of them if
 * they stand side by side in the key, else first. *length is -1 where the key holds no boolean. */
static int advanced_axis(PyObject *items, Py_ssize_t *length, int *adjacent)
{
    Py_ssize_t first = -1, last = -1, count = 0;
    int booleans = 0;
    *length = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (is_bool_scalar(item)) {
            booleans = 1;
            int truth = PyObject_IsTrue(item);
            if (truth < 0)
                return -1;
            if (!truth)
                *length = 0;
        } else if (!(PyIndex_Check(item) && item != Py_None)) {
            continue;
        }
        if (first < 0)
            first = i;
        last = i;
        count++;
    }
    if (!booleans)
        *length = -1;
    *adjacent = last - first + 1 == count;
    return 0;
}

int devicearray_index(DeviceArrayObject *self, PyObject *key, int *ndim, npy_intp *shape, npy_intp *strides,
                      npy_intp *offset)
{
    PyObject *items = PyTuple_Check(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
    if (items == NULL)
        return -1;
    Py_ssize_t nitems = PyTuple_GET_SIZE(items), consumed = 0, advanced_length;
    int ellipses = 0, adjacent, advanced_at = -1;
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (item == Py_Ellipsis)
            ellipses++;
        else if (item != Py_None && !is_bool_scalar(item)) /* a boolean takes no axis: it adds one */
            consumed++;
    }
    if (consumed > self->ndim || ellipses > 1) {
        PyErr_Format(PyExc_IndexError,
                     ellipses > 1 ? "an index can only have a single ellipsis ('...')"
                                  : "too many indices for array: array is %d-dimensional",
                     self->ndim);
        goto error;
    }
    if (advanced_axis(items, &advanced_length, &adjacent) < 0)
        goto error;
    int axis = 0, out = 0;
    *offset = 0;
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (out >= NPY_MAXDIMS) {
            PyErr_SetString(PyExc_IndexError, "too many dimensions in the index");
            goto error;
        }
        if (is_bool_scalar(item)) {
            if (advanced_at < 0)
                advanced_at = out;
        } else if (item == Py_Ellipsis) {
            for (Py_ssize_t k = 0; k < self->ndim - consumed; k++, axis++, out++) {
                shape[out] = self->shape[axis];
                strides[out] = self->strides[axis];
            }
        } else if (item == Py_None) {
            shape[out] = 1;
            strides[out++] = 0;
        } else if (PySlice_Check(item)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(item, &start, &stop, &step) < 0)
                goto error;
            Py_ssize_t length = PySlice_AdjustIndices(self->shape[axis], &start, &stop, step);
            *offset += length > 0 ? start * self->strides[axis] : 0;
            shape[out] = length;
            strides[out++] = self->strides[axis++] * step;
        } else if (PyIndex_Check(item)) {
            if (advanced_at < 0)
                advanced_at = out;
            Py_ssize_t index = PyNumber_AsSsize_t(item, PyExc_IndexError);
            if (index == -1 && PyErr_Occurred())
                goto error;
            Py_ssize_t length = self->shape[axis];
            if (index < -length || index >= length) {
                PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %zd", index, axis,
                             length);
                goto error;
            }
            *offset += (index < 0 ? index + length : index) * self->strides[axis++];
        } else {
            PyErr_Format(PyExc_TypeError,
                         "device arrays take ints, slices, None and ... as indices, not %.100s (copy to the host "
                         "for advanced indexing)",
                         Py_TYPE(item)->tp_name);
            goto error;
        }
    }
    for (; axis < self->ndim; axis++, out++) {
        shape[out] = self->shape[axis];
        strides[out] = self->strides[axis];
    }
    if (advanced_length >= 0) { /* the booleans' axis, where NumPy puts it */
        if (out >= NPY_MAXDIMS) {
            PyErr_SetString(PyExc_IndexError, "too many dimensions in the index");
            goto error;
        }
        int at = adjacent ? advanced_at : 0;
        memmove(shape + at + 1, shape + at, (out - at) * sizeof *shape);
        memmove(strides + at + 1, strides + at, (out - at) * sizeof *strides);
        shape[at] = advanced_length;
        strides[at] = 0;
        out++;
    }
    *ndim = out;
    Py_DECREF(items);
    return 0;
error:
    Py_DECREF(items);
    return -1;
}
