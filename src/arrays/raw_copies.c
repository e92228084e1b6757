/* raw_copies.c: the raw-pointer helpers of numba.cuda.cudadrv.driver (host_to_device,
 * device_to_host, device_to_device, device_memset, device_extents) and the thread's context
 * stack as numba's driver object shows it. The Python wrappers are in cudadrv/driver.py. */
#include "driver/errors.h"
#include "arrays/raw_copies.h"
#include "core/stream.h"
#include "core/copies.h"

/* _memcpy(direction, dst, src, size, stream): direction 0 host->device, 1 device->host, 2
 * device->device; dst and src are addresses; stream 0 is a synchronous copy, as numba's. */
static PyObject *module_memcpy(PyObject *module, PyObject *args)
{
    module_state *st = state_of_module(module);
    int direction;
    unsigned long long dst, src;
    Py_ssize_t size;
    PyObject *stream;
    if (!PyArg_ParseTuple(args, "iKKnO:_memcpy", &direction, &dst, &src, &size, &stream))
        return NULL;
    if (direction < HOST_TO_DEVICE || direction > DEVICE_TO_DEVICE || size < 0) {
        PyErr_SetString(PyExc_ValueError, "_memcpy: bad direction or negative size");
        return NULL;
    }
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    void *host = direction == HOST_TO_DEVICE ? (void *)(uintptr_t)src : (void *)(uintptr_t)dst;
    CUdeviceptr device_dst = direction == DEVICE_TO_HOST ? 0 : (CUdeviceptr)dst;
    CUdeviceptr device_src = direction == HOST_TO_DEVICE ? 0 : (CUdeviceptr)src;
    if (direction == DEVICE_TO_DEVICE)
        host = NULL;
    if (transfer_copy(st, context, host, device_dst, device_src, (size_t)size, stream,
                      (transfer_direction)direction) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* size bytes of value at dst on the stream, waited for where `sync`. Without the GIL. */
static CUresult memset_bytes(CUdeviceptr dst, int value, size_t size, CUstream stream, int sync)
{
    return stream_wait_after(cu.cuMemsetD8Async(dst, (unsigned char)value, size, stream), stream, sync);
}

/* _memset(dst, value, size, stream): size bytes of value; synchronous for stream 0. */
static PyObject *module_memset(PyObject *module, PyObject *args)
{
    module_state *st = state_of_module(module);
    unsigned long long dst;
    int value;
    Py_ssize_t size;
    PyObject *stream_obj;
    if (!PyArg_ParseTuple(args, "KinO:_memset", &dst, &value, &size, &stream_obj))
        return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "device_memset: size must not be negative");
        return NULL;
    }
    int sync = stream_is_default(stream_obj);
    CUstream stream;
    ContextObject *context = context_current(st);
    if (context == NULL || stream_handle_from_object(st, sync ? Py_None : stream_obj, &stream) < 0 ||
        IN_CONTEXT(st, context,
                   cu_check(st, CU_BLOCKING(memset_bytes((CUdeviceptr)dst, value, (size_t)size, stream, sync)),
                            "cuMemsetD8Async") < 0) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* _device_extents(pointer): (start, end) of the allocation holding pointer (cuMemGetAddressRange). */
static PyObject *module_device_extents(PyObject *module, PyObject *pointer_obj)
{
    module_state *st = state_of_module(module);
    unsigned long long pointer = PyLong_AsUnsignedLongLong(pointer_obj);
    if (pointer == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    CUdeviceptr base = 0;
    size_t size = 0;
    if (context_current(st) == NULL || CU_CALL(st, cuMemGetAddressRange, (&base, &size, (CUdeviceptr)pointer)) < 0)
        return NULL;
    return Py_BuildValue("(KK)", (unsigned long long)base, (unsigned long long)(base + size));
}

/* _active_context(): (handle, device ordinal) of this thread's current context, or (None, None). */
static PyObject *module_active_context(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    CUcontext current = NULL;
    CUdevice device = 0;
    if (cu_require_driver(st) < 0 || CU_CALL(st, cuCtxGetCurrent, (&current)) < 0)
        return NULL;
    if (current == NULL)
        return Py_BuildValue("(OO)", Py_None, Py_None);
    if (CU_CALL(st, cuCtxGetDevice, (&device)) < 0)
        return NULL;
    return Py_BuildValue("(Ni)", PyLong_FromVoidPtr(current), (int)device);
}

/* _pop_context(): pops this thread's current context; its handle, or None when there was none. */
static PyObject *module_pop_context(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    CUcontext current = NULL;
    if (cu_require_driver(st) < 0 || CU_CALL(st, cuCtxGetCurrent, (&current)) < 0)
        return NULL;
    if (current == NULL)
        Py_RETURN_NONE;
    if (CU_CALL(st, cuCtxPopCurrent, (&current)) < 0)
        return NULL;
    Py_CLEAR(st->last_context); /* the cache of "the current context" is stale now */
    return PyLong_FromVoidPtr(current);
}

PyMethodDef driver_module_methods[] = {
    {"_memcpy", module_memcpy, METH_VARARGS, "_memcpy(direction, dst, src, size, stream): a raw copy."},
    {"_memset", module_memset, METH_VARARGS, "_memset(dst, value, size, stream): a raw byte fill."},
    {"_device_extents", module_device_extents, METH_O, "(start, end) of the allocation holding a pointer."},
    {"_active_context", module_active_context, METH_NOARGS, "(handle, devnum) of the current context, or Nones."},
    {"_pop_context", module_pop_context, METH_NOARGS, "Pop the current context: its handle, or None."},
    {0},
};
