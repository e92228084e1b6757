"""The built-in stream-ordered memory pool (cuMemAllocAsync / cuMemFreeAsync).

Select it with NUMBA_CUDA_MEMORY_MANAGER=numba_cuda_c.pool, as numba selects a memory-manager
plugin by module name, or with cuda.set_memory_manager(numba_cuda_c.pool.StreamOrderedMemoryManager).
Device arrays then come from the device's default pool, which keeps freed memory for reuse; a free
is ordered on the legacy default stream, after the work of every blocking stream. Allocation and
free cost about a microsecond each instead of several.
"""


class StreamOrderedMemoryManager:
    """Marker for the built-in pool: pass the class to set_memory_manager()."""


_numba_memory_manager = StreamOrderedMemoryManager
