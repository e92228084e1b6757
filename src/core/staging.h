/* staging.h: copies between the device and pageable host memory through a pinned staging ring.
 *
 * The driver copies pageable memory through its own small staging buffers, one thread at a time
 * (~7-15 GB/s on an H100, PCIe 5), and into memory just allocated it also takes the page faults
 * one 4 KiB page at a time (~3 GB/s). Here the DMA engine moves pinned slots while worker threads
 * copy between the slots and the host memory, in parallel, into 2 MiB pages where the memory is
 * fresh. Nothing is registered: the host memory stays ordinary pageable memory throughout (no
 * cuMemHostRegister/Unregister, which cost as much as the copy, nothing to undo on error).
 * Measured on an H100 (16 vCPUs, THP=madvise), 256 MiB: 28-40 GB/s into a new array, 40-46 GB/s
 * between existing arrays and the device, against 3 and 7-15 through the driver.
 *
 * One ring per context, made at its first large copy and kept until the context goes: `slots`
 * pinned slots of `chunk` bytes (one cuMemHostAlloc), an event per slot, and a pool of worker
 * threads that wait between copies. Plain C11 + pthreads: call without the GIL. */
#ifndef NUMBA_CUDA_C_STAGING_H
#define NUMBA_CUDA_C_STAGING_H

#include "driver/api/loader.h"

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#define STAGING_MAX_SLOTS 64
#define STAGING_MAX_THREADS 32
#define STAGING_HUGE ((size_t)2 << 20) /* chunk boundaries fall on absolute multiples of this */

typedef struct staging_ring {
    pthread_mutex_t lock; /* one copy at a time per ring */
    char *host;           /* slots * chunk pinned bytes */
    size_t chunk;         /* a multiple of STAGING_HUGE */
    int slots;
    CUevent events[STAGING_MAX_SLOTS];
    /* the worker pool: each copy is a job every worker runs (they share its chunks) */
    pthread_mutex_t pool_lock;
    pthread_cond_t wake, idle;
    pthread_t workers[STAGING_MAX_THREADS];
    int nworkers;
    pid_t pid;                /* the process the workers live in (none after a fork) */
    unsigned long generation; /* bumped for each job */
    void *(*job)(void *);     /* the current job, and its argument */
    void *job_arg;
    int running;  /* workers still in the current job */
    int stopping; /* set by staging_ring_destroy */
} staging_ring;

/* With the ring's context current. `threads` workers (<= 0: staging_default_threads()); fewer, even
 * none, if threads cannot be started (the calling thread then copies alone). Returns CUDA_SUCCESS,
 * or the failing call's result (nothing left allocated); CUDA_ERROR_INVALID_VALUE for a chunk not a
 * multiple of 2 MiB or slots outside [2, 64]. Recommended: chunk 2 MiB, 32 slots (64 MiB pinned). */
CUresult staging_ring_create(staging_ring *r, size_t chunk, int slots, int threads);

/* With the ring's context current; stops and joins the workers. */
void staging_ring_destroy(staging_ring *r);

/* Stops and joins the workers only, without a driver call: for a ring whose context is gone (its
 * pinned memory and events went with it). */
void staging_ring_abandon(staging_ring *r);

/* Worker threads to use here: the CPUs this process may run on, less 2 (the issuing thread and the
 * driver's own), between 1 and 14. */
int staging_default_threads(void);

/* Asks for transparent huge pages over the 2 MiB-aligned interior of [p, p + size) (MADV_HUGEPAGE;
 * numpy does the same for its large blocks). Faults on 2 MiB pages are what make fresh memory fast. */
void staging_hugepage_hint(void *p, size_t size);

/* Copies `size` bytes from device address `src` to pageable host address `dst` (any alignment) on
 * `stream` (0: the legacy default stream, ordered as cuMemcpyDtoH is). Returns when the data is in
 * dst. The calling thread must have the ring's context current: it issues the copies and polls their
 * events; the workers only copy memory (they make no driver call). Returns CUDA_SUCCESS or the first
 * failing call's result (dst then holds part of the data). Takes r->lock for the whole copy. */
CUresult staging_copy(staging_ring *r, void *dst, CUdeviceptr src, size_t size, CUstream stream);

/* The other way: `size` bytes from pageable host address `src` to device address `dst` on `stream`.
 * Workers copy chunks of src into free slots (a slot is free once the DMA out of it has finished);
 * the calling thread sends each filled slot, in order, and returns when every DMA has finished.
 * Same conditions, results and lock as staging_copy. */
CUresult staging_copy_to_device(staging_ring *r, CUdeviceptr dst, const void *src, size_t size, CUstream stream);

#endif /* NUMBA_CUDA_C_STAGING_H */
