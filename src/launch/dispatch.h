/* dispatch.h: Dispatch, the C per-call path of @cuda.jit launches (dispatch.c). */
#ifndef NUMBA_CUDA_C_DISPATCH_H
#define NUMBA_CUDA_C_DISPATCH_H

#include "driver/state.h"

int dispatch_type_init(PyObject *module, module_state *st);

#endif
