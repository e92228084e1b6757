/* kernel.c: Kernel, one __global__ function of a loaded Module: its parameter layout (read once
 * with cuFuncGetParamInfo), its attributes (registers, shared/local/constant memory) and numba's
 * launch syntax, kernel[griddim, blockdim, stream, sharedmem](*args). The launch itself is in
 * launch.c; the configurations a kernel has been given are kept, so a repeated key costs one
 * dict lookup. A Kernel launches in whichever context is current (or its stream's): its function
 * there is found, or its module loaded there, at the first launch in that context. */
#include "launch/kernel.h"

#include "driver/errors.h"

#include <structmember.h>

/* Reads the parameter layout; param_count -1 where the driver cannot tell (before CUDA 12.4). */
static int kernel_read_params(module_state *st, KernelObject *self)
{
    self->param_count = -1;
    if (cu.cuFuncGetParamInfo == NULL)
        return 0;
    size_t offsets[512], sizes[512];
    Py_ssize_t count = 0;
    for (; count < 512; count++) {
        CUresult rc;
        CU_UNBLOCKED(rc, cu.cuFuncGetParamInfo(self->handle, (size_t)count, &offsets[count], &sizes[count]));
        if (rc == CUDA_ERROR_INVALID_VALUE)
            break; /* past the last parameter */
        if (cu_check(st, rc, "cuFuncGetParamInfo") < 0)
            return -1;
    }
    size_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++)
        if (offsets[i] + sizes[i] > total)
            total = offsets[i] + sizes[i];
    self->param_count = count;
    self->param_offsets = PyMem_Calloc(count + 1, sizeof(size_t));
    self->param_sizes = PyMem_Calloc(count + 1, sizeof(size_t));
    self->params_size = total;
    if (!self->param_offsets || !self->param_sizes) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        self->param_offsets[i] = offsets[i];
        self->param_sizes[i] = sizes[i];
    }
    return 0;
}

PyObject *kernel_new(module_state *st, ModuleObject *module, PyObject *name)
{
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL || context_check_alive(st, module->context) < 0)
        return NULL;
    KernelObject *self = PyObject_GC_New(KernelObject, st->KernelType);
    if (self == NULL)
        return NULL;
    self->module = (ModuleObject *)Py_NewRef((PyObject *)module);
    self->name = Py_NewRef(name);
    self->context = NULL;
    self->handle = NULL;
    self->bindings = NULL;
    self->param_offsets = self->param_sizes = NULL;
    self->params_size = 0;
    self->param_count = -1;
    self->configs = PyDict_New();
    self->weakreflist = NULL;
    self->cooperative = 0;
    self->carveout = KERNEL_NO_CARVEOUT;
    self->min_stack = 0;
    PyObject_GC_Track(self);
    if (self->configs == NULL || (self->bindings = PyMem_Calloc(1, sizeof *self->bindings)) == NULL)
        goto error;
    CUfunction handle = NULL;
    /* with lazy loading (CUDA 12.2's default) this loads the kernel: it can block */
    CUresult rc = CU_BLOCKING(cu.cuModuleGetFunction(&handle, module->handle, text));
    if (rc == CUDA_ERROR_NOT_FOUND) {
        PyErr_Format(st->CudaAPIError,
                     "no kernel named '%s' in the module (kernels need extern \"C\" to keep "
                     "their names unmangled)",
                     text);
        goto error;
    }
    if (cu_check(st, rc, "cuModuleGetFunction") < 0)
        goto error;
    self->bindings->context = (ContextObject *)Py_NewRef((PyObject *)module->context);
    self->bindings->handle = handle;
    self->context = module->context;
    self->handle = handle;
    if (kernel_read_params(st, self) < 0 ||
        CU_CALL(st, cuFuncGetAttribute,
                (&self->max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, self->handle)) < 0)
        goto error;
    return (PyObject *)self;
error:
    Py_DECREF(self);
    return NULL;
}

/* The current context's per-thread stack raised to at least `bytes` (never lowered: other kernels may
 * need what it has). */
static int ensure_stack(module_state *st, size_t bytes)
{
    size_t current = 0;
    if (cu.cuCtxGetLimit == NULL || cu.cuCtxSetLimit == NULL)
        return 0; /* an old driver: the default stack, as before */
    if (CU_CALL(st, cuCtxGetLimit, (&current, CU_LIMIT_STACK_SIZE)) < 0)
        return -1;
    return current >= bytes ? 0 : CU_CALL(st, cuCtxSetLimit, (CU_LIMIT_STACK_SIZE, bytes));
}

/* The kernel's settings (carveout, stack) on its function in the current context. */
static int apply_settings(module_state *st, KernelObject *self, CUfunction handle)
{
    if (self->carveout != KERNEL_NO_CARVEOUT &&
        CU_CALL(st, cuFuncSetAttribute,
                (handle, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, self->carveout)) < 0)
        return -1;
    return self->min_stack ? ensure_stack(st, self->min_stack) : 0;
}

/* The settings on its function in every live context it is loaded in (a new one gets them in kernel_rebind). */
static int apply_settings_everywhere(module_state *st, KernelObject *self)
{
    for (context_entry *entry = self->bindings; entry != NULL; entry = entry->next) {
        if (entry->context->handle == NULL)
            continue; /* reset: its function went with it */
        if (IN_CONTEXT(st, entry->context, apply_settings(st, self, (CUfunction)entry->handle) < 0) < 0)
            return -1;
    }
    return 0;
}

CUfunction kernel_rebind(module_state *st, KernelObject *self, ContextObject *context)
{
    context_entry *entry;
    for (entry = self->bindings; entry != NULL; entry = entry->next)
        if (entry->context == context)
            break;
    if (entry == NULL) {
        const char *text = PyUnicode_AsUTF8(self->name);
        CUmodule module = text ? module_handle_in(st, self->module, context) : NULL;
        CUfunction handle = NULL;
        if (module == NULL ||
            IN_CONTEXT(st, context,
                       CU_CALL(st, cuModuleGetFunction, (&handle, module, text)) < 0 ||
                           apply_settings(st, self, handle) < 0) < 0) /* the same settings in every context */
            return NULL;
        for (entry = self->bindings; entry != NULL; entry = entry->next) /* the GIL was released */
            if (entry->context == context)
                break;
        if (entry == NULL) {
            if ((entry = PyMem_Malloc(sizeof *entry)) == NULL) {
                PyErr_NoMemory();
                return NULL;
            }
            entry->context = (ContextObject *)Py_NewRef((PyObject *)context);
            entry->handle = handle;
            entry->next = self->bindings;
            self->bindings = entry;
        }
    }
    self->context = entry->context;
    self->handle = (CUfunction)entry->handle;
    /* Functions of contexts that were reset go with them (unlinked first: a Context's death may run
     * Python code that launches this kernel). */
    context_entry *dead = NULL, **link = &self->bindings;
    while (*link != NULL) {
        context_entry *item = *link;
        if (item->context->handle == NULL && item->context != self->context) {
            *link = item->next;
            item->next = dead;
            dead = item;
        } else {
            link = &item->next;
        }
    }
    CUfunction handle = self->handle;
    while (dead != NULL) {
        context_entry *item = dead;
        dead = item->next;
        Py_DECREF(item->context);
        PyMem_Free(item);
    }
    return handle;
}

static PyObject *kernel_attribute(PyObject *op, int attribute)
{
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    int value = 0;
    ContextObject *context = context_current(st); /* numba's: of the current device */
    CUfunction handle = context ? kernel_function(st, self, context) : NULL;
    if (handle == NULL || CU_CALL(st, cuFuncGetAttribute, (&value, attribute, handle)) < 0)
        return NULL;
    return PyLong_FromLong(value);
}

/* numba's names; numba's take an optional signature, which a compiled kernel does not need. */
#define KERNEL_ATTRIBUTE_METHOD(method, attribute)                                                                 \
    static PyObject *Kernel_##method(PyObject *op, PyObject *const *Py_UNUSED(args), Py_ssize_t nargs)             \
    {                                                                                                              \
        if (nargs > 1) {                                                                                           \
            PyErr_SetString(PyExc_TypeError, #method "() takes at most one argument (signature)");                 \
            return NULL;                                                                                           \
        }                                                                                                          \
        return kernel_attribute(op, attribute);                                                                    \
    }
KERNEL_ATTRIBUTE_METHOD(get_regs_per_thread, CU_FUNC_ATTRIBUTE_NUM_REGS)
KERNEL_ATTRIBUTE_METHOD(get_shared_mem_per_block, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
KERNEL_ATTRIBUTE_METHOD(get_local_mem_per_thread, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
KERNEL_ATTRIBUTE_METHOD(get_const_mem_size, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
KERNEL_ATTRIBUTE_METHOD(get_max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
#undef KERNEL_ATTRIBUTE_METHOD

static PyObject *Kernel_call(PyObject *op, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kwargs))
{
    PyErr_Format(
        PyExc_ValueError,
        "launch configuration was not specified for kernel %S. Use the syntax: kernel[griddim, blockdim](*args)",
        ((KernelObject *)op)->name);
    return NULL;
}

static PyObject *Kernel_get_nargs(PyObject *op, void *Py_UNUSED(closure))
{
    Py_ssize_t count = ((KernelObject *)op)->param_count;
    return count < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(count);
}

static PyObject *Kernel_get_param_sizes(PyObject *op, void *Py_UNUSED(closure))
{
    KernelObject *self = (KernelObject *)op;
    if (self->param_count < 0)
        Py_RETURN_NONE;
    PyObject *sizes = PyTuple_New(self->param_count);
    for (Py_ssize_t i = 0; sizes != NULL && i < self->param_count; i++) {
        PyObject *size = PyLong_FromSize_t(self->param_sizes[i]);
        if (size == NULL)
            Py_CLEAR(sizes);
        else
            PyTuple_SET_ITEM(sizes, i, size);
    }
    return sizes;
}

static PyObject *Kernel_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((KernelObject *)op)->handle);
}

static PyObject *Kernel_repr(PyObject *op)
{
    return PyUnicode_FromFormat("<Kernel %S>", ((KernelObject *)op)->name);
}

static int Kernel_traverse(PyObject *op, visitproc visit, void *arg)
{
    KernelObject *self = (KernelObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->configs);
    Py_VISIT(self->module);
    for (context_entry *entry = self->bindings; entry != NULL; entry = entry->next)
        Py_VISIT(entry->context);
    return 0;
}

static int Kernel_clear(PyObject *op)
{
    Py_CLEAR(((KernelObject *)op)->configs);
    return 0;
}

static void Kernel_dealloc(PyObject *op)
{
    KernelObject *self = (KernelObject *)op;
    dealloc_begin(op, self->weakreflist);
    Kernel_clear(op);
    while (self->bindings != NULL) {
        context_entry *entry = self->bindings;
        self->bindings = entry->next;
        Py_XDECREF(entry->context);
        PyMem_Free(entry);
    }
    Py_XDECREF(self->module);
    Py_XDECREF(self->name);
    PyMem_Free(self->param_offsets);
    PyMem_Free(self->param_sizes);
    dealloc_end(op);
}

#define ATTRIBUTE_METHOD(name, doc)                                                                                \
    {                                                                                                              \
#name, (PyCFunction)(void (*)(void))Kernel_##name, METH_FASTCALL, doc                                      \
    }
/* numba's max_cooperative_grid_blocks(blockdim, dynsmemsize=0): the most blocks of this size a
 * cooperative launch can have in the current context (all resident at once). */
static PyObject *Kernel_max_cooperative_grid_blocks(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"blockdim", "dynsmemsize", NULL};
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    PyObject *blockdim;
    Py_ssize_t dynamic = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|n:max_cooperative_grid_blocks", keywords, &blockdim,
                                     &dynamic))
        return NULL;
    long long threads = 1;
    PyObject *dims = PyTuple_Check(blockdim) ? Py_NewRef(blockdim) : PyTuple_Pack(1, blockdim);
    if (dims == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dims); i++) {
        long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(dims, i));
        if (d == -1 && PyErr_Occurred()) {
            Py_DECREF(dims);
            return NULL;
        }
        threads *= d;
    }
    Py_DECREF(dims);
    if (threads <= 0 || threads > INT_MAX || dynamic < 0) {
        PyErr_SetString(PyExc_ValueError, "max_cooperative_grid_blocks: blockdim and dynsmemsize must be positive");
        return NULL;
    }
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    CUfunction function = kernel_function(st, self, context);
    if (function == NULL)
        return NULL;
    if (cu.cuOccupancyMaxActiveBlocksPerMultiprocessor == NULL) {
        PyErr_SetString(st->CudaSupportError,
                        "this CUDA driver has no cuOccupancyMaxActiveBlocksPerMultiprocessor");
        return NULL;
    }
    int per_sm = 0, sm_count = 0;
    if (CU_CALL(st, cuOccupancyMaxActiveBlocksPerMultiprocessor,
                (&per_sm, function, (int)threads, (size_t)dynamic)) < 0 ||
        CU_CALL(st, cuDeviceGetAttribute,
                (&sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, context->device->handle)) < 0)
        return NULL;
    return PyLong_FromLongLong((long long)per_sm * sm_count);
}

/* _set_cooperative(flag): launch with cuLaunchCooperativeKernel (set by @cuda.jit for kernels that
 * sync the grid: cuda.cg.this_grid().sync()). */
static PyObject *Kernel_set_cooperative(PyObject *op, PyObject *flag)
{
    int value = PyObject_IsTrue(flag);
    if (value < 0)
        return NULL;
    ((KernelObject *)op)->cooperative = value;
    Py_RETURN_NONE;
}

static PyObject *Kernel_get_cooperative(PyObject *op, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(((KernelObject *)op)->cooperative);
}

/* _set_shared_memory_carveout(percent): the shared memory / L1 split preferred for this kernel, -1 to
 * 100 (numba's shared_memory_carveout): set on its function in every context it is loaded in. */
static PyObject *Kernel_set_shared_memory_carveout(PyObject *op, PyObject *value)
{
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    long carveout = PyLong_AsLong(value);
    if (carveout == -1 && PyErr_Occurred())
        return NULL;
    if (carveout < -1 || carveout > 100) {
        PyErr_SetString(PyExc_ValueError, "Carveout must be between -1 and 100");
        return NULL;
    }
    int previous = self->carveout;
    self->carveout = (int)carveout;
    if (apply_settings_everywhere(st, self) < 0) {
        self->carveout = previous;
        return NULL;
    }
    Py_RETURN_NONE;
}

/* _set_min_stack_size(bytes): the per-thread stack this kernel needs (recursive device functions, whose
 * depth ptxas cannot bound); each context it is loaded in gets at least that much. */
static PyObject *Kernel_set_min_stack_size(PyObject *op, PyObject *value)
{
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    size_t bytes = PyLong_AsSize_t(value);
    if (bytes == (size_t)-1 && PyErr_Occurred())
        return NULL;
    size_t previous = self->min_stack;
    self->min_stack = bytes;
    if (apply_settings_everywhere(st, self) < 0) {
        self->min_stack = previous;
        return NULL;
    }
    Py_RETURN_NONE;
}

/* _global(name) -> (device pointer, size): a __device__ variable of the kernel's module in the current
 * context (extern "C" names), e.g. the exception record of kernels compiled with debug=True. */
static PyObject *Kernel_global(PyObject *op, PyObject *name)
{
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL)
        return NULL;
    if (cu.cuModuleGetGlobal == NULL) {
        PyErr_SetString(st->CudaSupportError, "this CUDA driver has no cuModuleGetGlobal");
        return NULL;
    }
    ContextObject *context = context_current(st);
    CUmodule module = context ? module_handle_in(st, self->module, context) : NULL;
    CUdeviceptr pointer = 0;
    size_t size = 0;
    if (module == NULL || CU_CALL_IN(st, context, cuModuleGetGlobal, (&pointer, &size, module, text)) < 0)
        return NULL;
    return Py_BuildValue("(Kn)", (unsigned long long)pointer, (Py_ssize_t)size);
}

static PyMethodDef Kernel_methods[] = {
    REPR_HTML_METHOD,
    {"max_cooperative_grid_blocks", (PyCFunction)(void (*)(void))Kernel_max_cooperative_grid_blocks,
     METH_VARARGS | METH_KEYWORDS,
     "max_cooperative_grid_blocks(blockdim, dynsmemsize=0): the most blocks a cooperative launch can have here."},
    {"_set_cooperative", Kernel_set_cooperative, METH_O, "Launch with cuLaunchCooperativeKernel (grid syncs)."},
    {"_global", Kernel_global, METH_O,
     "_global(name) -> (pointer, size): a __device__ variable in the current context."},
    {"_set_min_stack_size", Kernel_set_min_stack_size, METH_O,
     "_set_min_stack_size(bytes): every context it runs in gives each thread at least this much stack."},
    {"set_shared_memory_carveout", Kernel_set_shared_memory_carveout, METH_O,
     "set_shared_memory_carveout(percent): the shared memory / L1 split preferred, -1 (default) to 100."},
    ATTRIBUTE_METHOD(get_regs_per_thread, "Registers each thread uses."),
    ATTRIBUTE_METHOD(get_shared_mem_per_block, "Static shared memory per block, in bytes."),
    ATTRIBUTE_METHOD(get_local_mem_per_thread, "Local memory per thread, in bytes."),
    ATTRIBUTE_METHOD(get_const_mem_size, "Constant memory the kernel uses, in bytes."),
    ATTRIBUTE_METHOD(get_max_threads_per_block, "The most threads a block of this kernel can have."),
    {0},
};
#undef ATTRIBUTE_METHOD

static PyGetSetDef Kernel_getset[] = {
    {"nargs", Kernel_get_nargs, NULL, "The number of parameters (None if the driver cannot tell).", NULL},
    {"param_sizes", Kernel_get_param_sizes, NULL, "The size of each parameter, in bytes.", NULL},
    {"handle", Kernel_get_handle, NULL, "The CUfunction, as an int.", NULL},
    {"cooperative", Kernel_get_cooperative, NULL, "Whether it launches cooperatively (its grid syncs).", NULL},
    {0},
};

static PyMemberDef Kernel_members[] = {
    {"name", T_OBJECT, offsetof(KernelObject, name), READONLY, "The kernel's name."},
    {"module", T_OBJECT, offsetof(KernelObject, module), READONLY, "The Module it belongs to."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(KernelObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot Kernel_slots[] = {
    {Py_tp_doc, "A kernel: launch it with ``kernel[griddim, blockdim, stream=0, sharedmem=0](*args)``."},
    {Py_tp_repr, Kernel_repr},
    {Py_tp_call, Kernel_call},
    {Py_mp_subscript, NULL}, /* kernel_type_init sets it: launch.c configures launches */
    {Py_tp_methods, Kernel_methods},
    {Py_tp_getset, Kernel_getset},
    {Py_tp_members, Kernel_members},
    {Py_tp_traverse, Kernel_traverse},
    {Py_tp_clear, Kernel_clear},
    {Py_tp_dealloc, Kernel_dealloc},
    {0, NULL},
};

static PyType_Spec Kernel_spec = {
    .name = "numba_cuda_c.Kernel",
    .basicsize = sizeof(KernelObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Kernel_slots,
};

static PyObject *Module_get_function(PyObject *op, PyObject *name)
{
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "kernel name must be str, not %.100s", Py_TYPE(name)->tp_name);
        return NULL;
    }
    return kernel_new(state_of(op), (ModuleObject *)op, name);
}

/* Module.get_function, added to Module at init (loaded_module.c makes no kernels). */
static PyMethodDef Module_kernel_methods[] = {
    {"get_function", Module_get_function, METH_O, "get_function(name): the kernel of that (extern \"C\") name."},
    {0},
};

int kernel_type_init(PyObject *module, module_state *st, binaryfunc configure)
{
    for (PyType_Slot *slot = Kernel_slots; slot->slot != 0; slot++)
        if (slot->slot == Py_mp_subscript)
            slot->pfunc = (void *)configure;
    if (type_create(module, &Kernel_spec, NULL, &st->KernelType, 1) < 0)
        return -1;
    return type_add_methods(st->ModuleType, Module_kernel_methods);
}
