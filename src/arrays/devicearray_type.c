/* devicearray_type.c: the Python types DeviceNDArray and DeviceRecord, the top of arrays/: their
 * construction, attributes, __cuda_array_interface__, and the table of their methods, which views.c
 * (views, element reads), transfer.c (copies), and dlpack.c (export) implement. */
#include "arrays/devicearray.h"
#include "driver/python_helpers.h"
#include "arrays/devicearray_functions.h"
#include "arrays/views.h"
#include "arrays/layout.h"
#include "arrays/devicearray_type.h"
#include "arrays/dlpack.h"

#include "driver/errors.h"
#include "core/memory.h"
#include "core/stream.h"
#include "arrays/transfer.h"

#include <structmember.h>

/* Layout */

/* gpu_data's pointer, size and context: a MemoryPointer of ours, or any object with device_pointer
 * (an int or a ctypes pointer) and size, as numba's EMM plugins make (in the current context). */
static int memory_like(module_state *st, PyObject *gpu_data, CUdeviceptr *pointer, size_t *size,
                       ContextObject **context)
{
    if (Py_IS_TYPE(gpu_data, st->MemoryPointerType)) {
        MemoryObject *memory = (MemoryObject *)gpu_data;
        *pointer = memory->device_pointer;
        *size = memory->size;
        *context = memory->context;
        return 0;
    }
    PyObject *address = PyObject_GetAttrString(gpu_data, "device_pointer");
    PyObject *size_obj = address ? PyObject_GetAttrString(gpu_data, "size") : NULL;
    if (size_obj == NULL) {
        Py_XDECREF(address);
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "gpu_data must be a MemoryPointer (device_pointer and size) or None");
        }
        return -1;
    }
    if (address != Py_None && !PyLong_Check(address)) { /* a ctypes c_void_p or c_uint64 */
        PyObject *value = PyObject_GetAttrString(address, "value");
        Py_SETREF(address, value);
    }
    *pointer = address == NULL || address == Py_None ? 0 : (CUdeviceptr)PyLong_AsUnsignedLongLong(address);
    *size = PyErr_Occurred() ? 0 : PyLong_AsSize_t(size_obj);
    Py_XDECREF(address);
    Py_DECREF(size_obj);
    if (PyErr_Occurred())
        return -1;
    *context = context_current(st);
    return *context == NULL ? -1 : 0;
}

/* What the constructors share: an array of `type` in new memory (gpu_data None) or over a
 * MemoryPointer, which must hold the layout. Sizes are checked before the driver is touched. */
static PyObject *devicearray_construct(PyTypeObject *type, PyObject *shape_obj, PyObject *strides_obj,
                                       PyObject *dtype_obj, PyObject *stream, PyObject *gpu_data)
{
    module_state *st = state_of_type(type);
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], size;
    size_t span;
    if (st == NULL || numpy_require() < 0)
        return NULL;
    int ndim = layout_parse_shape(shape_obj, shape, "shape");
    if (ndim < 0)
        return NULL;
    PyArray_Descr *dtype = layout_parse_dtype(dtype_obj);
    if (dtype == NULL)
        return NULL;
    DeviceArrayObject *self = NULL;
    int has_strides = strides_obj != Py_None;
    if (has_strides && layout_parse_shape(strides_obj, strides, "strides") != ndim) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "strides must have one entry per dimension");
        goto done;
    }
    if (layout_check(ndim, shape, NULL, PyDataType_ELSIZE(dtype), &size, NULL) < 0)
        goto done;
    if (!has_strides)
        layout_contiguous_strides(ndim, shape, PyDataType_ELSIZE(dtype), 'C', strides);
    if (layout_check(ndim, shape, strides, PyDataType_ELSIZE(dtype), &size, &span) < 0 || cu_require_driver(st) < 0)
        goto done;
    CUstream unused;
    if (stream != Py_None && stream_handle_from_object(st, stream, &unused) < 0)
        goto done;
    if (gpu_data == Py_None) {
        self = devicearray_allocate(st, type, ndim, shape, has_strides ? strides : NULL, 'C', dtype, stream);
    } else {
        /* ours, or numba's MemoryPointer-likes: an EMM plugin's, a view of one (an opened IPC handle) */
        CUdeviceptr pointer;
        size_t memory_size;
        ContextObject *context;
        if (memory_like(st, gpu_data, &pointer, &memory_size, &context) < 0)
            goto done;
        npy_intp low = 0;
        for (int i = 0; i < ndim && span > 0; i++)
            low += strides[i] < 0 ? (shape[i] - 1) * strides[i] : 0;
        if (low < 0 || span > memory_size)
            PyErr_Format(PyExc_ValueError, "the layout reaches %zu bytes%s, beyond gpu_data's %zu", span,
                         low < 0 ? " before its start" : "", memory_size);
        else
            self = devicearray_wrap(st, type, ndim, shape, strides, dtype, pointer, gpu_data, context, stream);
    }
done:
    Py_DECREF(dtype);
    return (PyObject *)self;
}

/* DeviceNDArray(shape, strides, dtype, stream=0, gpu_data=None), as numba's. */
static PyObject *DeviceNDArray_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"shape", "strides", "dtype", "stream", "gpu_data", NULL};
    PyObject *shape_obj, *strides_obj = Py_None, *dtype_obj = Py_None, *stream = Py_None, *gpu_data = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO:DeviceNDArray", keywords, &shape_obj, &strides_obj,
                                     &dtype_obj, &stream, &gpu_data))
        return NULL;
    return devicearray_construct(type, shape_obj, strides_obj, dtype_obj, stream, gpu_data);
}

/* DeviceRecord(dtype, stream=0, gpu_data=None), as numba's: a 0-d array of a structured dtype. */
static PyObject *DeviceRecord_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"dtype", "stream", "gpu_data", NULL};
    PyObject *dtype_obj, *stream = Py_None, *gpu_data = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:DeviceRecord", keywords, &dtype_obj, &stream, &gpu_data))
        return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *record = empty ? devicearray_construct(type, empty, empty, dtype_obj, stream, gpu_data) : NULL;
    Py_XDECREF(empty);
    return record;
}

static int DeviceNDArray_traverse(PyObject *op, visitproc visit, void *arg)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->owner);
    Py_VISIT(self->stream);
    Py_VISIT(self->cai);
    return 0;
}

static int DeviceNDArray_clear(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    Py_CLEAR(self->owner);
    Py_CLEAR(self->stream);
    Py_CLEAR(self->cai);
    return 0;
}

static void DeviceNDArray_dealloc(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    dealloc_begin(op, self->weakreflist);
    DeviceNDArray_clear(op);
    Py_XDECREF(self->dtype);
    Py_XDECREF(self->context);
    if (self->shape != self->inline_dims)
        PyMem_Free(self->shape);
    dealloc_end(op);
}

/* __array__(dtype=None, copy=None): numba's, a copy to the host through copy_to_host (so a
 * replaced copy_to_host is seen); copy=False cannot be honoured. */
static PyObject *DeviceNDArray_array(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", keywords, &dtype, &copy))
        return NULL;
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError, "`copy=False` is not supported. A copy is always created.");
        return NULL;
    }
    PyObject *host = PyObject_CallMethod(op, "copy_to_host", NULL);
    if (host == NULL || dtype == Py_None)
        return host;
    PyArray_Descr *descr = NULL;
    if (!PyArray_DescrConverter(dtype, &descr)) {
        Py_DECREF(host);
        return NULL;
    }
    PyObject *cast = PyArray_FromAny(host, descr, 0, 0, NPY_ARRAY_FORCECAST, NULL); /* steals descr */
    Py_DECREF(host);
    return cast;
}

/* flags: numba's dict of C_CONTIGUOUS and F_CONTIGUOUS (NumPy's relaxed rules). */
static PyObject *DeviceNDArray_get_flags(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    return Py_BuildValue("{sNsN}", "C_CONTIGUOUS", PyBool_FromLong(devicearray_is_c_contiguous(self)),
                         "F_CONTIGUOUS", PyBool_FromLong(devicearray_is_f_contiguous(self)));
}

static PyObject *DeviceNDArray_get_true(PyObject *Py_UNUSED(op), void *Py_UNUSED(closure))
{
    Py_RETURN_TRUE;
}

/* _numba_type_: the array's type for signatures (numba's magic attribute); made in Python. */
static PyObject *DeviceNDArray_get_numba_type(PyObject *op, void *Py_UNUSED(closure))
{
    return python_call1(state_of(op), HELPER_NUMBA_TYPE_OF, op);
}

/* get_ipc_handle(): Python glue (cudadrv/ipc.py) over _ipc_get_handle. */
static PyObject *DeviceNDArray_get_ipc_handle(PyObject *op, PyObject *Py_UNUSED(unused))
{
    if (context_check_alive(state_of(op), ((DeviceArrayObject *)op)->context) < 0)
        return NULL; /* its memory went with its context: a new one may hold another allocation there */
    return python_call1(state_of(op), HELPER_ARRAY_IPC_HANDLE, op);
}

static PyObject *DeviceNDArray_is_c_contiguous(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return PyBool_FromLong(devicearray_is_c_contiguous((DeviceArrayObject *)op));
}

static PyObject *DeviceNDArray_is_f_contiguous(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return PyBool_FromLong(devicearray_is_f_contiguous((DeviceArrayObject *)op));
}

/* Attributes */

static PyObject *dims_tuple(const npy_intp *dims, int n)
{
    PyObject *tuple = PyTuple_New(n);
    for (int i = 0; tuple != NULL && i < n; i++) {
        PyObject *item = PyLong_FromSsize_t(dims[i]);
        if (item == NULL)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

static PyObject *DeviceNDArray_get_shape(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    return dims_tuple(self->shape, self->ndim);
}

static PyObject *DeviceNDArray_get_strides(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    return dims_tuple(self->strides, self->ndim);
}

static PyObject *DeviceNDArray_get_size(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(((DeviceArrayObject *)op)->size);
}

static PyObject *DeviceNDArray_get_ndim(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(((DeviceArrayObject *)op)->ndim);
}

static PyObject *DeviceNDArray_get_nbytes(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    return PyLong_FromSsize_t(self->size * PyDataType_ELSIZE(self->dtype));
}

static PyObject *DeviceNDArray_get_alloc_size(PyObject *op, void *Py_UNUSED(closure))
{
    npy_intp low;
    return PyLong_FromSize_t(devicearray_span((DeviceArrayObject *)op, &low));
}

static PyObject *DeviceNDArray_get_stream(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    return self->stream ? Py_NewRef(self->stream) : PyLong_FromLong(0);
}

/* numba's gpu_data: the MemoryPointer of the bytes the array spans. An array over a whole allocation
 * of ours gives that allocation; a view or a foreign array gives a pointer to its own bytes that
 * keeps the owner alive (cudadrv/memory_functions.py), as numba's views do. */
static PyObject *DeviceNDArray_get_gpu_data(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->owner == NULL)
        Py_RETURN_NONE;
    if (Py_IS_TYPE(self->owner, state_of(op)->MemoryPointerType)) {
        MemoryObject *memory = (MemoryObject *)self->owner;
        size_t span = (size_t)self->size * (size_t)PyDataType_ELSIZE(self->dtype);
        if (memory->device_pointer == self->data && memory->size == span &&
            (devicearray_is_c_contiguous(self) || devicearray_is_f_contiguous(self)))
            return Py_NewRef(self->owner);
    }
    return python_call(state_of(op), HELPER_ARRAY_GPU_DATA, PyTuple_Pack(2, op, self->owner));
}

static PyObject *DeviceNDArray_get_pointer(PyObject *op, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLongLong(((DeviceArrayObject *)op)->data);
}

/* numba gives a ctypes.c_void_p (None for an empty array). */
static PyObject *DeviceNDArray_get_device_ctypes_pointer(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *ctypes = PyImport_ImportModule("ctypes");
    if (ctypes == NULL)
        return NULL;
    PyObject *pointer = PyObject_CallMethod(ctypes, "c_void_p", "K", (unsigned long long)self->data);
    Py_DECREF(ctypes);
    return pointer;
}

static PyObject *build_cai(DeviceArrayObject *self)
{
    PyObject *stream = NULL, *strides = NULL, *typestr = NULL, *shape = NULL, *data = NULL, *cai = NULL;
    CUstream handle;
    if (self->stream == NULL)
        stream = Py_NewRef(Py_None);
    else if (stream_handle_from_object(state_of((PyObject *)self), self->stream, &handle) == 0) /* any stream */
        stream = PyLong_FromVoidPtr(handle);
    strides = devicearray_is_c_contiguous(self) ? Py_NewRef(Py_None) : dims_tuple(self->strides, self->ndim);
    typestr = PyObject_GetAttrString((PyObject *)self->dtype, "str");
    shape = dims_tuple(self->shape, self->ndim);
    data = Py_BuildValue("(KO)", (unsigned long long)self->data, Py_False);
    if (stream && strides && typestr && shape && data)
        cai = Py_BuildValue("{sOsOsOsOsOsi}", "shape", shape, "strides", strides, "data", data, "typestr", typestr,
                            "stream", stream, "version", 3);
    if (cai != NULL && PyDataType_HASFIELDS(self->dtype)) {
        PyObject *descr = PyObject_GetAttrString((PyObject *)self->dtype, "descr");
        if (descr == NULL || PyDict_SetItemString(cai, "descr", descr) < 0)
            Py_CLEAR(cai);
        Py_XDECREF(descr);
    }
    Py_XDECREF(stream);
    Py_XDECREF(strides);
    Py_XDECREF(typestr);
    Py_XDECREF(shape);
    Py_XDECREF(data);
    return cai;
}

/* Consumers may change the dict they get: each gets a copy of the one built at first use. */
static PyObject *DeviceNDArray_get_cai(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->cai == NULL && (self->cai = build_cai(self)) == NULL)
        return NULL;
    return PyDict_Copy(self->cai);
}

static PyObject *DeviceNDArray_repr(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *shape = DeviceNDArray_get_shape(op, NULL);
    char address[24]; /* PyUnicode_FromFormat has no %llx before Python 3.12 */
    snprintf(address, sizeof address, "0x%llx", (unsigned long long)self->data);
    /* what a notebook or REPL user looks for, read from the object: never a copy from the device */
    const char *layout = devicearray_is_c_contiguous(self)   ? "C-contiguous"
                         : devicearray_is_f_contiguous(self) ? "F-contiguous"
                                                             : "strided";
    PyObject *text = shape ? PyUnicode_FromFormat("<%s shape=%R dtype=%R %s, %zd bytes on device %d at %s>",
                                                  Py_TYPE(op)->tp_name, shape, (PyObject *)self->dtype, layout,
                                                  (Py_ssize_t)(self->size * PyDataType_ELSIZE(self->dtype)),
                                                  self->context ? self->context->device->id : -1, address)
                           : NULL;
    Py_XDECREF(shape);
    return text;
}

static PyMethodDef DeviceNDArray_methods[] = {
    REPR_HTML_METHOD,
    {"__reduce__", devicearray_reduce, METH_NOARGS,
     "Pickled through the host (its bytes and layout); unpickled in the current context."},
    {"__dlpack__", (PyCFunction)(void (*)(void))devicearray_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): a DLPack capsule of this array, "
     "for CuPy, PyTorch, JAX (the array API standard's exchange)."},
    {"__dlpack_device__", devicearray_dlpack_device, METH_NOARGS, "(2, device id): CUDA, as DLPack numbers it."},
    {"copy_to_host", (PyCFunction)(void (*)(void))devicearray_copy_to_host, METH_VARARGS | METH_KEYWORDS,
     "copy_to_host(ary=None, stream=0): copy to a new (or the given) host array and return it."},
    {"copy_to_device", (PyCFunction)(void (*)(void))devicearray_copy_to_device, METH_VARARGS | METH_KEYWORDS,
     "copy_to_device(ary, stream=0): copy from a host or device array of the same shape."},
    {"is_c_contiguous", DeviceNDArray_is_c_contiguous, METH_NOARGS, "True if the array is C-contiguous."},
    {"get_ipc_handle", DeviceNDArray_get_ipc_handle, METH_NOARGS,
     "An IpcArrayHandle: pickle it to another process, which opens it as this array."},
    {"is_f_contiguous", DeviceNDArray_is_f_contiguous, METH_NOARGS, "True if the array is Fortran-contiguous."},
    {"reshape", (PyCFunction)(void (*)(void))DeviceNDArray_reshape, METH_VARARGS | METH_KEYWORDS,
     "reshape(*newshape, order='C'): a view with another shape (contiguous arrays only)."},
    {"ravel", (PyCFunction)(void (*)(void))DeviceNDArray_ravel, METH_VARARGS | METH_KEYWORDS,
     "ravel(order='C', stream=0): a flat view (contiguous arrays only; order 'C', 'F' or 'A')."},
    {"__array__", (PyCFunction)(void (*)(void))DeviceNDArray_array, METH_VARARGS | METH_KEYWORDS,
     "__array__(dtype=None, copy=None): a copy on the host (np.asarray(d))."},
    {"transpose", DeviceNDArray_transpose, METH_VARARGS, "transpose(axes=None): a view with axes permuted."},
    {"view", DeviceNDArray_view, METH_O, "view(dtype): the same memory as another dtype."},
    {"bind", (PyCFunction)(void (*)(void))DeviceNDArray_bind, METH_VARARGS | METH_KEYWORDS,
     "bind(stream=0): a view whose default stream is `stream`."},
    {"getitem", (PyCFunction)(void (*)(void))DeviceNDArray_getitem, METH_VARARGS | METH_KEYWORDS,
     "getitem(item, stream=0): self[item], copying on `stream`."},
    {"setitem", (PyCFunction)(void (*)(void))DeviceNDArray_setitem, METH_VARARGS | METH_KEYWORDS,
     "setitem(key, value, stream=0): self[key] = value, on `stream` (no synchronization when given)."},
    {"split", (PyCFunction)(void (*)(void))DeviceNDArray_split, METH_VARARGS | METH_KEYWORDS,
     "split(section, stream=0): 1-d views of `section` elements each."},
    {0},
};

static PyGetSetDef DeviceNDArray_getset[] = {
    {"shape", DeviceNDArray_get_shape, NULL, "The array's dimensions, a tuple of ints (as NumPy's).", NULL},
    {"strides", DeviceNDArray_get_strides, NULL,
     "The bytes from one element to the next along each dimension, a tuple of ints.", NULL},
    {"size", DeviceNDArray_get_size, NULL, "The number of elements.", NULL},
    {"ndim", DeviceNDArray_get_ndim, NULL, "The number of dimensions.", NULL},
    {"nbytes", DeviceNDArray_get_nbytes, NULL,
     "size * itemsize: the bytes of the elements (gaps of a strided view excluded).", NULL},
    {"alloc_size", DeviceNDArray_get_alloc_size, NULL, "The bytes the array spans in device memory.", NULL},
    {"stream", DeviceNDArray_get_stream, NULL, "The bound stream, or 0.", NULL},
    {"gpu_data", DeviceNDArray_get_gpu_data, NULL, "The owner of the memory (a MemoryPointer).", NULL},
    {"device_pointer", DeviceNDArray_get_pointer, NULL, "The device address of the first element.", NULL},
    {"device_ctypes_pointer", DeviceNDArray_get_device_ctypes_pointer, NULL, "As a ctypes.c_void_p.", NULL},
    {"__cuda_array_interface__", DeviceNDArray_get_cai, NULL, "Version 3 of the CUDA array interface.", NULL},
    {"T", DeviceNDArray_get_T, NULL, "The transposed view.", NULL},
    {"flags", DeviceNDArray_get_flags, NULL, "{'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}, as numba's.", NULL},
    {"__cuda_memory__", DeviceNDArray_get_true, NULL, "Marks device memory (numba's is_device_memory).", NULL},
    {"__cuda_ndarray__", DeviceNDArray_get_true, NULL, "Marks a device array (numba's is_cuda_ndarray).", NULL},
    {"_numba_type_", DeviceNDArray_get_numba_type, NULL, "The array's type: Array(dtype, ndim, layout).", NULL},
    {0},
};

static PyMemberDef DeviceNDArray_members[] = {
    {"dtype", T_OBJECT, offsetof(DeviceArrayObject, dtype), READONLY, "The NumPy dtype of the elements."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(DeviceArrayObject, weakreflist), READONLY, NULL},
    {0},
};

static PyType_Slot DeviceNDArray_slots[] = {
    {Py_tp_doc, "An array in device memory. Create with cuda.device_array(), cuda.to_device(), ..."},
    {Py_tp_new, DeviceNDArray_new},
    {Py_tp_repr, DeviceNDArray_repr},
    {Py_tp_methods, DeviceNDArray_methods},
    {Py_tp_getset, DeviceNDArray_getset},
    {Py_tp_members, DeviceNDArray_members},
    {Py_tp_traverse, DeviceNDArray_traverse},
    {Py_tp_clear, DeviceNDArray_clear},
    {Py_tp_dealloc, DeviceNDArray_dealloc},
    {Py_mp_subscript, DeviceNDArray_subscript},
    {Py_mp_ass_subscript, devicearray_setitem},
    {Py_mp_length, DeviceNDArray_length},
    {Py_tp_iter, DeviceNDArray_iter},
    {0, NULL},
};

static PyType_Spec DeviceNDArray_spec = {
    .name = "numba_cuda_c.DeviceNDArray",
    .basicsize = sizeof(DeviceArrayObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .slots = DeviceNDArray_slots,
};

static PyType_Slot DeviceRecord_slots[] = {
    {Py_tp_doc, "A record (structured scalar) in device memory: a 0-d DeviceNDArray of a structured dtype."},
    {Py_tp_new, DeviceRecord_new},
    {0, NULL},
};

static PyType_Spec DeviceRecord_spec = {
    .name = "numba_cuda_c.DeviceRecord",
    .basicsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, /* GC support is inherited */
    .slots = DeviceRecord_slots,
};

int devicearray_type_init(PyObject *module, module_state *st)
{
    if (type_create(module, &DeviceNDArray_spec, NULL, &st->DeviceNDArrayType, 1) < 0)
        return -1;
    return type_create(module, &DeviceRecord_spec, st->DeviceNDArrayType, &st->DeviceRecordType, 1);
}
