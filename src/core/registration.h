/* registration.h: the table of host ranges that cuda.pinned / cuda.mapped page-locked
 * (cuMemHostRegister), counted so that they nest: a range registered again, or a part of it, counts
 * one more user, and is unregistered when the last goes. Pure C over the driver table: no Python. */
#ifndef NUMBA_CUDA_C_REGISTRATION_H
#define NUMBA_CUDA_C_REGISTRATION_H

#include "driver/api/loader.h"

#include <stddef.h>

typedef struct host_registration host_registration;

/* Page-locks [pointer, pointer + size) (`flags` as cuMemHostRegister's) for one more user; *entry is what
 * to give registration_release. A range of the table that holds it, and that the driver still has
 * registered, gains a user and no new registration. Memory registered by someone else (the driver answers
 * CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) is used as is: CUDA_SUCCESS with *entry NULL, nothing to
 * release. Call without the GIL, in the context to register in; the table's lock is a leaf (stream.c). */
CUresult registration_acquire(void *pointer, size_t size, unsigned int flags, host_registration **entry);

/* One user fewer; at the last, the range is unregistered where `unregister` (its context alive) and it
 * was not found stale meanwhile. NULL is nothing. Call without the GIL. */
CUresult registration_release(host_registration *entry, int unregister);

/* Ranges in the table, and users of them: for tests. */
void registration_counts(size_t *ranges, long *users);

#endif
