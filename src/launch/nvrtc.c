/* nvrtc.c: loads NVRTC and reports its version and architectures; the runtime version from
 * libcudart where one is found. The directories searched come from
 * numba_cuda_c.toolchain.libraries.candidate_dirs(), asked once and kept in the module state. */
#include "launch/nvrtc.h"
#include "driver/python_helpers.h"

#include "driver/errors.h"

#include <stdlib.h>

/* The directories to search, as a tuple of str, asked of Python once. Borrowed. */
static PyObject *library_dirs(module_state *st)
{
    if (st->library_dirs != NULL)
        return st->library_dirs;
    PyObject *dirs = python_call1(st, HELPER_LIBRARY_DIRS, NULL);
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
    int result;
    Py_BEGIN_ALLOW_THREADS /* dlopen: the loader's lock, library constructors, file system */
    result = search(paths, (int)count, arg);
    Py_END_ALLOW_THREADS
    PyMem_Free(paths);
    return result;
}

static int search_nvrtc(const char *const *dirs, int ndirs, void *why)
{
    return nvrtc_load(dirs, ndirs, why);
}

int nvrtc_require(module_state *st)
{
    const char *why = NULL;
    if (nvrtc_ready())
        return 0;
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

/* One compile's NVRTC calls, all made without the GIL: NVRTC serialises programs on a lock of its own in
 * some versions, so even nvrtcCreateProgram can wait for another thread's compile. Results are malloc'ed. */
struct nvrtc_job {
    const char *source, *name, *const *argv;
    int count, want_ptx;
    nvrtcResult compiled; /* nvrtcCompileProgram's result */
    nvrtcResult rc;       /* the first other failure, by `failed` */
    const char *failed;   /* the function that failed, or NULL */
    int out_of_memory;
    char *log, *image; /* free() both */
    size_t image_size;
};

static void nvrtc_run(struct nvrtc_job *job)
{
    nvrtcProgram program = NULL;
    size_t log_size = 0;
    job->failed = "nvrtcCreateProgram";
    if ((job->rc = nvrtc.nvrtcCreateProgram(&program, job->source, job->name, 0, NULL, NULL)) != NVRTC_SUCCESS)
        return;
    job->compiled = nvrtc.nvrtcCompileProgram(program, job->count, job->argv);
    job->failed = "nvrtcGetProgramLog";
    if ((job->rc = nvrtc.nvrtcGetProgramLogSize(program, &log_size)) != NVRTC_SUCCESS)
        goto done;
    if ((job->log = malloc(log_size + 1)) == NULL) {
        job->out_of_memory = 1;
        goto done;
    }
    if ((job->rc = nvrtc.nvrtcGetProgramLog(program, job->log)) != NVRTC_SUCCESS)
        goto done;
    job->log[log_size] = '\0';
    job->failed = NULL;
    if (job->compiled != NVRTC_SUCCESS)
        goto done;
    job->failed = job->want_ptx ? "nvrtcGetPTXSize" : "nvrtcGetCUBINSize";
    job->rc = job->want_ptx ? nvrtc.nvrtcGetPTXSize(program, &job->image_size)
                            : nvrtc.nvrtcGetCUBINSize(program, &job->image_size);
    if (job->rc != NVRTC_SUCCESS)
        goto done;
    if ((job->image = malloc(job->image_size ? job->image_size : 1)) == NULL) {
        job->out_of_memory = 1;
        goto done;
    }
    job->failed = job->want_ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN";
    job->rc = job->want_ptx ? nvrtc.nvrtcGetPTX(program, job->image) : nvrtc.nvrtcGetCUBIN(program, job->image);
    if (job->rc == NVRTC_SUCCESS)
        job->failed = NULL;
done:
    nvrtc.nvrtcDestroyProgram(&program);
}

/* compile(source, name, options, ptx) -> (image: bytes, log: str). Raises NvrtcError with the log
 * (file and line numbers as NVRTC reports them) when the source does not compile. */
static PyObject *module_nvrtc_compile(PyObject *module, PyObject *args)
{
    module_state *st = state_of_module(module);
    const char *source, *name;
    PyObject *options_obj;
    int want_ptx;
    if (!PyArg_ParseTuple(args, "ssOp:nvrtc_compile", &source, &name, &options_obj, &want_ptx))
        return NULL;
    if (nvrtc_require(st) < 0)
        return NULL;
    PyObject *options = PySequence_Fast(options_obj, "options must be a sequence of str");
    if (options == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(options);
    const char **argv = PyMem_Calloc(count ? (size_t)count : 1, sizeof *argv);
    PyObject *result = NULL;
    struct nvrtc_job job = {
        .source = source, .name = name, .argv = argv, .count = (int)count, .want_ptx = want_ptx};
    if (argv == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(options, i);
        if (!PyUnicode_Check(item) || (argv[i] = PyUnicode_AsUTF8(item)) == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "options must be str");
            goto done;
        }
    }
    /* `source`, `name` and `argv` point into `args` and `options`, which this frame holds */
    Py_BEGIN_ALLOW_THREADS
    nvrtc_run(&job);
    Py_END_ALLOW_THREADS
    if (job.out_of_memory) {
        PyErr_NoMemory();
        goto done;
    }
    if (job.failed != NULL) {
        nvrtc_raise(st, job.rc, job.failed, NULL);
        goto done;
    }
    if (job.compiled != NVRTC_SUCCESS) {
        nvrtc_raise(st, job.compiled, name, job.log);
        goto done;
    }
    /* PTX comes NUL-terminated; keep the text without the terminator */
    if (want_ptx && job.image_size > 0 && job.image[job.image_size - 1] == '\0')
        job.image_size--;
    result = Py_BuildValue("(y#s)", job.image, (Py_ssize_t)job.image_size, job.log);
done:
    free(job.image);
    free(job.log);
    PyMem_Free(argv);
    Py_DECREF(options);
    return result;
}

PyMethodDef nvrtc_module_methods[] = {
    {"nvrtc_version", module_nvrtc_version, METH_NOARGS, "NVRTC's version as (major, minor)."},
    {"nvrtc_supported_archs", module_nvrtc_supported_archs, METH_NOARGS,
     "The compute capabilities NVRTC can compile for, as (major, minor) tuples, lowest first."},
    {"_cudart_version", module_cudart_version, METH_NOARGS,
     "libcudart's version as (major, minor), or None where it is not found."},
    {"nvrtc_compile", module_nvrtc_compile, METH_VARARGS,
     "nvrtc_compile(source, name, options, ptx) -> (image, log): compile CUDA C with NVRTC."},
    {0},
};
