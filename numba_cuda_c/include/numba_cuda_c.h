/* numba_cuda_c.h: numba_cuda_c's C API, for other extensions (numba_cuda_c.get_include() is this folder).
 *
 *     #include <numba_cuda_c.h>
 *     static NumbaCudaC_API *ncc;                       // one per extension
 *     // in the module's init, with the GIL:
 *     if ((ncc = import_numba_cuda_c()) == NULL) return NULL;
 *
 * import_numba_cuda_c() imports numba_cuda_c and checks that its API is this header's version (or a newer one
 * that keeps every field): NULL with ImportError otherwise. The functions that take PyObjects need the GIL;
 * ncc->launch does not (it calls only the driver). Device arrays, streams and kernels are numba_cuda_c's objects:
 * a DeviceNDArray, a Stream (or 0/None for the default stream), and a Kernel, the loaded kernel of one signature of
 * a @cuda.jit dispatcher (dispatcher.c_kernel(signature)) or of a SourceModule. */
#ifndef NUMBA_CUDA_C_API_H
#define NUMBA_CUDA_C_API_H

#include <Python.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NUMBA_CUDA_C_API_VERSION 1
#define NUMBA_CUDA_C_API_CAPSULE "numba_cuda_c._cuda._C_API"

/* The driver's handle types, as cuda.h declares them (the same struct tags: cuda.h may come first or not). */
#ifndef __cuda_cuda_h__
typedef struct CUctx_st *CUcontext;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
#endif

#define NUMBA_CUDA_C_MAX_DIMS 32

/* A device array's layout: element (0, ..., 0) at `data`; strides in bytes; `dtype` borrowed from the array. */
typedef struct {
    CUdeviceptr data;
    int ndim;
    Py_ssize_t shape[NUMBA_CUDA_C_MAX_DIMS];
    Py_ssize_t strides[NUMBA_CUDA_C_MAX_DIMS];
    Py_ssize_t itemsize;
    PyObject *dtype; /* a numpy.dtype */
} NumbaCudaC_ArrayLayout;

/* A kernel, ready to launch from C: its function in the context it is bound to, and its parameters as the
 * launch packs them (cuLaunchKernel's kernelParams: param_count pointers, each to param_sizes[i] bytes). A
 * @cuda.jit kernel takes a device array as a struct (NumbaCudaC_ArrayArgument below), a number as its C type. */
typedef struct {
    CUfunction function;
    CUcontext context;
    int cooperative;        /* its code syncs the grid: ncc->launch uses cuLaunchCooperativeKernel */
    Py_ssize_t param_count; /* -1: the driver cannot tell (then each argument is packed at its natural size) */
    const size_t *param_sizes;
    const size_t *param_offsets;
} NumbaCudaC_Kernel;

/* How a @cuda.jit kernel receives a device array of ndim dimensions (8 + 16 ndim bytes): its data pointer, then
 * ndim extents, then ndim strides in bytes. ncc->array_argument fills it. */
typedef struct {
    CUdeviceptr data;
    long long shape_and_strides[2 * NUMBA_CUDA_C_MAX_DIMS];
} NumbaCudaC_ArrayArgument;

typedef struct {
    int version; /* NUMBA_CUDA_C_API_VERSION of the numba_cuda_c that made it */
    size_t size; /* sizeof this struct there: fields past the end of yours are newer */
    /* A device array's layout, read without calling Python. 0, or -1 with TypeError (not a device array). */
    int (*array_layout)(PyObject *array, NumbaCudaC_ArrayLayout *out);
    /* A DeviceNDArray over memory of the current context that `owner` keeps alive (it is kept with the array):
     * strides NULL for C order; dtype anything numpy.dtype() takes. New reference, or NULL with an exception. */
    PyObject *(*array_from_pointer)(CUdeviceptr data, int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
                                    PyObject *dtype, PyObject *owner);
    /* The argument bytes a @cuda.jit kernel takes for a device array, and their size (the parameter's): 0, or -1
     * with an exception. */
    int (*array_argument)(PyObject *array, NumbaCudaC_ArrayArgument *out, size_t *size);
    /* A stream's CUstream (0/None/NULL: the default stream, 0). 0, or -1 with TypeError. */
    int (*stream_handle)(PyObject *stream, CUstream *out);
    /* A Kernel's function in the current context (loaded there if it must be), and its parameters. The kernel
     * object must outlive the launches. 0, or -1 with an exception. */
    int (*kernel_function)(PyObject *kernel, NumbaCudaC_Kernel *out);
    /* One launch (cuLaunchKernel, or cuLaunchCooperativeKernel), in the kernel's context: the CUresult (0 is
     * CUDA_SUCCESS). No GIL needed, no Python called. */
    int (*launch)(const NumbaCudaC_Kernel *kernel, const unsigned int grid[3], const unsigned int block[3],
                  unsigned int shared_memory, CUstream stream, void **params);
} NumbaCudaC_API;

static inline NumbaCudaC_API *import_numba_cuda_c(void)
{
    NumbaCudaC_API *api = (NumbaCudaC_API *)PyCapsule_Import(NUMBA_CUDA_C_API_CAPSULE, 0);
    if (api == NULL)
        return NULL;
    if (api->version < NUMBA_CUDA_C_API_VERSION || api->size < sizeof(NumbaCudaC_API)) {
        PyErr_Format(PyExc_ImportError,
                     "numba_cuda_c's C API is version %d, this extension was built for version %d: install the "
                     "numba_cuda_c it was built against, or build it again",
                     api->version, NUMBA_CUDA_C_API_VERSION);
        return NULL;
    }
    return api;
}

#ifdef __cplusplus
}
#endif
#endif
