/* devicearray_type.h: the Python types DeviceNDArray and DeviceRecord (devicearray_type.c). */
#ifndef NUMBA_CUDA_C_DEVICEARRAY_TYPE_H
#define NUMBA_CUDA_C_DEVICEARRAY_TYPE_H

#include "driver/state.h"

int devicearray_type_init(PyObject *module, module_state *st);

#endif
