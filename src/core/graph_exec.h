/* graph_exec.h: GraphExec, an instantiated graph that launches with one cuGraphLaunch, updated in
 * place from another capture (graph_exec.c). Graph.instantiate and Graph.launch are added here. */
#ifndef NUMBA_CUDA_C_GRAPH_EXEC_H
#define NUMBA_CUDA_C_GRAPH_EXEC_H

#include "core/graph.h"

typedef struct {
    PyObject_HEAD
    GraphObject *graph; /* the graph its nodes' parameters came from (the last update's) */
    ContextObject *context;
    CUgraphExec handle;
    PyObject *weakreflist;
} GraphExecObject;

/* GraphExec for a captured graph (cuGraphInstantiate). New reference. */
PyObject *graph_exec_new(module_state *st, GraphObject *graph);

int graph_exec_type_init(PyObject *module, module_state *st);

#endif
