/* context.c: Context (numba.cuda.cudadrv.driver.Context), the primary context of one device,
 * and the per-thread current context. "Current" is the driver's own per-thread stack
 * (cuCtxGetCurrent), so a new thread starts with none, as in numba. */
#include "core/context.h"

#include "driver/errors.h"
#include "core/event.h"
#include "core/memory.h"
#include "core/staging.h"
#include "core/stream.h"

#include <sched.h>
#include <structmember.h>

ContextObject *context_new(module_state *st, DeviceObject *device, CUcontext handle)
{
    ContextObject *self = PyObject_GC_New(ContextObject, st->ContextType);
    if (self == NULL)
        return NULL;
    self->device = (DeviceObject *)Py_NewRef((PyObject *)device);
    self->handle = handle;
    memset(&self->deallocations, 0, sizeof self->deallocations);
    self->memory_manager = NULL;
    self->staging = NULL;
    self->staging_users = self->staging_closed = 0;
    self->peers_enabled = self->peers_refused = 0;
    self->weakreflist = NULL;
    PyObject_GC_Track(self);
    return self;
}

void context_free_staging(module_state *st, ContextObject *context)
{
    staging_ring *ring = context->staging;
    CUcontext popped;
    context->staging_closed = 1;
    context->staging = NULL;
    /* Copies through the ring, and a ring being made, run without the GIL, each counted in
     * staging_users from before it releases the GIL until after it takes it back; copies hold
     * ring->lock while they run. */
    while (context->staging_users > 0) {
        Py_BEGIN_ALLOW_THREADS
        if (ring != NULL) {
            pthread_mutex_lock(&ring->lock);
            pthread_mutex_unlock(&ring->lock);
        }
        sched_yield();
        Py_END_ALLOW_THREADS
    }
    if (ring == NULL)
        return;
    /* A context in a sticky error state refuses; its release or reset frees the memory anyway. */
    if (context->handle != NULL && cu.cuCtxPushCurrent(context->handle) == CUDA_SUCCESS) {
        staging_ring_destroy(ring);
        cu_report_unraisable(st, cu.cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
    }
    PyMem_RawFree(ring);
}

void context_mark_dead(module_state *st, ContextObject *context)
{
    if (context->handle != NULL)
        memory_context_dying(st, context); /* while the context can still free what waits */
    context->handle = NULL;
    if (st->last_context == context)
        Py_CLEAR(st->last_context);
    /* peer access to it went with it: its device's next context must be enabled anew */
    int id = context->device->id;
    for (Py_ssize_t i = 0; id < 64 && st->devices != NULL && i < PyTuple_GET_SIZE(st->devices); i++) {
        ContextObject *other = ((DeviceObject *)PyTuple_GET_ITEM(st->devices, i))->primary_context;
        if (other != NULL)
            other->peers_enabled &= ~(1ULL << id);
    }
}

int context_enable_peer(module_state *st, ContextObject *context, ContextObject *peer)
{
    int id = peer->device->id;
    unsigned long long bit = id < 64 ? 1ULL << id : 0;
    if (context->device == peer->device || (context->peers_enabled & bit))
        return 1;
    if (context->peers_refused & bit)
        return 0;
    int can = 0, pushed;
    if (context_check_alive(st, peer) < 0 ||
        CU_CALL(st, cuDeviceCanAccessPeer, (&can, context->device->handle, peer->device->handle)) < 0)
        return -1;
    if (!can) {
        context->peers_refused |= bit;
        return 0;
    }
    if (context_enter(st, context, &pushed) < 0)
        return -1;
    CUresult rc;
    CU_UNBLOCKED(rc, cu.cuCtxEnablePeerAccess(peer->handle, 0));
    int failed = rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED && cu_check(st, rc, "cuCtxEnablePeerAccess") < 0;
    if (context_exit(st, pushed) < 0 || failed)
        return -1;
    context->peers_enabled |= bit;
    return 1;
}

static void context_remember(module_state *st, ContextObject *context)
{
    Py_XSETREF(st->last_context, (ContextObject *)Py_NewRef((PyObject *)context));
}

ContextObject *context_activate(module_state *st, int devnum)
{
    DeviceObject *device = device_get(st, devnum);
    if (device == NULL)
        return NULL;
    ContextObject *context = Device_primary_context(st, device);
    if (context == NULL || CU_CALL(st, cuCtxPushCurrent, (context->handle)) < 0)
        return NULL;
    context_remember(st, context);
    return context;
}

ContextObject *context_current(module_state *st)
{
    if (cu_require_driver(st) < 0)
        return NULL;
    CUcontext handle = NULL;
    if (CU_CALL(st, cuCtxGetCurrent, (&handle)) < 0)
        return NULL;
    if (handle == NULL)
        return context_activate(st, 0);
    if (st->last_context != NULL && st->last_context->handle == handle)
        return st->last_context;

    CUdevice ordinal;
    if (CU_CALL(st, cuCtxGetDevice, (&ordinal)) < 0)
        return NULL;
    PyObject *devices = devices_all(st);
    if (devices == NULL)
        return NULL;
    Py_DECREF(devices); /* the module state keeps them */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(st->devices); i++) {
        DeviceObject *device = (DeviceObject *)PyTuple_GET_ITEM(st->devices, i);
        if (device->handle != ordinal)
            continue;
        ContextObject *context = Device_primary_context(st, device);
        if (context == NULL)
            return NULL;
        if (context->handle != handle) {
            /* numba's words, which users and tests look for */
            PyErr_Format(PyExc_RuntimeError,
                         "Numba cannot operate on non-primary CUDA context %p (numba_cuda_c, as numba, works in "
                         "primary contexts)",
                         handle);
            return NULL;
        }
        context_remember(st, context);
        return context;
    }
    PyErr_Format(PyExc_RuntimeError, "the current CUDA context %p belongs to an unknown device", handle);
    return NULL;
}

int context_enter(module_state *st, ContextObject *context, int *pushed)
{
    CUcontext current = NULL;
    *pushed = 0;
    if (context_check_alive(st, context) < 0 || CU_CALL(st, cuCtxGetCurrent, (&current)) < 0)
        return -1;
    if (current == context->handle)
        return 0;
    if (CU_CALL(st, cuCtxPushCurrent, (context->handle)) < 0)
        return -1;
    *pushed = 1;
    return 0;
}

int context_exit(module_state *st, int pushed)
{
    CUcontext popped;
    return pushed ? CU_CALL(st, cuCtxPopCurrent, (&popped)) : 0;
}

/* Methods */

/* numba's Context.memalloc, memhostalloc and memallocmanaged: raw allocations (MemoryPointer objects)
 * through the same allocators, deallocation queue and memory manager as device arrays. */
static int size_argument(PyObject *arg, size_t *size)
{
    Py_ssize_t value = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (value <= 0) {
        PyErr_Format(PyExc_ValueError, "bytesize must be positive, not %zd", value);
        return -1;
    }
    *size = (size_t)value;
    return 0;
}

static PyObject *Context_memalloc(PyObject *op, PyObject *arg)
{
    module_state *st = state_of(op);
    size_t size;
    if (context_check_alive(st, (ContextObject *)op) < 0 || size_argument(arg, &size) < 0)
        return NULL;
    return memory_alloc_device(st, (ContextObject *)op, size);
}

static PyObject *Context_memhostalloc(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"bytesize", "mapped", "portable", "wc", NULL};
    module_state *st = state_of(op);
    PyObject *bytesize;
    int mapped = 0, portable = 0, wc = 0;
    size_t size;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ppp:memhostalloc", keywords, &bytesize, &mapped, &portable,
                                     &wc) ||
        context_check_alive(st, (ContextObject *)op) < 0 || size_argument(bytesize, &size) < 0)
        return NULL;
    return memory_alloc_host(st, (ContextObject *)op, size, mapped, portable, wc);
}

static PyObject *Context_memallocmanaged(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"bytesize", "attach_global", NULL};
    module_state *st = state_of(op);
    PyObject *bytesize;
    int attach_global = 1;
    size_t size;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:memallocmanaged", keywords, &bytesize, &attach_global) ||
        context_check_alive(st, (ContextObject *)op) < 0 || size_argument(bytesize, &size) < 0)
        return NULL;
    return memory_alloc_managed(st, (ContextObject *)op, size, attach_global);
}

static PyObject *Context_get_memory_info(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    if (st->memory_plugin != NULL || ((ContextObject *)op)->memory_manager != NULL) { /* numba asks the manager */
        PyObject *manager = memory_manager_of(st, (ContextObject *)op);
        return manager ? PyObject_CallMethod(manager, "get_memory_info", NULL) : NULL;
    }
    size_t free_bytes = 0, total_bytes = 0;
    int pushed;
    if (context_enter(st, (ContextObject *)op, &pushed) < 0)
        return NULL;
    int failed = CU_CALL(st, cuMemGetInfo, (&free_bytes, &total_bytes)) < 0;
    if (context_exit(st, pushed) < 0 || failed)
        return NULL;
    return PyObject_CallFunction((PyObject *)st->MemoryInfoType, "nn", (Py_ssize_t)free_bytes, (Py_ssize_t)total_bytes);
}

static PyObject *Context_push(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    if (context_check_alive(st, self) < 0 || CU_CALL(st, cuCtxPushCurrent, (self->handle)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Context_pop(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    CUcontext current = NULL, popped = NULL;
    if (context_check_alive(st, self) < 0 || cu_require_driver(st) < 0 ||
        CU_CALL(st, cuCtxGetCurrent, (&current)) < 0)
        return NULL;
    if (current != self->handle) {
        PyErr_SetString(PyExc_RuntimeError,
                        "cannot pop this context: it is not at the top of the current thread's context stack");
        return NULL;
    }
    if (CU_CALL(st, cuCtxPopCurrent, (&popped)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Context_synchronize(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    int pushed;
    CUresult rc;
    if (context_enter(st, (ContextObject *)op, &pushed) < 0)
        return NULL;
    CU_BEGIN_ALLOW_THREADS
    rc = cu.cuCtxSynchronize();
    CU_END_ALLOW_THREADS
    int failed = cu_check(st, rc, "cuCtxSynchronize") < 0;
    if (context_exit(st, pushed) < 0 || failed)
        return NULL;
    Py_RETURN_NONE;
}

/* numba's Context.reset() frees what the context owns. Live arrays keep their memory (they own
 * it); the frees waiting in the deallocation queue run now, defer_cleanup() or not. */
/* Kernels linked with numba's setup/teardown callbacks are torn down at reset, as numba-cuda unloads
 * its modules then (numba_cuda_c/cudadrv/linker.py); only where such linking was ever done. */
static int reset_linked_with_callbacks(PyObject *context)
{
    PyObject *name = PyUnicode_FromString("numba_cuda_c.cudadrv.linker");
    PyObject *linker = name ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    if (linker == NULL)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *done = PyObject_CallMethod(linker, "context_reset", "O", context);
    Py_DECREF(linker);
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

/* numba's Context.can_access_peer(peer_device): whether this device can reach the other's memory. */
static PyObject *Context_can_access_peer(PyObject *op, PyObject *arg)
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    int devnum, can = 0;
    if (int_from_object(arg, &devnum, "peer_device") < 0)
        return NULL;
    DeviceObject *peer = device_get(st, devnum);
    if (peer == NULL || CU_CALL(st, cuDeviceCanAccessPeer, (&can, self->device->handle, peer->handle)) < 0)
        return NULL;
    return PyBool_FromLong(can);
}

/* numba's Context.enable_peer_access(peer_context, flags=0). */
static PyObject *Context_enable_peer_access(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"peer_context", "flags", NULL};
    module_state *st = state_of(op);
    PyObject *peer;
    int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|i:enable_peer_access", keywords, &peer, &flags))
        return NULL;
    if (!Py_IS_TYPE(peer, st->ContextType)) {
        PyErr_Format(PyExc_TypeError, "peer_context must be a Context, not %.100s", Py_TYPE(peer)->tp_name);
        return NULL;
    }
    if (flags != 0) {
        PyErr_SetString(PyExc_ValueError, "flags is reserved and must be 0");
        return NULL;
    }
    int done = context_check_alive(st, (ContextObject *)op) < 0 ? -1
                                                                  : context_enable_peer(st, (ContextObject *)op, (ContextObject *)peer);
    if (done < 0)
        return NULL;
    if (done == 0) {
        cu_raise(st, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "cuCtxEnablePeerAccess");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Context_prepare_for_use(PyObject *op, PyObject *Py_UNUSED(unused))
{
    if (context_check_alive(state_of(op), (ContextObject *)op) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Context_create_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_create(state_of(op), (ContextObject *)op);
}

static PyObject *Context_create_external_stream(PyObject *op, PyObject *ptr)
{
    module_state *st = state_of(op);
    void *handle = PyLong_AsVoidPtr(ptr);
    if (handle == NULL && PyErr_Occurred())
        return NULL;
    return stream_new(st, (ContextObject *)op, (CUstream)handle, STREAM_EXTERNAL);
}

static PyObject *Context_get_default_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_default(state_of(op), (ContextObject *)op);
}

static PyObject *Context_get_legacy_default_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_new(state_of(op), (ContextObject *)op, CU_STREAM_LEGACY, STREAM_LEGACY);
}

static PyObject *Context_get_per_thread_default_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_new(state_of(op), (ContextObject *)op, CU_STREAM_PER_THREAD, STREAM_PER_THREAD);
}

static PyObject *Context_create_event(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"timing", NULL};
    int timing = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:create_event", keywords, &timing))
        return NULL;
    return event_create(state_of(op), (ContextObject *)op, timing);
}

/* memory_manager: the plugin's instance, or (no plugin) an object for numba's built-in manager,
 * whose .deallocations is this context's queue. Writable, as numba's: a plugin instance given
 * here is initialize()d and allocates this context's device memory from then on; None (or the
 * built-in manager's object) goes back to the default. */
static PyObject *Context_get_memory_manager(PyObject *op, void *Py_UNUSED(closure))
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    if (st->memory_plugin == NULL && self->memory_manager == NULL)
        return call_driver(st, "_builtin_memory_manager", PyTuple_Pack(1, op));
    PyObject *manager = memory_manager_of(st, self);
    return manager ? Py_NewRef(manager) : NULL;
}

static int Context_set_memory_manager(PyObject *op, PyObject *value, void *Py_UNUSED(closure))
{
    ContextObject *self = (ContextObject *)op;
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "memory_manager cannot be deleted; set None for the default");
        return -1;
    }
    int builtin = value == Py_None || PyObject_HasAttrString(value, "_numba_cuda_c_builtin");
    if (builtin) {
        Py_CLEAR(self->memory_manager);
        return 0;
    }
    PyObject *done = PyObject_CallMethod(value, "initialize", NULL);
    if (done == NULL)
        return -1;
    Py_DECREF(done);
    Py_XSETREF(self->memory_manager, Py_NewRef(value));
    return 0;
}

/* deallocations: numba's pending-deallocation queue object (count, clear(), disable(), ...). */
static PyObject *Context_get_deallocations(PyObject *op, void *Py_UNUSED(closure))
{
    return call_driver(state_of(op), "_pending_deallocations", PyTuple_Pack(1, op));
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

/* mempin(owner, pointer, size, mapped=False) and get_ipc_handle(memory), as numba's Context. */
static PyObject *Context_mempin(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"owner", "pointer", "size", "mapped", NULL};
    PyObject *owner, *pointer, *size;
    int mapped = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|p:mempin", keywords, &owner, &pointer, &size, &mapped))
        return NULL;
    return call_driver(state_of(op), "_context_mempin",
                       Py_BuildValue("(OOOOO)", op, owner, pointer, size, mapped ? Py_True : Py_False));
}

static PyObject *Context_get_ipc_handle(PyObject *op, PyObject *memory)
{
    return call_driver(state_of(op), "_context_get_ipc_handle", PyTuple_Pack(2, op, memory));
}

static PyObject *Context_open_ipc_handle(PyObject *op, PyObject *args)
{
    PyObject *handle, *size;
    if (!PyArg_ParseTuple(args, "OO:open_ipc_handle", &handle, &size))
        return NULL;
    return call_driver(state_of(op), "_context_open_ipc_handle", PyTuple_Pack(3, op, handle, size));
}

/* Context(device, handle), as numba's constructor, for a context another library made: the device
 * (a Device, an ordinal, or cuda-python's CUdevice) and the handle (an int or a CUcontext). A
 * device's primary context gives the Context object of that context; numba works in no other. */
static PyObject *Context_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"device", "handle", NULL};
    module_state *st = state_of_type(type);
    PyObject *device_obj, *handle_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Context", keywords, &device_obj, &handle_obj))
        return NULL;
    PyObject *ordinal_obj = PyObject_TypeCheck(device_obj, st->DeviceType)
                                ? PyLong_FromLong(((DeviceObject *)device_obj)->id)
                                : PyNumber_Index(device_obj); /* an int, or cuda-python's CUdevice (__index__) */
    if (ordinal_obj == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) { /* cuda.gpus[i]: it has .id */
        PyErr_Clear();
        ordinal_obj = PyObject_HasAttrString(device_obj, "id") ? PyObject_GetAttrString(device_obj, "id")
                                                                : PyNumber_Long(device_obj); /* cuda-python's */
    }
    PyObject *handle_int = ordinal_obj ? PyNumber_Long(handle_obj) : NULL;
    int ordinal = -1;
    void *handle = NULL;
    if (handle_int != NULL && int_from_object(ordinal_obj, &ordinal, "device") == 0)
        handle = PyLong_AsVoidPtr(handle_int);
    Py_XDECREF(ordinal_obj);
    Py_XDECREF(handle_int);
    if (PyErr_Occurred())
        return NULL;
    DeviceObject *device = device_get(st, ordinal);
    ContextObject *context = device ? Device_primary_context(st, device) : NULL;
    if (context == NULL)
        return NULL;
    if (context->handle != (CUcontext)handle) {
        PyErr_Format(PyExc_RuntimeError, "Numba cannot operate on non-primary CUDA context %p", handle);
        return NULL;
    }
    return Py_NewRef((PyObject *)context);
}

static PyObject *Context_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((ContextObject *)op)->handle);
}

static PyObject *Context_get_device(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef((PyObject *)((ContextObject *)op)->device);
}

static PyObject *Context_repr(PyObject *op)
{
    ContextObject *self = (ContextObject *)op;
    if (self->handle == NULL)
        return PyUnicode_FromFormat("<CUDA context (reset) of device %d>", self->device->id);
    return PyUnicode_FromFormat("<CUDA context %p of device %d>", self->handle, self->device->id);
}

static int Context_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(((ContextObject *)op)->device);
    Py_VISIT(((ContextObject *)op)->memory_manager);
    return 0;
}

static int Context_clear(PyObject *op)
{
    Py_CLEAR(((ContextObject *)op)->device);
    Py_CLEAR(((ContextObject *)op)->memory_manager);
    return 0;
}

static void Context_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (((ContextObject *)op)->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    Context_clear(op);
    PyMem_Free(((ContextObject *)op)->deallocations.items); /* a dead context freed them itself */
    PyMem_Free(((ContextObject *)op)->deallocations.handles);
    if (((ContextObject *)op)->staging != NULL) { /* not freed with the context: its workers still wait */
        staging_ring_abandon(((ContextObject *)op)->staging);
        PyMem_RawFree(((ContextObject *)op)->staging);
    }
    type->tp_free(op);
    Py_DECREF(type);
}

static PyMethodDef Context_methods[] = {
    REPR_HTML_METHOD,
    {"get_memory_info", Context_get_memory_info, METH_NOARGS, "Returns (free, total) memory in bytes in the context."},
    {"memalloc", Context_memalloc, METH_O, "memalloc(bytesize): device memory, a MemoryPointer."},
    {"memhostalloc", (PyCFunction)(void (*)(void))Context_memhostalloc, METH_VARARGS | METH_KEYWORDS,
     "memhostalloc(bytesize, mapped=False, portable=False, wc=False): pinned (or mapped) host memory."},
    {"memallocmanaged", (PyCFunction)(void (*)(void))Context_memallocmanaged, METH_VARARGS | METH_KEYWORDS,
     "memallocmanaged(bytesize, attach_global=True): managed memory."},
    {"mempin", (PyCFunction)(void (*)(void))Context_mempin, METH_VARARGS | METH_KEYWORDS,
     "mempin(owner, pointer, size, mapped=False): page-lock owner's memory; a MemoryPointer."},
    {"get_ipc_handle", Context_get_ipc_handle, METH_O, "get_ipc_handle(memory): an IPC handle for memory."},
    {"open_ipc_handle", Context_open_ipc_handle, METH_VARARGS,
     "open_ipc_handle(handle, size): another process's memory, mapped into this context (a MemoryPointer)."},
    {"_flush_pending", Context_flush_pending, METH_NOARGS, "Free what the deallocation queue holds, now."},
    {"_defer", Context_defer, METH_O, "_defer(+1 / -1): enter or leave defer_cleanup() for this context."},
    {"push", Context_push, METH_NOARGS, "Pushes this context on the current CPU thread."},
    {"pop", Context_pop, METH_NOARGS,
     "Pops this context off the current CPU thread. It must be at the top of the context stack."},
    {"synchronize", Context_synchronize, METH_NOARGS, "Wait for all work in this context to finish."},
    {"reset", Context_reset, METH_NOARGS, "Clean up all owned resources in this context."},
    {"can_access_peer", Context_can_access_peer, METH_O,
     "can_access_peer(peer_device): whether this context's device can access the memory of device peer_device."},
    {"enable_peer_access", (PyCFunction)(void (*)(void))Context_enable_peer_access, METH_VARARGS | METH_KEYWORDS,
     "enable_peer_access(peer_context, flags=0): let this context access the peer context's memory."},
    {"prepare_for_use", Context_prepare_for_use, METH_NOARGS, "Check that the context can be used."},
    {"create_stream", Context_create_stream, METH_NOARGS, "Create a new stream in this context."},
    {"create_external_stream", Context_create_external_stream, METH_O, "Wrap a stream made elsewhere."},
    {"get_default_stream", Context_get_default_stream, METH_NOARGS, "The default stream of this context."},
    {"get_legacy_default_stream", Context_get_legacy_default_stream, METH_NOARGS, "The legacy default stream."},
    {"get_per_thread_default_stream", Context_get_per_thread_default_stream, METH_NOARGS,
     "The per-thread default stream."},
    {"create_event", (PyCFunction)(void (*)(void))Context_create_event, METH_VARARGS | METH_KEYWORDS,
     "create_event(timing=True): a new event in this context."},
    {0},
};

static PyGetSetDef Context_getset[] = {
    {"handle", Context_get_handle, NULL, "The CUcontext, as an int (0 once reset).", NULL},
    {"device", Context_get_device, NULL, "The Device this context belongs to.", NULL},
    {"memory_manager", Context_get_memory_manager, Context_set_memory_manager,
     "The memory manager: an EMM plugin's instance, or the built-in one's object. Writable.", NULL},
    {"deallocations", Context_get_deallocations, NULL, "The pending-deallocation queue, as numba's.", NULL},
    {"_pending", Context_get_pending, NULL, "(count, bytes, max_bytes, deferred) of the queue.", NULL},
    {0},
};

static PyMemberDef Context_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ContextObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot Context_slots[] = {
    {Py_tp_doc, "A CUDA context: the primary context of a device. Context(device, handle) attaches to a primary "
                "context that another library retained (numba's third-party contexts)."},
    {Py_tp_new, Context_new},
    {Py_tp_repr, Context_repr},
    {Py_tp_methods, Context_methods},
    {Py_tp_getset, Context_getset},
    {Py_tp_members, Context_members},
    {Py_tp_traverse, Context_traverse},
    {Py_tp_clear, Context_clear},
    {Py_tp_dealloc, Context_dealloc},
    {0, NULL},
};

static PyType_Spec Context_spec = {
    .name = "numba_cuda_c.Context",
    .basicsize = sizeof(ContextObject),
    /* not immutable: users replace methods on the class, as they can numba's */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = Context_slots,
};

/* numba's MemoryInfo is a namedtuple that EMM plugins construct themselves, with keywords
 * (MemoryInfo(free=..., total=...)): ours is one too, made here so C can return it. */
static PyTypeObject *memory_info_type_new(void)
{
    PyObject *collections = PyImport_ImportModule("collections"); /* NumPy has imported it already */
    if (collections == NULL)
        return NULL;
    PyObject *type = PyObject_CallMethod(collections, "namedtuple", "ss", "MemoryInfo", "free total");
    Py_DECREF(collections);
    PyObject *module_name = type != NULL && PyType_Check(type) ? PyUnicode_FromString("numba_cuda_c") : NULL;
    if (module_name == NULL || PyObject_SetAttrString(type, "__module__", module_name) < 0)
        Py_CLEAR(type);
    Py_XDECREF(module_name);
    return (PyTypeObject *)type;
}

int context_type_init(PyObject *module, module_state *st)
{
    st->ContextType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &Context_spec, NULL);
    if (st->ContextType == NULL || PyModule_AddType(module, st->ContextType) < 0)
        return -1;
    st->MemoryInfoType = memory_info_type_new();
    if (st->MemoryInfoType == NULL)
        return -1;
    return PyModule_AddObjectRef(module, "MemoryInfo", (PyObject *)st->MemoryInfoType);
}

/* Module functions */

static PyObject *module_get_context(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    module_state *st = state_of_module(module);
    int devnum;
    ContextObject *context;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "get_context() takes at most one argument (devnum)");
        return NULL;
    }
    if (nargs == 0 || args[0] == Py_None)
        context = context_current(st);
    else if (int_from_object(args[0], &devnum, "devnum") < 0)
        return NULL;
    else
        context = cu_require_driver(st) < 0 ? NULL : context_activate(st, devnum);
    return context ? Py_NewRef((PyObject *)context) : NULL;
}

/* Pops every context off this thread's stack, as numba's cuda.close() does first. */
static PyObject *module_pop_all_contexts(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    if (!cu_driver_ready())
        Py_RETURN_NONE;
    CUcontext current = NULL;
    while (CU_CALL(st, cuCtxGetCurrent, (&current)) == 0 && current != NULL)
        if (CU_CALL(st, cuCtxPopCurrent, (&current)) < 0)
            return NULL;
    if (PyErr_Occurred())
        return NULL;
    Py_CLEAR(st->last_context);
    Py_RETURN_NONE;
}

static PyObject *module_has_current_context(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    CUcontext current = NULL;
    if (!cu_driver_ready())
        Py_RETURN_FALSE;
    if (CU_CALL(st, cuCtxGetCurrent, (&current)) < 0)
        return NULL;
    return PyBool_FromLong(current != NULL);
}

static PyObject *module_synchronize(PyObject *module, PyObject *Py_UNUSED(unused))
{
    ContextObject *context = context_current(state_of_module(module));
    return context ? Context_synchronize((PyObject *)context, NULL) : NULL;
}

static PyObject *module_profile(PyObject *module, int start)
{
    module_state *st = state_of_module(module);
    if (context_current(st) == NULL)
        return NULL;
    if ((start ? CU_CALL(st, cuProfilerStart, ()) : CU_CALL(st, cuProfilerStop, ())) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *module_profile_start(PyObject *module, PyObject *Py_UNUSED(unused)) { return module_profile(module, 1); }
static PyObject *module_profile_stop(PyObject *module, PyObject *Py_UNUSED(unused)) { return module_profile(module, 0); }

static PyObject *module_driver_version(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    int version = 0;
    if (cu_require_driver(st) < 0 || CU_CALL(st, cuDriverGetVersion, (&version)) < 0)
        return NULL;
    return Py_BuildValue("(ii)", version / 1000, (version % 1000) / 10);
}

static PyObject *module_driver_error(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(unused))
{
    const char *why = cu_driver_problem();
    return why == NULL ? Py_NewRef(Py_None) : PyUnicode_FromString(why);
}

PyMethodDef context_module_methods[] = {
    {"get_context", (PyCFunction)(void (*)(void))module_get_context, METH_FASTCALL,
     "get_context(devnum=None): the current context, or device devnum's primary context made current."},
    {"_pop_all_contexts", module_pop_all_contexts, METH_NOARGS, "Pop every context off this thread's stack."},
    {"_has_current_context", module_has_current_context, METH_NOARGS, "Whether this thread has a current context."},
    {"synchronize", module_synchronize, METH_NOARGS, "Synchronize the current context."},
    {"profile_start", module_profile_start, METH_NOARGS, "Enable profile collection in the current context."},
    {"profile_stop", module_profile_stop, METH_NOARGS, "Disable profile collection in the current context."},
    {"driver_get_version", module_driver_version, METH_NOARGS, "The CUDA driver's version as (major, minor)."},
    {"_driver_error", module_driver_error, METH_NOARGS,
     "Load the driver if not yet tried: None when it is usable, else why it is not."},
    {0},
};
