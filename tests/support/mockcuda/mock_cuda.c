/* mock_cuda.c: a mock libcuda for CI, loaded by the package through NUMBA_CUDA_DRIVER=<path of the .so>.
 * Device memory is host memory (malloc), copies are memcpy checked against the allocation table;
 * contexts, streams, events, modules and functions are small tracked objects, never freed (a
 * destroyed one stays, marked dead, so a stale handle gives an error instead of a crash).
 * Kernels run nothing: each launch is recorded. Stream callbacks run on one thread of the mock,
 * in order, as the driver's do. The control API (mock_*) is for tests, through ctypes: fault
 * injection, live-object counts, launch records. See README.md beside this file. */
#define _GNU_SOURCE
#include "cuda_api.h"

#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t callbacks_done = PTHREAD_COND_INITIALIZER;

/* ---- fault injection and call counts, by entry point name (unversioned: "cuMemAlloc") ---- */

#define MAX_NAMES 128
static struct {
    char name[48];
    long calls;     /* since the last mock_reset */
    long fail_at;   /* the call number that fails first (0: none) */
    int code;       /* the CUresult it fails with */
    int persistent; /* every call from fail_at on, or only that one */
} entries[MAX_NAMES];
static int nentries;
static long init_calls;

static int entry_index(const char *name)
{
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i].name, name) == 0)
            return i;
    if (nentries == MAX_NAMES)
        return -1;
    snprintf(entries[nentries].name, sizeof entries[nentries].name, "%s", name);
    return nentries++;
}

/* Counts the call; returns the injected error, or CUDA_SUCCESS. */
/* The driver forbids CUDA calls from a stream callback (it waits for the callback, which would
 * wait for it): the mock refuses them, as CUDA_ERROR_NOT_PERMITTED, and counts them. */
static _Thread_local int in_callback;
static long callback_violations;

/* A context destroyed while a copy or an allocation runs in another thread: undefined in CUDA, at worst
 * a crash. Counted (and a copy's memory is freed under it here too: its bytes move outside the lock, as a
 * driver's DMA does). MOCK_CUDA_SLOW_CALLS_US=n: each copy and allocation takes n microseconds more, in
 * flight, as a real one of 64 MiB takes milliseconds. */
static long calls_in_flight, destroyed_under_call;
static long slow_calls_us = -1;

/* What was in flight: a failure should say which call raced, in which thread, and where the package made
 * it, not only that one did. Each call in flight holds a slot (its entry point, thread, context and
 * stack); ctx_destroy describes the slots taken, and the destroyer, in under_call_report
 * (mock.destroyed_under_call_report()). */
#define MAX_FLIGHTS 64
#define FLIGHT_FRAMES 20
struct ctx;
static struct flight {
    const char *name; /* NULL: a free slot */
    pid_t tid;
    const struct ctx *ctx; /* the caller's current context */
    int nframes;
    void *frames[FLIGHT_FRAMES];
} flights[MAX_FLIGHTS];
static char under_call_report[16384];
static size_t under_call_length;

static int in_flight_begin(const char *name, const struct ctx *c) /* the lock held; returns the slot, or -1 */
{
    calls_in_flight++;
    for (int i = 0; i < MAX_FLIGHTS; i++)
        if (flights[i].name == NULL) {
            flights[i].name = name;
            flights[i].tid = gettid();
            flights[i].ctx = c;
            flights[i].nframes = backtrace(flights[i].frames, FLIGHT_FRAMES);
            return i;
        }
    return -1;
}

static void in_flight_end(int slot) /* the lock not held */
{
    if (slow_calls_us < 0) {
        const char *text = getenv("MOCK_CUDA_SLOW_CALLS_US");
        slow_calls_us = text != NULL ? atol(text) : 0;
    }
    if (slow_calls_us > 0)
        nanosleep(&(struct timespec){slow_calls_us / 1000000, slow_calls_us % 1000000 * 1000}, NULL);
    pthread_mutex_lock(&lock);
    calls_in_flight--;
    if (slot >= 0)
        flights[slot].name = NULL;
    pthread_mutex_unlock(&lock);
}

static void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    size_t room = sizeof under_call_report - under_call_length;
    int n = vsnprintf(under_call_report + under_call_length, room, format, args);
    va_end(args);
    if (n > 0)
        under_call_length += (size_t)n < room ? (size_t)n : room - 1;
}

static void report_frames(void *const *frames, int n)
{
    char **names = backtrace_symbols(frames, n);
    for (int i = 0; i < n; i++)
        report("        %s\n", names ? names[i] : "?");
    free(names);
}

/* A destroy under calls in flight, described (the lock held). The first few only: one says enough. */
static void report_destroy_under_call(const char *by, const struct ctx *c)
{
    if (destroyed_under_call > 4)
        return;
    report("%s in thread %d destroyed context %p while in flight:\n", by, (int)gettid(), (const void *)c);
    for (int i = 0; i < MAX_FLIGHTS; i++)
        if (flights[i].name != NULL) {
            report("    %s in thread %d, current context %p%s, called from\n", flights[i].name, (int)flights[i].tid,
                   (const void *)flights[i].ctx, flights[i].ctx == c ? " (the one destroyed)" : "");
            report_frames(flights[i].frames, flights[i].nframes); /* the mock's own frames too (inlining varies) */
        }
    void *frames[FLIGHT_FRAMES];
    int n = backtrace(frames, FLIGHT_FRAMES);
    report("    the destroy, called from\n");
    report_frames(frames, n);
}

/* MOCK_CUDA_CALLBACKS_BLOCK=1: as a real driver can, every call waits while a stream callback runs
 * (held by the callback thread across the callback), so a caller holding the GIL that the callback
 * needs deadlocks: what the package must never do. */
static pthread_mutex_t callback_running = PTHREAD_MUTEX_INITIALIZER;
static int callbacks_block = -1;

static int blocking_callbacks(void)
{
    if (callbacks_block < 0) {
        const char *env = getenv("MOCK_CUDA_CALLBACKS_BLOCK");
        callbacks_block = env != NULL && env[0] == '1';
    }
    return callbacks_block;
}

static CUresult fault(const char *name)
{
    CUresult rc = CUDA_SUCCESS;
    if (!in_callback && blocking_callbacks()) {
        pthread_mutex_lock(&callback_running);
        pthread_mutex_unlock(&callback_running);
    }
    pthread_mutex_lock(&lock);
    if (in_callback) {
        callback_violations++;
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_NOT_PERMITTED;
    }
    int i = entry_index(name);
    if (i >= 0) {
        long n = ++entries[i].calls;
        if (entries[i].fail_at > 0 && n >= entries[i].fail_at) {
            rc = (CUresult)entries[i].code;
            if (!entries[i].persistent)
                entries[i].fail_at = 0;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

#define FAULT(name)                                                                                                \
    do {                                                                                                           \
        CUresult injected_ = fault(name);                                                                          \
        if (injected_ != CUDA_SUCCESS)                                                                             \
            return injected_;                                                                                      \
    } while (0)

/* ---- tracked objects ---- */

enum kind { K_CONTEXT, K_STREAM, K_EVENT, K_MODULE, K_FUNCTION, K_GRAPH, K_GRAPH_EXEC, K_NKINDS };

struct ctx {
    int kind, alive;
    int device, retains;
};

struct graph;
struct stream {
    int kind, alive;
    struct ctx *ctx;
    int pending;           /* callbacks queued and not yet run */
    struct graph *capture; /* the graph a capture records launches into, or NULL */
    int capture_invalid;   /* a synchronize ran while capturing: cuStreamEndCapture fails */
};

struct event {
    int kind, alive;
    struct ctx *ctx;
    unsigned flags;
    int recorded;
    double when_ms;
};

struct module {
    int kind, alive;
    struct ctx *ctx;
    unsigned char *image;
    size_t size;
    int format; /* 0: unknown, 1: ELF (CUBIN), 2: PTX text */
};

#define MAX_PARAMS 64
struct function {
    int kind, alive;
    struct module *module;
    char name[256];
    int nparams;
    size_t offsets[MAX_PARAMS], sizes[MAX_PARAMS];
};

static void **objects; /* every object ever made: handles are looked up here, never dereferenced blind */
static size_t nobjects, capobjects;

static void *track(void *obj)
{
    if (obj == NULL)
        return NULL;
    if (nobjects == capobjects) {
        size_t cap = capobjects ? 2 * capobjects : 256;
        void **grown = realloc(objects, cap * sizeof *grown);
        if (grown == NULL) {
            free(obj);
            return NULL;
        }
        objects = grown;
        capobjects = cap;
    }
    objects[nobjects++] = obj;
    return obj;
}

/* The live object of this kind at `handle`, or NULL. Call with the lock held. */
static void *find(int kind, const void *handle)
{
    for (size_t i = nobjects; i-- > 0;)
        if (objects[i] == handle) {
            int *head = objects[i];
            return head[0] == kind && head[1] ? objects[i] : NULL;
        }
    return NULL;
}

/* ---- devices and contexts ---- */

#define MAX_DEVICES 8
static int ndevices = 1, cc_major = 9, cc_minor = 0;
/* MOCK_CUDA_IPC_PROCESSES=1: device memory is in memfd pages that another process opens through an IPC
 * handle (/proc/<pid>/fd/<fd>), as the driver's IPC does between processes; else IPC works within one process */
static int ipc_processes;
static unsigned long long ipc_serial;
static size_t total_memory = (size_t)16 << 30;
static struct ctx *primary[MAX_DEVICES];
/* Retains of a device's primary context that a reset left without a context: the driver releases none at a
 * reset ("resetting the primary context does not release it"; an H100 with driver 580 agrees), so a retain
 * taken before a reset is still released afterwards, and the next retain's context inherits the count. */
static int reset_retains[MAX_DEVICES];
static __thread struct ctx *ctx_stack[64];
static __thread int ctx_depth;

static struct ctx *current_ctx(void)
{
    return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

/* The current context, alive, or NULL. Call with the lock held. */
static struct ctx *live_current(void)
{
    struct ctx *c = current_ctx();
    return c != NULL && c->alive ? c : NULL;
}

/* ---- allocations ---- */

enum alloc_kind { A_DEVICE, A_PINNED, A_MAPPED, A_MANAGED, A_REGISTERED, A_NKINDS };
struct alloc {
    enum alloc_kind kind;
    struct ctx *ctx;
    unsigned char *base;
    size_t size;
    int ipc_opens;
    int fd;       /* MOCK_CUDA_IPC_PROCESSES=1: the memfd behind device memory (shared pages), else -1 */
    int imported; /* another process's allocation opened here (cuIpcOpenMemHandle): unmapped when closed */
    unsigned long long serial; /* the memfd's name is mockcuda-<serial> */
};
static struct alloc *allocs;
static size_t nallocs, capallocs;

static struct alloc *alloc_add(enum alloc_kind kind, void *base, size_t size)
{
    if (nallocs == capallocs) {
        size_t cap = capallocs ? 2 * capallocs : 256;
        struct alloc *grown = realloc(allocs, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        allocs = grown;
        capallocs = cap;
    }
    struct alloc *a = &allocs[nallocs++];
    a->kind = kind;
    a->ctx = current_ctx();
    a->base = base;
    a->size = size;
    a->ipc_opens = 0;
    a->fd = -1;
    a->imported = 0;
    a->serial = 0;
    return a;
}

/* The allocation holding [p, p + n), or NULL. Call with the lock held. */
static struct alloc *alloc_find(uintptr_t p, size_t n)
{
    for (size_t i = 0; i < nallocs; i++) {
        uintptr_t base = (uintptr_t)allocs[i].base;
        if (p >= base && p - base <= allocs[i].size && n <= allocs[i].size - (p - base) &&
            (p - base < allocs[i].size || n == 0))
            return &allocs[i];
    }
    return NULL;
}

/* Host-visible memory is in pages of its own, unmapped when freed or when its context dies, as the
 * driver's is: a host array left over it then faults, as it would on a GPU. */
static int host_visible(enum alloc_kind kind)
{
    return kind == A_PINNED || kind == A_MAPPED || kind == A_MANAGED;
}

static void alloc_remove(struct alloc *a)
{
    if (a->fd >= 0)
        close(a->fd);
    if (host_visible(a->kind) || a->fd >= 0 || a->imported)
        munmap(a->base, a->size);
    else if (a->kind != A_REGISTERED)
        free(a->base);
    *a = allocs[--nallocs];
}

static size_t device_bytes_in_use(void)
{
    size_t used = 0;
    for (size_t i = 0; i < nallocs; i++)
        if ((allocs[i].kind == A_DEVICE || allocs[i].kind == A_MANAGED) && !allocs[i].imported)
            used += allocs[i].size;
    return used;
}

/* Device memory: accessible from the device, so device, mapped, managed or registered (UVA). */
static int device_range_ok(CUdeviceptr p, size_t n)
{
    if (n == 0)
        return 1;
    struct alloc *a = alloc_find((uintptr_t)p, n);
    return a != NULL;
}

/* MOCK_CUDA_TRACE_DESTROYS=1: every destroy writes its caller's stack to stderr, to find which one
 * destroyed a context that another thread still used. */
static int trace_destroys = -1;

/* Destroys everything a context owns, as the driver does at release or reset. Lock held. */
static void ctx_destroy(struct ctx *c, const char *by)
{
    if (calls_in_flight > 0) {
        destroyed_under_call++;
        report_destroy_under_call(by, c);
    }
    if (trace_destroys < 0) {
        const char *env = getenv("MOCK_CUDA_TRACE_DESTROYS");
        trace_destroys = env != NULL && env[0] == '1';
    }
    if (trace_destroys) {
        void *frames[FLIGHT_FRAMES];
        int n = backtrace(frames, FLIGHT_FRAMES);
        fprintf(stderr, "mock: %s in thread %d destroyed context %p, from\n", by, (int)gettid(), (const void *)c);
        backtrace_symbols_fd(frames, n < 8 ? n : 8, 2);
    }
    c->alive = 0;
    c->retains = 0;
    for (size_t i = nallocs; i-- > 0;)
        if (allocs[i].ctx == c && allocs[i].kind != A_REGISTERED)
            alloc_remove(&allocs[i]);
        else if (allocs[i].ctx == c)
            *(&allocs[i]) = allocs[--nallocs];
    for (size_t i = 0; i < nobjects; i++) {
        int *head = objects[i];
        if (head[0] == K_STREAM && ((struct stream *)head)->ctx == c)
            head[1] = 0;
        else if (head[0] == K_EVENT && ((struct event *)head)->ctx == c)
            head[1] = 0;
        else if (head[0] == K_MODULE && ((struct module *)head)->ctx == c)
            head[1] = 0;
        else if (head[0] == K_FUNCTION && ((struct function *)head)->module->ctx == c)
            head[1] = 0;
    }
    for (int d = 0; d < ndevices; d++)
        if (primary[d] == c)
            primary[d] = NULL;
}

/* ---- launch records ---- */

#define MAX_RECORDS 64
#define MAX_PARAM_BYTES 4096
struct launch_record {
    char name[256];
    unsigned dims[7]; /* grid x y z, block x y z, shared memory */
    uintptr_t stream;
    int nparams;
    size_t offsets[MAX_PARAMS], sizes[MAX_PARAMS];
    unsigned char bytes[MAX_PARAM_BYTES];
    size_t nbytes;
};
static struct launch_record records[MAX_RECORDS];
static long nlaunches;

/* ---- graphs: what a capture recorded, launches only (copies and memsets on a capturing stream run at once) ----
 */

#define MAX_GRAPH_NODES 256 /* README.rst's graph example captures 100 launches */
struct graph {
    int kind, alive; /* K_GRAPH, or K_GRAPH_EXEC for an instantiated copy */
    struct ctx *ctx;
    int nnodes;
    struct launch_record nodes[MAX_GRAPH_NODES];
};

/* ---- callbacks: one thread of the mock runs them in order ---- */

struct callback {
    struct stream *stream; /* NULL: a default stream */
    CUstreamCallback fn;
    void *data;
    struct callback *next;
};
static struct callback *queue_head, *queue_tail;
static int callbacks_pending, worker_started;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;

static void *callback_worker(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (queue_head == NULL)
            pthread_cond_wait(&queue_ready, &lock);
        struct callback *cb = queue_head;
        queue_head = cb->next;
        if (queue_head == NULL)
            queue_tail = NULL;
        pthread_mutex_unlock(&lock);
        if (blocking_callbacks())
            pthread_mutex_lock(&callback_running);
        in_callback = 1;
        cb->fn((CUstream)cb->stream, CUDA_SUCCESS, cb->data);
        in_callback = 0;
        if (blocking_callbacks())
            pthread_mutex_unlock(&callback_running);
        pthread_mutex_lock(&lock);
        if (cb->stream != NULL)
            cb->stream->pending--;
        callbacks_pending--;
        free(cb);
        pthread_cond_broadcast(&callbacks_done);
    }
    return NULL;
}

/* Waits (lock held) until the stream's callbacks have run; all of them for a default stream. */
static void wait_callbacks(struct stream *s)
{
    while (s != NULL ? s->pending > 0 : callbacks_pending > 0)
        pthread_cond_wait(&callbacks_done, &lock);
}

/* A stream handle: the default ones (NULL, legacy, per-thread) or a live stream of the current
 * context. *out is NULL for a default stream. Lock held. */
static CUresult stream_lookup(CUstream h, struct stream **out)
{
    *out = NULL;
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD)
        return live_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
    struct stream *s = find(K_STREAM, h);
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (s->ctx != current_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = s;
    return CUDA_SUCCESS;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void env_config(void)
{
    const char *text = getenv("MOCK_CUDA_DEVICES");
    if (text != NULL) {
        ndevices = atoi(text);
        if (ndevices < 0)
            ndevices = 0;
        if (ndevices > MAX_DEVICES)
            ndevices = MAX_DEVICES;
    }
    text = getenv("MOCK_CUDA_CC");
    if (text != NULL)
        sscanf(text, "%d.%d", &cc_major, &cc_minor);
    text = getenv("MOCK_CUDA_TOTAL_MEMORY");
    if (text != NULL)
        total_memory = (size_t)strtoull(text, NULL, 10);
    text = getenv("MOCK_CUDA_IPC_PROCESSES");
    ipc_processes = text != NULL && text[0] == '1';
}

/* ======================= the Driver API ======================= */

EXPORT CUresult cuInit(unsigned int flags)
{
    FAULT("cuInit");
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    if (init_calls++ == 0)
        env_config();
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *version)
{
    FAULT("cuDriverGetVersion");
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 12080;
    return CUDA_SUCCESS;
}

static const char *result_name(CUresult rc)
{
    switch ((int)rc) {
#define NAME_CASE(name, value)                                                                                     \
    case value:                                                                                                    \
        return #name;
        CU_RESULT_VALUES(NAME_CASE)
#undef NAME_CASE
    }
    return NULL;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **text)
{
    const char *name = result_name(error);
    if (text == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *text = name;
    return name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **text)
{
    static char strings[1000][96];
    const char *name = result_name(error);
    if (text == NULL || name == NULL || (int)error < 0 || (int)error >= 1000) {
        if (text)
            *text = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&lock);
    if (strings[error][0] == '\0')
        snprintf(strings[error], sizeof strings[error], "mock driver: %s", name);
    pthread_mutex_unlock(&lock);
    *text = strings[error];
    return CUDA_SUCCESS;
}

#define REQUIRE_INIT()                                                                                             \
    do {                                                                                                           \
        if (init_calls == 0)                                                                                       \
            return CUDA_ERROR_NOT_INITIALIZED;                                                                     \
    } while (0)

EXPORT CUresult cuDeviceGetCount(int *count)
{
    FAULT("cuDeviceGetCount");
    REQUIRE_INIT();
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = ndevices;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    FAULT("cuDeviceGet");
    REQUIRE_INIT();
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

#define CHECK_DEVICE(dev)                                                                                          \
    do {                                                                                                           \
        if ((dev) < 0 || (dev) >= ndevices)                                                                        \
            return CUDA_ERROR_INVALID_DEVICE;                                                                      \
    } while (0)

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    FAULT("cuDeviceGetName");
    CHECK_DEVICE(dev);
    if (name == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "Mock CUDA Device %d", dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice dev)
{
    FAULT("cuDeviceGetAttribute");
    CHECK_DEVICE(dev);
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    switch ((int)attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
        *value = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
        *value = 64;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
        *value = 0x7fffffff;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
        *value = 65535;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        *value = 49152;
        break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        *value = 32;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *value = 4;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = cc_major;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = cc_minor;
        break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        *value = 0x10 + dev;
        break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
        *value = 1;
        break;
    default:
        *value = 0;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    FAULT("cuDeviceTotalMem");
    CHECK_DEVICE(dev);
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = total_memory;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    FAULT("cuDeviceGetUuid");
    CHECK_DEVICE(dev);
    if (uuid == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < 16; i++)
        uuid->bytes[i] = (char)(0x10 * (i % 16) + dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev)
{
    FAULT("cuDeviceGetPCIBusId");
    CHECK_DEVICE(dev);
    if (bus_id == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(bus_id, (size_t)len, "0000:%02x:00.0", 0x10 + dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    FAULT("cuDevicePrimaryCtxRetain");
    REQUIRE_INIT();
    CHECK_DEVICE(dev);
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    if (primary[dev] == NULL) {
        struct ctx *c = track(calloc(1, sizeof *c));
        if (c == NULL) {
            pthread_mutex_unlock(&lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        c->kind = K_CONTEXT;
        c->alive = 1;
        c->device = dev;
        c->retains = reset_retains[dev];
        reset_retains[dev] = 0;
        primary[dev] = c;
    }
    primary[dev]->retains++;
    *pctx = (CUcontext)primary[dev];
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    FAULT("cuDevicePrimaryCtxRelease");
    CHECK_DEVICE(dev);
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    if (primary[dev] == NULL && reset_retains[dev] > 0)
        reset_retains[dev]--; /* a retain from before a reset: nothing to destroy */
    else if (primary[dev] == NULL || primary[dev]->retains == 0)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else if (--primary[dev]->retains == 0)
        ctx_destroy(primary[dev], "cuDevicePrimaryCtxRelease");
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    FAULT("cuDevicePrimaryCtxReset");
    CHECK_DEVICE(dev);
    pthread_mutex_lock(&lock);
    if (primary[dev] != NULL) {
        reset_retains[dev] += primary[dev]->retains; /* kept: a reset releases no retain */
        ctx_destroy(primary[dev], "cuDevicePrimaryCtxReset");
    }
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    FAULT("cuCtxGetCurrent");
    REQUIRE_INIT();
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)current_ctx();
    return CUDA_SUCCESS;
}

static CUresult check_ctx_handle(CUcontext ctx)
{
    pthread_mutex_lock(&lock);
    struct ctx *c = find(K_CONTEXT, ctx);
    pthread_mutex_unlock(&lock);
    return c != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    FAULT("cuCtxSetCurrent");
    if (ctx != NULL && check_ctx_handle(ctx) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx == NULL) {
        if (ctx_depth > 0)
            ctx_depth--;
    } else if (ctx_depth == 0) {
        ctx_stack[ctx_depth++] = (struct ctx *)ctx;
    } else {
        ctx_stack[ctx_depth - 1] = (struct ctx *)ctx;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    FAULT("cuCtxPushCurrent");
    if (ctx == NULL || check_ctx_handle(ctx) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == (int)(sizeof ctx_stack / sizeof *ctx_stack))
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_stack[ctx_depth++] = (struct ctx *)ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    FAULT("cuCtxPopCurrent");
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct ctx *c = ctx_stack[--ctx_depth];
    if (pctx != NULL)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    FAULT("cuCtxGetDevice");
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct ctx *c = live_current();
    pthread_mutex_unlock(&lock);
    if (c == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

/* Calls that need a live current context. */
#define REQUIRE_CONTEXT()                                                                                          \
    do {                                                                                                           \
        pthread_mutex_lock(&lock);                                                                                 \
        struct ctx *c_ = live_current();                                                                           \
        pthread_mutex_unlock(&lock);                                                                               \
        if (c_ == NULL)                                                                                            \
            return CUDA_ERROR_INVALID_CONTEXT;                                                                     \
    } while (0)

/* A synchronizing call while a stream of the context is being captured: refused, and the capture
 * is invalidated (as the driver does in the global and thread-local capture modes). Lock held. */
static int capture_unsupported(struct ctx *c)
{
    int capturing = 0;
    for (size_t i = 0; i < nobjects; i++) {
        struct stream *s = objects[i];
        if (s->kind == K_STREAM && s->alive && s->ctx == c && s->capture != NULL) {
            s->capture_invalid = 1;
            capturing = 1;
        }
    }
    return capturing;
}

EXPORT CUresult cuCtxSynchronize(void)
{
    FAULT("cuCtxSynchronize");
    REQUIRE_CONTEXT();
    pthread_mutex_lock(&lock);
    if (capture_unsupported(current_ctx())) {
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    wait_callbacks(NULL);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    FAULT("cuMemGetInfo");
    REQUIRE_CONTEXT();
    if (free_bytes == NULL || total_bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    size_t used = device_bytes_in_use();
    pthread_mutex_unlock(&lock);
    *total_bytes = total_memory;
    *free_bytes = used < total_memory ? total_memory - used : 0;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuProfilerStart(void)
{
    FAULT("cuProfilerStart");
    REQUIRE_CONTEXT();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuProfilerStop(void)
{
    FAULT("cuProfilerStop");
    REQUIRE_CONTEXT();
    return CUDA_SUCCESS;
}

/* ---- streams ---- */

EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int flags)
{
    FAULT("cuStreamCreate");
    if (phStream == NULL || (flags & ~CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct ctx *c = live_current();
    struct stream *s = c ? track(calloc(1, sizeof *s)) : NULL;
    if (c == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else if (s == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    else {
        s->kind = K_STREAM;
        s->alive = 1;
        s->ctx = c;
        *phStream = (CUstream)s;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream h)
{
    FAULT("cuStreamDestroy");
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct stream *s = find(K_STREAM, h);
    if (s == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else
        s->alive = 0; /* its queued callbacks still run, as the driver's do */
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamSynchronize(CUstream h)
{
    FAULT("cuStreamSynchronize");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    if (rc == CUDA_SUCCESS && s != NULL && s->capture != NULL) { /* not capturable: ends the capture's use */
        s->capture_invalid = 1;
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (rc == CUDA_SUCCESS)
        wait_callbacks(s);
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamQuery(CUstream h)
{
    FAULT("cuStreamQuery");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    if (rc == CUDA_SUCCESS && s != NULL && s->capture != NULL) {
        s->capture_invalid = 1;
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    } else if (rc == CUDA_SUCCESS && (s != NULL ? s->pending : callbacks_pending) > 0)
        rc = CUDA_ERROR_NOT_READY;
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned int flags)
{
    FAULT("cuStreamWaitEvent");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    if (rc == CUDA_SUCCESS && find(K_EVENT, e) == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (flags != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamAddCallback(CUstream h, CUstreamCallback fn, void *data, unsigned int flags)
{
    FAULT("cuStreamAddCallback");
    if (fn == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    struct callback *cb = rc == CUDA_SUCCESS ? malloc(sizeof *cb) : NULL;
    if (rc == CUDA_SUCCESS && cb == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS && !worker_started) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, callback_worker, NULL) != 0)
            rc = CUDA_ERROR_OPERATING_SYSTEM;
        else {
            pthread_detach(thread);
            worker_started = 1;
        }
    }
    if (rc == CUDA_SUCCESS) {
        cb->stream = s;
        cb->fn = fn;
        cb->data = data;
        cb->next = NULL;
        if (queue_tail)
            queue_tail->next = cb;
        else
            queue_head = cb;
        queue_tail = cb;
        if (s)
            s->pending++;
        callbacks_pending++;
        pthread_cond_signal(&queue_ready);
    } else {
        free(cb);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamGetCtx(CUstream h, CUcontext *pctx)
{
    FAULT("cuStreamGetCtx");
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct stream *s = NULL;
    CUresult rc = CUDA_SUCCESS;
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        struct ctx *c = live_current();
        rc = c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
        *pctx = (CUcontext)c;
    } else if ((s = find(K_STREAM, h)) == NULL) {
        rc = CUDA_ERROR_INVALID_HANDLE;
    } else {
        *pctx = (CUcontext)s->ctx;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- events ---- */

EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int flags)
{
    FAULT("cuEventCreate");
    if (phEvent == NULL || (flags & ~0x7u))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct ctx *c = live_current();
    struct event *e = c ? track(calloc(1, sizeof *e)) : NULL;
    if (c == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else if (e == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    else {
        e->kind = K_EVENT;
        e->alive = 1;
        e->ctx = c;
        e->flags = flags;
        *phEvent = (CUevent)e;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuEventDestroy_v2(CUevent h)
{
    FAULT("cuEventDestroy");
    pthread_mutex_lock(&lock);
    struct event *e = find(K_EVENT, h);
    if (e != NULL)
        e->alive = 0;
    pthread_mutex_unlock(&lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuEventRecord(CUevent h, CUstream stream)
{
    FAULT("cuEventRecord");
    struct stream *s;
    pthread_mutex_lock(&lock);
    struct event *e = find(K_EVENT, h);
    CUresult rc = e == NULL ? CUDA_ERROR_INVALID_HANDLE : stream_lookup(stream, &s);
    if (rc == CUDA_SUCCESS && e->ctx != current_ctx())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS) {
        e->recorded = 1;
        e->when_ms = now_ms();
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuEventQuery(CUevent h)
{
    FAULT("cuEventQuery");
    pthread_mutex_lock(&lock);
    struct event *e = find(K_EVENT, h);
    pthread_mutex_unlock(&lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuEventSynchronize(CUevent h)
{
    FAULT("cuEventSynchronize");
    pthread_mutex_lock(&lock);
    struct event *e = find(K_EVENT, h);
    pthread_mutex_unlock(&lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    FAULT("cuEventElapsedTime");
    if (ms == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct event *a = find(K_EVENT, start), *b = find(K_EVENT, end);
    CUresult rc = CUDA_SUCCESS;
    if (a == NULL || b == NULL || !a->recorded || !b->recorded || (a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else
        *ms = (float)(b->when_ms - a->when_ms);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- memory ---- */

/* A memfd of `size` bytes named mockcuda-<serial> (the serial tells a reused fd number from the one a handle
 * names), or -1 (allocate() then fails as out of memory). Lock held. */
static int shared_memory_fd(size_t size)
{
    char name[64];
    snprintf(name, sizeof name, "mockcuda-%llu", ++ipc_serial);
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static CUresult allocate(const char *name, enum alloc_kind kind, void **out, size_t size)
{
    if (out == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    if (live_current() == NULL) {
        rc = CUDA_ERROR_INVALID_CONTEXT;
    } else if ((kind == A_DEVICE || kind == A_MANAGED) && size > total_memory - device_bytes_in_use()) {
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        int fd = kind == A_DEVICE && ipc_processes ? shared_memory_fd(size) : -1;
        void *p = fd >= 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : host_visible(kind)
                      ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                      : aligned_alloc(256, (size + 255) & ~(size_t)255);
        if (p == MAP_FAILED)
            p = NULL;
        struct alloc *a = p != NULL ? alloc_add(kind, p, size) : NULL;
        if (a == NULL) {
            if (p != NULL && (host_visible(kind) || fd >= 0))
                munmap(p, size);
            else
                free(p);
            if (fd >= 0)
                close(fd);
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            a->fd = fd;
            a->serial = fd >= 0 ? ipc_serial : 0;
            memset(p, kind == A_DEVICE ? 0xCD : 0, size); /* device memory is not zeroed: make that visible */
            *out = p;
        }
    }
    int slot = rc == CUDA_SUCCESS ? in_flight_begin(name, live_current()) : -1;
    pthread_mutex_unlock(&lock);
    if (rc == CUDA_SUCCESS)
        in_flight_end(slot);
    return rc;
}

static CUresult release(CUdeviceptr p, int kind_a, int kind_b)
{
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    if (a == NULL || (uintptr_t)a->base != (uintptr_t)p || ((int)a->kind != kind_a && (int)a->kind != kind_b))
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (a->ctx == NULL || !a->ctx->alive)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else if (a->imported) /* another process's memory: cuIpcCloseMemHandle, not a free */
        rc = CUDA_ERROR_INVALID_VALUE;
    else
        alloc_remove(a);
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
    FAULT("cuMemAlloc");
    return allocate("cuMemAlloc", A_DEVICE, (void **)dptr, size);
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
    FAULT("cuMemFree");
    return release(p, A_DEVICE, A_MANAGED);
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
    FAULT("cuMemAllocManaged");
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        return CUDA_ERROR_INVALID_VALUE;
    return allocate("cuMemAllocManaged", A_MANAGED, (void **)dptr, size);
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t size, unsigned int flags)
{
    FAULT("cuMemHostAlloc");
    if (flags & ~0x7u)
        return CUDA_ERROR_INVALID_VALUE;
    return allocate("cuMemHostAlloc", flags & CU_MEMHOSTALLOC_DEVICEMAP ? A_MAPPED : A_PINNED, pp, size);
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    FAULT("cuMemFreeHost");
    return release((CUdeviceptr)(uintptr_t)p, A_PINNED, A_MAPPED);
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned int flags)
{
    FAULT("cuMemHostRegister");
    if (p == NULL || size == 0 || (flags & ~0xfu))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    if (live_current() == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else {
        for (size_t i = 0; i < nallocs && rc == CUDA_SUCCESS; i++) {
            uintptr_t base = (uintptr_t)allocs[i].base, q = (uintptr_t)p;
            if (q < base + allocs[i].size && base < q + size)
                rc = allocs[i].kind == A_REGISTERED ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                                                    : CUDA_ERROR_INVALID_VALUE;
        }
        if (rc == CUDA_SUCCESS && alloc_add(A_REGISTERED, p, size) == NULL)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuMemHostUnregister(void *p)
{
    FAULT("cuMemHostUnregister");
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    if (a == NULL || a->kind != A_REGISTERED || a->base != p)
        rc = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    else
        alloc_remove(a);
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int flags)
{
    FAULT("cuMemHostGetDevicePointer");
    if (pdptr == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    CUresult rc = a != NULL && (a->kind == A_PINNED || a->kind == A_MAPPED || a->kind == A_REGISTERED)
                      ? CUDA_SUCCESS
                      : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)(uintptr_t)p; /* unified addressing: the same address */
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr p)
{
    FAULT("cuPointerGetAttribute");
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    CUresult rc = a != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; /* memory the driver knows nothing of */
    if (a != NULL) {
        switch (attribute) {
        case CU_POINTER_ATTRIBUTE_CONTEXT:
            *(CUcontext *)data = (CUcontext)a->ctx;
            break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *(unsigned int *)data =
                a->kind == A_DEVICE || a->kind == A_MANAGED ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
            *(CUdeviceptr *)data = p;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            *(int *)data = a->ctx ? a->ctx->device : 0;
            break;
        case 8: /* CU_POINTER_ATTRIBUTE_IS_MANAGED */
            *(int *)data = a->kind == A_MANAGED;
            break;
        default:
            rc = CUDA_ERROR_INVALID_VALUE;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attributes, void **data, CUdeviceptr p)
{
    FAULT("cuPointerGetAttributes");
    if (attributes == NULL || data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned int i = 0; i < n; i++) {
        CUresult rc = cuPointerGetAttribute(data[i], attributes[i], p);
        if (rc != CUDA_SUCCESS)
            return rc;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr p)
{
    FAULT("cuMemGetAddressRange");
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    CUresult rc = a != NULL && a->kind != A_REGISTERED ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
    if (rc == CUDA_SUCCESS) {
        if (pbase)
            *pbase = (CUdeviceptr)(uintptr_t)a->base;
        if (psize)
            *psize = a->size;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* IPC. The handle: "MOCKIPC\0", the allocation's address, the exporting process's pid, and, where its memory
 * is shareable (MOCK_CUDA_IPC_PROCESSES=1), the memfd's number and serial. Opened in the exporting process it
 * names the allocation (an open counted); opened in another, the memfd is mapped from /proc/<pid>/fd/<fd>,
 * which fails once the exporter has freed the memory or exited, as the driver's open does. */
struct mock_ipc_handle {
    char magic[8];
    unsigned long long pointer;
    int pid, fd;
    unsigned long long serial;
};

EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr p)
{
    FAULT("cuIpcGetMemHandle");
    if (handle == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    CUresult rc = a != NULL && a->kind == A_DEVICE && !a->imported && (uintptr_t)a->base == (uintptr_t)p
                      ? CUDA_SUCCESS
                      : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        struct mock_ipc_handle h = {"MOCKIPC", (unsigned long long)p, (int)getpid(), a->fd, a->serial};
        memset(handle->reserved, 0, sizeof handle->reserved);
        memcpy(handle->reserved, &h, sizeof h);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Maps another process's shareable allocation: the memfd of the handle, if it is still the one named. */
static CUresult ipc_map_other_process(const struct mock_ipc_handle *h, CUdeviceptr *pdptr)
{
    char path[64], link[128], expected[64];
    if (h->fd < 0)
        return CUDA_ERROR_INVALID_VALUE; /* the exporter's memory is not shareable (no MOCK_CUDA_IPC_PROCESSES) */
    snprintf(path, sizeof path, "/proc/%d/fd/%d", h->pid, h->fd);
    snprintf(expected, sizeof expected, "/memfd:mockcuda-%llu (deleted)", h->serial);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return CUDA_ERROR_INVALID_VALUE; /* the exporter exited or freed the memory */
    link[n] = 0;
    if (strcmp(link, expected) != 0)
        return CUDA_ERROR_INVALID_VALUE; /* the fd number now names something else */
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = fstat(fd, &st) == 0 && st.st_size > 0
                  ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    close(fd); /* the mapping keeps the pages */
    if (p == MAP_FAILED)
        return CUDA_ERROR_MAP_FAILED;
    struct alloc *a = alloc_add(A_DEVICE, p, (size_t)st.st_size);
    if (a == NULL) {
        munmap(p, (size_t)st.st_size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->imported = 1;
    a->ipc_opens = 1;
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int flags)
{
    FAULT("cuIpcOpenMemHandle");
    struct mock_ipc_handle h;
    (void)flags;
    memcpy(&h, handle.reserved, sizeof h);
    if (pdptr == NULL || memcmp(h.magic, "MOCKIPC", 8) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult rc;
    if (live_current() == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    else if (h.pid != (int)getpid())
        rc = ipc_map_other_process(&h, pdptr);
    else {
        struct alloc *a = alloc_find((uintptr_t)h.pointer, 1);
        rc = a != NULL && a->kind == A_DEVICE && !a->imported ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
        if (rc == CUDA_SUCCESS) {
            a->ipc_opens++;
            *pdptr = (CUdeviceptr)h.pointer;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr p)
{
    FAULT("cuIpcCloseMemHandle");
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, 1);
    CUresult rc = a != NULL && a->ipc_opens > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && a->imported)
        alloc_remove(a);
    else if (rc == CUDA_SUCCESS)
        a->ipc_opens--;
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Copies: every device range must lie inside one allocation, so an out-of-bounds copy is an error
 * (CUDA_ERROR_INVALID_VALUE) rather than a silent overwrite. */
static CUresult copy(const char *name, void *dst, const void *src, size_t n, int dst_device, int src_device,
                     CUstream stream, int use_stream)
{
    CUresult rc = fault(name);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct stream *s = NULL;
    pthread_mutex_lock(&lock);
    rc = use_stream ? stream_lookup(stream, &s) : (live_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT);
    if (rc == CUDA_SUCCESS && ((dst_device && !device_range_ok((CUdeviceptr)(uintptr_t)dst, n)) ||
                               (src_device && !device_range_ok((CUdeviceptr)(uintptr_t)src, n))))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && (dst == NULL || src == NULL) && n != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    int slot = rc == CUDA_SUCCESS ? in_flight_begin(name, use_stream && s != NULL ? s->ctx : live_current()) : -1;
    pthread_mutex_unlock(&lock);
    if (rc == CUDA_SUCCESS) {
        if (n != 0)
            memmove(dst, src, n);
        in_flight_end(slot);
    }
    return rc;
}

#define DPTR(p) ((void *)(uintptr_t)(p))

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    return copy("cuMemcpyHtoD", DPTR(dst), src, n, 1, 0, NULL, 0);
}
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    return copy("cuMemcpyDtoH", dst, DPTR(src), n, 0, 1, NULL, 0);
}
EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    return copy("cuMemcpyDtoD", DPTR(dst), DPTR(src), n, 1, 1, NULL, 0);
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    return copy("cuMemcpyHtoDAsync", DPTR(dst), src, n, 1, 0, s, 1);
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    return copy("cuMemcpyDtoHAsync", dst, DPTR(src), n, 0, 1, s, 1);
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    return copy("cuMemcpyDtoDAsync", DPTR(dst), DPTR(src), n, 1, 1, s, 1);
}

/* Peer access: the mock's devices share one address space (host memory), so every pair can reach
 * each other and a peer copy is an ordinary one. */
EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice device, CUdevice peer)
{
    FAULT("cuDeviceCanAccessPeer");
    if (can == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *can = device != peer;
    return CUDA_SUCCESS;
}
EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
    FAULT("cuCtxEnablePeerAccess");
    return peer == NULL || flags != 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                             size_t n)
{
    (void)dst_context;
    (void)src_context;
    return copy("cuMemcpyPeer", DPTR(dst), DPTR(src), n, 1, 1, NULL, 0);
}
EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                                  size_t n, CUstream s)
{
    (void)dst_context;
    (void)src_context;
    return copy("cuMemcpyPeerAsync", DPTR(dst), DPTR(src), n, 1, 1, s, 1);
}

static CUresult memset_n(const char *name, CUdeviceptr dst, unsigned value, size_t width, size_t n, CUstream stream,
                         int use_stream)
{
    CUresult rc = fault(name);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct stream *s;
    pthread_mutex_lock(&lock);
    rc = use_stream ? stream_lookup(stream, &s) : (live_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT);
    if (rc == CUDA_SUCCESS && (n > SIZE_MAX / width || !device_range_ok(dst, n * width) || dst % width != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&lock);
    if (rc == CUDA_SUCCESS)
        for (size_t i = 0; i < n; i++)
            memcpy((unsigned char *)DPTR(dst) + i * width, &value, width); /* little-endian: the low bytes */
    return rc;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n)
{
    return memset_n("cuMemsetD8", dst, v, 1, n, NULL, 0);
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
    return memset_n("cuMemsetD8Async", dst, v, 1, n, s, 1);
}
EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s)
{
    return memset_n("cuMemsetD16Async", dst, v, 2, n, s, 1);
}
EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s)
{
    return memset_n("cuMemsetD32Async", dst, v, 4, n, s, 1);
}

/* The stream-ordered pool: allocations are device allocations; the pool is a token. */
static int pool_token;

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    FAULT("cuMemAllocAsync");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(stream, &s);
    pthread_mutex_unlock(&lock);
    return rc != CUDA_SUCCESS ? rc : allocate("cuMemAllocAsync", A_DEVICE, (void **)dptr, size);
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, CUstream stream)
{
    FAULT("cuMemFreeAsync");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(stream, &s);
    pthread_mutex_unlock(&lock);
    return rc != CUDA_SUCCESS ? rc : release(p, A_DEVICE, A_DEVICE);
}

EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
    FAULT("cuDeviceGetDefaultMemPool");
    CHECK_DEVICE(dev);
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pool = (CUmemoryPool)&pool_token;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    FAULT("cuMemPoolSetAttribute");
    (void)attr;
    return pool == (CUmemoryPool)&pool_token && value != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- modules and functions ---- */

#include "mock_image.h"

EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    FAULT("cuModuleLoadData");
    if (module == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    REQUIRE_CONTEXT();
    struct module *m = calloc(1, sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->kind = K_MODULE;
    m->alive = 1;
    m->format = image_format(image, &m->size);
    m->image = malloc(m->size + 1);
    if (m->image == NULL) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(m->image, image, m->size);
    m->image[m->size] = 0;
    pthread_mutex_lock(&lock);
    m->ctx = current_ctx();
    int ok = track(m) != NULL;
    pthread_mutex_unlock(&lock);
    if (!ok)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *module = (CUmodule)m;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(CUmodule h)
{
    FAULT("cuModuleUnload");
    pthread_mutex_lock(&lock);
    struct module *m = find(K_MODULE, h);
    if (m != NULL) {
        m->alive = 0;
        for (size_t i = 0; i < nobjects; i++) {
            int *head = objects[i];
            if (head[0] == K_FUNCTION && ((struct function *)head)->module == m)
                head[1] = 0;
        }
    }
    pthread_mutex_unlock(&lock);
    return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Parameter layouts set by mock_set_params, by kernel name: they win over what the image says. */
#define MAX_OVERRIDES 32
static struct {
    char name[256];
    int nparams;
    size_t offsets[MAX_PARAMS], sizes[MAX_PARAMS];
} overrides[MAX_OVERRIDES];
static int noverrides;

EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule h, const char *name)
{
    FAULT("cuModuleGetFunction");
    if (hfunc == NULL || name == NULL || strlen(name) >= 256)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct module *m = find(K_MODULE, h);
    struct function *f = NULL;
    if (m == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; rc == CUDA_SUCCESS && i < nobjects; i++) {
        struct function *g = objects[i];
        if (g->kind == K_FUNCTION && g->alive && g->module == m && strcmp(g->name, name) == 0)
            f = g;
    }
    if (rc == CUDA_SUCCESS && f == NULL) {
        struct function made = {K_FUNCTION, 1, m, "", 0, {0}, {0}};
        snprintf(made.name, sizeof made.name, "%s", name);
        if (!image_kernel(m->image, m->size, m->format, name, &made.nparams, made.offsets, made.sizes, MAX_PARAMS))
            rc = CUDA_ERROR_NOT_FOUND;
        for (int i = 0; rc == CUDA_SUCCESS && i < noverrides; i++)
            if (strcmp(overrides[i].name, name) == 0) {
                made.nparams = overrides[i].nparams;
                memcpy(made.offsets, overrides[i].offsets, sizeof made.offsets);
                memcpy(made.sizes, overrides[i].sizes, sizeof made.sizes);
            }
        if (rc == CUDA_SUCCESS && (f = malloc(sizeof *f)) != NULL) {
            *f = made;
            f = track(f);
        }
        if (rc == CUDA_SUCCESS && f == NULL)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUDA_SUCCESS)
        *hfunc = (CUfunction)f;
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuFuncGetParamInfo(CUfunction h, size_t index, size_t *offset, size_t *size)
{
    FAULT("cuFuncGetParamInfo");
    pthread_mutex_lock(&lock);
    struct function *f = find(K_FUNCTION, h);
    CUresult rc = f == NULL                     ? CUDA_ERROR_INVALID_HANDLE
                  : index >= (size_t)f->nparams ? CUDA_ERROR_INVALID_VALUE
                                                : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS) {
        if (offset)
            *offset = f->offsets[index];
        if (size)
            *size = f->sizes[index];
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction h)
{
    FAULT("cuFuncGetAttribute");
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct function *f = find(K_FUNCTION, h);
    pthread_mutex_unlock(&lock);
    if (f == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = 1024;
        break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *value = 16;
        break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *value = cc_major * 10 + cc_minor;
        break;
    default:
        *value = 0;
    }
    return CUDA_SUCCESS;
}

/* The context's per-thread stack limit (the only limit the package sets): one value, as it only checks
 * that recursive kernels raise it. */
static size_t stack_limit = 1024;

EXPORT CUresult cuCtxGetLimit(size_t *value, CUlimit limit)
{
    FAULT("cuCtxGetLimit");
    if (value == NULL || limit != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult rc = live_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
    *value = stack_limit;
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    FAULT("cuCtxSetLimit");
    if (limit != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult rc = live_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS)
        stack_limit = value;
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT long mock_stack_limit(void)
{
    return (long)stack_limit;
}

EXPORT CUresult cuFuncSetAttribute(CUfunction h, CUfunction_attribute attribute, int value)
{
    FAULT("cuFuncSetAttribute");
    (void)attribute;
    (void)value;
    pthread_mutex_lock(&lock);
    struct function *f = find(K_FUNCTION, h);
    pthread_mutex_unlock(&lock);
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuLaunchKernel(CUfunction h, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, CUstream stream, void **params, void **extra)
{
    FAULT("cuLaunchKernel");
    struct stream *s;
    pthread_mutex_lock(&lock);
    struct function *f = find(K_FUNCTION, h);
    CUresult rc = f == NULL ? CUDA_ERROR_INVALID_HANDLE : stream_lookup(stream, &s);
    if (rc == CUDA_SUCCESS && f->module->ctx != current_ctx())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS && (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
                               (unsigned long long)bx * by * bz > 1024 || gy > 65535 || gz > 65535 ||
                               extra != NULL || (params == NULL && f->nparams > 0) || shared > 49152))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && s != NULL && s->capture != NULL && s->capture->nnodes == MAX_GRAPH_NODES)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        /* captured: a node of the graph, replayed by each cuGraphLaunch; else run (recorded) now */
        struct launch_record *r = s != NULL && s->capture != NULL ? &s->capture->nodes[s->capture->nnodes++]
                                                                  : &records[nlaunches++ % MAX_RECORDS];
        unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
        snprintf(r->name, sizeof r->name, "%s", f->name);
        memcpy(r->dims, dims, sizeof dims);
        r->stream = (uintptr_t)stream;
        r->nparams = f->nparams;
        r->nbytes = 0;
        for (int i = 0; i < f->nparams; i++) {
            r->offsets[i] = f->offsets[i];
            r->sizes[i] = f->sizes[i];
            if (f->offsets[i] + f->sizes[i] <= MAX_PARAM_BYTES) {
                memcpy(r->bytes + f->offsets[i], params[i], f->sizes[i]);
                if (f->offsets[i] + f->sizes[i] > r->nbytes)
                    r->nbytes = f->offsets[i] + f->sizes[i];
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- graphs ---- */

EXPORT CUresult cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode mode)
{
    FAULT("cuStreamBeginCapture");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    if (rc == CUDA_SUCCESS && (s == NULL || mode < 0 || mode > 2))
        rc = s == NULL ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && s->capture != NULL)
        rc = CUDA_ERROR_ILLEGAL_STATE;
    if (rc == CUDA_SUCCESS && (s->capture = track(calloc(1, sizeof *s->capture))) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        s->capture->kind = K_GRAPH; /* alive once the capture ends */
        s->capture->ctx = s->ctx;
        s->capture_invalid = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamEndCapture(CUstream h, CUgraph *graph)
{
    FAULT("cuStreamEndCapture");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    if (rc == CUDA_SUCCESS && (s == NULL || s->capture == NULL))
        rc = CUDA_ERROR_ILLEGAL_STATE;
    if (rc == CUDA_SUCCESS) {
        *graph = NULL;
        if (s->capture_invalid)
            rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        else {
            s->capture->alive = 1;
            *graph = (CUgraph)s->capture;
        }
        s->capture = NULL;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *status)
{
    FAULT("cuStreamIsCapturing");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = stream_lookup(h, &s);
    if (rc == CUDA_SUCCESS)
        *status = s == NULL || s->capture == NULL ? CU_STREAM_CAPTURE_STATUS_NONE
                  : s->capture_invalid            ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                                  : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuGraphGetNodes(CUgraph h, CUgraphNode *nodes, size_t *count)
{
    FAULT("cuGraphGetNodes");
    pthread_mutex_lock(&lock);
    struct graph *g = find(K_GRAPH, h);
    if (g != NULL && nodes == NULL)
        *count = (size_t)g->nnodes;
    pthread_mutex_unlock(&lock);
    return g == NULL || nodes != NULL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph h, unsigned long long flags)
{
    FAULT("cuGraphInstantiate");
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct graph *g = find(K_GRAPH, h), *e = NULL;
    if (g == NULL || flags != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if ((e = track(malloc(sizeof *e))) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    else {
        *e = *g;
        e->kind = K_GRAPH_EXEC;
        *exec = (CUgraphExec)e;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Runs (records) each node's launch, on `stream`. */
EXPORT CUresult cuGraphLaunch(CUgraphExec h, CUstream stream)
{
    FAULT("cuGraphLaunch");
    struct stream *s;
    pthread_mutex_lock(&lock);
    struct graph *e = find(K_GRAPH_EXEC, h);
    CUresult rc = e == NULL ? CUDA_ERROR_INVALID_VALUE : stream_lookup(stream, &s);
    if (rc == CUDA_SUCCESS && e->ctx != current_ctx())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    for (int i = 0; rc == CUDA_SUCCESS && i < e->nnodes; i++) {
        struct launch_record *r = &records[nlaunches++ % MAX_RECORDS];
        *r = e->nodes[i];
        r->stream = (uintptr_t)stream;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT CUresult cuGraphUpload(CUgraphExec h, CUstream stream)
{
    FAULT("cuGraphUpload");
    struct stream *s;
    pthread_mutex_lock(&lock);
    CUresult rc = find(K_GRAPH_EXEC, h) == NULL ? CUDA_ERROR_INVALID_VALUE : stream_lookup(stream, &s);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* The nodes' parameters of `h` into `exec`, where both launch the same kernels in the same order. */
EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph h, CUgraphExecUpdateResultInfo *info)
{
    FAULT("cuGraphExecUpdate");
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    struct graph *e = find(K_GRAPH_EXEC, exec), *g = find(K_GRAPH, h);
    if (e == NULL || g == NULL || info == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    else {
        memset(info, 0, sizeof *info);
        int same = e->nnodes == g->nnodes;
        for (int i = 0; same && i < g->nnodes; i++)
            same = strcmp(e->nodes[i].name, g->nodes[i].name) == 0;
        if (!same) {
            info->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
            rc = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        } else
            memcpy(e->nodes, g->nodes, sizeof e->nodes);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static CUresult graph_destroy(int kind, void *h)
{
    pthread_mutex_lock(&lock);
    struct graph *g = find(kind, h);
    if (g != NULL)
        g->alive = 0;
    pthread_mutex_unlock(&lock);
    return g == NULL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult cuGraphDestroy(CUgraph h)
{
    FAULT("cuGraphDestroy");
    return graph_destroy(K_GRAPH, h);
}

EXPORT CUresult cuGraphExecDestroy(CUgraphExec h)
{
    FAULT("cuGraphExecDestroy");
    return graph_destroy(K_GRAPH_EXEC, h);
}

/* ======================= the control API ======================= */

/* Forgets fault rules, call counts and launch records (not the objects: the package holds them). */
EXPORT void mock_reset(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nentries; i++) {
        entries[i].calls = 0;
        entries[i].fail_at = 0;
    }
    nlaunches = 0;
    pthread_mutex_unlock(&lock);
}

/* The nth call of `name` from now (1: the next) returns `code`; with persistent, every call after it too.
 * nth 0 clears the rule. Names are unversioned ("cuMemAlloc" for cuMemAlloc_v2). */
EXPORT int mock_fail(const char *name, long nth, int code, int persistent)
{
    pthread_mutex_lock(&lock);
    int i = entry_index(name);
    if (i >= 0) {
        entries[i].fail_at = nth > 0 ? entries[i].calls + nth : 0;
        entries[i].code = code;
        entries[i].persistent = persistent;
    }
    pthread_mutex_unlock(&lock);
    return i < 0 ? -1 : 0;
}

/* Calls of `name` since the last mock_reset (cuInit: since the library was loaded). */
EXPORT long mock_calls(const char *name)
{
    if (strcmp(name, "cuInit") == 0)
        return init_calls;
    long n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i].name, name) == 0)
            n = entries[i].calls;
    pthread_mutex_unlock(&lock);
    return n;
}

/* Live objects of a kind: "device" (incl. pooled), "pinned", "mapped", "managed", "registered", "ipc" (open
 * handles), "streams", "events", "modules", "functions", "contexts" (primary-context retains, all devices,
 * those a reset kept too), "callbacks" (queued, not yet run). -1 for an unknown kind. */
EXPORT long mock_live(const char *what)
{
    static const char *alloc_names[] = {"device", "pinned", "mapped", "managed", "registered"};
    static const char *object_names[] = {"contexts",  "streams", "events",     "modules",
                                         "functions", "graphs",  "graph_execs"};
    long n = -1;
    pthread_mutex_lock(&lock);
    for (int k = 0; k < A_NKINDS; k++)
        if (strcmp(what, alloc_names[k]) == 0) {
            n = 0;
            for (size_t i = 0; i < nallocs; i++)
                n += allocs[i].kind == (enum alloc_kind)k && !allocs[i].imported; /* those are "ipc" */
        }
    for (int k = 0; k < K_NKINDS; k++)
        if (strcmp(what, object_names[k]) == 0) {
            n = 0;
            for (size_t i = 0; i < nobjects; i++) {
                int *head = objects[i];
                if (head[0] == k && head[1])
                    n += k == K_CONTEXT ? ((struct ctx *)head)->retains : 1;
            }
            for (int d = 0; k == K_CONTEXT && d < ndevices; d++)
                n += reset_retains[d]; /* retains a reset kept, owed a release all the same */
        }
    if (strcmp(what, "ipc") == 0) {
        n = 0;
        for (size_t i = 0; i < nallocs; i++)
            n += allocs[i].ipc_opens;
    }
    if (strcmp(what, "callbacks") == 0)
        n = callbacks_pending;
    if (strcmp(what, "callback_violations") == 0) /* driver calls made from a stream callback */
        n = callback_violations;
    if (strcmp(what, "destroyed_under_call") == 0) /* contexts destroyed while a copy or allocation ran */
        n = destroyed_under_call;
    pthread_mutex_unlock(&lock);
    return n;
}

/* What raced, where destroyed_under_call counted any: the destroyer and the calls in flight, with their
 * stacks (the first few destroys). Copies it into buf (NUL-terminated); returns its whole length. */
EXPORT size_t mock_under_call_report(char *buf, size_t size)
{
    pthread_mutex_lock(&lock);
    size_t n = under_call_length;
    if (buf != NULL && size > 0)
        snprintf(buf, size, "%s", under_call_report);
    pthread_mutex_unlock(&lock);
    return n;
}

/* Sets the parameter layout the kernel `name` reports (count -1: back to what its image says). Offsets
 * NULL: each parameter at its natural alignment (its size's largest power of two, at most 8). */
EXPORT int mock_set_params(const char *name, int count, const size_t *sizes, const size_t *offsets)
{
    if (name == NULL || count > MAX_PARAMS || strlen(name) >= 256)
        return -1;
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < noverrides; i++)
        if (strcmp(overrides[i].name, name) == 0)
            slot = i;
    if (count < 0) {
        if (slot >= 0)
            overrides[slot] = overrides[--noverrides];
        pthread_mutex_unlock(&lock);
        return 0;
    }
    if (slot < 0) {
        if (noverrides == MAX_OVERRIDES) {
            pthread_mutex_unlock(&lock);
            return -1;
        }
        slot = noverrides++;
    }
    snprintf(overrides[slot].name, sizeof overrides[slot].name, "%s", name);
    overrides[slot].nparams = count;
    size_t at = 0;
    for (int i = 0; i < count; i++) {
        size_t align = 1;
        while (align < 8 && sizes[i] % (align * 2) == 0)
            align *= 2;
        at = (at + align - 1) / align * align;
        overrides[slot].offsets[i] = offsets ? offsets[i] : at;
        overrides[slot].sizes[i] = sizes[i];
        at = overrides[slot].offsets[i] + sizes[i];
    }
    pthread_mutex_unlock(&lock);
    return 0;
}

/* Launches since the last mock_reset. */
EXPORT long mock_launch_count(void)
{
    return nlaunches;
}

/* The launch `back` launches ago (0: the last): name, dims (grid xyz, block xyz, shared), stream, and
 * the parameters (count; their offsets and sizes, up to `max_params`; their bytes, up to `max_bytes`).
 * Returns the number of parameter bytes, or -1 where there is no such record. */
EXPORT long mock_launch_get(int back, char *name, int name_len, unsigned *dims, unsigned long long *stream,
                            int *nparams, size_t *offsets, size_t *sizes, int max_params, unsigned char *bytes,
                            size_t max_bytes)
{
    pthread_mutex_lock(&lock);
    long result = -1;
    if (back >= 0 && back < nlaunches && back < MAX_RECORDS) {
        struct launch_record *r = &records[(nlaunches - 1 - back) % MAX_RECORDS];
        snprintf(name, (size_t)name_len, "%s", r->name);
        memcpy(dims, r->dims, sizeof r->dims);
        *stream = r->stream;
        *nparams = r->nparams;
        for (int i = 0; i < r->nparams && i < max_params; i++) {
            offsets[i] = r->offsets[i];
            sizes[i] = r->sizes[i];
        }
        memcpy(bytes, r->bytes, r->nbytes < max_bytes ? r->nbytes : max_bytes);
        result = (long)r->nbytes;
    }
    pthread_mutex_unlock(&lock);
    return result;
}

/* Whether `p` lies in a live device allocation of `size` bytes from it (what a kernel could touch). */
EXPORT int mock_is_device_range(unsigned long long p, size_t size)
{
    pthread_mutex_lock(&lock);
    struct alloc *a = alloc_find((uintptr_t)p, size);
    int ok = a != NULL && a->kind != A_REGISTERED;
    pthread_mutex_unlock(&lock);
    return ok;
}
