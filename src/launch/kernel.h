/* kernel.h: loaded modules (Module), their kernels (Kernel) and launch configurations
 * (LaunchConfig, what kernel[griddim, blockdim, stream, sharedmem] returns). */
#ifndef NUMBA_CUDA_C_KERNEL_H
#define NUMBA_CUDA_C_KERNEL_H

#include "core/context.h"

/* A module's image loaded in one more context, or a kernel's function there. Each holds its context,
 * so that a context object's address is never reused while an entry names it. */
typedef struct context_entry {
    ContextObject *context;
    void *handle; /* CUmodule or CUfunction */
    struct context_entry *next;
} context_entry;

/* A module is loaded where it is made, then in each other context a kernel of it is launched in, at
 * that first launch: the same image where the device has the same compute capability, else the one
 * `loader` compiles for it. A context that is reset takes its loads with it. */
typedef struct {
    PyObject_HEAD
    ContextObject *context;
    CUmodule handle;     /* in `context`: unloaded with the object, unless the context was reset */
    PyObject *image;     /* bytes, as loaded (PTX with its NUL) */
    PyObject *loader;    /* callable() -> image for the current context's device, or NULL: `image` everywhere */
    int cc_major, cc_minor; /* of the device `image` was loaded on */
    context_entry *others; /* loads in other contexts */
    /* A module of a CUlibrary another object loaded and owns (a cuda.core ObjectCode, given to numba's
     * link callbacks): its module in each context comes from cuLibraryGetModule and is never
     * unloaded here; the owner unloads the library when it goes. NULL for a module loaded here. */
    CUlibrary library;
    PyObject *library_owner;
} ModuleObject;

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
    PyObject *configs; /* dict: launch key -> LaunchConfig */
    PyObject *weakreflist;
    int cooperative; /* launched with cuLaunchCooperativeKernel (its code syncs the grid) */
    int carveout;    /* preferred shared memory carveout (%, -1: the device's default), or KERNEL_NO_CARVEOUT */
    size_t min_stack; /* per-thread stack its contexts must give it (recursion: ptxas cannot size it), or 0 */
} KernelObject;

#define KERNEL_NO_CARVEOUT (-2)

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

/* The kernel's function in `context` (alive), loading its module there at the first call. Borrowed;
 * NULL with an error. kernel_function() is the launch path's check. */
CUfunction kernel_rebind(module_state *st, KernelObject *kernel, ContextObject *context);
static inline CUfunction kernel_function(module_state *st, KernelObject *kernel, ContextObject *context)
{
    return context == kernel->context ? kernel->handle : kernel_rebind(st, kernel, context);
}

/* The module's CUmodule in `context` (alive), loaded there now if it is not yet. */
CUmodule module_handle_in(module_state *st, ModuleObject *module, ContextObject *context);

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
