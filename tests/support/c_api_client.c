/* c_api_client.c: an extension of another project, built by tests/driver/test_c_api.py against the installed
 * numba_cuda_c.h alone, that reads device arrays and launches a @cuda.jit kernel from a C loop through the C API.
 */
#include <numba_cuda_c.h>

static NumbaCudaC_API *ncc;

/* layout(array) -> (data, shape, strides, itemsize, dtype) */
static PyObject *layout(PyObject *self, PyObject *array)
{
    NumbaCudaC_ArrayLayout l;
    if (ncc->array_layout(array, &l) < 0)
        return NULL;
    PyObject *shape = PyTuple_New(l.ndim), *strides = PyTuple_New(l.ndim);
    for (int d = 0; shape != NULL && strides != NULL && d < l.ndim; d++) {
        PyTuple_SET_ITEM(shape, d, PyLong_FromSsize_t(l.shape[d]));
        PyTuple_SET_ITEM(strides, d, PyLong_FromSsize_t(l.strides[d]));
    }
    if (shape == NULL || strides == NULL || PyErr_Occurred()) {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    return Py_BuildValue("(KNNnO)", l.data, shape, strides, l.itemsize, l.dtype);
}

/* wrap(pointer, count, dtype, owner): a 1-d device array over someone's memory */
static PyObject *wrap(PyObject *self, PyObject *args)
{
    unsigned long long pointer;
    Py_ssize_t count;
    PyObject *dtype, *owner;
    if (!PyArg_ParseTuple(args, "KnOO", &pointer, &count, &dtype, &owner))
        return NULL;
    return ncc->array_from_pointer(pointer, 1, &count, NULL, dtype, owner);
}

/* add_many(kernel, array, value, times, stream): launches kernel(array, float32 value) `times` times on one
 * block of array.size threads, the GIL released, in a C loop */
static PyObject *add_many(PyObject *self, PyObject *args)
{
    PyObject *kernel_object, *array, *stream_object;
    float value;
    long times;
    if (!PyArg_ParseTuple(args, "OOflO", &kernel_object, &array, &value, &times, &stream_object))
        return NULL;
    NumbaCudaC_Kernel kernel;
    NumbaCudaC_ArrayArgument array_argument;
    NumbaCudaC_ArrayLayout l;
    CUstream stream;
    size_t size;
    if (ncc->kernel_function(kernel_object, &kernel) < 0 ||
        ncc->array_argument(array, &array_argument, &size) < 0 || ncc->array_layout(array, &l) < 0 ||
        ncc->stream_handle(stream_object, &stream) < 0)
        return NULL;
    if (kernel.param_count != 2 || kernel.param_sizes[0] != size || kernel.param_sizes[1] != sizeof value) {
        PyErr_SetString(PyExc_TypeError, "add_many launches kernels of (1-d float32 array, float32)");
        return NULL;
    }
    void *params[2] = {&array_argument, &value};
    unsigned int grid[3] = {1, 1, 1}, block[3] = {(unsigned int)l.shape[0], 1, 1};
    int rc = 0;
    Py_BEGIN_ALLOW_THREADS
    for (long i = 0; i < times && rc == 0; i++)
        rc = ncc->launch(&kernel, grid, block, 0, stream, params);
    Py_END_ALLOW_THREADS
    if (rc != 0)
        return PyErr_Format(PyExc_RuntimeError, "launch failed: CUresult %d", rc);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"layout", layout, METH_O, NULL},
    {"wrap", wrap, METH_VARARGS, NULL},
    {"add_many", add_many, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "c_api_client", NULL, -1, methods};

PyMODINIT_FUNC PyInit_c_api_client(void)
{
    if ((ncc = import_numba_cuda_c()) == NULL)
        return NULL;
    return PyModule_Create(&module);
}
