/* device.c: Device (numba.cuda.cudadrv.driver.Device) and the device list behind cuda.gpus.
 * One Device per ordinal, built once and kept in the module state; attributes such as
 * MAX_THREADS_PER_BLOCK are read by name from the driver at first access and cached. */
#include "core/device.h"

#include <structmember.h>

#include "driver/errors.h"

static const struct {
    const char *name;
    int code;
} device_attributes[] = {
#define DEVICE_ATTRIBUTE_ENTRY(name, value) {#name, value},
    CU_DEVICE_ATTRIBUTE_VALUES(DEVICE_ATTRIBUTE_ENTRY)
#undef DEVICE_ATTRIBUTE_ENTRY
};

static int device_attribute_code(const char *name)
{
    for (size_t i = 0; i < sizeof device_attributes / sizeof *device_attributes; i++)
        if (strcmp(device_attributes[i].name, name) == 0)
            return device_attributes[i].code;
    return -1;
}

static int device_read_attribute(module_state *st, DeviceObject *self, int code, int *value)
{
    return CU_CALL(st, cuDeviceGetAttribute, (value, (CUdevice_attribute)code, self->handle));
}

static PyObject *device_format_uuid(const CUuuid *uuid)
{
    const unsigned char *b = (const unsigned char *)uuid->bytes;
    char text[64];
    snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return PyUnicode_FromString(text);
}

static DeviceObject *device_create(module_state *st, int ordinal)
{
    DeviceObject *self = PyObject_GC_New(DeviceObject, st->DeviceType);
    if (self == NULL)
        return NULL;
    self->id = ordinal;
    self->name = self->uuid = self->attributes = NULL;
    self->primary_context = NULL;
    self->resetting = 0;
    self->resets = 0;
    PyObject_GC_Track(self);

    char name[256] = "";
    CUuuid uuid;
    if (CU_CALL(st, cuDeviceGet, (&self->handle, ordinal)) < 0 ||
        CU_CALL(st, cuDeviceGetName, (name, (int)sizeof name - 1, self->handle)) < 0 ||
        CU_CALL(st, cuDeviceGetUuid, (&uuid, self->handle)) < 0 ||
        device_read_attribute(st, self, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &self->cc_major) < 0 ||
        device_read_attribute(st, self, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &self->cc_minor) < 0)
        goto error;
    if ((self->name = PyUnicode_FromString(name)) == NULL || (self->uuid = device_format_uuid(&uuid)) == NULL ||
        (self->attributes = PyDict_New()) == NULL)
        goto error;
    return self;
error:
    Py_DECREF(self);
    return NULL;
}

PyObject *devices_all(module_state *st)
{
    if (st->devices != NULL)
        return Py_NewRef(st->devices);
    /* Loading the driver releases the GIL (and building the Devices may run the garbage collector's
     * finalizers): another thread's first use may have built the list meanwhile, and there must be
     * only one, so it is looked for again after each. */
    if (cu_require_driver(st) < 0)
        return NULL;
    if (st->devices != NULL)
        return Py_NewRef(st->devices);
    int count = 0;
    if (CU_CALL(st, cuDeviceGetCount, (&count)) < 0)
        return NULL;
    PyObject *devices = PyTuple_New(count);
    if (devices == NULL)
        return NULL;
    for (int i = 0; i < count; i++) {
        DeviceObject *device = device_create(st, i);
        if (device == NULL) {
            Py_DECREF(devices);
            return NULL;
        }
        PyTuple_SET_ITEM(devices, i, (PyObject *)device);
    }
    if (st->devices != NULL) {
        Py_DECREF(devices);
        return Py_NewRef(st->devices);
    }
    st->devices = Py_NewRef(devices);
    return devices;
}

DeviceObject *device_get(module_state *st, int devnum)
{
    PyObject *devices = devices_all(st);
    if (devices == NULL)
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(devices);
    Py_DECREF(devices); /* the module state keeps them */
    if (devnum < 0 || devnum >= count) {
        PyErr_Format(PyExc_IndexError, "CUDA device %d does not exist: %zd device%s found", devnum, count,
                     count == 1 ? "" : "s");
        return NULL;
    }
    return (DeviceObject *)PyTuple_GET_ITEM(st->devices, devnum);
}

static PyObject *Device_get_device_identity(PyObject *op, PyObject *Py_UNUSED(unused))
{
    module_state *st = state_of(op);
    DeviceObject *self = (DeviceObject *)op;
    int domain, bus, slot;
    if (device_read_attribute(st, self, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &domain) < 0 ||
        device_read_attribute(st, self, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &bus) < 0 ||
        device_read_attribute(st, self, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &slot) < 0)
        return NULL;
    return Py_BuildValue("{sisisi}", "pci_domain_id", domain, "pci_bus_id", bus, "pci_device_id", slot);
}

/* Attributes by name, as numba's Device.__getattr__: read once from the driver, then cached. */
static PyObject *Device_getattro(PyObject *op, PyObject *name)
{
    PyObject *value = PyObject_GenericGetAttr(op, name);
    if (value != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError) || !PyUnicode_Check(name))
        return value;
    DeviceObject *self = (DeviceObject *)op;
    value = PyDict_GetItemWithError(self->attributes, name);
    if (value != NULL) {
        PyErr_Clear();
        return Py_NewRef(value);
    }
    const char *text = PyUnicode_AsUTF8(name);
    int code = text ? device_attribute_code(text) : -1;
    if (code < 0)
        return NULL; /* the AttributeError stands */
    PyErr_Clear();
    int number;
    if (device_read_attribute(state_of(op), self, code, &number) < 0)
        return NULL;
    value = PyLong_FromLong(number);
    if (value != NULL && PyDict_SetItem(self->attributes, name, value) < 0)
        Py_CLEAR(value);
    return value;
}

static PyObject *Device_dir(PyObject *op, PyObject *Py_UNUSED(unused))
{
    PyObject *names = PyObject_Dir((PyObject *)Py_TYPE(op));
    if (names == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof device_attributes / sizeof *device_attributes; i++) {
        PyObject *name = PyUnicode_FromString(device_attributes[i].name);
        if (name == NULL || PyList_Append(names, name) < 0) {
            Py_XDECREF(name);
            Py_DECREF(names);
            return NULL;
        }
        Py_DECREF(name);
    }
    return names;
}

static PyObject *Device_repr(PyObject *op)
{
    DeviceObject *self = (DeviceObject *)op;
    return PyUnicode_FromFormat("<CUDA device %d '%U'>", self->id, self->name);
}

static PyObject *Device_get_compute_capability(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceObject *self = (DeviceObject *)op;
    return Py_BuildValue("(ii)", self->cc_major, self->cc_minor);
}

static PyObject *Device_get_supports_float16(PyObject *op, void *Py_UNUSED(closure))
{
    DeviceObject *self = (DeviceObject *)op;
    return PyBool_FromLong(self->cc_major * 10 + self->cc_minor >= 53);
}

static PyObject *Device_get_supports_bfloat16(PyObject *op, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(((DeviceObject *)op)->cc_major >= 8);
}

static int Device_traverse(PyObject *op, visitproc visit, void *arg)
{
    DeviceObject *self = (DeviceObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->primary_context);
    Py_VISIT(self->attributes);
    return 0;
}

static int Device_clear(PyObject *op)
{
    DeviceObject *self = (DeviceObject *)op;
    Py_CLEAR(self->primary_context);
    Py_CLEAR(self->attributes);
    return 0;
}

static void Device_dealloc(PyObject *op)
{
    DeviceObject *self = (DeviceObject *)op;
    dealloc_begin(op, NULL);
    Device_clear(op);
    Py_CLEAR(self->name);
    Py_CLEAR(self->uuid);
    dealloc_end(op);
}

static PyMethodDef Device_methods[] = {
    REPR_HTML_METHOD,
    {"get_device_identity", Device_get_device_identity, METH_NOARGS,
     "The PCI identity: {'pci_domain_id', 'pci_bus_id', 'pci_device_id'}."},
    {"__dir__", Device_dir, METH_NOARGS, NULL},
    {0},
};

static PyMemberDef Device_members[] = {
    {"id", T_INT, offsetof(DeviceObject, id), READONLY, "The integer ID of the device."},
    {"name", T_OBJECT, offsetof(DeviceObject, name), READONLY,
     "The name of the device (e.g. 'NVIDIA H100 80GB HBM3')."},
    {"uuid", T_OBJECT, offsetof(DeviceObject, uuid), READONLY, "The device UUID, 'GPU-xxxxxxxx-xxxx-...'."},
    {0},
};

static PyGetSetDef Device_getset[] = {
    {"compute_capability", Device_get_compute_capability, NULL, "(major, minor)", NULL},
    {"supports_float16", Device_get_supports_float16, NULL, "True from compute capability 5.3.", NULL},
    {"supports_bfloat16", Device_get_supports_bfloat16, NULL, "True from compute capability 8.0.", NULL},
    {0},
};

static PyType_Slot Device_slots[] = {
    {Py_tp_doc, "A CUDA device. Obtain through cuda.gpus, cuda.get_current_device() or cuda.list_devices()."},
    {Py_tp_repr, Device_repr},
    {Py_tp_getattro, Device_getattro},
    {Py_tp_methods, Device_methods},
    {Py_tp_members, Device_members},
    {Py_tp_getset, Device_getset},
    {Py_tp_traverse, Device_traverse},
    {Py_tp_clear, Device_clear},
    {Py_tp_dealloc, Device_dealloc},
    {0, NULL},
};

static PyType_Spec Device_spec = {
    .name = "numba_cuda_c.Device",
    .basicsize = sizeof(DeviceObject),
    /* not immutable: users replace methods on the class, as they can numba's */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Device_slots,
};

int device_type_init(PyObject *module, module_state *st)
{
    return type_create(module, &Device_spec, NULL, &st->DeviceType, 1);
}

/* Module functions */

static PyObject *module_list_devices(PyObject *module, PyObject *Py_UNUSED(unused))
{
    PyObject *devices = devices_all(state_of_module(module));
    if (devices == NULL)
        return NULL;
    PyObject *list = PySequence_List(devices);
    Py_DECREF(devices);
    return list;
}

static PyObject *module_get_device(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int devnum = 0;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "get_device() takes at most one argument (devnum)");
        return NULL;
    }
    if (nargs == 1 && int_from_object(args[0], &devnum, "devnum") < 0)
        return NULL;
    DeviceObject *device = device_get(state_of_module(module), devnum);
    return device ? Py_NewRef((PyObject *)device) : NULL;
}

PyMethodDef device_module_methods[] = {
    {"list_devices", module_list_devices, METH_NOARGS, "Return a list of all detected devices."},
    {"get_device", (PyCFunction)(void (*)(void))module_get_device, METH_FASTCALL,
     "get_device(devnum=0): the Device with this ordinal."},
    {0},
};
