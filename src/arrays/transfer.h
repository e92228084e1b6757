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

/* A kernel's argument that is neither a device array of ours nor a number, as memory the kernel can take
 * (numba's auto_device, as a launch uses it: launch_arguments.c); argument `index` of `kernel` (its name)
 * in messages. On `stream` (a Stream, or None), the launch's:
 *   - an object with __cuda_array_interface__ (a mapped or managed NumPy array too): a view of its memory in
 *     *device; or, where `pointer` is not NULL (a CUDA C kernel's 8-byte parameter), its data pointer alone
 *     in *pointer, checked as devicearray_cai_pointer checks it, and *device NULL;
 *   - a NumPy array: its copy on the device in *device, and in *copy_back the array again, to copy back to
 *     after the launch (NULL where it cannot be written); refused on a capturing stream;
 *   - device memory numba-cuda takes without the interface (cuda.core Buffer and StridedMemoryView, DLPack
 *     producers on a CUDA device): a view of it in *device.
 * 1, with new references; 0 where obj is none of these (no exception); -1 with an exception. */
int transfer_launch_argument(module_state *st, PyObject *obj, PyObject *stream, Py_ssize_t index, PyObject *kernel,
                             CUdeviceptr *pointer, PyObject **device, PyObject **copy_back);

extern PyMethodDef transfer_module_methods[];

#endif
