/* ipc.c: CUDA IPC, device memory shared between processes: the handle of an allocation
 * (cuIpcGetMemHandle) and another process's allocation opened from one (cuIpcOpenMemHandle), as a
 * MemoryPointer closed when its last array goes. numba's Context.get_ipc_handle / open_ipc_handle
 * call these through Python (cudadrv/driver.py). */
#include "core/ipc.h"

#include "driver/errors.h"
#include "core/memory.h"

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

PyMethodDef ipc_module_methods[] = {
    {"_ipc_get_handle", module_ipc_get_handle, METH_O, "(handle, offset) of the allocation holding a pointer."},
    {"_ipc_open", module_ipc_open, METH_VARARGS,
     "_ipc_open(handle, devnum=None): open another process's IPC handle on that device: a MemoryPointer."},
    {0},
};
