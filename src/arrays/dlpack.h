/* dlpack.h: DLPack, the tensor exchange of the Python array API standard (CuPy, PyTorch, JAX):
 * its C ABI (DLPack 1.x, with the legacy unversioned struct), and our side of it (dlpack.c):
 * DeviceNDArray.__dlpack__ / __dlpack_device__, and cuda.from_dlpack. */
#ifndef NUMBA_CUDA_C_DLPACK_H
#define NUMBA_CUDA_C_DLPACK_H

#include "driver/state.h"

#include <stdint.h>

/* The ABI, as the DLPack specification lays it out (dlpack.h of dmlc/dlpack, version 1.1). */
enum { DLPACK_CPU = 1, DLPACK_CUDA = 2, DLPACK_CUDA_HOST = 3, DLPACK_CUDA_MANAGED = 13 };
enum { DLPACK_INT = 0, DLPACK_UINT = 1, DLPACK_FLOAT = 2, DLPACK_BFLOAT = 4, DLPACK_COMPLEX = 5, DLPACK_BOOL = 6 };
#define DLPACK_FLAG_READ_ONLY (1ULL << 0)
#define DLPACK_FLAG_IS_COPIED (1ULL << 1)

typedef struct {
    int32_t device_type; /* an enum in the specification: int-sized */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: C-contiguous */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* DeviceNDArray.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) and
 * __dlpack_device__(): methods of the array type (devicearray.c lists them). */
PyObject *devicearray_dlpack(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *devicearray_dlpack_device(PyObject *self, PyObject *unused);

/* from_dlpack(obj) -> DeviceNDArray: a view of a DLPack producer's CUDA memory, without a copy. */
PyObject *dlpack_import(module_state *st, PyObject *obj);

int dlpack_type_init(PyObject *module, module_state *st);
extern PyMethodDef dlpack_module_methods[];

#endif
