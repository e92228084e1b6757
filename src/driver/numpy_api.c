/* numpy_api.c: NumPy's C API table, imported at first need (not at module import: NumPy is the
 * package's slowest import, and many programs never need it in C). */
#define NUMBA_CUDA_C_NUMPY_OWNER
#include "driver/numpy_api.h"

int numpy_require(void)
{
    if (PyArray_API != NULL)
        return 0;
    return _import_array() < 0 ? -1 : 0;
}
