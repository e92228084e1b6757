/* nvrtc.c: loads NVRTC and reports its version and architectures; the runtime version from
 * libcudart where one is found. The directories searched come from
 * numba_cuda_c.cudadrv.libraries.candidate_dirs(), asked once and kept in the module state. */
#include "nvrtc.h"

#include "errors.h"

/* The directories to search, as a tuple of str, asked of Python once. Borrowed. */
static PyObject *library_dirs(module_state *st)
{
    if (st->library_dirs != NULL)
        return st->library_dirs;
    PyObject *libraries = PyImport_ImportModule("numba_cuda_c.cudadrv.libraries");
    if (libraries == NULL)
        return NULL;
    PyObject *dirs = PyObject_CallMethod(libraries, "candidate_dirs", NULL);
    Py_DECREF(libraries);
    if (dirs == NULL)
        return NULL;
    st->library_dirs = PySequence_Tuple(dirs);
    Py_DECREF(dirs);
    return st->library_dirs;
}

/* Calls `search` with the directories as C strings. */
static int with_library_dirs(module_state *st, int (*search)(const char *const *, int, void *), void *arg)
{
    PyObject *dirs = library_dirs(st);
    if (dirs == NULL)
        return -2;
    Py_ssize_t count = PyTuple_GET_SIZE(dirs);
    const char **paths = PyMem_Calloc(count ? (size_t)count : 1, sizeof *paths);
    if (paths == NULL) {
        PyErr_NoMemory();
        return -2;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        if ((paths[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(dirs, i))) == NULL) {
            PyMem_Free(paths);
            return -2;
        }
    int result = search(paths, (int)count, arg);
    PyMem_Free(paths);
    return result;
}

static int search_nvrtc(const char *const *dirs, int ndirs, void *why) { return nvrtc_load(dirs, ndirs, why); }

int nvrtc_require(module_state *st)
{
    const char *why = NULL;
    int status = with_library_dirs(st, search_nvrtc, &why);
    if (status == -1)
        PyErr_SetString(st->NvrtcError, why);
    return status < 0 ? -1 : 0;
}

static int search_cudart(const char *const *dirs, int ndirs, void *version)
{
    return cudart_version(dirs, ndirs, version);
}

static PyObject *module_nvrtc_version(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    int major = 0, minor = 0;
    if (nvrtc_require(st) < 0)
        return NULL;
    nvrtcResult rc = nvrtc.nvrtcVersion(&major, &minor);
    if (rc != NVRTC_SUCCESS)
        return nvrtc_raise(st, rc, "nvrtcVersion", NULL), NULL;
    return Py_BuildValue("(ii)", major, minor);
}

static PyObject *module_nvrtc_supported_archs(PyObject *module, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of_module(module);
    int count = 0;
    if (nvrtc_require(st) < 0)
        return NULL;
    nvrtcResult rc = nvrtc.nvrtcGetNumSupportedArchs(&count);
    if (rc != NVRTC_SUCCESS)
        return nvrtc_raise(st, rc, "nvrtcGetNumSupportedArchs", NULL), NULL;
    int *archs = PyMem_Calloc(count ? (size_t)count : 1, sizeof *archs);
    if (archs == NULL)
        return PyErr_NoMemory();
    rc = nvrtc.nvrtcGetSupportedArchs(archs);
    PyObject *result = NULL;
    if (rc != NVRTC_SUCCESS) {
        nvrtc_raise(st, rc, "nvrtcGetSupportedArchs", NULL);
    } else if ((result = PyTuple_New(count)) != NULL) {
        for (int i = 0; i < count; i++) {
            PyObject *cc = Py_BuildValue("(ii)", archs[i] / 10, archs[i] % 10);
            if (cc == NULL) {
                Py_CLEAR(result);
                break;
            }
            PyTuple_SET_ITEM(result, i, cc);
        }
    }
    PyMem_Free(archs);
    return result;
}

/* (major, minor) of libcudart's cudaRuntimeGetVersion, or None where no runtime library is found. */
static PyObject *module_cudart_version(PyObject *module, PyObject *Py_UNUSED(unused))
{
    int version = 0;
    int status = with_library_dirs(state_of_module(module), search_cudart, &version);
    if (status == -2)
        return NULL;
    if (status < 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(ii)", version / 1000, (version % 1000) / 10);
}

PyMethodDef nvrtc_module_methods[] = {
    {"nvrtc_version", module_nvrtc_version, METH_NOARGS, "NVRTC's version as (major, minor)."},
    {"nvrtc_supported_archs", module_nvrtc_supported_archs, METH_NOARGS,
     "The compute capabilities NVRTC can compile for, as (major, minor) tuples, lowest first."},
    {"_cudart_version", module_cudart_version, METH_NOARGS,
     "libcudart's version as (major, minor), or None where it is not found."},
    {0},
};
