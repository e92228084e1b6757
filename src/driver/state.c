/* state.c: the module state's life (traverse, clear, free), the module's definition, and small
 * helpers every layer uses: environment variables read numba's way, methods added to a type. */
#include "driver/state.h"

#include <errno.h>
#include <stdint.h>

/* Every object the module state owns, once: traverse visits and clear drops the same list. */
#define STATE_OBJECTS(X)                                                                                           \
    X(CudaSupportError)                                                                                            \
    X(CudaDriverError)                                                                                             \
    X(CudaAPIError)                                                                                                \
    X(NvrtcError)                                                                                                  \
    X(cuda_core_twins)                                                                                             \
    X(driver_overrides)                                                                                            \
    X(DeviceType)                                                                                                  \
    X(ContextType)                                                                                                 \
    X(StreamType)                                                                                                  \
    X(EventType)                                                                                                   \
    X(MemoryInfoType)                                                                                              \
    X(MemoryPointerType)                                                                                           \
    X(DeviceNDArrayType)                                                                                           \
    X(DeviceRecordType)                                                                                            \
    X(LaunchConfigType)                                                                                            \
    X(DispatchType)                                                                                                \
    X(ArgumentPlanType)                                                                                            \
    X(DLPackTensorType)                                                                                            \
    X(GraphType)                                                                                                   \
    X(GraphExecType)                                                                                               \
    X(KernelType)                                                                                                  \
    X(ModuleType)                                                                                                  \
    X(devices)                                                                                                     \
    X(last_context)                                                                                                \
    X(library_dirs)                                                                                                \
    X(memory_plugin)                                                                                               \
    X(dtype_ids)                                                                                                   \
    X(enum_type)                                                                                                   \
    X(stream_synchronize)                                                                                          \
    X(str_synchronize)

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    module_state *st = state_of_module(module);
#define STATE_VISIT(field) Py_VISIT(st->field);
    STATE_OBJECTS(STATE_VISIT)
#undef STATE_VISIT
    for (int i = 0; i < STATE_PYTHON_HELPERS; i++)
        Py_VISIT(st->python_modules[i]);
    return 0;
}

static int module_clear(PyObject *module)
{
    module_state *st = state_of_module(module);
#define STATE_CLEAR(field) Py_CLEAR(st->field);
    STATE_OBJECTS(STATE_CLEAR)
#undef STATE_CLEAR
    for (int i = 0; i < STATE_PYTHON_HELPERS; i++)
        Py_CLEAR(st->python_modules[i]);
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

int type_create(PyObject *module, PyType_Spec *spec, PyTypeObject *base, PyTypeObject **type, int public)
{
    *type = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, (PyObject *)base);
    if (*type == NULL)
        return -1;
    return public ? PyModule_AddType(module, *type) : 0;
}

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
