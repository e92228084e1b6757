/* deallocations.c: the context's deallocation queue (numba's "Deallocation Behavior"): frees
 * queued when the last reference goes, carried out at a flush (past the count or byte limits, on an
 * allocation that ran out of memory, at Context.reset(), when the context dies), never inside
 * defer_cleanup() nor from a stream callback's thread. The destruction order: memory.c's head. */
#include "core/deallocations.h"
#include "driver/python_helpers.h"
#include "core/rescue.h"

#include "driver/errors.h"
#include "driver/callbacks.h"

#include <sys/mman.h>

/* Frees one allocation; the context must be current. Runs without the GIL. */
CUresult memory_free_now(const struct pending_free *item, const char **function)
{
    *function = "nothing to free";
    switch (item->kind) {
    case MEMORY_DEVICE:
    case MEMORY_MANAGED:
        *function = "cuMemFree";
        return cu.cuMemFree(item->device_pointer);
    case MEMORY_PINNED:
    case MEMORY_MAPPED:
        if (item->own_pages) {
            *function = "cuMemHostUnregister";
            CUresult rc = cu.cuMemHostUnregister(item->host_pointer);
            munmap(item->host_pointer, item->size); /* ours whatever the driver says */
            return rc;
        }
        *function = "cuMemFreeHost";
        return cu.cuMemFreeHost(item->host_pointer);
    case MEMORY_REGISTERED:
        *function = "cuMemHostUnregister";
        return cu.cuMemHostUnregister(item->host_pointer);
    case MEMORY_POOLED:
        *function = "cuMemFreeAsync";
        return cu.cuMemFreeAsync(item->device_pointer, NULL);
    case MEMORY_IPC:
        *function = "cuIpcCloseMemHandle";
        return cu.cuIpcCloseMemHandle(item->device_pointer);
    case MEMORY_EXTERNAL: /* the plugin's own object frees it */
        break;
    }
    return CUDA_SUCCESS;
}

/* ---- handles of objects that died in a stream callback ---- */

struct deferred_destroy {
    handle_destroyer destroy;
    void *handle;
    const char *function;
};

/* Destroys the handles, the context current, without the GIL: the first failure's code, and its
 * call in *function. */
static CUresult destroy_all(const struct deferred_destroy *handles, size_t count, const char **function)
{
    CUresult failed_rc = CUDA_SUCCESS;
    for (size_t i = 0; i < count; i++) {
        CUresult rc = handles[i].destroy(handles[i].handle);
        if (rc != CUDA_SUCCESS && failed_rc == CUDA_SUCCESS) {
            failed_rc = rc;
            *function = handles[i].function;
        }
    }
    return failed_rc;
}

/* The same, with the GIL released (an unload synchronises the context: it can wait for a callback);
 * a failure is reported, never raised. */
static int destroy_handles(module_state *st, const struct deferred_destroy *handles, size_t count)
{
    const char *function = NULL;
    CUresult rc = CU_BLOCKING(destroy_all(handles, count, &function));
    cu_report_unraisable(st, rc, function);
    return 0;
}

/* Destroys the deferred handles in their context (a dead context destroyed them already). */
static void destroy_deferred(module_state *st, ContextObject *context)
{
    deallocation_queue *queue = &context->deallocations;
    if (queue->handle_count == 0 || stream_in_callback())
        return;
    struct deferred_destroy *handles = queue->handles;
    size_t count = queue->handle_count;
    queue->handles = NULL;
    queue->handle_count = queue->handle_capacity = 0;
    if (context->handle != NULL ? IN_CONTEXT(st, context, destroy_handles(st, handles, count) < 0) < 0
                                : PyErr_Occurred() != NULL)
        PyErr_WriteUnraisable(NULL);
    PyMem_Free(handles);
}

/* A pending call: runs in the main thread, outside any callback, holding a reference to the context. */
static int drain_deferred(void *arg)
{
    ContextObject *context = (ContextObject *)arg;
    context->deallocations.drain_scheduled = 0;
    destroy_deferred(state_of((PyObject *)context), context);
    Py_DECREF(context);
    return 0;
}

int memory_defer_destroy(module_state *st, ContextObject *context, handle_destroyer destroy, void *handle,
                         const char *function)
{
    (void)st;
    deallocation_queue *queue = &context->deallocations;
    if (queue->handle_count == queue->handle_capacity) {
        size_t capacity = queue->handle_capacity ? 2 * queue->handle_capacity : 8;
        struct deferred_destroy *handles = PyMem_Realloc(queue->handles, capacity * sizeof *handles);
        if (handles == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        queue->handles = handles;
        queue->handle_capacity = capacity;
    }
    queue->handles[queue->handle_count++] = (struct deferred_destroy){destroy, handle, function};
    if (!queue->drain_scheduled) { /* where it cannot be scheduled, the context's next flush does it */
        if (Py_AddPendingCall(drain_deferred, Py_NewRef((PyObject *)context)) == 0)
            queue->drain_scheduled = 1;
        else
            Py_DECREF(context);
    }
    return 0;
}

/* ---- the deallocation queue ---- */

/* Frees the items, the context current, without the GIL: the first failure's code, and its call in
 * *function. */
static CUresult free_all(const struct pending_free *items, size_t count, const char **function)
{
    CUresult failed_rc = CUDA_SUCCESS;
    for (size_t i = 0; i < count; i++) {
        const char *item_function;
        CUresult rc = memory_free_now(&items[i], &item_function);
        if (rc != CUDA_SUCCESS && failed_rc == CUDA_SUCCESS) {
            failed_rc = rc;
            *function = item_function;
        }
    }
    return failed_rc;
}

/* Frees everything queued, the context current, with the GIL released; a failure is reported, never
 * raised. The items are taken first: a free that re-enters (it cannot now, but cheaply safe) sees an
 * empty queue. */
static int free_queued(module_state *st, deallocation_queue *queue)
{
    struct pending_free *items = queue->items;
    size_t count = queue->count;
    queue->items = NULL;
    queue->count = queue->capacity = queue->bytes = 0;
    const char *function = NULL;
    CUresult rc = CU_BLOCKING(free_all(items, count, &function));
    PyMem_Free(items);
    cu_report_unraisable(st, rc, function);
    return 0;
}

int memory_free_in(module_state *st, ContextObject *context, const struct pending_free *item)
{
    CUresult rc = CUDA_SUCCESS;
    const char *function = NULL;
    int status = IN_CONTEXT(st, context, (rc = memory_free_now(item, &function), 0));
    return cu_check(st, rc, function) < 0 || status < 0 ? -1 : 0; /* the free's error before the exit's */
}

int memory_flush(module_state *st, ContextObject *context)
{
    deallocation_queue *queue = &context->deallocations;
    destroy_deferred(st, context);
    if (queue->count == 0 || queue->deferred > 0 || context->handle == NULL || stream_in_callback())
        return 0; /* in a stream callback the driver must not be called: the next flush elsewhere frees them */
    return IN_CONTEXT(st, context, free_queued(st, queue) < 0);
}

void memory_context_dying(module_state *st, ContextObject *context)
{
    deallocation_queue *queue = &context->deallocations;
    int deferred = queue->deferred;
    queue->deferred = 0;
    if (memory_flush(st, context) < 0) /* the context refused to be made current */
        PyErr_WriteUnraisable(NULL);
    queue->deferred = deferred;
    for (size_t i = 0; i < queue->count; i++)
        if (queue->items[i].own_pages) /* the release unregisters them; the pages stay ours */
            munmap(queue->items[i].host_pointer, queue->items[i].size);
    queue->count = 0;
    queue->bytes = 0;
    memory_rescue_save(st, context);
}

int memory_queue_free(module_state *st, ContextObject *context, const struct pending_free *item)
{
    deallocation_queue *queue = &context->deallocations;
    if (queue->count == queue->capacity) {
        size_t capacity = queue->capacity ? 2 * queue->capacity : 16;
        struct pending_free *items = PyMem_Realloc(queue->items, capacity * sizeof *items);
        if (items == NULL) /* no room to queue: free at once */
            return memory_free_in(st, context, item);
        queue->items = items;
        queue->capacity = capacity;
    }
    queue->items[queue->count++] = *item;
    queue->bytes += item->size;
    if (queue->count > st->max_pending_count || (queue->max_bytes && queue->bytes > queue->max_bytes))
        return memory_flush(st, context);
    return 0;
}

/* numba's Context.reset() frees what the context owns. Live arrays keep their memory (they own
 * it); the frees waiting in the deallocation queue run now, defer_cleanup() or not. */
/* Kernels linked with numba's setup/teardown callbacks are torn down at reset, as numba-cuda unloads
 * its modules then (numba_cuda_c/toolchain/linker.py); only where such linking was ever done. */
static int reset_linked_with_callbacks(PyObject *context)
{
    PyObject *reset = python_helper_if_loaded(HELPER_LINKER_CONTEXT_RESET);
    if (reset == NULL)
        return 0;
    PyObject *done = PyObject_CallOneArg(reset, context);
    Py_DECREF(reset);
    Py_XDECREF(done);
    return done == NULL ? -1 : 0;
}

static PyObject *Context_reset(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    if (reset_linked_with_callbacks(op) < 0)
        return NULL;
    if (self->memory_manager != NULL) { /* a plugin frees what it allocated */
        PyObject *done = PyObject_CallMethod(self->memory_manager, "reset", NULL);
        if (done == NULL)
            return NULL;
        Py_DECREF(done);
    }
    int deferred = self->deallocations.deferred;
    self->deallocations.deferred = 0;
    int failed = memory_flush(st, self) < 0;
    self->deallocations.deferred = deferred;
    if (st->last_context == self)
        Py_CLEAR(st->last_context);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

/* _flush_pending(): frees what is queued now (not while deferred); _defer(delta): enter/leave
 * defer_cleanup() for this context. */
static PyObject *Context_flush_pending(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return memory_flush(state_of(op), (ContextObject *)op) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *Context_defer(PyObject *op, PyObject *delta_obj)
{
    deallocation_queue *queue = &((ContextObject *)op)->deallocations;
    int delta;
    if (int_from_object(delta_obj, &delta, "delta") < 0)
        return NULL;
    queue->deferred = queue->deferred + delta < 0 ? 0 : queue->deferred + delta;
    Py_RETURN_NONE;
}

/* The Context methods of this file, added to Context at init (context.c calls none of them). */
static PyMethodDef Context_deallocation_methods[] = {
    {"_flush_pending", Context_flush_pending, METH_NOARGS, "Free what the deallocation queue holds, now."},
    {"_defer", Context_defer, METH_O, "_defer(+1 / -1): enter or leave defer_cleanup() for this context."},
    {"reset", Context_reset, METH_NOARGS, "Clean up all owned resources in this context."},
    {0},
};

/* deallocations: numba's pending-deallocation queue object (count, clear(), disable(), ...). */
static PyObject *Context_get_deallocations(PyObject *op, void *Py_UNUSED(closure))
{
    return python_call(state_of(op), HELPER_PENDING_DEALLOCATIONS, PyTuple_Pack(1, op));
}

/* _pending: (count, bytes, max_bytes, deferred) of this context's deallocation queue. */
static PyObject *Context_get_pending(PyObject *op, void *Py_UNUSED(closure))
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    deallocation_queue *queue = &self->deallocations;
    size_t max_bytes = queue->max_bytes;
    /* set at the context's first allocation: before it, what it will be */
    if (max_bytes == 0 && memory_queue_byte_limit(st, self, &max_bytes) < 0)
        return NULL;
    return Py_BuildValue("(nnni)", (Py_ssize_t)queue->count, (Py_ssize_t)queue->bytes, (Py_ssize_t)max_bytes,
                         queue->deferred);
}

static PyGetSetDef Context_deallocation_getset[] = {
    {"deallocations", Context_get_deallocations, NULL, "The pending-deallocation queue, as numba's.", NULL},
    {"_pending", Context_get_pending, NULL, "(count, bytes, max_bytes, deferred) of the queue.", NULL},
    {0},
};

int memory_queue_byte_limit(module_state *st, ContextObject *context, size_t *limit)
{
    size_t total = 0;
    if (CU_CALL(st, cuDeviceTotalMem, (&total, context->device->handle)) < 0)
        return -1;
    *limit = (size_t)((double)total * st->max_pending_ratio);
    if (*limit == 0)
        *limit = 1;
    return 0;
}

/* Module functions: the current context's queue. */

static PyObject *module_defer_cleanup(PyObject *module, PyObject *delta_obj)
{
    module_state *st = state_of_module(module);
    int delta;
    if (int_from_object(delta_obj, &delta, "delta") < 0)
        return NULL;
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    context->deallocations.deferred += delta;
    if (context->deallocations.deferred < 0)
        context->deallocations.deferred = 0;
    Py_RETURN_NONE;
}

static PyObject *module_pending_deallocations(PyObject *module, PyObject *Py_UNUSED(unused))
{
    ContextObject *context = context_current(state_of_module(module));
    if (context == NULL)
        return NULL;
    return Py_BuildValue("(nn)", (Py_ssize_t)context->deallocations.count,
                         (Py_ssize_t)context->deallocations.bytes);
}

static PyObject *module_flush_deallocations(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    ContextObject *context = context_current(st);
    if (context == NULL || memory_flush(st, context) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef deallocations_module_methods[] = {
    {"_defer_cleanup", module_defer_cleanup, METH_O, "Enter (+1) or leave (-1) defer_cleanup()."},
    {"_pending_deallocations", module_pending_deallocations, METH_NOARGS,
     "(count, bytes) of frees queued on the current context."},
    {"_flush_deallocations", module_flush_deallocations, METH_NOARGS, "Free everything queued, now."},
    {0},
};

int deallocations_init(PyObject *Py_UNUSED(module), module_state *st)
{
    static const context_hooks hooks = {.dying = memory_context_dying};
    if (type_add_methods(st->ContextType, Context_deallocation_methods) < 0 ||
        type_add_getset(st->ContextType, Context_deallocation_getset) < 0)
        return -1;
    return context_add_hooks(&hooks);
}
