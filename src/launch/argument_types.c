/* argument_types.c: the bytes key of a launch's argument types (argument_types.h).
 *
 * Each argument appends its code:
 *   f b i c            a Python float, bool, int, complex (float64, boolean, int64, complex128)
 *   S <dtype>          a NumPy scalar of that dtype
 *   A <dtype> <ndim>   a device array or NumPy array (every layout shares one translation)
 *   r <dtype>          a DeviceRecord, a record in device memory, passed by reference
 *   R <dtype>          a NumPy record (np.void with fields), copied to the device for the launch
 *   E <code>           an enum member, passed as its value (whose code follows)
 *   ( <codes> )        a tuple (exactly tuple: a namedtuple is converted, and typed in Python)
 * A dtype is its NumPy type number in one byte where that says all (a native, unstructured,
 * non-datetime type), else 0xFF and the two bytes of a number given to that dtype at its first use
 * (structured dtypes, datetime units, byte orders), from the module state's table of them. */
#include "launch/argument_types.h"

#include "driver/numpy_api.h"

#define KEY_BYTES_MAX 1024
#define KEY_TUPLE_DEPTH 8
#define DTYPE_IDS_MAX 0xFFFF

typedef struct {
    unsigned char bytes[KEY_BYTES_MAX];
    Py_ssize_t length;
} key_buffer;

enum { KEYED = 0, NO_KEY = 1 }; /* what a step returns besides -1 (an error) */

static int put(key_buffer *key, unsigned char byte)
{
    if (key->length == KEY_BYTES_MAX)
        return NO_KEY;
    key->bytes[key->length++] = byte;
    return KEYED;
}

/* The dtype's code: its type number, or 0xFF and its number in st->dtype_ids. */
static int put_dtype(module_state *st, key_buffer *key, PyArray_Descr *dtype)
{
    if (numpy_require() < 0) /* loaded already where a dtype exists; the macros below read its version */
        return -1;
    if (dtype->type_num < NPY_NTYPES_LEGACY && dtype->type_num < 0xFF && !PyDataType_HASFIELDS(dtype) &&
        PyArray_ISNBO(dtype->byteorder) && !PyTypeNum_ISDATETIME(dtype->type_num) &&
        !PyDataType_HASSUBARRAY(dtype) &&
        !PyTypeNum_ISFLEXIBLE(dtype->type_num)) /* S12 and S2 are two types: their size is in the table's key */
        return put(key, (unsigned char)dtype->type_num);
    if (st->dtype_ids == NULL && (st->dtype_ids = PyDict_New()) == NULL)
        return -1;
    PyObject *id = PyDict_GetItemWithError(st->dtype_ids, (PyObject *)dtype);
    if (id == NULL) {
        if (PyErr_Occurred())
            return -1;
        Py_ssize_t next = PyDict_GET_SIZE(st->dtype_ids);
        if (next >= DTYPE_IDS_MAX) /* a bound: past it, such arguments are typed in Python */
            return NO_KEY;
        id = PyLong_FromSsize_t(next);
        if (id == NULL || PyDict_SetItem(st->dtype_ids, (PyObject *)dtype, id) < 0) {
            Py_XDECREF(id);
            return -1;
        }
        Py_DECREF(id); /* the dict holds it */
    }
    long number = PyLong_AsLong(id);
    if (put(key, 0xFF) != KEYED || put(key, (unsigned char)(number >> 8)) != KEYED)
        return NO_KEY;
    return put(key, (unsigned char)number);
}

static int put_array(module_state *st, key_buffer *key, unsigned char code, PyArray_Descr *dtype, int ndim)
{
    int status = put(key, code);
    if (status == KEYED)
        status = put_dtype(st, key, dtype);
    return status == KEYED && ndim <= 0xFF ? put(key, (unsigned char)ndim) : status;
}

static int put_argument(module_state *st, key_buffer *key, PyObject *arg, argument_kind kind, int depth);

static int put_scalar(module_state *st, key_buffer *key, PyObject *arg, argument_kind kind)
{
    PyArray_Descr *dtype = PyArray_DescrFromScalar(arg);
    if (dtype == NULL)
        return -1;
    int record = kind == ARGUMENT_NUMPY_RECORD;
    int status = record && !PyDataType_HASFIELDS(dtype) ? NO_KEY : put(key, record ? 'R' : 'S');
    if (status == KEYED)
        status = put_dtype(st, key, dtype);
    Py_DECREF(dtype);
    return status;
}

static int put_tuple(module_state *st, key_buffer *key, PyObject *arg, int depth)
{
    if (depth == KEY_TUPLE_DEPTH)
        return NO_KEY;
    int status = put(key, '(');
    for (Py_ssize_t i = 0; status == KEYED && i < PyTuple_GET_SIZE(arg); i++) {
        PyObject *item = PyTuple_GET_ITEM(arg, i);
        status = put_argument(st, key, item, argument_kind_of(st, item), depth + 1);
    }
    return status == KEYED ? put(key, ')') : status;
}

/* An enum member, typed as its value where that is a number (the dispatcher's rule), in Python
 * otherwise. */
static int put_enum_member(module_state *st, key_buffer *key, PyObject *arg, int depth)
{
    PyObject *value = PyObject_GetAttrString(arg, "value");
    if (value == NULL)
        return -1;
    argument_kind kind = argument_kind_of(st, value);
    int status = kind == ARGUMENT_FLOAT || kind == ARGUMENT_INT || kind == ARGUMENT_BOOL ? put(key, 'E') : NO_KEY;
    if (status == KEYED)
        status = put_argument(st, key, value, kind, depth + 1);
    Py_DECREF(value);
    return status;
}

static int put_argument(module_state *st, key_buffer *key, PyObject *arg, argument_kind kind, int depth)
{
    switch (kind) {
    case ARGUMENT_ERROR:
        return -1;
    case ARGUMENT_FLOAT:
        return put(key, 'f');
    case ARGUMENT_BOOL:
        return put(key, 'b');
    case ARGUMENT_INT:
        return put(key, 'i');
    case ARGUMENT_COMPLEX:
        return put(key, 'c');
    case ARGUMENT_DEVICE_ARRAY:
    case ARGUMENT_DEVICE_RECORD: {
        DeviceArrayObject *array = (DeviceArrayObject *)arg;
        return put_array(st, key, kind == ARGUMENT_DEVICE_RECORD ? 'r' : 'A', array->dtype, array->ndim);
    }
    case ARGUMENT_NUMPY_ARRAY:
        return put_array(st, key, 'A', PyArray_DESCR((PyArrayObject *)arg), PyArray_NDIM((PyArrayObject *)arg));
    case ARGUMENT_NUMPY_SCALAR:
    case ARGUMENT_NUMPY_RECORD:
        return put_scalar(st, key, arg, kind);
    case ARGUMENT_TUPLE:
        return put_tuple(st, key, arg, depth);
    case ARGUMENT_ENUM_MEMBER:
        return put_enum_member(st, key, arg, depth);
    case ARGUMENT_MEMORY_POINTER: /* typed by Python (which refuses them), each time */
    case ARGUMENT_TYPE:
    case ARGUMENT_OTHER:
        break;
    }
    return NO_KEY;
}

int argument_types_key(module_state *st, PyObject *const *args, Py_ssize_t n, PyObject **key, argument_kind *kinds)
{
    key_buffer buffer;
    buffer.length = 0;
    *key = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        argument_kind kind = argument_kind_of(st, args[i]);
        if (kinds != NULL)
            kinds[i] = kind;
        int status = put_argument(st, &buffer, args[i], kind, 0);
        if (status != KEYED)
            return status < 0 ? -1 : 0;
    }
    *key = PyBytes_FromStringAndSize((const char *)buffer.bytes, buffer.length);
    return *key == NULL ? -1 : 0;
}
