/* errors.h: the one path from a driver or NVRTC result code to a Python exception.
 * CU_CALL wraps a driver call made with the GIL held (released only while a stream callback is
 * pending); CU_BLOCKING_CALL one that can block, made with the GIL released. Calls that need a
 * context go through core/context.h's IN_CONTEXT family, built on these. */
#ifndef NUMBA_CUDA_C_ERRORS_H
#define NUMBA_CUDA_C_ERRORS_H

#include "driver/callbacks.h"
#include "driver/driver_gate.h"
#include "driver/state.h"

/* Raises CudaAPIError(code, "Call to <function> results in <CUDA_ERROR_NAME> (<description>)"). Returns -1. */
int cu_raise(module_state *st, CUresult rc, const char *function);

/* CudaAPIError(code, msg) with a message of our own (msg stolen; NULL: an error is already set). -1. */
int cu_raise_message(module_state *st, CUresult rc, PyObject *msg);

/* numba's message for a failed call: "Call to <function> results in <CUDA_ERROR_NAME> (<description>)". */
PyObject *cu_error_message(CUresult rc, const char *function);

/* A failed launch: CudaAPIError(code, msg) (msg stolen; NULL: an error is already set), also an
 * instance of cuda.core's CUDAError where the program has loaded cuda.core (numba-cuda launches
 * through it). Returns -1. NVRTC errors likewise derive from cuda.core's NVRTCError there. */
int cu_raise_launch(module_state *st, CUresult rc, PyObject *msg);

/* Where a failure cannot be raised (a cleanup after another error, a driver callback): reports
 * a failed call to sys.unraisablehook, keeping whatever exception is in flight. */
void cu_report_unraisable(module_state *st, CUresult rc, const char *function);

/* The one way a tp_dealloc or finalizer frees what it owns (see the head of memory.c): runs
 * release(st, arg) with any exception in flight set aside and restored afterwards. release may
 * use the raising API (IN_CONTEXT, CU_CALL, ...) and returns 0, or -1 with an exception set;
 * that exception goes to sys.unraisablehook with `what` (a str) as its object, never the dying
 * object, which the hook would resurrect and free a second time. st NULL (state_for_release: the module is
 * gone at the interpreter's end): nothing is released. */
typedef int (*dealloc_release_fn)(module_state *st, void *arg);
void dealloc_release(module_state *st, dealloc_release_fn release, void *arg, const char *what);

static inline int cu_check(module_state *st, CUresult rc, const char *function)
{
    return rc == CUDA_SUCCESS ? 0 : cu_raise(st, rc, function);
}

/* rc = call, with the GIL released while stream callbacks are pending. No Python API in `call`. */
#define CU_UNBLOCKED(rc, call)                                                                                     \
    do {                                                                                                           \
        if (stream_callbacks_pending()) {                                                                          \
            CU_BEGIN_ALLOW_THREADS(rc) = (call);                                                                   \
            CU_END_ALLOW_THREADS                                                                                   \
        } else {                                                                                                   \
            (rc) = (call);                                                                                         \
        }                                                                                                          \
    } while (0)

/* The CUresult of cuda_api.h's function `fn` with `args`, made as CU_CALL makes it but unchecked: for a
 * caller that reads the code itself (CUDA_ERROR_NOT_READY from a query, say). */
#define CU_RESULT(fn, args)                                                                                        \
    __extension__({                                                                                                \
        CUresult cu_result_rc_;                                                                                    \
        CU_UNBLOCKED(cu_result_rc_, cu.fn args);                                                                   \
        cu_result_rc_;                                                                                             \
    })

/* A checked driver call: cuda_api.h's function `fn` with `args` (no Python API in them), raising
 * CudaAPIError on failure; made with the GIL released while stream callbacks are pending (above). */
#define CU_CALL(st, fn, args) cu_check((st), CU_RESULT(fn, args), #fn)

/* The CUresult of `call` (one driver call, or a function making several: no Python API in it),
 * evaluated with the GIL released and the driver gate held: for what can block at any time
 * (synchronize, large copies, module loads and unloads, registrations). */
#define CU_BLOCKING(call)                                                                                          \
    __extension__({                                                                                                \
        CUresult cu_blocking_rc_;                                                                                  \
        CU_BEGIN_ALLOW_THREADS cu_blocking_rc_ = (call);                                                           \
        CU_END_ALLOW_THREADS                                                                                       \
        cu_blocking_rc_;                                                                                           \
    })

/* CU_CALL for a call that can block: made with the GIL released (CU_BLOCKING), then checked. */
#define CU_BLOCKING_CALL(st, fn, args) cu_check((st), CU_BLOCKING(cu.fn args), #fn)

/* Loads the driver on first use (without the GIL); NULL when it is usable, else why not. */
const char *cu_driver_problem(void);

/* `_repr_html_` of the package's objects, for notebooks: numba_cuda_c.notebook.html_of(self), that module
 * imported at the first display. */
PyObject *repr_html(PyObject *self, PyObject *unused);
#define REPR_HTML_METHOD                                                                                           \
    {                                                                                                              \
        "_repr_html_", repr_html, METH_NOARGS, "The object as an HTML table, for notebooks."                       \
    }

/* Loads the driver on first use; raises CudaSupportError (saying why) where there is none. */
int cu_require_driver(module_state *st);

/* The driver's name for a result code ("CUDA_ERROR_INVALID_VALUE"), from our own table. */
const char *cu_result_name(CUresult rc);

/* Raises NvrtcError for a failed NVRTC call, with the compile log where one is given. */
int nvrtc_raise(module_state *st, nvrtcResult rc, const char *function, const char *log);

/* Creates the exception types into the module state and adds them to the module. */
int errors_init(PyObject *module, module_state *st);

#endif
