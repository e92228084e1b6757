/* staging.c: see staging.h. */
#define _GNU_SOURCE
#include "core/staging.h"

#include <sched.h>
#include <signal.h>
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

/* ---- the worker pool ------------------------------------------------------------------------- */

static void *pool_worker(void *arg)
{
    staging_ring *r = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&r->pool_lock);
    for (;;) {
        while (r->generation == seen && !r->stopping)
            pthread_cond_wait(&r->wake, &r->pool_lock);
        if (r->stopping)
            break;
        seen = r->generation;
        void *(*job)(void *) = r->job;
        void *job_arg = r->job_arg;
        pthread_mutex_unlock(&r->pool_lock);
        job(job_arg);
        pthread_mutex_lock(&r->pool_lock);
        if (--r->running == 0)
            pthread_cond_signal(&r->idle);
    }
    pthread_mutex_unlock(&r->pool_lock);
    return NULL;
}

/* Starts job(arg) on every worker; returns how many run it (0: the caller works alone, as after a
 * fork, whose child has none of the workers). */
static int pool_start(staging_ring *r, void *(*job)(void *), void *arg)
{
    if (r->nworkers == 0 || r->pid != getpid())
        return 0;
    pthread_mutex_lock(&r->pool_lock);
    r->job = job;
    r->job_arg = arg;
    r->running = r->nworkers;
    r->generation++;
    pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->pool_lock);
    return r->nworkers;
}

/* Waits until every worker has left the current job (which lives on the caller's stack). */
static void pool_wait(staging_ring *r)
{
    pthread_mutex_lock(&r->pool_lock);
    while (r->running > 0)
        pthread_cond_wait(&r->idle, &r->pool_lock);
    pthread_mutex_unlock(&r->pool_lock);
}

static void pool_stop(staging_ring *r)
{
    if (r->nworkers > 0 && r->pid == getpid()) {
        pthread_mutex_lock(&r->pool_lock);
        r->stopping = 1;
        pthread_cond_broadcast(&r->wake);
        pthread_mutex_unlock(&r->pool_lock);
        for (int i = 0; i < r->nworkers; i++)
            pthread_join(r->workers[i], NULL);
    }
    r->nworkers = 0;
}

/* Ends a copy, which holds r->lock: on failure the workers are told to stop, and the DMAs still
 * queued (they read or write the ring) are waited for; the workers leave the job (it lives on the
 * caller's stack); the ring is free for the next copy. Returns rc. */
static CUresult copy_end(staging_ring *r, atomic_int *abort, int started, CUstream stream, CUresult rc)
{
    if (rc != CUDA_SUCCESS)
        atomic_store(abort, 1);
    if (started)
        pool_wait(r);
    if (rc != CUDA_SUCCESS)
        (void)cu.cuStreamSynchronize(stream);
    pthread_mutex_unlock(&r->lock);
    return rc;
}

/* ---- the ring -------------------------------------------------------------------------------- */

CUresult staging_ring_create(staging_ring *r, size_t chunk, int slots, int threads)
{
    memset(r, 0, sizeof *r);
    if (chunk == 0 || chunk % STAGING_HUGE != 0 || slots < 2 || slots > STAGING_MAX_SLOTS)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cu.cuMemHostAlloc((void **)&r->host, chunk * (size_t)slots, 0);
    if (rc != CUDA_SUCCESS) {
        r->host = NULL;
        return rc;
    }
    int events = 0;
    while (events < slots && (rc = cu.cuEventCreate(&r->events[events], CU_EVENT_DISABLE_TIMING)) == CUDA_SUCCESS)
        events++;
    if (rc == CUDA_SUCCESS &&
        (pthread_mutex_init(&r->lock, NULL) != 0 || pthread_mutex_init(&r->pool_lock, NULL) != 0 ||
         pthread_cond_init(&r->wake, NULL) != 0 || pthread_cond_init(&r->idle, NULL) != 0))
        rc = CUDA_ERROR_OUT_OF_MEMORY; /* (never on Linux: these inits cannot fail) */
    if (rc != CUDA_SUCCESS) {
        while (--events >= 0)
            cu.cuEventDestroy(r->events[events]);
        cu.cuMemFreeHost(r->host);
        r->host = NULL;
        return rc;
    }
    r->chunk = chunk;
    r->slots = slots;
    r->pid = getpid();
    if (threads <= 0)
        threads = staging_default_threads();
    if (threads > STAGING_MAX_THREADS)
        threads = STAGING_MAX_THREADS;
    /* the workers take no signals: Python's handlers run on the main thread, and a signal that
     * lands on a worker would only delay the copy */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    while (r->nworkers < threads && pthread_create(&r->workers[r->nworkers], NULL, pool_worker, r) == 0)
        r->nworkers++;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return CUDA_SUCCESS;
}

void staging_ring_destroy(staging_ring *r)
{
    if (r->host == NULL)
        return;
    pool_stop(r);
    for (int i = 0; i < r->slots; i++)
        cu.cuEventDestroy(r->events[i]);
    cu.cuMemFreeHost(r->host);
    pthread_cond_destroy(&r->wake);
    pthread_cond_destroy(&r->idle);
    pthread_mutex_destroy(&r->pool_lock);
    pthread_mutex_destroy(&r->lock);
    r->host = NULL;
}

void staging_ring_abandon(staging_ring *r)
{
    if (r->host == NULL)
        return;
    pool_stop(r);
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

/* ---- device to host -------------------------------------------------------------------------- */

/* One staging_copy. Chunk k is [max(dst, first + k*chunk), min(dst + size, first + (k+1)*chunk)) with
 * first = dst rounded down to 2 MiB, so every chunk covers whole huge pages of dst (no two threads fault
 * the same huge page) and none is longer than a slot. Chunk k goes through slot k % slots. */
struct staging_job {
    staging_ring *r;
    char *dst;
    uintptr_t first, end;
    int nchunks;
    atomic_int next;                         /* next chunk a worker claims */
    atomic_int ready;                        /* chunks [0, ready) are in their slots */
    atomic_int abort;                        /* set by the issuer on error: workers stop */
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

CUresult staging_copy(staging_ring *r, void *dst, CUdeviceptr src, size_t size, CUstream stream)
{
    if (size == 0)
        return CUDA_SUCCESS;
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

    pthread_mutex_lock(&r->lock);
    int started = pool_start(r, staging_worker, &j);

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
    return copy_end(r, &j.abort, started, stream, CUDA_SUCCESS);

failed:
    return copy_end(r, &j.abort, started, stream, rc);
}

/* ---- host to device -------------------------------------------------------------------------- */

/* One staging_copy_to_device. Chunk k is [k * chunk, (k + 1) * chunk) of the source, through slot
 * k % slots. slot_free[s] is the chunk slot s may take next (the issuer moves it on once the DMA out
 * of the slot has finished); slot_full[s] is one more than the chunk slot s holds, ready to send. */
struct staging_upload {
    staging_ring *r;
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

CUresult staging_copy_to_device(staging_ring *r, CUdeviceptr dst, const void *src, size_t size, CUstream stream)
{
    if (size == 0)
        return CUDA_SUCCESS;
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

    pthread_mutex_lock(&r->lock);
    int started = pool_start(r, upload_worker, &u);

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
    return copy_end(r, &u.abort, started, stream, CUDA_SUCCESS);

failed:
    return copy_end(r, &u.abort, started, stream, rc);
}
