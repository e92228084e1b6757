/* errors.c: the exception types (numba's CudaSupportError, CudaDriverError, CudaAPIError,
 * NvrtcError) and the single path from a CUresult or nvrtcResult to one of them.
 * CudaAPIError keeps numba's shape: args (code, msg), .code, .msg, str "[code] msg". */
#include "driver/errors.h"
#include "driver/python_helpers.h"

const char *cu_result_name(CUresult rc)
{
    switch ((int)rc) {
#define CU_RESULT_CASE(name, value)                                                                                \
    case value:                                                                                                    \
        return #name;
        CU_RESULT_VALUES(CU_RESULT_CASE)
#undef CU_RESULT_CASE
    }
    return "CUDA_ERROR_UNRECOGNISED";
}

/* "Call to <function> results in <CUDA_ERROR_NAME> (<description>)": numba's message. */
PyObject *cu_error_message(CUresult rc, const char *function)
{
    const char *description = NULL;
    if (cu.cuGetErrorString == NULL || cu.cuGetErrorString(rc, &description) != CUDA_SUCCESS || !description)
        description = "no description";
    return PyUnicode_FromFormat("Call to %s results in %s (%s)", function, cu_result_name(rc), description);
}

/* numba-cuda 0.30 launches kernels through cuda.core and compiles CUDA C through cuda.core's NVRTC
 * program, so programs written for it catch cuda.core's CUDAError (a launch) and NVRTCError (a compile).
 * Where such a program has cuda.core's error module loaded (it must, to name those classes), the error
 * we raise there derives from both our class and theirs: a type made once per pair. Error paths only:
 * one sys.modules lookup; nothing is imported. Returns a new reference to the type to raise. */
static PyObject *with_cuda_core_class(module_state *st, PyObject *ours, const char *theirs_name)
{
    PyObject *name = PyUnicode_FromString("cuda.core._utils.cuda_utils");
    PyObject *module = name ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    PyObject *theirs = module ? PyObject_GetAttrString(module, theirs_name) : NULL;
    Py_XDECREF(module);
    if (theirs == NULL || !PyType_Check(theirs) ||
        !PyType_IsSubtype((PyTypeObject *)theirs, (PyTypeObject *)PyExc_Exception)) {
        PyErr_Clear(); /* not loaded, or not what we expect: ours alone */
        Py_XDECREF(theirs);
        return Py_NewRef(ours);
    }
    if (st->cuda_core_twins == NULL && (st->cuda_core_twins = PyDict_New()) == NULL)
        goto fail;
    PyObject *known = PyDict_GetItemWithError(st->cuda_core_twins, ours); /* borrowed: (theirs, twin) */
    if (known != NULL && PyTuple_GET_ITEM(known, 0) == theirs) {
        Py_DECREF(theirs);
        return Py_NewRef(PyTuple_GET_ITEM(known, 1));
    }
    if (PyErr_Occurred())
        goto fail;
    const char *dot = strrchr(((PyTypeObject *)ours)->tp_name, '.');
    PyObject *twin = PyObject_CallFunction((PyObject *)&PyType_Type, "s(OO){ss}",
                                           dot ? dot + 1 : ((PyTypeObject *)ours)->tp_name, ours, theirs,
                                           "__module__", "numba_cuda_c");
    PyObject *entry = twin ? PyTuple_Pack(2, theirs, twin) : NULL;
    if (entry == NULL || PyDict_SetItem(st->cuda_core_twins, ours, entry) < 0) {
        Py_XDECREF(entry);
        Py_XDECREF(twin);
        goto fail;
    }
    Py_DECREF(entry);
    Py_DECREF(theirs);
    return twin;
fail:
    PyErr_Clear(); /* the error being raised matters more than the class it would also have been */
    Py_DECREF(theirs);
    return Py_NewRef(ours);
}

/* Raises type(code, msg) (msg stolen; NULL: an error is already set). Returns -1. */
static int raise_api_error_of(PyObject *type, CUresult rc, PyObject *msg)
{
    if (msg == NULL)
        return -1;
    PyObject *error = PyObject_CallFunction(type, "iN", (int)rc, msg);
    if (error != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(error), error);
        Py_DECREF(error);
    }
    return -1;
}

/* A driver call failed in a process forked after CUDA was initialised (its calls fail with
 * CUDA_ERROR_NOT_INITIALIZED or worse): numba's CudaDriverError, which says why. */
static int raise_if_forked(module_state *st, PyObject *msg)
{
    if (!cu_driver_forked())
        return 0;
    Py_XDECREF(msg);
    PyErr_SetString(st->CudaDriverError, "CUDA initialized before forking");
    return -1;
}

int cu_raise_launch(module_state *st, CUresult rc, PyObject *msg)
{
    if (raise_if_forked(st, msg) < 0)
        return -1;
    PyObject *type = with_cuda_core_class(st, st->CudaAPIError, "CUDAError");
    raise_api_error_of(type, rc, msg);
    Py_DECREF(type);
    return -1;
}

int cu_raise_message(module_state *st, CUresult rc, PyObject *msg)
{
    if (raise_if_forked(st, msg) < 0)
        return -1;
    return raise_api_error_of(st->CudaAPIError, rc, msg);
}

int cu_raise(module_state *st, CUresult rc, const char *function)
{
    if (raise_if_forked(st, NULL) < 0)
        return -1;
    return raise_api_error_of(st->CudaAPIError, rc, cu_error_message(rc, function));
}

void cu_report_unraisable(module_state *st, CUresult rc, const char *function)
{
    if (rc == CUDA_SUCCESS)
        return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback); /* keep whatever was in flight */
    cu_raise(st, rc, function);
    PyErr_WriteUnraisable(NULL);
    PyErr_Restore(type, value, traceback);
}

void dealloc_release(module_state *st, dealloc_release_fn release, void *arg, const char *what)
{
    if (st == NULL) /* state_for_release: the module is gone, the process is ending */
        return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (release(st, arg) < 0 || PyErr_Occurred()) {
        if (!PyErr_Occurred()) /* a release that failed without saying why */
            PyErr_Format(PyExc_SystemError, "%s failed", what);
        PyObject *error_type, *error_value, *error_traceback;
        PyErr_Fetch(&error_type, &error_value, &error_traceback);
        PyObject *where = PyUnicode_FromString(what); /* NULL (no memory): reported without a place */
        PyErr_Clear();
        PyErr_Restore(error_type, error_value, error_traceback);
        PyErr_WriteUnraisable(where);
        Py_XDECREF(where);
    }
    PyErr_Restore(type, value, traceback);
}

PyObject *repr_html(PyObject *self, PyObject *Py_UNUSED(unused))
{
    return python_call1(state_of(self), HELPER_HTML_OF, self);
}

/* numba's `driver.cuInit` replaced from Python before the driver is first used (numba's tests fake an
 * init failure this way): called once, with 0, before the real cuInit. An exception it raises
 * becomes the driver's init error, in numba's form "Error at driver init: <msg> (<code>)". */
static void run_replaced_cu_init(void)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *driver = python_helper_if_loaded(HELPER_DRIVER_OBJECT); /* only where it was imported */
    PyObject *attributes = driver ? PyObject_GetAttrString(driver, "__dict__") : NULL;
    PyObject *replaced = attributes && PyDict_Check(attributes) ? PyDict_GetItemString(attributes, "cuInit") : NULL;
    PyObject *result = replaced ? PyObject_CallFunction(replaced, "i", 0) : NULL;
    if (replaced != NULL && result == NULL) {
        PyObject *failure_type, *failure, *failure_traceback;
        PyErr_Fetch(&failure_type, &failure, &failure_traceback);
        PyErr_NormalizeException(&failure_type, &failure, &failure_traceback);
        PyObject *code = failure ? PyObject_GetAttrString(failure, "code") : NULL;
        PyObject *msg = code ? PyObject_GetAttrString(failure, "msg") : NULL;
        PyObject *text = msg ? PyUnicode_FromFormat("Error at driver init: %S (%S)", msg, code)
                             : (failure ? PyUnicode_FromFormat("Error at driver init: %S", failure) : NULL);
        const char *utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
        cu_driver_refuse(utf8 ? utf8 : "Error at driver init: the replaced driver.cuInit failed");
        Py_XDECREF(text);
        Py_XDECREF(msg);
        Py_XDECREF(code);
        Py_XDECREF(failure_type);
        Py_XDECREF(failure);
        Py_XDECREF(failure_traceback);
    }
    Py_XDECREF(result);
    Py_XDECREF(attributes);
    Py_XDECREF(driver);
    PyErr_Clear(); /* a driver module being imported, or a driver object without a __dict__: nothing replaced */
    PyErr_Restore(type, value, traceback);
}

const char *cu_driver_problem(void)
{
    const char *why = NULL;
    int status;
    if (cu_driver_ready())
        return NULL;
    if (!cu_driver_tried())
        run_replaced_cu_init();
    Py_BEGIN_ALLOW_THREADS
    status = cu_driver_load(&why);
    Py_END_ALLOW_THREADS
    return status == 0 ? NULL : why;
}

int cu_require_driver(module_state *st)
{
    const char *why = cu_driver_problem();
    if (why == NULL)
        return 0;
    PyErr_SetString(st->CudaSupportError, why);
    return -1;
}

int nvrtc_raise(module_state *st, nvrtcResult rc, const char *function, const char *log)
{
    const char *text = nvrtc.nvrtcGetErrorString ? nvrtc.nvrtcGetErrorString(rc) : "unknown NVRTC error";
    PyObject *type = with_cuda_core_class(st, st->NvrtcError, "NVRTCError");
    if (log != NULL && log[0] != '\0')
        PyErr_Format(type, "%s failed with %s:\n%s", function, text, log);
    else
        PyErr_Format(type, "%s failed with %s", function, text);
    Py_DECREF(type);
    return -1;
}

/* CudaAPIError: code and msg are args[0] and args[1], as numba's __init__(code, msg) stores them. */
static PyObject *api_error_arg(PyObject *self, Py_ssize_t index)
{
    PyObject *args = ((PyBaseExceptionObject *)self)->args;
    if (args == NULL || !PyTuple_Check(args) || PyTuple_GET_SIZE(args) <= index)
        Py_RETURN_NONE;
    return Py_NewRef(PyTuple_GET_ITEM(args, index));
}

static PyObject *CudaAPIError_get_code(PyObject *self, void *Py_UNUSED(closure))
{
    return api_error_arg(self, 0);
}
static PyObject *CudaAPIError_get_msg(PyObject *self, void *Py_UNUSED(closure))
{
    return api_error_arg(self, 1);
}

static PyObject *CudaAPIError_str(PyObject *self)
{
    PyObject *code = api_error_arg(self, 0), *msg = api_error_arg(self, 1);
    PyObject *text = (code && msg) ? PyUnicode_FromFormat("[%S] %S", code, msg) : NULL;
    Py_XDECREF(code);
    Py_XDECREF(msg);
    return text;
}

static PyGetSetDef CudaAPIError_getset[] = {
    {"code", CudaAPIError_get_code, NULL, "The driver's result code (an int, as CUresult).", NULL},
    {"msg", CudaAPIError_get_msg, NULL, "Which call failed, with the driver's error name.", NULL},
    {0},
};

static PyType_Slot CudaAPIError_slots[] = {
    {Py_tp_str, CudaAPIError_str},
    {Py_tp_getset, CudaAPIError_getset},
    {Py_tp_doc, "A CUDA driver call failed: code is the CUresult, msg names the call and the error."},
    {0, NULL},
};

static PyType_Spec CudaAPIError_spec = {
    .name = "numba_cuda_c.CudaAPIError",
    .basicsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = CudaAPIError_slots,
};

int errors_init(PyObject *module, module_state *st)
{
    st->CudaSupportError = PyErr_NewExceptionWithDoc(
        "numba_cuda_c.CudaSupportError", "CUDA is not usable here: no driver, no device, or CUDA disabled.",
        PyExc_ImportError, NULL);
    if (st->CudaSupportError == NULL)
        return -1;
    st->CudaDriverError = PyErr_NewExceptionWithDoc("numba_cuda_c.CudaDriverError",
                                                    "An error reported by the CUDA driver.", PyExc_Exception, NULL);
    if (st->CudaDriverError == NULL)
        return -1;
    st->CudaAPIError = PyType_FromModuleAndSpec(module, &CudaAPIError_spec, st->CudaDriverError);
    if (st->CudaAPIError == NULL)
        return -1;
    st->NvrtcError = PyErr_NewExceptionWithDoc("numba_cuda_c.NvrtcError",
                                               "NVRTC failed; the message holds its log.", PyExc_Exception, NULL);
    if (st->NvrtcError == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "CudaSupportError", st->CudaSupportError) < 0 ||
        PyModule_AddObjectRef(module, "CudaDriverError", st->CudaDriverError) < 0 ||
        PyModule_AddObjectRef(module, "CudaAPIError", st->CudaAPIError) < 0 ||
        PyModule_AddObjectRef(module, "NvrtcError", st->NvrtcError) < 0)
        return -1;
    return 0;
}
