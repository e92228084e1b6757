/* stream.c: Stream, a CUDA stream of one context: created, default (legacy or per-thread) or
 * external. Owned streams are destroyed with their object unless the context was reset first
 * (the reset destroyed them). Callbacks run on a driver thread and take the GIL. */
#include "stream.h"

#include "errors.h"

#include <structmember.h>

PyObject *stream_new(module_state *st, ContextObject *context, CUstream handle, stream_kind kind)
{
    StreamObject *self = PyObject_New(StreamObject, st->StreamType);
    if (self == NULL)
        return NULL;
    self->context = (ContextObject *)Py_NewRef((PyObject *)context);
    self->handle = handle;
    self->kind = kind;
    self->weakreflist = NULL;
    return (PyObject *)self;
}

PyObject *stream_create(module_state *st, ContextObject *context)
{
    CUstream handle = NULL;
    int pushed;
    if (context_enter(st, context, &pushed) < 0)
        return NULL;
    int failed = CU_CALL(st, cuStreamCreate, (&handle, 0)) < 0;
    if (context_exit(st, pushed) < 0 || failed)
        return NULL;
    PyObject *stream = stream_new(st, context, handle, STREAM_OWNED);
    if (stream == NULL)
        cu_report_unraisable(st, cu.cuStreamDestroy(handle), "cuStreamDestroy");
    return stream;
}

PyObject *stream_default(module_state *st, ContextObject *context)
{
    if (st->default_stream == CU_STREAM_PER_THREAD)
        return stream_new(st, context, CU_STREAM_PER_THREAD, STREAM_PER_THREAD);
    return stream_new(st, context, NULL, STREAM_DEFAULT);
}

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
    PyErr_Format(PyExc_TypeError,
                 "stream must be a Stream (cuda.stream(), cuda.external_stream(ptr), ...) or 0 for the "
                 "default stream, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* The special handles (0, legacy, per-thread) mean "of the current context": make ours current. */
static int stream_enter(module_state *st, StreamObject *self, int *pushed)
{
    *pushed = 0;
    if (self->kind == STREAM_OWNED || self->kind == STREAM_EXTERNAL)
        return context_check_alive(st, self->context);
    return context_enter(st, self->context, pushed);
}

static PyObject *Stream_synchronize(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    StreamObject *self = (StreamObject *)op;
    int pushed;
    CUresult rc;
    if (stream_enter(st, self, &pushed) < 0)
        return NULL;
    /* An idle stream needs no wait: cuStreamQuery is cheaper than a blocking call. */
    if (cu.cuStreamQuery(self->handle) == CUDA_SUCCESS)
        return context_exit(st, pushed) < 0 ? NULL : Py_NewRef(Py_None);
    Py_BEGIN_ALLOW_THREADS
    rc = cu.cuStreamSynchronize(self->handle);
    Py_END_ALLOW_THREADS
    int failed = cu_check(st, rc, "cuStreamSynchronize") < 0;
    if (context_exit(st, pushed) < 0 || failed)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Stream_query(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    StreamObject *self = (StreamObject *)op;
    int pushed;
    if (stream_enter(st, self, &pushed) < 0)
        return NULL;
    CUresult rc = cu.cuStreamQuery(self->handle);
    if (context_exit(st, pushed) < 0)
        return NULL;
    if (rc == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (cu_check(st, rc, "cuStreamQuery") < 0)
        return NULL;
    Py_RETURN_TRUE;
}

/* Callbacks: the driver calls stream_callback on its own thread once the stream's earlier work is
 * done. `data` is a tuple (stream, callback, arg) whose reference the callback consumes. */
static int interpreter_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

static void stream_callback(CUstream Py_UNUSED(handle), CUresult status, void *data)
{
    if (interpreter_finalizing())
        return; /* no interpreter to run it in: the tuple is left for the process exit */
    PyGILState_STATE gil = PyGILState_Ensure();
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
    ContextObject *context = ((StreamObject *)PyTuple_GET_ITEM(items, 0))->context;
    if (context != NULL)
        context->pending_callbacks--;
    Py_DECREF(items);
    PyGILState_Release(gil);
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
    int pushed;
    if (stream_enter(st, self, &pushed) < 0)
        return NULL;
    PyObject *data = PyTuple_Pack(3, op, callback, arg);
    if (data == NULL) {
        context_exit(st, pushed);
        return NULL;
    }
    /* Counted before it is queued: a launch in this context now releases the GIL (launch.c), so
     * that a full launch queue waiting on this callback cannot wait on the GIL we hold. */
    self->context->pending_callbacks++;
    int failed = CU_CALL(st, cuStreamAddCallback, (self->handle, stream_callback, data, 0)) < 0;
    if (failed) {
        self->context->pending_callbacks--;
        Py_DECREF(data); /* never queued: the callback will not consume it */
    }
    if (context_exit(st, pushed) < 0 || failed)
        return NULL;
    Py_RETURN_NONE;
}

/* auto_synchronize() and async_done() are written in Python (cudadrv/driver.py): they are
 * generator and asyncio glue, not hot paths. */
static PyObject *call_driver_helper(module_state *st, const char *name, PyObject *self)
{
    if (st->driver_module == NULL && (st->driver_module = PyImport_ImportModule("numba_cuda_c.cudadrv.driver")) == NULL)
        return NULL;
    return PyObject_CallMethod(st->driver_module, name, "O", self);
}

static PyObject *Stream_auto_synchronize(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return call_driver_helper(state_of(op), "_stream_auto_synchronize", op);
}

static PyObject *Stream_async_done(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return call_driver_helper(state_of(op), "_stream_async_done", op);
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

static PyObject *Stream_get_context(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef((PyObject *)((StreamObject *)op)->context);
}

static PyObject *Stream_get_external(PyObject *op, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(((StreamObject *)op)->kind == STREAM_EXTERNAL);
}

static PyObject *Stream_int(PyObject *op) { return PyLong_FromVoidPtr(((StreamObject *)op)->handle); }

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

static void Stream_dealloc(PyObject *op)
{
    StreamObject *self = (StreamObject *)op;
    PyTypeObject *type = Py_TYPE(op);
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    /* A reset context destroyed its streams already: destroying again would be a use after free. */
    if (self->kind == STREAM_OWNED && self->context->handle != NULL)
        cu_report_unraisable(state_of_type(type), cu.cuStreamDestroy(self->handle), "cuStreamDestroy");
    Py_DECREF(self->context);
    PyObject_Free(op);
    Py_DECREF(type);
}

static PyMethodDef Stream_methods[] = {
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
    {"context", Stream_get_context, NULL, "The Context the stream belongs to.", NULL},
    {"external", Stream_get_external, NULL, "True for a stream made outside numba_cuda_c.", NULL},
    {0},
};

static PyMemberDef Stream_members[] = {
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
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Stream_slots,
};

int stream_type_init(PyObject *module, module_state *st)
{
    const char *per_thread = getenv("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM");
    st->default_stream = (per_thread != NULL && atoi(per_thread) != 0) ? CU_STREAM_PER_THREAD : NULL;
    st->StreamType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &Stream_spec, NULL);
    if (st->StreamType == NULL)
        return -1;
    return PyModule_AddType(module, st->StreamType);
}

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
