/* c_api.c: the table of numba_cuda_c.h, behind the capsule numba_cuda_c._cuda._C_API. Other extensions read device
 * arrays and streams, wrap their own device memory, and launch kernels from C loops through it, without a Python
 * call per launch: each function does what the Python path does for it, in the same files' functions. */
#include "launch/c_api.h"

#include "arrays/devicearray.h"
#include "core/foreign.h"
#include "core/stream.h"
#include "driver/api/loader.h"
#include "driver/driver_gate.h"
#include "launch/kernel.h"
#include "../../numba_cuda_c/include/numba_cuda_c.h" /* the installed header: one table, declared once */

/* The module's state, which the table's functions (they take no module) use: the one whose capsule was made last (a
 * process imports the module once) */
static module_state *api_state;

static int api_array_layout(PyObject *array, NumbaCudaC_ArrayLayout *out)
{
    if (!PyObject_TypeCheck(array, api_state->DeviceNDArrayType)) {
        PyErr_Format(PyExc_TypeError, "a numba_cuda_c device array was expected, not %.200s",
                     Py_TYPE(array)->tp_name);
        return -1;
    }
    DeviceArrayObject *self = (DeviceArrayObject *)array;
    if (self->ndim > NUMBA_CUDA_C_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "the C API's layouts hold %d dimensions, the array has %d",
                     NUMBA_CUDA_C_MAX_DIMS, self->ndim);
        return -1;
    }
    out->data = self->data;
    out->ndim = self->ndim;
    for (int d = 0; d < self->ndim; d++) {
        out->shape[d] = self->shape[d];
        out->strides[d] = self->strides[d];
    }
    out->itemsize = PyDataType_ELSIZE(self->dtype);
    out->dtype = (PyObject *)self->dtype;
    return 0;
}

static PyObject *api_array_from_pointer(CUdeviceptr data, int ndim, const Py_ssize_t *shape,
                                        const Py_ssize_t *strides, PyObject *dtype, PyObject *owner)
{
    if (ndim < 0 || ndim > NUMBA_CUDA_C_MAX_DIMS || (ndim > 0 && shape == NULL)) {
        PyErr_Format(PyExc_ValueError, "an array of 0 to %d dimensions, with its shape", NUMBA_CUDA_C_MAX_DIMS);
        return NULL;
    }
    PyArray_Descr *descr = layout_parse_dtype(dtype);
    if (descr == NULL)
        return NULL;
    npy_intp extents[NUMBA_CUDA_C_MAX_DIMS], steps[NUMBA_CUDA_C_MAX_DIMS], size;
    size_t span;
    for (int d = 0; d < ndim; d++)
        extents[d] = shape[d];
    if (strides == NULL)
        layout_contiguous_strides(ndim, extents, PyDataType_ELSIZE(descr), 'C', steps);
    else
        for (int d = 0; d < ndim; d++)
            steps[d] = strides[d];
    ContextObject *context = NULL;
    PyObject *result = NULL;
    long long low = 0; /* negative strides reach below the data pointer */
    for (int d = 0; d < ndim; d++)
        if (extents[d] > 0 && steps[d] < 0)
            low += (long long)(extents[d] - 1) * steps[d];
    /* foreign memory, checked as far as the driver can tell (foreign.h): NULL with a size, no allocation, past one
     */
    if (layout_check(ndim, extents, steps, PyDataType_ELSIZE(descr), &size, &span) == 0 &&
        (context = context_current(api_state)) != NULL &&
        (size == 0 || foreign_check_extent(api_state, data, low, span, "the C API's array_from_pointer") == 0))
        result = (PyObject *)devicearray_wrap(api_state, api_state->DeviceNDArrayType, ndim, extents, steps, descr,
                                              data, owner, context, NULL);
    Py_DECREF(descr);
    return result;
}

static int api_array_argument(PyObject *array, NumbaCudaC_ArrayArgument *out, size_t *size)
{
    NumbaCudaC_ArrayLayout layout;
    if (api_array_layout(array, &layout) < 0)
        return -1;
    out->data = layout.data;
    for (int d = 0; d < layout.ndim; d++) {
        out->shape_and_strides[d] = layout.shape[d];
        out->shape_and_strides[layout.ndim + d] = layout.strides[d];
    }
    *size = 8 + 16 * (size_t)layout.ndim; /* the struct the translator declares (launch_arguments.c) */
    return 0;
}

static int api_stream_handle(PyObject *stream, CUstream *out)
{
    if (stream_is_default(stream)) {
        *out = NULL;
        return 0;
    }
    if (!PyObject_TypeCheck(stream, api_state->StreamType)) {
        PyErr_Format(PyExc_TypeError, "a numba_cuda_c Stream (or 0/None) was expected, not %.200s",
                     Py_TYPE(stream)->tp_name);
        return -1;
    }
    *out = ((StreamObject *)stream)->handle;
    return 0;
}

static int api_kernel_function(PyObject *kernel, NumbaCudaC_Kernel *out)
{
    if (!PyObject_TypeCheck(kernel, api_state->KernelType)) {
        PyErr_Format(
            PyExc_TypeError,
            "a numba_cuda_c Kernel (a @cuda.jit dispatcher's c_kernel(signature)) was expected, not %.200s",
            Py_TYPE(kernel)->tp_name);
        return -1;
    }
    KernelObject *self = (KernelObject *)kernel;
    ContextObject *context = context_current(api_state);
    if (context == NULL || context_check_alive(api_state, context) < 0)
        return -1;
    CUfunction function = kernel_function(api_state, self, context);
    if (function == NULL)
        return -1;
    out->function = function;
    out->context = context->handle;
    out->cooperative = self->cooperative;
    out->param_count = self->param_count;
    out->param_sizes = self->param_sizes;
    out->param_offsets = self->param_offsets;
    return 0;
}

/* Called from C loops, with or without the GIL: without it, as every driver call made so, it holds the driver gate
 * (no context is destroyed under it: driver_gate.h); with it, no gate is needed (a closer holds the GIL too). */
static int api_launch(const NumbaCudaC_Kernel *kernel, const unsigned int grid[3], const unsigned int block[3],
                      unsigned int shared_memory, CUstream stream, void **params)
{
    int gil = PyGILState_Check();
    if (!gil)
        driver_gate_enter();
    CUcontext current = NULL, popped;
    CUresult rc = cu.cuCtxGetCurrent(&current);
    int pushed = 0;
    if (rc == CUDA_SUCCESS && current != kernel->context)
        pushed = (rc = cu.cuCtxPushCurrent(kernel->context)) == CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS && kernel->cooperative)
        rc = cu.cuLaunchCooperativeKernel == NULL
                 ? CUDA_ERROR_NOT_SUPPORTED
                 : cu.cuLaunchCooperativeKernel(kernel->function, grid[0], grid[1], grid[2], block[0], block[1],
                                                block[2], shared_memory, stream, params);
    else if (rc == CUDA_SUCCESS)
        rc = cu.cuLaunchKernel(kernel->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                               shared_memory, stream, params, NULL);
    if (pushed)
        cu.cuCtxPopCurrent(&popped); /* what the launch returned is what the caller needs to know */
    if (!gil)
        driver_gate_leave();
    return (int)rc;
}

/* Launches from compiled code that cannot build cuLaunchKernel's pointer array (numba's @njit and @cfunc, through
 * ctypes): the parameters packed at their offsets in one buffer. The CUresult. */
static int launch_packed(const NumbaCudaC_Kernel *kernel, unsigned int grid_x, unsigned int grid_y,
                         unsigned int grid_z, unsigned int block_x, unsigned int block_y, unsigned int block_z,
                         unsigned int shared_memory, CUstream stream, unsigned char *packed)
{
    enum { MAX_PARAMS = 256 };
    void *params[MAX_PARAMS];
    if (kernel == NULL || kernel->param_count < 0 || kernel->param_count > MAX_PARAMS)
        return CUDA_ERROR_INVALID_VALUE;
    for (Py_ssize_t i = 0; i < kernel->param_count; i++)
        params[i] = packed + kernel->param_offsets[i];
    unsigned int grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
    return api_launch(kernel, grid, block, shared_memory, stream, params);
}

static void free_handle(PyObject *capsule)
{
    PyMem_Free(PyCapsule_GetPointer(capsule, "numba_cuda_c kernel handle"));
}

/* _c_launch_handle(kernel) -> (handle, its address, launch_packed's address, offsets, sizes): what a launch from
 * compiled code needs (pyjit/c_launch.py). The handle (a capsule) keeps the kernel's function for the current
 * context; the kernel must outlive it. */
static PyObject *module_c_launch_handle(PyObject *Py_UNUSED(module), PyObject *kernel)
{
    NumbaCudaC_Kernel *handle = PyMem_Malloc(sizeof *handle);
    if (handle == NULL)
        return PyErr_NoMemory();
    if (api_kernel_function(kernel, handle) < 0) {
        PyMem_Free(handle);
        return NULL;
    }
    if (handle->param_count < 0) {
        PyMem_Free(handle);
        PyErr_SetString(PyExc_RuntimeError,
                        "this CUDA driver does not tell a kernel's parameters (cuFuncGetParamInfo): "
                        "launch it from Python");
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(handle, "numba_cuda_c kernel handle", free_handle);
    if (capsule == NULL) {
        PyMem_Free(handle);
        return NULL;
    }
    PyObject *offsets = PyTuple_New(handle->param_count), *sizes = PyTuple_New(handle->param_count);
    for (Py_ssize_t i = 0; offsets != NULL && sizes != NULL && i < handle->param_count; i++) {
        PyTuple_SET_ITEM(offsets, i, PyLong_FromSize_t(handle->param_offsets[i]));
        PyTuple_SET_ITEM(sizes, i, PyLong_FromSize_t(handle->param_sizes[i]));
    }
    if (offsets == NULL || sizes == NULL || PyErr_Occurred()) {
        Py_DECREF(capsule);
        Py_XDECREF(offsets);
        Py_XDECREF(sizes);
        return NULL;
    }
    return Py_BuildValue("(NKKNN)", capsule, (unsigned long long)(uintptr_t)handle,
                         (unsigned long long)(uintptr_t)launch_packed, offsets, sizes);
}

PyMethodDef c_api_module_methods[] = {
    {"_c_launch_handle", module_c_launch_handle, METH_O,
     "(handle, address, launch_packed's address, offsets, sizes) of a Kernel, for launches from compiled code."},
    {0},
};

static NumbaCudaC_API api_table = {
    NUMBA_CUDA_C_API_VERSION, sizeof(NumbaCudaC_API), api_array_layout,    api_array_from_pointer,
    api_array_argument,       api_stream_handle,      api_kernel_function, api_launch,
};

int c_api_init(PyObject *module, module_state *st)
{
    api_state = st;
    PyObject *capsule = PyCapsule_New(&api_table, NUMBA_CUDA_C_API_CAPSULE, NULL);
    if (capsule == NULL)
        return -1;
    int rc = PyModule_AddObjectRef(module, "_C_API", capsule);
    Py_DECREF(capsule);
    return rc;
}
