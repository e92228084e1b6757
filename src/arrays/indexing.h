/* indexing.h: what a key selects of an array, as a layout over the same memory
 * (indexing.c). */
#ifndef NUMBA_CUDA_C_INDEXING_H
#define NUMBA_CUDA_C_INDEXING_H

#include "arrays/devicearray.h"

/* The layout of an indexing result, and of a structured array's field. */
int devicearray_index(DeviceArrayObject *self, PyObject *key, int *ndim, npy_intp *shape, npy_intp *strides,
                      npy_intp *offset);
int devicearray_field(DeviceArrayObject *self, PyObject *name, int *ndim, npy_intp *shape, npy_intp *strides,
                      PyArray_Descr **dtype, npy_intp *offset);

#endif
