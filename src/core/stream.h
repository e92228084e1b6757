/* stream.h: Stream (numba.cuda.cudadrv.driver.Stream) and the one conversion every function
 * taking stream= uses: a Stream, or 0/None for the default stream. */
#ifndef NUMBA_CUDA_C_STREAM_H
#define NUMBA_CUDA_C_STREAM_H

#include "core/context.h"

typedef enum {
    STREAM_OWNED,      /* made by cuStreamCreate, destroyed with the object */
    STREAM_DEFAULT,    /* handle 0: the legacy default stream, as numba's default_stream() */
    STREAM_LEGACY,     /* CU_STREAM_LEGACY */
    STREAM_PER_THREAD, /* CU_STREAM_PER_THREAD */
    STREAM_EXTERNAL,   /* made elsewhere; never destroyed here */
} stream_kind;

typedef struct {
    PyObject_HEAD
    ContextObject *context;
    CUstream handle;
    stream_kind kind;
    /* the Graph this stream is being captured into (graph.c), or NULL: a strong reference, dropped
     * when the capture ends (the Graph refers back to the stream until then) */
    PyObject *capture;
    PyObject *weakreflist;
} StreamObject;

/* A Stream object for `handle` in `context`. New reference. */
PyObject *stream_new(module_state *st, ContextObject *context, CUstream handle, stream_kind kind);

/* Creates a new stream in `context` (cuStreamCreate). New reference. */
PyObject *stream_create(module_state *st, ContextObject *context);

/* numba's default_stream(): the per-thread default stream when NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM
 * is set, else the legacy default stream (handle 0). New reference. */
PyObject *stream_default(module_state *st, ContextObject *context);

/* Whether a stream= argument means the default stream: absent, None, False or 0. */
static inline int stream_is_default(PyObject *obj)
{
    return obj == NULL || obj == Py_None || obj == Py_False || (PyLong_CheckExact(obj) && !PyObject_IsTrue(obj));
}

/* `rc`, the result of queuing work on `stream`, followed where that succeeded and `wait` is set by a
 * wait for the stream (numba's stream 0 is synchronous). Without the GIL: the wait blocks. */
static inline CUresult stream_wait_after(CUresult rc, CUstream stream, int wait)
{
    return rc == CUDA_SUCCESS && wait ? cu.cuStreamSynchronize(stream) : rc;
}

/* The CUstream for a stream= argument: a Stream, or 0 / None / False for the default stream.
 * Raises TypeError for anything else and CudaDriverError for a stream of a reset context. */
int stream_handle_from_object(module_state *st, PyObject *obj, CUstream *handle);

/* The CUstream of a method whose one argument is an optional stream (by position or as stream=; left out:
 * the default stream): Event.record and wait, GraphExec.launch and upload (METH_FASTCALL | METH_KEYWORDS).
 * `method` names it in TypeError's message. */
int stream_parse_argument(module_state *st, const char *method, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, CUstream *handle);

/* Whether Stream.synchronize was replaced on the class (a monkeypatch). Cheap: one lookup. */
int stream_synchronize_replaced(module_state *st);

/* Calls .synchronize() of a Stream object for `handle`, through Python, as numba's implicit syncs
 * do; for when stream_synchronize_replaced() says the user wants to see them. */
int stream_call_synchronize(module_state *st, ContextObject *context, CUstream handle, stream_kind kind);

/* The lock order with stream callbacks, stream_callbacks_pending() and CU_UNBLOCKED: errors.h,
 * where CU_CALL uses them. */

int stream_type_init(PyObject *module, module_state *st);
extern PyMethodDef stream_module_methods[];

#endif
