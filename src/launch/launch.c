/* launch.c: LaunchConfig, kernel[griddim, blockdim, stream, sharedmem], and the launch.
 *
 * The hot path (docs/ARCHITECTURE.md, "The launch path"): calling a LaunchConfig is a vectorcall. Each
 * argument's kind is told once (argument_kinds.h: exact types first; Dispatch hands in the kinds it
 * told while keying a @cuda.jit launch), then it is converted and packed (launch_arguments.c) into
 * this launch's own parameter storage (the C stack up to LAUNCH_STACK_ARGS arguments and
 * LAUNCH_STACK_BYTES bytes, the heap beyond); then one cuLaunchKernel. */
#include "launch/launch.h"

#include "core/graph.h"
#include "core/stream.h"
#include "driver/errors.h"
#include "launch/launch_arguments.h"

#include <structmember.h>

#define LAUNCH_STACK_BYTES 4096 /* parameter bytes a launch keeps on the C stack (the heap beyond) */
#define NATURAL_PARAMS_MAX 256

/* The dimensions as numba shows them in its errors: a list ([2.0], [1, 2, 3, 4]). */
static void raise_dims_error(PyObject *type, const char *format, const char *what, PyObject *dims)
{
    PyObject *shown =
        (PyTuple_Check(dims) || PyList_Check(dims)) ? PySequence_List(dims) : Py_BuildValue("[O]", dims);
    if (shown != NULL)
        PyErr_Format(type, format, what, shown);
    Py_XDECREF(shown);
}

int launch_parse_dims(PyObject *dims, const char *what, unsigned int out[3])
{
    PyObject *items[3] = {NULL, NULL, NULL};
    Py_ssize_t n = 1;
    if (dims == NULL || dims == Py_None) {
        PyErr_SetString(PyExc_ValueError, "griddim and blockdim must be specified");
        return -1;
    }
    if (PyTuple_Check(dims) || PyList_Check(dims)) {
        n = PySequence_Fast_GET_SIZE(dims);
        if (n < 1 || n > 3) {
            raise_dims_error(PyExc_ValueError, "%s must be a sequence of 1, 2 or 3 integers, got %R", what, dims);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            items[i] = PySequence_Fast_GET_ITEM(dims, i);
    } else {
        items[0] = dims;
    }
    for (int i = 0; i < 3; i++) {
        if (i >= n) {
            out[i] = 1;
            continue;
        }
        if (!PyIndex_Check(items[i])) {
            raise_dims_error(PyExc_TypeError, "%s must be a sequence of integers, got %R", what, dims);
            return -1;
        }
        Py_ssize_t value = PyNumber_AsSsize_t(items[i], PyExc_OverflowError);
        if (value == -1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return -1;
            PyErr_Clear(); /* Python's words name no argument: ours say which */
            PyObject *zero = PyLong_FromLong(0);
            int negative = zero != NULL ? PyObject_RichCompareBool(items[i], zero, Py_LT) : -1;
            Py_XDECREF(zero);
            if (negative < 0)
                return -1;
            value = negative ? -1 : PY_SSIZE_T_MAX;
        }
        if (value <= 0) {
            raise_dims_error(PyExc_ValueError, "%s must hold positive sizes, got %R", what, dims);
            return -1;
        }
        if ((unsigned long long)value > 0xffffffffULL) { /* a launch's sizes are 32-bit */
            raise_dims_error(PyExc_OverflowError, "%s is too large: each size must be at most 4294967295, got %R",
                             what, dims);
            return -1;
        }
        out[i] = (unsigned int)value;
    }
    return 0;
}

static PyObject *LaunchConfig_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                         PyObject *kwnames);

PyObject *launch_config_new(module_state *st, KernelObject *kernel, PyObject *griddim, PyObject *blockdim,
                            PyObject *stream, PyObject *sharedmem)
{
    unsigned int grid[3], block[3];
    CUstream handle = NULL;
    int bytes = 0;
    if (launch_parse_dims(griddim, "griddim", grid) < 0 || launch_parse_dims(blockdim, "blockdim", block) < 0)
        return NULL;
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    if (threads > (unsigned long long)kernel->max_threads_per_block) {
        /* what the launch would say (numba raises it from there), with the reason, before any launch */
        cu_raise_launch(
            st, CUDA_ERROR_INVALID_VALUE,
            PyUnicode_FromFormat("Call to cuLaunchKernel results in CUDA_ERROR_INVALID_VALUE: blockdim %R "
                                 "asks for %llu threads; %S allows at most %d per block",
                                 blockdim, threads, kernel->name, kernel->max_threads_per_block));
        return NULL;
    }
    if (stream_handle_from_object(st, stream ? stream : Py_None, &handle) < 0)
        return NULL;
    if (sharedmem != NULL && sharedmem != Py_None) {
        if (int_from_object(sharedmem, &bytes, "sharedmem") < 0)
            return NULL;
        if (bytes < 0) {
            PyErr_SetString(PyExc_ValueError, "sharedmem must not be negative");
            return NULL;
        }
    }
    LaunchConfigObject *self = PyObject_GC_New(LaunchConfigObject, st->LaunchConfigType);
    if (self == NULL)
        return NULL;
    self->kernel = (KernelObject *)Py_NewRef((PyObject *)kernel);
    memcpy(self->grid, grid, sizeof grid);
    memcpy(self->block, block, sizeof block);
    self->sharedmem = (unsigned int)bytes;
    self->stream = (stream != NULL && Py_IS_TYPE(stream, st->StreamType)) ? Py_NewRef(stream) : NULL;
    self->stream_handle = handle;
    self->vectorcall = LaunchConfig_vectorcall;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

/* Phase 3: one cuLaunchKernel (in the kernel's context: launch_kernel). It only queues the work, but
 * blocks while the driver's launch queue is full: if a Python stream callback is pending in the
 * context, it may be what the queue waits on, and it needs the GIL, so the GIL is released then (only
 * then: it costs more than most launches; lock order: stream.h). */
static int queue_launch(module_state *st, LaunchConfigObject *config, CUfunction function, void **params)
{
    CUresult rc;
    const char *what = "cuLaunchKernel";
    if (config->kernel->cooperative) { /* a grid that syncs: all its blocks resident at once */
        what = "cuLaunchCooperativeKernel";
        if (cu.cuLaunchCooperativeKernel == NULL) {
            PyErr_SetString(st->CudaSupportError, "this CUDA driver has no cuLaunchCooperativeKernel");
            return -1;
        }
        CU_UNBLOCKED(rc, cu.cuLaunchCooperativeKernel(function, config->grid[0], config->grid[1], config->grid[2],
                                                      config->block[0], config->block[1], config->block[2],
                                                      config->sharedmem, config->stream_handle, params));
    } else {
        CU_UNBLOCKED(rc, cu.cuLaunchKernel(function, config->grid[0], config->grid[1], config->grid[2],
                                           config->block[0], config->block[1], config->block[2], config->sharedmem,
                                           config->stream_handle, params, NULL));
    }
    return rc == CUDA_SUCCESS ? 0 : cu_raise_launch(st, rc, cu_error_message(rc, what));
}

/* The context is checked again on entry: converting the arguments ran Python code. */
static int launch_kernel(module_state *st, LaunchConfigObject *config, ContextObject *context, CUfunction function,
                         void **params)
{
    return IN_CONTEXT(st, context, queue_launch(st, config, function, params) < 0);
}

PyObject *launch_config_call(LaunchConfigObject *self, PyObject *const *args, Py_ssize_t nargs,
                             const argument_kind *kinds)
{
    KernelObject *kernel = self->kernel;
    module_state *st = state_of((PyObject *)self);
    int natural = kernel->param_count < 0;
    if (!natural && nargs != kernel->param_count) {
        PyErr_Format(PyExc_TypeError, "%S takes %zd argument%s, %zd given", kernel->name, kernel->param_count,
                     kernel->param_count == 1 ? "" : "s", nargs);
        return NULL;
    }
    if (natural && nargs > NATURAL_PARAMS_MAX) {
        PyErr_Format(PyExc_TypeError, "too many kernel arguments: %zd", nargs);
        return NULL;
    }
    /* The kernel runs in its stream's context, else the current one, where its function is found
     * (loaded at its first launch there). */
    launch_target target = {kernel, self->stream, NULL};
    target.context = self->stream ? ((StreamObject *)self->stream)->context : context_current(st);
    CUfunction function = target.context == NULL || context_check_alive(st, target.context) < 0
                              ? NULL
                              : kernel_function(st, kernel, target.context);
    if (function == NULL)
        return NULL;

    /* This launch's storage: records, parameter pointers and bytes, on the stack when they fit. */
    size_t param_bytes = natural ? (size_t)nargs * NATURAL_PARAM_MAX_SIZE : kernel->params_size;
    launch_arg stack_records[LAUNCH_STACK_ARGS], *records = stack_records;
    void *stack_pointers[LAUNCH_STACK_ARGS], **pointers = stack_pointers;
    _Alignas(16) unsigned char stack_params[LAUNCH_STACK_BYTES];
    unsigned char *params = stack_params;
    void *heap = NULL;
    if (nargs > LAUNCH_STACK_ARGS || param_bytes > LAUNCH_STACK_BYTES) {
        size_t records_size = (size_t)nargs * sizeof(launch_arg), pointers_size = (size_t)nargs * sizeof(void *);
        records_size = (records_size + 15) / 16 * 16;
        pointers_size = (pointers_size + 15) / 16 * 16;
        if ((heap = PyMem_Malloc(records_size + pointers_size + param_bytes + 1)) == NULL)
            return PyErr_NoMemory();
        records = heap;
        pointers = (void **)((unsigned char *)heap + records_size);
        params = (unsigned char *)heap + records_size + pointers_size;
    }

    /* Each argument's kind: the one Dispatch told while keying the argument types, else told here. */
    Py_ssize_t converted = 0, owned = 0;
    int failed = 0;
    for (; converted < nargs && !failed; converted++) {
        PyObject *arg = args[converted];
        size_t size = natural ? 0 : kernel->param_sizes[converted];
        argument_kind kind = kinds != NULL ? kinds[converted] : argument_kind_of(st, arg);
        failed = launch_argument_convert(st, &target, converted, arg, kind, size, &records[converted]) < 0;
        owned += !failed && records[converted].owned;
    }
    if (failed)
        converted--; /* the record that failed holds nothing */
    size_t natural_offset = 0;
    for (Py_ssize_t i = 0; i < nargs && !failed; i++) {
        size_t size = natural ? 0 : kernel->param_sizes[i];
        unsigned char *dest = natural ? params + natural_offset : params + kernel->param_offsets[i];
        failed = launch_argument_pack(kernel, i, args[i], &records[i], &size, dest) < 0;
        if (!failed && natural) { /* the next one at its natural alignment (its size) */
            size_t aligned = (natural_offset + size - 1) / size * size;
            if (aligned != natural_offset)
                memmove(params + aligned, dest, size);
            dest = params + aligned;
            natural_offset = aligned + size;
        }
        pointers[i] = dest;
    }
    if (!failed)
        failed = launch_kernel(st, self, target.context, function, pointers) < 0;
    /* captured into a graph, not run: what it points to must live as long as the graph */
    if (!failed && self->stream != NULL && ((StreamObject *)self->stream)->capture != NULL)
        failed = graph_keep_launch(((StreamObject *)self->stream)->capture, (PyObject *)self, args, nargs) < 0;
    if (owned > 0 && launch_arguments_release(self->stream, records, converted, !failed) < 0)
        failed = 1;
    PyMem_Free(heap);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *LaunchConfig_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                         PyObject *kwnames)
{
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_SetString(PyExc_TypeError, "kernels take positional arguments only");
        return NULL;
    }
    return launch_config_call((LaunchConfigObject *)callable, args, PyVectorcall_NARGS(nargsf), NULL);
}

static PyObject *LaunchConfig_repr(PyObject *op)
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    return PyUnicode_FromFormat("<LaunchConfig of %S: grid (%u, %u, %u), block (%u, %u, %u), sharedmem %u>",
                                self->kernel->name, self->grid[0], self->grid[1], self->grid[2], self->block[0],
                                self->block[1], self->block[2], self->sharedmem);
}

static PyObject *LaunchConfig_get_griddim(PyObject *op, void *Py_UNUSED(closure))
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    return Py_BuildValue("(III)", self->grid[0], self->grid[1], self->grid[2]);
}

static PyObject *LaunchConfig_get_blockdim(PyObject *op, void *Py_UNUSED(closure))
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    return Py_BuildValue("(III)", self->block[0], self->block[1], self->block[2]);
}

static PyObject *LaunchConfig_get_stream(PyObject *op, void *Py_UNUSED(closure))
{
    PyObject *stream = ((LaunchConfigObject *)op)->stream;
    return stream ? Py_NewRef(stream) : PyLong_FromLong(0);
}

static int LaunchConfig_traverse(PyObject *op, visitproc visit, void *arg)
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->kernel);
    Py_VISIT(self->stream);
    return 0;
}

static int LaunchConfig_clear(PyObject *op)
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->stream);
    return 0;
}

static void LaunchConfig_dealloc(PyObject *op)
{
    dealloc_begin(op, NULL);
    LaunchConfig_clear(op);
    dealloc_end(op);
}

static PyGetSetDef LaunchConfig_getset[] = {
    {"griddim", LaunchConfig_get_griddim, NULL, "The grid, as (x, y, z).", NULL},
    {"blockdim", LaunchConfig_get_blockdim, NULL, "The block, as (x, y, z).", NULL},
    {"stream", LaunchConfig_get_stream, NULL, "The stream, or 0 for the default.", NULL},
    {0},
};

static PyMemberDef LaunchConfig_members[] = {
    {"sharedmem", T_UINT, offsetof(LaunchConfigObject, sharedmem), READONLY, "Dynamic shared memory, in bytes."},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(LaunchConfigObject, vectorcall), READONLY, NULL},
    {0},
};

static PyType_Slot LaunchConfig_slots[] = {
    {Py_tp_doc, "kernel[griddim, blockdim, stream, sharedmem]: call it with the kernel's arguments to launch."},
    {Py_tp_repr, LaunchConfig_repr},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_getset, LaunchConfig_getset},
    {Py_tp_members, LaunchConfig_members},
    {Py_tp_traverse, LaunchConfig_traverse},
    {Py_tp_clear, LaunchConfig_clear},
    {Py_tp_dealloc, LaunchConfig_dealloc},
    {0, NULL},
};

static PyType_Spec LaunchConfig_spec = {
    .name = "numba_cuda_c.LaunchConfig",
    .basicsize = sizeof(LaunchConfigObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_HAVE_VECTORCALL,
    .slots = LaunchConfig_slots,
};

/* launch(*args, griddim, blockdim, stream=0, sharedmem=0) */
static PyObject *Kernel_launch(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"griddim", "blockdim", "stream", "sharedmem", NULL};
    PyObject *griddim, *blockdim, *stream = NULL, *sharedmem = NULL;
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL)
        return NULL;
    griddim = blockdim = NULL;
    int ok = PyArg_ParseTupleAndKeywords(empty, kwargs, "|$OOOO:launch", keywords, &griddim, &blockdim, &stream,
                                         &sharedmem);
    Py_DECREF(empty);
    if (!ok)
        return NULL;
    if (griddim == NULL || blockdim == NULL) {
        PyErr_SetString(PyExc_TypeError, "launch() needs the keywords griddim and blockdim");
        return NULL;
    }
    PyObject *config = launch_config_new(state_of(op), (KernelObject *)op, griddim, blockdim, stream, sharedmem);
    if (config == NULL)
        return NULL;
    PyObject *result = PyObject_Call(config, args, NULL);
    Py_DECREF(config);
    return result;
}

/* Kernel.launch, added to Kernel at init (kernel.c makes no launch configurations). */
static PyMethodDef Kernel_launch_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))Kernel_launch, METH_VARARGS | METH_KEYWORDS,
     "launch(*args, griddim, blockdim, stream=0, sharedmem=0): launch with keywords."},
    {0},
};

/* kernel[griddim, blockdim, stream, sharedmem]: Kernel's mp_subscript (kernel_type_init is given it). */
#define MAX_CACHED_CONFIGS 64

/* kernel[griddim, blockdim], [.., stream], [.., stream, sharedmem] */
PyObject *launch_configure(PyObject *op, PyObject *key)
{
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    PyObject *config = PyDict_GetItemWithError(self->configs, key);
    if (config != NULL)
        return Py_NewRef(config);
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) /* unhashable keys are parsed, not cached */
            return NULL;
        PyErr_Clear();
    }
    Py_ssize_t n = PyTuple_Check(key) ? PyTuple_GET_SIZE(key) : 1;
    if (n < 2 || n > 4) {
        PyErr_SetString(PyExc_ValueError, "must specify at least the griddim and blockdim: "
                                          "kernel[griddim, blockdim, stream=0, sharedmem=0]");
        return NULL;
    }
    config = launch_config_new(st, self, PyTuple_GET_ITEM(key, 0), PyTuple_GET_ITEM(key, 1),
                               n > 2 ? PyTuple_GET_ITEM(key, 2) : NULL, n > 3 ? PyTuple_GET_ITEM(key, 3) : NULL);
    if (config == NULL)
        return NULL;
    if (PyObject_Hash(key) != -1) {
        if (PyDict_GET_SIZE(self->configs) >= MAX_CACHED_CONFIGS)
            PyDict_Clear(self->configs);
        if (PyDict_SetItem(self->configs, key, config) < 0)
            Py_CLEAR(config);
    } else {
        PyErr_Clear();
    }
    return config;
}

static PyObject *module_parse_launch_dims(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *griddim, *blockdim;
    unsigned int grid[3], block[3];
    if (!PyArg_ParseTuple(args, "OO:_parse_launch_dims", &griddim, &blockdim) ||
        launch_parse_dims(griddim, "griddim", grid) < 0 || launch_parse_dims(blockdim, "blockdim", block) < 0)
        return NULL;
    return Py_BuildValue("((III)(III))", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

PyMethodDef launch_module_methods[] = {
    {"_parse_launch_dims", module_parse_launch_dims, METH_VARARGS,
     "(griddim, blockdim) normalised as numba does: two 3-tuples of positive ints."},
    {0},
};

int launch_type_init(PyObject *module, module_state *st)
{
    if (type_add_methods(st->KernelType, Kernel_launch_methods) < 0)
        return -1;
    return type_create(module, &LaunchConfig_spec, NULL, &st->LaunchConfigType, 1);
}
