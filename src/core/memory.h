/* memory.h: MemoryPointer, the owner of one allocation (device, pinned, mapped, managed or
 * registered host memory), and the context's deallocation queue. Arrays and views hold a
 * reference to the MemoryPointer; when the last goes, the free is queued (see memory.c). */
#ifndef NUMBA_CUDA_C_MEMORY_H
#define NUMBA_CUDA_C_MEMORY_H

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
    int own_pages; /* pinned or mapped host memory in pages of ours (memory.c): unregister, then unmap */
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
    Py_buffer registered; /* MEMORY_REGISTERED: the exporter's buffer, held until unregistered */
    struct host_registration *registration; /* MEMORY_REGISTERED: its counted range (registration.c), NULL
                                             * where someone else registered the memory */
    PyObject *external;   /* MEMORY_EXTERNAL: the plugin's MemoryPointer, whose death frees the memory */
    int own_pages;        /* MEMORY_PINNED / MAPPED: host_pointer is our mmap, registered with the driver */
    rescue_state rescue;  /* and, while not RESCUE_NONE, linked in the module's rescue list */
    void *rescue_copy;
    struct MemoryObject *rescue_next, *rescue_prev;
    PyObject *weakreflist;
} MemoryObject;

/* Allocations in `context`; each retries once after flushing the deallocation queue when the
 * driver is out of memory. New references. */
PyObject *memory_alloc_device(module_state *st, ContextObject *context, size_t size);
PyObject *memory_alloc_host(module_state *st, ContextObject *context, size_t size, int mapped, int portable,
                            int write_combined);
PyObject *memory_alloc_managed(module_state *st, ContextObject *context, size_t size, int attach_global);

/* The context's instance of the EMM plugin class, made (and initialize()d) at first use. Borrowed. */
PyObject *memory_manager_of(module_state *st, ContextObject *context);

/* Frees one allocation now; the context must be current. Runs without the GIL; *function names
 * the driver call made. (deallocations.c) */
CUresult memory_free_now(const struct pending_free *item, const char **function);

/* Queues the free of `item` on the context, flushing the queue past its limits. (deallocations.c) */
int memory_queue_free(module_state *st, ContextObject *context, const struct pending_free *item);

/* A stream, event or module handle whose object dies inside a stream callback, where the driver
 * must not be called: `destroy(handle)` runs in the context from the main thread at its next chance
 * (a pending call) or at the context's next flush. -1 with an error where it cannot be queued (the
 * handle is then left to the context's end). (deallocations.c) */
typedef CUresult (*handle_destroyer)(void *handle);
int memory_defer_destroy(module_state *st, ContextObject *context, handle_destroyer destroy, void *handle,
                         const char *function);

/* Frees everything queued on the context (not inside defer_cleanup()), and destroys the handles
 * deferred from stream callbacks. */
int memory_flush(module_state *st, ContextObject *context);

/* Calls numba_cuda_c.cudadrv.driver.<name>(*args) (the Python halves of numba's bookkeeping:
 * derived pointers, the deallocation queue's object, IPC through a plugin). Steals `args`, which
 * may be NULL (an error already set). New reference. */
PyObject *call_driver(module_state *st, const char *name, PyObject *args);

/* Before a context is released or reset (it must still be alive): frees everything queued on it,
 * defer_cleanup() or not, and unmaps the host pages of whatever the driver refused to free. */
void memory_context_dying(module_state *st, ContextObject *context);

/* Host memory that dies with its context (write-combined pinned or mapped memory, which only
 * cuMemHostAlloc makes, and managed memory) is watched from its allocation; when its context dies
 * its bytes move to pages of ours at the same address, so host arrays stay readable. (rescue.c) */
void memory_rescue_watch(module_state *st, MemoryObject *memory);
void memory_rescue_save(module_state *st, ContextObject *context); /* before the driver frees it */
void memory_rescue_restore(module_state *st);                      /* after the release or reset */
void memory_rescue_forget(module_state *st, MemoryObject *memory); /* when the MemoryPointer goes */

int memory_type_init(PyObject *module, module_state *st);
/* The byte limit of a context's deallocation queue: the ratio (NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO)
 * of the device's memory, at least 1. 0, or -1 with CudaAPIError. */
int memory_queue_byte_limit(module_state *st, ContextObject *context, size_t *limit);

extern PyMethodDef memory_module_methods[];

#endif
