/* context.h: Context, a device's primary context as numba wraps it, and the per-thread
 * notion of "current" (the driver's own context stack, cuCtxGetCurrent). */
#ifndef NUMBA_CUDA_C_CONTEXT_H
#define NUMBA_CUDA_C_CONTEXT_H

#include "device.h"

struct ContextObject {
    PyObject_HEAD
    DeviceObject *device;
    CUcontext handle; /* NULL once the context was released or reset: the object is then dead */
    PyObject *weakreflist;
};

/* Creates the Context object for a primary context this process has just retained. */
ContextObject *context_new(module_state *st, DeviceObject *device, CUcontext handle);

/* The context current on this thread, made current (device 0's primary) if none is. Borrowed.
 * numba's devices.get_context() with no device number. */
ContextObject *context_current(module_state *st);

/* Makes device devnum's primary context current by pushing it. Borrowed. numba's get_context(devnum). */
ContextObject *context_activate(module_state *st, int devnum);

/* Raises CudaDriverError if the context was reset or released. */
static inline int context_check_alive(module_state *st, ContextObject *context)
{
    if (context->handle != NULL)
        return 0;
    PyErr_SetString(st->CudaDriverError, "the CUDA context was reset or closed: objects made in it are invalid");
    return -1;
}

/* Marks the context dead (after release or reset) and drops the module's cache of it. */
void context_mark_dead(module_state *st, ContextObject *context);

/* Makes `context` current for a call that acts on the current context, pushing it only where
 * another is current; context_exit pops what context_enter pushed. */
int context_enter(module_state *st, ContextObject *context, int *pushed);
int context_exit(module_state *st, int pushed);

int context_type_init(PyObject *module, module_state *st);
extern PyMethodDef context_module_methods[];

#endif
