"""The device-side names of numba.cuda (grid, shared, syncthreads, threadIdx, atomic, cg, ...) as
host objects, so that `from numba_cuda_c import grid` works as `from numba.cuda import grid` does.

Each is a dotted name inside the cuda module; the kernel translator reads it as that name
(cuda.grid), so kernels may use the imported name. Called on the host, it raises a clear error.
"""


class DeviceName:
    """A device-side name (cuda.grid, cuda.shared.array, ...): usable only inside a kernel."""

    __slots__ = {"path": "The dotted name under cuda, as a tuple: ('shared', 'array') for cuda.shared.array."}

    def __init__(self, path):
        self.path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return DeviceName(self.path + (name,))

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "%s is a device function: it can only be called inside a kernel (@cuda.jit)" % ".".join(self.path)
        )

    def __repr__(self):
        return "<device name %s>" % ".".join(self.path)

    def __reduce__(self):
        return (DeviceName, (self.path,))


# numba.cuda's device-side names (numba-cuda 0.30's device_init.py: stubs, intrinsics, cg, cache hints)
NAMES = (
    "threadIdx blockIdx blockDim gridDim laneid warpsize syncwarp shared local const atomic "
    "match_any_sync match_all_sync threadfence_block threadfence_system threadfence selp popc brev clz ffs "
    "fma cbrt activemask lanemask_lt nanosleep grid gridsize syncthreads syncthreads_and syncthreads_count "
    "syncthreads_or shfl_sync shfl_up_sync shfl_down_sync shfl_xor_sync all_sync any_sync eq_sync ballot_sync "
    "cg fp16 libdevice ldca ldcg ldcs ldlu ldcv stcg stcs stwb stwt"
).split()

for _name in NAMES:
    globals()[_name] = DeviceName(("cuda", _name))
del _name

# CUDA's vector types, made in kernels: cuda.float32x4(x, y, z, w); their C aliases are the same objects, as in
# numba (cuda.float4 is cuda.float32x4, cuda.long2 is cuda.int64x2)
from numba_cuda_c.types import VECTOR_TYPES as _VECTOR_TYPES  # noqa: E402

VECTOR_NAMES = list(_VECTOR_TYPES)
for _name, _vector in _VECTOR_TYPES.items():
    if _name == _vector.name:
        globals()[_name] = DeviceName(("cuda", _name))
for _name, _vector in _VECTOR_TYPES.items():
    globals()[_name] = globals()[_vector.name]
del _name, _vector
NAMES = NAMES + VECTOR_NAMES


def literal_unroll(container):
    """numba's literal_unroll: in a kernel, a loop over it is unrolled (one copy of the body per item,
    and the items may differ in type, as a tuple of arrays); in Python, the container itself."""
    return container


__all__ = ["DeviceName", "literal_unroll"] + NAMES
