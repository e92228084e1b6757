/* argument_kinds.c: the kinds of launch arguments that need more than an exact type check
 * (argument_kinds.h). */
#include "launch/argument_kinds.h"

#include "driver/numpy_api.h"

/* Its type's metaclass is enum's (EnumMeta), looked up once enum is imported: before that, no
 * member can exist. */
static int is_enum_member(module_state *st, PyObject *arg)
{
    if (st->enum_type == NULL) {
        PyObject *name = PyUnicode_FromString("enum");
        PyObject *module = name ? PyImport_GetModule(name) : NULL;
        Py_XDECREF(name);
        if (module == NULL)
            return PyErr_Occurred() ? -1 : 0;
        st->enum_type = PyObject_GetAttrString(module, "EnumMeta");
        Py_DECREF(module);
        if (st->enum_type == NULL)
            return -1;
    }
    return PyObject_TypeCheck((PyObject *)Py_TYPE(arg), (PyTypeObject *)st->enum_type);
}

/* Told by the type of the object, or by the module of its class (numba's and ours). */
static int is_type(PyObject *arg)
{
    if (PyType_Check(arg) || PyArray_DescrCheck(arg))
        return 1;
    PyObject *module = PyObject_GetAttrString((PyObject *)Py_TYPE(arg), "__module__");
    if (module == NULL) {
        PyErr_Clear();
        return 0;
    }
    const char *name = PyUnicode_Check(module) ? PyUnicode_AsUTF8(module) : NULL;
    int is_type =
        name != NULL && (strcmp(name, "numba_cuda_c.types") == 0 || strncmp(name, "numba.core.types", 16) == 0 ||
                         strncmp(name, "numba.cuda.types", 16) == 0);
    if (name == NULL)
        PyErr_Clear();
    Py_DECREF(module);
    return is_type;
}

argument_kind argument_kind_beyond_python(module_state *st, PyObject *arg)
{
    if (numpy_require() < 0)
        return ARGUMENT_ERROR;
    if (PyArray_CheckExact(arg))
        return ARGUMENT_NUMPY_ARRAY;
    if (PyArray_IsScalar(arg, Generic))
        return PyArray_IsScalar(arg, Void) ? ARGUMENT_NUMPY_RECORD : ARGUMENT_NUMPY_SCALAR;
    int member = is_enum_member(st, arg);
    if (member != 0)
        return member < 0 ? ARGUMENT_ERROR : ARGUMENT_ENUM_MEMBER;
    return is_type(arg) ? ARGUMENT_TYPE : ARGUMENT_OTHER;
}
