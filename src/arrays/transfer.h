/* transfer.h: copies between host and device memory, and the DeviceNDArray operations built on
 * them (copy_to_host, copy_to_device, __setitem__, to_device, host arrays in pinned, mapped or
 * managed memory). */
#ifndef NUMBA_CUDA_C_TRANSFER_H
#define NUMBA_CUDA_C_TRANSFER_H

#include "arrays/devicearray.h"

typedef enum { HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE } transfer_direction;

/* One copy of `size` bytes in `context`, with the GIL released. `stream` is a Stream, or NULL /
 * None / 0 for a synchronous copy on the default stream (numba's stream=0). */
int transfer_copy(module_state *st, ContextObject *context, void *host, CUdeviceptr device_dst,
                  CUdeviceptr device_src, size_t size, PyObject *stream, transfer_direction direction);

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
