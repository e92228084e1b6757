/* registration_mock.c: src/core/registration.c against a mock driver that keeps a table of registered host
 * ranges as the real one does (an overlapping registration is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
 * unregistering needs the base), for tests/core/test_pinned.py: nesting, parts of a range, memory someone
 * else registered, a registration dropped by a context reset, failures, and many threads at once.
 * Prints "ok <cases>" and exits 0, or names the failing check and exits 1. */
#include "registration.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct cu_driver_table cu;

#define MAX_RANGES 64
static struct {
    char *base;
    size_t size;
} ranges[MAX_RANGES];
static int nranges, registers, unregisters, fail_next_register;
static pthread_mutex_t driver_lock = PTHREAD_MUTEX_INITIALIZER;

static int find(const char *p, size_t n) /* the range overlapping [p, p + n), or -1 */
{
    for (int i = 0; i < nranges; i++)
        if (p < ranges[i].base + ranges[i].size && ranges[i].base < p + n)
            return i;
    return -1;
}

static CUresult host_register(void *p, size_t n, unsigned int flags)
{
    (void)flags;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&driver_lock);
    if (fail_next_register) {
        fail_next_register = 0;
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    } else if (find(p, n) >= 0) {
        rc = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    } else {
        ranges[nranges].base = p;
        ranges[nranges++].size = n;
        registers++;
    }
    pthread_mutex_unlock(&driver_lock);
    return rc;
}

static CUresult host_unregister(void *p)
{
    CUresult rc = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    pthread_mutex_lock(&driver_lock);
    int i = find(p, 1);
    if (i >= 0 && ranges[i].base == p) {
        ranges[i] = ranges[--nranges];
        unregisters++;
        rc = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&driver_lock);
    return rc;
}

static CUresult pointer_attribute(void *data, CUpointer_attribute attribute, CUdeviceptr p)
{
    pthread_mutex_lock(&driver_lock);
    int i = find((const char *)(uintptr_t)p, 1);
    pthread_mutex_unlock(&driver_lock);
    if (attribute != CU_POINTER_ATTRIBUTE_MEMORY_TYPE || i < 0)
        return CUDA_ERROR_INVALID_VALUE;
    *(unsigned int *)data = CU_MEMORYTYPE_HOST;
    return CUDA_SUCCESS;
}

static int cases;
#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        cases++;                                                                                                   \
        if (!(cond)) {                                                                                             \
            printf("failed: %s (line %d)\n", #cond, __LINE__);                                                     \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static void check_table(size_t want_ranges, long want_users)
{
    size_t n;
    long users;
    registration_counts(&n, &users);
    CHECK(n == want_ranges);
    CHECK(users == want_users);
}

static char memory[1 << 16];

static void *hammer(void *arg)
{
    char *p = arg;
    for (int i = 0; i < 2000; i++) {
        host_registration *a, *b;
        if (registration_acquire(p, 4096, 0, &a) != CUDA_SUCCESS || a == NULL)
            return "acquire";
        if (registration_acquire(p + 100, 100, 0, &b) != CUDA_SUCCESS || b != a)
            return "nested acquire";
        if (registration_release(b, 1) != CUDA_SUCCESS || registration_release(a, 1) != CUDA_SUCCESS)
            return "release";
    }
    return NULL;
}

int main(void)
{
    cu.cuMemHostRegister = host_register;
    cu.cuMemHostUnregister = host_unregister;
    cu.cuPointerGetAttribute = pointer_attribute;
    host_registration *a, *b, *c;

    /* nesting: one registration, counted; unregistered at the last release */
    CHECK(registration_acquire(memory, 1024, 0, &a) == CUDA_SUCCESS && a != NULL);
    CHECK(registration_acquire(memory, 1024, 0, &b) == CUDA_SUCCESS && b == a);
    CHECK(registration_acquire(memory + 100, 24, 0, &c) == CUDA_SUCCESS && c == a); /* a part of it */
    CHECK(registers == 1 && nranges == 1);
    check_table(1, 3);
    CHECK(registration_release(b, 1) == CUDA_SUCCESS && registration_release(a, 1) == CUDA_SUCCESS);
    CHECK(nranges == 1 && unregisters == 0);
    CHECK(registration_release(c, 1) == CUDA_SUCCESS);
    CHECK(nranges == 0 && unregisters == 1);
    check_table(0, 0);

    /* a range reaching past ours is not ours to count: the driver refuses it, it is used as is */
    CHECK(registration_acquire(memory, 1024, 0, &a) == CUDA_SUCCESS && a != NULL);
    CHECK(registration_acquire(memory + 512, 1024, 0, &b) == CUDA_SUCCESS && b == NULL);
    CHECK(registration_release(b, 1) == CUDA_SUCCESS && nranges == 1);
    CHECK(registration_release(a, 1) == CUDA_SUCCESS && nranges == 0);

    /* memory someone else registered: used as is, never unregistered by us */
    CHECK(host_register(memory + 4096, 4096, 0) == CUDA_SUCCESS);
    CHECK(registration_acquire(memory + 4096, 4096, 0, &a) == CUDA_SUCCESS && a == NULL);
    CHECK(registration_acquire(memory + 5000, 10, 0, &b) == CUDA_SUCCESS && b == NULL);
    CHECK(registration_release(a, 1) == CUDA_SUCCESS && registration_release(b, 1) == CUDA_SUCCESS);
    CHECK(nranges == 1);
    check_table(0, 0);
    CHECK(host_unregister(memory + 4096) == CUDA_SUCCESS && nranges == 0);

    /* a context reset drops the registration: the next user registers again, and the old users'
     * releases do not undo the new registration */
    CHECK(registration_acquire(memory, 2048, 0, &a) == CUDA_SUCCESS && a != NULL);
    nranges = 0; /* the reset */
    int before = registers;
    CHECK(registration_acquire(memory, 2048, 0, &b) == CUDA_SUCCESS && b != NULL && b != a);
    CHECK(registers == before + 1 && nranges == 1);
    check_table(1, 1);
    CHECK(registration_release(a, 0) == CUDA_SUCCESS && nranges == 1);
    CHECK(registration_release(b, 1) == CUDA_SUCCESS && nranges == 0);
    check_table(0, 0);

    /* a failing registration leaves nothing behind */
    fail_next_register = 1;
    CHECK(registration_acquire(memory, 64, 0, &a) == CUDA_ERROR_OUT_OF_MEMORY && a == NULL);
    check_table(0, 0);
    CHECK(nranges == 0);

    /* a failing unregistration is reported, and the entry still goes */
    CHECK(registration_acquire(memory, 64, 0, &a) == CUDA_SUCCESS && a != NULL);
    nranges = 0;
    CHECK(registration_release(a, 1) == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    check_table(0, 0);

    /* many threads nesting over one range and over their own */
    pthread_t threads[8];
    for (int t = 0; t < 8; t++)
        CHECK(pthread_create(&threads[t], NULL, hammer, memory + (t % 2 ? 0 : (size_t)t * 4096 + 8192)) == 0);
    for (int t = 0; t < 8; t++) {
        void *why;
        pthread_join(threads[t], &why);
        if (why != NULL)
            printf("thread %d: %s\n", t, (char *)why);
        CHECK(why == NULL);
    }
    CHECK(nranges == 0);
    check_table(0, 0);
    printf("ok %d\n", cases);
    return 0;
}
