/* deallocations.h: a context's deallocation queue (numba's "Deallocation Behavior"): frees wait
 * until the queue is long or large enough, then go at once; handles whose objects die in a stream
 * callback wait for the main thread. The Context methods and attributes of the queue are added to
 * Context here (_flush_pending, _defer, reset, deallocations, _pending). */
#ifndef NUMBA_CUDA_C_DEALLOCATIONS_H
#define NUMBA_CUDA_C_DEALLOCATIONS_H

#include "core/allocation.h"

/* Frees one allocation now; the context must be current. Runs without the GIL; *function names
 * the driver call made. (deallocations.c) */
CUresult memory_free_now(const struct pending_free *item, const char **function);

/* Frees one allocation now, in `context` (IN_CONTEXT), raising CudaAPIError where the driver
 * refused. (deallocations.c) */
int memory_free_in(module_state *st, ContextObject *context, const struct pending_free *item);

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

/* Before a context is released or reset (it must still be alive): frees everything queued on it,
 * defer_cleanup() or not, and unmaps the host pages of whatever the driver refused to free. */
void memory_context_dying(module_state *st, ContextObject *context);

/* The byte limit of a context's deallocation queue: the ratio (NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO)
 * of the device's memory, at least 1. 0, or -1 with CudaAPIError. */
int memory_queue_byte_limit(module_state *st, ContextObject *context, size_t *limit);

/* Registers the queue's Context methods and its context hooks. */
int deallocations_init(PyObject *module, module_state *st);

/* _defer_cleanup, _pending_deallocations, _flush_deallocations: the current context's queue. */
extern PyMethodDef deallocations_module_methods[];

#endif
