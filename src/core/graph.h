/* graph.h: CUDA graphs made by stream capture. Graph (graph.c) is what a stream recorded
 * (cuStreamBeginCapture .. cuStreamEndCapture); GraphExec (graph_exec.h) instantiates it. */
#ifndef NUMBA_CUDA_C_GRAPH_H
#define NUMBA_CUDA_C_GRAPH_H

#include "core/stream.h"

typedef enum {
    GRAPH_NEW,       /* made by Stream.capture(), capture not begun */
    GRAPH_CAPTURING, /* between cuStreamBeginCapture and cuStreamEndCapture */
    GRAPH_CAPTURED,  /* holds a CUgraph */
    GRAPH_FAILED,    /* the capture ended without a graph (an error, or an exception in its block) */
} graph_state;

typedef struct {
    PyObject_HEAD
    StreamObject *stream; /* the stream captured into it */
    ContextObject *context;
    CUgraph handle; /* NULL until captured */
    int mode;       /* CUstreamCaptureMode */
    graph_state state;
    /* what the captured work reads: launch configurations (their kernels' modules) and arguments. A
     * graph holds their pointers, not references: they live as long as the graph and its executables */
    PyObject *keep_alive;
    PyObject *executable; /* the GraphExec Graph.launch() made, or NULL */
    PyObject *weakreflist;
} GraphObject;

/* Stream.capture(mode): a Graph that begins capturing `stream` when its `with` block is entered. */
PyObject *graph_new(module_state *st, StreamObject *stream, PyObject *mode);

/* Stream.begin_capture(mode) / Stream.end_capture(): the same capture without a `with` block. */
PyObject *graph_begin_capture(module_state *st, StreamObject *stream, PyObject *mode);
PyObject *graph_end_capture(module_state *st, StreamObject *stream);

/* Keeps `config` and the launch's arguments alive as long as the graph being captured. */
int graph_keep_launch(PyObject *graph, PyObject *config, PyObject *const *args, Py_ssize_t nargs);

/* A copy queued on `stream` (a stream= argument): where the stream is being captured, keeps `a` and `b`
 * (the copy's source and destination objects; NULL: none) alive as long as the graph. 0, or -1. */
int graph_keep_copy(module_state *st, PyObject *stream, PyObject *a, PyObject *b);

/* Whether a stream= argument is a Stream being captured into a graph. */
static inline int graph_capturing(module_state *st, PyObject *stream)
{
    return stream != NULL && Py_IS_TYPE(stream, st->StreamType) && ((StreamObject *)stream)->capture != NULL;
}

/* 0 where the graph holds a captured CUgraph, else -1 with RuntimeError saying why not. */
int graph_require_captured(GraphObject *self);

int graph_type_init(PyObject *module, module_state *st);

#endif
