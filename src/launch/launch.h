/* launch.h: LaunchConfig, what kernel[griddim, blockdim, stream, sharedmem] returns, and
 * the launch itself: arguments converted and packed, cuLaunchKernel (launch.c). */
#ifndef NUMBA_CUDA_C_LAUNCH_H
#define NUMBA_CUDA_C_LAUNCH_H

#include "launch/argument_kinds.h"
#include "launch/kernel.h"

#define LAUNCH_STACK_ARGS 64 /* arguments whose records a launch keeps on the C stack */

typedef struct {
    PyObject_HEAD
    KernelObject *kernel;
    unsigned int grid[3], block[3];
    unsigned int sharedmem;
    PyObject *stream; /* a Stream, or NULL for the default stream */
    CUstream stream_handle;
    vectorcallfunc vectorcall;
} LaunchConfigObject;

/* Creates the launch configuration of kernel[griddim, blockdim, stream, sharedmem]. New reference. */
PyObject *launch_config_new(module_state *st, KernelObject *kernel, PyObject *griddim, PyObject *blockdim,
                            PyObject *stream, PyObject *sharedmem);

/* Launches `self` with these arguments; kinds[i], where `kinds` is not NULL, is argument i's kind as
 * argument_kind_of tells it (Dispatch passes those it told while keying the arguments). None, or NULL
 * with an exception. */
PyObject *launch_config_call(LaunchConfigObject *self, PyObject *const *args, Py_ssize_t nargs,
                             const argument_kind *kinds);

/* Normalises numba's griddim/blockdim (an int or 1-3 ints) into three positive unsigned ints. */
int launch_parse_dims(PyObject *dims, const char *what, unsigned int out[3]);

/* kernel[griddim, blockdim, stream, sharedmem]: the configuration, cached on the kernel by key. */
PyObject *launch_configure(PyObject *kernel, PyObject *key);

int launch_type_init(PyObject *module, module_state *st);
extern PyMethodDef launch_module_methods[];

#endif
