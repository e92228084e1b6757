/* graph_exec.c: GraphExec, an instantiated CUDA graph (cuGraphInstantiate): launched whole with one
 * cuGraphLaunch, updated in place from a graph of the same shape (cuGraphExecUpdate: new kernel
 * arguments, copy addresses). Holds the Graph its parameters came from, which keeps their memory alive. */
#include "core/graph_exec.h"

#include "driver/errors.h"
#include "core/deallocations.h"

#include <structmember.h>

PyObject *graph_exec_new(module_state *st, GraphObject *graph)
{
    CUgraphExec handle = NULL;
    /* instantiation builds the whole executable: it can take a while */
    if (CU_BLOCKING_CALL_IN(st, graph->context, cuGraphInstantiate, (&handle, graph->handle, 0)) < 0) {
        if (handle != NULL)
            cu_report_unraisable(st, cu.cuGraphExecDestroy(handle), "cuGraphExecDestroy");
        return NULL;
    }
    GraphExecObject *self = PyObject_GC_New(GraphExecObject, st->GraphExecType);
    if (self == NULL) {
        cu_report_unraisable(st, cu.cuGraphExecDestroy(handle), "cuGraphExecDestroy");
        return NULL;
    }
    self->graph = (GraphObject *)Py_NewRef((PyObject *)graph);
    self->context = (ContextObject *)Py_NewRef((PyObject *)graph->context);
    self->handle = handle;
    self->weakreflist = NULL;
    PyObject_GC_Track((PyObject *)self);
    return (PyObject *)self;
}

static PyObject *GraphExec_launch(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    module_state *st = state_of(op);
    GraphExecObject *self = (GraphExecObject *)op;
    CUstream stream;
    if (context_check_alive(st, self->context) < 0 ||
        stream_parse_argument(st, "launch", args, nargs, kwnames, &stream) < 0 ||
        /* queues it; blocks only on a full queue */
        CU_CALL_IN(st, self->context, cuGraphLaunch, (self->handle, stream)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *GraphExec_upload(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    module_state *st = state_of(op);
    GraphExecObject *self = (GraphExecObject *)op;
    CUstream stream;
    if (cu.cuGraphUpload == NULL) {
        PyErr_SetString(st->CudaSupportError, "this CUDA driver has no cuGraphUpload");
        return NULL;
    }
    if (context_check_alive(st, self->context) < 0 ||
        stream_parse_argument(st, "upload", args, nargs, kwnames, &stream) < 0 ||
        CU_CALL_IN(st, self->context, cuGraphUpload, (self->handle, stream)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* update(graph): the parameters of `graph` (captured again with other arguments) into this executable,
 * without instantiating again; the graphs must have the same shape (cuGraphExecUpdate's rules). */
static PyObject *GraphExec_update(PyObject *op, PyObject *arg)
{
    module_state *st = state_of(op);
    GraphExecObject *self = (GraphExecObject *)op;
    if (!Py_IS_TYPE(arg, st->GraphType)) {
        PyErr_Format(PyExc_TypeError, "update() takes a Graph, not %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    GraphObject *graph = (GraphObject *)arg;
    if (graph->state != GRAPH_CAPTURED) {
        PyErr_SetString(PyExc_RuntimeError, "update(): the Graph given has not been captured");
        return NULL;
    }
    if (graph->context != self->context) {
        PyErr_SetString(PyExc_ValueError, "update(): the Graph given belongs to another device");
        return NULL;
    }
    if (cu.cuGraphExecUpdate_v2 == NULL) {
        PyErr_SetString(st->CudaSupportError, "this CUDA driver has no cuGraphExecUpdate_v2 (CUDA 12 or later)");
        return NULL;
    }
    CUgraphExecUpdateResultInfo info = {0};
    CUresult rc = CUDA_SUCCESS;
    if (IN_CONTEXT(st, self->context,
                   (rc = CU_RESULT(cuGraphExecUpdate_v2, (self->handle, graph->handle, &info)), 0)) < 0)
        return NULL;
    if (rc == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) {
        cu_raise_message(
            st, rc,
            PyUnicode_FromFormat(
                "Call to cuGraphExecUpdate results in CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE (update result %d%s): "
                "the new graph must have the same nodes, in the same order, launching the same kernels; "
                "instantiate it instead",
                (int)info.result,
                info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED ? ", the topology changed" : ""));
        return NULL;
    }
    if (cu_check(st, rc, "cuGraphExecUpdate") < 0)
        return NULL;
    Py_SETREF(self->graph, (GraphObject *)Py_NewRef(arg)); /* its arguments are the ones used now */
    Py_RETURN_NONE;
}

static PyObject *GraphExec_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((GraphExecObject *)op)->handle);
}

static PyObject *GraphExec_repr(PyObject *op)
{
    GraphExecObject *self = (GraphExecObject *)op;
    return PyUnicode_FromFormat("<CUDA graph executable %p on device %d>", self->handle, self->context->device->id);
}

static CUresult destroy_graph_exec(void *handle)
{
    return cu.cuGraphExecDestroy((CUgraphExec)handle);
}

static int GraphExec_release(module_state *st, void *arg)
{
    GraphExecObject *self = (GraphExecObject *)arg;
    if (self->context->handle == NULL) /* a reset context destroyed it already */
        return 0;
    if (stream_in_callback())
        return memory_defer_destroy(st, self->context, destroy_graph_exec, self->handle, "cuGraphExecDestroy");
    CUresult rc;
    CU_UNBLOCKED(rc, cu.cuGraphExecDestroy(self->handle)); /* waits for its launches to finish */
    return cu_check(st, rc, "cuGraphExecDestroy");
}

/* Graph.launch() caches its executable, which refers back to the graph: the collector sees that cycle
 * through both, and breaks it at the Graph (Graph_clear); an executable always keeps its graph. */
static int GraphExec_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op));
    Py_VISIT((PyObject *)((GraphExecObject *)op)->graph);
    return 0;
}

static void GraphExec_dealloc(PyObject *op)
{
    GraphExecObject *self = (GraphExecObject *)op;
    dealloc_begin(op, self->weakreflist);
    dealloc_release(state_for_release(op), GraphExec_release, op, "GraphExec: destroying it");
    Py_DECREF(self->graph); /* after: what its nodes point to outlives it */
    Py_DECREF(self->context);
    dealloc_end(op);
}

static PyMethodDef GraphExec_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))GraphExec_launch, METH_FASTCALL | METH_KEYWORDS,
     "launch(stream=0): runs the whole graph on the stream (one cuGraphLaunch)."},
    {"upload", (PyCFunction)(void (*)(void))GraphExec_upload, METH_FASTCALL | METH_KEYWORDS,
     "upload(stream=0): prepares the graph on the device ahead of its first launch (cuGraphUpload)."},
    {"update", GraphExec_update, METH_O,
     "update(graph): takes the parameters (kernel arguments, copy addresses) of a graph of the same shape, "
     "captured again, without instantiating again (cuGraphExecUpdate)."},
    {0},
};

static PyGetSetDef GraphExec_getset[] = {
    {"handle", GraphExec_get_handle, NULL, "The CUgraphExec, as an int.", NULL},
    {0},
};

static PyMemberDef GraphExec_members[] = {
    {"graph", T_OBJECT, offsetof(GraphExecObject, graph), READONLY, "The Graph whose parameters it runs with."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(GraphExecObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot GraphExec_slots[] = {
    {Py_tp_doc, "An executable CUDA graph: Graph.instantiate(). launch(stream) runs it; update(graph) takes new "
                "parameters from a graph of the same shape."},
    {Py_tp_repr, GraphExec_repr},
    {Py_tp_methods, GraphExec_methods},
    {Py_tp_getset, GraphExec_getset},
    {Py_tp_members, GraphExec_members},
    {Py_tp_traverse, GraphExec_traverse},
    {Py_tp_dealloc, GraphExec_dealloc},
    {0, NULL},
};

static PyType_Spec GraphExec_spec = {
    .name = "numba_cuda_c.GraphExec",
    .basicsize = sizeof(GraphExecObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = GraphExec_slots,
};

static PyObject *Graph_instantiate(PyObject *op, PyObject *Py_UNUSED(unused))
{
    GraphObject *self = (GraphObject *)op;
    if (graph_require_captured(self) < 0)
        return NULL;
    return graph_exec_new(state_of(op), self);
}

/* Graph.launch(stream=0): instantiated at the first launch, that executable reused after. */
static PyObject *Graph_launch(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    GraphObject *self = (GraphObject *)op;
    if (self->executable == NULL) {
        if (graph_require_captured(self) < 0 || (self->executable = graph_exec_new(state_of(op), self)) == NULL)
            return NULL;
    }
    PyObject *launch = PyObject_GetAttrString(self->executable, "launch");
    if (launch == NULL)
        return NULL;
    PyObject *done = PyObject_Vectorcall(launch, args, nargs, kwnames);
    Py_DECREF(launch);
    return done;
}

/* The Graph methods that instantiate it, added to Graph at init (graph.c makes no GraphExec). */
static PyMethodDef Graph_exec_methods[] = {
    {"instantiate", Graph_instantiate, METH_NOARGS,
     "instantiate(): a GraphExec of this graph (cuGraphInstantiate), launched with .launch(stream=0)."},
    {"launch", (PyCFunction)(void (*)(void))Graph_launch, METH_FASTCALL | METH_KEYWORDS,
     "launch(stream=0): launches the graph, instantiated at its first launch."},
    {0},
};

int graph_exec_type_init(PyObject *module, module_state *st)
{
    if (type_add_methods(st->GraphType, Graph_exec_methods) < 0)
        return -1;
    return type_create(module, &GraphExec_spec, NULL, &st->GraphExecType, 1);
}
