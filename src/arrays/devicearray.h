/* devicearray.h: DeviceNDArray (numba.cuda.cudadrv.devicearray.DeviceNDArray) and DeviceRecord:
 * a strided view of device memory owned by a MemoryPointer or by a CUDA-array-interface exporter. */
#ifndef NUMBA_CUDA_C_DEVICEARRAY_H
#define NUMBA_CUDA_C_DEVICEARRAY_H

#include "core/context.h"
#include "driver/numpy_api.h"

#define DEVICEARRAY_INLINE_DIMS 4

typedef struct {
    PyObject_HEAD
    int ndim;
    npy_intp *shape;   /* points into inline_dims, or a PyMem block for many dimensions */
    npy_intp *strides; /* in bytes; shape + ndim */
    npy_intp inline_dims[2 * DEVICEARRAY_INLINE_DIMS];
    PyArray_Descr *dtype;
    CUdeviceptr data; /* address of element (0, ..., 0) */
    npy_intp size;    /* number of elements */
    PyObject *owner;  /* MemoryPointer, CAI exporter, or NULL for an empty array */
    ContextObject *context;
    PyObject *stream; /* the bound stream, or NULL for the default */
    PyObject *cai;    /* __cuda_array_interface__, built at first use (the layout never changes) */
    PyObject *weakreflist;
} DeviceArrayObject;

/* A new array of `type` over existing memory. shape/strides are copied; dtype is borrowed. */
DeviceArrayObject *devicearray_wrap(module_state *st, PyTypeObject *type, int ndim, const npy_intp *shape,
                                    const npy_intp *strides, PyArray_Descr *dtype, CUdeviceptr data,
                                    PyObject *owner, ContextObject *context, PyObject *stream);

/* A new array of `type` (DeviceNDArray, DeviceRecord or a subclass) with fresh device memory;
 * strides NULL for contiguous in `order` ('C' or 'F'). */
DeviceArrayObject *devicearray_allocate(module_state *st, PyTypeObject *type, int ndim, const npy_intp *shape,
                                        const npy_intp *strides, char order, PyArray_Descr *dtype,
                                        PyObject *stream);

/* A view of the memory a __cuda_array_interface__ dict `desc` describes, checked against its
 * allocation, keeping `owner` (or NULL) alive; the exporter's stream is waited for when sync (numba's
 * rule, NUMBA_CUDA_ARRAY_INTERFACE_SYNC) and becomes the view's default stream. New reference. */
PyObject *devicearray_from_cai(module_state *st, PyObject *desc, PyObject *owner, int sync);

/* The data pointer alone of the memory `desc` describes, where no view is needed (a CUDA C kernel's
 * 8-byte parameter): checked to lie in an allocation unless the array is empty, after the exporter's
 * stream (as from_cai with sync). 0, or -1 with an error. */
int devicearray_cai_pointer(module_state *st, PyObject *desc, CUdeviceptr *pointer);

/* The pieces of layout_parse (layout.c): an int or a sequence of ints into shape[] (returns ndim,
 * or -1); 'C' or 'F' (None: 'C'); a dtype (None: float64, numba's default; a new reference);
 * contiguous strides in `order`. */
int layout_parse_shape(PyObject *obj, npy_intp *shape, const char *what);
int layout_parse_order(PyObject *obj, char *order);
PyArray_Descr *layout_parse_dtype(PyObject *obj);
void layout_contiguous_strides(int ndim, const npy_intp *shape, npy_intp itemsize, char order, npy_intp *strides);

/* NumPy's size limits: no negative dimension, and the item size times the nonzero dimensions fits
 * in npy_intp; with strides (not NULL), so does the span, from the lowest byte reached to the
 * highest. Sets *size (elements) and *span (bytes; 0 for an empty array). ValueError otherwise. */
int layout_check(int ndim, const npy_intp *shape, const npy_intp *strides, npy_intp itemsize, npy_intp *size,
                 size_t *span);

/* Layout facts (devicearray.c). */
int devicearray_is_c_contiguous(const DeviceArrayObject *array);
int devicearray_is_f_contiguous(const DeviceArrayObject *array);
/* The bytes the array spans, and the offset of its lowest byte from `data` (<= 0). */
size_t devicearray_span(const DeviceArrayObject *array, npy_intp *low);

static inline int devicearray_check(module_state *st, PyObject *obj)
{
    return PyObject_TypeCheck(obj, st->DeviceNDArrayType);
}

/* The stream a method uses: its `stream` argument when given (not 0/None), else the bound one. */
PyObject *devicearray_effective_stream(DeviceArrayObject *array, PyObject *stream);

#endif
