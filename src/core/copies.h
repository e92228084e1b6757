/* copies.h: one copy of bytes between host and device memory in a context, the way every copy goes
 * (DeviceNDArray's copies, to_device, the raw-pointer copies of numba's driver module, views'
 * reads): numba's driver-object overrides first, the context's staging ring for large copies of
 * pageable memory, stream 0 synchronous. */
#ifndef NUMBA_CUDA_C_COPIES_H
#define NUMBA_CUDA_C_COPIES_H

#include "core/context.h"

typedef enum { HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE } transfer_direction;

/* One copy of `size` bytes in `context`, with the GIL released. `stream` is a Stream, or NULL /
 * None / 0 for a synchronous copy on the default stream (numba's stream=0). */
int transfer_copy(module_state *st, ContextObject *context, void *host, CUdeviceptr device_dst,
                  CUdeviceptr device_src, size_t size, PyObject *stream, transfer_direction direction);

/* _driver_override: what numba's driver object's copy attributes are now. */
extern PyMethodDef copies_module_methods[];

#endif
