/* memory.c: MemoryPointer, the owner of one allocation of any kind, and its release (allocations:
 * memory_alloc.c; IPC: ipc.c; the queue: deallocations.c).
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

MemoryObject *memory_new(module_state *st, ContextObject *context, memory_kind kind, size_t size)
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
    dealloc_release(state_for_release(op), MemoryPointer_release, op, "MemoryPointer: freeing its memory");
    return 0;
}

static void MemoryPointer_dealloc(PyObject *op)
{
    MemoryObject *self = (MemoryObject *)op;
    dealloc_begin(op, self->weakreflist);
    dealloc_release(state_for_release(op), MemoryPointer_release, op, "MemoryPointer: freeing its memory");
    Py_DECREF(self->context);
    dealloc_end(op);
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
    {"owner", MemoryPointer_get_owner, NULL, "The allocation's owner: itself.", NULL},
    {"refct", MemoryPointer_get_refct, NULL, "1 + the number of live views and own() references.", NULL},
    {"device_ctypes_pointer", MemoryPointer_get_device_ctypes_pointer, NULL, "ctypes.c_size_t(device_pointer).",
     NULL},
    {"device_pointer_value", MemoryPointer_get_device_pointer_value, NULL, "The device address, or None.", NULL},
    {"__cuda_memory__", MemoryPointer_get_true, NULL, "Marks device memory (numba's is_device_memory).", NULL},
    {0},
};

static PyMemberDef MemoryPointer_members[] = {
    {"context", T_OBJECT, offsetof(MemoryObject, context), READONLY, "The Context the memory belongs to."},
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

int memory_type_init(PyObject *module, module_state *st)
{
    if (env_size("NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", 10, &st->max_pending_count) < 0 ||
        env_double("NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", 0.2, &st->max_pending_ratio) < 0 ||
        env_size("NUMBA_CUDA_C_STAGING_THRESHOLD", (size_t)4 << 20, &st->staging_threshold) < 0) /* copies.c */
        return -1;
    if (st->staging_threshold == 0)
        st->staging_threshold = (size_t)-1; /* 0: no staging ring */
    return type_create(module, &MemoryPointer_spec, NULL, &st->MemoryPointerType, 1);
}
