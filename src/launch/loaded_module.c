/* loaded_module.c: Module, a loaded CUDA module (cuModuleLoadData of a CUBIN, PTX or fatbin image): in
 * the context it was made in, and in each other context one of its kernels is launched in. Its
 * kernels hold it; it is unloaded from every context when the last goes, except from contexts that
 * were reset (which unloaded it). PTX is compiled by the driver at load, so the GIL is released. */
#include "launch/loaded_module.h"

#include "driver/errors.h"
#include "core/deallocations.h"
#include "core/stream.h"

static PyObject *Module_get_handle(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(((ModuleObject *)op)->handle);
}

static PyObject *Module_get_context(PyObject *op, void *Py_UNUSED(closure))
{
    return Py_NewRef((PyObject *)((ModuleObject *)op)->context);
}

static CUresult load_image(CUmodule *handle, PyObject *image)
{
    const char *data = PyBytes_AS_STRING(image);
    return CU_BLOCKING(cu.cuModuleLoadData(handle, data));
}

static context_entry *entry_find(context_entry *entry, ContextObject *context)
{
    for (; entry != NULL; entry = entry->next)
        if (entry->context == context)
            return entry;
    return NULL;
}

/* Loads the module's image in `context` (current), compiled again first where the context's device
 * has another architecture. The handle, *loaded set where it is a new one to record; NULL with an
 * error. */
static CUmodule load_in_context(module_state *st, ModuleObject *module, ContextObject *context, int *loaded)
{
    PyObject *image = Py_NewRef(module->image);
    DeviceObject *device = context->device;
    if (module->loader != NULL && (device->cc_major != module->cc_major || device->cc_minor != module->cc_minor)) {
        Py_SETREF(image, PyObject_CallNoArgs(module->loader));
        if (image != NULL && !PyBytes_Check(image)) {
            PyErr_Format(PyExc_TypeError, "a module's loader must return bytes, not %.100s",
                         Py_TYPE(image)->tp_name);
            Py_CLEAR(image);
        }
    }
    CUmodule handle = NULL;
    int failed = image == NULL || cu_check(st, load_image(&handle, image), "cuModuleLoadData") < 0;
    Py_XDECREF(image);
    if (failed)
        return NULL;
    context_entry *found = entry_find(module->others, context);
    if (found != NULL) { /* another thread loaded it while the GIL was released: keep one */
        cu_report_unraisable(st, cu.cuModuleUnload(handle), "cuModuleUnload");
        return (CUmodule)found->handle;
    }
    *loaded = 1;
    return handle;
}

CUmodule module_handle_in(module_state *st, ModuleObject *module, ContextObject *context)
{
    if (context == module->context)
        return module->handle;
    context_entry *found = entry_find(module->others, context);
    if (found != NULL)
        return (CUmodule)found->handle;
    context_entry *entry = PyMem_Malloc(sizeof *entry);
    if (entry == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    CUmodule handle = NULL;
    int status, loaded = 0;
    if (module->library != NULL) { /* the library's own module in this context */
        status = CU_CALL_IN(st, context, cuLibraryGetModule, (&handle, module->library));
        loaded = status == 0;
    } else { /* another architecture needs its own image (compiled with this context current) */
        status = IN_CONTEXT(st, context, (handle = load_in_context(st, module, context, &loaded)) == NULL);
    }
    if (loaded) {
        entry->context = (ContextObject *)Py_NewRef((PyObject *)context);
        entry->handle = handle;
        entry->next = module->others;
        module->others = entry;
    } else {
        PyMem_Free(entry);
    }
    return status < 0 ? NULL : handle;
}

static CUresult unload_module(void *handle)
{
    return cu.cuModuleUnload((CUmodule)handle);
}

/* Unloads one of the module's handles, unless its context was reset (which unloaded it); in a
 * stream callback, where the driver must not be called, the main thread unloads it later. */
static int unload(module_state *st, ContextObject *context, CUmodule handle)
{
    if (handle == NULL || context->handle == NULL)
        return 0;
    if (stream_in_callback())
        return memory_defer_destroy(st, context, unload_module, handle, "cuModuleUnload");
    /* an unload synchronises the context: it can wait for a stream callback */
    CUresult rc = CUDA_SUCCESS;
    int status = IN_CONTEXT(st, context, (rc = CU_BLOCKING(cu.cuModuleUnload(handle)), 0));
    return cu_check(st, rc, "cuModuleUnload") < 0 || status < 0 ? -1 : 0; /* the unload's error before the exit's */
}

/* Unloads the module in its own context and every other it was loaded in. Under dealloc_release. */
static int Module_release(module_state *st, void *arg)
{
    ModuleObject *self = (ModuleObject *)arg;
    int owned = self->library == NULL; /* a library's modules are its owner's to unload */
    int failed = owned && unload(st, self->context, self->handle) < 0;
    self->handle = NULL;
    while (self->others != NULL) {
        context_entry *entry = self->others;
        self->others = entry->next;
        if (owned && !failed && unload(st, entry->context, (CUmodule)entry->handle) < 0)
            failed = 1; /* reported once; the rest are given up with the first error set */
        Py_DECREF(entry->context);
        PyMem_Free(entry);
    }
    return failed ? -1 : 0;
}

static int Module_traverse(PyObject *op, visitproc visit, void *arg)
{
    ModuleObject *self = (ModuleObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->loader);
    Py_VISIT(self->library_owner);
    return 0;
}

static int Module_clear(PyObject *op)
{
    Py_CLEAR(((ModuleObject *)op)->loader);
    Py_CLEAR(((ModuleObject *)op)->library_owner);
    return 0;
}

static void Module_dealloc(PyObject *op)
{
    ModuleObject *self = (ModuleObject *)op;
    dealloc_begin(op, NULL);
    dealloc_release(state_for_release(op), Module_release, op, "Module: unloading it");
    Module_clear(op);
    Py_XDECREF(self->image);
    Py_DECREF(self->context);
    dealloc_end(op);
}

static PyMethodDef Module_methods[] = {
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
    {Py_tp_traverse, Module_traverse},
    {Py_tp_clear, Module_clear},
    {Py_tp_dealloc, Module_dealloc},
    {0, NULL},
};

static PyType_Spec Module_spec = {
    .name = "numba_cuda_c.Module",
    .basicsize = sizeof(ModuleObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Module_slots,
};

int module_type_init(PyObject *module, module_state *st)
{
    return type_create(module, &Module_spec, NULL, &st->ModuleType, 1);
}

/* _load_module_image(image: bytes, loader=None) -> Module, in the current context. PTX must end in
 * NUL for the driver: text without one is given one. loader() gives the image for another context's
 * device where its compute capability differs (SourceModule compiles for it); without one, the
 * same image is loaded everywhere. */
PyObject *module_load_image(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    module_state *st = state_of_module(module);
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "_load_module_image(image, loader=None)");
        return NULL;
    }
    PyObject *image = args[0], *loader = nargs > 1 && args[1] != Py_None ? args[1] : NULL;
    if (!PyBytes_Check(image)) {
        PyErr_Format(PyExc_TypeError, "a module image must be bytes, not %.100s", Py_TYPE(image)->tp_name);
        return NULL;
    }
    if (loader != NULL && !PyCallable_Check(loader)) {
        PyErr_SetString(PyExc_TypeError, "a module's loader must be callable");
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(image);
    const char *data = PyBytes_AS_STRING(image);
    int is_elf = size >= 4 && memcmp(data, "\177ELF", 4) == 0;
    int is_fatbin = size >= 4 && memcmp(data, "\x50\xed\x55\xba", 4) == 0;
    if (!is_elf && !is_fatbin && (size == 0 || data[size - 1] != '\0')) {
        PyObject *text = PyBytes_FromStringAndSize(NULL, size + 1);
        if (text == NULL)
            return NULL;
        memcpy(PyBytes_AS_STRING(text), data, (size_t)size);
        PyBytes_AS_STRING(text)[size] = '\0';
        image = text;
    } else {
        Py_INCREF(image);
    }
    ContextObject *context = context_current(st);
    ModuleObject *loaded = NULL;
    if (context != NULL && (loaded = PyObject_GC_New(ModuleObject, st->ModuleType)) != NULL) {
        loaded->context = (ContextObject *)Py_NewRef((PyObject *)context);
        loaded->handle = NULL;
        loaded->image = Py_NewRef(image);
        loaded->loader = Py_XNewRef(loader);
        loaded->cc_major = context->device->cc_major;
        loaded->cc_minor = context->device->cc_minor;
        loaded->others = NULL;
        loaded->library = NULL;
        loaded->library_owner = NULL;
        PyObject_GC_Track(loaded);
        CUresult rc = load_image(&loaded->handle, image);
        if (cu_check(st, rc, "cuModuleLoadData") < 0) {
            loaded->handle = NULL;
            Py_CLEAR(loaded);
        }
    }
    Py_DECREF(image);
    return (PyObject *)loaded;
}

/* _module_from_library(library: int, owner) -> Module: the module of a CUlibrary that `owner` loaded
 * and keeps (a cuda.core ObjectCode, which numba's link callbacks are given: their globals are the
 * kernels' globals), in the current context and, at their first launch, in others. */
PyObject *module_from_library(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    module_state *st = state_of_module(module);
    void *library;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_module_from_library(library, owner)");
        return NULL;
    }
    if ((library = PyLong_AsVoidPtr(args[0])) == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_module_from_library: the library handle is NULL");
        return NULL;
    }
    if (cu.cuLibraryGetModule == NULL) {
        PyErr_SetString(st->CudaSupportError,
                        "this CUDA driver has no cuLibraryGetModule (CUDA 12.0 or newer needed)");
        return NULL;
    }
    ContextObject *context = context_current(st);
    if (context == NULL)
        return NULL;
    CUmodule handle = NULL;
    if (CU_CALL(st, cuLibraryGetModule, (&handle, (CUlibrary)library)) < 0)
        return NULL;
    ModuleObject *loaded = PyObject_GC_New(ModuleObject, st->ModuleType);
    if (loaded == NULL)
        return NULL;
    loaded->context = (ContextObject *)Py_NewRef((PyObject *)context);
    loaded->handle = handle;
    loaded->image = NULL;
    loaded->loader = NULL;
    loaded->cc_major = context->device->cc_major;
    loaded->cc_minor = context->device->cc_minor;
    loaded->others = NULL;
    loaded->library = (CUlibrary)library;
    loaded->library_owner = Py_NewRef(args[1]);
    PyObject_GC_Track(loaded);
    return (PyObject *)loaded;
}

PyMethodDef loaded_module_methods[] = {
    {"_module_from_library", (PyCFunction)(void (*)(void))module_from_library, METH_FASTCALL,
     "_module_from_library(library, owner): the module of a CUlibrary `owner` loaded and keeps, in the current "
     "context."},
    {"_load_module_image", (PyCFunction)(void (*)(void))module_load_image, METH_FASTCALL,
     "_load_module_image(image, loader=None): load a CUBIN, PTX or fatbin image in the current context; "
     "loader() gives the image for another device's architecture."},
    {0},
};
