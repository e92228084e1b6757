/* copies.c: transfer_copy, the one copy of bytes between host and device memory (copies.h), and the
 * overrides of numba's driver object that it calls instead where a program set them. */
#include "core/copies.h"

#include "driver/errors.h"
#include "core/graph.h"
#include "core/staging.h"
#include "core/stream.h"

/* Large copies between the device and pageable host memory go through the context's staging ring
 * (staging.h), made at first need: worker threads copy between the host memory and pinned slots
 * while the DMA engine moves the slots, where the driver's own staging runs at a fraction of the
 * bus (and, into memory just allocated, takes the page faults one at a time). Pinned, registered
 * and managed host memory, and copies under NUMBA_CUDA_C_STAGING_THRESHOLD bytes, go to the driver
 * directly. */
#define STAGING_CHUNK ((size_t)2 << 20)
#define STAGING_SLOTS 32

/* The context's ring (the context current), made now if need be; NULL (no error) where it cannot be. */
static staging_ring *context_staging(ContextObject *context)
{
    if (context->staging != NULL || context->staging_closed)
        return context->staging;
    staging_ring *ring = PyMem_RawMalloc(sizeof *ring);
    if (ring == NULL)
        return NULL;
    CUresult rc;
    /* counted as a user, so that a release or reset waits for the new ring to be kept or destroyed
     * (context_free_staging) before it destroys the context */
    context->staging_users++;
    CU_BEGIN_ALLOW_THREADS
    rc = staging_ring_create(ring, STAGING_CHUNK, STAGING_SLOTS, 0); /* 64 MiB pinned: milliseconds */
    CU_END_ALLOW_THREADS
    if (rc != CUDA_SUCCESS || context->staging != NULL || context->staging_closed) {
        /* failed, or another thread made one meanwhile, or the context is going */
        if (rc == CUDA_SUCCESS) {
            CU_BEGIN_ALLOW_THREADS
            staging_ring_destroy(ring);
            CU_END_ALLOW_THREADS
        }
        PyMem_RawFree(ring);
        ring = context->staging;
    } else {
        context->staging = ring;
    }
    context->staging_users--;
    return ring;
}

/* Whether host memory is pageable: the driver knows nothing of it (not pinned, registered or managed). */
static int host_is_pageable(const void *host)
{
    unsigned int type;
    CUresult rc;
    CU_UNBLOCKED(rc, cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)host));
    return rc != CUDA_SUCCESS;
}

/* A copy function set on numba's driver object (driver.cuMemcpyHtoD = f: test suites that forbid transfers, or
 * count them) is what a copy calls, as numba's copies call the attribute: f(dst, src, size[, stream handle]) with
 * numba's argument order. 1: it was called (0 or -1 returned through *status); 0: none set for this copy. */
static int call_driver_override(module_state *st, void *host, CUdeviceptr device_dst, CUdeviceptr device_src,
                                size_t size, PyObject *stream, int sync, transfer_direction direction, int *status)
{
    static const char *names[2][3] = {{"cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync"},
                                      {"cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD"}};
    PyObject *override = PyDict_GetItemString(st->driver_overrides, names[sync ? 1 : 0][direction]); /* borrowed */
    if (override == NULL)
        return 0;
    unsigned long long dst = direction == DEVICE_TO_HOST ? (unsigned long long)(uintptr_t)host : device_dst;
    unsigned long long src = direction == HOST_TO_DEVICE ? (unsigned long long)(uintptr_t)host : device_src;
    CUstream handle = NULL;
    PyObject *result = NULL;
    Py_INCREF(override); /* it may remove itself */
    if (sync)
        result = PyObject_CallFunction(override, "KKn", dst, src, (Py_ssize_t)size);
    else if (stream_handle_from_object(st, stream, &handle) == 0)
        result = PyObject_CallFunction(override, "KKnK", dst, src, (Py_ssize_t)size,
                                       (unsigned long long)(uintptr_t)handle);
    Py_DECREF(override);
    Py_XDECREF(result);
    *status = result == NULL ? -1 : 0;
    return 1;
}

/* The copy, in `context` (current): through its staging ring where the host memory is pageable and
 * the copy large, else by the driver; with the GIL released. */
static int copy_in_context(module_state *st, ContextObject *context, void *host, CUdeviceptr device_dst,
                           CUdeviceptr device_src, size_t size, CUstream handle, int sync,
                           transfer_direction direction)
{
    static const char *names[] = {"cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD"};
    CUresult rc = CUDA_SUCCESS;
    /* numba's stream 0 is the synchronous API; under the per-thread default stream that means an
     * async copy on CU_STREAM_PER_THREAD and a wait (what the _ptds entry points do). A staged copy
     * returns when it is done, on any stream, as the driver's copies of pageable memory do. */
    int use_sync_api = sync && handle == NULL;
    staging_ring *ring = NULL;
    if (direction != DEVICE_TO_DEVICE && size >= st->staging_threshold && host_is_pageable(host))
        ring = context_staging(context);
    if (ring != NULL)
        context->staging_users++; /* the ring stays until this copy is done (context_free_staging) */
    CU_BEGIN_ALLOW_THREADS
    if (ring != NULL && direction == HOST_TO_DEVICE) {
        rc = staging_copy_to_device(ring, device_dst, host, size, handle);
    } else if (ring != NULL) {
        staging_hugepage_hint(host, size); /* where the pages are fresh, fault them in 2 MiB at a time */
        rc = staging_copy(ring, host, device_src, size, handle);
    } else {
        switch (direction) {
        case HOST_TO_DEVICE:
            rc = use_sync_api ? cu.cuMemcpyHtoD(device_dst, host, size)
                              : cu.cuMemcpyHtoDAsync(device_dst, host, size, handle);
            break;
        case DEVICE_TO_HOST:
            rc = use_sync_api ? cu.cuMemcpyDtoH(host, device_src, size)
                              : cu.cuMemcpyDtoHAsync(host, device_src, size, handle);
            break;
        case DEVICE_TO_DEVICE:
            rc = use_sync_api ? cu.cuMemcpyDtoD(device_dst, device_src, size)
                              : cu.cuMemcpyDtoDAsync(device_dst, device_src, size, handle);
            break;
        }
        rc = stream_wait_after(rc, handle, sync && !use_sync_api);
    }
    CU_END_ALLOW_THREADS
    if (ring != NULL)
        context->staging_users--;
    return cu_check(st, rc, names[direction]);
}

int transfer_copy(module_state *st, ContextObject *context, void *host, CUdeviceptr device_dst,
                  CUdeviceptr device_src, size_t size, PyObject *stream, transfer_direction direction)
{
    CUstream handle;
    int sync = stream_is_default(stream), status;
    if (size == 0)
        return 0;
    if (st->driver_overrides != NULL && /* one pointer test on the usual path */
        call_driver_override(st, host, device_dst, device_src, size, stream, sync, direction, &status))
        return status;
    if (stream_handle_from_object(st, sync ? Py_None : stream, &handle) < 0)
        return -1;
    if (direction != DEVICE_TO_DEVICE && graph_capturing(st, stream) && host_is_pageable(host)) {
        PyErr_SetString(PyExc_ValueError,
                        "a copy between the device and pageable host memory cannot be captured "
                        "into a graph (the graph would read or write it long after this call): copy to or from "
                        "pinned memory (cuda.pinned_array) on a capturing stream");
        return -1;
    }
    return IN_CONTEXT(
        st, context, copy_in_context(st, context, host, device_dst, device_src, size, handle, sync, direction) < 0);
}

/* _driver_override(name, function or None): what numba's driver object's copy attribute is now (cudadrv/driver.py)
 */
static PyObject *module_driver_override(PyObject *module, PyObject *args)
{
    module_state *st = state_of_module(module);
    PyObject *name, *function;
    if (!PyArg_ParseTuple(args, "UO:_driver_override", &name, &function))
        return NULL;
    if (function == Py_None) {
        if (st->driver_overrides != NULL && PyDict_DelItem(st->driver_overrides, name) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError))
                return NULL;
            PyErr_Clear();
        }
        if (st->driver_overrides != NULL && PyDict_GET_SIZE(st->driver_overrides) == 0)
            Py_CLEAR(st->driver_overrides); /* none left: the copies' one test fails again */
        Py_RETURN_NONE;
    }
    if (!PyCallable_Check(function)) {
        PyErr_SetString(PyExc_TypeError, "a driver function must be callable");
        return NULL;
    }
    if (st->driver_overrides == NULL && (st->driver_overrides = PyDict_New()) == NULL)
        return NULL;
    if (PyDict_SetItem(st->driver_overrides, name, function) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef copies_module_methods[] = {
    {"_driver_override", module_driver_override, METH_VARARGS,
     "_driver_override(name, function or None): copies call this in place of the driver's cuMemcpy* (None: the "
     "driver again)."},
    {0},
};
