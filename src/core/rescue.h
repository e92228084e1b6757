/* rescue.h: host memory that dies with its context, kept readable. */
#ifndef NUMBA_CUDA_C_RESCUE_H
#define NUMBA_CUDA_C_RESCUE_H

#include "core/allocation.h"

/* Host memory that dies with its context (write-combined pinned or mapped memory, which only
 * cuMemHostAlloc makes, and managed memory) is watched from its allocation; when its context dies
 * its bytes move to pages of ours at the same address, so host arrays stay readable. (rescue.c) */
void memory_rescue_watch(module_state *st, MemoryObject *memory);
void memory_rescue_save(module_state *st, ContextObject *context); /* before the driver frees it */
void memory_rescue_restore(module_state *st);                      /* after the release or reset */
void memory_rescue_forget(module_state *st, MemoryObject *memory); /* when the MemoryPointer goes */

/* Registers memory_rescue_restore to run after a primary context is released or reset. */
int rescue_init(PyObject *module, module_state *st);

#endif
