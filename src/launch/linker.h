/* linker.h: Linker, the driver's JIT linker (linker.c). */
#ifndef NUMBA_CUDA_C_LINKER_H
#define NUMBA_CUDA_C_LINKER_H

#include "driver/state.h"

int linker_type_init(PyObject *module, module_state *st);

#endif
