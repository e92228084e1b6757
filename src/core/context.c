/* context.c: Context (numba.cuda.cudadrv.driver.Context), the primary context of one device,
 * and the per-thread current context. "Current" is the driver's own per-thread stack
 * (cuCtxGetCurrent), so a new thread starts with none, as in numba. */
#include "core/context.h"

#include "driver/errors.h"
#include "core/staging.h"

#include <sched.h>
#include <structmember.h>

#define CONTEXT_MAX_HOOKS 4
static context_hooks hooks[CONTEXT_MAX_HOOKS];
static int hook_count;

int context_add_hooks(const context_hooks *added)
{
    for (int i = 0; i < hook_count; i++)
        if (hooks[i].dying == added->dying && hooks[i].released == added->released)
            return 0; /* another interpreter's import: the same code */
    if (hook_count == CONTEXT_MAX_HOOKS) {
        PyErr_SetString(PyExc_RuntimeError, "too many context hooks");
        return -1;
    }
    hooks[hook_count++] = *added;
    return 0;
}

/* A context is dying (context != NULL), or a primary context was released (NULL). */
static void context_run_hooks(module_state *st, ContextObject *context)
{
    for (int i = 0; i < hook_count; i++) {
        if (context != NULL && hooks[i].dying != NULL)
            hooks[i].dying(st, context);
        else if (context == NULL && hooks[i].released != NULL)
            hooks[i].released(st);
    }
}

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
        context_run_hooks(st, context); /* while the context can still free what waits */
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

/* In `context`, made current: whether its device can reach `peer`'s (cuDeviceCanAccessPeer, into *can),
 * and where it can, access enabled (cuCtxEnablePeerAccess; enabled already is as good). 0, or -1 with the
 * error of the call that failed. */
static int enable_peer_access(module_state *st, ContextObject *context, ContextObject *peer, int *can)
{
    const char *call = "cuDeviceCanAccessPeer";
    CUresult rc = CU_RESULT(cuDeviceCanAccessPeer, (can, context->device->handle, peer->device->handle));
    if (rc == CUDA_SUCCESS && *can) {
        call = "cuCtxEnablePeerAccess";
        rc = CU_RESULT(cuCtxEnablePeerAccess, (peer->handle, 0));
        rc = rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED ? CUDA_SUCCESS : rc;
    }
    return cu_check(st, rc, call);
}

int context_enable_peer(module_state *st, ContextObject *context, ContextObject *peer)
{
    int id = peer->device->id;
    unsigned long long bit = id < 64 ? 1ULL << id : 0;
    if (context->device == peer->device || (context->peers_enabled & bit))
        return 1;
    if (context->peers_refused & bit)
        return 0;
    int can = 0;
    if (context_check_alive(st, peer) < 0 ||
        IN_CONTEXT(st, context, enable_peer_access(st, context, peer, &can) < 0) < 0)
        return -1;
    if (can)
        context->peers_enabled |= bit;
    else
        context->peers_refused |= bit;
    return can != 0;
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
    ContextObject *context = device_primary_context(st, device);
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
        ContextObject *context = device_primary_context(st, device);
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

/* The primary context's life: retained once per process, released, reset */

/* Gives back a retain device_primary_context took and cannot keep, where it may be the device's last
 * (a close released the process's meanwhile, or nobody retained since a reset): then the release
 * destroys the context, and like any destroy it waits, with the gate closed, for the driver calls
 * other threads have in flight (driver_gate.h); without the gate a copy or allocation running in
 * that context would have it destroyed under it. Rare: a retain that raced a reset or failed. */
static void release_unkept_retain(module_state *st, DeviceObject *self)
{
    driver_gate_close();
    cu_report_unraisable(st, cu.cuDevicePrimaryCtxRelease(self->handle), "cuDevicePrimaryCtxRelease");
    context_run_hooks(st, NULL); /* where this was the last retain, the driver has unmapped watched pages */
    driver_gate_open();
}

ContextObject *device_primary_context(module_state *st, DeviceObject *self)
{
    if (self->primary_context != NULL)
        return self->primary_context;
    if (self->resetting) {
        PyErr_Format(st->CudaDriverError, "CUDA device %d is being reset by another thread", self->id);
        return NULL;
    }
    unsigned long resets = self->resets;
    CUcontext handle = NULL;
    /* cuDevicePrimaryCtxRetain creates the context on first use, which takes a while. */
    if (CU_BLOCKING_CALL(st, cuDevicePrimaryCtxRetain, (&handle, self->handle)) < 0)
        return NULL;
    if (self->resetting || self->resets != resets) { /* a reset ran meanwhile: the handle may be gone */
        /* The reset did not release this retain (the driver's resets release none), and since then
         * other threads may have retained the context afresh and work in it, or a close may have
         * released theirs: this release can be the last. */
        release_unkept_retain(st, self);
        PyErr_Format(st->CudaDriverError, "CUDA device %d was reset by another thread meanwhile", self->id);
        return NULL;
    }
    if (self->primary_context != NULL) { /* another thread retained it meanwhile: keep one reference */
        /* Never the last, so no gate: no reset ran (above), and the process's retain, which
         * primary_context holds, goes only in a close, which clears primary_context first. */
        cu_report_unraisable(st, cu.cuDevicePrimaryCtxRelease(self->handle), "cuDevicePrimaryCtxRelease");
        return self->primary_context;
    }
    self->primary_context = context_new(st, self, handle);
    if (self->primary_context == NULL)
        release_unkept_retain(st, self);
    return self->primary_context;
}

static PyObject *Device_get_primary_context(PyObject *op, PyObject *Py_UNUSED(unused))
{
    ContextObject *context = device_primary_context(state_of(op), (DeviceObject *)op);
    return context ? Py_NewRef((PyObject *)context) : NULL;
}

/* Releases this process's reference on the primary context; its Context object dies. */
static int device_release_primary(module_state *st, DeviceObject *self)
{
    ContextObject *context = self->primary_context;
    if (context == NULL)
        return 0;
    self->primary_context = NULL;
    context_free_staging(st, context); /* before the gate: its copies hold the gate shared */
    driver_gate_close();
    context_mark_dead(st, context);
    Py_DECREF(context);
    int status = CU_CALL(st, cuDevicePrimaryCtxRelease, (self->handle));
    context_run_hooks(st, NULL);
    driver_gate_open();
    return status;
}

static PyObject *Device_release_primary_context(PyObject *op, PyObject *Py_UNUSED(unused))
{
    if (device_release_primary(state_of(op), (DeviceObject *)op) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static int device_reset_now(module_state *st, DeviceObject *self)
{
    if (self->primary_context != NULL) {
        PyObject *done = PyObject_CallMethod((PyObject *)self->primary_context, "reset", NULL);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
    }
    CUcontext handle = self->primary_context ? self->primary_context->handle : NULL;
    if (self->primary_context != NULL)
        context_free_staging(st, self->primary_context); /* before the gate (driver_gate.h) */
    driver_gate_close(); /* the release and the reset as one step for other threads */
    /* A context in a sticky error state (an illegal address, say) may refuse the release; the
     * reset below destroys it all the same. */
    if (device_release_primary(st, self) < 0)
        PyErr_Clear();
    CUresult rc;
    /* The GIL goes only while a stream callback (which takes it) could hold the reset up. */
    CU_UNBLOCKED(rc, cu.cuDevicePrimaryCtxReset(self->handle));
    context_run_hooks(st, NULL);
    /* This thread's stack may still hold the old context: take it off, so that the next use makes
     * a fresh one current (after a sticky error such as an illegal address, the old one refuses). */
    CUcontext current = NULL, popped;
    while (rc == CUDA_SUCCESS && handle != NULL && cu.cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
           current == handle)
        if (cu.cuCtxPopCurrent(&popped) != CUDA_SUCCESS)
            break;
    driver_gate_open();
    return cu_check(st, rc, "cuDevicePrimaryCtxReset");
}

/* Resets the device; other threads' retains of its primary context wait for the end (they raise
 * CudaDriverError meanwhile rather than get a context the reset destroys). */
static int primary_context_reset(module_state *st, DeviceObject *self)
{
    if (self->resetting) {
        PyErr_Format(st->CudaDriverError, "CUDA device %d is being reset by another thread", self->id);
        return -1;
    }
    self->resetting = 1;
    self->resets++;
    int status = device_reset_now(st, self);
    self->resetting = 0;
    return status;
}

static PyObject *Device_reset(PyObject *op, PyObject *Py_UNUSED(unused))
{
    if (primary_context_reset(state_of(op), (DeviceObject *)op) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Device_get_primary_context_attr(PyObject *op, void *Py_UNUSED(closure))
{
    ContextObject *context = ((DeviceObject *)op)->primary_context;
    return Py_NewRef(context ? (PyObject *)context : Py_None);
}

static PyObject *module_reset_all_devices(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    if (st->devices == NULL) /* never used: nothing to reset */
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(st->devices); i++)
        if (primary_context_reset(st, (DeviceObject *)PyTuple_GET_ITEM(st->devices, i)) < 0)
            return NULL;
    Py_RETURN_NONE;
}

/* The Device methods and attribute that act on its primary context, added to Device here. */
static PyMethodDef Device_context_methods[] = {
    {"get_primary_context", Device_get_primary_context, METH_NOARGS,
     "Retain this device's primary context (once) and return its Context."},
    {"release_primary_context", Device_release_primary_context, METH_NOARGS,
     "Release this process's reference to the primary context."},
    {"reset", Device_reset, METH_NOARGS,
     "Delete the context for the device: destroys all memory allocations, events and streams made in it."},
    {0},
};

static PyGetSetDef Device_context_getset[] = {
    {"primary_context", Device_get_primary_context_attr, NULL, "The retained primary Context, or None.", NULL},
    {0},
};

/* Methods */

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
    if (CU_BLOCKING_CALL_IN(st, (ContextObject *)op, cuCtxSynchronize, ()) < 0)
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
    int done = context_check_alive(st, (ContextObject *)op) < 0
                   ? -1
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
    ContextObject *context = device ? device_primary_context(st, device) : NULL;
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
    dealloc_begin(op, ((ContextObject *)op)->weakreflist);
    Context_clear(op);
    PyMem_Free(((ContextObject *)op)->deallocations.items); /* a dead context freed them itself */
    PyMem_Free(((ContextObject *)op)->deallocations.handles);
    if (((ContextObject *)op)->staging != NULL) { /* not freed with the context: its workers still wait */
        staging_ring_abandon(((ContextObject *)op)->staging);
        PyMem_RawFree(((ContextObject *)op)->staging);
    }
    dealloc_end(op);
}

static PyMethodDef Context_methods[] = {
    REPR_HTML_METHOD,
    {"push", Context_push, METH_NOARGS, "Pushes this context on the current CPU thread."},
    {"pop", Context_pop, METH_NOARGS,
     "Pops this context off the current CPU thread. It must be at the top of the context stack."},
    {"synchronize", Context_synchronize, METH_NOARGS, "Wait for all work in this context to finish."},
    {"can_access_peer", Context_can_access_peer, METH_O,
     "can_access_peer(peer_device): whether this context's device can access the memory of device peer_device."},
    {"enable_peer_access", (PyCFunction)(void (*)(void))Context_enable_peer_access, METH_VARARGS | METH_KEYWORDS,
     "enable_peer_access(peer_context, flags=0): let this context access the peer context's memory."},
    {"prepare_for_use", Context_prepare_for_use, METH_NOARGS, "Check that the context can be used."},
    {0},
};

static PyGetSetDef Context_getset[] = {
    {"handle", Context_get_handle, NULL, "The CUcontext, as an int (0 once reset).", NULL},
    {0},
};

static PyMemberDef Context_members[] = {
    {"device", T_OBJECT, offsetof(ContextObject, device), READONLY, "The Device this context belongs to."},
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
    if (type_create(module, &Context_spec, NULL, &st->ContextType, 1) < 0 ||
        type_add_methods(st->DeviceType, Device_context_methods) < 0 ||
        type_add_getset(st->DeviceType, Device_context_getset) < 0)
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

static PyObject *module_profile_start(PyObject *module, PyObject *Py_UNUSED(unused))
{
    return module_profile(module, 1);
}
static PyObject *module_profile_stop(PyObject *module, PyObject *Py_UNUSED(unused))
{
    return module_profile(module, 0);
}

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
    {"_reset_all_devices", module_reset_all_devices, METH_NOARGS, "Reset every device this process has used."},
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
