/* kernel.h: Kernel, a function of a loaded module, bound to each context it runs in;
 * Module.get_function makes them (kernel.c). */
#ifndef NUMBA_CUDA_C_KERNEL_H
#define NUMBA_CUDA_C_KERNEL_H

#include "launch/loaded_module.h"

typedef struct {
    PyObject_HEAD
    ModuleObject *module;
    /* The function in the context it was last launched in: a launch in that context costs one
     * pointer compare; another context's function is found (or loaded) in `bindings`. */
    ContextObject *context; /* borrowed from `bindings` */
    CUfunction handle;
    context_entry *bindings;
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
    PyObject *configs;  /* dict: launch key -> LaunchConfig */
    PyObject *weakreflist;
    int cooperative;  /* launched with cuLaunchCooperativeKernel (its code syncs the grid) */
    int carveout;     /* preferred shared memory carveout (%, -1: the device's default), or KERNEL_NO_CARVEOUT */
    size_t min_stack; /* per-thread stack its contexts must give it (recursion: ptxas cannot size it), or 0 */
} KernelObject;

#define KERNEL_NO_CARVEOUT (-2)

/* The kernel `name` of a loaded module (cuModuleGetFunction). New reference. */
PyObject *kernel_new(module_state *st, ModuleObject *module, PyObject *name);

/* The kernel's function in `context` (alive), loading its module there at the first call. Borrowed;
 * NULL with an error. kernel_function() is the launch path's check. */
CUfunction kernel_rebind(module_state *st, KernelObject *kernel, ContextObject *context);
static inline CUfunction kernel_function(module_state *st, KernelObject *kernel, ContextObject *context)
{
    return context == kernel->context ? kernel->handle : kernel_rebind(st, kernel, context);
}

/* Creates the type; `configure` is its kernel[griddim, blockdim, ...] (launch_configure, launch.c),
 * given by module init so that this file calls no launch code. */
int kernel_type_init(PyObject *module, module_state *st, binaryfunc configure);

#endif
