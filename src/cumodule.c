/* cumodule.c: Module, a loaded CUDA module (cuModuleLoadData of a CUBIN, PTX or fatbin image) in
 * one context. Its kernels hold it; it is unloaded when the last goes, unless the context was
 * reset (which unloaded it). PTX is compiled by the driver at load, so the GIL is released. */
#include "kernel.h"

#include "errors.h"

static PyObject *Module_get_function(PyObject *op, PyObject *name)
{
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "kernel name must be str, not %.100s", Py_TYPE(name)->tp_name);
        return NULL;
    }
    return kernel_new(state_of(op), (ModuleObject *)op, name);
}

static PyObject *Module_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((ModuleObject *)op)->handle);
}

static PyObject *Module_get_context(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef((PyObject *)((ModuleObject *)op)->context);
}

/* Unloads the module, unless its context was reset (which unloaded it). Under dealloc_release. */
static int Module_release(module_state *st, void *arg)
{
    ModuleObject *self = (ModuleObject *)arg;
    int pushed;
    if (self->handle == NULL || self->context->handle == NULL)
        return 0;
    if (context_enter(st, self->context, &pushed) < 0)
        return -1;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS /* an unload synchronises the context: it can wait for a stream callback */
    rc = cu.cuModuleUnload(self->handle);
    Py_END_ALLOW_THREADS
    self->handle = NULL;
    int failed = context_exit(st, pushed) < 0;
    return cu_check(st, rc, "cuModuleUnload") < 0 || failed ? -1 : 0;
}

static void Module_dealloc(PyObject *op)
{
    ModuleObject *self = (ModuleObject *)op;
    PyTypeObject *type = Py_TYPE(op);
    dealloc_release(state_of_type(type), Module_release, op, "Module: unloading it");
    Py_DECREF(self->context);
    PyObject_Free(op);
    Py_DECREF(type);
}

static PyMethodDef Module_methods[] = {
    {"get_function", Module_get_function, METH_O, "get_function(name): the kernel of that (extern \"C\") name."},
    {0},
};

static PyGetSetDef Module_getset[] = {
    {"handle", Module_get_handle, NULL, "The CUmodule, as an int.", NULL},
    {"context", Module_get_context, NULL, "The Context the module is loaded in.", NULL},
    {0},
};

static PyType_Slot Module_slots[] = {
    {Py_tp_doc, "A loaded CUDA module. Make one with SourceModule(source) or load_module(image_or_path)."},
    {Py_tp_methods, Module_methods},
    {Py_tp_getset, Module_getset},
    {Py_tp_dealloc, Module_dealloc},
    {0, NULL},
};

static PyType_Spec Module_spec = {
    .name = "numba_cuda_c.Module",
    .basicsize = sizeof(ModuleObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Module_slots,
};

int module_type_init(PyObject *module, module_state *st)
{
    st->ModuleType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &Module_spec, NULL);
    if (st->ModuleType == NULL)
        return -1;
    return PyModule_AddType(module, st->ModuleType);
}

/* _load_module_image(image: bytes) -> Module, in the current context. PTX must end in NUL for the
 * driver: text without one is given one. */
PyObject *module_load_image(PyObject *module, PyObject *image)
{
    module_state *st = state_of_module(module);
    if (!PyBytes_Check(image)) {
        PyErr_Format(PyExc_TypeError, "a module image must be bytes, not %.100s", Py_TYPE(image)->tp_name);
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(image);
    const char *data = PyBytes_AS_STRING(image);
    int is_elf = size >= 4 && memcmp(data, "\177ELF", 4) == 0;
    int is_fatbin = size >= 4 && memcmp(data, "\x50\xed\x55\xba", 4) == 0;
    PyObject *text = NULL;
    if (!is_elf && !is_fatbin && (size == 0 || data[size - 1] != '\0')) {
        text = PyBytes_FromStringAndSize(NULL, size + 1);
        if (text == NULL)
            return NULL;
        memcpy(PyBytes_AS_STRING(text), data, (size_t)size);
        PyBytes_AS_STRING(text)[size] = '\0';
        data = PyBytes_AS_STRING(text);
    }
    ContextObject *context = context_current(st);
    ModuleObject *loaded = NULL;
    if (context != NULL && (loaded = PyObject_New(ModuleObject, st->ModuleType)) != NULL) {
        loaded->context = (ContextObject *)Py_NewRef((PyObject *)context);
        loaded->handle = NULL;
        CUresult rc;
        Py_BEGIN_ALLOW_THREADS
        rc = cu.cuModuleLoadData(&loaded->handle, data);
        Py_END_ALLOW_THREADS
        if (cu_check(st, rc, "cuModuleLoadData") < 0) {
            loaded->handle = NULL;
            Py_CLEAR(loaded);
        }
    }
    Py_XDECREF(text);
    return (PyObject *)loaded;
}
