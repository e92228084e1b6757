/* rescue.c: host memory that would die with its context, kept readable after it.
 *
 * Pinned and mapped memory lives in pages of our own (memory_alloc.c), which outlive the context. Two
 * kinds cannot: write-combined memory (only cuMemHostAlloc makes it) and managed memory
 * (cuMemAllocManaged). The driver unmaps both when their context is released or reset
 * (cuda.close(), Device.reset()), and a NumPy array still over them would then fault. So each is
 * watched from its allocation; before its context dies its pages' bytes are copied into anonymous
 * pages of ours, and once the driver has unmapped the originals those pages are moved (mremap, no
 * second copy) to the very same address. The array then reads and writes ordinary memory, as a
 * pinned array does after close(); the device side is gone (every use raises, memory.c).
 *
 * Small allocations share pages with their neighbours, so whole pages are copied and moved (the
 * last move of a shared page wins, and every copy of it holds the same bytes), and a page is
 * unmapped only when no other rescued allocation lies in it. The list lives in the module state
 * and is touched only with the GIL held. */
#include "core/rescue.h"

#include "driver/errors.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uintptr_t page_size(void)
{
    static uintptr_t size;
    if (size == 0)
        size = (uintptr_t)sysconf(_SC_PAGESIZE);
    return size;
}

/* The pages [*start, *end) that hold the allocation. */
static void page_range(const MemoryObject *memory, uintptr_t *start, uintptr_t *end)
{
    uintptr_t page = page_size();
    uintptr_t address = (uintptr_t)memory->host_pointer;
    *start = address & ~(page - 1);
    *end = (address + memory->size + page - 1) & ~(page - 1);
}

void memory_rescue_watch(module_state *st, MemoryObject *memory)
{
    memory->rescue = RESCUE_WATCHED;
    memory->rescue_prev = NULL;
    memory->rescue_next = st->rescue_list;
    if (st->rescue_list != NULL)
        st->rescue_list->rescue_prev = memory;
    st->rescue_list = memory;
}

/* Managed memory is read by the host only once the device is done with it; a context in a sticky
 * error state refuses, and then its managed memory comes back as zeros rather than faulting. */
static int synchronize_for_host(module_state *st, ContextObject *context)
{
    CUresult rc = CUDA_ERROR_INVALID_CONTEXT; /* where it cannot be entered */
    if (IN_CONTEXT(st, context, (rc = CU_BLOCKING(cu.cuCtxSynchronize()), 0)) < 0)
        PyErr_Clear();
    return rc == CUDA_SUCCESS;
}

void memory_rescue_save(module_state *st, ContextObject *context)
{
    int managed = 0, any = 0;
    for (MemoryObject *m = st->rescue_list; m != NULL; m = m->rescue_next) {
        if (m->context == context && m->rescue == RESCUE_WATCHED) {
            any = 1;
            managed |= m->kind == MEMORY_MANAGED;
        }
    }
    if (!any)
        return;
    int managed_readable = managed && synchronize_for_host(st, context);
    for (MemoryObject *m = st->rescue_list; m != NULL; m = m->rescue_next) {
        if (m->context != context || m->rescue != RESCUE_WATCHED)
            continue;
        uintptr_t start, end;
        page_range(m, &start, &end);
        void *copy = mmap(NULL, end - start, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (copy == MAP_FAILED)
            continue; /* out of memory: it dies with its context, as before */
        if (m->kind != MEMORY_MANAGED || managed_readable)
            memcpy(copy, (void *)start, end - start);
        m->rescue_copy = copy;
        m->rescue = RESCUE_SAVED;
    }
}

void memory_rescue_restore(module_state *st)
{
    for (MemoryObject *m = st->rescue_list; m != NULL; m = m->rescue_next) {
        if (m->rescue != RESCUE_SAVED)
            continue;
        uintptr_t start, end;
        page_range(m, &start, &end);
        /* msync fails with ENOMEM where a page is unmapped; where all still are, the driver kept
         * them (another library holds the primary context): they wait for the next release or reset. */
        if (msync((void *)start, end - start, MS_ASYNC) == 0 || errno != ENOMEM)
            continue;
        void *moved =
            mremap(m->rescue_copy, end - start, end - start, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)start);
        if (moved == MAP_FAILED)
            continue;
        m->rescue_copy = NULL;
        m->rescue = RESCUE_DONE;
    }
}

/* Whether a rescued allocation other than `memory` lies in the page at `page`. */
static int page_shared(module_state *st, const MemoryObject *memory, uintptr_t page)
{
    for (MemoryObject *m = st->rescue_list; m != NULL; m = m->rescue_next) {
        if (m == memory || (m->rescue != RESCUE_SAVED && m->rescue != RESCUE_DONE))
            continue;
        uintptr_t start, end;
        page_range(m, &start, &end);
        if (start <= page && page < end)
            return 1;
    }
    return 0;
}

void memory_rescue_forget(module_state *st, MemoryObject *memory)
{
    if (memory->rescue == RESCUE_NONE)
        return;
    uintptr_t start, end;
    page_range(memory, &start, &end);
    if (memory->rescue == RESCUE_SAVED) {
        munmap(memory->rescue_copy, end - start);
    } else if (memory->rescue == RESCUE_DONE) {
        uintptr_t page = page_size();
        if (page_shared(st, memory, start))
            start += page;
        if (end > start && page_shared(st, memory, end - page))
            end -= page;
        if (end > start)
            munmap((void *)start, end - start);
    }
    if (memory->rescue_prev != NULL)
        memory->rescue_prev->rescue_next = memory->rescue_next;
    else
        st->rescue_list = memory->rescue_next;
    if (memory->rescue_next != NULL)
        memory->rescue_next->rescue_prev = memory->rescue_prev;
    memory->rescue_copy = NULL;
    memory->rescue_next = memory->rescue_prev = NULL;
    memory->rescue = RESCUE_NONE;
}

int rescue_init(PyObject *Py_UNUSED(module), module_state *Py_UNUSED(st))
{
    static const context_hooks hooks = {.released = memory_rescue_restore};
    return context_add_hooks(&hooks);
}
