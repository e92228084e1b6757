/* linker.c: Linker, one invocation of the driver's JIT linker (cuLinkCreate ... cuLinkComplete) in
 * the current context: PTX, CUBIN, fatbin, object and library inputs in, one CUBIN out, with the
 * linker's info and error logs. numba_cuda_c.toolchain.linker builds numba's Linker API on it. */
#include "launch/linker.h"

#include "core/context.h"
#include "driver/errors.h"

#include <stdint.h>

typedef struct {
    PyObject_HEAD
    ContextObject *context;     /* current when the state was created: the JIT target comes from it */
    CUlinkState state;          /* NULL once destroyed */
    char *info_log, *error_log; /* the buffers the driver writes its logs into (log_size + 1 bytes) */
    size_t log_size;
    PyObject *inputs; /* list: the data given to cuLinkAddData, alive until cuLinkComplete */
    int busy;         /* a call is running with the GIL released: another thread must not enter */
    int completed;
} LinkerObject;

static int linker_enter(LinkerObject *self)
{
    if (self->state == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the linker was already destroyed");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the linker is in use by another thread");
        return -1;
    }
    if (self->completed) {
        PyErr_SetString(PyExc_RuntimeError, "the link is already complete: make a new linker");
        return -1;
    }
    self->busy = 1;
    return 0;
}

/* Destroys the state, in its context where that is alive (a reset context took the state with it).
 * Never raises: failures are reported as unraisable, with any exception in flight kept. */
static void linker_destroy(module_state *st, LinkerObject *self)
{
    CUlinkState state = self->state;
    self->state = NULL;
    if (state == NULL || self->context->handle == NULL)
        return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    (void)IN_CONTEXT(st, self->context, (cu_report_unraisable(st, cu.cuLinkDestroy(state), "cuLinkDestroy"), 0));
    if (PyErr_Occurred()) /* the context could not be entered or left */
        PyErr_WriteUnraisable(NULL);
    PyErr_Restore(type, value, traceback);
}

static PyObject *Linker_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"max_registers", "lineinfo", "cc", "log_size", NULL};
    module_state *st = state_of_type(type);
    int max_registers = 0, lineinfo = 0;
    PyObject *cc = Py_None;
    Py_ssize_t log_size = 1024;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|ipOn:Linker", keywords, &max_registers, &lineinfo, &cc,
                                     &log_size))
        return NULL;
    if (max_registers < 0) {
        PyErr_Format(PyExc_ValueError, "max_registers must not be negative, not %d", max_registers);
        return NULL;
    }
    if (log_size < 1 || log_size > (Py_ssize_t)1 << 30) {
        PyErr_Format(PyExc_ValueError, "log_size must be between 1 and 2**30 bytes, not %zd", log_size);
        return NULL;
    }
    int target = 0;
    if (cc != Py_None) {
        int major, minor;
        if (!PyTuple_Check(cc) || PyTuple_GET_SIZE(cc) < 2 || PyTuple_GET_SIZE(cc) > 3 ||
            int_from_object(PyTuple_GET_ITEM(cc, 0), &major, "cc[0]") < 0 ||
            int_from_object(PyTuple_GET_ITEM(cc, 1), &minor, "cc[1]") < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "cc must be a (major, minor) tuple, not %R", cc);
            return NULL;
        }
        if (major < 1 || major > 99 || minor < 0 || minor > 9) {
            PyErr_Format(PyExc_ValueError, "cc (%d, %d) is not a compute capability", major, minor);
            return NULL;
        }
        target = major * 10 + minor;
    }
    if (cu_require_driver(st) < 0)
        return NULL;
    if (cu.cuLinkCreate == NULL || cu.cuLinkAddData == NULL || cu.cuLinkAddFile == NULL ||
        cu.cuLinkComplete == NULL || cu.cuLinkDestroy == NULL) {
        PyErr_SetString(st->CudaSupportError,
                        "the CUDA driver library lacks the linker (cuLinkCreate): it is too old");
        return NULL;
    }
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    LinkerObject *self = (LinkerObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->context = (ContextObject *)Py_NewRef((PyObject *)context);
    self->log_size = (size_t)log_size;
    self->info_log = PyMem_Calloc(self->log_size + 1, 1);
    self->error_log = PyMem_Calloc(self->log_size + 1, 1);
    self->inputs = PyList_New(0);
    if (self->info_log == NULL || self->error_log == NULL || self->inputs == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_DECREF(self);
        return NULL;
    }
    CUjit_option options[8];
    void *values[8];
    unsigned int n = 0;
    options[n] = CU_JIT_INFO_LOG_BUFFER, values[n++] = self->info_log;
    options[n] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, values[n++] = (void *)(uintptr_t)self->log_size;
    options[n] = CU_JIT_ERROR_LOG_BUFFER, values[n++] = self->error_log;
    options[n] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, values[n++] = (void *)(uintptr_t)self->log_size;
    options[n] = CU_JIT_LOG_VERBOSE, values[n++] = (void *)(uintptr_t)1;
    if (max_registers)
        options[n] = CU_JIT_MAX_REGISTERS, values[n++] = (void *)(uintptr_t)max_registers;
    if (lineinfo)
        options[n] = CU_JIT_GENERATE_LINE_INFO, values[n++] = (void *)(uintptr_t)1;
    if (target)
        options[n] = CU_JIT_TARGET, values[n++] = (void *)(uintptr_t)target;
    else
        options[n] = CU_JIT_TARGET_FROM_CUCONTEXT, values[n++] = NULL;
    if (CU_CALL(st, cuLinkCreate, (n, options, values, &self->state)) < 0) {
        self->state = NULL;
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* add_data(data, kind, name): one input in memory (cuLinkAddData). PTX is given a terminating NUL
 * where it lacks one. The driver compiles PTX here, so the GIL is released. */
static PyObject *Linker_add_data(PyObject *op, PyObject *args)
{
    LinkerObject *self = (LinkerObject *)op;
    module_state *st = state_of(op);
    Py_buffer view;
    int kind;
    const char *name;
    if (!PyArg_ParseTuple(args, "y*is:add_data", &view, &kind, &name))
        return NULL;
    if (kind < CU_JIT_INPUT_CUBIN || kind > CU_JIT_INPUT_LIBRARY) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "the driver's linker takes input kinds 0 to 4 (CUjitInputType), not %d",
                     kind);
        return NULL;
    }
    int terminate = kind == CU_JIT_INPUT_PTX && (view.len == 0 || ((const char *)view.buf)[view.len - 1] != '\0');
    PyObject *data = PyBytes_FromStringAndSize(NULL, view.len + terminate);
    if (data != NULL) {
        memcpy(PyBytes_AS_STRING(data), view.buf, (size_t)view.len);
        if (terminate)
            PyBytes_AS_STRING(data)[view.len] = '\0';
    }
    PyBuffer_Release(&view);
    if (data == NULL || linker_enter(self) < 0) {
        Py_XDECREF(data);
        return NULL;
    }
    if (PyList_Append(self->inputs, data) < 0) {
        self->busy = 0;
        Py_DECREF(data);
        return NULL;
    }
    char *buffer = PyBytes_AS_STRING(data);
    size_t size = (size_t)PyBytes_GET_SIZE(data);
    CUresult rc =
        CU_BLOCKING(cu.cuLinkAddData(self->state, (CUjitInputType)kind, buffer, size, name, 0, NULL, NULL));
    self->busy = 0;
    Py_DECREF(data); /* the list holds it */
    if (cu_check(st, rc, "cuLinkAddData") < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* add_file(path, kind): one input from a file (cuLinkAddFile); CudaAPIError with
 * CUDA_ERROR_FILE_NOT_FOUND where there is none. */
static PyObject *Linker_add_file(PyObject *op, PyObject *args)
{
    LinkerObject *self = (LinkerObject *)op;
    module_state *st = state_of(op);
    PyObject *path;
    int kind;
    if (!PyArg_ParseTuple(args, "O&i:add_file", PyUnicode_FSConverter, &path, &kind))
        return NULL;
    if (kind < CU_JIT_INPUT_CUBIN || kind > CU_JIT_INPUT_LIBRARY) {
        Py_DECREF(path);
        PyErr_Format(PyExc_ValueError, "the driver's linker takes input kinds 0 to 4 (CUjitInputType), not %d",
                     kind);
        return NULL;
    }
    if (linker_enter(self) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    const char *text = PyBytes_AS_STRING(path);
    CUresult rc = CU_BLOCKING(cu.cuLinkAddFile(self->state, (CUjitInputType)kind, text, 0, NULL, NULL));
    self->busy = 0;
    Py_DECREF(path);
    if (cu_check(st, rc, "cuLinkAddFile") < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* complete() -> bytes: the linked CUBIN (cuLinkComplete). It lives in the linker's state, so it is
 * copied out; the inputs are let go. */
static PyObject *Linker_complete(PyObject *op, PyObject *Py_UNUSED(ignored))
{
    LinkerObject *self = (LinkerObject *)op;
    module_state *st = state_of(op);
    if (linker_enter(self) < 0)
        return NULL;
    void *cubin = NULL;
    size_t size = 0;
    CUresult rc = CU_BLOCKING(cu.cuLinkComplete(self->state, &cubin, &size));
    self->busy = 0;
    if (cu_check(st, rc, "cuLinkComplete") < 0)
        return NULL;
    if (cubin == NULL || size == 0) {
        PyErr_SetString(st->CudaDriverError, "cuLinkComplete returned an empty image");
        return NULL;
    }
    PyObject *image = PyBytes_FromStringAndSize(cubin, (Py_ssize_t)size);
    if (image == NULL)
        return NULL;
    self->completed = 1;
    if (PyList_SetSlice(self->inputs, 0, PyList_GET_SIZE(self->inputs), NULL) < 0) {
        Py_DECREF(image);
        return NULL;
    }
    return image;
}

static PyObject *log_text(const char *log, size_t size)
{
    return PyUnicode_DecodeUTF8(log, (Py_ssize_t)strnlen(log, size), "replace");
}

static PyObject *Linker_get_info_log(PyObject *op, void *Py_UNUSED(closure))
{
    LinkerObject *self = (LinkerObject *)op;
    return log_text(self->info_log, self->log_size);
}

static PyObject *Linker_get_error_log(PyObject *op, void *Py_UNUSED(closure))
{
    LinkerObject *self = (LinkerObject *)op;
    return log_text(self->error_log, self->log_size);
}

static PyObject *Linker_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((LinkerObject *)op)->state);
}

static PyObject *Linker_get_context(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef((PyObject *)((LinkerObject *)op)->context);
}

static int Linker_traverse(PyObject *op, visitproc visit, void *arg)
{
    LinkerObject *self = (LinkerObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->context);
    Py_VISIT(self->inputs);
    return 0;
}

static void Linker_dealloc(PyObject *op)
{
    LinkerObject *self = (LinkerObject *)op;
    dealloc_begin(op, NULL);
    module_state *st = state_for_release(op);
    if (self->context != NULL && st != NULL)
        linker_destroy(st, self);
    PyMem_Free(self->info_log);
    PyMem_Free(self->error_log);
    Py_XDECREF(self->inputs);
    Py_XDECREF(self->context);
    dealloc_end(op);
}

static PyMethodDef Linker_methods[] = {
    {"add_data", Linker_add_data, METH_VARARGS,
     "add_data(data, kind, name): link an input held in memory; kind is a CUjitInputType (0 CUBIN, 1 PTX, "
     "2 fatbin, 3 object, 4 library)."},
    {"add_file", Linker_add_file, METH_VARARGS, "add_file(path, kind): link an input read from a file."},
    {"complete", Linker_complete, METH_NOARGS, "complete() -> bytes: finish the link; the CUBIN."},
    {0},
};

static PyGetSetDef Linker_getset[] = {
    {"info_log", Linker_get_info_log, NULL, "The linker's information log.", NULL},
    {"error_log", Linker_get_error_log, NULL, "The linker's error log.", NULL},
    {"handle", Linker_get_handle, NULL, "The CUlinkState, as an int (0 once destroyed).", NULL},
    {"context", Linker_get_context, NULL, "The Context the linker targets.", NULL},
    {0},
};

static PyType_Slot Linker_slots[] = {
    {Py_tp_doc, "Linker(max_registers=0, lineinfo=False, cc=None, log_size=1024): the driver's JIT linker, "
                "for the current context's device or compute capability cc."},
    {Py_tp_new, Linker_new},
    {Py_tp_methods, Linker_methods},
    {Py_tp_getset, Linker_getset},
    {Py_tp_traverse, Linker_traverse},
    {Py_tp_dealloc, Linker_dealloc},
    {0, NULL},
};

static PyType_Spec Linker_spec = {
    .name = "numba_cuda_c._cuda.Linker",
    .basicsize = sizeof(LinkerObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = Linker_slots,
};

int linker_type_init(PyObject *module, module_state *st)
{
    (void)st;
    PyTypeObject *type;
    int status = type_create(module, &Linker_spec, NULL, &type, 1);
    Py_XDECREF(type);
    return status;
}
