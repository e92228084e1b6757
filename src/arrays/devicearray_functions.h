/* devicearray_functions.h: arrays from other objects (as_cuda_array, from_cuda_array_interface)
 * and the module functions that make device arrays and pinned, mapped or managed host arrays
 * (devicearray_functions.c). */
#ifndef NUMBA_CUDA_C_DEVICEARRAY_FUNCTIONS_H
#define NUMBA_CUDA_C_DEVICEARRAY_FUNCTIONS_H

#include "arrays/devicearray.h"

/* numba's as_cuda_array(obj, sync): a device array as is, or a view of a CUDA-array-interface
 * object that keeps it alive (devicearray_functions.c). New reference. */
PyObject *devicearray_from_object(module_state *st, PyObject *obj, int sync);

/* Whether obj has __cuda_array_interface__: 1 or 0, as Python's hasattr, which hides AttributeError only;
 * -1 with the exception the attribute raised otherwise (a tensor that requires grad raises RuntimeError
 * there, and its library expects the caller to see it). */
int devicearray_has_cai(PyObject *obj);

extern PyMethodDef devicearray_module_methods[];

#endif
