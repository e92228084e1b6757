/* staging.c: see staging.h. */
#define _GNU_SOURCE
#include "staging.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif

static inline void staging_relax(unsigned *spins)
{
    if (++*spins < 1000) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    } else {
        sched_yield();
    }
}

CUresult staging_ring_create(struct staging_ring *r, size_t chunk, int slots)
{
    memset(r, 0, sizeof *r);
    if (chunk == 0 || chunk % STAGING_HUGE != 0 || slots < 2 || slots > STAGING_MAX_SLOTS)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cu.cuMemHostAlloc((void **)&r->host, chunk * (size_t)slots, 0);
    if (rc != CUDA_SUCCESS) {
        r->host = NULL;
        return rc;
    }
    for (int i = 0; i < slots; i++) {
        rc = cu.cuEventCreate(&r->events[i], CU_EVENT_DISABLE_TIMING);
        if (rc != CUDA_SUCCESS) {
            while (--i >= 0)
                cu.cuEventDestroy(r->events[i]);
            cu.cuMemFreeHost(r->host);
            r->host = NULL;
            return rc;
        }
    }
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        for (int i = 0; i < slots; i++)
            cu.cuEventDestroy(r->events[i]);
        cu.cuMemFreeHost(r->host);
        r->host = NULL;
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r->chunk = chunk;
    r->slots = slots;
    return CUDA_SUCCESS;
}

void staging_ring_destroy(struct staging_ring *r)
{
    if (r->host == NULL)
        return;
    for (int i = 0; i < r->slots; i++)
        cu.cuEventDestroy(r->events[i]);
    cu.cuMemFreeHost(r->host);
    pthread_mutex_destroy(&r->lock);
    r->host = NULL;
}

int staging_default_threads(void)
{
    int n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    n -= 2;
    return n < 1 ? 1 : n > 14 ? 14 : n;
}

void staging_hugepage_hint(void *p, size_t size)
{
    uintptr_t b = ((uintptr_t)p + STAGING_HUGE - 1) & ~(uintptr_t)(STAGING_HUGE - 1);
    uintptr_t e = ((uintptr_t)p + size) & ~(uintptr_t)(STAGING_HUGE - 1);
    if (e > b)
        (void)madvise((void *)b, e - b, MADV_HUGEPAGE); /* a hint: failure only costs speed */
}

/* One staging_copy. Chunk k is [max(dst, first + k*chunk), min(dst + size, first + (k+1)*chunk)) with
 * first = dst rounded down to 2 MiB, so every chunk covers whole huge pages of dst (no two threads fault
 * the same huge page) and none is longer than a slot. Chunk k goes through slot k % slots. */
struct staging_job {
    struct staging_ring *r;
    char *dst;
    uintptr_t first, end;
    int nchunks;
    atomic_int next;                     /* next chunk a worker claims */
    atomic_int ready;                    /* chunks [0, ready) are in their slots */
    atomic_int abort;                    /* set by the issuer on error: workers stop */
    atomic_int slot_next[STAGING_MAX_SLOTS]; /* chunk that slot s may take next (workers move it on) */
};

static void staging_chunk(const struct staging_job *j, int k, size_t *offset, size_t *length)
{
    uintptr_t b = j->first + (size_t)k * j->r->chunk, e = b + j->r->chunk;
    if (b < (uintptr_t)j->dst)
        b = (uintptr_t)j->dst;
    if (e > j->end)
        e = j->end;
    *offset = b - (uintptr_t)j->dst;
    *length = e - b;
}

static void *staging_worker(void *arg)
{
    struct staging_job *j = arg;
    int slots = j->r->slots;
    for (;;) {
        int k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (k >= j->nchunks)
            return NULL;
        unsigned spins = 0;
        while (atomic_load_explicit(&j->ready, memory_order_acquire) <= k) {
            if (atomic_load_explicit(&j->abort, memory_order_relaxed))
                return NULL;
            staging_relax(&spins);
        }
        size_t offset, length;
        staging_chunk(j, k, &offset, &length);
        memcpy(j->dst + offset, j->r->host + (size_t)(k % slots) * j->r->chunk, length);
        atomic_store_explicit(&j->slot_next[k % slots], k + slots, memory_order_release);
    }
}

CUresult staging_copy(struct staging_ring *r, void *dst, CUdeviceptr src, size_t size, CUstream stream, int threads)
{
    if (size == 0)
        return CUDA_SUCCESS;
    if (threads <= 0)
        threads = staging_default_threads();
    if (threads > STAGING_MAX_THREADS)
        threads = STAGING_MAX_THREADS;
    struct staging_job j;
    j.r = r;
    j.dst = dst;
    j.first = (uintptr_t)dst & ~(uintptr_t)(STAGING_HUGE - 1);
    j.end = (uintptr_t)dst + size;
    j.nchunks = (int)((j.end - j.first + r->chunk - 1) / r->chunk);
    atomic_init(&j.next, 0);
    atomic_init(&j.ready, 0);
    atomic_init(&j.abort, 0);
    for (int s = 0; s < STAGING_MAX_SLOTS; s++)
        atomic_init(&j.slot_next[s], s);
    if (threads > j.nchunks)
        threads = j.nchunks;

    pthread_mutex_lock(&r->lock);
    pthread_t tid[STAGING_MAX_THREADS];
    int started = 0;
    while (started < threads && pthread_create(&tid[started], NULL, staging_worker, &j) == 0)
        started++;

    CUresult rc = CUDA_SUCCESS;
    int issued = 0, ready = 0, slots = r->slots;
    unsigned spins = 0;
    while (ready < j.nchunks) {
        int progress = 0;
        /* issue every chunk whose slot is free */
        while (issued < j.nchunks &&
               atomic_load_explicit(&j.slot_next[issued % slots], memory_order_acquire) == issued) {
            size_t offset, length;
            staging_chunk(&j, issued, &offset, &length);
            rc = cu.cuMemcpyDtoHAsync(r->host + (size_t)(issued % slots) * r->chunk, src + offset, length, stream);
            if (rc == CUDA_SUCCESS)
                rc = cu.cuEventRecord(r->events[issued % slots], stream);
            if (rc != CUDA_SUCCESS)
                goto failed;
            issued++;
            progress = 1;
        }
        /* publish the chunks that have landed, in order */
        while (ready < issued) {
            rc = cu.cuEventQuery(r->events[ready % slots]);
            if (rc == CUDA_ERROR_NOT_READY)
                break;
            if (rc != CUDA_SUCCESS)
                goto failed;
            ready++;
            progress = 1;
            if (started == 0) { /* no worker: this thread copies */
                size_t offset, length;
                staging_chunk(&j, ready - 1, &offset, &length);
                memcpy((char *)dst + offset, r->host + (size_t)((ready - 1) % slots) * r->chunk, length);
                atomic_store_explicit(&j.slot_next[(ready - 1) % slots], ready - 1 + slots, memory_order_relaxed);
            } else {
                atomic_store_explicit(&j.ready, ready, memory_order_release);
            }
        }
        if (progress)
            spins = 0;
        else
            staging_relax(&spins);
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_unlock(&r->lock);
    return CUDA_SUCCESS;

failed:
    atomic_store(&j.abort, 1);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    /* copies still queued write only into the ring: wait for them before the ring is reused */
    (void)cu.cuStreamSynchronize(stream);
    pthread_mutex_unlock(&r->lock);
    return rc;
}

/* One staging_copy_to_device. Chunk k is [k * chunk, (k + 1) * chunk) of the source, through slot
 * k % slots. slot_free[s] is the chunk slot s may take next (the issuer moves it on once the DMA out
 * of the slot has finished); slot_full[s] is one more than the chunk slot s holds, ready to send. */
struct staging_upload {
    struct staging_ring *r;
    const char *src;
    size_t size;
    int nchunks;
    atomic_int next;
    atomic_int abort;
    atomic_int slot_free[STAGING_MAX_SLOTS];
    atomic_int slot_full[STAGING_MAX_SLOTS];
};

static size_t upload_length(const struct staging_upload *u, int k)
{
    size_t offset = (size_t)k * u->r->chunk;
    return u->size - offset < u->r->chunk ? u->size - offset : u->r->chunk;
}

/* Fills chunk k's slot once it is free. Returns 0, or -1 if the copy was abandoned meanwhile. */
static int upload_fill(struct staging_upload *u, int k)
{
    int slot = k % u->r->slots;
    unsigned spins = 0;
    while (atomic_load_explicit(&u->slot_free[slot], memory_order_acquire) != k) {
        if (atomic_load_explicit(&u->abort, memory_order_relaxed))
            return -1;
        staging_relax(&spins);
    }
    memcpy(u->r->host + (size_t)slot * u->r->chunk, u->src + (size_t)k * u->r->chunk, upload_length(u, k));
    atomic_store_explicit(&u->slot_full[slot], k + 1, memory_order_release);
    return 0;
}

static void *upload_worker(void *arg)
{
    struct staging_upload *u = arg;
    for (;;) {
        int k = atomic_fetch_add_explicit(&u->next, 1, memory_order_relaxed);
        if (k >= u->nchunks || upload_fill(u, k) < 0)
            return NULL;
    }
}

CUresult staging_copy_to_device(struct staging_ring *r, CUdeviceptr dst, const void *src, size_t size,
                                CUstream stream, int threads)
{
    if (size == 0)
        return CUDA_SUCCESS;
    if (threads <= 0)
        threads = staging_default_threads();
    if (threads > STAGING_MAX_THREADS)
        threads = STAGING_MAX_THREADS;
    struct staging_upload u;
    u.r = r;
    u.src = src;
    u.size = size;
    u.nchunks = (int)((size + r->chunk - 1) / r->chunk);
    atomic_init(&u.next, 0);
    atomic_init(&u.abort, 0);
    for (int s = 0; s < STAGING_MAX_SLOTS; s++) {
        atomic_init(&u.slot_free[s], s);
        atomic_init(&u.slot_full[s], 0);
    }
    if (threads > u.nchunks)
        threads = u.nchunks;

    pthread_mutex_lock(&r->lock);
    pthread_t tid[STAGING_MAX_THREADS];
    int started = 0;
    while (started < threads && pthread_create(&tid[started], NULL, upload_worker, &u) == 0)
        started++;

    CUresult rc = CUDA_SUCCESS;
    int issued = 0, done = 0, slots = r->slots;
    unsigned spins = 0;
    while (done < u.nchunks) {
        int progress = 0;
        if (started == 0 && issued < u.nchunks && atomic_load(&u.slot_free[issued % slots]) == issued)
            upload_fill(&u, issued); /* no worker: this thread fills, when the slot is free */
        /* send every filled slot, in order */
        while (issued < u.nchunks &&
               atomic_load_explicit(&u.slot_full[issued % slots], memory_order_acquire) == issued + 1) {
            int slot = issued % slots;
            rc = cu.cuMemcpyHtoDAsync(dst + (size_t)issued * r->chunk, r->host + (size_t)slot * r->chunk,
                                      upload_length(&u, issued), stream);
            if (rc == CUDA_SUCCESS)
                rc = cu.cuEventRecord(r->events[slot], stream);
            if (rc != CUDA_SUCCESS)
                goto failed;
            issued++;
            progress = 1;
        }
        /* free the slots whose DMA has finished, in order */
        while (done < issued) {
            rc = cu.cuEventQuery(r->events[done % slots]);
            if (rc == CUDA_ERROR_NOT_READY)
                break;
            if (rc != CUDA_SUCCESS)
                goto failed;
            atomic_store_explicit(&u.slot_free[done % slots], done + slots, memory_order_release);
            done++;
            progress = 1;
        }
        if (progress)
            spins = 0;
        else
            staging_relax(&spins);
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_unlock(&r->lock);
    return CUDA_SUCCESS;

failed:
    atomic_store(&u.abort, 1);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    (void)cu.cuStreamSynchronize(stream); /* queued copies still read the ring */
    pthread_mutex_unlock(&r->lock);
    return rc;
}
