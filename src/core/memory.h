/* memory.h: MemoryPointer, the owner of one allocation (device, pinned, mapped, managed or
 * registered host memory), and the context's deallocation queue. Arrays and views hold a
 * reference to the MemoryPointer; when the last goes, the free is queued (see memory.c). */
#ifndef NUMBA_CUDA_C_MEMORY_H
#define NUMBA_CUDA_C_MEMORY_H

#include "core/allocation.h"
#include "core/deallocations.h"

/* Allocations in `context`; each retries once after flushing the deallocation queue when the
 * driver is out of memory. New references. */
PyObject *memory_alloc_device(module_state *st, ContextObject *context, size_t size);
PyObject *memory_alloc_host(module_state *st, ContextObject *context, size_t size, int mapped, int portable,
                            int write_combined);
PyObject *memory_alloc_managed(module_state *st, ContextObject *context, size_t size, int attach_global);

/* The context's instance of the EMM plugin class, made (and initialize()d) at first use. Borrowed. */
PyObject *memory_manager_of(module_state *st, ContextObject *context);

int memory_type_init(PyObject *module, module_state *st);

extern PyMethodDef memory_module_methods[];

#endif
