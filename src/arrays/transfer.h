/* transfer.h: the DeviceNDArray operations built on copies between host and device memory
 * (copy_to_host, copy_to_device, __setitem__, __reduce__, to_device); the copy itself is
 * core/copies.h's transfer_copy. */
#ifndef NUMBA_CUDA_C_TRANSFER_H
#define NUMBA_CUDA_C_TRANSFER_H

#include "arrays/devicearray.h"

PyObject *devicearray_copy_to_host(PyObject *self, PyObject *args, PyObject *kwargs);
/* DeviceNDArray.__reduce__: pickled through the host, rebuilt with the same layout. */
PyObject *devicearray_reduce(PyObject *self, PyObject *unused);
PyObject *devicearray_copy_to_device(PyObject *self, PyObject *args, PyObject *kwargs);
int devicearray_setitem(PyObject *self, PyObject *key, PyObject *value);
/* The same with a stream (DeviceNDArray.setitem(key, value, stream=0)); stream_arg NULL: the array's. */
int devicearray_assign(PyObject *self, PyObject *key, PyObject *value, PyObject *stream_arg);

/* cuda.to_device(obj, stream, copy): obj as a new device array (a device array or CAI object as is). */
PyObject *transfer_to_device(module_state *st, PyObject *obj, PyObject *stream, int copy);

extern PyMethodDef transfer_module_methods[];

#endif
