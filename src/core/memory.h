/* memory.h: MemoryPointer, the owner of one allocation (device, pinned, mapped, managed, registered,
 * pooled, IPC or a plugin's memory). Arrays and views hold a reference to the MemoryPointer; when
 * the last goes, the free is queued (see memory.c). Allocations are made by memory_alloc.h. */
#ifndef NUMBA_CUDA_C_MEMORY_H
#define NUMBA_CUDA_C_MEMORY_H

#include "core/allocation.h"
#include "core/deallocations.h"

/* A MemoryPointer of `kind` in `context`, owning nothing yet (the caller fills in its pointers and
 * size). New reference. */
MemoryObject *memory_new(module_state *st, ContextObject *context, memory_kind kind, size_t size);

int memory_type_init(PyObject *module, module_state *st);

#endif
