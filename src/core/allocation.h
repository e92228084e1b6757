/* allocation.h: what an allocation is, for the files that keep, queue and rescue them: its kinds,
 * the layout of MemoryPointer (memory.c), and a free waiting in a context's queue (deallocations.c). */
#ifndef NUMBA_CUDA_C_ALLOCATION_H
#define NUMBA_CUDA_C_ALLOCATION_H

#include "core/context.h"

typedef enum {
    MEMORY_DEVICE,     /* cuMemAlloc */
    MEMORY_PINNED,     /* cuMemHostAlloc, page-locked host memory */
    MEMORY_MAPPED,     /* cuMemHostAlloc with DEVICEMAP: host memory the device reads and writes */
    MEMORY_MANAGED,    /* cuMemAllocManaged */
    MEMORY_REGISTERED, /* cuMemHostRegister of memory someone else owns (cuda.pinned / cuda.mapped) */
    MEMORY_POOLED,     /* cuMemAllocAsync from the device's pool, given back with cuMemFreeAsync */
    MEMORY_IPC,        /* another process's allocation, opened with cuIpcOpenMemHandle */
    MEMORY_EXTERNAL,   /* from a memory-manager plugin (numba's EMM): its own object frees it */
} memory_kind;

struct pending_free {
    memory_kind kind;
    CUdeviceptr device_pointer;
    void *host_pointer;
    size_t size;
    int own_pages; /* pinned or mapped host memory in pages of ours (memory_alloc.c): unregister, then unmap */
};

/* Host memory the driver frees with its context (rescue.c). */
typedef enum {
    RESCUE_NONE,    /* not such memory, or device memory */
    RESCUE_WATCHED, /* write-combined or managed memory of a live context */
    RESCUE_SAVED,   /* its context died: its pages' bytes wait in rescue_copy for the driver to unmap them */
    RESCUE_DONE,    /* its bytes are back at their address, in pages of ours */
} rescue_state;

typedef struct MemoryObject {
    PyObject_HEAD
    ContextObject *context;
    CUdeviceptr device_pointer; /* 0 for pinned memory the device does not map */
    void *host_pointer;         /* NULL for device memory */
    size_t size;
    memory_kind kind;
    Py_buffer registered;                   /* MEMORY_REGISTERED: the exporter's buffer, held until unregistered */
    struct host_registration *registration; /* MEMORY_REGISTERED: its counted range (registration.c), NULL
                                             * where someone else registered the memory */
    PyObject *external;  /* MEMORY_EXTERNAL: the plugin's MemoryPointer, whose death frees the memory */
    int own_pages;       /* MEMORY_PINNED / MAPPED: host_pointer is our mmap, registered with the driver */
    rescue_state rescue; /* and, while not RESCUE_NONE, linked in the module's rescue list */
    void *rescue_copy;
    struct MemoryObject *rescue_next, *rescue_prev;
    PyObject *weakreflist;
} MemoryObject;

#endif
