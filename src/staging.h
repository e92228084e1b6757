/* staging.h: device -> pageable (typically freshly allocated) host memory through a pinned staging
 * ring, for copy_to_host() into a new array. Fresh host memory costs its first touch (the kernel
 * finds and zeroes each page), which a plain cuMemcpyDtoH takes one page at a time (~3 GB/s). Here
 * the DMA engine fills small pinned slots and worker threads copy each filled slot into the
 * destination, taking its page faults in parallel, on 2 MiB pages. Nothing is registered, so the
 * destination is ordinary pageable memory throughout (no cuMemHostRegister/Unregister, which cost
 * as much as the copy, nothing to undo on error). Measured on an H100 (PCIe 5 x16, 16 vCPUs,
 * THP=madvise), 256 MiB into fresh memory: 28-30 GB/s median, against ~11 GB/s for touch +
 * register + copy + unregister. Plain C11 + pthreads: call without the GIL. */
#ifndef NUMBA_CUDA_C_STAGING_H
#define NUMBA_CUDA_C_STAGING_H

#include "api/loader.h"

#include <pthread.h>
#include <stddef.h>

#define STAGING_MAX_SLOTS 64
#define STAGING_MAX_THREADS 32
#define STAGING_HUGE ((size_t)2 << 20) /* chunk boundaries fall on absolute multiples of this */

/* One per context, made on first use and kept until the context goes: `slots` pinned slots of `chunk`
 * bytes each (one cuMemHostAlloc) and one event per slot. Recommended: chunk 2 MiB, 32 slots (64 MiB
 * pinned); 4 MiB x 16 measured the same; 2 MiB x 16 (32 MiB) is faster on good runs but has more slow
 * outliers. */
typedef struct staging_ring {
    pthread_mutex_t lock; /* one staging_copy at a time per ring */
    char *host;           /* slots * chunk pinned bytes */
    size_t chunk;         /* a multiple of STAGING_HUGE */
    int slots;
    CUevent events[STAGING_MAX_SLOTS];
} staging_ring;

/* The ring's context must be current. Returns CUDA_SUCCESS, or the failing call's result (nothing left
 * allocated); CUDA_ERROR_INVALID_VALUE for a chunk not a multiple of 2 MiB or slots outside [2, 64]. */
CUresult staging_ring_create(struct staging_ring *r, size_t chunk, int slots);

/* The ring's context must be current. */
void staging_ring_destroy(struct staging_ring *r);

/* Worker threads to use here: the CPUs this process may run on, less 2 (the issuing thread and the
 * driver's own), between 1 and 14. */
int staging_default_threads(void);

/* Asks for transparent huge pages over the 2 MiB-aligned interior of [p, p + size) (MADV_HUGEPAGE;
 * numpy does the same for its large blocks). Faults on 2 MiB pages are what make the copy fast. */
void staging_hugepage_hint(void *p, size_t size);

/* Copies `size` bytes from device address `src` to host address `dst` (pageable: not registered, any
 * alignment) on `stream` (0: the legacy default stream, ordered as cuMemcpyDtoH is), through ring `r`,
 * with `threads` worker threads (<= 0: staging_default_threads()). Returns when the data is in dst.
 * The calling thread must have r's context current; it issues the copies and polls their events, the
 * workers only copy memory (they make no driver call). Returns CUDA_SUCCESS or the first failing call's
 * result; on failure dst holds partial data. If no worker thread can be started, this thread copies alone.
 * Takes r->lock for the whole copy. */
CUresult staging_copy(struct staging_ring *r, void *dst, CUdeviceptr src, size_t size, CUstream stream, int threads);

/* The other way: `size` bytes from pageable host address `src` to device address `dst` on `stream`.
 * Workers copy chunks of src into free slots (a slot is free once the DMA out of it has finished); the
 * calling thread issues each filled slot's DMA, in order, and returns when every DMA has finished.
 * Same conditions, results and lock as staging_copy. */
CUresult staging_copy_to_device(struct staging_ring *r, CUdeviceptr dst, const void *src, size_t size,
                                CUstream stream, int threads);

#endif /* NUMBA_CUDA_C_STAGING_H */
