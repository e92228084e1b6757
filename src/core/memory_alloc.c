/* memory_alloc.c: allocations into new MemoryPointers: device memory (cuMemAlloc, or the
 * stream-ordered pool), pinned, mapped and managed host memory, memory from an EMM plugin, and host
 * memory another object owns, page-locked (cuda.pinned / cuda.mapped). Each retries once after
 * flushing the context's deallocation queue where the driver is out of memory. */
#include "core/memory_alloc.h"

#include "driver/errors.h"
#include "core/registration.h"
#include "core/rescue.h"

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

/* Module functions: allocations in the current context, the pool and the plugin. */

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

PyMethodDef memory_alloc_module_methods[] = {
    {"_alloc", (PyCFunction)(void (*)(void))module_alloc, METH_VARARGS | METH_KEYWORDS,
     "_alloc(size, kind='device', portable=False, wc=False): a MemoryPointer in the current context."},
    {"_use_memory_pool", module_use_memory_pool, METH_O,
     "_use_memory_pool(flag): allocate device memory from the stream-ordered pool."},
    {"_set_memory_plugin", module_set_memory_plugin, METH_O, "Use an EMM plugin class (None: the default)."},
    {"_registrations", module_registrations, METH_NOARGS,
     "(ranges, users): the host ranges pinned()/mapped() hold page-locked, and their users."},
    {"_register", module_register, METH_VARARGS, "_register(obj, mapped): page-lock obj's buffer."},
    {0},
};
