/* foreign.c: memory other libraries describe is checked against the driver's own account of its
 * allocations (cuMemGetAddressRange) when it comes in, so that a NULL pointer, a pointer into no
 * allocation or an extent past the end is a clear ValueError rather than a kernel that faults
 * later and poisons the context.
 *
 * The driver is asked once per data pointer: the answer (the allocation's range) waits in a small
 * direct-mapped cache of the module state, so a kernel launched again and again on one CuPy or
 * PyTorch array pays a lookup. A stale entry (the allocation freed, another made at the same
 * address) is asked again before any error is raised; one for a larger allocation than the new
 * one lets a wrong extent through, as no check did before.
 *
 * Memory mapped with the virtual memory API (cuMemMap, PyTorch's expandable segments) is reported
 * piece by piece: adjacent pieces are joined. Host memory the driver knows but reports no range for
 * (registered with cuMemHostRegister) is accepted as it is. */
#include "core/foreign.h"

#include "driver/errors.h"

static struct foreign_range *slot_of(module_state *st, CUdeviceptr pointer)
{
    uint64_t h = (uint64_t)pointer * 0x9E3779B97F4A7C15ULL; /* Fibonacci hashing: spreads aligned pointers */
    return &st->foreign_ranges[h >> (64 - FOREIGN_CACHE_BITS)];
}

static CUresult address_range(CUdeviceptr address, CUdeviceptr *base, size_t *size)
{
    CUresult rc;
    CU_UNBLOCKED(rc, cu.cuMemGetAddressRange(base, size, address));
    return rc;
}

/* The range of the allocation holding `pointer`, joined with the allocations that follow it without
 * a gap up to `high` (pieces of one cuMemMap reservation). */
static CUresult joined_range(CUdeviceptr pointer, CUdeviceptr high, CUdeviceptr *base, size_t *size)
{
    CUresult rc = address_range(pointer, base, size);
    for (int pieces = 0; rc == CUDA_SUCCESS && *base + *size < high && pieces < 1024; pieces++) {
        CUdeviceptr next_base;
        size_t next_size;
        if (address_range(*base + *size, &next_base, &next_size) != CUDA_SUCCESS || next_base != *base + *size)
            break;
        *size += next_size;
    }
    return rc;
}

int foreign_check_extent(module_state *st, CUdeviceptr pointer, long long low, size_t span, const char *what)
{
    if (span == 0)
        return 0;
    if (pointer == 0) {
        PyErr_Format(PyExc_ValueError, "%s: a NULL data pointer for %zu bytes", what, span);
        return -1;
    }
    CUdeviceptr first = pointer + (CUdeviceptr)low, end = first + span;
    struct foreign_range *slot = slot_of(st, pointer);
    if (slot->pointer == pointer && slot->base <= first && end <= slot->base + slot->size)
        return 0;
    CUdeviceptr base = 0;
    size_t size = 0;
    CUresult rc = joined_range(pointer, end, &base, &size);
    if (rc == CUDA_ERROR_NOT_FOUND || rc == CUDA_ERROR_INVALID_VALUE) {
        unsigned int type = 0;
        CUresult known;
        CU_UNBLOCKED(known, cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer));
        if (known == CUDA_SUCCESS) /* registered host memory: the driver knows it but gives no range */
            return 0;
        PyErr_Format(PyExc_ValueError,
                     "%s: the data pointer %p is in no CUDA allocation of this process "
                     "(cuMemGetAddressRange: %s)",
                     what, (void *)(uintptr_t)pointer, cu_result_name(rc));
        return -1;
    }
    if (rc != CUDA_SUCCESS) /* the driver cannot tell (no context, an old driver): as numba, trust it */
        return 0;
    slot->pointer = pointer;
    slot->base = base;
    slot->size = size;
    if (first < base || end > base + size) {
        PyErr_Format(PyExc_ValueError, "%s: %zu bytes from %p reach %zu bytes %s their allocation (%p, %zu bytes)",
                     what, span, (void *)(uintptr_t)first,
                     first < base ? (size_t)(base - first) : (size_t)(end - (base + size)),
                     first < base ? "below the start of" : "past the end of", (void *)(uintptr_t)base, size);
        return -1;
    }
    return 0;
}
