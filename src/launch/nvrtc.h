/* nvrtc.h: NVRTC, found at first use in the CUDA library directories (see
 * numba_cuda_c/toolchain/libraries.py), and the runtime version numba's cuda.runtime reports. */
#ifndef NUMBA_CUDA_C_NVRTC_H
#define NUMBA_CUDA_C_NVRTC_H

#include "driver/state.h"

/* Loads NVRTC on first use; raises NvrtcError naming where it looked when it is not found. */
int nvrtc_require(module_state *st);

extern PyMethodDef nvrtc_module_methods[];

#endif
