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

#include "arrays/devicearray.h"
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
    if (dtype->type_num < NPY_NTYPES_LEGACY && dtype->type_num < 0xFF && !PyDataType_HASFIELDS(dtype) &&
        PyArray_ISNBO(dtype->byteorder) && !PyTypeNum_ISDATETIME(dtype->type_num) && !PyDataType_HASSUBARRAY(dtype))
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

/* Whether `arg` is a member of an enum.Enum class: its type's metaclass is enum's (EnumType). */
static int is_enum_member(module_state *st, PyObject *arg)
{
    if (st->enum_type == NULL) {
        PyObject *name = PyUnicode_FromString("enum");
        PyObject *module = name ? PyImport_GetModule(name) : NULL; /* no enum imported: no member exists */
        Py_XDECREF(name);
        if (module == NULL)
            return PyErr_Occurred() ? -1 : 0;
        st->enum_type = PyObject_GetAttrString(module, "EnumMeta");
        Py_DECREF(module);
        if (st->enum_type == NULL)
            return -1;
    }
    return PyObject_TypeCheck((PyObject *)Py_TYPE(arg), (PyTypeObject *)st->enum_type);
}

static int put_argument(module_state *st, key_buffer *key, PyObject *arg, int depth)
{
    if (PyFloat_CheckExact(arg))
        return put(key, 'f');
    if (PyBool_Check(arg))
        return put(key, 'b');
    if (PyLong_CheckExact(arg))
        return put(key, 'i');
    if (PyComplex_CheckExact(arg))
        return put(key, 'c');
    int device = devicearray_check(st, arg);
    if (device || PyArray_CheckExact(arg)) {
        PyArray_Descr *dtype = device ? ((DeviceArrayObject *)arg)->dtype : PyArray_DESCR((PyArrayObject *)arg);
        int ndim = device ? ((DeviceArrayObject *)arg)->ndim : PyArray_NDIM((PyArrayObject *)arg);
        int status = put(key, Py_IS_TYPE(arg, st->DeviceRecordType) ? 'r' : 'A');
        if (status == KEYED)
            status = put_dtype(st, key, dtype);
        return status == KEYED && ndim <= 0xFF ? put(key, (unsigned char)ndim) : status;
    }
    if (PyArray_IsScalar(arg, Generic)) {
        PyArray_Descr *dtype = PyArray_DescrFromScalar(arg);
        if (dtype == NULL)
            return -1;
        int record = PyArray_IsScalar(arg, Void);
        int status = record && !PyDataType_HASFIELDS(dtype) ? NO_KEY : put(key, record ? 'R' : 'S');
        if (status == KEYED)
            status = put_dtype(st, key, dtype);
        Py_DECREF(dtype);
        return status;
    }
    if (PyTuple_CheckExact(arg)) {
        if (depth == KEY_TUPLE_DEPTH)
            return NO_KEY;
        int status = put(key, '(');
        for (Py_ssize_t i = 0; status == KEYED && i < PyTuple_GET_SIZE(arg); i++)
            status = put_argument(st, key, PyTuple_GET_ITEM(arg, i), depth + 1);
        return status == KEYED ? put(key, ')') : status;
    }
    int member = is_enum_member(st, arg);
    if (member <= 0)
        return member < 0 ? -1 : NO_KEY;
    PyObject *value = PyObject_GetAttrString(arg, "value");
    if (value == NULL)
        return -1;
    /* typed as its value where that is a number (the dispatcher's rule), in Python otherwise */
    int status =
        PyFloat_CheckExact(value) || PyLong_CheckExact(value) || PyBool_Check(value) ? put(key, 'E') : NO_KEY;
    if (status == KEYED)
        status = put_argument(st, key, value, depth + 1);
    Py_DECREF(value);
    return status;
}

int argument_types_key(module_state *st, PyObject *const *args, Py_ssize_t n, PyObject **key)
{
    key_buffer buffer;
    buffer.length = 0;
    *key = NULL;
    if (numpy_require() < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int status = put_argument(st, &buffer, args[i], 0);
        if (status != KEYED)
            return status < 0 ? -1 : 0;
    }
    *key = PyBytes_FromStringAndSize((const char *)buffer.bytes, buffer.length);
    return *key == NULL ? -1 : 0;
}
