/* python_helpers.c: the C core's calls into the package's Python (python_helpers.h). */
#include "driver/python_helpers.h"

_Static_assert(PYTHON_HELPER_COUNT <= STATE_PYTHON_HELPERS, "module_state.python_modules is too small");

static const struct {
    const char *module, *function;
} helpers[PYTHON_HELPER_COUNT] = {
#define PYTHON_HELPER_ENTRY(name, module, function) [HELPER_##name] = {module, function},
    PYTHON_HELPERS(PYTHON_HELPER_ENTRY)
#undef PYTHON_HELPER_ENTRY
};

/* The helper's module, imported at its first use and kept in the module state. Borrowed. */
static PyObject *helper_module(module_state *st, python_helper helper)
{
    if (st->python_modules[helper] == NULL)
        st->python_modules[helper] = PyImport_ImportModule(helpers[helper].module);
    return st->python_modules[helper];
}

PyObject *python_helper_get(module_state *st, python_helper helper)
{
    PyObject *module = helper_module(st, helper);
    return module ? PyObject_GetAttrString(module, helpers[helper].function) : NULL;
}

PyObject *python_call(module_state *st, python_helper helper, PyObject *args)
{
    if (args == NULL)
        return NULL;
    PyObject *function = python_helper_get(st, helper);
    PyObject *result = function ? PyObject_Call(function, args, NULL) : NULL;
    Py_XDECREF(function);
    Py_DECREF(args);
    return result;
}

PyObject *python_call1(module_state *st, python_helper helper, PyObject *arg)
{
    return python_call(st, helper, arg ? PyTuple_Pack(1, arg) : PyTuple_New(0));
}

PyObject *python_helper_if_loaded(python_helper helper)
{
    PyObject *name = PyUnicode_FromString(helpers[helper].module);
    PyObject *module = name ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    PyObject *function = module ? PyObject_GetAttrString(module, helpers[helper].function) : NULL;
    Py_XDECREF(module);
    if (function == NULL)
        PyErr_Clear();
    return function;
}
