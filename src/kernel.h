/* kernel.h: loaded modules (Module), their kernels (Kernel) and launch configurations
 * (LaunchConfig, what kernel[griddim, blockdim, stream, sharedmem] returns). */
#ifndef NUMBA_CUDA_C_KERNEL_H
#define NUMBA_CUDA_C_KERNEL_H

#include "context.h"

typedef struct {
    PyObject_HEAD
    ContextObject *context;
    CUmodule handle; /* unloaded with the object, unless the context was reset */
} ModuleObject;

typedef struct {
    PyObject_HEAD
    ModuleObject *module;
    CUfunction handle;
    PyObject *name;
    int max_threads_per_block;
    /* The parameters, from cuFuncGetParamInfo (-1: the driver cannot tell, then every argument is
     * packed by its natural size), read once and never changed. Each launch packs its arguments
     * into storage of its own (launch.c): Python code runs while arguments are converted, and may
     * launch this kernel too. */
    Py_ssize_t param_count;
    size_t *param_offsets;
    size_t *param_sizes;
    size_t params_size; /* bytes from the first parameter to the end of the last */
    PyObject *configs; /* dict: launch key -> LaunchConfig */
    PyObject *weakreflist;
} KernelObject;

typedef struct {
    PyObject_HEAD
    KernelObject *kernel;
    unsigned int grid[3], block[3];
    unsigned int sharedmem;
    PyObject *stream; /* a Stream, or NULL for the default stream */
    CUstream stream_handle;
    vectorcallfunc vectorcall;
} LaunchConfigObject;

/* The kernel `name` of a loaded module (cuModuleGetFunction). New reference. */
PyObject *kernel_new(module_state *st, ModuleObject *module, PyObject *name);

/* Creates the launch configuration of kernel[griddim, blockdim, stream, sharedmem]. New reference. */
PyObject *launch_config_new(module_state *st, KernelObject *kernel, PyObject *griddim, PyObject *blockdim,
                            PyObject *stream, PyObject *sharedmem);

/* Normalises numba's griddim/blockdim (an int or 1-3 ints) into three positive unsigned ints. */
int launch_parse_dims(PyObject *dims, const char *what, unsigned int out[3]);

int module_type_init(PyObject *module, module_state *st);
int kernel_type_init(PyObject *module, module_state *st);
int launch_type_init(PyObject *module, module_state *st);
extern PyMethodDef kernel_module_methods[];

#endif
