/* stream.c: Stream, a CUDA stream of one context: created, default (legacy or per-thread) or
 * external. Owned streams are destroyed with their object unless the context was reset first
 * (the reset destroyed them). Callbacks run on a driver thread and take the GIL. */
#include "core/stream.h"
#include "driver/python_helpers.h"

#include "driver/callbacks.h"
#include "driver/errors.h"
#include "core/deallocations.h"

#include <structmember.h>

PyObject *stream_new(module_state *st, ContextObject *context, CUstream handle, stream_kind kind)
{
    StreamObject *self = PyObject_New(StreamObject, st->StreamType);
    if (self == NULL)
        return NULL;
    self->context = (ContextObject *)Py_NewRef((PyObject *)context);
    self->handle = handle;
    self->kind = kind;
    self->capture = NULL;
    self->weakreflist = NULL;
    return (PyObject *)self;
}

PyObject *stream_create(module_state *st, ContextObject *context)
{
    CUstream handle = NULL;
    if (CU_CALL_IN(st, context, cuStreamCreate, (&handle, 0)) < 0)
        return NULL;
    PyObject *stream = stream_new(st, context, handle, STREAM_OWNED);
    if (stream == NULL)
        cu_report_unraisable(st, CU_RESULT(cuStreamDestroy, (handle)), "cuStreamDestroy");
    return stream;
}

PyObject *stream_default(module_state *st, ContextObject *context)
{
    if (st->default_stream == CU_STREAM_PER_THREAD)
        return stream_new(st, context, CU_STREAM_PER_THREAD, STREAM_PER_THREAD);
    return stream_new(st, context, NULL, STREAM_DEFAULT);
}

static int stream_handle_from_protocol(PyObject *obj, CUstream *handle);

int stream_handle_from_object(module_state *st, PyObject *obj, CUstream *handle)
{
    if (Py_IS_TYPE(obj, st->StreamType)) {
        StreamObject *stream = (StreamObject *)obj;
        if (context_check_alive(st, stream->context) < 0)
            return -1;
        *handle = stream->handle;
        return 0;
    }
    if (stream_is_default(obj)) {
        *handle = st->default_stream;
        return 0;
    }
    return stream_handle_from_protocol(obj, handle);
}

int stream_parse_argument(module_state *st, const char *method, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, CUstream *handle)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most one argument (stream)", method);
        return -1;
    }
    if (nkw == 1 && !unicode_equals(PyTuple_GET_ITEM(kwnames, 0), "stream")) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", method,
                     PyTuple_GET_ITEM(kwnames, 0));
        return -1;
    }
    if (nargs + nkw == 0) {
        *handle = st->default_stream;
        return 0;
    }
    return stream_handle_from_object(st, args[0], handle); /* by position or keyword, it is args[0] */
}

/* Anyone's stream (cuda.core, CuPy, PyTorch, numba's own): the __cuda_stream__ protocol,
 * obj.__cuda_stream__() -> (version, handle), version 0, handle an int or int-like (CUstream). */
static int stream_handle_from_protocol(PyObject *obj, CUstream *handle)
{
    PyObject *result = NULL, *value = NULL;
    result = PyObject_GetAttrString(obj, "__cuda_stream__");
    if (result == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "Expected a Stream object or 0, got %.100s (a stream= argument takes a Stream, 0 for "
                     "the default stream, or any object with __cuda_stream__)",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_SETREF(result, PyObject_CallNoArgs(result));
    if (result == NULL)
        return -1;
    if (!PyTuple_Check(result) || PyTuple_GET_SIZE(result) != 2) {
        PyErr_Format(PyExc_TypeError, "%.100s.__cuda_stream__() must return a tuple (version, handle), not %.100s",
                     Py_TYPE(obj)->tp_name, Py_TYPE(result)->tp_name);
        goto error;
    }
    long version = PyLong_AsLong(PyTuple_GET_ITEM(result, 0));
    if (version == -1 && PyErr_Occurred())
        goto error;
    if (version != 0) {
        PyErr_Format(PyExc_ValueError, "%.100s.__cuda_stream__() gave version %ld; version 0 is supported",
                     Py_TYPE(obj)->tp_name, version);
        goto error;
    }
    value = PyNumber_Long(PyTuple_GET_ITEM(result, 1)); /* an int, or a CUstream object */
    if (value == NULL)
        goto error;
    void *pointer = PyLong_AsVoidPtr(value);
    if (pointer == NULL && PyErr_Occurred())
        goto error;
    *handle = (CUstream)pointer;
    Py_DECREF(value);
    Py_DECREF(result);
    return 0;
error:
    Py_XDECREF(value);
    Py_DECREF(result);
    return -1;
}

/* numba synchronizes implicitly through the Python attribute (setitem without a stream, a CAI
 * import with a stream), and test suites replace Stream.synchronize on the class to count those
 * calls. One method-cache lookup tells whether it is still ours; only then is the C path taken. */
int stream_synchronize_replaced(module_state *st)
{
    return _PyType_Lookup(st->StreamType, st->str_synchronize) != st->stream_synchronize;
}

int stream_call_synchronize(module_state *st, ContextObject *context, CUstream handle, stream_kind kind)
{
    PyObject *stream = stream_new(st, context, handle, kind);
    if (stream == NULL)
        return -1;
    PyObject *result = PyObject_CallMethodNoArgs(stream, st->str_synchronize);
    Py_DECREF(stream);
    Py_XDECREF(result);
    return result == NULL ? -1 : 0;
}

/* IN_CONTEXT (context.h) for calls on a stream. The special handles (0, legacy, per-thread) mean "of
 * the current context": ours is entered for them. An owned or external stream names its context
 * itself, which need only be alive. */
#define IN_STREAM(st, self, failed)                                                                                \
    ((self)->kind == STREAM_OWNED || (self)->kind == STREAM_EXTERNAL                                               \
         ? (context_check_alive((st), (self)->context) < 0 || (failed) ? -1 : 0)                                   \
         : IN_CONTEXT((st), (self)->context, failed))

/* An idle stream needs no wait: cuStreamQuery is cheaper than a blocking call (but not made with the
 * GIL while a callback is pending: see stream.h). */
static int stream_idle(StreamObject *self)
{
    return !stream_callbacks_pending() && cu.cuStreamQuery(self->handle) == CUDA_SUCCESS;
}

static PyObject *Stream_synchronize(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    StreamObject *self = (StreamObject *)op;
    if (self->capture != NULL) /* refused before the driver sees it, which would also end the capture */
        return cu_raise_message(st, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                                PyUnicode_FromString("synchronize(): this stream is being captured into a graph, "
                                                     "where nothing runs until the graph "
                                                     "is launched; end the capture first")),
               NULL;
    if (IN_STREAM(st, self, !stream_idle(self) && CU_BLOCKING_CALL(st, cuStreamSynchronize, (self->handle)) < 0) <
        0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Stream_query(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    StreamObject *self = (StreamObject *)op;
    CUresult rc = CUDA_SUCCESS;
    if (IN_STREAM(st, self, (rc = CU_RESULT(cuStreamQuery, (self->handle)), 0)) < 0)
        return NULL;
    if (rc == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (cu_check(st, rc, "cuStreamQuery") < 0)
        return NULL;
    Py_RETURN_TRUE;
}

/* Callbacks: the driver calls stream_callback on its own thread once the stream's earlier work is
 * done. `data` is a tuple (stream, callback, arg) whose reference the callback consumes.
 *
 * Lock order. The locks in play are the GIL, the driver's internal locks (held by a thread inside a
 * driver call, e.g. cuModuleLoadData, which synchronises the context and so waits for pending
 * callbacks), and our own mutexes: the loader's (api/loader.c), the host-registration table's
 * (registration.c) and the staging rings' (staging.c). A callback holds a driver thread, waits for
 * the GIL, and while it waits the stream (and anything synchronising with it) waits for it. Hence:
 *  1. A thread holding the GIL makes no driver call that may wait on the driver's locks while a
 *     callback is pending (CU_UNBLOCKED, stream.h); calls that can block at any time (synchronise,
 *     module load and unload, register, free, add a callback, NVRTC, dlopen) always release it.
 *  2. Our mutexes are taken only with the GIL released, and never held while taking the GIL.
 *  3. A callback takes the GIL and nothing else: it makes no driver call (CUDA forbids it) and takes
 *     none of our mutexes, so it can always finish once the GIL is free. */
static int interpreter_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

/* Drops a callback's (stream, function, arg) in the main thread, not the driver's: the stream may be
 * held there only, and destroying it is a driver call. */
static int drop_callback_items(void *items)
{
    Py_DECREF((PyObject *)items);
    return 0;
}

static void stream_callback(CUstream Py_UNUSED(handle), CUresult status, void *data)
{
    if (interpreter_finalizing()) {
        stream_callbacks_count(-1);
        return; /* no interpreter to run it in: the tuple is left for the process exit */
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    stream_callback_running(1);
    /* no garbage collection here: it would run other objects' finalizers, which call the driver */
    int collecting = PyGC_Disable();
    PyObject *items = (PyObject *)data;
    PyObject *result = PyObject_CallFunction(PyTuple_GET_ITEM(items, 1), "OiO", PyTuple_GET_ITEM(items, 0),
                                             (int)status, PyTuple_GET_ITEM(items, 2));
    if (result == NULL) {
        /* as numba: warn, never raise into the driver's thread */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        PyErr_NormalizeException(&type, &value, &traceback);
        if (PyErr_WarnFormat(PyExc_UserWarning, 1, "Exception in stream callback: %S", value) < 0)
            PyErr_WriteUnraisable(PyTuple_GET_ITEM(items, 1));
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
    }
    Py_XDECREF(result);
    if (Py_REFCNT(items) > 1 || Py_AddPendingCall(drop_callback_items, items) < 0)
        Py_DECREF(items); /* not the last reference (or no room to hand it over) */
    if (collecting)
        PyGC_Enable();
    stream_callback_running(0);
    stream_callbacks_count(-1);
    PyGILState_Release(gil);
}

/* Queues stream_callback with `data` (stolen; NULL: the error is set) on the stream, in its context. */
static int queue_callback(module_state *st, StreamObject *self, PyObject *data)
{
    if (data == NULL)
        return -1;
    /* Counted before it is queued: it may run at once. The GIL is released: the driver may hold the
     * stream's lock in a thread that waits for an earlier callback (lock order above). */
    stream_callbacks_count(+1);
    if (CU_BLOCKING_CALL(st, cuStreamAddCallback, (self->handle, stream_callback, data, 0)) == 0)
        return 0;
    stream_callbacks_count(-1);
    Py_DECREF(data); /* never queued: the callback will not consume it */
    return -1;
}

static PyObject *Stream_add_callback(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"callback", "arg", NULL};
    module_state *st = state_of(op);
    StreamObject *self = (StreamObject *)op;
    PyObject *callback, *arg = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:add_callback", keywords, &callback, &arg))
        return NULL;
    if (!PyCallable_Check(callback)) {
        PyErr_Format(PyExc_TypeError, "callback must be callable, not %.100s", Py_TYPE(callback)->tp_name);
        return NULL;
    }
    if (IN_STREAM(st, self, queue_callback(st, self, PyTuple_Pack(3, op, callback, arg)) < 0) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Stream_auto_synchronize(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return python_call1(state_of(op), HELPER_STREAM_AUTO_SYNCHRONIZE, op);
}

static PyObject *Stream_async_done(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return python_call1(state_of(op), HELPER_STREAM_ASYNC_DONE, op);
}

/* The __cuda_stream__ protocol (cuda.core): (version, handle). */
static PyObject *Stream_cuda_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return Py_BuildValue("(iN)", 0, PyLong_FromVoidPtr(((StreamObject *)op)->handle));
}

static PyObject *Stream_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((StreamObject *)op)->handle);
}

static PyObject *Stream_get_external(PyObject *op, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(((StreamObject *)op)->kind == STREAM_EXTERNAL);
}

static PyObject *Stream_int(PyObject *op)
{
    return PyLong_FromVoidPtr(((StreamObject *)op)->handle);
}

static Py_hash_t Stream_hash(PyObject *op)
{
    Py_hash_t hash = (Py_hash_t)((uintptr_t)((StreamObject *)op)->handle >> 4);
    return hash == -1 ? -2 : hash;
}

static PyObject *Stream_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!Py_IS_TYPE(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    StreamObject *x = (StreamObject *)a, *y = (StreamObject *)b;
    int equal = x->handle == y->handle && x->context == y->context;
    return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

static PyObject *Stream_repr(PyObject *op)
{
    StreamObject *self = (StreamObject *)op;
    PyObject *context = PyObject_Repr((PyObject *)self->context);
    if (context == NULL)
        return NULL;
    PyObject *text;
    switch (self->kind) {
    case STREAM_DEFAULT:
        text = PyUnicode_FromFormat("<Default CUDA stream on %U>", context);
        break;
    case STREAM_LEGACY:
        text = PyUnicode_FromFormat("<Legacy default CUDA stream on %U>", context);
        break;
    case STREAM_PER_THREAD:
        text = PyUnicode_FromFormat("<Per-thread default CUDA stream on %U>", context);
        break;
    case STREAM_EXTERNAL:
        text = PyUnicode_FromFormat("<External CUDA stream %zu on %U>", (size_t)self->handle, context);
        break;
    default:
        text = PyUnicode_FromFormat("<CUDA stream %zu on %U>", (size_t)self->handle, context);
    }
    Py_DECREF(context);
    return text;
}

static CUresult destroy_stream(void *handle)
{
    return cu.cuStreamDestroy((CUstream)handle);
}

/* A reset context destroyed its streams already: destroying again would be a use after free. In a
 * stream callback the driver must not be called: the main thread destroys it later. */
static int Stream_release(module_state *st, void *arg)
{
    StreamObject *self = (StreamObject *)arg;
    if (self->kind != STREAM_OWNED || self->context->handle == NULL)
        return 0;
    if (stream_in_callback())
        return memory_defer_destroy(st, self->context, destroy_stream, self->handle, "cuStreamDestroy");
    return CU_CALL(st, cuStreamDestroy, (self->handle));
}

static void Stream_dealloc(PyObject *op)
{
    StreamObject *self = (StreamObject *)op;
    dealloc_begin(op, self->weakreflist);
    dealloc_release(state_for_release(op), Stream_release, op, "Stream: destroying it");
    Py_DECREF(self->context);
    dealloc_end(op);
}

/* As the driver sees it (cuStreamIsCapturing): a capture begun elsewhere on this handle counts too. */
static PyObject *Stream_is_capturing(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    StreamObject *self = (StreamObject *)op;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (context_check_alive(st, self->context) < 0)
        return NULL;
    if (cu.cuStreamIsCapturing == NULL)
        return PyBool_FromLong(self->capture != NULL);
    if (CU_CALL_IN(st, self->context, cuStreamIsCapturing, (self->handle, &status)) < 0)
        return NULL;
    return PyBool_FromLong(status != CU_STREAM_CAPTURE_STATUS_NONE);
}

static PyMethodDef Stream_methods[] = {
    REPR_HTML_METHOD,
    {"is_capturing", Stream_is_capturing, METH_NOARGS, "True while the stream is being captured into a graph."},
    {"synchronize", Stream_synchronize, METH_NOARGS,
     "Wait for all commands in this stream to execute. This will commit any pending memory transfers."},
    {"query", Stream_query, METH_NOARGS, "True if all work queued on the stream has completed."},
    {"add_callback", (PyCFunction)(void (*)(void))Stream_add_callback, METH_VARARGS | METH_KEYWORDS,
     "add_callback(callback, arg=None): call callback(stream, status, arg) from a driver thread once all "
     "preceding stream operations are complete."},
    {"auto_synchronize", Stream_auto_synchronize, METH_NOARGS,
     "A context manager that waits for all commands in this stream to execute on exit."},
    {"async_done", Stream_async_done, METH_NOARGS,
     "Return an asyncio Future that resolves once all preceding stream operations are complete."},
    {"__cuda_stream__", Stream_cuda_stream, METH_NOARGS, "The CUDA stream protocol: (0, handle)."},
    {0},
};

static PyGetSetDef Stream_getset[] = {
    {"handle", Stream_get_handle, NULL, "The CUstream, as an int (0 for the default stream).", NULL},
    {"external", Stream_get_external, NULL, "True for a stream made outside numba_cuda_c.", NULL},
    {0},
};

static PyMemberDef Stream_members[] = {
    {"context", T_OBJECT, offsetof(StreamObject, context), READONLY, "The Context the stream belongs to."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(StreamObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot Stream_slots[] = {
    {Py_tp_doc, "A CUDA stream. Create with cuda.stream(); see also default_stream() and external_stream()."},
    {Py_tp_repr, Stream_repr},
    {Py_tp_hash, Stream_hash},
    {Py_tp_richcompare, Stream_richcompare},
    {Py_nb_int, Stream_int},
    {Py_tp_methods, Stream_methods},
    {Py_tp_getset, Stream_getset},
    {Py_tp_members, Stream_members},
    {Py_tp_dealloc, Stream_dealloc},
    {0, NULL},
};

static PyType_Spec Stream_spec = {
    .name = "numba_cuda_c.Stream",
    .basicsize = sizeof(StreamObject),
    /* mutable: users replace methods on the class, as they can numba's */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Stream_slots,
};

/* Module functions: each acts in the current context, as numba's do. */

static PyObject *module_stream(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    ContextObject *context = context_current(st);
    return context ? stream_create(st, context) : NULL;
}

static PyObject *module_special_stream(PyObject *module, CUstream handle, stream_kind kind)
{
    module_state *st = state_of_module(module);
    ContextObject *context = context_current(st);
    return context ? stream_new(st, context, handle, kind) : NULL;
}

static PyObject *module_default_stream(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    ContextObject *context = context_current(st);
    return context ? stream_default(st, context) : NULL;
}

static PyObject *module_legacy_default_stream(PyObject *module, PyObject *Py_UNUSED(unused))
{
    return module_special_stream(module, CU_STREAM_LEGACY, STREAM_LEGACY);
}

static PyObject *module_per_thread_default_stream(PyObject *module, PyObject *Py_UNUSED(unused))
{
    return module_special_stream(module, CU_STREAM_PER_THREAD, STREAM_PER_THREAD);
}

static PyObject *module_external_stream(PyObject *module, PyObject *ptr)
{
    void *handle = PyLong_AsVoidPtr(ptr);
    if (handle == NULL && PyErr_Occurred())
        return NULL;
    if (handle == NULL) {
        PyErr_SetString(PyExc_ValueError, "external_stream(ptr): ptr must be a non-zero stream handle; "
                                          "use default_stream() for the default stream");
        return NULL;
    }
    return module_special_stream(module, (CUstream)handle, STREAM_EXTERNAL);
}

PyMethodDef stream_module_methods[] = {
    {"stream", module_stream, METH_NOARGS, "Create a CUDA stream that represents a command queue for the device."},
    {"default_stream", module_default_stream, METH_NOARGS, "Get the default CUDA stream."},
    {"legacy_default_stream", module_legacy_default_stream, METH_NOARGS, "Get the legacy default CUDA stream."},
    {"per_thread_default_stream", module_per_thread_default_stream, METH_NOARGS,
     "Get the per-thread default CUDA stream."},
    {"external_stream", module_external_stream, METH_O,
     "Create a stream object for a stream allocated outside numba_cuda_c; it is never destroyed here."},
    {0},
};

static PyObject *Context_create_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_create(state_of(op), (ContextObject *)op);
}

static PyObject *Context_create_external_stream(PyObject *op, PyObject *ptr)
{
    module_state *st = state_of(op);
    void *handle = PyLong_AsVoidPtr(ptr);
    if (handle == NULL && PyErr_Occurred())
        return NULL;
    return stream_new(st, (ContextObject *)op, (CUstream)handle, STREAM_EXTERNAL);
}

static PyObject *Context_get_default_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_default(state_of(op), (ContextObject *)op);
}

static PyObject *Context_get_legacy_default_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_new(state_of(op), (ContextObject *)op, CU_STREAM_LEGACY, STREAM_LEGACY);
}

static PyObject *Context_get_per_thread_default_stream(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return stream_new(state_of(op), (ContextObject *)op, CU_STREAM_PER_THREAD, STREAM_PER_THREAD);
}

/* The Context methods of this file, added to Context at init (context.c calls none of them). */
static PyMethodDef Context_stream_methods[] = {
    {"create_stream", Context_create_stream, METH_NOARGS, "Create a new stream in this context."},
    {"create_external_stream", Context_create_external_stream, METH_O, "Wrap a stream made elsewhere."},
    {"get_default_stream", Context_get_default_stream, METH_NOARGS, "The default stream of this context."},
    {"get_legacy_default_stream", Context_get_legacy_default_stream, METH_NOARGS, "The legacy default stream."},
    {"get_per_thread_default_stream", Context_get_per_thread_default_stream, METH_NOARGS,
     "The per-thread default stream."},
    {0},
};

int stream_type_init(PyObject *module, module_state *st)
{
    if (type_add_methods(st->ContextType, Context_stream_methods) < 0)
        return -1;
    size_t per_thread;
    if (env_size("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM", 0, &per_thread) < 0)
        return -1;
    st->default_stream = per_thread != 0 ? CU_STREAM_PER_THREAD : NULL;
    if (type_create(module, &Stream_spec, NULL, &st->StreamType, 1) < 0)
        return -1;
    st->str_synchronize = PyUnicode_InternFromString("synchronize");
    if (st->str_synchronize == NULL)
        return -1;
    st->stream_synchronize = Py_XNewRef(_PyType_Lookup(st->StreamType, st->str_synchronize));
    return st->stream_synchronize == NULL ? -1 : 0;
}
