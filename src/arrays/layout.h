/* layout.h: the shape of an array: numba's (shape, dtype, strides, order)
 * arguments checked and turned into strides, and the bytes a layout spans (layout.c). */
#ifndef NUMBA_CUDA_C_LAYOUT_H
#define NUMBA_CUDA_C_LAYOUT_H

#include "driver/numpy_api.h"

/* numba's (shape, dtype, strides, order) arguments, checked: no negative dimension, no object or
 * unsized dtype; strides given, or contiguous in `order`. */
typedef struct {
    int ndim;
    npy_intp shape[NPY_MAXDIMS];
    npy_intp strides[NPY_MAXDIMS];
    PyArray_Descr *dtype; /* owned: release with Py_DECREF */
    size_t span;          /* the bytes the layout covers */
    npy_intp low;         /* layout_parse_view: the offset of its lowest byte from element (0, ..., 0), <= 0 */
} array_layout;

int layout_parse(PyObject *shape, PyObject *dtype, PyObject *strides, PyObject *order, array_layout *layout);

/* The same for a view of memory laid out elsewhere (a CUDA-array-interface export): strides may be
 * negative (a reversed view), and span/low give the bytes from the lowest touched to the highest. */
int layout_parse_view(PyObject *shape, PyObject *dtype, PyObject *strides, array_layout *layout);

/* The bytes a layout touches: *low, the offset of the lowest from element (0, ..., 0) (<= 0), and *span,
 * from there to the end of the highest item (0 for an empty array). -1 with ValueError on overflow. */
int layout_extent(int ndim, const npy_intp *shape, const npy_intp *strides, npy_intp itemsize, npy_intp *low,
                  size_t *span);

#endif
