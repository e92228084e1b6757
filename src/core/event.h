/* event.h: Event (numba.cuda.cudadrv.driver.Event): record, query, synchronize, wait, timing. */
#ifndef NUMBA_CUDA_C_EVENT_H
#define NUMBA_CUDA_C_EVENT_H

#include "core/context.h"

typedef struct {
    PyObject_HEAD
    ContextObject *context;
    CUevent handle;
    int timing;
    PyObject *weakreflist;
} EventObject;

/* Creates an event in `context` (cuEventCreate). New reference. */
PyObject *event_create(module_state *st, ContextObject *context, int timing);

int event_type_init(PyObject *module, module_state *st);
extern PyMethodDef event_module_methods[];

#endif
