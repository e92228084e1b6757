/* launch_arguments.c: a launch's arguments converted by kind and packed at the offsets
 * cuFuncGetParamInfo gave, each checked against its parameter's size (launch_arguments.h).
 *
 * No Python object is made on the device-array and scalar paths. The other arrays are arrays/transfer.c's
 * (transfer_launch_argument): NumPy arrays are copied to the device before the launch and back after it,
 * on the launch's stream, as numba does; CUDA-array-interface objects pass their pointer, checked against
 * their allocation, or a view. */
#include "launch/launch_arguments.h"

#include "arrays/transfer.h"
#include "core/memory.h"
#include "driver/numpy_api.h"

static int wrong_size(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t size, const char *what)
{
    PyErr_Format(PyExc_TypeError, "argument %zd of %S (%.100s) does not fit its %zu-byte parameter: %s", index,
                 kernel->name, Py_TYPE(arg)->tp_name, size, what);
    return -1;
}

static int pack_pointer(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t *size, unsigned char *dest,
                        CUdeviceptr pointer)
{
    if (*size == 0)
        *size = sizeof pointer;
    if (*size != sizeof pointer)
        return wrong_size(kernel, index, arg, *size, "arrays pass an 8-byte pointer");
    memcpy(dest, &pointer, sizeof pointer);
    return 0;
}

/* An array parameter is either a pointer (CUDA C kernels: 8 bytes) or, for @cuda.jit kernels, the
 * struct {data, shape[ndim], strides[ndim]} the translator declares (8 + 16 ndim bytes). */
static int pack_array(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t *size, unsigned char *dest,
                      DeviceArrayObject *array)
{
    size_t struct_size = 8 + 16 * (size_t)array->ndim;
    if (array->context->handle == NULL) /* its memory went with its context (cuda.close(), reset) */
        return context_check_alive(state_of((PyObject *)kernel), array->context);
    if (*size == 0 || *size == 8)
        return pack_pointer(kernel, index, arg, size, dest, array->data);
    if (*size != struct_size)
        return wrong_size(kernel, index, arg, *size,
                          "an array passes an 8-byte pointer, or its data, shape and "
                          "strides (a different number of dimensions?)");
    memcpy(dest, &array->data, 8);
    for (int d = 0; d < array->ndim; d++) {
        long long extent = array->shape[d], stride = array->strides[d];
        memcpy(dest + 8 + 8 * d, &extent, 8);
        memcpy(dest + 8 + 8 * (array->ndim + d), &stride, 8);
    }
    return 0;
}

static int pack_int(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t *size, unsigned char *dest)
{
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (*size == 0)
        *size = 8;                    /* numba types a Python int as int64 */
    if (overflow > 0 && *size == 8) { /* above INT64_MAX: fits a uint64 parameter */
        unsigned long long unsigned_value = PyLong_AsUnsignedLongLong(arg);
        if (unsigned_value == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        memcpy(dest, &unsigned_value, 8);
        return 0;
    }
    if (overflow != 0 || (*size != 1 && *size != 2 && *size != 4 && *size != 8))
        return wrong_size(kernel, index, arg, *size, "the int is out of range, or the parameter is not an integer");
    if (*size < 8) {
        long long low = -(1LL << (8 * *size - 1)), high = (1LL << (8 * *size)) - 1;
        if (value < low || value > high)
            return wrong_size(kernel, index, arg, *size, "the int is out of the parameter's range");
    }
    memcpy(dest, &value, *size); /* little-endian: the low bytes */
    return 0;
}

static int pack_float(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t *size, unsigned char *dest)
{
    double value = PyFloat_AsDouble(arg);
    if (value == -1.0 && PyErr_Occurred())
        return -1;
    if (*size == 0)
        *size = 8;
    if (*size == 8) {
        memcpy(dest, &value, 8);
    } else if (*size == 4) {
        float single = (float)value;
        memcpy(dest, &single, 4);
    } else {
        return wrong_size(kernel, index, arg, *size, "a float packs as a 4-byte float or an 8-byte double");
    }
    return 0;
}

static int pack_complex(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t *size, unsigned char *dest)
{
    Py_complex value = PyComplex_AsCComplex(arg);
    if (value.real == -1.0 && PyErr_Occurred())
        return -1;
    if (*size == 0)
        *size = 16;
    if (*size == 16) {
        memcpy(dest, &value.real, 8);
        memcpy(dest + 8, &value.imag, 8);
    } else if (*size == 8) {
        float parts[2] = {(float)value.real, (float)value.imag};
        memcpy(dest, parts, 8);
    } else {
        return wrong_size(kernel, index, arg, *size, "a complex packs as complex64 or complex128");
    }
    return 0;
}

/* A tuple of numbers, as the C struct the Python-kernel translator declares for it: each item at
 * its natural size (bool 1 byte, int and float 8, complex 16, NumPy scalars their dtype's) and
 * alignment (a complex number's part's), the whole padded to its largest alignment. Only where
 * the driver reports the parameter's size, which the layout must match. */
static int pack_tuple(KernelObject *kernel, Py_ssize_t index, PyObject *arg, size_t *size, unsigned char *dest)
{
    size_t offset = 0, widest = 1;
    if (*size == 0)
        return wrong_size(kernel, index, arg, 0, "tuple arguments need a driver that reports parameter sizes");
    memset(dest, 0, *size); /* NumPy's API was imported when the tuple was converted */
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(arg); k++) {
        PyObject *item = PyTuple_GET_ITEM(arg, k);
        unsigned char bytes[16];
        size_t item_size = 0, align;
        int status;
        if (PyBool_Check(item)) {
            bytes[0] = item == Py_True;
            item_size = 1, status = 0;
        } else if (PyFloat_Check(item)) {
            status = pack_float(kernel, index, item, &item_size, bytes);
        } else if (PyLong_Check(item)) {
            status = pack_int(kernel, index, item, &item_size, bytes);
        } else if (PyComplex_Check(item)) {
            status = pack_complex(kernel, index, item, &item_size, bytes);
        } else if (PyArray_IsScalar(item, Number) || PyArray_IsScalar(item, Bool)) {
            PyArray_Descr *descr = PyArray_DescrFromScalar(item);
            if (descr == NULL)
                return -1;
            item_size = (size_t)PyDataType_ELSIZE(descr);
            Py_DECREF(descr);
            status =
                item_size <= sizeof bytes ? 0 : wrong_size(kernel, index, arg, *size, "a tuple item is too wide");
            if (status == 0)
                PyArray_ScalarAsCtype(item, bytes);
        } else {
            return wrong_size(kernel, index, arg, *size, "tuples passed to kernels hold numbers only");
        }
        if (status < 0)
            return -1;
        align = PyComplex_Check(item) || PyArray_IsScalar(item, ComplexFloating) ? item_size / 2 : item_size;
        offset = (offset + align - 1) / align * align;
        if (offset + item_size > *size)
            return wrong_size(kernel, index, arg, *size, "the tuple's items do not match the parameter");
        memcpy(dest + offset, bytes, item_size);
        offset += item_size;
        widest = align > widest ? align : widest;
    }
    if ((offset + widest - 1) / widest * widest != *size)
        return wrong_size(kernel, index, arg, *size, "the tuple's items do not match the parameter");
    return 0;
}

/* Phase 1 for the kinds that need more than their kind: int subclasses, and what arrays/transfer.c takes as
 * device memory (CUDA-array-interface objects, read once: their property runs Python code; NumPy arrays,
 * copied to the device with the GIL released; foreign buffers). A CUDA C kernel's 8-byte parameter takes
 * a CAI object's bare pointer; any other, a view (a @cuda.jit kernel's array struct), kept until the
 * launch is queued. */
static int convert_other_argument(module_state *st, const launch_target *target, Py_ssize_t index, PyObject *arg,
                                  size_t size, launch_arg *record)
{
    if (PyLong_Check(arg)) { /* an int of a subclass: an IntEnum member is the int it is */
        record->kind = ARG_INT;
        return 0;
    }
    PyObject *device;
    int found =
        transfer_launch_argument(st, arg, target->stream ? target->stream : Py_None, index, target->kernel->name,
                                 size == 8 ? &record->pointer : NULL, &device, &record->host);
    if (found > 0) { /* a view or copy it owns, or a CAI object's bare pointer */
        record->kind = device != NULL ? ARG_ARRAY : ARG_POINTER;
        record->object = device != NULL ? device : arg;
        record->owned = device != NULL;
        return 0;
    }
    if (found == 0)
        PyErr_Format(PyExc_TypeError,
                     "argument %zd of %S: cannot pass a %.100s to a kernel (device arrays, NumPy arrays, objects "
                     "with __cuda_array_interface__, and int, float, complex or NumPy scalars can be passed)",
                     index, target->kernel->name, Py_TYPE(arg)->tp_name);
    return -1;
}

/* A device array of another context than the launch's: a dead one's raises; a live one's is reached
 * through peer access, enabled at first need, or raises where the devices cannot reach each other. */
static int check_array_context(module_state *st, const launch_target *target, Py_ssize_t index,
                               DeviceArrayObject *array)
{
    ContextObject *home = array->context;
    if (home == target->context || home == NULL)
        return 0;
    if (home->handle == NULL) {
        PyErr_Format(st->CudaDriverError,
                     "argument %zd of %S is an array of a CUDA context that was reset or closed", index,
                     target->kernel->name);
        return -1;
    }
    int reachable = context_enable_peer(st, target->context, home);
    if (reachable < 0)
        return -1;
    if (reachable == 0) {
        PyErr_Format(PyExc_ValueError,
                     "argument %zd of %S is an array on device %d, and the kernel runs on "
                     "device %d, which cannot access its memory (no peer access): copy it there first",
                     index, target->kernel->name, home->device->id, target->context->device->id);
        return -1;
    }
    return 0;
}

int launch_argument_convert(module_state *st, const launch_target *target, Py_ssize_t index, PyObject *arg,
                            argument_kind kind, size_t size, launch_arg *record)
{
    record->object = arg;
    record->host = NULL;
    record->owned = 0;
    switch (kind) {
    case ARGUMENT_ERROR:
        return -1;
    case ARGUMENT_DEVICE_ARRAY:
    case ARGUMENT_DEVICE_RECORD:
        record->kind = ARG_ARRAY;
        return check_array_context(st, target, index, (DeviceArrayObject *)arg);
    case ARGUMENT_FLOAT:
        record->kind = ARG_FLOAT;
        return 0;
    case ARGUMENT_INT:
    case ARGUMENT_BOOL:
        record->kind = ARG_INT;
        return 0;
    case ARGUMENT_COMPLEX:
        record->kind = ARG_COMPLEX;
        return 0;
    case ARGUMENT_TUPLE:
        record->kind = ARG_TUPLE;
        return numpy_require(); /* its items may be NumPy scalars */
    case ARGUMENT_MEMORY_POINTER:
        record->kind = ARG_POINTER;
        record->pointer = ((MemoryObject *)arg)->device_pointer;
        return 0;
    case ARGUMENT_NUMPY_SCALAR:
    case ARGUMENT_NUMPY_RECORD:
        record->kind = ARG_SCALAR;
        return 0;
    case ARGUMENT_TYPE: /* a compile-time constant: one unused byte */
        record->kind = ARG_TYPE;
        return 0;
    case ARGUMENT_ENUM_MEMBER: /* an IntEnum member is the int it is; another the C launcher cannot take */
    case ARGUMENT_NUMPY_ARRAY:
    case ARGUMENT_OTHER:
        break;
    }
    return convert_other_argument(st, target, index, arg, size, record);
}

/* `arg` is the argument as given, for messages. */
int launch_argument_pack(KernelObject *kernel, Py_ssize_t index, PyObject *arg, const launch_arg *record,
                         size_t *size, unsigned char *dest)
{
    PyObject *object = record->object;
    switch (record->kind) {
    case ARG_ARRAY:
        return pack_array(kernel, index, arg, size, dest, (DeviceArrayObject *)object);
    case ARG_POINTER:
        return pack_pointer(kernel, index, arg, size, dest, record->pointer);
    case ARG_FLOAT:
        return pack_float(kernel, index, object, size, dest);
    case ARG_INT:
        return pack_int(kernel, index, object, size, dest);
    case ARG_COMPLEX:
        return pack_complex(kernel, index, object, size, dest);
    case ARG_TUPLE:
        return pack_tuple(kernel, index, object, size, dest);
    case ARG_SCALAR:
        break;
    case ARG_TYPE:
        if (*size == 0)
            *size = 1;
        if (*size != 1)
            return wrong_size(kernel, index, arg, *size, "a type argument is a one-byte parameter");
        *dest = 0;
        return 0;
    }
    PyArray_Descr *descr = PyArray_DescrFromScalar(object);
    if (descr == NULL)
        return -1;
    size_t itemsize = (size_t)PyDataType_ELSIZE(descr);
    int has_objects = PyDataType_REFCHK(descr);
    Py_DECREF(descr);
    if (*size == 0) { /* packed by its natural size and alignment: a power of two up to 16 */
        if (itemsize == 0 || itemsize > NATURAL_PARAM_MAX_SIZE || (itemsize & (itemsize - 1)) != 0)
            return wrong_size(kernel, index, arg, 0,
                              "this NumPy scalar needs a driver that reports parameter sizes");
        *size = itemsize;
    }
    if (itemsize != *size || has_objects)
        return wrong_size(kernel, index, arg, *size, "a NumPy scalar must have the parameter's size");
    PyArray_ScalarAsCtype(object, dest);
    return 0;
}

/* Only records that own something hold any references. */
int launch_arguments_release(PyObject *stream, launch_arg *records, Py_ssize_t count, int ok)
{
    int status = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        launch_arg *record = &records[i];
        if (ok && status == 0 && record->host != NULL) {
            PyObject *done =
                PyObject_CallMethod(record->object, "copy_to_host", "OO", record->host, stream ? stream : Py_None);
            if (done == NULL)
                status = -1;
            Py_XDECREF(done);
        }
        if (record->owned)
            Py_DECREF(record->object);
        Py_XDECREF(record->host);
    }
    return status;
}
