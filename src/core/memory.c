/* memory.c: MemoryPointer: allocations of every kind, and their release (the queue: deallocations.c).
 *
 * Destruction order. A DeviceNDArray (and each of its views) holds a reference to its
 * MemoryPointer; a MemoryPointer holds its Context; a Context holds its Device, which the module
 * state keeps. When the last array goes, the MemoryPointer's free is queued on the context
 * (numba's "Deallocation Behavior") and runs at a flush: past NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT
 * frees or _RATIO of the device's memory, on an allocation that ran out of memory, at
 * Context.reset(); never inside defer_cleanup(). Registered, pooled and IPC memory is given back
 * at once instead (its owner may free registered memory right after).
 *
 * A context dies (Device.reset(), release_primary_context(), cuda.close()) in this order: its
 * staging ring is freed, its queue is flushed, defer_cleanup() or not (memory_context_dying),
 * its handle is set to NULL, then the driver releases or resets it, which frees everything made
 * in it. Objects of a dead context outlive it: their deallocs free nothing the driver freed, and
 * every use of one raises CudaDriverError (context_check_alive: copies, sources of copies, kernel
 * arguments and launch streams, IPC handles), since a new context may reuse its addresses.
 * Host arrays must stay readable: pinned and mapped memory is in pages of our own (mmap)
 * registered with the driver, which the death of the context unregisters, and which are unmapped
 * when the MemoryPointer goes. Write-combined memory (cuMemHostAlloc only) and managed memory would
 * die with their context: their bytes move to pages of ours at the same address (rescue.c).
 *
 * The rule of every tp_dealloc and tp_clear: what it frees is freed inside dealloc_release
 * (errors.h), which sets any exception in flight aside, reports a failure to sys.unraisablehook
 * with a description (never the dying object, which the hook would resurrect and free twice), and
 * restores the exception. Objects are allocated with their final type (no Py_SET_TYPE), and
 * deallocs find the module state with state_of_type, which works for Python subclasses. */
#include "core/memory.h"
#include "driver/python_helpers.h"

#include "driver/errors.h"
#include "core/registration.h"
#include "core/rescue.h"
#include "core/stream.h"

#include <structmember.h>
#include <sys/mman.h>

/* The GIL is released around allocations at least this large, which can take a while. */
#define LARGE_ALLOCATION (1 << 20)

/* The stream-ordered pool: the device's default pool, told to keep what is freed (by default it
 * gives memory back to the system at every synchronisation, which defeats a pool). */
static int pool_prepare(module_state *st, ContextObject *context)
{
    int supported = 0;
    if (cu.cuMemAllocAsync == NULL || cu.cuMemFreeAsync == NULL || cu.cuDeviceGetDefaultMemPool == NULL ||
        cu.cuMemPoolSetAttribute == NULL) {
        PyErr_SetString(st->CudaSupportError, "the stream-ordered memory pool needs CUDA 11.2 or later");
        return -1;
    }
    if (CU_CALL(st, cuDeviceGetAttribute,
                (&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, context->device->handle)) < 0)
        return -1;
    if (!supported) {
        PyErr_SetString(st->CudaSupportError, "this device has no stream-ordered memory pools");
        return -1;
    }
    CUmemoryPool pool;
    unsigned long long keep_everything = ~0ULL;
    if (CU_CALL(st, cuDeviceGetDefaultMemPool, (&pool, context->device->handle)) < 0 ||
        CU_CALL(st, cuMemPoolSetAttribute, (pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_everything)) < 0)
        return -1;
    return 0;
}

/* Set up once per context, at its first allocation: the byte limit of the queue (ratio x the
 * device's memory), and an anchor. The driver sub-allocates small allocations from 2 MiB blocks
 * and unmaps a block when its last allocation is freed, so a program that allocates and frees
 * small arrays in turn pays a map and an unmap (~80 us) each time. One small allocation kept
 * for the context's life keeps a block mapped. */
static int queue_limits(module_state *st, ContextObject *context)
{
    if (context->deallocations.max_bytes != 0)
        return 0;
    size_t limit;
    if (memory_queue_byte_limit(st, context, &limit) < 0 ||
        IN_CONTEXT(st, context,
                   CU_CALL(st, cuMemAlloc, (&context->deallocations.anchor, 8)) < 0 ||
                       (st->memory_pool && pool_prepare(st, context) < 0)) < 0)
        return -1;
    context->deallocations.max_bytes = limit;
    return 0;
}

static MemoryObject *memory_new(module_state *st, ContextObject *context, memory_kind kind, size_t size)
{
    MemoryObject *self = PyObject_GC_New(MemoryObject, st->MemoryPointerType);
    if (self == NULL)
        return NULL;
    self->context = (ContextObject *)Py_NewRef((PyObject *)context);
    self->device_pointer = 0;
    self->host_pointer = NULL;
    self->size = size;
    self->kind = kind;
    self->registered.obj = NULL;
    self->registration = NULL;
    self->external = NULL;
    self->own_pages = 0;
    self->rescue = RESCUE_NONE;
    self->rescue_copy = NULL;
    self->rescue_next = self->rescue_prev = NULL;
    self->weakreflist = NULL;
    PyObject_GC_Track(self);
    return self;
}

/* Makes an allocation of memory->size bytes into `memory`; runs with the context current. */
typedef CUresult (*allocator)(MemoryObject *memory, unsigned int flags);

/* Runs `allocate` (the context current); on CUDA_ERROR_OUT_OF_MEMORY flushes the queue and tries once more. */
static int allocate_in_context(module_state *st, MemoryObject *memory, allocator allocate, unsigned int flags,
                               const char *function)
{
    ContextObject *context = memory->context;
    CUresult rc;
    for (int attempt = 0; attempt < 2; attempt++) {
        rc = memory->size >= LARGE_ALLOCATION || stream_callbacks_pending() /* lock order: errors.h */
                 ? CU_BLOCKING(allocate(memory, flags))
                 : allocate(memory, flags);
        if (rc != CUDA_ERROR_OUT_OF_MEMORY || attempt == 1 || context->deallocations.count == 0 ||
            context->deallocations.deferred)
            break;
        if (memory_flush(st, context) < 0)
            break;
    }
    return PyErr_Occurred() ? -1 : cu_check(st, rc, function);
}

static int allocate_with_retry(module_state *st, MemoryObject *memory, allocator allocate, unsigned int flags,
                               const char *function)
{
    if (queue_limits(st, memory->context) < 0)
        return -1;
    return IN_CONTEXT(st, memory->context, allocate_in_context(st, memory, allocate, flags, function) < 0);
}

static CUresult allocate_device(MemoryObject *memory, unsigned int flags)
{
    (void)flags;
    return cu.cuMemAlloc(&memory->device_pointer, memory->size);
}

/* On the legacy default stream, which orders it after the work of every blocking stream. */
static CUresult allocate_pooled(MemoryObject *memory, unsigned int flags)
{
    (void)flags;
    return cu.cuMemAllocAsync(&memory->device_pointer, memory->size, NULL);
}

/* Pinned and mapped host memory lives in pages of our own, registered with the driver
 * (cuMemHostRegister), where cuMemHostAlloc's pages die with the context: a host array must stay
 * readable after cuda.close() until it goes (it is then ordinary memory). Write-combined memory
 * only cuMemHostAlloc makes; as where registration is unsupported, it dies with its context. */
static CUresult register_pages(MemoryObject *memory, unsigned int flags)
{
    void *pages = mmap(NULL, memory->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = cu.cuMemHostRegister(pages, memory->size,
                                       flags & (CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP));
    if (rc != CUDA_SUCCESS) {
        munmap(pages, memory->size);
        return rc;
    }
    memory->host_pointer = pages;
    memory->own_pages = 1;
    return CUDA_SUCCESS;
}

static CUresult allocate_host(MemoryObject *memory, unsigned int flags)
{
    CUresult rc = CUDA_ERROR_NOT_SUPPORTED;
    if (!(flags & CU_MEMHOSTALLOC_WRITECOMBINED))
        rc = register_pages(memory, flags);
    if (rc == CUDA_ERROR_NOT_SUPPORTED)
        rc = cu.cuMemHostAlloc(&memory->host_pointer, memory->size, flags);
    if (rc == CUDA_SUCCESS && (flags & CU_MEMHOSTALLOC_DEVICEMAP)) {
        rc = cu.cuMemHostGetDevicePointer(&memory->device_pointer, memory->host_pointer, 0);
        if (rc != CUDA_SUCCESS) { /* the first error is the one reported */
            if (memory->own_pages) {
                cu.cuMemHostUnregister(memory->host_pointer);
                munmap(memory->host_pointer, memory->size);
            } else {
                cu.cuMemFreeHost(memory->host_pointer);
            }
            memory->host_pointer = NULL;
            memory->own_pages = 0;
        }
    }
    return rc;
}

static CUresult allocate_managed(MemoryObject *memory, unsigned int flags)
{
    CUresult rc = cu.cuMemAllocManaged(&memory->device_pointer, memory->size, flags);
    if (rc == CUDA_SUCCESS)
        memory->host_pointer = (void *)(uintptr_t)memory->device_pointer;
    return rc;
}

static PyObject *allocate(module_state *st, ContextObject *context, memory_kind kind, size_t size,
                          allocator allocate_fn, unsigned int flags, const char *function)
{
    if (size == 0) {
        PyErr_SetString(PyExc_ValueError, "cannot allocate 0 bytes");
        return NULL;
    }
    MemoryObject *memory = memory_new(st, context, kind, size);
    if (memory == NULL)
        return NULL;
    if (allocate_with_retry(st, memory, allocate_fn, flags, function) < 0) {
        memory->device_pointer = 0; /* nothing to free: dealloc must not queue */
        memory->host_pointer = NULL;
        Py_DECREF(memory);
        return NULL;
    }
    if (kind == MEMORY_MANAGED || (memory->host_pointer != NULL && !memory->own_pages))
        memory_rescue_watch(st, memory); /* it dies with its context unless rescued (rescue.c) */
    return (PyObject *)memory;
}

PyObject *memory_manager_of(module_state *st, ContextObject *context)
{
    if (context->memory_manager != NULL)
        return context->memory_manager;
    PyObject *kwargs = Py_BuildValue("{sO}", "context", (PyObject *)context);
    PyObject *empty = PyTuple_New(0);
    PyObject *manager = (kwargs && empty) ? PyObject_Call(st->memory_plugin, empty, kwargs) : NULL;
    Py_XDECREF(kwargs);
    Py_XDECREF(empty);
    if (manager == NULL)
        return NULL;
    PyObject *done = PyObject_CallMethod(manager, "initialize", NULL);
    if (done == NULL) {
        Py_DECREF(manager);
        return NULL;
    }
    Py_DECREF(done);
    context->memory_manager = manager;
    return manager;
}

/* numba's plugin contract: memalloc(size) returns a MemoryPointer whose device_pointer is an int or
 * a ctypes pointer, and which frees the memory when it dies. */
static PyObject *alloc_external(module_state *st, ContextObject *context, size_t size)
{
    PyObject *manager = memory_manager_of(st, context);
    if (manager == NULL)
        return NULL;
    PyObject *pointer = PyObject_CallMethod(manager, "memalloc", "n", (Py_ssize_t)size);
    if (pointer == NULL)
        return NULL;
    PyObject *address = PyObject_GetAttrString(pointer, "device_pointer");
    if (address != NULL && !PyLong_Check(address)) { /* a ctypes.c_void_p or c_uint64 */
        PyObject *value = PyObject_GetAttrString(address, "value");
        Py_SETREF(address, value);
    }
    unsigned long long device_pointer = 0;
    if (address != NULL && address != Py_None)
        device_pointer = PyLong_AsUnsignedLongLong(address);
    Py_XDECREF(address);
    MemoryObject *memory = PyErr_Occurred() ? NULL : memory_new(st, context, MEMORY_EXTERNAL, size);
    if (memory == NULL) {
        Py_DECREF(pointer);
        return NULL;
    }
    memory->device_pointer = device_pointer;
    memory->external = pointer;
    return (PyObject *)memory;
}

PyObject *memory_alloc_device(module_state *st, ContextObject *context, size_t size)
{
    if (st->memory_plugin != NULL || context->memory_manager != NULL) /* a plugin, or ctx.memory_manager = m */
        return alloc_external(st, context, size);
    if (st->memory_pool)
        return allocate(st, context, MEMORY_POOLED, size, allocate_pooled, 0, "cuMemAllocAsync");
    return allocate(st, context, MEMORY_DEVICE, size, allocate_device, 0, "cuMemAlloc");
}

PyObject *memory_alloc_host(module_state *st, ContextObject *context, size_t size, int mapped, int portable,
                            int write_combined)
{
    unsigned int flags = (mapped ? CU_MEMHOSTALLOC_DEVICEMAP : 0) | (portable ? CU_MEMHOSTALLOC_PORTABLE : 0) |
                         (write_combined ? CU_MEMHOSTALLOC_WRITECOMBINED : 0);
    return allocate(st, context, mapped ? MEMORY_MAPPED : MEMORY_PINNED, size, allocate_host, flags,
                    "cuMemHostAlloc");
}

PyObject *memory_alloc_managed(module_state *st, ContextObject *context, size_t size, int attach_global)
{
    return allocate(st, context, MEMORY_MANAGED, size, allocate_managed,
                    attach_global ? CU_MEM_ATTACH_GLOBAL : CU_MEM_ATTACH_HOST, "cuMemAllocManaged");
}

/* Page-locks the buffer memory holds (the context current), and maps it where `mapped`; without the GIL:
 * page-locking gigabytes takes a while. */
static int register_range(module_state *st, MemoryObject *memory, int mapped)
{
    void *pointer = memory->registered.buf;
    CUresult rc, mapped_rc = CUDA_SUCCESS;
    CU_BEGIN_ALLOW_THREADS
    rc = registration_acquire(pointer, memory->size, mapped ? CU_MEMHOSTREGISTER_DEVICEMAP : 0,
                              &memory->registration);
    if (rc == CUDA_SUCCESS && mapped) {
        mapped_rc = cu.cuMemHostGetDevicePointer(&memory->device_pointer, pointer, 0);
        if (mapped_rc != CUDA_SUCCESS) {
            registration_release(memory->registration, 1);
            memory->registration = NULL;
        }
    }
    CU_END_ALLOW_THREADS
    return cu_check(st, rc, "cuMemHostRegister") < 0 || cu_check(st, mapped_rc, "cuMemHostGetDevicePointer") < 0
               ? -1
               : 0;
}

/* cuda.pinned(*arrays) / cuda.mapped(*arrays): page-locks memory another object owns, for as long
 * as the returned MemoryPointer lives. Registrations nest (registration.c): memory pinned already, by
 * us or by someone else, is used as is. */
static PyObject *memory_register(module_state *st, ContextObject *context, PyObject *obj, int mapped)
{
    MemoryObject *memory = memory_new(st, context, MEMORY_REGISTERED, 0);
    if (memory == NULL)
        return NULL;
    if (PyObject_GetBuffer(obj, &memory->registered, PyBUF_WRITABLE | PyBUF_ANY_CONTIGUOUS) < 0) {
        memory->registered.obj = NULL;
        Py_DECREF(memory);
        return NULL;
    }
    memory->size = (size_t)memory->registered.len;
    if (memory->size == 0) /* nothing to lock */
        return (PyObject *)memory;
    if (IN_CONTEXT(st, context, register_range(st, memory, mapped) < 0) < 0) {
        memory->host_pointer = NULL;
        Py_DECREF(memory);
        return NULL;
    }
    memory->host_pointer = memory->registered.buf;
    return (PyObject *)memory;
}

/* Drops the memory's use of its registered range, the context current where `unregister` (the last
 * user unregisters it then): without the GIL, since an unregistration can wait for the device. */
static int release_registration(module_state *st, MemoryObject *self, int unregister)
{
    CUresult rc = CU_BLOCKING(registration_release(self->registration, unregister));
    self->registration = NULL;
    return cu_check(st, rc, "cuMemHostUnregister");
}

/* One user fewer of a registered range (cuda.pinned/mapped), unregistered at the last unless its
 * context was reset (which dropped it). */
static int memory_unregister(module_state *st, MemoryObject *self)
{
    if (self->context->handle == NULL)
        return release_registration(st, self, 0);
    int status = IN_CONTEXT(st, self->context, release_registration(st, self, 1) < 0);
    if (self->registration != NULL) /* the context could not be entered: our use goes, unregistering nothing */
        (void)CU_BLOCKING(registration_release(self->registration, 0));
    self->registration = NULL;
    return status;
}

/* Gives back what the MemoryPointer owns, once: registered ranges through the registration table,
 * pooled and IPC memory at once, the rest through the context's queue, nothing the reset of its
 * context freed already; then the buffer and the plugin object it holds. Runs under
 * dealloc_release (errors.h), from tp_clear or dealloc. */
static int MemoryPointer_release(module_state *st, void *arg)
{
    MemoryObject *self = (MemoryObject *)arg;
    memory_rescue_forget(st, self); /* before its pages are read below */
    struct pending_free item = {self->kind, self->device_pointer, self->host_pointer, self->size, self->own_pages};
    int unregister_failed = self->registration != NULL && memory_unregister(st, self) < 0;
    int has_memory = self->kind == MEMORY_REGISTERED ? 0 /* memory_unregister's */
                     : self->kind == MEMORY_EXTERNAL ? 0 /* its plugin object frees it */
                                                     : (self->device_pointer || self->host_pointer);
    int status = 0;
    self->device_pointer = 0;
    self->host_pointer = NULL;
    if (has_memory && self->context->handle != NULL) {
        if ((self->kind == MEMORY_REGISTERED || self->kind == MEMORY_POOLED || self->kind == MEMORY_IPC) &&
            !stream_in_callback()) {
            status = memory_free_in(st, self->context, &item);
        } else {
            status = memory_queue_free(st, self->context, &item);
        }
    } else if (has_memory && item.own_pages) { /* the reset unregistered them; the pages are ours */
        munmap(item.host_pointer, item.size);
    }
    self->own_pages = 0;
    if (self->registered.obj != NULL)
        PyBuffer_Release(&self->registered);
    Py_CLEAR(self->external);
    return unregister_failed ? -1 : status;
}

static int MemoryPointer_traverse(PyObject *op, visitproc visit, void *arg)
{
    MemoryObject *self = (MemoryObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->context);
    Py_VISIT(self->external);
    Py_VISIT(self->registered.obj);
    return 0;
}

/* In a garbage cycle (an EMM plugin's objects that refer back to the memory, say): free the memory
 * and drop the objects held; the context stays, for dealloc. */
static int MemoryPointer_clear(PyObject *op)
{
    dealloc_release(state_of(op), MemoryPointer_release, op, "MemoryPointer: freeing its memory");
    return 0;
}

static void MemoryPointer_dealloc(PyObject *op)
{
    MemoryObject *self = (MemoryObject *)op;
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    dealloc_release(state_of_type(type), MemoryPointer_release, op, "MemoryPointer: freeing its memory");
    Py_DECREF(self->context);
    type->tp_free(op);
    Py_DECREF(type);
}

/* Methods and attributes, as numba's MemoryPointer / PinnedMemory / MappedMemory. */

static PyObject *MemoryPointer_memset(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"val", "size", "stream", NULL};
    module_state *st = state_of(op);
    MemoryObject *self = (MemoryObject *)op;
    int value;
    Py_ssize_t size = -1;
    PyObject *stream_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i|nO:memset", keywords, &value, &size, &stream_obj))
        return NULL;
    if (size < 0)
        size = (Py_ssize_t)self->size;
    if ((size_t)size > self->size || self->device_pointer == 0) {
        PyErr_SetString(PyExc_ValueError, "memset: size exceeds the allocation, or it is not device-accessible");
        return NULL;
    }
    CUstream stream;
    if (stream_handle_from_object(st, stream_obj, &stream) < 0 ||
        IN_CONTEXT(
            st, self->context,
            CU_CALL(st, cuMemsetD8Async, (self->device_pointer, (unsigned char)value, (size_t)size, stream)) < 0 ||
                (stream_obj == Py_None && CU_BLOCKING_CALL(st, cuStreamSynchronize, (stream)) < 0)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *MemoryPointer_get_kind(PyObject *op, void *Py_UNUSED(closure))
{
    static const char *names[] = {"device",     "pinned", "mapped", "managed",
                                  "registered", "pooled", "ipc",    "external"};
    return PyUnicode_FromString(names[((MemoryObject *)op)->kind]);
}

static PyObject *MemoryPointer_get_device_pointer(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLongLong(((MemoryObject *)op)->device_pointer);
}

static PyObject *MemoryPointer_get_host_pointer(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((MemoryObject *)op)->host_pointer);
}

static PyObject *MemoryPointer_get_context(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef((PyObject *)((MemoryObject *)op)->context);
}

static PyObject *MemoryPointer_repr(PyObject *op)
{
    MemoryObject *self = (MemoryObject *)op;
    PyObject *kind = MemoryPointer_get_kind(op, NULL);
    char address[24]; /* PyUnicode_FromFormat has no %llx before Python 3.12 */
    snprintf(address, sizeof address, "0x%llx", (unsigned long long)self->device_pointer);
    PyObject *text =
        kind ? PyUnicode_FromFormat("<MemoryPointer %U, %zu bytes at %s>", kind, self->size, address) : NULL;
    Py_XDECREF(kind);
    return text;
}

static PyObject *MemoryPointer_view(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"start", "stop", NULL};
    PyObject *start, *stop = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:view", keywords, &start, &stop))
        return NULL;
    return python_call(state_of(op), HELPER_MEMORY_VIEW, PyTuple_Pack(3, op, start, stop));
}

static PyObject *MemoryPointer_own(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return python_call(state_of(op), HELPER_MEMORY_OWN, PyTuple_Pack(1, op));
}

static PyObject *MemoryPointer_get_refct(PyObject *op, void *Py_UNUSED(closure))
{
    return python_call(state_of(op), HELPER_MEMORY_REFCT, PyTuple_Pack(1, op));
}

static PyObject *MemoryPointer_get_device_ctypes_pointer(PyObject *op, void *Py_UNUSED(closure))
{
    return python_call(state_of(op), HELPER_MEMORY_CTYPES_POINTER, PyTuple_Pack(1, op));
}

static PyObject *MemoryPointer_get_owner(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef(op);
}

static PyObject *MemoryPointer_get_true(PyObject *Py_UNUSED(op), void *Py_UNUSED(closure))
{
    Py_RETURN_TRUE;
}

static PyObject *MemoryPointer_get_device_pointer_value(PyObject *op, void *Py_UNUSED(closure))
{
    CUdeviceptr pointer = ((MemoryObject *)op)->device_pointer;
    return pointer ? PyLong_FromUnsignedLongLong(pointer) : Py_NewRef(Py_None);
}

/* free(): gives the memory back now, as numba's MemoryPointer.free(); what still points into it
 * must not be used after (cuda.mapped()'s device arrays end with its block, as in numba). */
static PyObject *MemoryPointer_free(PyObject *op, PyObject *Py_UNUSED(unused))
{
    if (MemoryPointer_release(state_of(op), op) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef MemoryPointer_methods[] = {
    {"free", MemoryPointer_free, METH_NOARGS, "free(): give the memory back now (numba's MemoryPointer.free)."},
    {"memset", (PyCFunction)(void (*)(void))MemoryPointer_memset, METH_VARARGS | METH_KEYWORDS,
     "memset(val, size=None, stream=0): set size bytes (all by default) to val."},
    {"view", (PyCFunction)(void (*)(void))MemoryPointer_view, METH_VARARGS | METH_KEYWORDS,
     "view(start, stop=None): a pointer into this allocation that keeps it alive (numba's derived pointer)."},
    {"own", MemoryPointer_own, METH_NOARGS, "A new reference to this allocation (refct + 1 while it lives)."},
    {0},
};

static PyGetSetDef MemoryPointer_getset[] = {
    {"kind", MemoryPointer_get_kind, NULL, "'device', 'pinned', 'mapped', 'managed' or 'registered'.", NULL},
    {"device_pointer", MemoryPointer_get_device_pointer, NULL, "The device address (0 if not mapped).", NULL},
    {"handle", MemoryPointer_get_device_pointer, NULL, "The device address, as numba's handle.", NULL},
    {"host_pointer", MemoryPointer_get_host_pointer, NULL, "The host address (0 for device memory).", NULL},
    {"context", MemoryPointer_get_context, NULL, "The Context the memory belongs to.", NULL},
    {"owner", MemoryPointer_get_owner, NULL, "The allocation's owner: itself.", NULL},
    {"refct", MemoryPointer_get_refct, NULL, "1 + the number of live views and own() references.", NULL},
    {"device_ctypes_pointer", MemoryPointer_get_device_ctypes_pointer, NULL, "ctypes.c_size_t(device_pointer).",
     NULL},
    {"device_pointer_value", MemoryPointer_get_device_pointer_value, NULL, "The device address, or None.", NULL},
    {"__cuda_memory__", MemoryPointer_get_true, NULL, "Marks device memory (numba's is_device_memory).", NULL},
    {0},
};

static PyMemberDef MemoryPointer_members[] = {
    {"size", T_PYSSIZET, offsetof(MemoryObject, size), READONLY, "The size in bytes."},
    {"_cuda_memsize_", T_PYSSIZET, offsetof(MemoryObject, size), READONLY, "The size in bytes (numba's name)."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(MemoryObject, weakreflist), READONLY, NULL},
    {0},
};

/* Host memory exports the buffer protocol, so NumPy arrays can live on it. */
static int MemoryPointer_getbuffer(PyObject *op, Py_buffer *view, int flags)
{
    MemoryObject *self = (MemoryObject *)op;
    if (self->host_pointer == NULL) {
        PyErr_SetString(PyExc_BufferError, "device memory has no host buffer");
        return -1;
    }
    return PyBuffer_FillInfo(view, op, self->host_pointer, (Py_ssize_t)self->size, 0, flags);
}

static PyType_Slot MemoryPointer_slots[] = {
    {Py_tp_doc, "The owner of one allocation; it is freed (through the context's deallocation queue) when the "
                "last array using it goes."},
    {Py_tp_repr, MemoryPointer_repr},
    {Py_tp_methods, MemoryPointer_methods},
    {Py_tp_getset, MemoryPointer_getset},
    {Py_tp_members, MemoryPointer_members},
    {Py_tp_traverse, MemoryPointer_traverse},
    {Py_tp_clear, MemoryPointer_clear},
    {Py_tp_dealloc, MemoryPointer_dealloc},
    {Py_bf_getbuffer, MemoryPointer_getbuffer},
    {0, NULL},
};

static PyType_Spec MemoryPointer_spec = {
    .name = "numba_cuda_c.MemoryPointer",
    .basicsize = sizeof(MemoryObject),
    /* not immutable: users replace methods on the class, as they can numba's */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = MemoryPointer_slots,
};

/* Module functions: raw allocations in the current context, and the queue's controls. */

static PyObject *module_alloc(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"size", "kind", "portable", "wc", NULL};
    module_state *st = state_of_module(module);
    Py_ssize_t size;
    const char *kind = "device";
    int portable = 0, write_combined = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|spp:_alloc", keywords, &size, &kind, &portable,
                                     &write_combined))
        return NULL;
    if (size <= 0) {
        PyErr_Format(PyExc_ValueError, "allocation size must be positive, not %zd", size);
        return NULL;
    }
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    if (strcmp(kind, "device") == 0)
        return memory_alloc_device(st, context, (size_t)size);
    if (strcmp(kind, "pinned") == 0 || strcmp(kind, "mapped") == 0)
        return memory_alloc_host(st, context, (size_t)size, kind[0] == 'm', portable, write_combined);
    if (strcmp(kind, "managed") == 0)
        return memory_alloc_managed(st, context, (size_t)size, 1);
    PyErr_Format(PyExc_ValueError, "unknown memory kind %s", kind);
    return NULL;
}

static PyObject *module_register(PyObject *module, PyObject *args)
{
    module_state *st = state_of_module(module);
    PyObject *obj;
    int mapped;
    if (!PyArg_ParseTuple(args, "Op:_register", &obj, &mapped))
        return NULL;
    ContextObject *context = context_current(st);
    return context ? memory_register(st, context, obj, mapped) : NULL;
}

/* _registrations() -> (ranges, users): host ranges cuda.pinned / cuda.mapped hold page-locked now. */
static PyObject *module_registrations(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(unused))
{
    size_t ranges;
    long users;
    Py_BEGIN_ALLOW_THREADS /* the table's lock is taken without the GIL */
    registration_counts(&ranges, &users);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(nl)", (Py_ssize_t)ranges, users);
}

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

/* _use_memory_pool(flag): device allocations from now on come from the stream-ordered pool (or not).
 * Checked at the next allocation of each context, so that it can be set before CUDA is loaded. */
static PyObject *module_use_memory_pool(PyObject *module, PyObject *flag)
{
    int on = PyObject_IsTrue(flag);
    if (on < 0)
        return NULL;
    module_state *st = state_of_module(module);
    st->memory_pool = on;
    if (on && st->devices != NULL) /* contexts set up already: prepare the pools now */
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(st->devices); i++) {
            DeviceObject *device = (DeviceObject *)PyTuple_GET_ITEM(st->devices, i);
            if (device->primary_context != NULL && device->primary_context->deallocations.max_bytes != 0 &&
                pool_prepare(st, device->primary_context) < 0) {
                st->memory_pool = 0;
                return NULL;
            }
        }
    Py_RETURN_NONE;
}

/* _ipc_get_handle(pointer) -> (handle: 64 bytes, offset, device ordinal): the IPC handle of the
 * allocation that holds `pointer` (cuIpcGetMemHandle takes the allocation's base), where the pointer
 * lies in it, and the device it is on. */
static PyObject *module_ipc_get_handle(PyObject *module, PyObject *pointer_obj)
{
    module_state *st = state_of_module(module);
    CUdeviceptr pointer = PyLong_AsUnsignedLongLong(pointer_obj), base = 0;
    size_t size = 0;
    CUipcMemHandle handle;
    if (pointer == (CUdeviceptr)-1 && PyErr_Occurred())
        return NULL;
    int ordinal = 0;
    DeviceObject *device = NULL;
    ContextObject *context = NULL;
    if (context_current(st) == NULL ||
        CU_CALL(st, cuPointerGetAttribute, (&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, pointer)) < 0 ||
        (device = device_get(st, ordinal)) == NULL || (context = device_primary_context(st, device)) == NULL ||
        /* the handle is made in the memory's own context */
        IN_CONTEXT(st, context,
                   CU_CALL(st, cuMemGetAddressRange, (&base, &size, pointer)) < 0 ||
                       CU_CALL(st, cuIpcGetMemHandle, (&handle, base)) < 0) < 0)
        return NULL;
    return Py_BuildValue("(y#Ki)", handle.reserved, (Py_ssize_t)sizeof handle.reserved,
                         (unsigned long long)(pointer - base), ordinal);
}

/* Opens another process's allocation in `context` (current): a new MemoryPointer, or NULL. */
static MemoryObject *ipc_open(module_state *st, ContextObject *context, CUipcMemHandle handle)
{
    MemoryObject *memory = memory_new(st, context, MEMORY_IPC, 0);
    if (memory == NULL)
        return NULL;
    CUresult rc =
        CU_BLOCKING(cu.cuIpcOpenMemHandle(&memory->device_pointer, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CUdeviceptr base;
    if (cu_check(st, rc, "cuIpcOpenMemHandle") < 0 ||
        CU_CALL(st, cuMemGetAddressRange, (&base, &memory->size, memory->device_pointer)) < 0) {
        if (rc != CUDA_SUCCESS)
            memory->device_pointer = 0; /* nothing opened: nothing to close */
        Py_DECREF(memory);
        return NULL;
    }
    return memory;
}

/* _ipc_open(handle: 64 bytes, devnum=None) -> MemoryPointer of another process's allocation, opened
 * in device devnum's primary context (None: the current context), closed (cuIpcCloseMemHandle) when
 * the last array over it goes. */
static PyObject *module_ipc_open(PyObject *module, PyObject *args)
{
    module_state *st = state_of_module(module);
    PyObject *handle_obj, *devnum_obj = Py_None;
    Py_buffer view;
    CUipcMemHandle handle;
    int devnum = -1;
    if (!PyArg_ParseTuple(args, "O|O:_ipc_open", &handle_obj, &devnum_obj) ||
        (devnum_obj != Py_None && int_from_object(devnum_obj, &devnum, "devnum") < 0) ||
        PyObject_GetBuffer(handle_obj, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int ok = view.len == (Py_ssize_t)sizeof handle.reserved;
    if (ok)
        memcpy(handle.reserved, view.buf, sizeof handle.reserved);
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "an IPC handle is %d bytes", (int)sizeof handle.reserved);
        return NULL;
    }
    ContextObject *context = NULL;
    if (devnum < 0)
        context = context_current(st);
    else if (cu_require_driver(st) == 0) {
        DeviceObject *device = device_get(st, devnum);
        context = device ? device_primary_context(st, device) : NULL;
    }
    MemoryObject *memory = NULL;
    if (context == NULL || IN_CONTEXT(st, context, (memory = ipc_open(st, context, handle)) == NULL) < 0) {
        Py_XDECREF(memory);
        return NULL;
    }
    return (PyObject *)memory;
}

/* _set_memory_plugin(cls or None): device memory comes from instances of this EMM plugin class. */
static PyObject *module_set_memory_plugin(PyObject *module, PyObject *plugin)
{
    module_state *st = state_of_module(module);
    Py_XSETREF(st->memory_plugin, plugin == Py_None ? NULL : Py_NewRef(plugin));
    if (st->devices != NULL) /* instances of another plugin go; the next allocation makes new ones */
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(st->devices); i++) {
            DeviceObject *device = (DeviceObject *)PyTuple_GET_ITEM(st->devices, i);
            if (device->primary_context != NULL)
                Py_CLEAR(device->primary_context->memory_manager);
        }
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

PyMethodDef memory_module_methods[] = {
    {"_alloc", (PyCFunction)(void (*)(void))module_alloc, METH_VARARGS | METH_KEYWORDS,
     "_alloc(size, kind='device', portable=False, wc=False): a MemoryPointer in the current context."},
    {"_register", module_register, METH_VARARGS, "_register(obj, mapped): page-lock obj's buffer."},
    {"_registrations", module_registrations, METH_NOARGS,
     "(ranges, users): the host ranges pinned()/mapped() hold page-locked, and their users."},
    {"_defer_cleanup", module_defer_cleanup, METH_O, "Enter (+1) or leave (-1) defer_cleanup()."},
    {"_ipc_get_handle", module_ipc_get_handle, METH_O, "(handle, offset) of the allocation holding a pointer."},
    {"_ipc_open", module_ipc_open, METH_VARARGS,
     "_ipc_open(handle, devnum=None): open another process's IPC handle on that device: a MemoryPointer."},
    {"_set_memory_plugin", module_set_memory_plugin, METH_O, "Use an EMM plugin class (None: the default)."},
    {"_use_memory_pool", module_use_memory_pool, METH_O,
     "_use_memory_pool(flag): allocate device memory from the stream-ordered pool."},
    {"_pending_deallocations", module_pending_deallocations, METH_NOARGS,
     "(count, bytes) of frees queued on the current context."},
    {"_flush_deallocations", module_flush_deallocations, METH_NOARGS, "Free everything queued, now."},
    {0},
};

int memory_type_init(PyObject *module, module_state *st)
{
    if (env_size("NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", 10, &st->max_pending_count) < 0 ||
        env_double("NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", 0.2, &st->max_pending_ratio) < 0 ||
        env_size("NUMBA_CUDA_C_STAGING_THRESHOLD", (size_t)4 << 20, &st->staging_threshold) < 0) /* transfer.c */
        return -1;
    if (st->staging_threshold == 0)
        st->staging_threshold = (size_t)-1; /* 0: no staging ring */
    st->MemoryPointerType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &MemoryPointer_spec, NULL);
    if (st->MemoryPointerType == NULL)
        return -1;
    return PyModule_AddType(module, st->MemoryPointerType);
}
