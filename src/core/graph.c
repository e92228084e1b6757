/* graph.c: Graph, what a stream recorded between cuStreamBeginCapture and cuStreamEndCapture
 * (`with stream.capture() as graph:`). A graph refers to device memory and kernels by pointer, so it
 * keeps the launch configurations and arguments captured into it alive (launch.c adds them). */
#include "core/graph.h"

#include "driver/errors.h"
#include "core/deallocations.h"

#include <structmember.h>

/* "thread_local" (the default: other threads may keep making any driver call), "global" or
 * "relaxed", as cuda.h's CU_STREAM_CAPTURE_MODE_*. */
static int parse_mode(PyObject *mode)
{
    if (mode == NULL || mode == Py_None)
        return CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    if (PyUnicode_Check(mode)) {
        if (unicode_equals(mode, "thread_local"))
            return CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        if (unicode_equals(mode, "global"))
            return CU_STREAM_CAPTURE_MODE_GLOBAL;
        if (unicode_equals(mode, "relaxed"))
            return CU_STREAM_CAPTURE_MODE_RELAXED;
    }
    PyErr_Format(PyExc_ValueError, "mode must be 'thread_local', 'global' or 'relaxed', not %R", mode);
    return -1;
}

static int require_graphs(module_state *st)
{
    if (cu.cuStreamBeginCapture != NULL && cu.cuStreamEndCapture != NULL && cu.cuGraphInstantiate != NULL &&
        cu.cuGraphLaunch != NULL && cu.cuGraphDestroy != NULL && cu.cuGraphExecDestroy != NULL)
        return 0;
    PyErr_SetString(st->CudaSupportError, "this CUDA driver has no CUDA graphs (cuStreamBeginCapture_v2, "
                                          "cuGraphInstantiateWithFlags): CUDA 11.4 or later is needed");
    return -1;
}

PyObject *graph_new(module_state *st, StreamObject *stream, PyObject *mode)
{
    int capture_mode = parse_mode(mode);
    if (capture_mode < 0 || context_check_alive(st, stream->context) < 0 || require_graphs(st) < 0)
        return NULL;
    if (stream->kind == STREAM_DEFAULT || stream->kind == STREAM_LEGACY) {
        PyErr_SetString(PyExc_ValueError, "the legacy default stream cannot be captured into a graph: capture a "
                                          "stream made with cuda.stream()");
        return NULL;
    }
    GraphObject *self = PyObject_GC_New(GraphObject, st->GraphType);
    if (self == NULL)
        return NULL;
    self->stream = (StreamObject *)Py_NewRef((PyObject *)stream);
    self->context = (ContextObject *)Py_NewRef((PyObject *)stream->context);
    self->handle = NULL;
    self->mode = capture_mode;
    self->state = GRAPH_NEW;
    self->keep_alive = PyList_New(0);
    self->executable = NULL;
    self->weakreflist = NULL;
    PyObject_GC_Track((PyObject *)self);
    if (self->keep_alive == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int graph_begin(module_state *st, GraphObject *self)
{
    StreamObject *stream = self->stream;
    if (self->state != GRAPH_NEW) {
        PyErr_SetString(PyExc_RuntimeError, "a Graph is captured once: call stream.capture() again for another");
        return -1;
    }
    if (stream->capture != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "this stream is being captured already (captures do not nest)");
        return -1;
    }
    if (context_check_alive(st, self->context) < 0 ||
        CU_CALL_IN(st, self->context, cuStreamBeginCapture, (stream->handle, (CUstreamCaptureMode)self->mode)) < 0)
        return -1;
    stream->capture = Py_NewRef((PyObject *)self); /* launches on the stream add what they need kept */
    self->state = GRAPH_CAPTURING;
    return 0;
}

/* Ends the capture. discard: an exception left the `with` block; the graph, if any, is dropped and
 * that exception is the one the caller sees. */
static int graph_end(module_state *st, GraphObject *self, int discard)
{
    StreamObject *stream = self->stream;
    if (self->state != GRAPH_CAPTURING) {
        PyErr_SetString(PyExc_RuntimeError, "this Graph is not being captured");
        return -1;
    }
    CUgraph handle = NULL;
    CUresult rc = CUDA_SUCCESS;
    /* where a reset ended the capture with the stream, the context is dead: CudaDriverError */
    int failed = IN_CONTEXT(st, self->context, (rc = cu.cuStreamEndCapture(stream->handle, &handle), 0)) < 0;
    if (handle != NULL && (discard || failed || rc != CUDA_SUCCESS)) {
        cu_report_unraisable(st, cu.cuGraphDestroy(handle), "cuGraphDestroy");
        handle = NULL;
    }
    self->state = handle != NULL ? GRAPH_CAPTURED : GRAPH_FAILED;
    self->handle = handle;
    PyObject *capture = stream->capture;
    stream->capture = NULL;
    if (failed || discard) { /* discard: the block's exception goes on, unless ending raised another */
        Py_XDECREF(capture);
        return failed ? -1 : 0;
    }
    if (rc == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
        cu_raise_message(
            st, rc,
            PyUnicode_FromFormat(
                "Call to cuStreamEndCapture results in CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: work that cannot be "
                "captured ran while the stream was capturing (a synchronizing call such as synchronize() or a copy "
                "to pageable host memory, or work on the legacy default stream), so there is no graph"));
    } else if (rc != CUDA_SUCCESS) {
        cu_raise(st, rc, "cuStreamEndCapture");
    }
    Py_XDECREF(capture);
    return rc == CUDA_SUCCESS ? 0 : -1;
}

PyObject *graph_begin_capture(module_state *st, StreamObject *stream, PyObject *mode)
{
    PyObject *graph = graph_new(st, stream, mode);
    if (graph == NULL)
        return NULL;
    int failed = graph_begin(st, (GraphObject *)graph) < 0;
    Py_DECREF(graph); /* the stream holds it until end_capture() */
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *graph_end_capture(module_state *st, StreamObject *stream)
{
    if (stream->capture == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "end_capture(): this stream is not being captured");
        return NULL;
    }
    PyObject *graph = Py_NewRef(stream->capture);
    if (graph_end(st, (GraphObject *)graph, 0) < 0) {
        Py_DECREF(graph);
        return NULL;
    }
    return graph;
}

int graph_keep_launch(PyObject *graph, PyObject *config, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *keep_alive = ((GraphObject *)graph)->keep_alive;
    if (PyList_Append(keep_alive, config) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *arg = args[i];
        if (PyFloat_CheckExact(arg) || PyLong_CheckExact(arg) || PyBool_Check(arg))
            continue; /* copied into the node's parameters */
        if (PyList_Append(keep_alive, arg) < 0)
            return -1;
    }
    return 0;
}

int graph_keep_copy(module_state *st, PyObject *stream, PyObject *a, PyObject *b)
{
    if (!graph_capturing(st, stream))
        return 0;
    PyObject *keep_alive = ((GraphObject *)((StreamObject *)stream)->capture)->keep_alive;
    return (a != NULL && PyList_Append(keep_alive, a) < 0) || (b != NULL && PyList_Append(keep_alive, b) < 0) ? -1
                                                                                                              : 0;
}

static PyObject *Graph_enter(PyObject *op, PyObject *Py_UNUSED(unused))
{
    if (graph_begin(state_of(op), (GraphObject *)op) < 0)
        return NULL;
    return Py_NewRef(op);
}

static PyObject *Graph_exit(PyObject *op, PyObject *args)
{
    PyObject *type = PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0) : Py_None;
    if (graph_end(state_of(op), (GraphObject *)op, type != Py_None) < 0)
        return NULL;
    Py_RETURN_FALSE; /* an exception from the block goes on */
}

int graph_require_captured(GraphObject *self)
{
    if (self->state == GRAPH_CAPTURED)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, self->state == GRAPH_FAILED ? "this Graph's capture failed: it has no graph"
                                                                    : "this Graph has not been captured yet");
    return -1;
}

static PyObject *Graph_get_node_count(PyObject *op, void *Py_UNUSED(closure))
{
    module_state *st = state_of(op);
    GraphObject *self = (GraphObject *)op;
    size_t count = 0;
    if (graph_require_captured(self) < 0 || context_check_alive(st, self->context) < 0 ||
        cu.cuGraphGetNodes == NULL || CU_CALL(st, cuGraphGetNodes, (self->handle, NULL, &count)) < 0)
        return PyErr_Occurred() ? NULL : PyLong_FromLong(-1);
    return PyLong_FromSize_t(count);
}

static PyObject *Graph_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((GraphObject *)op)->handle);
}

static PyObject *Graph_repr(PyObject *op)
{
    GraphObject *self = (GraphObject *)op;
    static const char *states[] = {"not captured yet", "capturing", "captured", "capture failed"};
    size_t count = 0;
    if (self->state == GRAPH_CAPTURED && self->context->handle != NULL && cu.cuGraphGetNodes != NULL &&
        cu.cuGraphGetNodes(self->handle, NULL, &count) == CUDA_SUCCESS)
        return PyUnicode_FromFormat("<CUDA graph of %zu nodes on device %d, captured from stream %p>", count,
                                    self->context->device->id, self->stream->handle);
    return PyUnicode_FromFormat("<CUDA graph on device %d, %s>", self->context->device->id, states[self->state]);
}

static CUresult destroy_graph(void *handle)
{
    return cu.cuGraphDestroy((CUgraph)handle);
}

static int Graph_release(module_state *st, void *arg)
{
    GraphObject *self = (GraphObject *)arg;
    if (self->handle == NULL || self->context->handle == NULL) /* a reset context destroyed it already */
        return 0;
    if (stream_in_callback())
        return memory_defer_destroy(st, self->context, destroy_graph, self->handle, "cuGraphDestroy");
    return CU_CALL(st, cuGraphDestroy, (self->handle));
}

static int Graph_traverse(PyObject *op, visitproc visit, void *arg)
{
    GraphObject *self = (GraphObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->keep_alive);
    Py_VISIT(self->executable);
    return 0;
}

static int Graph_clear(PyObject *op)
{
    GraphObject *self = (GraphObject *)op;
    Py_CLEAR(self->keep_alive);
    Py_CLEAR(self->executable);
    return 0;
}

static void Graph_dealloc(PyObject *op)
{
    GraphObject *self = (GraphObject *)op;
    dealloc_begin(op, self->weakreflist);
    Py_CLEAR(self->executable); /* its executable first: it holds this graph's nodes' parameters */
    dealloc_release(state_for_release(op), Graph_release, op, "Graph: destroying it");
    Py_CLEAR(self->keep_alive); /* after the graph: what it points to outlives it */
    Py_DECREF(self->stream);
    Py_DECREF(self->context);
    dealloc_end(op);
}

static PyMethodDef Graph_methods[] = {
    REPR_HTML_METHOD,
    {"__enter__", Graph_enter, METH_NOARGS, "Begins capturing the stream (cuStreamBeginCapture)."},
    {"__exit__", Graph_exit, METH_VARARGS, "Ends the capture (cuStreamEndCapture); the graph is ready."},
    {0},
};

static PyGetSetDef Graph_getset[] = {
    {"node_count", Graph_get_node_count, NULL, "How many nodes (kernels, copies, memsets) the graph holds.", NULL},
    {"handle", Graph_get_handle, NULL, "The CUgraph, as an int (0 until captured).", NULL},
    {0},
};

static PyMemberDef Graph_members[] = {
    {"stream", T_OBJECT, offsetof(GraphObject, stream), READONLY, "The stream it was captured from."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(GraphObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot Graph_slots[] = {
    {Py_tp_doc, "A CUDA graph captured from a stream: `with stream.capture() as graph:` records the kernel "
                "launches, copies and memsets issued on that stream; graph.instantiate() makes an executable "
                "graph, graph.launch(stream) runs it."},
    {Py_tp_repr, Graph_repr},
    {Py_tp_methods, Graph_methods},
    {Py_tp_getset, Graph_getset},
    {Py_tp_members, Graph_members},
    {Py_tp_traverse, Graph_traverse},
    {Py_tp_clear, Graph_clear},
    {Py_tp_dealloc, Graph_dealloc},
    {0, NULL},
};

static PyType_Spec Graph_spec = {
    .name = "numba_cuda_c.Graph",
    .basicsize = sizeof(GraphObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Graph_slots,
};

/* capture(mode=None) / begin_capture(mode=None): the mode, by position or keyword. */
static int parse_capture_mode(const char *method, PyObject *args, PyObject *kwargs, PyObject **mode)
{
    static char *keywords[] = {"mode", NULL};
    char format[64];
    PyOS_snprintf(format, sizeof format, "|O:%s", method);
    *mode = Py_None;
    return PyArg_ParseTupleAndKeywords(args, kwargs, format, keywords, mode) ? 0 : -1;
}

static PyObject *Stream_capture(PyObject *op, PyObject *args, PyObject *kwargs)
{
    PyObject *mode;
    if (parse_capture_mode("capture", args, kwargs, &mode) < 0)
        return NULL;
    return graph_new(state_of(op), (StreamObject *)op, mode);
}

static PyObject *Stream_begin_capture(PyObject *op, PyObject *args, PyObject *kwargs)
{
    PyObject *mode;
    if (parse_capture_mode("begin_capture", args, kwargs, &mode) < 0)
        return NULL;
    return graph_begin_capture(state_of(op), (StreamObject *)op, mode);
}

static PyObject *Stream_end_capture(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return graph_end_capture(state_of(op), (StreamObject *)op);
}

/* The Stream methods that capture graphs, added to Stream at init (stream.c calls none of them). */
static PyMethodDef Stream_capture_methods[] = {
    {"capture", (PyCFunction)(void (*)(void))Stream_capture, METH_VARARGS | METH_KEYWORDS,
     "capture(mode='thread_local'): `with stream.capture() as graph:` records the kernel launches, copies and "
     "memsets issued on this stream into a CUDA graph (cuStreamBeginCapture) instead of running them. mode: "
     "'thread_local', 'global' or 'relaxed' (which calls other threads may make meanwhile)."},
    {"begin_capture", (PyCFunction)(void (*)(void))Stream_begin_capture, METH_VARARGS | METH_KEYWORDS,
     "begin_capture(mode='thread_local'): begins capturing this stream into a graph; end_capture() returns it."},
    {"end_capture", Stream_end_capture, METH_NOARGS,
     "end_capture(): ends the capture begun by begin_capture(); "
     "returns the Graph."},
    {0},
};

int graph_type_init(PyObject *module, module_state *st)
{
    if (type_add_methods(st->StreamType, Stream_capture_methods) < 0)
        return -1;
    return type_create(module, &Graph_spec, NULL, &st->GraphType, 1);
}
