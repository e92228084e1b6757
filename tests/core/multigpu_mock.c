/* multigpu_mock.c: a mock libcuda with several devices, for tests/core/test_multigpu_mock.py (loaded through
 * NUMBA_CUDA_DRIVER): host memory stands in for device memory, each device has one primary context
 * (the same handle after a reset, as the real driver gives), a per-thread context stack, modules
 * that belong to the context they were loaded in, and kernels the mock runs on the host. Enough to
 * show, without a GPU, which context each load, launch and copy happens in.
 *
 * Built twice: with -DMOCK_STUBS it defines every entry point of src/driver/api/cuda_api.h as a weak stub
 * returning CUDA_ERROR_NOT_SUPPORTED; without, the ones the tests need. MOCK_DEVICES (default 2),
 * MOCK_CC ("90,90": each device's compute capability), MOCK_PEER (1: devices reach each other),
 * MOCK_INIT_DELAY_MS (cuInit sleeps, widening first-use races), MOCK_COPY_DELAY_US (each asynchronous
 * copy sleeps: copies stay in flight). mock_stats() reports counters. */
#define _GNU_SOURCE
#include "cuda_api.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef MOCK_STUBS

#define STUB(name, symbol)                                                                                         \
    __attribute__((weak)) CUresult symbol(void)                                                                    \
    {                                                                                                              \
        return CUDA_ERROR_NOT_SUPPORTED;                                                                           \
    }
CU_REQUIRED_FUNCTIONS(STUB)
#undef STUB

#else

#define MAX_DEVICES 8

struct CUctx_st {
    int device;
    int retained;
    int generation; /* bumped by each reset: what was made in an older one is gone */
    int poisoned;   /* a kernel touched memory it cannot reach: sticky, as CUDA_ERROR_ILLEGAL_ADDRESS */
    int peer[MAX_DEVICES];
};
struct CUmod_st {
    CUcontext context;
    int generation;
};
struct CUfunc_st {
    CUmodule module;
    char name[64];
};
struct CUevent_st {
    CUcontext context;
};
struct CUstream_st {
    CUcontext context;
};

typedef struct allocation {
    char *base;
    size_t size;
    CUcontext context;
    struct allocation *next;
} allocation;

static struct CUctx_st contexts[MAX_DEVICES];
static int ndevices = 2, can_peer = 1, cc[MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static allocation *allocations;
static long loads[MAX_DEVICES], launches[MAX_DEVICES], peer_copies, bad_launches, inits;
static __thread CUcontext stack[32];
static __thread int depth;

/* For the tests, through ctypes: loads and launches per device, peer copies, refused launches. */
int mock_stats(long *out)
{
    pthread_mutex_lock(&lock);
    for (int d = 0; d < MAX_DEVICES; d++) {
        out[d] = loads[d];
        out[MAX_DEVICES + d] = launches[d];
    }
    out[2 * MAX_DEVICES] = peer_copies;
    out[2 * MAX_DEVICES + 1] = bad_launches;
    out[2 * MAX_DEVICES + 2] = inits;
    pthread_mutex_unlock(&lock);
    return 0;
}

static CUcontext current(void)
{
    return depth > 0 ? stack[depth - 1] : NULL;
}

CUresult cuInit(unsigned int flags)
{
    (void)flags;
    const char *n = getenv("MOCK_DEVICES"), *peer = getenv("MOCK_PEER"), *delay = getenv("MOCK_INIT_DELAY_MS");
    const char *ccs = getenv("MOCK_CC");
    ndevices = n ? atoi(n) : 2;
    if (ndevices > MAX_DEVICES)
        ndevices = MAX_DEVICES;
    can_peer = peer ? atoi(peer) : 1;
    for (int d = 0; d < MAX_DEVICES; d++) {
        contexts[d].device = d;
        cc[d] = 90;
    }
    for (int d = 0; ccs != NULL && *ccs && d < MAX_DEVICES; d++) {
        cc[d] = atoi(ccs);
        ccs = strchr(ccs, ',');
        if (ccs == NULL)
            break;
        ccs++;
    }
    if (delay)
        usleep(1000 * atoi(delay));
    inits++;
    return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int *v)
{
    *v = 12080;
    return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult rc, const char **s)
{
    static char names[16][48];
    static int next;
    char *name = names[next++ % 16];
    snprintf(name, 48, "CUDA_ERROR_%d", (int)rc);
    *s = name;
    return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult rc, const char **s)
{
    (void)rc;
    *s = "mock driver error";
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *count)
{
    *count = ndevices;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal < 0 || ordinal >= ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    snprintf(name, len, "Mock GPU %d", d);
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice d)
{
    memset(uuid->bytes, 0x10 + d, 16);
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
    (void)d;
    *bytes = (size_t)1 << 32;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice d)
{
    switch ((int)attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = cc[d] / 10;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = cc[d] % 10;
        break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        *value = 0x40 + d;
        break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
        *value = 0;
        break;
    default:
        *value = 1024;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer)
{
    *can = can_peer && d != peer;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    pthread_mutex_lock(&lock);
    contexts[d].retained++;
    pthread_mutex_unlock(&lock);
    *c = &contexts[d];
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    pthread_mutex_lock(&lock);
    if (contexts[d].retained > 0)
        contexts[d].retained--;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset_v2(CUdevice d)
{
    pthread_mutex_lock(&lock);
    contexts[d].generation++;
    contexts[d].poisoned = 0;
    memset(contexts[d].peer, 0, sizeof contexts[d].peer);
    for (int other = 0; other < MAX_DEVICES; other++)
        contexts[other].peer[d] = 0;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *c)
{
    *c = current();
    return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c)
{
    if (depth == 0)
        depth = 1;
    stack[depth - 1] = c;
    return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent_v2(CUcontext c)
{
    if (depth == 32)
        return CUDA_ERROR_INVALID_VALUE;
    stack[depth++] = c;
    return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent_v2(CUcontext *c)
{
    if (depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    *c = stack[--depth];
    return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *d)
{
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = current()->device;
    return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void)
{
    return current() && current()->poisoned ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
    (void)flags;
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!can_peer || peer == current())
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    if (current()->peer[peer->device])
        return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    current()->peer[peer->device] = 1;
    return CUDA_SUCCESS;
}
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    *free_bytes = *total = (size_t)1 << 32;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
    (void)flags;
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *s = calloc(1, sizeof **s);
    (*s)->context = current();
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s)
{
    free(s);
    return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream s, CUcontext *c)
{
    *c = s && (uintptr_t)s > 2 ? s->context : current();
    return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
    (void)flags;
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *e = calloc(1, sizeof **e);
    (*e)->context = current();
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)e;
    (void)s;
    return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent e)
{
    (void)e;
    return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent e)
{
    (void)e;
    return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
    (void)a;
    (void)b;
    *ms = 1.0f;
    return CUDA_SUCCESS;
}

static allocation *find(CUdeviceptr p)
{
    for (allocation *a = allocations; a != NULL; a = a->next)
        if ((char *)p >= a->base && (char *)p < a->base + a->size)
            return a;
    return NULL;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size)
{
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    allocation *a = malloc(sizeof *a);
    a->base = calloc(1, size);
    a->size = size;
    a->context = current();
    pthread_mutex_lock(&lock);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&lock);
    *p = (CUdeviceptr)a->base;
    return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr p)
{
    pthread_mutex_lock(&lock);
    for (allocation **link = &allocations; *link != NULL; link = &(*link)->next)
        if ((CUdeviceptr)(*link)->base == p) {
            allocation *a = *link;
            *link = a->next;
            pthread_mutex_unlock(&lock);
            free(a->base);
            free(a);
            return CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&lock);
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    pthread_mutex_lock(&lock);
    allocation *a = find(p);
    pthread_mutex_unlock(&lock);
    if (a == NULL)
        return CUDA_ERROR_NOT_FOUND;
    *base = (CUdeviceptr)a->base;
    *size = a->size;
    return CUDA_SUCCESS;
}
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr p)
{
    pthread_mutex_lock(&lock);
    allocation *a = find(p);
    pthread_mutex_unlock(&lock);
    if (a == NULL)
        return CUDA_ERROR_INVALID_VALUE; /* pageable host memory */
    if (attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
        *(unsigned int *)data = 2; /* CU_MEMORYTYPE_DEVICE */
    else if (attribute == CU_POINTER_ATTRIBUTE_CONTEXT)
        *(CUcontext *)data = a->context;
    else if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        *(int *)data = a->context->device;
    else
        *(CUdeviceptr *)data = p;
    return CUDA_SUCCESS;
}
static CUresult copy(void *dst, const void *src, size_t n)
{
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    memmove(dst, src, n);
    return CUDA_SUCCESS;
}
/* Pinned memory: plain memory, scribbled over when freed (a use after free reads garbage). */
CUresult cuMemHostAlloc(void **p, size_t size, unsigned int flags)
{
    (void)flags;
    size_t *block = malloc(size + 16);
    if (block == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    block[0] = size;
    *p = block + 2;
    return CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void *p)
{
    size_t *block = (size_t *)p - 2;
    memset(p, 0xdd, block[0]);
    free(block);
    return CUDA_SUCCESS;
}
/* Asynchronous copies take MOCK_COPY_DELAY_US each (a slow bus): copies stay in flight a while. */
static CUresult slow_copy(void *dst, const void *src, size_t n)
{
    static int delay = -1;
    if (delay < 0)
        delay = getenv("MOCK_COPY_DELAY_US") ? atoi(getenv("MOCK_COPY_DELAY_US")) : 0;
    if (delay > 0)
        usleep(delay);
    return copy(dst, src, n);
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n)
{
    return copy((void *)d, h, n);
}
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n)
{
    return copy(h, (void *)d, n);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
    (void)s;
    return slow_copy((void *)d, h, n);
}
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s)
{
    (void)s;
    return slow_copy(h, (void *)d, n);
}
/* Between contexts only through the peer entry points (or with peer access enabled). */
static CUresult copy_dtod(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    pthread_mutex_lock(&lock);
    allocation *to = find(d), *from = find(s);
    pthread_mutex_unlock(&lock);
    if (to && from && to->context != from->context &&
        !current()->peer[to->context == current() ? from->context->device : to->context->device])
        return CUDA_ERROR_INVALID_VALUE;
    return copy((void *)d, (void *)s, n);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    return copy_dtod(d, s, n);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    return copy_dtod(d, s, n);
}
CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
    (void)dc;
    (void)sc;
    pthread_mutex_lock(&lock);
    peer_copies++;
    pthread_mutex_unlock(&lock);
    memmove((void *)d, (void *)s, n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st)
{
    (void)st;
    return cuMemcpyPeer(d, dc, s, sc, n);
}
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
    memset((void *)d, v, n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
    (void)s;
    memset((void *)d, v, n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s)
{
    (void)s;
    for (size_t i = 0; i < n; i++)
        ((unsigned short *)d)[i] = v;
    return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{
    (void)s;
    for (size_t i = 0; i < n; i++)
        ((unsigned int *)d)[i] = v;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    (void)image;
    if (current() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *m = calloc(1, sizeof **m);
    (*m)->context = current();
    (*m)->generation = current()->generation;
    pthread_mutex_lock(&lock);
    loads[current()->device]++;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m)
{
    if (m->context != current() || m->generation != m->context->generation)
        return CUDA_ERROR_INVALID_HANDLE;
    free(m);
    return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    if (m->context != current() || m->generation != m->context->generation)
        return CUDA_ERROR_INVALID_HANDLE;
    *f = calloc(1, sizeof **f);
    (*f)->module = m;
    snprintf((*f)->name, sizeof(*f)->name, "%s", name);
    return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction f)
{
    (void)attribute;
    (void)f;
    *value = 1024;
    return CUDA_SUCCESS;
}

/* A function of another context's module, or of a context's earlier life, is refused; a kernel
 * whose array argument is out of its context's reach poisons the context. Kernel "fill(p, n, v)"
 * (int64 n and v, natural packing) writes v into n int64s at p; any other name does nothing. */
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params,
                        void **extra)
{
    (void)gx;
    (void)gy;
    (void)gz;
    (void)bx;
    (void)by;
    (void)bz;
    (void)shared;
    (void)extra;
    CUcontext c = current();
    if (c == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (c->poisoned)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (f->module->context != c || f->module->generation != c->generation ||
        (s != NULL && (uintptr_t)s > 2 && s->context != c)) {
        pthread_mutex_lock(&lock);
        bad_launches++;
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&lock);
    launches[c->device]++;
    pthread_mutex_unlock(&lock);
    if (strcmp(f->name, "fill") == 0) {
        int64_t *p, n, v;
        memcpy(&p, params[0], 8);
        memcpy(&n, params[1], 8);
        memcpy(&v, params[2], 8);
        pthread_mutex_lock(&lock);
        allocation *a = find((CUdeviceptr)p);
        pthread_mutex_unlock(&lock);
        if (a == NULL || (a->context != c && !c->peer[a->context->device])) {
            c->poisoned = 1;
            return CUDA_SUCCESS; /* found out later, as a real illegal address is */
        }
        for (int64_t i = 0; i < n; i++)
            p[i] = v;
    }
    return CUDA_SUCCESS;
}

#endif
