/* event.c: Event, a CUDA event of one context (cuEventCreate), with numba's record, query,
 * synchronize, wait and elapsed_time. Destroyed with its object unless its context was reset. */
#include "core/event.h"

#include "driver/errors.h"
#include "core/deallocations.h"
#include "core/stream.h"

#include <structmember.h>

PyObject *event_create(module_state *st, ContextObject *context, int timing)
{
    CUevent handle = NULL;
    if (CU_CALL_IN(st, context, cuEventCreate, (&handle, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING)) < 0)
        return NULL;
    EventObject *self = PyObject_New(EventObject, st->EventType);
    if (self == NULL) {
        cu_report_unraisable(st, cu.cuEventDestroy(handle), "cuEventDestroy");
        return NULL;
    }
    self->context = (ContextObject *)Py_NewRef((PyObject *)context);
    self->handle = handle;
    self->timing = timing;
    self->weakreflist = NULL;
    return (PyObject *)self;
}

static int event_check(module_state *st, PyObject *obj, const char *what)
{
    if (!Py_IS_TYPE(obj, st->EventType)) {
        PyErr_Format(PyExc_TypeError, "%s must be an Event (cuda.event()), not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return context_check_alive(st, ((EventObject *)obj)->context);
}

static PyObject *Event_record(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    module_state *st = state_of(op);
    EventObject *self = (EventObject *)op;
    CUstream stream;
    if (context_check_alive(st, self->context) < 0 ||
        stream_parse_argument(st, "record", args, nargs, kwnames, &stream) < 0)
        return NULL;
    if (CU_CALL_IN(st, self->context, cuEventRecord, (self->handle, stream)) <
        0) /* the default stream is the current context's */
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Event_wait(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    module_state *st = state_of(op);
    EventObject *self = (EventObject *)op;
    CUstream stream;
    if (context_check_alive(st, self->context) < 0 ||
        stream_parse_argument(st, "wait", args, nargs, kwnames, &stream) < 0 ||
        CU_CALL(st, cuStreamWaitEvent, (stream, self->handle, 0)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Event_query(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    EventObject *self = (EventObject *)op;
    if (context_check_alive(st, self->context) < 0)
        return NULL;
    CUresult rc = cu.cuEventQuery(self->handle);
    if (rc == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (cu_check(st, rc, "cuEventQuery") < 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyObject *Event_synchronize(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    EventObject *self = (EventObject *)op;
    if (context_check_alive(st, self->context) < 0)
        return NULL;
    /* An event already reached needs no wait: cuEventQuery is cheaper than a blocking call. */
    if (cu.cuEventQuery(self->handle) == CUDA_SUCCESS)
        Py_RETURN_NONE;
    if (CU_BLOCKING_CALL(st, cuEventSynchronize, (self->handle)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Milliseconds between two recorded events, as numba's event_elapsed_time. */
static PyObject *elapsed_time(module_state *st, PyObject *start, PyObject *end)
{
    if (event_check(st, start, "evtstart") < 0 || event_check(st, end, "evtend") < 0)
        return NULL;
    EventObject *first = (EventObject *)start, *last = (EventObject *)end;
    if (!first->timing || !last->timing) {
        PyErr_SetString(PyExc_ValueError,
                        "event_elapsed_time needs events created with timing=True; this one has timing disabled");
        return NULL;
    }
    if (context_check_alive(st, first->context) < 0 || context_check_alive(st, last->context) < 0)
        return NULL;
    if (first->context != last->context) {
        PyErr_Format(PyExc_ValueError,
                     "event_elapsed_time: the events belong to different devices (%d and %d); "
                     "timing needs two events of one context",
                     first->context->device->id, last->context->device->id);
        return NULL;
    }
    float milliseconds = 0;
    CUresult rc = cu.cuEventElapsedTime(&milliseconds, first->handle, last->handle);
    if (rc == CUDA_ERROR_INVALID_HANDLE) {
        PyErr_SetString(st->CudaDriverError, "event_elapsed_time: both events must have been recorded "
                                             "(cuEventElapsedTime returned CUDA_ERROR_INVALID_HANDLE)");
        return NULL;
    }
    if (cu_check(st, rc, "cuEventElapsedTime") < 0)
        return NULL;
    return PyFloat_FromDouble(milliseconds);
}

static PyObject *Event_elapsed_time(PyObject *op, PyObject *evtend)
{
    return elapsed_time(state_of(op), op, evtend);
}

static PyObject *Event_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((EventObject *)op)->handle);
}

static PyObject *Event_repr(PyObject *op)
{
    EventObject *self = (EventObject *)op;
    return PyUnicode_FromFormat("<CUDA event %p on device %d%s>", self->handle, self->context->device->id,
                                self->timing ? "" : ", timing disabled");
}

static CUresult destroy_event(void *handle)
{
    return cu.cuEventDestroy((CUevent)handle);
}

static int Event_release(module_state *st, void *arg)
{
    EventObject *self = (EventObject *)arg;
    if (self->context->handle == NULL) /* a reset context destroyed its events already */
        return 0;
    if (stream_in_callback()) /* the driver must not be called there: the main thread destroys it later */
        return memory_defer_destroy(st, self->context, destroy_event, self->handle, "cuEventDestroy");
    return CU_CALL(st, cuEventDestroy, (self->handle));
}

static void Event_dealloc(PyObject *op)
{
    EventObject *self = (EventObject *)op;
    dealloc_begin(op, self->weakreflist);
    dealloc_release(state_for_release(op), Event_release, op, "Event: destroying it");
    Py_DECREF(self->context);
    dealloc_end(op);
}

static PyMethodDef Event_methods[] = {
    REPR_HTML_METHOD,
    {"record", (PyCFunction)(void (*)(void))Event_record, METH_FASTCALL | METH_KEYWORDS,
     "record(stream=0): set the record point of the event to the current point in the given stream."},
    {"wait", (PyCFunction)(void (*)(void))Event_wait, METH_FASTCALL | METH_KEYWORDS,
     "wait(stream=0): all future work submitted to stream will wait until the event completes."},
    {"query", Event_query, METH_NOARGS,
     "Returns True if all work before the most recent record has completed; otherwise, returns False."},
    {"synchronize", Event_synchronize, METH_NOARGS, "Synchronize the host thread for the completion of the event."},
    {"elapsed_time", Event_elapsed_time, METH_O, "elapsed_time(evtend): milliseconds from this event to evtend."},
    {0},
};

static PyGetSetDef Event_getset[] = {
    {"handle", Event_get_handle, NULL, "The CUevent, as an int.", NULL},
    {0},
};

static PyMemberDef Event_members[] = {
    {"context", T_OBJECT, offsetof(EventObject, context), READONLY, "The Context the event belongs to."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(EventObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot Event_slots[] = {
    {Py_tp_doc, "A CUDA event. Create with cuda.event(timing=True)."},
    {Py_tp_repr, Event_repr},
    {Py_tp_methods, Event_methods},
    {Py_tp_getset, Event_getset},
    {Py_tp_members, Event_members},
    {Py_tp_dealloc, Event_dealloc},
    {0, NULL},
};

static PyType_Spec Event_spec = {
    .name = "numba_cuda_c.Event",
    .basicsize = sizeof(EventObject),
    /* not immutable: users replace methods on the class, as they can numba's */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Event_slots,
};

/* Module functions */

static PyObject *module_event(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    module_state *st = state_of_module(module);
    PyObject *timing_obj = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw > 1 || (nkw == 1 && !unicode_equals(PyTuple_GET_ITEM(kwnames, 0), "timing"))) {
        PyErr_SetString(PyExc_TypeError, "event() takes one optional argument, timing");
        return NULL;
    }
    if (nargs + nkw == 1)
        timing_obj = args[0];
    int timing = timing_obj ? PyObject_IsTrue(timing_obj) : 1;
    if (timing < 0)
        return NULL;
    ContextObject *context = context_current(st);
    return context ? event_create(st, context, timing) : NULL;
}

static PyObject *module_event_elapsed_time(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "event_elapsed_time(evtstart, evtend) takes two events");
        return NULL;
    }
    return elapsed_time(state_of_module(module), args[0], args[1]);
}

PyMethodDef event_module_methods[] = {
    {"event", (PyCFunction)(void (*)(void))module_event, METH_FASTCALL | METH_KEYWORDS,
     "event(timing=True): create a CUDA event. Timing data is only recorded if timing is True."},
    {"event_elapsed_time", (PyCFunction)(void (*)(void))module_event_elapsed_time, METH_FASTCALL,
     "Compute the elapsed time between two events in milliseconds."},
    {0},
};

static PyObject *Context_create_event(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"timing", NULL};
    int timing = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:create_event", keywords, &timing))
        return NULL;
    return event_create(state_of(op), (ContextObject *)op, timing);
}

/* The Context methods of this file, added to Context at init (context.c calls none of them). */
static PyMethodDef Context_event_methods[] = {
    {"create_event", (PyCFunction)(void (*)(void))Context_create_event, METH_VARARGS | METH_KEYWORDS,
     "create_event(timing=True): a new event in this context."},
    {0},
};

int event_type_init(PyObject *module, module_state *st)
{
    if (type_add_methods(st->ContextType, Context_event_methods) < 0)
        return -1;
    return type_create(module, &Event_spec, NULL, &st->EventType, 1);
}
