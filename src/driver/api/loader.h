/* loader.h: the process-wide tables of driver and NVRTC entry points, filled once at first use.
 * Nothing links against libcuda, libnvrtc or libcudart: they are found and dlopen'ed at run time.
 * These are the only process-wide mutable state of the extension (STYLE.md, rule 2). */
#ifndef NUMBA_CUDA_C_LOADER_H
#define NUMBA_CUDA_C_LOADER_H

#include "cuda_api.h"
#include "nvrtc_api.h"

#define CU_TABLE_FIELD(name, symbol) PFN_##name name;
struct cu_driver_table {
    CU_REQUIRED_FUNCTIONS(CU_TABLE_FIELD)
    CU_OPTIONAL_FUNCTIONS(CU_TABLE_FIELD)
};
struct nvrtc_table {
    NVRTC_FUNCTIONS(CU_TABLE_FIELD)
};
#undef CU_TABLE_FIELD

extern struct cu_driver_table cu;
extern struct nvrtc_table nvrtc;

/* Loads libcuda and runs cuInit(0), once per process; later calls return the first outcome.
 * Returns 0, or -1 and points *why at a message naming what was looked for and where.
 * Thread-safe; call it without the GIL (cuInit can take a while). */
int cu_driver_load(const char **why);

/* Nonzero once cu_driver_load has succeeded: a lock-free check for the hot paths. */
int cu_driver_ready(void);

/* Nonzero in a process forked after cu_driver_load succeeded in its parent: CUDA cannot be used there. */
int cu_driver_forked(void);

/* Nonzero once cu_driver_load has run (or cu_driver_refuse): its outcome is fixed. */
int cu_driver_tried(void);

/* Records a failed initialisation with `why` before the driver is tried (a cuInit replaced from
 * Python failed): later cu_driver_load calls return it. No effect once the driver was tried. */
void cu_driver_refuse(const char *why);

/* Loads libnvrtc from the directories given (searched in order, newest major version first in
 * each), then from the loader's own path. Same contract as cu_driver_load. */
int nvrtc_load(const char *const *dirs, int ndirs, const char **why);

/* Nonzero once nvrtc_load has succeeded (lock-free). */
int nvrtc_ready(void);

/* Finds libcudart in the same directories and reads cudaRuntimeGetVersion (dlopen: call it without
 * the GIL). Returns 0 and sets
 * *version (e.g. 12040), or -1 where no runtime library is found. */
int cudart_version(const char *const *dirs, int ndirs, int *version);

#endif
