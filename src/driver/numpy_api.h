/* numpy_api.h: NumPy's C API, imported at first use rather than at import time, so that
 * `import numba_cuda_c` stays fast. Call numpy_require() before any PyArray_* function. */
#ifndef NUMBA_CUDA_C_NUMPY_API_H
#define NUMBA_CUDA_C_NUMPY_API_H

#define NPY_NO_DEPRECATED_API NPY_1_23_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL numba_cuda_c_ARRAY_API
#ifndef NUMBA_CUDA_C_NUMPY_OWNER
#define NO_IMPORT_ARRAY
#endif
#include "driver/state.h"
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

/* Imports numpy's C API once. 0, or -1 with an exception set. */
int numpy_require(void);

#endif
