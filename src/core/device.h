/* device.h: Device, one object per CUDA device for the life of the module, and the device list.
 * A Device owns its primary Context object while that context is retained. */
#ifndef NUMBA_CUDA_C_DEVICE_H
#define NUMBA_CUDA_C_DEVICE_H

#include "driver/state.h"

typedef struct {
    PyObject_HEAD
    int id;
    CUdevice handle;
    int cc_major, cc_minor;
    PyObject *name;                 /* str, as numba-cuda's Device.name */
    PyObject *uuid;                 /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    ContextObject *primary_context; /* NULL until retained, and again after reset() */
    PyObject *attributes;           /* cache of attributes read by name (MAX_THREADS_PER_BLOCK, ...) */
    /* A reset releases the GIL (waiting for copies, resetting): meanwhile no thread may retain the
     * primary context, which the reset would destroy under it. */
    int resetting;
    unsigned long resets; /* how many resets began: a retain that spans one is given back */
} DeviceObject;

/* The tuple of all devices, built at first use (loads the driver). New reference. */
PyObject *devices_all(module_state *st);

/* Device number devnum, borrowed; IndexError/CudaSupportError on failure. */
DeviceObject *device_get(module_state *st, int devnum);

int device_type_init(PyObject *module, module_state *st);
extern PyMethodDef device_module_methods[];

#endif
