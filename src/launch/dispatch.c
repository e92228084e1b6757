/* dispatch.c: Dispatch, the per-call path of a @cuda.jit kernel's launch configuration
 * (kernel[griddim, blockdim, stream, sharedmem](*args)).
 *
 * numba types each argument on every call to find the compiled kernel. Here the arguments' types
 * become one bytes key in C (argument_types.c: arrays, scalars, records, enum members and tuples of
 * them), looked up in a dict of LaunchConfigs; a hit goes straight to the LaunchConfig's vectorcall.
 * A miss, or an argument the key cannot describe (CUDA-array-interface objects, namedtuples,
 * cuda.In/Out hints), calls the dispatcher's Python `specialise(*args)`, which types the arguments,
 * compiles if it must and returns the LaunchConfig, remembered under the key (at most
 * DISPATCH_CONFIGS_MAX keys: a program that launches with ever new types starts the dict afresh).
 * While numba's pre_launch_callbacks list holds any callback, every call asks `specialise` (which
 * runs them): a configuration without callbacks pays one list-size read. What else numba's
 * _LaunchConfiguration has (the launch's args, ...) is read from a Python object given at creation. */
#include "launch/dispatch.h"

#include "launch/argument_types.h"
#include "launch/launch.h"

#include <structmember.h>

#define DISPATCH_CONFIGS_MAX 1024

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *configs;    /* argument key (bytes) -> LaunchConfig */
    PyObject *specialise; /* specialise(*args) -> LaunchConfig */
    PyObject *reduce;     /* reduce() -> what __reduce__ returns, or NULL: not picklable */
    PyObject *info;       /* (dispatcher, griddim, blockdim, stream, sharedmem): numba's attributes, or NULL */
    PyObject *callbacks;  /* numba's pre_launch_callbacks (a list), or NULL */
    PyObject *more;       /* the object whose attributes stand for those a Dispatch lacks, or NULL */
} DispatchObject;

static PyObject *Dispatch_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    DispatchObject *self = (DispatchObject *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_SetString(PyExc_TypeError, "kernels take positional arguments only");
        return NULL;
    }
    module_state *st = state_of(callable);
    PyObject *key;
    /* each argument's kind, told once: for the key, then for the launch */
    argument_kind kinds[LAUNCH_STACK_ARGS];
    if (argument_types_key(st, args, n, &key, n <= LAUNCH_STACK_ARGS ? kinds : NULL) < 0)
        return NULL;
    int with_callbacks = self->callbacks != NULL && PyList_GET_SIZE(self->callbacks) > 0;
    PyObject *config = key != NULL && !with_callbacks ? PyDict_GetItemWithError(self->configs, key) : NULL;
    if (config != NULL) {
        Py_DECREF(key);
        Py_INCREF(config); /* the launch runs Python code (copies, CAI): the dict may change meanwhile */
        PyObject *result = Py_IS_TYPE(config, st->LaunchConfigType) && n <= LAUNCH_STACK_ARGS
                               ? launch_config_call((LaunchConfigObject *)config, args, n, kinds)
                               : PyObject_Vectorcall(config, args, nargsf, NULL);
        Py_DECREF(config);
        return result;
    }
    if (PyErr_Occurred() || (config = PyObject_Vectorcall(self->specialise, args, n, NULL)) == NULL) {
        Py_XDECREF(key);
        return NULL;
    }
    if (key != NULL && PyDict_GET_SIZE(self->configs) >= DISPATCH_CONFIGS_MAX)
        PyDict_Clear(self->configs);
    int stored = key != NULL ? PyDict_SetItem(self->configs, key, config) : 0;
    Py_XDECREF(key);
    PyObject *result = stored < 0 ? NULL : PyObject_Vectorcall(config, args, nargsf, NULL);
    Py_DECREF(config);
    return result;
}

static PyObject *Dispatch_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *specialise, *reduce = Py_None, *info = Py_None, *callbacks = Py_None, *more = Py_None;
    static char *keywords[] = {"specialise", "reduce", "info", "callbacks", "more", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO:Dispatch", keywords, &specialise, &reduce, &info,
                                     &callbacks, &more))
        return NULL;
    if (callbacks != Py_None && !PyList_CheckExact(callbacks)) {
        PyErr_SetString(PyExc_TypeError, "Dispatch: callbacks is a list");
        return NULL;
    }
    if (!PyCallable_Check(specialise) || (reduce != Py_None && !PyCallable_Check(reduce))) {
        PyErr_SetString(PyExc_TypeError, "Dispatch(specialise, reduce=None, info=None): both must be callable");
        return NULL;
    }
    if (info != Py_None && !(PyTuple_Check(info) && PyTuple_GET_SIZE(info) == 5)) {
        PyErr_SetString(PyExc_TypeError, "Dispatch: info is (dispatcher, griddim, blockdim, stream, sharedmem)");
        return NULL;
    }
    DispatchObject *self = (DispatchObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = Dispatch_vectorcall;
    self->specialise = Py_NewRef(specialise);
    self->reduce = reduce == Py_None ? NULL : Py_NewRef(reduce);
    self->info = info == Py_None ? NULL : Py_NewRef(info);
    self->callbacks = callbacks == Py_None ? NULL : Py_NewRef(callbacks);
    self->more = more == Py_None ? NULL : Py_NewRef(more);
    if ((self->configs = PyDict_New()) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int Dispatch_traverse(PyObject *op, visitproc visit, void *arg)
{
    DispatchObject *self = (DispatchObject *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->configs);
    Py_VISIT(self->specialise);
    Py_VISIT(self->reduce);
    Py_VISIT(self->info);
    Py_VISIT(self->callbacks);
    Py_VISIT(self->more);
    return 0;
}

static int Dispatch_clear(PyObject *op)
{
    DispatchObject *self = (DispatchObject *)op;
    Py_CLEAR(self->configs);
    Py_CLEAR(self->specialise);
    Py_CLEAR(self->reduce);
    Py_CLEAR(self->info);
    Py_CLEAR(self->callbacks);
    Py_CLEAR(self->more);
    return 0;
}

static void Dispatch_dealloc(PyObject *op)
{
    dealloc_begin(op, NULL);
    Dispatch_clear(op);
    dealloc_end(op);
}

static PyObject *Dispatch_get_configs(PyObject *op, void *Py_UNUSED(closure))
{
    return PyDictProxy_New(((DispatchObject *)op)->configs);
}

/* numba's _LaunchConfiguration attributes: dispatcher, griddim and blockdim (3-tuples), stream, sharedmem */
static PyObject *Dispatch_info_item(PyObject *op, void *closure)
{
    PyObject *info = ((DispatchObject *)op)->info;
    if (info == NULL) {
        PyErr_SetString(PyExc_AttributeError, "this Dispatch was made without its launch configuration");
        return NULL;
    }
    return Py_NewRef(PyTuple_GET_ITEM(info, (Py_ssize_t)closure));
}

static PyObject *Dispatch_get_callbacks(PyObject *op, void *Py_UNUSED(closure))
{
    PyObject *callbacks = ((DispatchObject *)op)->callbacks;
    if (callbacks == NULL) {
        PyErr_SetString(PyExc_AttributeError, "this Dispatch was made without pre_launch_callbacks");
        return NULL;
    }
    return Py_NewRef(callbacks);
}

/* An attribute a Dispatch lacks is `more`'s (numba's _LaunchConfiguration attributes kept in Python). */
static PyObject *Dispatch_getattro(PyObject *op, PyObject *name)
{
    PyObject *value = PyObject_GenericGetAttr(op, name);
    PyObject *more = ((DispatchObject *)op)->more;
    if (value != NULL || more == NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return value;
    PyErr_Clear();
    return PyObject_GetAttr(more, name);
}

/* Pickled as its dispatcher says (the kernel, then kernel[key] on the other side); refused otherwise. */
static PyObject *Dispatch_reduce(PyObject *op, PyObject *Py_UNUSED(unused))
{
    DispatchObject *self = (DispatchObject *)op;
    if (self->reduce == NULL) {
        PyErr_SetString(PyExc_TypeError, "cannot pickle this launch configuration");
        return NULL;
    }
    return PyObject_CallNoArgs(self->reduce);
}

static PyMethodDef Dispatch_methods[] = {
    {"__reduce__", Dispatch_reduce, METH_NOARGS, "Pickled as the kernel and its launch configuration."},
    {0},
};

static PyMemberDef Dispatch_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(DispatchObject, vectorcall), READONLY, NULL},
    {0},
};

static PyGetSetDef Dispatch_getset[] = {
    {"configs", Dispatch_get_configs, NULL, "The LaunchConfigs found so far, by argument key (read-only).", NULL},
    {"dispatcher", Dispatch_info_item, NULL, "The kernel this configures.", (void *)0},
    {"griddim", Dispatch_info_item, NULL, "The grid's dimensions, a 3-tuple.", (void *)1},
    {"blockdim", Dispatch_info_item, NULL, "A block's dimensions, a 3-tuple.", (void *)2},
    {"stream", Dispatch_info_item, NULL, "The stream launches go to (0: the default stream).", (void *)3},
    {"sharedmem", Dispatch_info_item, NULL, "Dynamic shared memory bytes per block.", (void *)4},
    {"pre_launch_callbacks", Dispatch_get_callbacks, NULL,
     "numba's: callback(kernel, launch_config) run before each launch, in order.", NULL},
    {0},
};

static PyType_Slot Dispatch_slots[] = {
    {Py_tp_doc, "Dispatch(specialise, reduce=None, info=None, callbacks=None, more=None): calls the "
                "LaunchConfig for its arguments' types; specialise(*args) finds it the first time (every time "
                "while the list callbacks holds any); reduce() says how it pickles; more's attributes stand "
                "for those it lacks."},
    {Py_tp_new, Dispatch_new},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_traverse, Dispatch_traverse},
    {Py_tp_clear, Dispatch_clear},
    {Py_tp_dealloc, Dispatch_dealloc},
    {Py_tp_members, Dispatch_members},
    {Py_tp_methods, Dispatch_methods},
    {Py_tp_getset, Dispatch_getset},
    {Py_tp_getattro, Dispatch_getattro},
    {0, NULL},
};

static PyType_Spec Dispatch_spec = {
    .name = "numba_cuda_c._cuda.Dispatch",
    .basicsize = sizeof(DispatchObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_VECTORCALL,
    .slots = Dispatch_slots,
};

int dispatch_type_init(PyObject *module, module_state *st)
{
    return type_create(module, &Dispatch_spec, NULL, &st->DispatchType, 1);
}
