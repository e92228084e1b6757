/* ipc.h: CUDA IPC handles of device memory, and other processes' memory opened from them (ipc.c). */
#ifndef NUMBA_CUDA_C_IPC_H
#define NUMBA_CUDA_C_IPC_H

#include "core/context.h"

/* _ipc_get_handle, _ipc_open. */
extern PyMethodDef ipc_module_methods[];

#endif
