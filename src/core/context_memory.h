/* context_memory.h: Context's memory methods (context_memory.c). */
#ifndef NUMBA_CUDA_C_CONTEXT_MEMORY_H
#define NUMBA_CUDA_C_CONTEXT_MEMORY_H

#include "driver/state.h"

/* Adds memalloc, memhostalloc, memallocmanaged, mempin, get_ipc_handle, open_ipc_handle,
 * get_memory_info and memory_manager to Context. */
int context_memory_init(PyObject *module, module_state *st);

#endif
