/* state.c: the module state's life (traverse, clear, free), the module's definition, and small
 * helpers every layer uses: environment variables read numba's way, methods added to a type. */
#include "driver/state.h"

#include <errno.h>
#include <stdint.h>

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    module_state *st = state_of_module(module);
    Py_VISIT(st->CudaSupportError);
    Py_VISIT(st->CudaDriverError);
    Py_VISIT(st->CudaAPIError);
    Py_VISIT(st->NvrtcError);
    Py_VISIT(st->cuda_core_twins);
    Py_VISIT(st->driver_overrides);
    Py_VISIT(st->DeviceType);
    Py_VISIT(st->ContextType);
    Py_VISIT(st->StreamType);
    Py_VISIT(st->EventType);
    Py_VISIT(st->MemoryInfoType);
    Py_VISIT(st->MemoryPointerType);
    Py_VISIT(st->DeviceNDArrayType);
    Py_VISIT(st->DeviceRecordType);
    Py_VISIT(st->LaunchConfigType);
    Py_VISIT(st->DispatchType);
    Py_VISIT(st->DLPackTensorType);
    Py_VISIT(st->GraphType);
    Py_VISIT(st->GraphExecType);
    Py_VISIT(st->KernelType);
    Py_VISIT(st->ModuleType);
    Py_VISIT(st->devices);
    Py_VISIT(st->last_context);
    Py_VISIT(st->library_dirs);
    for (int i = 0; i < STATE_PYTHON_HELPERS; i++)
        Py_VISIT(st->python_modules[i]);
    Py_VISIT(st->memory_plugin);
    Py_VISIT(st->dtype_ids);
    Py_VISIT(st->enum_type);
    Py_VISIT(st->stream_synchronize);
    return 0;
}

static int module_clear(PyObject *module)
{
    module_state *st = state_of_module(module);
    Py_CLEAR(st->CudaSupportError);
    Py_CLEAR(st->CudaDriverError);
    Py_CLEAR(st->CudaAPIError);
    Py_CLEAR(st->NvrtcError);
    Py_CLEAR(st->cuda_core_twins);
    Py_CLEAR(st->driver_overrides);
    Py_CLEAR(st->DeviceType);
    Py_CLEAR(st->ContextType);
    Py_CLEAR(st->StreamType);
    Py_CLEAR(st->EventType);
    Py_CLEAR(st->MemoryInfoType);
    Py_CLEAR(st->MemoryPointerType);
    Py_CLEAR(st->DeviceNDArrayType);
    Py_CLEAR(st->DeviceRecordType);
    Py_CLEAR(st->LaunchConfigType);
    Py_CLEAR(st->DispatchType);
    Py_CLEAR(st->DLPackTensorType);
    Py_CLEAR(st->GraphType);
    Py_CLEAR(st->GraphExecType);
    Py_CLEAR(st->KernelType);
    Py_CLEAR(st->ModuleType);
    Py_CLEAR(st->devices);
    Py_CLEAR(st->last_context);
    Py_CLEAR(st->library_dirs);
    for (int i = 0; i < STATE_PYTHON_HELPERS; i++)
        Py_CLEAR(st->python_modules[i]);
    Py_CLEAR(st->memory_plugin);
    Py_CLEAR(st->dtype_ids);
    Py_CLEAR(st->enum_type);
    Py_CLEAR(st->stream_synchronize);
    Py_CLEAR(st->str_synchronize);
    return 0;
}

static void module_free(void *module)
{
    module_clear((PyObject *)module);
}

/* Environment variables, numba's way: unset or empty gives the default; a value that does not parse gives
 * a RuntimeWarning naming the variable, the value and the form expected, and the default. */
static int env_unparsed(const char *name, const char *text, const char *expected, const char *fallback)
{
    return PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                            "Environment variable '%s' is defined but its associated value '%s' could not be "
                            "parsed: expected %s; using the default, %s",
                            name, text, expected, fallback);
}

int env_size(const char *name, size_t fallback, size_t *value)
{
    const char *text = getenv(name);
    char *end;
    *value = fallback;
    if (text == NULL || *text == '\0')
        return 0;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (*text < '0' || *text > '9' || *end != '\0' || errno == ERANGE || parsed > SIZE_MAX) {
        char shown[32];
        snprintf(shown, sizeof shown, "%zu", fallback);
        return env_unparsed(name, text, "a non-negative integer", shown);
    }
    *value = (size_t)parsed;
    return 0;
}

int env_double(const char *name, double fallback, double *value)
{
    const char *text = getenv(name);
    char *end;
    *value = fallback;
    if (text == NULL || *text == '\0')
        return 0;
    errno = 0;
    double parsed = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(parsed >= 0.0)) {
        char shown[32];
        snprintf(shown, sizeof shown, "%g", fallback);
        return env_unparsed(name, text, "a non-negative number", shown);
    }
    *value = parsed;
    return 0;
}

/* The module's definition. Its slots (module init, which creates every type) are the top of the
 * house (extension.c) and are set there, before the first import, so that nothing here looks up. */
PyModuleDef numba_cuda_c_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "numba_cuda_c._cuda",
    .m_doc = "The C core of numba_cuda_c: devices, contexts, streams, events, memory and launches.",
    .m_size = sizeof(module_state),
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

int type_add_methods(PyTypeObject *type, PyMethodDef *methods)
{
    for (PyMethodDef *method = methods; method->ml_name != NULL; method++) {
        PyObject *descriptor =
            method->ml_flags & METH_CLASS ? PyDescr_NewClassMethod(type, method) : PyDescr_NewMethod(type, method);
        if (descriptor == NULL)
            return -1;
        int status = PyDict_SetItemString(type->tp_dict, method->ml_name, descriptor);
        Py_DECREF(descriptor);
        if (status < 0)
            return -1;
    }
    PyType_Modified(type);
    return 0;
}

int type_add_getset(PyTypeObject *type, PyGetSetDef *getset)
{
    for (PyGetSetDef *entry = getset; entry->name != NULL; entry++) {
        PyObject *descriptor = PyDescr_NewGetSet(type, entry);
        if (descriptor == NULL)
            return -1;
        int status = PyDict_SetItemString(type->tp_dict, entry->name, descriptor);
        Py_DECREF(descriptor);
        if (status < 0)
            return -1;
    }
    PyType_Modified(type);
    return 0;
}
