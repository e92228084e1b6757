/* launch_arguments.h: a launch's arguments, converted and packed into the kernel's parameters
 * (launch_arguments.c), between LaunchConfig's call (launch.c) and cuLaunchKernel.
 *
 * A launch owns its arguments (STYLE.md, rule 6). Phase 1 (launch_argument_convert) converts each
 * argument, by its kind (argument_kinds.h), into a record: device arrays are checked against the
 * launch's context, NumPy arrays copied to the device and CAI objects read, which runs Python code
 * and may release the GIL, so another launch (a re-entrant one, or another thread's) can run
 * meanwhile. Phase 2 (launch_argument_pack) packs the records into parameter storage of the launch's
 * own, with no Python code in between; then the launch; then (launch_arguments_release) NumPy
 * arguments are copied back, only if the launch was queued. */
#ifndef NUMBA_CUDA_C_LAUNCH_ARGUMENTS_H
#define NUMBA_CUDA_C_LAUNCH_ARGUMENTS_H

#include "core/context.h"
#include "launch/argument_kinds.h"
#include "launch/kernel.h"

#define NATURAL_PARAM_MAX_SIZE 16 /* the widest argument packed by its natural size: complex128 */

typedef enum { ARG_ARRAY, ARG_POINTER, ARG_FLOAT, ARG_INT, ARG_COMPLEX, ARG_TUPLE, ARG_SCALAR, ARG_TYPE } arg_kind;

typedef struct {
    PyObject *object;    /* the argument (borrowed), or its device copy or CAI view (owned: `owned`) */
    PyObject *host;      /* owned: the NumPy array the device copy goes back to, or NULL */
    CUdeviceptr pointer; /* ARG_POINTER's value */
    arg_kind kind;
    int owned;
} launch_arg;

/* What the launch is: for messages, the stream for copies (a Stream or NULL), the context it runs in. */
typedef struct {
    KernelObject *kernel;
    PyObject *stream;
    ContextObject *context;
} launch_target;

/* Phase 1: *record for argument `index` of kind `kind`. `size` is its parameter's size (0: unknown).
 * May run Python code and release the GIL. 0, or -1 with an exception (the record then holds nothing). */
int launch_argument_convert(module_state *st, const launch_target *target, Py_ssize_t index, PyObject *arg,
                            argument_kind kind, size_t size, launch_arg *record);

/* Phase 2: packs a converted argument at `dest`. *size is the parameter's size, or 0 when the driver
 * cannot tell: then the argument's natural size is used and written back. Runs no Python code. */
int launch_argument_pack(KernelObject *kernel, Py_ssize_t index, PyObject *arg, const launch_arg *record,
                         size_t *size, unsigned char *dest);

/* Phase 4: copies device copies back to their NumPy arrays if the launch was queued (`ok`), and drops
 * every record's references, whatever happened. */
int launch_arguments_release(PyObject *stream, launch_arg *records, Py_ssize_t count, int ok);

#endif
