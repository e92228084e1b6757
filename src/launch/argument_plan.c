/* argument_plan.c: ArgumentPlan, what one specialisation's launch does to its arguments before the LaunchConfig
 * (or a declared signature's) takes them, for the launches the C key does not describe as they are:
 *
 *   1. convert: the arguments at these positions go through converter(value, after) (pyjit/arguments.py: a
 *      NumPy record copied to the device, an enum member's value, a namedtuple as a tuple, cuda.In/Out/InOut),
 *      which may append to `after` what runs once the kernel is launched (copies back);
 *   2. casts: per argument, a function that casts it to the declared signature's type, or None (numbers only:
 *      a Python int to the declared int32, an int to a pointer);
 *   3. kept: only the arguments at these positions are passed (None and left-out arguments are known when
 *      compiling, pyjit/optional.py);
 *   4. flatten: the kept arguments at these indices are tuples holding arrays, passed as their leaves;
 *   5. the launch, then check() (debug=True: what the kernel raised), then the `after` steps.
 *
 * One object per specialisation, made by the dispatcher (dispatcher.py, _specialise_function) where a launch
 * needs any of these; a launch that needs none calls its LaunchConfig directly. */
#include "launch/argument_plan.h"

#include <structmember.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *launch;    /* the LaunchConfig, or any callable taking the arguments as the kernel does */
    PyObject *convert;   /* a tuple of positions, or NULL */
    PyObject *converter; /* converter(value, after) -> the value passed */
    PyObject *kept;      /* a tuple of positions, or NULL: all */
    PyObject *flatten;   /* a tuple of indices into the kept arguments, or NULL */
    PyObject *casts;     /* a tuple of callables or None, by the call's positions, or NULL */
    PyObject *check;     /* check() after the launch, or NULL */
} ArgumentPlanObject;

/* Whether position k is in `positions` (a short tuple of ints, or NULL). */
static int plan_holds(PyObject *positions, Py_ssize_t k)
{
    if (positions == NULL)
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(positions); i++)
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, i)) == k)
            return 1;
    return 0;
}

/* Appends value's leaves to list: a tuple's items, nested tuples' too, in order. */
static int plan_append_leaves(PyObject *list, PyObject *value)
{
    if (!PyTuple_Check(value))
        return PyList_Append(list, value);
    if (Py_EnterRecursiveCall(" flattening a kernel's tuple argument"))
        return -1;
    int status = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value) && status == 0; i++)
        status = plan_append_leaves(list, PyTuple_GET_ITEM(value, i));
    Py_LeaveRecursiveCall();
    return status;
}

/* The arguments the launch takes (a new list), from the call's: converted and cast, kept, flattened. */
static PyObject *plan_arguments(ArgumentPlanObject *self, PyObject *const *args, Py_ssize_t n, PyObject **after)
{
    PyObject *values = PyList_New(n), *passed = NULL;
    if (values == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *value = args[k];
        if (plan_holds(self->convert, k)) {
            if (*after == NULL && (*after = PyList_New(0)) == NULL)
                goto fail;
            value = PyObject_CallFunctionObjArgs(self->converter, value, *after, NULL);
            if (value == NULL)
                goto fail;
        } else {
            Py_INCREF(value);
        }
        PyObject *cast =
            self->casts != NULL && k < PyTuple_GET_SIZE(self->casts) ? PyTuple_GET_ITEM(self->casts, k) : Py_None;
        if (cast != Py_None) {
            Py_SETREF(value, PyObject_CallOneArg(cast, value));
            if (value == NULL)
                goto fail;
        }
        PyList_SET_ITEM(values, k, value);
    }
    Py_ssize_t count = self->kept != NULL ? PyTuple_GET_SIZE(self->kept) : n;
    if ((passed = PyList_New(0)) == NULL)
        goto fail;
    for (Py_ssize_t j = 0; j < count; j++) {
        Py_ssize_t k = self->kept != NULL ? PyLong_AsSsize_t(PyTuple_GET_ITEM(self->kept, j)) : j;
        if (k < 0 || k >= n) {
            PyErr_Format(PyExc_TypeError, "this kernel's launch was specialised for more than %zd arguments", n);
            goto fail;
        }
        PyObject *value = PyList_GET_ITEM(values, k);
        if ((plan_holds(self->flatten, j) ? plan_append_leaves(passed, value) : PyList_Append(passed, value)) < 0)
            goto fail;
    }
    Py_DECREF(values);
    return passed;
fail:
    Py_DECREF(values);
    Py_XDECREF(passed);
    return NULL;
}

static PyObject *ArgumentPlan_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                         PyObject *kwnames)
{
    ArgumentPlanObject *self = (ArgumentPlanObject *)callable;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_SetString(PyExc_TypeError, "kernels take positional arguments only");
        return NULL;
    }
    PyObject *after = NULL; /* what runs once the kernel is launched: copies back */
    PyObject *passed = plan_arguments(self, args, PyVectorcall_NARGS(nargsf), &after);
    PyObject *result = NULL;
    if (passed != NULL)
        result = PyObject_Vectorcall(self->launch, PySequence_Fast_ITEMS(passed), PyList_GET_SIZE(passed), NULL);
    Py_XDECREF(passed);
    if (result != NULL && self->check != NULL) {
        PyObject *checked = PyObject_CallNoArgs(self->check);
        if (checked == NULL)
            Py_CLEAR(result);
        Py_XDECREF(checked);
    }
    for (Py_ssize_t i = 0; result != NULL && after != NULL && i < PyList_GET_SIZE(after); i++) {
        PyObject *done = PyObject_CallNoArgs(PyList_GET_ITEM(after, i));
        if (done == NULL)
            Py_CLEAR(result);
        Py_XDECREF(done);
    }
    Py_XDECREF(after);
    return result;
}

/* positions: None, or a tuple of non-negative ints (checked once, so the call reads them without checks). */
static int plan_positions(PyObject *positions, const char *what, PyObject **field)
{
    if (positions == Py_None)
        return 0;
    if (!PyTuple_CheckExact(positions)) {
        PyErr_Format(PyExc_TypeError, "ArgumentPlan: %s is a tuple of positions", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(positions); i++) {
        PyObject *item = PyTuple_GET_ITEM(positions, i);
        if (!PyLong_CheckExact(item) || PyLong_AsSsize_t(item) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "ArgumentPlan: %s holds non-negative ints", what);
            return -1;
        }
    }
    *field = Py_NewRef(positions);
    return 0;
}

static int plan_callable(PyObject *value, const char *what, PyObject **field)
{
    if (value == Py_None)
        return 0;
    if (!PyCallable_Check(value)) {
        PyErr_Format(PyExc_TypeError, "ArgumentPlan: %s must be callable", what);
        return -1;
    }
    *field = Py_NewRef(value);
    return 0;
}

static PyObject *ArgumentPlan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *launch, *convert = Py_None, *converter = Py_None, *kept = Py_None, *flatten = Py_None;
    PyObject *casts = Py_None, *check = Py_None;
    static char *keywords[] = {"launch", "convert", "converter", "kept", "flatten", "casts", "check", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOOOOO:ArgumentPlan", keywords, &launch, &convert,
                                     &converter, &kept, &flatten, &casts, &check))
        return NULL;
    if (convert != Py_None && converter == Py_None) {
        PyErr_SetString(PyExc_TypeError, "ArgumentPlan: converting arguments needs a converter");
        return NULL;
    }
    if (casts != Py_None && !PyTuple_CheckExact(casts)) {
        PyErr_SetString(PyExc_TypeError, "ArgumentPlan: casts is a tuple of callables or None");
        return NULL;
    }
    for (Py_ssize_t i = 0; casts != Py_None && i < PyTuple_GET_SIZE(casts); i++) {
        PyObject *cast = PyTuple_GET_ITEM(casts, i);
        if (cast != Py_None && !PyCallable_Check(cast)) {
            PyErr_SetString(PyExc_TypeError, "ArgumentPlan: casts is a tuple of callables or None");
            return NULL;
        }
    }
    ArgumentPlanObject *self = (ArgumentPlanObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = ArgumentPlan_vectorcall;
    self->casts = casts == Py_None ? NULL : Py_NewRef(casts);
    if (plan_callable(launch, "launch", &self->launch) < 0 || launch == Py_None ||
        plan_positions(convert, "convert", &self->convert) < 0 ||
        plan_callable(converter, "converter", &self->converter) < 0 ||
        plan_positions(kept, "kept", &self->kept) < 0 || plan_positions(flatten, "flatten", &self->flatten) < 0 ||
        plan_callable(check, "check", &self->check) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "ArgumentPlan: launch must be callable");
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int ArgumentPlan_traverse(PyObject *op, visitproc visit, void *arg)
{
    ArgumentPlanObject *self = (ArgumentPlanObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->launch);
    Py_VISIT(self->convert);
    Py_VISIT(self->converter);
    Py_VISIT(self->kept);
    Py_VISIT(self->flatten);
    Py_VISIT(self->casts);
    Py_VISIT(self->check);
    return 0;
}

static int ArgumentPlan_clear(PyObject *op)
{
    ArgumentPlanObject *self = (ArgumentPlanObject *)op;
    Py_CLEAR(self->launch);
    Py_CLEAR(self->convert);
    Py_CLEAR(self->converter);
    Py_CLEAR(self->kept);
    Py_CLEAR(self->flatten);
    Py_CLEAR(self->casts);
    Py_CLEAR(self->check);
    return 0;
}

static void ArgumentPlan_dealloc(PyObject *op)
{
    dealloc_begin(op, NULL);
    ArgumentPlan_clear(op);
    dealloc_end(op);
}

static PyMemberDef ArgumentPlan_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(ArgumentPlanObject, vectorcall), READONLY, NULL},
    {"launch", T_OBJECT, offsetof(ArgumentPlanObject, launch), READONLY, "What the arguments go to."},
    {"convert", T_OBJECT, offsetof(ArgumentPlanObject, convert), READONLY, "The positions converted, or None."},
    {"kept", T_OBJECT, offsetof(ArgumentPlanObject, kept), READONLY, "The positions passed, or None: all."},
    {"flatten", T_OBJECT, offsetof(ArgumentPlanObject, flatten), READONLY,
     "The indices of the kept arguments passed as their leaves, or None."},
    {"casts", T_OBJECT, offsetof(ArgumentPlanObject, casts), READONLY, "Per argument, its cast or None."},
    {"check", T_OBJECT, offsetof(ArgumentPlanObject, check), READONLY, "What runs after the launch, or None."},
    {0},
};

static PyType_Slot ArgumentPlan_slots[] = {
    {Py_tp_doc, "ArgumentPlan(launch, *, convert=None, converter=None, kept=None, flatten=None, casts=None, "
                "check=None): calls launch with the arguments converted (converter(value, after) at the positions "
                "convert), cast (casts, by position), kept, and flattened (tuples at the kept indices flatten, as "
                "their leaves), then check(), then what the conversions put in after."},
    {Py_tp_new, ArgumentPlan_new},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_traverse, ArgumentPlan_traverse},
    {Py_tp_clear, ArgumentPlan_clear},
    {Py_tp_dealloc, ArgumentPlan_dealloc},
    {Py_tp_members, ArgumentPlan_members},
    {0, NULL},
};

static PyType_Spec ArgumentPlan_spec = {
    .name = "numba_cuda_c._cuda.ArgumentPlan",
    .basicsize = sizeof(ArgumentPlanObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_VECTORCALL,
    .slots = ArgumentPlan_slots,
};

int argument_plan_type_init(PyObject *module, module_state *st)
{
    return type_create(module, &ArgumentPlan_spec, NULL, &st->ArgumentPlanType, 1);
}
