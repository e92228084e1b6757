/* dlpack.c: DLPack both ways, as the Python array API standard specifies it.
 *
 * Export: DeviceNDArray.__dlpack__ hands a consumer (CuPy, PyTorch, JAX, NumPy's from_dlpack for
 * host data) a capsule holding a DLManagedTensorVersioned (or the legacy DLManagedTensor when the
 * consumer asks for no version) that keeps the array alive until the consumer calls its deleter;
 * the consumer's stream is made to wait for the array's stream with an event, never a full sync.
 *
 * Import: from_dlpack(obj) views a producer's CUDA memory as a DeviceNDArray without a copy. The
 * DLPackTensor type owns the consumed tensor and calls its deleter exactly once, when the last
 * array viewing it dies. The memory is checked as __cuda_array_interface__ data is (foreign.c). */
#include "arrays/dlpack.h"
#include "arrays/layout.h"

#include "arrays/devicearray.h"
#include "driver/errors.h"
#include "core/foreign.h"
#include "core/stream.h"

#include <stdlib.h>
#include <string.h>

/* Export */

/* One malloc'd block per export: the managed tensor the consumer holds (one of the two forms), the
 * array it keeps alive, and its shape and strides in elements. Freed by the deleter, from any thread. */
typedef struct {
    DLManagedTensorVersioned versioned;
    DLManagedTensor legacy;
    PyObject *array;
    int64_t dims[]; /* ndim sizes, then ndim strides */
} export_block;

static void export_release(export_block *block)
{
    if (Py_IsInitialized()) { /* at exit the interpreter has released everything already */
        PyGILState_STATE gil = PyGILState_Ensure();
        Py_XDECREF(block->array);
        PyGILState_Release(gil);
    }
    free(block);
}

static void versioned_deleter(DLManagedTensorVersioned *tensor)
{
    export_release(tensor->manager_ctx);
}

static void legacy_deleter(DLManagedTensor *tensor)
{
    export_release(tensor->manager_ctx);
}

/* A capsule no consumer took (its name unchanged) releases its tensor itself. */
static void capsule_destructor(PyObject *capsule)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    const char *name = PyCapsule_GetName(capsule);
    if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
        DLManagedTensorVersioned *tensor = PyCapsule_GetPointer(capsule, name);
        if (tensor != NULL && tensor->deleter != NULL)
            tensor->deleter(tensor);
    } else if (name != NULL && strcmp(name, "dltensor") == 0) {
        DLManagedTensor *tensor = PyCapsule_GetPointer(capsule, name);
        if (tensor != NULL && tensor->deleter != NULL)
            tensor->deleter(tensor);
    }
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
}

/* The DLPack type of a NumPy dtype: numbers and booleans in the machine's byte order. */
static int dl_dtype_of(PyArray_Descr *dtype, DLDataType *out)
{
    if (!PyArray_ISNBO(dtype->byteorder) || PyDataType_HASFIELDS(dtype) || PyDataType_HASSUBARRAY(dtype))
        return -1;
    switch (dtype->kind) {
    case 'b':
        out->code = DLPACK_BOOL;
        break;
    case 'i':
        out->code = DLPACK_INT;
        break;
    case 'u':
        out->code = DLPACK_UINT;
        break;
    case 'f':
        out->code = DLPACK_FLOAT;
        break;
    case 'c':
        out->code = DLPACK_COMPLEX;
        break;
    default:
        return -1;
    }
    out->bits = (uint8_t)(PyDataType_ELSIZE(dtype) * 8);
    out->lanes = 1;
    return 0;
}

/* Makes `consumer` wait for the work queued on `producer` so far (the context current), through an
 * event made for that and destroyed after. */
static int order_streams(module_state *st, CUstream producer, CUstream consumer)
{
    CUevent event = NULL;
    int failed = CU_CALL(st, cuEventCreate, (&event, CU_EVENT_DISABLE_TIMING)) < 0 ||
                 CU_CALL(st, cuEventRecord, (event, producer)) < 0 ||
                 CU_CALL(st, cuStreamWaitEvent, (consumer, event, 0)) < 0;
    if (event != NULL && CU_CALL(st, cuEventDestroy, (event)) < 0)
        failed = 1;
    return failed ? -1 : 0;
}

/* Makes the consumer's stream wait for the array's (the spec's `stream` argument: None or 1 the
 * legacy default stream, 2 the per-thread default stream, -1 no synchronization, else a CUstream). */
static int order_consumer_stream(module_state *st, DeviceArrayObject *self, PyObject *stream_arg)
{
    uintptr_t consumer = 1;
    if (stream_arg != Py_None) {
        if (!PyLong_Check(stream_arg)) {
            PyErr_Format(PyExc_TypeError, "__dlpack__: stream must be an int or None, not %.100s",
                         Py_TYPE(stream_arg)->tp_name);
            return -1;
        }
        long long value = PyLong_AsLongLong(stream_arg);
        if (value == -1 && PyErr_Occurred())
            return -1;
        if (value == -1)
            return 0;
        if (value == 0 || value < -1) {
            PyErr_Format(
                PyExc_ValueError,
                "__dlpack__: stream %lld is not a CUDA stream (None or 1: the legacy default stream, 2: the "
                "per-thread default stream, -1: no synchronization, or a CUstream handle)",
                value);
            return -1;
        }
        consumer = (uintptr_t)value;
    }
    CUstream producer = NULL; /* the array's work is on its stream, or the legacy default stream */
    if (self->stream != NULL && stream_handle_from_object(st, self->stream, &producer) < 0)
        return -1;
    if ((uintptr_t)producer == consumer || (producer == NULL && consumer == 1))
        return 0;
    return IN_CONTEXT(st, self->context, order_streams(st, producer, (CUstream)consumer) < 0);
}

/* A device copy of the array (copy=True). New reference. */
static PyObject *export_copy(module_state *st, DeviceArrayObject *self)
{
    DeviceArrayObject *copy = devicearray_allocate(st, st->DeviceNDArrayType, self->ndim, self->shape, NULL, 'C',
                                                   self->dtype, self->stream);
    if (copy == NULL)
        return NULL;
    PyObject *done = PyObject_CallMethod((PyObject *)copy, "copy_to_device", "O", (PyObject *)self);
    if (done == NULL) {
        Py_DECREF(copy);
        return NULL;
    }
    Py_DECREF(done);
    return (PyObject *)copy;
}

PyObject *devicearray_dlpack(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"stream", "max_version", "dl_device", "copy", NULL};
    module_state *st = state_of(op);
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", keywords, &stream, &max_version, &dl_device,
                                     &copy))
        return NULL;
    int versioned = 0, device_id = self->context->device->id;
    if (max_version != Py_None) {
        long major = PyTuple_Check(max_version) && PyTuple_GET_SIZE(max_version) == 2
                         ? PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0))
                         : -2;
        if (major == -2 || (major == -1 && PyErr_Occurred())) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "__dlpack__: max_version must be a (major, minor) tuple");
            return NULL;
        }
        versioned = major >= 1;
    }
    if (dl_device != Py_None) {
        int type, id;
        if (!PyArg_ParseTuple(dl_device, "ii;__dlpack__: dl_device must be a (device_type, device_id) tuple", &type,
                              &id))
            return NULL;
        if (type != DLPACK_CUDA || id != device_id) {
            PyErr_Format(
                PyExc_BufferError,
                "__dlpack__: the array is on CUDA device %d (DLPack device (2, %d)); it cannot be exported "
                "to device (%d, %d)",
                device_id, device_id, type, id);
            return NULL;
        }
    }
    DLDataType dl_dtype;
    if (dl_dtype_of(self->dtype, &dl_dtype) < 0) {
        PyErr_Format(PyExc_BufferError, "__dlpack__: DLPack has no type for dtype %R", (PyObject *)self->dtype);
        return NULL;
    }
    npy_intp itemsize = PyDataType_ELSIZE(self->dtype);
    for (int i = 0; i < self->ndim; i++)
        if (self->strides[i] % itemsize != 0) {
            PyErr_Format(PyExc_BufferError,
                         "__dlpack__: stride %zd of axis %d is not a multiple of the item size %zd (DLPack counts "
                         "strides in elements)",
                         (Py_ssize_t)self->strides[i], i, (Py_ssize_t)itemsize);
            return NULL;
        }
    int copied = copy == Py_True;
    PyObject *array = copied ? export_copy(st, self) : Py_NewRef(op);
    if (array == NULL)
        return NULL;
    DeviceArrayObject *exported = (DeviceArrayObject *)array;
    if (order_consumer_stream(st, exported, stream) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    export_block *block = calloc(1, sizeof *block + 2 * (size_t)exported->ndim * sizeof(int64_t));
    if (block == NULL) {
        Py_DECREF(array);
        return PyErr_NoMemory();
    }
    block->array = array;
    DLTensor *tensor = versioned ? &block->versioned.dl_tensor : &block->legacy.dl_tensor;
    tensor->data = (void *)(uintptr_t)exported->data;
    tensor->device.device_type = DLPACK_CUDA;
    tensor->device.device_id = device_id;
    tensor->ndim = exported->ndim;
    tensor->dtype = dl_dtype;
    tensor->shape = block->dims;
    tensor->strides = block->dims + exported->ndim;
    for (int i = 0; i < exported->ndim; i++) {
        block->dims[i] = exported->shape[i];
        block->dims[exported->ndim + i] = exported->strides[i] / itemsize;
    }
    void *managed;
    if (versioned) {
        block->versioned.version.major = 1;
        block->versioned.version.minor = 1;
        block->versioned.manager_ctx = block;
        block->versioned.deleter = versioned_deleter;
        block->versioned.flags = copied ? DLPACK_FLAG_IS_COPIED : 0;
        managed = &block->versioned;
    } else {
        block->legacy.manager_ctx = block;
        block->legacy.deleter = legacy_deleter;
        managed = &block->legacy;
    }
    PyObject *capsule = PyCapsule_New(managed, versioned ? "dltensor_versioned" : "dltensor", capsule_destructor);
    if (capsule == NULL)
        export_release(block);
    return capsule;
}

PyObject *devicearray_dlpack_device(PyObject *op, PyObject *Py_UNUSED(unused))
{
    return Py_BuildValue("(ii)", DLPACK_CUDA, ((DeviceArrayObject *)op)->context->device->id);
}

/* Import: DLPackTensor, the owner of a consumed tensor */

typedef struct {
    PyObject_HEAD
    void *managed; /* DLManagedTensorVersioned or DLManagedTensor */
    int versioned;
} DLPackTensorObject;

static void DLPackTensor_dealloc(PyObject *op)
{
    DLPackTensorObject *self = (DLPackTensorObject *)op;
    if (self->managed != NULL) { /* the producer's deleter, exactly once */
        if (self->versioned) {
            DLManagedTensorVersioned *tensor = self->managed;
            if (tensor->deleter != NULL)
                tensor->deleter(tensor);
        } else {
            DLManagedTensor *tensor = self->managed;
            if (tensor->deleter != NULL)
                tensor->deleter(tensor);
        }
    }
    dealloc_end(op);
}

static PyType_Slot DLPackTensor_slots[] = {
    {Py_tp_doc,
     "A DLPack tensor from_dlpack consumed: its producer's deleter runs when the arrays viewing it die."},
    {Py_tp_dealloc, DLPackTensor_dealloc},
    {0, NULL},
};

static PyType_Spec DLPackTensor_spec = {
    .name = "numba_cuda_c.DLPackTensor",
    .basicsize = sizeof(DLPackTensorObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = DLPackTensor_slots,
};

int dlpack_type_init(PyObject *module, module_state *st)
{
    return type_create(module, &DLPackTensor_spec, NULL, &st->DLPackTensorType, 0);
}

/* The NumPy dtype of a DLPack type (new reference), or NULL with TypeError. */
static PyArray_Descr *numpy_dtype_of(DLDataType dl)
{
    int type = -1;
    if (dl.lanes == 1) {
        switch (dl.code) {
        case DLPACK_BOOL:
            type = dl.bits == 8 ? NPY_BOOL : -1;
            break;
        case DLPACK_INT:
            type = dl.bits == 8    ? NPY_INT8
                   : dl.bits == 16 ? NPY_INT16
                   : dl.bits == 32 ? NPY_INT32
                   : dl.bits == 64 ? NPY_INT64
                                   : -1;
            break;
        case DLPACK_UINT:
            type = dl.bits == 8    ? NPY_UINT8
                   : dl.bits == 16 ? NPY_UINT16
                   : dl.bits == 32 ? NPY_UINT32
                   : dl.bits == 64 ? NPY_UINT64
                                   : -1;
            break;
        case DLPACK_FLOAT:
            type = dl.bits == 16 ? NPY_FLOAT16 : dl.bits == 32 ? NPY_FLOAT32 : dl.bits == 64 ? NPY_FLOAT64 : -1;
            break;
        case DLPACK_COMPLEX:
            type = dl.bits == 64 ? NPY_COMPLEX64 : dl.bits == 128 ? NPY_COMPLEX128 : -1;
            break;
        }
    }
    if (type < 0) {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack: DLPack type (code %d, %d bits, %d lanes) has no NumPy dtype here", dl.code,
                     dl.bits, dl.lanes);
        return NULL;
    }
    return PyArray_DescrFromType(type);
}

/* obj's capsule: obj itself, or what obj.__dlpack__ gives for our default stream (versioned first). */
static PyObject *producer_capsule(PyObject *obj)
{
    if (PyCapsule_CheckExact(obj))
        return Py_NewRef(obj);
    PyObject *device = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (device == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "from_dlpack: a %.100s is not a DLPack producer (no __dlpack_device__)",
                         Py_TYPE(obj)->tp_name);
        }
        return NULL;
    }
    int type = 0, id = 0;
    int parsed = PyArg_ParseTuple(device, "ii;__dlpack_device__ must return (device_type, device_id)", &type, &id);
    Py_DECREF(device);
    if (!parsed)
        return NULL;
    if (type != DLPACK_CUDA && type != DLPACK_CUDA_MANAGED) {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack: the %.100s is not in CUDA device memory (DLPack device type %d); copy it with "
                     "cuda.to_device",
                     Py_TYPE(obj)->tp_name, type);
        return NULL;
    }
    PyObject *call_args = PyTuple_New(0);
    PyObject *kwargs = call_args ? Py_BuildValue("{s:i,s:(ii)}", "stream", 1, "max_version", 1, 1) : NULL;
    PyObject *method = kwargs ? PyObject_GetAttrString(obj, "__dlpack__") : NULL;
    PyObject *capsule = method ? PyObject_Call(method, call_args, kwargs) : NULL;
    if (capsule == NULL && method != NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear(); /* a producer older than DLPack 1.0: no max_version */
        PyDict_DelItemString(kwargs, "max_version");
        capsule = PyObject_Call(method, call_args, kwargs);
    }
    Py_XDECREF(method);
    Py_XDECREF(kwargs);
    Py_XDECREF(call_args);
    return capsule;
}

PyObject *dlpack_import(module_state *st, PyObject *obj)
{
    if (numpy_require() < 0)
        return NULL;
    PyObject *capsule = producer_capsule(obj);
    if (capsule == NULL)
        return NULL;
    const char *name = PyCapsule_GetName(capsule);
    int versioned = name != NULL && strcmp(name, "dltensor_versioned") == 0;
    if (!versioned && (name == NULL || strcmp(name, "dltensor") != 0)) {
        PyErr_Format(PyExc_ValueError,
                     "from_dlpack: the capsule (named %s) holds no DLPack tensor not yet consumed",
                     name ? name : "NULL");
        Py_DECREF(capsule);
        return NULL;
    }
    void *managed = PyCapsule_GetPointer(capsule, name);
    if (managed == NULL) {
        Py_DECREF(capsule);
        return NULL;
    }
    if (versioned && ((DLManagedTensorVersioned *)managed)->version.major != 1) {
        PyErr_Format(PyExc_BufferError, "from_dlpack: DLPack version %u.%u is not supported (1.x is)",
                     ((DLManagedTensorVersioned *)managed)->version.major,
                     ((DLManagedTensorVersioned *)managed)->version.minor);
        Py_DECREF(capsule);
        return NULL;
    }
    DLTensor *tensor =
        versioned ? &((DLManagedTensorVersioned *)managed)->dl_tensor : &((DLManagedTensor *)managed)->dl_tensor;
    PyObject *result = NULL;
    PyArray_Descr *dtype = NULL;
    ContextObject *context = NULL;
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], low = 0;
    size_t span = 0;
    if (tensor->device.device_type != DLPACK_CUDA && tensor->device.device_type != DLPACK_CUDA_MANAGED) {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack: the tensor is not in CUDA device memory (DLPack device type %d)",
                     tensor->device.device_type);
        goto done;
    }
    if (tensor->ndim < 0 || tensor->ndim > NPY_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "from_dlpack: %d dimensions (at most %d)", tensor->ndim, NPY_MAXDIMS);
        goto done;
    }
    if ((dtype = numpy_dtype_of(tensor->dtype)) == NULL)
        goto done;
    npy_intp itemsize = PyDataType_ELSIZE(dtype), contiguous = itemsize;
    for (int i = tensor->ndim - 1; i >= 0; i--) {
        shape[i] = (npy_intp)tensor->shape[i];
        if (shape[i] < 0) {
            PyErr_Format(PyExc_ValueError, "from_dlpack: negative dimension %lld", (long long)tensor->shape[i]);
            goto done;
        }
        strides[i] = tensor->strides != NULL ? (npy_intp)tensor->strides[i] * itemsize : contiguous;
        contiguous *= shape[i] ? shape[i] : 1;
    }
    if (layout_extent(tensor->ndim, shape, strides, itemsize, &low, &span) < 0 ||
        (context = context_current(st)) == NULL)
        goto done;
    if (tensor->device.device_type == DLPACK_CUDA && tensor->device.device_id != context->device->id) {
        PyErr_Format(
            PyExc_ValueError,
            "from_dlpack: the tensor is on CUDA device %d, and device %d is current; select its device first "
            "(cuda.select_device(%d), or with cuda.gpus[%d]:)",
            tensor->device.device_id, context->device->id, tensor->device.device_id, tensor->device.device_id);
        goto done;
    }
    CUdeviceptr data = (CUdeviceptr)(uintptr_t)tensor->data + (CUdeviceptr)tensor->byte_offset;
    if (foreign_check_extent(st, data, low, span, "DLPack tensor") < 0)
        goto done;
    DLPackTensorObject *owner = PyObject_New(DLPackTensorObject, st->DLPackTensorType);
    if (owner == NULL)
        goto done;
    owner->managed = managed;
    owner->versioned = versioned;
    /* consumed: from now on the owner, not the capsule, calls the deleter */
    if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0) {
        owner->managed = NULL;
        Py_DECREF(owner);
        goto done;
    }
    result = (PyObject *)devicearray_wrap(st, st->DeviceNDArrayType, tensor->ndim, shape, strides, dtype, data,
                                          (PyObject *)owner, context, NULL);
    Py_DECREF(owner);
done:
    Py_XDECREF(dtype);
    Py_DECREF(capsule);
    return result;
}

static PyObject *module_from_dlpack(PyObject *module, PyObject *obj)
{
    return dlpack_import(state_of_module(module), obj);
}

PyMethodDef dlpack_module_methods[] = {
    {"from_dlpack", module_from_dlpack, METH_O,
     "from_dlpack(obj): a DeviceNDArray view of a DLPack producer's CUDA memory (CuPy, PyTorch, JAX), without a "
     "copy; the producer's memory is released when the last view dies."},
    {0},
};
