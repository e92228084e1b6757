/* foreign.h: checks of memory that other libraries describe (__cuda_array_interface__ dicts, raw
 * pointers), as far as the driver can tell, before a kernel faults on it (foreign.c). */
#ifndef NUMBA_CUDA_C_FOREIGN_H
#define NUMBA_CUDA_C_FOREIGN_H

#include "driver/state.h"

/* 0 if the `span` bytes from `pointer + low` (low <= 0: negative strides reach below the data
 * pointer) lie in memory the driver knows; -1 with ValueError naming `what` otherwise: a NULL
 * pointer with a non-zero size, a pointer into no allocation, an extent past its allocation.
 * A context must be current. Answers are cached by pointer, so repeated arrays cost a lookup. */
int foreign_check_extent(module_state *st, CUdeviceptr pointer, long long low, size_t span, const char *what);

#endif
