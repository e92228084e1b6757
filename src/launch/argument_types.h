/* argument_types.h: the types a @cuda.jit kernel is specialised on, as one bytes key per launch
 * (argument_types.c). The dispatcher's typeof (pyjit/dispatcher.py) gives a kernel's signature from
 * the same arguments: two argument lists with one key have one signature, and need the same
 * conversions at launch (records copied, enum members as their values), so the key finds the
 * launch configuration that Python specialised once. */
#ifndef NUMBA_CUDA_C_ARGUMENT_TYPES_H
#define NUMBA_CUDA_C_ARGUMENT_TYPES_H

#include "launch/argument_kinds.h"

/* Sets *key to a new bytes object naming the arguments' types, or to NULL (no error) where an
 * argument is of a kind the key does not describe (Python's typeof must type it each time), and,
 * where `kinds` is not NULL, kinds[i] to each argument's kind (for the launch, which then need not
 * tell them again; valid up to the argument the key stopped at when *key is NULL: use them only
 * with a key). 0, or -1 with an exception. */
int argument_types_key(module_state *st, PyObject *const *args, Py_ssize_t n, PyObject **key, argument_kind *kinds);

#endif
