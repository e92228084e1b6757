/* loaded_module.h: Module, a loaded CUDA module (a CUBIN, PTX or fatbin image), in the
 * context it was made in and in each other context one of its kernels runs in (loaded_module.c). */
#ifndef NUMBA_CUDA_C_LOADED_MODULE_H
#define NUMBA_CUDA_C_LOADED_MODULE_H

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
    CUmodule handle;        /* in `context`: unloaded with the object, unless the context was reset */
    PyObject *image;        /* bytes, as loaded (PTX with its NUL) */
    PyObject *loader;       /* callable() -> image for the current context's device, or NULL: `image` everywhere */
    int cc_major, cc_minor; /* of the device `image` was loaded on */
    context_entry *others;  /* loads in other contexts */
    /* A module of a CUlibrary another object loaded and owns (a cuda.core ObjectCode, given to numba's
     * link callbacks): its module in each context comes from cuLibraryGetModule and is never
     * unloaded here; the owner unloads the library when it goes. NULL for a module loaded here. */
    CUlibrary library;
    PyObject *library_owner;
} ModuleObject;

/* The module's CUmodule in `context` (alive), loaded there now if it is not yet. */
CUmodule module_handle_in(module_state *st, ModuleObject *module, ContextObject *context);

int module_type_init(PyObject *module, module_state *st);
extern PyMethodDef loaded_module_methods[];

#endif
