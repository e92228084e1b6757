/* context_memory.c: the Context methods and attribute of memory, as numba's Context has them: raw
 * allocations (memalloc, memhostalloc, memallocmanaged, mempin), IPC handles, get_memory_info and the
 * memory manager. They are added to Context at init (context.c, below memory, calls none of them). */
#include "core/context_memory.h"

#include "core/memory_alloc.h"
#include "driver/errors.h"
#include "driver/python_helpers.h"

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

/* mempin(owner, pointer, size, mapped=False) and get_ipc_handle(memory), as numba's Context. */
static PyObject *Context_mempin(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"owner", "pointer", "size", "mapped", NULL};
    PyObject *owner, *pointer, *size;
    int mapped = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|p:mempin", keywords, &owner, &pointer, &size, &mapped))
        return NULL;
    return python_call(state_of(op), HELPER_CONTEXT_MEMPIN,
                       Py_BuildValue("(OOOOO)", op, owner, pointer, size, mapped ? Py_True : Py_False));
}

static PyObject *Context_get_ipc_handle(PyObject *op, PyObject *memory)
{
    return python_call(state_of(op), HELPER_CONTEXT_GET_IPC_HANDLE, PyTuple_Pack(2, op, memory));
}

static PyObject *Context_open_ipc_handle(PyObject *op, PyObject *args)
{
    PyObject *handle, *size;
    if (!PyArg_ParseTuple(args, "OO:open_ipc_handle", &handle, &size))
        return NULL;
    return python_call(state_of(op), HELPER_CONTEXT_OPEN_IPC_HANDLE, PyTuple_Pack(3, op, handle, size));
}

static PyObject *Context_get_memory_info(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    if (st->memory_plugin != NULL || ((ContextObject *)op)->memory_manager != NULL) { /* numba asks the manager */
        PyObject *manager = memory_manager_of(st, (ContextObject *)op);
        return manager ? PyObject_CallMethod(manager, "get_memory_info", NULL) : NULL;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (CU_CALL_IN(st, (ContextObject *)op, cuMemGetInfo, (&free_bytes, &total_bytes)) < 0)
        return NULL;
    return PyObject_CallFunction((PyObject *)st->MemoryInfoType, "nn", (Py_ssize_t)free_bytes,
                                 (Py_ssize_t)total_bytes);
}

static PyMethodDef Context_memory_methods[] = {
    {"get_memory_info", Context_get_memory_info, METH_NOARGS,
     "Returns (free, total) memory in bytes in the context."},
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
    {0},
};

/* memory_manager: the plugin's instance, or (no plugin) an object for numba's built-in manager,
 * whose .deallocations is this context's queue. Writable, as numba's: a plugin instance given
 * here is initialize()d and allocates this context's device memory from then on; None (or the
 * built-in manager's object) goes back to the default. */
static PyObject *Context_get_memory_manager(PyObject *op, void *Py_UNUSED(closure))
{
    module_state *st = state_of(op);
    ContextObject *self = (ContextObject *)op;
    if (st->memory_plugin == NULL && self->memory_manager == NULL)
        return python_call(st, HELPER_BUILTIN_MEMORY_MANAGER, PyTuple_Pack(1, op));
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

static PyGetSetDef Context_memory_getset[] = {
    {"memory_manager", Context_get_memory_manager, Context_set_memory_manager,
     "The memory manager: an EMM plugin's instance, or the built-in one's object. Writable.", NULL},
    {0},
};

int context_memory_init(PyObject *Py_UNUSED(module), module_state *st)
{
    if (type_add_methods(st->ContextType, Context_memory_methods) < 0 ||
        type_add_getset(st->ContextType, Context_memory_getset) < 0)
        return -1;
    return 0;
}
