/* c_api.h: numba_cuda_c's C API for other extensions, the capsule numba_cuda_c._cuda._C_API whose table the
 * installed header numba_cuda_c/include/numba_cuda_c.h declares (c_api.c). */
#ifndef NUMBA_CUDA_C_C_API_H
#define NUMBA_CUDA_C_C_API_H

#include "driver/state.h"

/* Adds the capsule to the module. 0, or -1 with an exception. */
int c_api_init(PyObject *module, module_state *st);
extern PyMethodDef c_api_module_methods[];

#endif
