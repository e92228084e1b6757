/* views.h: DeviceNDArray's views over the same memory and its element reads and
 * writes: methods and slots of the type (views.c). */
#ifndef NUMBA_CUDA_C_VIEWS_H
#define NUMBA_CUDA_C_VIEWS_H

#include "driver/state.h"

/* DeviceNDArray's views and element access, its methods and slots (devicearray_views.c). */
PyObject *DeviceNDArray_subscript(PyObject *op, PyObject *key);
PyObject *DeviceNDArray_iter(PyObject *op);
Py_ssize_t DeviceNDArray_length(PyObject *op);
PyObject *DeviceNDArray_reshape(PyObject *op, PyObject *args, PyObject *kwargs);
PyObject *DeviceNDArray_ravel(PyObject *op, PyObject *args, PyObject *kwargs);
PyObject *DeviceNDArray_transpose(PyObject *op, PyObject *args);
PyObject *DeviceNDArray_get_T(PyObject *op, void *closure);
PyObject *DeviceNDArray_view(PyObject *op, PyObject *dtype_obj);
PyObject *DeviceNDArray_bind(PyObject *op, PyObject *args, PyObject *kwargs);
PyObject *DeviceNDArray_getitem(PyObject *op, PyObject *args, PyObject *kwargs);
PyObject *DeviceNDArray_setitem(PyObject *op, PyObject *args, PyObject *kwargs);
PyObject *DeviceNDArray_split(PyObject *op, PyObject *args, PyObject *kwargs);

#endif
