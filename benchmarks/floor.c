/* floor.c: the "floor (C)" column of benchmarks/bench_host.py -- each operation of its table done with
 * the driver API straight from C, no Python: the least a binding can spend on it. Built by bench_host.py
 * at run time from our own declarations and loader (src/api), so a C compiler is all it needs:
 *     cc -O2 -std=c11 -Isrc/driver/api benchmarks/floor.c src/driver/api/loader.c -ldl -lpthread -o floor
 *
 * Usage: floor [--quick]   (--quick: 3 repeats of ~5 ms instead of 7 of ~20 ms; 3 transfers instead of 5)
 *
 * Output: one JSON object on stdout, printed only when every measurement succeeded, mapping an operation
 * name to a number. Names are bench_host.py's row names where it has the row; the other keys are
 * variants. Units: keys naming a size in MiB are GB/s (1e9 bytes per second, median over the transfers),
 * "first context" is ms (one sample: this process's own first context), every other key is the median
 * microseconds per operation. Progress and errors go to stderr; any CUresult other than CUDA_SUCCESS
 * (and CUDA_ERROR_NOT_READY from the query spin) ends the program with status 1 and a message naming the
 * call. Optional keys ("device_array 8 B async") are left out where the driver or device lacks them. */
#define _GNU_SOURCE
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Creation rows keep at most this many objects alive, as bench_host.py's Keep does. */
#define KEEP_LIMIT 500
#define MAX_NUMBER 200000
#define BIG_BYTES ((size_t)256 << 20)
#define MAX_RESULTS 64
#define MAX_REPEAT 16

static int repeat = 7;                 /* repeats of a per-call loop; the median is reported */
static int transfer_repeat = 5;        /* transfers of BIG_BYTES; the median is reported */
static long long target_ns = 20000000; /* calibration: one repeat lasts about this long */

/* ---- errors ------------------------------------------------------------------------------------ */

static void check(CUresult rc, const char *call, int line)
{
    if (rc == CUDA_SUCCESS)
        return;
    const char *name = NULL, *text = NULL;
    if (cu.cuGetErrorName == NULL || cu.cuGetErrorName(rc, &name) != CUDA_SUCCESS || name == NULL)
        name = "an unknown error";
    if (cu.cuGetErrorString == NULL || cu.cuGetErrorString(rc, &text) != CUDA_SUCCESS || text == NULL)
        text = "";
    fprintf(stderr, "floor: %s failed: %s (%d) %s [floor.c:%d]\n", call, name, (int)rc, text, line);
    exit(1);
}
#define CHECK(call) check((call), #call, __LINE__)

static void fail(const char *what)
{
    fprintf(stderr, "floor: %s\n", what);
    exit(1);
}

/* ---- results, printed at the end as one JSON object --------------------------------------------- */

static struct {
    const char *name;
    double value;
} results[MAX_RESULTS];
static int nresults;

static void put(const char *name, double value)
{
    if (nresults == MAX_RESULTS)
        fail("too many results: raise MAX_RESULTS");
    results[nresults].name = name;
    results[nresults].value = value;
    nresults++;
    fprintf(stderr, "floor: %-44s %10.4g\n", name, value);
}

static void print_json(void)
{
    printf("{");
    for (int i = 0; i < nresults; i++) /* names are ours: plain ASCII, no quote or backslash */
        printf("%s\n  \"%s\": %.6g", i ? "," : "", results[i].name, results[i].value);
    printf("\n}\n");
}

/* ---- timing ------------------------------------------------------------------------------------- */

static long long now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        fail("clock_gettime(CLOCK_MONOTONIC) failed");
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* What the operations share: made once, before any timing. */
struct bench {
    CUstream stream;         /* an idle stream of our own */
    CUevent event;           /* flags 0, as numba's event() and CuPy's Event() */
    CUdeviceptr dev8;        /* 8 bytes on the device */
    double *host8;           /* 8 pageable bytes (malloc) */
    CUdeviceptr dev_big;     /* BIG_BYTES on the device */
    void *pinned_big;        /* BIG_BYTES from cuMemHostAlloc(flags 0), as pinned_array */
    void *pageable_big;      /* BIG_BYTES from malloc, touched once */
    CUcontext ctx, peer_ctx; /* devices 0 and 1 (peer_ctx NULL with one device) */
    CUdeviceptr peer_big;    /* BIG_BYTES on device 1 */
    CUfunction empty_kernel; /* (pointer, float) -> nothing: the launch floor's kernel */
    CUstream streams[KEEP_LIMIT];
    CUevent events[KEEP_LIMIT];
    CUdeviceptr pointers[KEEP_LIMIT];
};

/* An operation: runs n iterations and returns the nanoseconds they took. What the iterations left
 * (streams, events, allocations) is destroyed after the timer stopped. */
typedef long long (*operation)(struct bench *b, long n);

/* Median µs per iteration of op: warm-up, then n doubled until a loop lasts target_ns (at most
 * max_number), then `repeat` loops of n, as bench_host.py's per_call. */
static void measure(const char *name, struct bench *b, operation op, long max_number)
{
    double samples[MAX_REPEAT];
    long n = 1;
    op(b, max_number < 3 ? max_number : 3);
    while (n < max_number && op(b, n) < target_ns)
        n = 2 * n < max_number ? 2 * n : max_number;
    for (int r = 0; r < repeat; r++)
        samples[r] = (double)op(b, n) / (double)n / 1000.0;
    put(name, median(samples, repeat));
}

/* A transfer of BIG_BYTES: returns the nanoseconds it took. */
typedef long long (*transfer)(struct bench *b);

/* Median GB/s of `transfer_repeat` transfers, after one untimed. */
static void measure_transfer(const char *name, struct bench *b, transfer op)
{
    double samples[MAX_REPEAT];
    op(b);
    for (int r = 0; r < transfer_repeat; r++)
        samples[r] = (double)BIG_BYTES / (double)op(b); /* bytes per ns = GB/s */
    put(name, median(samples, transfer_repeat));
}

/* ---- per-call operations ------------------------------------------------------------------------ */

static long long op_stream_create(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuStreamCreate(&b->streams[i], CU_STREAM_DEFAULT));
    long long t = now_ns() - t0;
    for (long i = 0; i < n; i++)
        CHECK(cu.cuStreamDestroy(b->streams[i]));
    return t;
}

static long long op_event_create(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuEventCreate(&b->events[i], CU_EVENT_DEFAULT));
    long long t = now_ns() - t0;
    for (long i = 0; i < n; i++)
        CHECK(cu.cuEventDestroy(b->events[i]));
    return t;
}

static long long op_record_sync(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++) {
        CHECK(cu.cuEventRecord(b->event, b->stream));
        CHECK(cu.cuEventSynchronize(b->event));
    }
    return now_ns() - t0;
}

/* cuEventQuery in a loop instead of cuEventSynchronize: what "query before blocking" can gain. */
static long long op_record_query_spin(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++) {
        CUresult rc;
        CHECK(cu.cuEventRecord(b->event, b->stream));
        while ((rc = cu.cuEventQuery(b->event)) == CUDA_ERROR_NOT_READY)
            ;
        CHECK(rc);
    }
    return now_ns() - t0;
}

static long long op_stream_synchronize(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuStreamSynchronize(b->stream));
    return now_ns() - t0;
}

static long long op_alloc_free(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++) {
        CUdeviceptr p;
        CHECK(cu.cuMemAlloc(&p, 8));
        CHECK(cu.cuMemFree(p));
    }
    (void)b;
    return now_ns() - t0;
}

static long long op_alloc_only(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuMemAlloc(&b->pointers[i], 8));
    long long t = now_ns() - t0;
    for (long i = 0; i < n; i++)
        CHECK(cu.cuMemFree(b->pointers[i]));
    return t;
}

/* Stream-ordered: the stream is synchronised after the timer stopped. */
static long long op_alloc_free_async(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++) {
        CUdeviceptr p;
        CHECK(cu.cuMemAllocAsync(&p, 8, b->stream));
        CHECK(cu.cuMemFreeAsync(p, b->stream));
    }
    long long t = now_ns() - t0;
    CHECK(cu.cuStreamSynchronize(b->stream));
    return t;
}

/* to_device: allocate and copy in from pageable memory; the frees are batched after the timer, as a
 * deallocation queue would. */
static long long op_alloc_copy_in(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++) {
        CHECK(cu.cuMemAlloc(&b->pointers[i], 8));
        CHECK(cu.cuMemcpyHtoD(b->pointers[i], b->host8, 8));
    }
    long long t = now_ns() - t0;
    for (long i = 0; i < n; i++)
        CHECK(cu.cuMemFree(b->pointers[i]));
    return t;
}

static long long op_copy_in(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuMemcpyHtoD(b->dev8, b->host8, 8));
    return now_ns() - t0;
}

static long long op_copy_out(struct bench *b, long n)
{
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuMemcpyDtoH(b->host8, b->dev8, 8));
    return now_ns() - t0;
}

static long long op_ctx_get_current(struct bench *b, long n)
{
    CUcontext ctx;
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuCtxGetCurrent(&ctx));
    (void)b;
    return now_ns() - t0;
}

static long long op_ctx_get_device(struct bench *b, long n)
{
    CUdevice dev;
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(cu.cuCtxGetDevice(&dev));
    (void)b;
    return now_ns() - t0;
}

/* ---- transfers of BIG_BYTES ---------------------------------------------------------------------- */

/* Host memory as NumPy gets it for a large array: malloc (mmap'ed fresh pages at this size), with
 * transparent huge pages requested as NumPy does (madvise MADV_HUGEPAGE on the page-aligned part). */
static void *host_alloc_like_numpy(size_t size)
{
    char *p = malloc(size);
    if (p == NULL)
        fail("malloc of the 256 MiB host buffer failed");
#ifdef MADV_HUGEPAGE
    size_t page = 4096, start = ((size_t)p + page - 1) & ~(page - 1), end = ((size_t)p + size) & ~(page - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
    return p;
}

/* Each transfer ends with cuCtxSynchronize inside the timer: a copy from pageable memory may return
 * before its DMA has finished (Driver API, "API synchronization behavior"). */
static long long op_h2d_pinned(struct bench *b)
{
    long long t0 = now_ns();
    CHECK(cu.cuMemcpyHtoD(b->dev_big, b->pinned_big, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    return now_ns() - t0;
}

/* to_device's whole work: allocation and copy (the free comes after the timer, as a queued one). */
static long long op_h2d_pinned_alloc(struct bench *b)
{
    CUdeviceptr d;
    long long t0 = now_ns();
    CHECK(cu.cuMemAlloc(&d, BIG_BYTES));
    CHECK(cu.cuMemcpyHtoD(d, b->pinned_big, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    long long t = now_ns() - t0;
    CHECK(cu.cuMemFree(d));
    return t;
}

static long long op_h2d_pageable(struct bench *b)
{
    long long t0 = now_ns();
    CHECK(cu.cuMemcpyHtoD(b->dev_big, b->pageable_big, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    return now_ns() - t0;
}

/* Device 0 to device 1 (peer access enabled where the devices allow it), as copy_to_device. */
static long long op_peer(struct bench *b)
{
    long long t0 = now_ns();
    CHECK(cu.cuMemcpyPeer(b->peer_big, b->peer_ctx, b->dev_big, b->ctx, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    return now_ns() - t0;
}

static long long op_d2h_pinned(struct bench *b)
{
    long long t0 = now_ns();
    CHECK(cu.cuMemcpyDtoH(b->pinned_big, b->dev_big, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    return now_ns() - t0;
}

/* Into a buffer that is reused, so already faulted in. */
static long long op_d2h_pageable(struct bench *b)
{
    long long t0 = now_ns();
    CHECK(cu.cuMemcpyDtoH(b->pageable_big, b->dev_big, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    return now_ns() - t0;
}

/* copy_to_host() with no argument: a new host buffer each time (fresh pages, faulted in by the copy),
 * freed when dropped -- both inside the timer, as the Python row times the result's destruction. */
static long long op_d2h_new_array(struct bench *b)
{
    long long t0 = now_ns();
    void *p = host_alloc_like_numpy(BIG_BYTES);
    CHECK(cu.cuMemcpyDtoH(p, b->dev_big, BIG_BYTES));
    CHECK(cu.cuCtxSynchronize());
    free(p);
    return now_ns() - t0;
}

/* A burst of LAUNCH_BURST launches of an empty kernel of a pointer and a float (the C-loop rows' arguments) into a
 * drained queue: the driver's own cost per launch. Drained first, untimed: a loop that outruns the GPU waits for
 * it. */
enum { LAUNCH_BURST = 100 };
static const char EMPTY_KERNEL_PTX[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                       ".visible .entry empty(.param .u64 p, .param .f32 v)\n{\n\tret;\n}\n";

static long long op_launch_burst(struct bench *b, long n)
{
    CUdeviceptr pointer = b->dev8;
    float value = 1.0f;
    void *params[2] = {&pointer, &value};
    long long total = 0;
    for (long i = 0; i < n; i++) {
        CHECK(cu.cuCtxSynchronize());
        long long t0 = now_ns();
        for (int k = 0; k < LAUNCH_BURST; k++)
            CHECK(cu.cuLaunchKernel(b->empty_kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
        total += now_ns() - t0;
    }
    return total / LAUNCH_BURST; /* per launch, as if each iteration were one */
}

/* ---- main ------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            repeat = 3;
            transfer_repeat = 3;
            target_ns = 5000000;
        } else {
            fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
            return 2;
        }
    }

    /* First context: driver load (dlopen, entry points, cuInit), then the primary context of device 0
     * made current -- what numba's first current_context() does, without Python. */
    const char *why = NULL;
    long long t0 = now_ns();
    if (cu_driver_load(&why) != 0)
        fail(why);
    int count = 0;
    CHECK(cu.cuDeviceGetCount(&count));
    if (count < 1)
        fail("no CUDA device");
    CUdevice dev;
    CUcontext ctx;
    CHECK(cu.cuDeviceGet(&dev, 0));
    CHECK(cu.cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cu.cuCtxSetCurrent(ctx));
    double first_context_ms = (double)(now_ns() - t0) / 1e6;

    char name[256] = "";
    int version = 0, pools = 0;
    CHECK(cu.cuDeviceGetName(name, (int)sizeof name, dev));
    CHECK(cu.cuDriverGetVersion(&version));
    CHECK(cu.cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev));
    fprintf(stderr, "floor: device 0: %s, driver API %d.%d\n", name, version / 1000, (version % 1000) / 10);
    fprintf(stderr, "floor: %d repeats of ~%lld ms per operation, %d transfers per GB/s figure\n", repeat,
            target_ns / 1000000, transfer_repeat);
    put("first context", first_context_ms);

    static struct bench bench; /* static: the handle arrays are large for a stack */
    struct bench *b = &bench;
    CHECK(cu.cuStreamCreate(&b->stream, CU_STREAM_DEFAULT));
    CHECK(cu.cuEventCreate(&b->event, CU_EVENT_DEFAULT));
    CHECK(cu.cuMemAlloc(&b->dev8, 8));
    if ((b->host8 = calloc(1, sizeof *b->host8)) == NULL)
        fail("malloc failed");

    measure("stream()", b, op_stream_create, KEEP_LIMIT);
    measure("event()", b, op_event_create, KEEP_LIMIT);
    measure("event record+sync (idle stream)", b, op_record_sync, MAX_NUMBER);
    measure("event record+query-spin (idle stream)", b, op_record_query_spin, MAX_NUMBER);
    measure("stream.synchronize (idle)", b, op_stream_synchronize, MAX_NUMBER);
    measure("device_array 8 B", b, op_alloc_free, MAX_NUMBER);
    measure("device_array 8 B (alloc only)", b, op_alloc_only, KEEP_LIMIT);
    if (cu.cuMemAllocAsync != NULL && cu.cuMemFreeAsync != NULL && pools)
        measure("device_array 8 B async", b, op_alloc_free_async, MAX_NUMBER);
    else
        fprintf(stderr, "floor: device_array 8 B async: left out (%s)\n",
                pools ? "the driver lacks cuMemAllocAsync" : "the device has no memory pools");
    measure("to_device 8 B", b, op_alloc_copy_in, KEEP_LIMIT);
    measure("to_device 8 B (copy only)", b, op_copy_in, MAX_NUMBER);
    measure("copy_to_host 8 B", b, op_copy_out, MAX_NUMBER);
    measure("current_context()", b, op_ctx_get_current, MAX_NUMBER);
    measure("get_current_device()", b, op_ctx_get_device, MAX_NUMBER);
    CUmodule empty_module;
    CHECK(cu.cuModuleLoadData(&empty_module, EMPTY_KERNEL_PTX));
    CHECK(cu.cuModuleGetFunction(&b->empty_kernel, empty_module, "empty"));
    measure("launch (per launch, a burst of 100)", b, op_launch_burst, 200);
    CHECK(cu.cuModuleUnload(empty_module));

    CHECK(cu.cuMemAlloc(&b->dev_big, BIG_BYTES));
    CHECK(cu.cuMemsetD8(b->dev_big, 1, BIG_BYTES));
    CHECK(cu.cuMemHostAlloc(&b->pinned_big, BIG_BYTES, 0));
    memset(b->pinned_big, 1, BIG_BYTES);
    b->pageable_big = host_alloc_like_numpy(BIG_BYTES);
    memset(b->pageable_big, 1, BIG_BYTES);
    CHECK(cu.cuCtxSynchronize());

    measure_transfer("H2D pinned 256 MiB", b, op_h2d_pinned);
    measure_transfer("H2D pinned 256 MiB (alloc+copy)", b, op_h2d_pinned_alloc);
    measure_transfer("H2D pageable 256 MiB", b, op_h2d_pageable);
    measure_transfer("D2H pinned 256 MiB", b, op_d2h_pinned);
    measure_transfer("D2H pageable 256 MiB", b, op_d2h_pageable);
    measure_transfer("D2H new array 256 MiB", b, op_d2h_new_array);
    if (count >= 2) {
        CUdevice dev1;
        int can = 0;
        b->ctx = ctx;
        CHECK(cu.cuDeviceGet(&dev1, 1));
        CHECK(cu.cuDevicePrimaryCtxRetain(&b->peer_ctx, dev1));
        CHECK(cu.cuDeviceCanAccessPeer(&can, dev, dev1));
        if (can) {
            CUresult rc = cu.cuCtxEnablePeerAccess(b->peer_ctx, 0);
            if (rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
                CHECK(rc);
        }
        CHECK(cu.cuCtxPushCurrent(b->peer_ctx));
        CHECK(cu.cuMemAlloc(&b->peer_big, BIG_BYTES));
        CHECK(cu.cuCtxPopCurrent(&b->peer_ctx));
        measure_transfer("peer copy 256 MiB", b, op_peer);
        CHECK(cu.cuMemFree(b->peer_big));
        CHECK(cu.cuDevicePrimaryCtxRelease(dev1));
    } else {
        fprintf(stderr, "floor: peer copy 256 MiB: left out (one device)\n");
    }

    free(b->pageable_big);
    CHECK(cu.cuMemFreeHost(b->pinned_big));
    CHECK(cu.cuMemFree(b->dev_big));
    CHECK(cu.cuMemFree(b->dev8));
    free(b->host8);
    CHECK(cu.cuEventDestroy(b->event));
    CHECK(cu.cuStreamDestroy(b->stream));
    CHECK(cu.cuDevicePrimaryCtxRelease(dev));

    print_json();
    return 0;
}
