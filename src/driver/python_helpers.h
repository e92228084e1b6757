/* python_helpers.h: every function of the package's Python modules that the C core calls, in one
 * table: what C asks of Python (bookkeeping numba keeps in Python objects, settings, warnings, glue),
 * by one name each. A module is imported at the first call of one of its helpers, here only; the
 * function is looked up at each call, so that a helper replaced from Python is the one called. */
#ifndef NUMBA_CUDA_C_PYTHON_HELPERS_H
#define NUMBA_CUDA_C_PYTHON_HELPERS_H

#include "driver/state.h"

#define PY_DRIVER "numba_cuda_c.cudadrv.driver"
#define PY_DEVICEARRAY "numba_cuda_c.cudadrv.devicearray"

/* X(name, module, function) */
#define PYTHON_HELPERS(X)                                                                                          \
    /* numba's bookkeeping of raw allocations and contexts (cudadrv/driver.py) */                                  \
    X(ARRAY_GPU_DATA, PY_DRIVER, "_array_gpu_data")                                                                \
    X(MEMORY_VIEW, PY_DRIVER, "_memory_view")                                                                      \
    X(MEMORY_OWN, PY_DRIVER, "_memory_own")                                                                        \
    X(MEMORY_REFCT, PY_DRIVER, "_memory_refct")                                                                    \
    X(MEMORY_CTYPES_POINTER, PY_DRIVER, "_memory_ctypes_pointer")                                                  \
    X(CONTEXT_MEMPIN, PY_DRIVER, "_context_mempin")                                                                \
    X(CONTEXT_GET_IPC_HANDLE, PY_DRIVER, "_context_get_ipc_handle")                                                \
    X(CONTEXT_OPEN_IPC_HANDLE, PY_DRIVER, "_context_open_ipc_handle")                                              \
    X(BUILTIN_MEMORY_MANAGER, PY_DRIVER, "_builtin_memory_manager")                                                \
    X(PENDING_DEALLOCATIONS, PY_DRIVER, "_pending_deallocations")                                                  \
    X(STREAM_AUTO_SYNCHRONIZE, PY_DRIVER, "_stream_auto_synchronize")                                              \
    X(STREAM_ASYNC_DONE, PY_DRIVER, "_stream_async_done")                                                          \
    /* device arrays: numba's type of one, pickling, IPC */                                                        \
    X(NUMBA_TYPE_OF, PY_DEVICEARRAY, "_numba_type_of")                                                             \
    X(REBUILD_DEVICE_ARRAY, PY_DEVICEARRAY, "_rebuild_device_array")                                               \
    X(ARRAY_IPC_HANDLE, "numba_cuda_c.cudadrv.ipc", "get_ipc_handle")                                              \
    /* launches: foreign device memory as arguments, numba's implicit-copy warning */                              \
    X(AS_DEVICE_ARRAY, "numba_cuda_c.cudadrv.foreign_arguments", "as_device_array")                                \
    X(WARN_IMPLICIT_COPY, "numba_cuda_c.errors", "warn_implicit_copy")                                             \
    /* settings, search paths, notebooks */                                                                        \
    X(CONFIG_GET, "numba_cuda_c.config", "get")                                                                    \
    X(LIBRARY_DIRS, "numba_cuda_c.toolchain.libraries", "candidate_dirs")                                          \
    X(HTML_OF, "numba_cuda_c.notebook", "html_of")                                                                 \
    /* only where the program imported the module: numba's linking callbacks, a replaced driver.cuInit */          \
    X(LINKER_CONTEXT_RESET, "numba_cuda_c.toolchain.linker", "context_reset")                                      \
    X(DRIVER_OBJECT, PY_DRIVER, "driver")

typedef enum {
#define PYTHON_HELPER_ENUM(name, module, function) HELPER_##name,
    PYTHON_HELPERS(PYTHON_HELPER_ENUM)
#undef PYTHON_HELPER_ENUM
        PYTHON_HELPER_COUNT
} python_helper;

/* Calls the helper with `args` (a tuple, stolen; NULL: an error is set, passed on). New reference. */
PyObject *python_call(module_state *st, python_helper helper, PyObject *args);

/* The same with one argument, or none where `arg` is NULL. */
PyObject *python_call1(module_state *st, python_helper helper, PyObject *arg);

/* The helper object itself (a function, or the attribute named). New reference. */
PyObject *python_helper_get(module_state *st, python_helper helper);

/* The helper only where its module is imported already (nothing is imported): a new reference, or
 * NULL with no exception where it is not. */
PyObject *python_helper_if_loaded(python_helper helper);

#endif
