/* launch.c: LaunchConfig, kernel[griddim, blockdim, stream, sharedmem], and the launch path.
 *
 * The hot path (DESIGN.md, "The hot paths", 3): calling a LaunchConfig is a vectorcall. Each
 * argument gets one type check, exact types first (DeviceNDArray, float, int), and is written
 * into this launch's own parameter storage at the offset cuFuncGetParamInfo gave, with its size
 * checked; then one cuLaunchKernel. No Python object is made on the DeviceNDArray and scalar
 * paths. NumPy arrays are copied to the device before the launch and back after it, on the
 * launch's stream, as numba does; CUDA-array-interface objects pass their pointer. */
#include "launch/launch.h"
#include "driver/python_helpers.h"
#include "arrays/devicearray_functions.h"

#include "arrays/devicearray.h"
#include "driver/errors.h"
#include "core/foreign.h"
#include "core/graph.h"
#include "core/memory.h"
#include "core/stream.h"
#include "arrays/transfer.h"

#include <structmember.h>

#define NATURAL_PARAMS_MAX 256

/* The dimensions as numba shows them in its errors: a list ([2.0], [1, 2, 3, 4]). */
static void raise_dims_error(PyObject *type, const char *format, const char *what, PyObject *dims)
{
    PyObject *shown =
        (PyTuple_Check(dims) || PyList_Check(dims)) ? PySequence_List(dims) : Py_BuildValue("[O]", dims);
    if (shown != NULL)
        PyErr_Format(type, format, what, shown);
    Py_XDECREF(shown);
}

int launch_parse_dims(PyObject *dims, const char *what, unsigned int out[3])
{
    PyObject *items[3] = {NULL, NULL, NULL};
    Py_ssize_t n = 1;
    if (dims == NULL || dims == Py_None) {
        PyErr_SetString(PyExc_ValueError, "griddim and blockdim must be specified");
        return -1;
    }
    if (PyTuple_Check(dims) || PyList_Check(dims)) {
        n = PySequence_Fast_GET_SIZE(dims);
        if (n < 1 || n > 3) {
            raise_dims_error(PyExc_ValueError, "%s must be a sequence of 1, 2 or 3 integers, got %R", what, dims);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            items[i] = PySequence_Fast_GET_ITEM(dims, i);
    } else {
        items[0] = dims;
    }
    for (int i = 0; i < 3; i++) {
        if (i >= n) {
            out[i] = 1;
            continue;
        }
        if (!PyIndex_Check(items[i])) {
            raise_dims_error(PyExc_TypeError, "%s must be a sequence of integers, got %R", what, dims);
            return -1;
        }
        Py_ssize_t value = PyNumber_AsSsize_t(items[i], PyExc_OverflowError);
        if (value == -1 && PyErr_Occurred())
            return -1;
        if (value <= 0 || (unsigned long long)value > 0xffffffffULL) {
            raise_dims_error(PyExc_ValueError, "%s must hold positive sizes, got %R", what, dims);
            return -1;
        }
        out[i] = (unsigned int)value;
    }
    return 0;
}

static PyObject *LaunchConfig_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                         PyObject *kwnames);

PyObject *launch_config_new(module_state *st, KernelObject *kernel, PyObject *griddim, PyObject *blockdim,
                            PyObject *stream, PyObject *sharedmem)
{
    unsigned int grid[3], block[3];
    CUstream handle = NULL;
    int bytes = 0;
    if (launch_parse_dims(griddim, "griddim", grid) < 0 || launch_parse_dims(blockdim, "blockdim", block) < 0)
        return NULL;
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    if (threads > (unsigned long long)kernel->max_threads_per_block) {
        /* what the launch would say (numba raises it from there), with the reason, before any launch */
        cu_raise_launch(
            st, CUDA_ERROR_INVALID_VALUE,
            PyUnicode_FromFormat("Call to cuLaunchKernel results in CUDA_ERROR_INVALID_VALUE: blockdim %R "
                                 "asks for %llu threads; %S allows at most %d per block",
                                 blockdim, threads, kernel->name, kernel->max_threads_per_block));
        return NULL;
    }
    if (stream_handle_from_object(st, stream ? stream : Py_None, &handle) < 0)
        return NULL;
    if (sharedmem != NULL && sharedmem != Py_None) {
        if (int_from_object(sharedmem, &bytes, "sharedmem") < 0)
            return NULL;
        if (bytes < 0) {
            PyErr_SetString(PyExc_ValueError, "sharedmem must not be negative");
            return NULL;
        }
    }
    LaunchConfigObject *self = PyObject_GC_New(LaunchConfigObject, st->LaunchConfigType);
    if (self == NULL)
        return NULL;
    self->kernel = (KernelObject *)Py_NewRef((PyObject *)kernel);
    memcpy(self->grid, grid, sizeof grid);
    memcpy(self->block, block, sizeof block);
    self->sharedmem = (unsigned int)bytes;
    self->stream = (stream != NULL && Py_IS_TYPE(stream, st->StreamType)) ? Py_NewRef(stream) : NULL;
    self->stream_handle = handle;
    self->vectorcall = LaunchConfig_vectorcall;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

/* A launch owns its arguments (STYLE.md, rule 6). Phase 1 converts each argument into a record:
 * NumPy arrays are copied to the device and CAI objects read, which runs Python code and may
 * release the GIL, so another launch (a re-entrant one, or another thread's) can run meanwhile.
 * Phase 2 packs the records into parameter storage of this call's own (the C stack up to
 * LAUNCH_STACK_ARGS arguments and LAUNCH_STACK_BYTES bytes, the heap beyond), with no Python code
 * in between; then cuLaunchKernel copies the parameters; then NumPy arguments are copied back,
 * only if the launch was queued. */
#define LAUNCH_STACK_ARGS 64
#define LAUNCH_STACK_BYTES 4096
#define NATURAL_PARAM_MAX_SIZE 16 /* the widest argument packed by its natural size: complex128 */

typedef enum { ARG_ARRAY, ARG_POINTER, ARG_FLOAT, ARG_INT, ARG_COMPLEX, ARG_TUPLE, ARG_SCALAR, ARG_TYPE } arg_kind;

typedef struct {
    PyObject *object;    /* the argument (borrowed), or its device copy or CAI view (owned: `owned`) */
    PyObject *host;      /* owned: the NumPy array the device copy goes back to, or NULL */
    CUdeviceptr pointer; /* ARG_POINTER's value */
    arg_kind kind;
    int owned;
} launch_arg;

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

/* The pointer of a __cuda_array_interface__ dict, after its stream, as a CAI consumer must. */
static int cai_pointer(module_state *st, PyObject *desc, CUdeviceptr *pointer)
{
    PyObject *data = PyDict_Check(desc) ? PyDict_GetItemString(desc, "data") : NULL;
    if (data == NULL || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1) {
        PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__ lacks data=(pointer, readonly)");
        return -1;
    }
    *pointer = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (*pointer == (CUdeviceptr)-1 && PyErr_Occurred())
        return -1;
    /* The kernel takes a bare pointer, whose extent it alone knows: the pointer of a non-empty
     * array must at least lie in an allocation (foreign.c). */
    PyObject *shape = PyDict_GetItemString(desc, "shape");
    size_t elements = 1;
    for (Py_ssize_t i = 0; shape != NULL && PyTuple_Check(shape) && i < PyTuple_GET_SIZE(shape); i++)
        if (PyLong_Check(PyTuple_GET_ITEM(shape, i)) && PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)) == 0)
            elements = 0;
    if (PyErr_Occurred() ||
        foreign_check_extent(st, *pointer, 0, elements, "a __cuda_array_interface__ argument") < 0)
        return -1;
    return cai_wait_stream(st, desc, 1);
}

/* An object's __cuda_array_interface__ (new reference), or NULL: with the exception set where
 * reading it failed (a property that raised), without one where there is none. */
static PyObject *cuda_array_interface(PyObject *arg)
{
    if (PyArray_CheckExact(arg))
        return NULL;
    PyObject *desc = PyObject_GetAttrString(arg, "__cuda_array_interface__");
    if (desc == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();
    return desc;
}

/* Whether `arg` is a type given as an argument (np.float64, a dtype, numba_cuda_c.int32 or numba's
 * type object, told by the module of its class): a compile-time constant of a @cuda.jit kernel, which
 * takes it as one unused byte. */
static int type_argument(PyObject *arg)
{
    if (PyType_Check(arg) || PyArray_DescrCheck(arg))
        return 1;
    PyObject *module = PyObject_GetAttrString((PyObject *)Py_TYPE(arg), "__module__");
    if (module == NULL) {
        PyErr_Clear();
        return 0;
    }
    const char *name = PyUnicode_Check(module) ? PyUnicode_AsUTF8(module) : NULL;
    int is_type =
        name != NULL && (strcmp(name, "numba_cuda_c.types") == 0 || strncmp(name, "numba.core.types", 16) == 0 ||
                         strncmp(name, "numba.cuda.types", 16) == 0);
    if (name == NULL)
        PyErr_Clear();
    Py_DECREF(module);
    return is_type;
}

/* `arg` as a DeviceNDArray where it is device memory of a kind numba-cuda also takes without a CUDA
 * array interface (numba_cuda_c/cudadrv/foreign_arguments.py), else None. New reference. */
static PyObject *foreign_argument(module_state *st, PyObject *arg)
{
    return python_call1(st, HELPER_AS_DEVICE_ARRAY, arg);
}

/* Phase 1, the arguments that are not of the usual kinds: NumPy scalars, CUDA-array-interface
 * objects (their property runs Python code) and NumPy arrays (copied to the device, with the GIL
 * released). */
static int convert_other_argument(module_state *st, LaunchConfigObject *config, Py_ssize_t index, PyObject *arg,
                                  size_t size, launch_arg *record)
{
    if (numpy_require() < 0)
        return -1;
    if (PyArray_IsScalar(arg, Generic)) {
        record->kind = ARG_SCALAR;
        return 0;
    }
    PyObject *desc = cuda_array_interface(arg);
    if (desc == NULL && PyErr_Occurred())
        return -1;
    if (desc != NULL && size == 8) { /* a pointer is all the kernel takes: no view needed */
        record->kind = ARG_POINTER;
        int status = cai_pointer(st, desc, &record->pointer);
        Py_DECREF(desc);
        return status;
    }
    int has_cai = desc != NULL;
    Py_XDECREF(desc);
    if (has_cai || PyArray_Check(arg)) {
        /* A NumPy array goes to the device and comes back after the launch; a CAI object (a mapped or
         * managed array too, a NumPy array the device reaches) is viewed as a device array, kept
         * until the launch is queued. */
        if (!has_cai && config->stream != NULL && ((StreamObject *)config->stream)->capture != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "argument %zd of %S is a NumPy array, which a launch copies to the device "
                         "and back around the kernel: a graph cannot capture that; pass a device array "
                         "(cuda.to_device) to a launch on a capturing stream",
                         index, config->kernel->name);
            return -1;
        }
        if (!has_cai) { /* numba's NumbaPerformanceWarning (CUDA_WARN_ON_IMPLICIT_COPY): Python, on this slow path
                         */
            PyObject *warned = python_call1(st, HELPER_WARN_IMPLICIT_COPY, arg);
            if (warned == NULL)
                return -1;
            Py_DECREF(warned);
        }
        PyObject *device = has_cai ? devicearray_from_object(st, arg, 1)
                                   : transfer_to_device(st, arg, config->stream ? config->stream : Py_None, 1);
        if (device == NULL)
            return -1;
        record->kind = ARG_ARRAY;
        record->object = device;
        record->owned = 1;
        /* copied back after the launch, unless it cannot be written (a broadcast, a read-only view) */
        record->host = has_cai || !PyArray_ISWRITEABLE((PyArrayObject *)arg) ? NULL : Py_NewRef(arg);
        return 0;
    }
    if (type_argument(arg)) {
        record->kind = ARG_TYPE;
        return 0;
    }
    PyObject *foreign = foreign_argument(st, arg); /* cuda.core Buffer, StridedMemoryView, DLPack */
    if (foreign == NULL)
        return -1;
    if (foreign != Py_None) {
        record->kind = ARG_ARRAY;
        record->object = foreign;
        record->owned = 1;
        return 0;
    }
    Py_DECREF(foreign);
    PyErr_Format(PyExc_TypeError,
                 "argument %zd of %S: cannot pass a %.100s to a kernel (device arrays, NumPy arrays, objects with "
                 "__cuda_array_interface__, and int, float, complex or NumPy scalars can be passed)",
                 index, config->kernel->name, Py_TYPE(arg)->tp_name);
    return -1;
}

/* Phase 1: what argument `index` packs as. `size` is its parameter's size (0: unknown). May run
 * Python code and release the GIL (CAI properties, copies of NumPy arrays to the device). The
 * usual kinds first, checked inline: they need no conversion. */
static inline int convert_argument(module_state *st, LaunchConfigObject *config, Py_ssize_t index, PyObject *arg,
                                   size_t size, launch_arg *record)
{
    record->object = arg;
    record->host = NULL;
    record->owned = 0;
    if (Py_IS_TYPE(arg, st->DeviceNDArrayType))
        record->kind = ARG_ARRAY;
    else if (PyFloat_CheckExact(arg))
        record->kind = ARG_FLOAT;
    else if (PyLong_Check(arg))
        record->kind = ARG_INT;
    else if (PyComplex_CheckExact(arg))
        record->kind = ARG_COMPLEX;
    else if (PyTuple_CheckExact(arg)) {
        record->kind = ARG_TUPLE;
        return numpy_require(); /* its items may be NumPy scalars */
    } else if (devicearray_check(st, arg))
        record->kind = ARG_ARRAY;
    else if (Py_IS_TYPE(arg, st->MemoryPointerType)) {
        record->kind = ARG_POINTER;
        record->pointer = ((MemoryObject *)arg)->device_pointer;
    } else
        return convert_other_argument(st, config, index, arg, size, record);
    return 0;
}

/* Phase 2: packs a converted argument at `dest`. *size is the parameter's size, or 0 when the
 * driver cannot tell: then the argument's natural size is used and written back. Runs no Python
 * code. `arg` is the argument as given, for messages. */
static int pack_argument(KernelObject *kernel, Py_ssize_t index, PyObject *arg, const launch_arg *record,
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

/* Phase 4: copies device copies back to their NumPy arrays if the launch was queued (`ok`), and
 * drops every record's references, whatever happened. Only records that own something hold any. */
static int release_arguments(LaunchConfigObject *config, launch_arg *records, Py_ssize_t count, int ok)
{
    int status = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        launch_arg *record = &records[i];
        if (ok && status == 0 && record->host != NULL) {
            PyObject *done = PyObject_CallMethod(record->object, "copy_to_host", "OO", record->host,
                                                 config->stream ? config->stream : Py_None);
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

/* Phase 3: one cuLaunchKernel in the kernel's context. It only queues the work, but blocks while
 * the driver's launch queue is full: if a Python stream callback is pending in the context, it may
 * be what the queue waits on, and it needs the GIL, so the GIL is released then (only then: it
 * costs more than most launches). */
static int launch_kernel(module_state *st, LaunchConfigObject *config, ContextObject *context, CUfunction function,
                         void **params)
{
    CUcontext current = NULL;
    CUresult rc;
    int pushed = 0;
    if (context_check_alive(st, context) < 0) /* again: converting the arguments ran Python code */
        return -1;
    if ((cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != context->handle) &&
        context_enter(st, context, &pushed) < 0)
        return -1;
    /* released only while a Python stream callback is pending: a full launch queue behind it waits
     * for that callback, which needs the GIL (lock order: stream.h) */
    const char *what = "cuLaunchKernel";
    if (config->kernel->cooperative) { /* a grid that syncs: all its blocks resident at once */
        what = "cuLaunchCooperativeKernel";
        if (cu.cuLaunchCooperativeKernel == NULL) {
            if (pushed)
                cu.cuCtxPopCurrent(&current);
            PyErr_SetString(st->CudaSupportError, "this CUDA driver has no cuLaunchCooperativeKernel");
            return -1;
        }
        CU_UNBLOCKED(rc, cu.cuLaunchCooperativeKernel(function, config->grid[0], config->grid[1], config->grid[2],
                                                      config->block[0], config->block[1], config->block[2],
                                                      config->sharedmem, config->stream_handle, params));
    } else {
        CU_UNBLOCKED(rc, cu.cuLaunchKernel(function, config->grid[0], config->grid[1], config->grid[2],
                                           config->block[0], config->block[1], config->block[2], config->sharedmem,
                                           config->stream_handle, params, NULL));
    }
    if (rc != CUDA_SUCCESS) {
        if (pushed)
            cu.cuCtxPopCurrent(&current); /* best effort: the launch's error is the one raised */
        return cu_raise_launch(st, rc, cu_error_message(rc, what));
    }
    return context_exit(st, pushed);
}

/* Device arrays of another context: a dead one's raise; a live one's are reached through peer
 * access, enabled at first need, or raise where the devices cannot reach each other. */
static int launch_check_arrays(module_state *st, KernelObject *kernel, ContextObject *context,
                               PyObject *const *args, Py_ssize_t nargs)
{
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *arg = args[i];
        if (!Py_IS_TYPE(arg, st->DeviceNDArrayType) &&
            (PyFloat_CheckExact(arg) || PyLong_CheckExact(arg) || !devicearray_check(st, arg)))
            continue;
        ContextObject *home = ((DeviceArrayObject *)arg)->context;
        if (home == context || home == NULL)
            continue;
        if (home->handle == NULL) {
            PyErr_Format(st->CudaDriverError,
                         "argument %zd of %S is an array of a CUDA context that was reset or "
                         "closed",
                         i, kernel->name);
            return -1;
        }
        int reachable = context_enable_peer(st, context, home);
        if (reachable < 0)
            return -1;
        if (reachable == 0) {
            PyErr_Format(PyExc_ValueError,
                         "argument %zd of %S is an array on device %d, and the kernel runs on "
                         "device %d, which cannot access its memory (no peer access): copy it there first",
                         i, kernel->name, home->device->id, context->device->id);
            return -1;
        }
    }
    return 0;
}

static PyObject *LaunchConfig_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                         PyObject *kwnames)
{
    LaunchConfigObject *self = (LaunchConfigObject *)callable;
    KernelObject *kernel = self->kernel;
    module_state *st = state_of(callable);
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int natural = kernel->param_count < 0;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_SetString(PyExc_TypeError, "kernels take positional arguments only");
        return NULL;
    }
    if (!natural && nargs != kernel->param_count) {
        PyErr_Format(PyExc_TypeError, "%S takes %zd argument%s, %zd given", kernel->name, kernel->param_count,
                     kernel->param_count == 1 ? "" : "s", nargs);
        return NULL;
    }
    if (natural && nargs > NATURAL_PARAMS_MAX) {
        PyErr_Format(PyExc_TypeError, "too many kernel arguments: %zd", nargs);
        return NULL;
    }
    /* The kernel runs in its stream's context, else the current one, where its function is found
     * (loaded at its first launch there). */
    ContextObject *context = self->stream ? ((StreamObject *)self->stream)->context : context_current(st);
    CUfunction function =
        context == NULL || context_check_alive(st, context) < 0 ? NULL : kernel_function(st, kernel, context);
    if (function == NULL || launch_check_arrays(st, kernel, context, args, nargs) < 0)
        return NULL;

    /* This launch's storage: records, parameter pointers and bytes, on the stack when they fit. */
    size_t param_bytes = natural ? (size_t)nargs * NATURAL_PARAM_MAX_SIZE : kernel->params_size;
    launch_arg stack_records[LAUNCH_STACK_ARGS], *records = stack_records;
    void *stack_pointers[LAUNCH_STACK_ARGS], **pointers = stack_pointers;
    _Alignas(16) unsigned char stack_params[LAUNCH_STACK_BYTES];
    unsigned char *params = stack_params;
    void *heap = NULL;
    if (nargs > LAUNCH_STACK_ARGS || param_bytes > LAUNCH_STACK_BYTES) {
        size_t records_size = (size_t)nargs * sizeof(launch_arg), pointers_size = (size_t)nargs * sizeof(void *);
        records_size = (records_size + 15) / 16 * 16;
        pointers_size = (pointers_size + 15) / 16 * 16;
        if ((heap = PyMem_Malloc(records_size + pointers_size + param_bytes + 1)) == NULL)
            return PyErr_NoMemory();
        records = heap;
        pointers = (void **)((unsigned char *)heap + records_size);
        params = (unsigned char *)heap + records_size + pointers_size;
    }

    Py_ssize_t converted = 0, owned = 0;
    int failed = 0;
    for (; converted < nargs && !failed; converted++) {
        size_t size = natural ? 0 : kernel->param_sizes[converted];
        failed = convert_argument(st, self, converted, args[converted], size, &records[converted]) < 0;
        owned += !failed && records[converted].owned;
    }
    if (failed)
        converted--; /* the record that failed holds nothing */
    size_t natural_offset = 0;
    for (Py_ssize_t i = 0; i < nargs && !failed; i++) {
        size_t size = natural ? 0 : kernel->param_sizes[i];
        unsigned char *dest = natural ? params + natural_offset : params + kernel->param_offsets[i];
        failed = pack_argument(kernel, i, args[i], &records[i], &size, dest) < 0;
        if (!failed && natural) { /* the next one at its natural alignment (its size) */
            size_t aligned = (natural_offset + size - 1) / size * size;
            if (aligned != natural_offset)
                memmove(params + aligned, dest, size);
            dest = params + aligned;
            natural_offset = aligned + size;
        }
        pointers[i] = dest;
    }
    if (!failed)
        failed = launch_kernel(st, self, context, function, pointers) < 0;
    /* captured into a graph, not run: what it points to must live as long as the graph */
    if (!failed && self->stream != NULL && ((StreamObject *)self->stream)->capture != NULL)
        failed = graph_keep_launch(((StreamObject *)self->stream)->capture, callable, args, nargs) < 0;
    if (owned > 0 && release_arguments(self, records, converted, !failed) < 0)
        failed = 1;
    PyMem_Free(heap);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *LaunchConfig_repr(PyObject *op)
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    return PyUnicode_FromFormat("<LaunchConfig of %S: grid (%u, %u, %u), block (%u, %u, %u), sharedmem %u>",
                                self->kernel->name, self->grid[0], self->grid[1], self->grid[2], self->block[0],
                                self->block[1], self->block[2], self->sharedmem);
}

static PyObject *LaunchConfig_get_griddim(PyObject *op, void *Py_UNUSED(closure))
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    return Py_BuildValue("(III)", self->grid[0], self->grid[1], self->grid[2]);
}

static PyObject *LaunchConfig_get_blockdim(PyObject *op, void *Py_UNUSED(closure))
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    return Py_BuildValue("(III)", self->block[0], self->block[1], self->block[2]);
}

static PyObject *LaunchConfig_get_stream(PyObject *op, void *Py_UNUSED(closure))
{
    PyObject *stream = ((LaunchConfigObject *)op)->stream;
    return stream ? Py_NewRef(stream) : PyLong_FromLong(0);
}

static int LaunchConfig_traverse(PyObject *op, visitproc visit, void *arg)
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->kernel);
    Py_VISIT(self->stream);
    return 0;
}

static int LaunchConfig_clear(PyObject *op)
{
    LaunchConfigObject *self = (LaunchConfigObject *)op;
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->stream);
    return 0;
}

static void LaunchConfig_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    LaunchConfig_clear(op);
    type->tp_free(op);
    Py_DECREF(type);
}

static PyGetSetDef LaunchConfig_getset[] = {
    {"griddim", LaunchConfig_get_griddim, NULL, "The grid, as (x, y, z).", NULL},
    {"blockdim", LaunchConfig_get_blockdim, NULL, "The block, as (x, y, z).", NULL},
    {"stream", LaunchConfig_get_stream, NULL, "The stream, or 0 for the default.", NULL},
    {0},
};

static PyMemberDef LaunchConfig_members[] = {
    {"sharedmem", T_UINT, offsetof(LaunchConfigObject, sharedmem), READONLY, "Dynamic shared memory, in bytes."},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(LaunchConfigObject, vectorcall), READONLY, NULL},
    {0},
};

static PyType_Slot LaunchConfig_slots[] = {
    {Py_tp_doc, "kernel[griddim, blockdim, stream, sharedmem]: call it with the kernel's arguments to launch."},
    {Py_tp_repr, LaunchConfig_repr},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_getset, LaunchConfig_getset},
    {Py_tp_members, LaunchConfig_members},
    {Py_tp_traverse, LaunchConfig_traverse},
    {Py_tp_clear, LaunchConfig_clear},
    {Py_tp_dealloc, LaunchConfig_dealloc},
    {0, NULL},
};

static PyType_Spec LaunchConfig_spec = {
    .name = "numba_cuda_c.LaunchConfig",
    .basicsize = sizeof(LaunchConfigObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_HAVE_VECTORCALL,
    .slots = LaunchConfig_slots,
};

/* launch(*args, griddim, blockdim, stream=0, sharedmem=0) */
static PyObject *Kernel_launch(PyObject *op, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"griddim", "blockdim", "stream", "sharedmem", NULL};
    PyObject *griddim, *blockdim, *stream = NULL, *sharedmem = NULL;
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL)
        return NULL;
    griddim = blockdim = NULL;
    int ok = PyArg_ParseTupleAndKeywords(empty, kwargs, "|$OOOO:launch", keywords, &griddim, &blockdim, &stream,
                                         &sharedmem);
    Py_DECREF(empty);
    if (!ok)
        return NULL;
    if (griddim == NULL || blockdim == NULL) {
        PyErr_SetString(PyExc_TypeError, "launch() needs the keywords griddim and blockdim");
        return NULL;
    }
    PyObject *config = launch_config_new(state_of(op), (KernelObject *)op, griddim, blockdim, stream, sharedmem);
    if (config == NULL)
        return NULL;
    PyObject *result = PyObject_Call(config, args, NULL);
    Py_DECREF(config);
    return result;
}

/* Kernel.launch, added to Kernel at init (kernel.c makes no launch configurations). */
static PyMethodDef Kernel_launch_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))Kernel_launch, METH_VARARGS | METH_KEYWORDS,
     "launch(*args, griddim, blockdim, stream=0, sharedmem=0): launch with keywords."},
    {0},
};

/* kernel[griddim, blockdim, stream, sharedmem]: Kernel's mp_subscript (kernel_type_init is given it). */
#define MAX_CACHED_CONFIGS 64

/* kernel[griddim, blockdim], [.., stream], [.., stream, sharedmem] */
PyObject *launch_configure(PyObject *op, PyObject *key)
{
    module_state *st = state_of(op);
    KernelObject *self = (KernelObject *)op;
    PyObject *config = PyDict_GetItemWithError(self->configs, key);
    if (config != NULL)
        return Py_NewRef(config);
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) /* unhashable keys are parsed, not cached */
            return NULL;
        PyErr_Clear();
    }
    Py_ssize_t n = PyTuple_Check(key) ? PyTuple_GET_SIZE(key) : 1;
    if (n < 2 || n > 4) {
        PyErr_SetString(PyExc_ValueError, "must specify at least the griddim and blockdim: "
                                          "kernel[griddim, blockdim, stream=0, sharedmem=0]");
        return NULL;
    }
    config = launch_config_new(st, self, PyTuple_GET_ITEM(key, 0), PyTuple_GET_ITEM(key, 1),
                               n > 2 ? PyTuple_GET_ITEM(key, 2) : NULL, n > 3 ? PyTuple_GET_ITEM(key, 3) : NULL);
    if (config == NULL)
        return NULL;
    if (PyObject_Hash(key) != -1) {
        if (PyDict_GET_SIZE(self->configs) >= MAX_CACHED_CONFIGS)
            PyDict_Clear(self->configs);
        if (PyDict_SetItem(self->configs, key, config) < 0)
            Py_CLEAR(config);
    } else {
        PyErr_Clear();
    }
    return config;
}

static PyObject *module_parse_launch_dims(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *griddim, *blockdim;
    unsigned int grid[3], block[3];
    if (!PyArg_ParseTuple(args, "OO:_parse_launch_dims", &griddim, &blockdim) ||
        launch_parse_dims(griddim, "griddim", grid) < 0 || launch_parse_dims(blockdim, "blockdim", block) < 0)
        return NULL;
    return Py_BuildValue("((III)(III))", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

PyMethodDef launch_module_methods[] = {
    {"_parse_launch_dims", module_parse_launch_dims, METH_VARARGS,
     "(griddim, blockdim) normalised as numba does: two 3-tuples of positive ints."},
    {0},
};

int launch_type_init(PyObject *module, module_state *st)
{
    if (type_add_methods(st->KernelType, Kernel_launch_methods) < 0)
        return -1;
    st->LaunchConfigType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &LaunchConfig_spec, NULL);
    if (st->LaunchConfigType == NULL)
        return -1;
    return PyModule_AddType(module, st->LaunchConfigType);
}
