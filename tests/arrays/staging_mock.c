/* staging_mock.c: src/core/staging.c against a mock driver (host memory stands in for the device, events
 * report "not ready" at random), for tests/arrays/test_staging.py: every size, alignment, ring shape and
 * thread count, both directions, the path where no worker thread starts, and the error path.
 * Prints "ok <cases>" and exits 0, or names the failing case and exits 1. */
#define _GNU_SOURCE
#include "staging.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cu_driver_table cu;

static int refuse_threads; /* pthread_create fails while set: the calling thread must copy alone */

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
    return refuse_threads ? 11 : real(thread, attr, start, arg);
}

static int fail_at = -1, copies;

static CUresult host_alloc(void **p, size_t n, unsigned int flags)
{
    (void)flags;
    *p = malloc(n);
    return *p != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult host_free(void *p)
{
    free(p);
    return CUDA_SUCCESS;
}
static CUresult event_create(CUevent *e, unsigned int flags)
{
    (void)flags;
    *e = (CUevent)malloc(1);
    return CUDA_SUCCESS;
}
static CUresult event_destroy(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}
static CUresult event_record(CUevent e, CUstream s)
{
    (void)e;
    (void)s;
    return CUDA_SUCCESS;
}
static CUresult event_query(CUevent e)
{
    (void)e;
    return rand() % 3 == 0 ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
static CUresult stream_sync(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}
static CUresult to_host(void *d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    if (copies++ == fail_at)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    memcpy(d, (void *)s, n);
    return CUDA_SUCCESS;
}
static CUresult to_device(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
    (void)st;
    if (copies++ == fail_at)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    memcpy((void *)d, s, n);
    return CUDA_SUCCESS;
}

#define MIB ((size_t)1 << 20)

int main(void)
{
    cu.cuMemHostAlloc = host_alloc;
    cu.cuMemFreeHost = host_free;
    cu.cuEventCreate = event_create;
    cu.cuEventDestroy = event_destroy;
    cu.cuEventRecord = event_record;
    cu.cuEventQuery = event_query;
    cu.cuStreamSynchronize = stream_sync;
    cu.cuMemcpyDtoHAsync = to_host;
    cu.cuMemcpyHtoDAsync = to_device;
    size_t total = 12 * MIB, padding = 8 * MIB;
    unsigned char *source = malloc(total), *buffer = malloc(total + padding);
    for (size_t i = 0; i < total; i++)
        source[i] = (unsigned char)(i * 131 + 7);
    size_t sizes[] = {1, 4095, 2 * MIB + 1, 5000000, total - 3};
    size_t offsets[] = {0, 16, 2 * MIB - 1, 3 * MIB};
    struct {
        size_t chunk;
        int slots, threads, refuse;
    } rings[] = {
        {2 * MIB, 2, 1, 0}, {2 * MIB, 16, 7, 0}, {4 * MIB, 3, 3, 0}, {2 * MIB, 4, 4, 1}, /* 1: no worker starts */
    };
    int cases = 0;
    for (size_t ri = 0; ri < sizeof rings / sizeof *rings; ri++) {
        staging_ring ring;
        refuse_threads = rings[ri].refuse;
        CUresult made = staging_ring_create(&ring, rings[ri].chunk, rings[ri].slots, rings[ri].threads);
        refuse_threads = 0;
        if (made != CUDA_SUCCESS || ring.nworkers != (rings[ri].refuse ? 0 : rings[ri].threads)) {
            printf("staging_ring_create: rc %d, %d workers\n", (int)made, ring.nworkers);
            return 1;
        }
        for (int repeat = 0; repeat < 3; repeat++) /* the same workers, job after job */
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (size_t oi = 0; oi < sizeof offsets / sizeof *offsets; oi++)
                    for (int upload = 0; upload < 2; upload++) {
                        unsigned char *aligned =
                            (unsigned char *)(((uintptr_t)buffer + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
                        unsigned char *place = aligned + offsets[oi], *from = source + 1 + repeat;
                        size_t n = sizes[si];
                        memset(place - 1, 0xEE, n + 2);
                        CUresult rc = upload ? staging_copy_to_device(&ring, (CUdeviceptr)place, from, n, 0)
                                             : staging_copy(&ring, place, (CUdeviceptr)from, n, 0);
                        if (rc != CUDA_SUCCESS || memcmp(place, from, n) != 0 || place[-1] != 0xEE ||
                            place[n] != 0xEE) {
                            printf("failed: ring %zu, size %zu, offset %zu, upload %d, rc %d\n", ri, n, offsets[oi],
                                   upload, (int)rc);
                            return 1;
                        }
                        cases++;
                    }
        for (int upload = 0; upload < 2; upload++) { /* a failing copy: its error comes back, nothing hangs */
            fail_at = 1;
            copies = 0;
            CUresult rc = upload ? staging_copy_to_device(&ring, (CUdeviceptr)buffer, source, total, 0)
                                 : staging_copy(&ring, buffer, (CUdeviceptr)source, total, 0);
            fail_at = -1;
            if (rc != CUDA_ERROR_ILLEGAL_ADDRESS) {
                printf("error path: rc %d\n", (int)rc);
                return 1;
            }
            cases++;
        }
        staging_ring_destroy(&ring);
    }
    staging_ring bad;
    if (staging_ring_create(&bad, 3 * MIB, 4, 1) != CUDA_ERROR_INVALID_VALUE) {
        puts("a chunk that is not a multiple of 2 MiB was accepted");
        return 1;
    }
    printf("ok %d\n", cases);
    return 0;
}
