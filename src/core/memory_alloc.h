/* memory_alloc.h: allocations into new MemoryPointers (memory_alloc.c). */
#ifndef NUMBA_CUDA_C_MEMORY_ALLOC_H
#define NUMBA_CUDA_C_MEMORY_ALLOC_H

#include "core/memory.h"

/* Allocations in `context`; each retries once after flushing the deallocation queue when the
 * driver is out of memory. New references. */
PyObject *memory_alloc_device(module_state *st, ContextObject *context, size_t size);
PyObject *memory_alloc_host(module_state *st, ContextObject *context, size_t size, int mapped, int portable,
                            int write_combined);
PyObject *memory_alloc_managed(module_state *st, ContextObject *context, size_t size, int attach_global);

/* The context's instance of the EMM plugin class, made (and initialize()d) at first use. Borrowed. */
PyObject *memory_manager_of(module_state *st, ContextObject *context);

/* _alloc, _register, _registrations, _set_memory_plugin, _use_memory_pool. */
extern PyMethodDef memory_alloc_module_methods[];

#endif
