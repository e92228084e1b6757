/* raw_copies.h: numba.cuda.cudadrv.driver's raw-pointer helpers (host_to_device, ...)
 * and the thread's context stack as numba's driver object shows it (raw_copies.c). */
#ifndef NUMBA_CUDA_C_RAW_COPIES_H
#define NUMBA_CUDA_C_RAW_COPIES_H

#include "driver/state.h"

extern PyMethodDef driver_module_methods[];

#endif
