/* transfer.c: device arrays copied to and from the host and each other: DeviceNDArray.copy_to_host,
 * copy_to_device, __setitem__ and __reduce__, and cuda.to_device. Every copy is core/copies.c's
 * transfer_copy, with the GIL released; stream 0 means a synchronous copy, as in numba. Contiguous
 * layouts copy bytes directly; other layouts go through a host buffer once. */
#include "arrays/transfer.h"
#include "driver/python_helpers.h"
#include "arrays/devicearray_functions.h"
#include "arrays/indexing.h"
#include "arrays/layout.h"

#include "driver/errors.h"
#include "core/copies.h"
#include "core/graph.h"
#include "core/stream.h"

/* Waits for a stream= argument's work (none for the default stream: its copies are synchronous). */
static int wait_stream(module_state *st, PyObject *stream)
{
    CUstream handle;
    if (stream_is_default(stream))
        return 0;
    if (stream_handle_from_object(st, stream, &handle) < 0)
        return -1;
    return CU_BLOCKING_CALL(st, cuStreamSynchronize, (handle));
}

/* Shapes equal once axes of length 1 are dropped (numba's check_array_compatibility squeezes). */
static int same_squeezed_shape(int n1, const npy_intp *s1, int n2, const npy_intp *s2)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < n1 && s1[i] == 1)
            i++;
        while (j < n2 && s2[j] == 1)
            j++;
        if (i == n1 || j == n2)
            return i == n1 && j == n2;
        if (s1[i++] != s2[j++])
            return 0;
    }
}

static int same_layout(DeviceArrayObject *self, PyArrayObject *host)
{
    if (!same_squeezed_shape(self->ndim, self->shape, PyArray_NDIM(host), PyArray_SHAPE(host)))
        return 0;
    if (devicearray_is_c_contiguous(self) && PyArray_IS_C_CONTIGUOUS(host))
        return 1;
    return devicearray_is_f_contiguous(self) && PyArray_IS_F_CONTIGUOUS(host);
}

/* A host array with the device array's layout over a fresh buffer holding a copy of its span. */
static PyArrayObject *span_to_host(module_state *st, DeviceArrayObject *self, PyObject *stream)
{
    npy_intp low;
    npy_intp span = (npy_intp)devicearray_span(self, &low);
    if (self->size == 0 || (devicearray_is_c_contiguous(self) && low == 0) ||
        (devicearray_is_f_contiguous(self) && low == 0)) {
        Py_INCREF(self->dtype);
        PyArrayObject *result =
            (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, self->dtype, self->ndim, self->shape,
                                                  self->size == 0 ? NULL : self->strides, NULL, 0, NULL);
        size_t size = result != NULL ? (size_t)PyArray_NBYTES(result) : 0;
        int failed = result != NULL && transfer_copy(st, self->context, PyArray_DATA(result), 0, self->data, size,
                                                     stream, DEVICE_TO_HOST) < 0;
        if (failed)
            Py_CLEAR(result);
        return result;
    }
    PyArrayObject *buffer = (PyArrayObject *)PyArray_SimpleNew(1, &span, NPY_UINT8);
    if (buffer == NULL)
        return NULL;
    if (transfer_copy(st, self->context, PyArray_DATA(buffer), 0, self->data + low, (size_t)span, stream,
                      DEVICE_TO_HOST) < 0) {
        Py_DECREF(buffer);
        return NULL;
    }
    Py_INCREF(self->dtype);
    PyArrayObject *result =
        (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, self->dtype, self->ndim, self->shape, self->strides,
                                              (char *)PyArray_DATA(buffer) - low, NPY_ARRAY_WRITEABLE, NULL);
    if (result == NULL || PyArray_SetBaseObject(result, (PyObject *)buffer) < 0) {
        Py_XDECREF(result);
        Py_DECREF(buffer);
        return NULL;
    }
    return result;
}

/* Writes a host array laid out by span_to_host back over the device array's span. */
static int span_from_host(module_state *st, DeviceArrayObject *self, PyArrayObject *host, PyObject *stream)
{
    npy_intp low;
    size_t span = devicearray_span(self, &low);
    return transfer_copy(st, self->context, (char *)PyArray_DATA(host) + low, self->data + low, 0, span, stream,
                         HOST_TO_DEVICE);
}

/* Host data in non-native byte order (dtype('>f8') on x86) would reach the device as raw bytes,
 * which kernels misread: refused with ValueError, as numba refuses such arrays as kernel arguments
 * (it cannot type them). One flag check for the usual dtypes; records are checked field by field. */
static int refuse_swapped(PyArray_Descr *descr, const char *what)
{
    int native = PyArray_ISNBO(descr->byteorder);
    if (native && (PyDataType_HASFIELDS(descr) || PyDataType_HASSUBARRAY(descr))) {
        PyObject *flag = PyObject_GetAttrString((PyObject *)descr, "isnative");
        if (flag == NULL || (native = PyObject_IsTrue(flag)) < 0) {
            Py_XDECREF(flag);
            return -1;
        }
        Py_DECREF(flag);
    }
    if (native)
        return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s: dtype %R is not in the machine's byte order, and the device would read its raw bytes; "
                 "convert the array first, e.g. a.astype(a.dtype.newbyteorder('='))",
                 what, (PyObject *)descr);
    return -1;
}

/* Host memory of Python objects (object dtypes, records with object fields) holds pointers the
 * interpreter counts: device bytes written over them would crash it later. Never a copy's end. */
static int refuse_objects(PyArray_Descr *descr, const char *what)
{
    if (!PyDataType_REFCHK(descr))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s: dtype %R holds Python objects, which cannot be copied to or from the device",
                 what, (PyObject *)descr);
    return -1;
}

/* A NumPy record scalar (np.void, np.record) as a writable 0-d array over its own bytes: NumPy lets
 * a record's fields be assigned in place, and numba's copy_to_host writes into it the same way. */
static PyObject *record_scalar_as_array(PyObject *record)
{
    PyVoidScalarObject *scalar = (PyVoidScalarObject *)record;
    PyArray_Descr *descr = (PyArray_Descr *)scalar->descr;
    Py_INCREF(descr);
    PyObject *view =
        PyArray_NewFromDescr(&PyArray_Type, descr, 0, NULL, NULL, scalar->obval, NPY_ARRAY_WRITEABLE, NULL);
    if (view == NULL)
        return NULL;
    if (PyArray_SetBaseObject((PyArrayObject *)view, Py_NewRef(record)) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    return view;
}

PyObject *devicearray_copy_to_host(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"ary", "stream", NULL};
    module_state *st = state_of(op);
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *ary = Py_None, *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:copy_to_host", keywords, &ary, &stream))
        return NULL;
    stream = devicearray_effective_stream(self, stream);
    if (ary == Py_None)
        return (PyObject *)span_to_host(st, self, stream);
    if (numpy_require() < 0)
        return NULL;
    if (PyArray_IsScalar(ary, Void)) { /* a NumPy record (numba's DeviceRecord copies into one) */
        PyObject *view = record_scalar_as_array(ary);
        if (view == NULL)
            return NULL;
        PyObject *view_args = stream ? PyTuple_Pack(2, view, stream) : PyTuple_Pack(1, view);
        PyObject *result = view_args ? devicearray_copy_to_host(op, view_args, NULL) : NULL;
        Py_XDECREF(view_args);
        Py_DECREF(view);
        if (result == NULL)
            return NULL;
        Py_DECREF(result);
        return Py_NewRef(ary);
    }
    if (!PyArray_Check(ary)) {
        PyErr_Format(PyExc_TypeError, "copy_to_host(ary): ary must be a NumPy array or record, not %.100s",
                     Py_TYPE(ary)->tp_name);
        return NULL;
    }
    PyArrayObject *host = (PyArrayObject *)ary;
    if (refuse_objects(PyArray_DESCR(host), "copy_to_host") < 0 ||
        refuse_swapped(PyArray_DESCR(host), "copy_to_host") < 0)
        return NULL;
    if (!PyArray_EquivTypes(PyArray_DESCR(host), self->dtype)) {
        PyErr_Format(PyExc_TypeError, "incompatible dtype: %R vs. %R", (PyObject *)self->dtype,
                     (PyObject *)PyArray_DESCR(host));
        return NULL;
    }
    if (!same_squeezed_shape(self->ndim, self->shape, PyArray_NDIM(host), PyArray_SHAPE(host))) {
        PyErr_SetString(PyExc_ValueError, "incompatible shape: the host array must have the device array's shape");
        return NULL;
    }
    if (PyArray_FailUnlessWriteable(host, "copy_to_host's destination") < 0)
        return NULL;
    if (same_layout(self, host)) {
        if (transfer_copy(st, self->context, PyArray_DATA(host), 0, self->data, (size_t)PyArray_NBYTES(host),
                          stream, DEVICE_TO_HOST) < 0 ||
            graph_keep_copy(st, stream, op, ary) < 0)
            return NULL;
        return Py_NewRef(ary);
    }
    PyArrayObject *staged = span_to_host(st, self, stream);
    if (staged == NULL || wait_stream(st, stream) < 0) {
        Py_XDECREF(staged);
        return NULL;
    }
    PyArray_Dims dims = {PyArray_SHAPE(host), PyArray_NDIM(host)};
    PyObject *reshaped = PyArray_Newshape(staged, &dims, NPY_ANYORDER);
    Py_DECREF(staged);
    if (reshaped == NULL || PyArray_CopyInto(host, (PyArrayObject *)reshaped) < 0) {
        Py_XDECREF(reshaped);
        return NULL;
    }
    Py_DECREF(reshaped);
    return Py_NewRef(ary);
}

/* __reduce__: the bytes the array spans, copied to the host, and its layout; unpickled by
 * numba_cuda_c.cudadrv.devicearray._rebuild_device_array in that process's current context, with the
 * same shape, strides and dtype (gaps and reversed axes included). */
PyObject *devicearray_reduce(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (numpy_require() < 0)
        return NULL;
    npy_intp low = 0;
    npy_intp span = self->size == 0 ? 0 : (npy_intp)devicearray_span(self, &low);
    PyArrayObject *bytes = (PyArrayObject *)PyArray_SimpleNew(1, &span, NPY_UINT8);
    if (bytes == NULL)
        return NULL;
    PyObject *stream = devicearray_effective_stream(self, NULL);
    if (span > 0 && (transfer_copy(st, self->context, PyArray_DATA(bytes), 0, self->data + low, (size_t)span,
                                   stream, DEVICE_TO_HOST) < 0 ||
                     wait_stream(st, stream) < 0)) {
        Py_DECREF(bytes);
        return NULL;
    }
    PyObject *rebuild = python_helper_get(st, HELPER_REBUILD_DEVICE_ARRAY);
    PyObject *shape = PyArray_IntTupleFromIntp(self->ndim, self->shape);
    PyObject *strides = PyArray_IntTupleFromIntp(self->ndim, self->strides);
    PyObject *result = NULL;
    if (rebuild != NULL && shape != NULL && strides != NULL)
        result = Py_BuildValue("(O(sOnOOO))", rebuild, Py_IS_TYPE(op, st->DeviceRecordType) ? "record" : "array",
                               (PyObject *)bytes, (Py_ssize_t)low, shape, strides, (PyObject *)self->dtype);
    Py_XDECREF(rebuild);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_DECREF(bytes);
    return result;
}

/* Copies a host array of the device array's shape into it (any layout of either). */
static int host_into_device(module_state *st, DeviceArrayObject *self, PyArrayObject *host, PyObject *stream)
{
    if (same_layout(self, host))
        return transfer_copy(st, self->context, PyArray_DATA(host), self->data, 0, (size_t)PyArray_NBYTES(host),
                             stream, HOST_TO_DEVICE);
    if (devicearray_is_c_contiguous(self) || devicearray_is_f_contiguous(self)) {
        int fortran = !devicearray_is_c_contiguous(self);
        PyArrayObject *packed = (PyArrayObject *)PyArray_NewCopy(host, fortran ? NPY_FORTRANORDER : NPY_CORDER);
        if (packed == NULL)
            return -1;
        int status = transfer_copy(st, self->context, PyArray_DATA(packed), self->data, 0,
                                   (size_t)PyArray_NBYTES(packed), stream, HOST_TO_DEVICE);
        Py_DECREF(packed);
        /* the copy must finish before `packed` goes: an async copy reads it later */
        return status < 0 ? -1 : wait_stream(st, stream);
    }
    /* A strided destination: read its span, assign on the host, write the span back. */
    PyArrayObject *staged = span_to_host(st, self, stream);
    if (staged == NULL)
        return -1;
    int status = wait_stream(st, stream);
    if (status == 0)
        status = PyArray_CopyInto(staged, host);
    if (status == 0)
        status = span_from_host(st, self, staged, stream);
    if (status == 0)
        status = wait_stream(st, stream);
    Py_DECREF(staged);
    return status;
}

/* The bytes of peer_copy below, without the GIL. */
static CUresult copy_peer(DeviceArrayObject *self, DeviceArrayObject *source, size_t size, CUstream handle,
                          int sync)
{
    ContextObject *to = self->context, *from = source->context;
    if (sync && handle == NULL)
        return cu.cuMemcpyPeer(self->data, to->handle, source->data, from->handle, size);
    return stream_wait_after(cu.cuMemcpyPeerAsync(self->data, to->handle, source->data, from->handle, size, handle),
                             handle, sync);
}

/* Bytes from another device's array (cuMemcpyPeer, Async on a stream), with the destination's
 * context current; the source's device has peer access enabled at first need. 0: copied; 1: the
 * devices cannot reach each other (the caller stages through the host); -1 with an error. */
static int peer_copy(module_state *st, DeviceArrayObject *self, DeviceArrayObject *source, size_t size,
                     PyObject *stream)
{
    ContextObject *to = self->context, *from = source->context;
    CUstream handle;
    int sync = stream_is_default(stream);
    if (context_check_alive(st, from) < 0 || context_check_alive(st, to) < 0)
        return -1;
    int reachable = context_enable_peer(st, to, from);
    if (reachable <= 0)
        return reachable < 0 ? -1 : 1;
    if (stream_handle_from_object(st, sync ? Py_None : stream, &handle) < 0 ||
        IN_CONTEXT(st, to,
                   cu_check(st, CU_BLOCKING(copy_peer(self, source, size, handle, sync)), "cuMemcpyPeer") < 0) < 0)
        return -1;
    return 0;
}

/* A device source: bytes when layouts agree (a peer copy from another device's array), else
 * through the host. */
static int device_into_device(module_state *st, DeviceArrayObject *self, DeviceArrayObject *source,
                              PyObject *stream)
{
    if (context_check_alive(st, source->context) < 0) /* its memory went with its context */
        return -1;
    if (!PyArray_EquivTypes(self->dtype, source->dtype)) {
        PyErr_Format(PyExc_TypeError, "incompatible dtype: %R vs. %R", (PyObject *)self->dtype,
                     (PyObject *)source->dtype);
        return -1;
    }
    if (!same_squeezed_shape(self->ndim, self->shape, source->ndim, source->shape)) {
        PyErr_SetString(PyExc_ValueError, "incompatible shape: copy_to_device needs arrays of the same shape");
        return -1;
    }
    int both_c = devicearray_is_c_contiguous(self) && devicearray_is_c_contiguous(source);
    int both_f = devicearray_is_f_contiguous(self) && devicearray_is_f_contiguous(source);
    size_t size = (size_t)(self->size * PyDataType_ELSIZE(self->dtype));
    int other_device = source->context != NULL && source->context != self->context;
    if ((both_c || both_f) && other_device && size > 0) {
        int status = peer_copy(st, self, source, size, stream);
        if (status <= 0)
            return status;
    } else if (both_c || both_f) {
        return transfer_copy(st, self->context, NULL, self->data, source->data, size, stream, DEVICE_TO_DEVICE);
    }
    /* the source is read synchronously: a stream of the destination's context cannot order it */
    PyArrayObject *staged = span_to_host(st, source, other_device ? Py_None : stream);
    if (staged == NULL)
        return -1;
    int status = wait_stream(st, stream);
    if (status == 0)
        status = host_into_device(st, self, staged, stream);
    Py_DECREF(staged);
    return status;
}

/* A device source: ours, or a CAI object other than a NumPy array (a mapped array is host memory here).
 * 1 or 0; -1 where reading __cuda_array_interface__ raised something other than AttributeError. */
static int is_device_source(module_state *st, PyObject *obj)
{
    if (devicearray_check(st, obj))
        return 1;
    return PyArray_Check(obj) ? 0 : devicearray_has_cai(obj);
}

PyObject *devicearray_copy_to_device(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"ary", "stream", NULL};
    module_state *st = state_of(op);
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *ary, *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:copy_to_device", keywords, &ary, &stream))
        return NULL;
    stream = devicearray_effective_stream(self, stream);
    int device_source = is_device_source(st, ary);
    if (device_source < 0)
        return NULL;
    if (device_source) {
        PyObject *source = devicearray_from_object(st, ary, 1);
        if (source == NULL)
            return NULL;
        int status = device_into_device(st, self, (DeviceArrayObject *)source, stream);
        if (status == 0)
            status = graph_keep_copy(st, stream, op, source);
        Py_DECREF(source);
        return status < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyArrayObject *host = (PyArrayObject *)PyArray_FromAny(ary, NULL, 0, 0, 0, NULL);
    if (host == NULL)
        return NULL;
    int status = -1;
    if (refuse_objects(PyArray_DESCR(host), "copy_to_device") < 0 ||
        refuse_swapped(PyArray_DESCR(host), "copy_to_device") < 0)
        ;
    else if (!PyArray_EquivTypes(PyArray_DESCR(host), self->dtype))
        PyErr_Format(PyExc_TypeError, "incompatible dtype: %R vs. %R", (PyObject *)self->dtype,
                     (PyObject *)PyArray_DESCR(host));
    else if (!same_squeezed_shape(self->ndim, self->shape, PyArray_NDIM(host), PyArray_SHAPE(host)))
        PyErr_SetString(PyExc_ValueError, "incompatible shape: the host array must have the device array's shape");
    else if ((status = host_into_device(st, self, host, stream)) == 0)
        status = graph_keep_copy(st, stream, op, (PyObject *)host);
    Py_DECREF(host);
    return status < 0 ? NULL : Py_NewRef(Py_None);
}

/* The array's items (contiguous, of itemsize 1, 2 or 4) set to `bits` on the stream, the context
 * current; waited for, with the GIL released, where `sync`. */
static int memset_items(module_state *st, DeviceArrayObject *lhs, unsigned int bits, int itemsize, CUstream handle,
                        int sync)
{
    size_t count = (size_t)lhs->size;
    CUresult rc = itemsize == 1   ? cu.cuMemsetD8Async(lhs->data, (unsigned char)bits, count, handle)
                  : itemsize == 2 ? cu.cuMemsetD16Async(lhs->data, (unsigned short)bits, count, handle)
                                  : cu.cuMemsetD32Async(lhs->data, bits, count, handle);
    if (rc == CUDA_SUCCESS && sync)
        rc = CU_BLOCKING(cu.cuStreamSynchronize(handle));
    return cu_check(st, rc, "cuMemsetAsync");
}

/* A scalar into a contiguous array of 1-, 2- or 4-byte items: one memset on the device. */
static int try_memset(module_state *st, DeviceArrayObject *lhs, PyArrayObject *value, PyObject *stream, int *done)
{
    npy_intp itemsize = PyDataType_ELSIZE(lhs->dtype);
    *done = 0;
    if (PyArray_SIZE(value) != 1 || lhs->size == 0 || !devicearray_is_c_contiguous(lhs) ||
        (itemsize != 1 && itemsize != 2 && itemsize != 4))
        return 0;
    unsigned int bits = 0;
    memcpy(&bits, PyArray_DATA(value), (size_t)itemsize);
    CUstream handle;
    int sync = stream_is_default(stream);
    if (stream_handle_from_object(st, sync ? Py_None : stream, &handle) < 0 ||
        IN_CONTEXT(st, lhs->context, memset_items(st, lhs, bits, (int)itemsize, handle, sync) < 0) < 0)
        return -1;
    *done = 1;
    return 0;
}

int devicearray_setitem(PyObject *op, PyObject *key, PyObject *value)
{
    return devicearray_assign(op, key, value, NULL);
}

int devicearray_assign(PyObject *op, PyObject *key, PyObject *value, PyObject *stream_arg)
{
    module_state *st = state_of(op);
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], offset;
    int ndim;
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "device array elements cannot be deleted");
        return -1;
    }
    PyArray_Descr *dtype = self->dtype;
    if (PyUnicode_Check(key) ? devicearray_field(self, key, &ndim, shape, strides, &dtype, &offset) < 0
                             : devicearray_index(self, key, &ndim, shape, strides, &offset) < 0)
        return -1;
    DeviceArrayObject *lhs =
        devicearray_wrap(st, st->DeviceNDArrayType, ndim, shape, strides, dtype,
                         self->data ? self->data + offset : 0, self->owner, self->context, self->stream);
    if (lhs == NULL)
        return -1;
    PyObject *stream = devicearray_effective_stream(self, stream_arg);
    PyArrayObject *host = NULL;
    int status = -1, done = 0;
    int device_source = is_device_source(st, value);
    if (device_source < 0)
        goto finish;
    if (device_source) { /* a device source goes through the host */
        PyObject *source = devicearray_from_object(st, value, 1);
        if (source == NULL)
            goto finish;
        if (((DeviceArrayObject *)source)->ndim == ndim &&
            memcmp(((DeviceArrayObject *)source)->shape, shape, ndim * sizeof *shape) == 0 &&
            PyArray_EquivTypes(((DeviceArrayObject *)source)->dtype, dtype)) {
            status = device_into_device(st, lhs, (DeviceArrayObject *)source, stream);
            Py_DECREF(source);
            goto finish;
        }
        host = span_to_host(st, (DeviceArrayObject *)source, stream);
        Py_DECREF(source);
        if (host == NULL || wait_stream(st, stream) < 0)
            goto finish;
        value = (PyObject *)host;
    }
    Py_INCREF(dtype);
    PyArrayObject *converted = (PyArrayObject *)PyArray_FromAny(value, dtype, 0, 0, NPY_ARRAY_FORCECAST, NULL);
    Py_XSETREF(host, converted);
    if (host == NULL)
        goto finish;
    if (PyArray_NDIM(host) > ndim) {
        PyErr_Format(PyExc_ValueError, "Can't assign %d-D array to %d-D self", PyArray_NDIM(host), ndim);
        goto finish;
    }
    for (int i = 0; i < PyArray_NDIM(host); i++) {
        npy_intp r = PyArray_DIM(host, PyArray_NDIM(host) - 1 - i), l = shape[ndim - 1 - i];
        if (r != 1 && r != l) {
            PyErr_Format(PyExc_ValueError, "Can't copy sequence with size %zd to array axis %d with dimension %zd",
                         (Py_ssize_t)r, ndim - 1 - i, (Py_ssize_t)l);
            goto finish;
        }
    }
    if (try_memset(st, lhs, host, stream, &done) < 0 || done) {
        status = done ? 0 : -1;
        goto finish;
    }
    if (PyArray_NDIM(host) != ndim || memcmp(PyArray_SHAPE(host), shape, ndim * sizeof *shape) != 0) {
        /* broadcast on the host, once, to the destination's shape */
        Py_INCREF(dtype);
        PyArrayObject *full =
            (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, dtype, ndim, shape, NULL, NULL, 0, NULL);
        if (full == NULL || PyArray_CopyInto(full, host) < 0) {
            Py_XDECREF(full);
            goto finish;
        }
        Py_SETREF(host, full);
    }
    if (same_layout(lhs, host))
        status = transfer_copy(st, lhs->context, PyArray_DATA(host), lhs->data, 0, (size_t)PyArray_NBYTES(host),
                               Py_None, HOST_TO_DEVICE);
    else
        status = host_into_device(st, lhs, host, Py_None); /* broadcasts on the host */
    if (status == 0)
        status = wait_stream(st, stream);
finish:
    /* with no stream, numba ends with default_stream().synchronize(): observable where it was patched */
    if (status == 0 && stream_is_default(stream) && stream_synchronize_replaced(st))
        status = stream_call_synchronize(st, lhs->context, NULL, STREAM_DEFAULT);
    Py_XDECREF(host);
    Py_DECREF(lhs);
    return status;
}

/* Whether a non-empty array repeats its data along some dimension (a zero stride on a dimension
 * longer than one: np.broadcast_to, a scalar broadcast for a ufunc). */
static int is_broadcast(PyArrayObject *host)
{
    if (PyArray_SIZE(host) == 0)
        return 0;
    for (int i = 0; i < PyArray_NDIM(host); i++)
        if (PyArray_STRIDE(host, i) == 0 && PyArray_DIM(host, i) > 1)
            return 1;
    return 0;
}

/* A broadcast array goes to the device as numba sends it: the data it repeats, once, under the same
 * zero strides (a scalar broadcast to a million elements takes one element of device memory). */
static PyObject *broadcast_to_device(module_state *st, PyArrayObject *host, PyObject *stream, int copy)
{
    int ndim = PyArray_NDIM(host);
    npy_intp core_shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    PyArray_Descr *dtype = PyArray_DESCR(host);
    for (int i = 0; i < ndim; i++)
        core_shape[i] = PyArray_STRIDE(host, i) == 0 ? 1 : PyArray_DIM(host, i);
    /* the core: a view of the data without its repeats, then packed */
    Py_INCREF(dtype);
    PyArrayObject *view = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, dtype, ndim, core_shape,
                                                                PyArray_STRIDES(host), PyArray_DATA(host), 0, NULL);
    if (view == NULL || PyArray_SetBaseObject(view, Py_NewRef((PyObject *)host)) < 0) {
        Py_XDECREF(view);
        return NULL;
    }
    PyArrayObject *core = (PyArrayObject *)PyArray_NewCopy(view, NPY_CORDER);
    Py_DECREF(view);
    if (core == NULL)
        return NULL;
    npy_intp stride = PyDataType_ELSIZE(dtype);
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = PyArray_STRIDE(host, i) == 0 ? 0 : stride;
        stride *= core_shape[i];
    }
    DeviceArrayObject *device =
        devicearray_allocate(st, st->DeviceNDArrayType, ndim, PyArray_SHAPE(host), strides, 'C', dtype, stream);
    PyObject *copy_stream = stream_is_default(stream) ? NULL : stream;
    if (device != NULL && copy &&
        (transfer_copy(st, device->context, PyArray_DATA(core), device->data, 0, (size_t)PyArray_NBYTES(core),
                       copy_stream, HOST_TO_DEVICE) < 0 ||
         wait_stream(st, copy_stream) < 0)) /* `core` goes now: an async copy must have read it */
        Py_CLEAR(device);
    Py_DECREF(core);
    return (PyObject *)device;
}

/* A host array or array-like, copied to new device memory with its layout (made contiguous once if it
 * is not; a broadcast one as broadcast_to_device sends it). */
static PyObject *host_to_device(module_state *st, PyObject *obj, PyObject *stream, int copy)
{
    PyArrayObject *host;
    if (PyArray_CheckExact(obj) &&
        (PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj) || PyArray_IS_F_CONTIGUOUS((PyArrayObject *)obj)))
        host = (PyArrayObject *)Py_NewRef(obj);
    else {
        PyArrayObject *any = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
        if (any == NULL)
            return NULL;
        if (PyArray_IS_C_CONTIGUOUS(any) || PyArray_IS_F_CONTIGUOUS(any))
            host = any;
        else if (refuse_objects(PyArray_DESCR(any), "to_device") < 0 ||
                 refuse_swapped(PyArray_DESCR(any), "to_device") < 0) { /* before copying it */
            Py_DECREF(any);
            return NULL;
        } else if (is_broadcast(any)) {
            PyObject *device = broadcast_to_device(st, any, stream, copy);
            Py_DECREF(any);
            return device;
        } else {
            host = (PyArrayObject *)PyArray_NewCopy(any, NPY_CORDER);
            Py_DECREF(any);
            if (host == NULL)
                return NULL;
        }
    }
    if (refuse_objects(PyArray_DESCR(host), "to_device") < 0 ||
        refuse_swapped(PyArray_DESCR(host), "to_device") < 0) {
        Py_DECREF(host);
        return NULL;
    }
    char order = PyArray_IS_C_CONTIGUOUS(host) ? 'C' : 'F';
    /* a structured scalar is numba's DeviceRecord */
    PyTypeObject *type = PyArray_NDIM(host) == 0 && PyDataType_HASFIELDS(PyArray_DESCR(host))
                             ? st->DeviceRecordType
                             : st->DeviceNDArrayType;
    /* the host's own strides, as numba's from_array_like: they differ from the computed ones only
     * where they do not matter (an empty array, a dimension of 1), and users compare them; but a
     * negative one (a[::-1] of one element) no allocation of data takes: the contiguous stride there */
    int ndim = PyArray_NDIM(host);
    npy_intp strides[NPY_MAXDIMS], contiguous[NPY_MAXDIMS];
    layout_contiguous_strides(ndim, PyArray_SHAPE(host), PyArray_ITEMSIZE(host), order, contiguous);
    for (int i = 0; i < ndim; i++)
        strides[i] =
            PyArray_STRIDE(host, i) < 0 && PyArray_SIZE(host) > 0 ? contiguous[i] : PyArray_STRIDE(host, i);
    DeviceArrayObject *device =
        devicearray_allocate(st, type, ndim, PyArray_SHAPE(host), strides, order, PyArray_DESCR(host), stream);
    if (device != NULL && copy && host_into_device(st, device, host, stream_is_default(stream) ? NULL : stream) < 0)
        Py_CLEAR(device);
    Py_DECREF(host);
    return (PyObject *)device;
}

/* cuda.to_device(obj, stream, copy): obj as a new device array (a device array or CAI object as is). */
static PyObject *to_device(module_state *st, PyObject *obj, PyObject *stream, int copy)
{
    if (numpy_require() < 0)
        return NULL;
    int device_source = is_device_source(st, obj);
    if (device_source != 0)
        return device_source < 0 ? NULL : devicearray_from_object(st, obj, 1);
    return host_to_device(st, obj, stream, copy);
}

/* A NumPy array passed to a kernel, as numba sends it: numba's NumbaPerformanceWarning
 * (CUDA_WARN_ON_IMPLICIT_COPY), then copied to the device on the launch's stream, and back after the
 * launch unless it cannot be written (a broadcast, a read-only view). A graph cannot capture copies
 * around a kernel. */
static int host_argument(module_state *st, PyObject *host, PyObject *stream, Py_ssize_t index, PyObject *kernel,
                         PyObject **device, PyObject **copy_back)
{
    if (graph_capturing(st, stream)) {
        PyErr_Format(PyExc_ValueError,
                     "argument %zd of %S is a NumPy array, which a launch copies to the device "
                     "and back around the kernel: a graph cannot capture that; pass a device array "
                     "(cuda.to_device) to a launch on a capturing stream",
                     index, kernel);
        return -1;
    }
    PyObject *warned = python_call1(st, HELPER_WARN_IMPLICIT_COPY, NULL);
    if (warned == NULL)
        return -1;
    Py_DECREF(warned);
    *device = host_to_device(st, host, stream, 1);
    if (*device == NULL)
        return -1;
    *copy_back = PyArray_ISWRITEABLE((PyArrayObject *)host) ? Py_NewRef(host) : NULL;
    return 1;
}

int transfer_launch_argument(module_state *st, PyObject *obj, PyObject *stream, Py_ssize_t index, PyObject *kernel,
                             CUdeviceptr *pointer, PyObject **device, PyObject **copy_back)
{
    *device = *copy_back = NULL;
    if (numpy_require() < 0)
        return -1;
    /* its interface first: a mapped or managed array is a NumPy array the device reaches (an exact
     * ndarray has none) */
    PyObject *desc = PyArray_CheckExact(obj) ? NULL : PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (desc == NULL && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    }
    if (desc != NULL) {
        int status;
        if (pointer != NULL)
            status = devicearray_cai_pointer(st, desc, pointer);
        else
            status = (*device = devicearray_from_cai(st, desc, obj, 1)) != NULL ? 0 : -1;
        Py_DECREF(desc);
        return status < 0 ? -1 : 1;
    }
    if (PyArray_Check(obj))
        return host_argument(st, obj, stream, index, kernel, device, copy_back);
    /* device memory numba-cuda takes without the interface (numba_cuda_c/cudadrv/foreign_arguments.py) */
    *device = python_call1(st, HELPER_AS_DEVICE_ARRAY, obj);
    if (*device != Py_None)
        return *device == NULL ? -1 : 1;
    Py_CLEAR(*device);
    return 0;
}

/* Module functions */

/* to_device(obj, stream=0, copy=True, to=None), as numba's: a device array is returned as is, a
 * CAI object is wrapped, anything else becomes a NumPy array (made contiguous once if it is not)
 * and is copied to new device memory with its layout. */
static PyObject *module_to_device(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"obj", "stream", "copy", "to", NULL};
    module_state *st = state_of_module(module);
    PyObject *obj, *stream = Py_None, *to = Py_None;
    int copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OpO:to_device", keywords, &obj, &stream, &copy, &to))
        return NULL;
    if (numpy_require() < 0)
        return NULL;
    if (to != Py_None) {
        if (!devicearray_check(st, to)) {
            PyErr_SetString(PyExc_TypeError, "to_device(to=...) must be a device array");
            return NULL;
        }
        if (copy) {
            PyObject *done = PyObject_CallMethod(to, "copy_to_device", "OO", obj, stream);
            if (done == NULL)
                return NULL;
            Py_DECREF(done);
        }
        return Py_NewRef(to);
    }
    PyObject *device = to_device(st, obj, stream, copy);
    if (device != NULL && graph_keep_copy(st, stream, obj, device) < 0)
        Py_CLEAR(device);
    return device;
}

PyMethodDef transfer_module_methods[] = {
    {"to_device", (PyCFunction)(void (*)(void))module_to_device, METH_VARARGS | METH_KEYWORDS,
     "to_device(obj, stream=0, copy=True, to=None): copy a host array (or array-like) to the device. Arrays not in "
     "the machine's byte order are refused (ValueError), as at kernel launches: convert them first."},
    {0},
};
