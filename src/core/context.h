/* context.h: Context, a device's primary context as numba wraps it, and the per-thread
 * notion of "current" (the driver's own context stack, cuCtxGetCurrent). */
#ifndef NUMBA_CUDA_C_CONTEXT_H
#define NUMBA_CUDA_C_CONTEXT_H

#include "core/device.h"
#include "driver/errors.h"

/* numba's "Deallocation Behavior": frees wait here until there are more than max_count of them or
 * they hold more than max_bytes, then all go at once; never inside defer_cleanup() (deallocations.c). */
typedef struct {
    struct pending_free *items;
    size_t count, capacity;
    size_t bytes;
    size_t max_bytes;   /* ratio x the device's memory, known at the first allocation */
    int deferred;       /* defer_cleanup() nesting depth */
    CUdeviceptr anchor; /* see queue_limits() in memory_alloc.c */
    /* stream, event and module handles whose objects died in a stream callback (deallocations.c) */
    struct deferred_destroy *handles;
    size_t handle_count, handle_capacity;
    int drain_scheduled; /* a pending call will destroy them */
} deallocation_queue;

struct ContextObject {
    PyObject_HEAD
    DeviceObject *device;
    CUcontext handle; /* NULL once the context was released or reset: the object is then dead */
    deallocation_queue deallocations;
    PyObject *memory_manager;     /* the EMM plugin's instance for this context, or NULL (memory_alloc.c) */
    struct staging_ring *staging; /* the pinned ring of large copies of pageable memory (copies.c), or NULL */
    int staging_users;  /* copies using the ring with the GIL released: context_free_staging waits for them */
    int staging_closed; /* set by context_free_staging: no new ring */
    unsigned long long peers_enabled; /* bit d: device d's primary context is reachable from here */
    unsigned long long peers_refused; /* bit d: cuDeviceCanAccessPeer says device d is not */
    PyObject *weakreflist;
};

/* The device's primary context, retained (once per process) at first use: its Context. Borrowed. */
ContextObject *device_primary_context(module_state *st, DeviceObject *device);

/* What the layers above do as a context goes, registered at module init (each layer's init), so
 * that this file calls none of them by name:
 *   dying(st, context): before the context's handle goes (deallocations.c frees what waits);
 *   released(st): after the driver released or reset a primary context (rescue.c restores the
 *   host memory the driver unmapped). Either may be NULL. */
typedef struct {
    void (*dying)(module_state *st, ContextObject *context);
    void (*released)(module_state *st);
} context_hooks;
int context_add_hooks(const context_hooks *hooks);

/* Creates the Context object for a primary context this process has just retained. */
ContextObject *context_new(module_state *st, DeviceObject *device, CUcontext handle);

/* The context current on this thread, made current (device 0's primary) if none is. Borrowed.
 * numba's devices.get_context() with no device number. */
ContextObject *context_current(module_state *st);

/* Makes device devnum's primary context current by pushing it. Borrowed. numba's get_context(devnum). */
ContextObject *context_activate(module_state *st, int devnum);

/* Raises CudaDriverError if the context was reset or released. */
static inline int context_check_alive(module_state *st, ContextObject *context)
{
    if (context->handle != NULL)
        return 0;
    PyErr_SetString(st->CudaDriverError, "the CUDA context was reset or closed: objects made in it are invalid");
    return -1;
}

/* Frees the context's staging ring, if it has one (with the context still alive), once the copies
 * using it are done (it releases the GIL to wait for them); no new ring is made after. */
void context_free_staging(module_state *st, ContextObject *context);

/* Marks the context dead (after release or reset) and drops the module's cache of it. */
void context_mark_dead(module_state *st, ContextObject *context);

/* Lets kernels and copies in `context` reach `peer`'s memory (cuCtxEnablePeerAccess, once per pair
 * of devices). 1: done; 0: the devices cannot (cuDeviceCanAccessPeer); -1 with an error. */
int context_enable_peer(module_state *st, ContextObject *context, ContextObject *peer);

/* Makes `context` current for a call that acts on the current context, pushing it only where
 * another is current (one cuCtxGetCurrent where it is current already); context_exit pops what
 * context_enter pushed. Call them through IN_CONTEXT below. */
int context_enter(module_state *st, ContextObject *context, int *pushed);
int context_exit(module_state *st, int pushed);

/* Driver calls in a context, the one way (docs/ARCHITECTURE.md, "Calling the driver"):
 *   CU_CALL_IN(st, context, cuFoo, (args))           one call, as CU_CALL;
 *   CU_BLOCKING_CALL_IN(st, context, cuFoo, (args))  one call that can block, the GIL released;
 *   IN_CONTEXT(st, context, failed)                  anything else: `failed` is an expression, nonzero
 *     with an exception set where a step failed: CU_CALLs joined by ||; cu_check(st, CU_BLOCKING(f(..)),
 *     "cuFoo") < 0 for several calls under one release of the GIL; a static function of the caller's
 *     that makes several calls and cleans up after them, returning -1 / 0; or (rc = CU_RESULT(..), 0)
 *     where the caller reads the code itself. It is evaluated only in the entered context.
 * Each enters the context (context_enter: raises CudaDriverError where it is dead), evaluates the
 * call(s), leaves it, and gives 0, or -1 with the exception of the step that failed. */
#define IN_CONTEXT(st, context, failed)                                                                            \
    __extension__({                                                                                                \
        int in_context_pushed_, in_context_status_ = context_enter((st), (context), &in_context_pushed_);          \
        if (in_context_status_ == 0) {                                                                             \
            in_context_status_ = (failed) ? -1 : 0;                                                                \
            if (context_exit((st), in_context_pushed_) < 0)                                                        \
                in_context_status_ = -1;                                                                           \
        }                                                                                                          \
        in_context_status_;                                                                                        \
    })
#define CU_CALL_IN(st, context, fn, args) IN_CONTEXT((st), (context), CU_CALL((st), fn, args) < 0)
#define CU_BLOCKING_CALL_IN(st, context, fn, args) IN_CONTEXT((st), (context), CU_BLOCKING_CALL((st), fn, args) < 0)

int context_type_init(PyObject *module, module_state *st);
extern PyMethodDef context_module_methods[];

#endif
