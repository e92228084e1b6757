/* registration.c: the table of host ranges page-locked by cuda.pinned / cuda.mapped, with a count of
 * users per range, so that nested pinned() blocks and overlapping arrays work where cuMemHostRegister
 * alone answers CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED. Process-wide, as the driver's own table of
 * registered memory is. Relies on the driver table only; runs without the GIL. */
#include "core/registration.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct host_registration {
    char *base;
    size_t size;
    long users;
    int detached; /* found stale (its context was reset): out of the table, never unregistered */
    host_registration *next;
};

/* Held across the driver calls, so that two threads registering one range count it once. A leaf lock:
 * taken without the GIL, and a stream callback never takes it (the lock order is in stream.c). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static host_registration *table;

static host_registration *find_holding(const char *pointer, size_t size)
{
    for (host_registration *entry = table; entry != NULL; entry = entry->next)
        if (entry->base <= pointer && (size_t)(pointer - entry->base) <= entry->size &&
            size <= entry->size - (size_t)(pointer - entry->base))
            return entry;
    return NULL;
}

static void unlink_entry(host_registration *gone)
{
    for (host_registration **link = &table; *link != NULL; link = &(*link)->next)
        if (*link == gone) {
            *link = gone->next;
            return;
        }
}

/* Whether the driver still has `pointer` registered: a reset context takes its registrations with it. */
static int still_registered(void *pointer)
{
    unsigned int type = 0;
    return cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)pointer) ==
               CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_HOST;
}

CUresult registration_acquire(void *pointer, size_t size, unsigned int flags, host_registration **entry)
{
    CUresult rc = CUDA_SUCCESS;
    *entry = NULL;
    pthread_mutex_lock(&table_lock);
    host_registration *held = find_holding(pointer, size);
    if (held != NULL && !still_registered(held->base)) {
        unlink_entry(held);
        held->detached = 1; /* its users (there is one at least) let it go without unregistering */
        held = NULL;
    }
    if (held != NULL) {
        held->users++;
        *entry = held;
        goto done;
    }
    host_registration *added = malloc(sizeof *added);
    if (added == NULL) {
        rc = CUDA_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    rc = cu.cuMemHostRegister(pointer, size, flags);
    if (rc != CUDA_SUCCESS) {
        free(added);
        if (rc == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
            rc = CUDA_SUCCESS; /* someone else's registration: used as is, theirs to undo */
        goto done;
    }
    *added = (host_registration){(char *)pointer, size, 1, 0, table};
    table = added;
    *entry = added;
done:
    pthread_mutex_unlock(&table_lock);
    return rc;
}

CUresult registration_release(host_registration *entry, int unregister)
{
    CUresult rc = CUDA_SUCCESS;
    if (entry == NULL)
        return rc;
    pthread_mutex_lock(&table_lock);
    if (--entry->users == 0) {
        if (!entry->detached) {
            unlink_entry(entry);
            if (unregister)
                rc = cu.cuMemHostUnregister(entry->base);
        }
        free(entry);
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

void registration_counts(size_t *ranges, long *users)
{
    *ranges = 0;
    *users = 0;
    pthread_mutex_lock(&table_lock);
    for (host_registration *entry = table; entry != NULL; entry = entry->next) {
        ++*ranges;
        *users += entry->users;
    }
    pthread_mutex_unlock(&table_lock);
}
