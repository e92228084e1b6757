/* layout.c: the shape of an array: numba's (shape, dtype, strides, order) arguments checked and
 * turned into strides, and the bytes a layout spans. Shared by device arrays
 * (devicearray.c), their creation functions and host arrays (devicearray_functions.c). */
#include "arrays/layout.h"

void layout_contiguous_strides(int ndim, const npy_intp *shape, npy_intp itemsize, char order, npy_intp *strides)
{
    npy_intp step = itemsize;
    if (order == 'F') {
        for (int i = 0; i < ndim; i++) {
            strides[i] = step;
            step *= shape[i] > 0 ? shape[i] : 1;
        }
    } else {
        for (int i = ndim - 1; i >= 0; i--) {
            strides[i] = step;
            step *= shape[i] > 0 ? shape[i] : 1;
        }
    }
}

/* NumPy's limits (PyArray_NewFromDescr): the item size times every nonzero dimension fits in
 * npy_intp, whatever the strides; then, where strides are given, so does every byte they reach.
 * Nothing bigger can be allocated or addressed, and a product that wraps would describe an array
 * larger than its memory. */
static int too_big(void)
{
    PyErr_SetString(PyExc_ValueError,
                    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.");
    return -1;
}

int layout_check(int ndim, const npy_intp *shape, const npy_intp *strides, npy_intp itemsize, npy_intp *size,
                 size_t *span)
{
    npy_intp bytes = itemsize, count = 1;
    int empty = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            PyErr_Format(PyExc_ValueError, "negative dimensions are not allowed: %zd", (Py_ssize_t)shape[i]);
            return -1;
        }
        if (shape[i] == 0)
            empty = 1;
        else if (__builtin_mul_overflow(bytes, shape[i], &bytes))
            return too_big();
        else
            count *= shape[i]; /* <= bytes: no overflow */
    }
    *size = empty ? 0 : count;
    if (strides == NULL || span == NULL)
        return 0;
    npy_intp low = 0, high = 0;
    for (int i = 0; i < ndim && !empty; i++) {
        npy_intp extent;
        if (__builtin_mul_overflow(shape[i] - 1, strides[i], &extent) ||
            __builtin_add_overflow(extent < 0 ? low : high, extent, extent < 0 ? &low : &high))
            return too_big();
    }
    npy_intp reach;
    if (!empty && (__builtin_sub_overflow(high, low, &reach) || __builtin_add_overflow(reach, itemsize, &reach)))
        return too_big();
    *span = empty ? 0 : (size_t)reach;
    return 0;
}

/* Parsing numba's shape / dtype / order arguments. */

/* An int or a sequence of ints into shape[]; returns ndim or -1. */
int layout_parse_shape(PyObject *obj, npy_intp *shape, const char *what)
{
    /* an int-like; a NumPy array has __index__ too, but only a 0-d one is a number */
    if (PyIndex_Check(obj) && !(PyArray_Check(obj) && PyArray_NDIM((PyArrayObject *)obj) > 0)) {
        shape[0] = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
        return shape[0] == -1 && PyErr_Occurred() ? -1 : 1;
    }
    PyObject *items = PySequence_Fast(obj, "");
    if (items == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of ints, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    if (n > NPY_MAXDIMS) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "%s has too many dimensions: %zd (at most %d)", what, n, NPY_MAXDIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i);
        if (!PyIndex_Check(item)) {
            Py_DECREF(items);
            PyErr_Format(PyExc_TypeError, "%s must hold ints, not %.100s", what, Py_TYPE(item)->tp_name);
            return -1;
        }
        shape[i] = PyNumber_AsSsize_t(item, PyExc_OverflowError);
        if (shape[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return (int)n;
}

int layout_parse_order(PyObject *obj, char *order)
{
    if (obj == NULL || obj == Py_None) {
        *order = 'C';
        return 0;
    }
    const char *text = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (text == NULL || (strcmp(text, "C") != 0 && strcmp(text, "F") != 0)) {
        PyErr_SetString(PyExc_ValueError, "order must be 'C' or 'F'");
        return -1;
    }
    *order = text[0];
    return 0;
}

/* dtype=None means float64, as numba's default. New reference. */
PyArray_Descr *layout_parse_dtype(PyObject *obj)
{
    PyArray_Descr *dtype = NULL;
    if (obj == NULL || obj == Py_None)
        return PyArray_DescrFromType(NPY_FLOAT64);
    if (!PyArray_DescrConverter(obj, &dtype))
        return NULL;
    return dtype;
}

int layout_extent(int ndim, const npy_intp *shape, const npy_intp *strides, npy_intp itemsize, npy_intp *low,
                  size_t *span)
{
    /* in unsigned 64-bit arithmetic, checked: every term fits an npy_intp on its own */
    unsigned long long down = 0, up = 0;
    *low = 0;
    *span = 0;
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0)
            return 0;
    for (int i = 0; i < ndim; i++) {
        unsigned long long reach,
            stride = strides[i] < 0 ? 0ULL - (unsigned long long)strides[i] : (unsigned long long)strides[i];
        if (__builtin_mul_overflow((unsigned long long)(shape[i] - 1), stride, &reach) ||
            __builtin_add_overflow(strides[i] < 0 ? down : up, reach, strides[i] < 0 ? &down : &up))
            goto overflow;
    }
    unsigned long long total;
    if (__builtin_add_overflow(down, up, &total) ||
        __builtin_add_overflow(total, (unsigned long long)itemsize, &total) ||
        total > (unsigned long long)NPY_MAX_INTP)
        goto overflow;
    *low = -(npy_intp)down;
    *span = (size_t)total;
    return 0;
overflow:
    PyErr_SetString(PyExc_ValueError, "the array's shape and strides span more bytes than an address can");
    return -1;
}

static int parse(PyObject *shape_obj, PyObject *dtype_obj, PyObject *strides_obj, PyObject *order_obj,
                 array_layout *layout, int view);

int layout_parse(PyObject *shape_obj, PyObject *dtype_obj, PyObject *strides_obj, PyObject *order_obj,
                 array_layout *layout)
{
    return parse(shape_obj, dtype_obj, strides_obj, order_obj, layout, 0);
}

int layout_parse_view(PyObject *shape_obj, PyObject *dtype_obj, PyObject *strides_obj, array_layout *layout)
{
    return parse(shape_obj, dtype_obj, strides_obj, Py_None, layout, 1);
}

static int parse(PyObject *shape_obj, PyObject *dtype_obj, PyObject *strides_obj, PyObject *order_obj,
                 array_layout *layout, int view)
{
    char order;
    layout->dtype = NULL;
    if ((layout->ndim = layout_parse_shape(shape_obj, layout->shape, "shape")) < 0 ||
        layout_parse_order(order_obj, &order) < 0 || (layout->dtype = layout_parse_dtype(dtype_obj)) == NULL)
        return -1;
    npy_intp itemsize = PyDataType_ELSIZE(layout->dtype);
    if (PyDataType_REFCHK(layout->dtype)) {
        PyErr_SetString(PyExc_TypeError, "arrays of Python objects cannot live on the device");
        goto error;
    }
    if (itemsize == 0) {
        PyErr_SetString(PyExc_TypeError, "the dtype has no size: flexible types need a length (e.g. 'S8')");
        goto error;
    }
    npy_intp count;
    if (layout_check(layout->ndim, layout->shape, NULL, itemsize, &count, NULL) < 0)
        goto error;
    if (strides_obj != NULL && strides_obj != Py_None) {
        if (layout_parse_shape(strides_obj, layout->strides, "strides") != layout->ndim) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "strides must have one entry per dimension");
            goto error;
        }
    } else {
        layout_contiguous_strides(layout->ndim, layout->shape, itemsize, order, layout->strides);
    }
    layout->low = 0;
    if (view) { /* memory someone else laid out: any strides, the extent from the lowest byte to the highest */
        if (layout_extent(layout->ndim, layout->shape, layout->strides, itemsize, &layout->low, &layout->span) < 0)
            goto error;
        return 0;
    }
    for (int i = 0; i < layout->ndim; i++) {
        if (layout->strides[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative strides are not allowed for a new allocation");
            goto error;
        }
    }
    if (layout_check(layout->ndim, layout->shape, layout->strides, itemsize, &count, &layout->span) < 0)
        goto error;
    return 0;
error:
    Py_CLEAR(layout->dtype);
    return -1;
}

#include "arrays/layout.h"