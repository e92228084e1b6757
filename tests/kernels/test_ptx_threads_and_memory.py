"""The PTX of kernels' threads and memory, compiled by NVRTC without a GPU (cuda.compile_ptx): grid and
thread indices, atomics, shared (static and dynamic), local and constant arrays, barriers, fences and
lanes, record fields read as their alignment allows.

The kernels live at module level: the translator reads their source with inspect.
"""

import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import SIG, _private_cache, body_of, ptx_of, translated  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, float32, float64, types

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)

TPB = 16


# ---------------------------------------------------------------------------------------------
# Kernels: one construct each
# ---------------------------------------------------------------------------------------------


def k_grid2(a, n):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] = x * 10 + y


def k_gridsize(a, n):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, n, stride):
        a[i] = 2.0


def k_indices(a, n):
    a[0] = cuda.threadIdx.z + cuda.blockIdx.y + cuda.blockDim.z + cuda.gridDim.y


def k_atomic_add_f32(a, n):
    a[1] = cuda.atomic.add(a, 0, 1.5)


def k_atomic_add_f64(a, n):
    a[1] = cuda.atomic.add(a, 0, 1.5)


def k_atomic_add_i32(a, n):
    a[1] = cuda.atomic.add(a, 0, 3)


def k_atomic_add_2d(a, n):
    a[0, 1] = cuda.atomic.add(a, (1, 0), 2)


def k_atomic_sub_i32(a, n):
    a[1] = cuda.atomic.sub(a, 0, 3)


def k_atomic_max_i32(a, n):
    a[1] = cuda.atomic.max(a, 0, a[2])


def k_atomic_min_u32(a, n):
    a[1] = cuda.atomic.min(a, 0, a[2])


def k_atomic_max_i64(a, n):
    a[1] = cuda.atomic.max(a, 0, a[2])


def k_atomic_max_f32(a, n):
    a[1] = cuda.atomic.max(a, 0, a[2])


def k_atomic_min_f64(a, n):
    a[1] = cuda.atomic.min(a, 0, a[2])


def k_atomic_cas(a, n):
    a[1] = cuda.atomic.compare_and_swap(a, 5, 7)


def k_atomic_cas_index(a, n):
    a[1] = cuda.atomic.cas(a, 2, 5, 7)


def k_atomic_exch(a, n):
    a[1] = cuda.atomic.exch(a, 0, 9)


def k_atomic_bits(a, n):
    a[1] = cuda.atomic.and_(a, 0, 6) + cuda.atomic.or_(a, 0, 1) + cuda.atomic.xor(a, 0, 5)


def k_atomic_inc(a, n):
    a[1] = cuda.atomic.inc(a, 0, 100) + cuda.atomic.dec(a, 2, 100)


def k_shared(a, n):
    s = cuda.shared.array(128, dtype=float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    a[t] = s[127 - t]


def k_shared_2d(a, n):
    tile = cuda.shared.array(shape=(TPB, TPB), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty]
    cuda.syncthreads()
    a[tx] = tile[tx, ty]


def k_shared_dynamic(a, n):
    s = cuda.shared.array(0, dtype=float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    a[t] = s[s.size - 1 - t]


def k_cuda_type_attributes(a, n):
    s = cuda.shared.array(8, dtype=cuda.float32)
    scratch = cuda.local.array(4, cuda.types.int64)
    scratch[n % 4] = cuda.types.int64(a[0])
    s[n % 8] = cuda.float64(scratch[0]) + cuda.uint8(n)
    a[0] = s[0]


def k_local(a, n):
    scratch = cuda.local.array(32, dtype=float32)
    for i in range(32):
        scratch[i] = a[i]
    total = float32(0)
    for i in range(n):
        total += scratch[(i * 7) % 32]
    a[0] = total


def k_local_np_dtype(a, n):
    scratch = cuda.local.array((4, 8), np.int32)
    for i in range(4):
        for j in range(8):
            scratch[i, j] = i * j
    a[0] = scratch[n % 4, n % 8]


def k_sync_count(a, n):
    t = cuda.threadIdx.x
    a[t] = cuda.syncthreads_count(a[t] > 0) + cuda.syncthreads_and(a[t] > 1) + cuda.syncthreads_or(a[t] > 2)


def k_fences(a, n):
    a[0] = 1.0
    cuda.threadfence()
    a[1] = 2.0
    cuda.threadfence_block()
    a[2] = 3.0
    cuda.threadfence_system()
    a[3] = 4.0
    cuda.syncwarp()


def k_laneid(a, n):
    a[cuda.threadIdx.x] = cuda.laneid * 100 + cuda.warpsize


# ---------------------------------------------------------------------------------------------
# PTX of each construct
# ---------------------------------------------------------------------------------------------


def test_grid_2d():
    body = body_of(ptx_of(k_grid2, "void(int32[:, :], int64)"), "k_grid2")
    for register in ("%tid.x", "%tid.y", "%ctaid.x", "%ctaid.y", "%ntid.x", "%ntid.y"):
        assert register in body
    assert "st.global.u32" in body


def test_gridsize_loop():
    body = body_of(ptx_of(k_gridsize), "k_gridsize")
    assert "%nctaid.x" in body and "%ntid.x" in body


def test_thread_block_grid_indices():
    body = body_of(ptx_of(k_indices), "k_indices")
    for register in ("%tid.z", "%ctaid.y", "%ntid.z", "%nctaid.y"):
        assert register in body


@pytest.mark.parametrize(
    "func, sig, instruction",
    [
        (k_atomic_add_f32, "void(float32[:], int64)", "atom.add.f32"),
        (k_atomic_add_f64, "void(float64[:], int64)", "atom.add.f64"),
        (k_atomic_add_i32, "void(int32[:], int64)", "atom.add.u32"),
        (k_atomic_add_2d, "void(int64[:, :], int64)", "atom.add.u64"),
        (k_atomic_sub_i32, "void(int32[:], int64)", "atom.add.u32"),
        (k_atomic_max_i32, "void(int32[:], int64)", "atom.max.s32"),
        (k_atomic_min_u32, "void(uint32[:], int64)", "atom.min.u32"),
        (k_atomic_max_i64, "void(int64[:], int64)", "atom.max.s64"),
        (k_atomic_max_f32, "void(float32[:], int64)", "atom.cas.b32"),
        (k_atomic_min_f64, "void(float64[:], int64)", "atom.cas.b64"),
        (k_atomic_cas, "void(int32[:], int64)", "atom.cas.b32"),
        (k_atomic_cas, "void(uint64[:], int64)", "atom.cas.b64"),
        (k_atomic_cas_index, "void(int32[:], int64)", "atom.cas.b32"),
        (k_atomic_exch, "void(int32[:], int64)", "atom.exch.b32"),
        (k_atomic_exch, "void(float32[:], int64)", "atom.exch.b32"),
        (k_atomic_exch, "void(float64[:], int64)", "atom.exch.b64"),  # no double overload: by its bits
        (k_atomic_exch, "void(int64[:], int64)", "atom.exch.b64"),
        (k_atomic_exch, "void(uint64[:], int64)", "atom.exch.b64"),
        (k_atomic_inc, "void(uint32[:], int64)", "atom.inc.u32"),
        (k_atomic_inc, "void(uint32[:], int64)", "atom.dec.u32"),
        (k_atomic_bits, "void(int32[:], int64)", "atom.and.b32"),
        (k_atomic_bits, "void(int32[:], int64)", "atom.or.b32"),
        (k_atomic_bits, "void(int32[:], int64)", "atom.xor.b32"),
    ],
)
def test_atomics(func, sig, instruction):
    # on a kernel's arrays, generic atomics as numba's (numba-cuda's test_atomics reads `(red|atom).add.f64`)
    assert instruction in body_of(ptx_of(func, sig), func.__name__)


def k_atomic_shared(a, n):
    s = cuda.shared.array(4, float64)
    s[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(s, 0, 1.0)
    cuda.atomic.max(s, 1, a[0])
    cuda.syncthreads()
    a[0] = s[0]


def test_atomics_on_shared_arrays_keep_their_space():
    body = body_of(ptx_of(k_atomic_shared, "void(float64[:], int64)"), "k_atomic_shared")
    assert "atom.shared.add.f64" in body and "atom.shared.cas.b64" in body  # numba's too
    assert "isspacep" not in body and "atom.add.f64" not in body  # the space known: nothing tested at run time


def test_atomic_sub_negates():
    source = translated(k_atomic_sub_i32, "void(int32[:], int64)")
    assert "atomicSub(" in source
    source = translated(k_atomic_sub_i32, "void(float32[:], int64)")
    assert "atomicAdd(" in source and "-(" in source


def test_shared_array_and_syncthreads():
    ptx = ptx_of(k_shared)
    assert re.search(r"\.shared \.align \d+ \.b8 \w+\[512\]", ptx)  # 128 float32
    assert "st.shared.f32" in ptx and "ld.shared.f32" in ptx
    assert "bar.sync" in ptx


def test_shared_array_2d():
    ptx = ptx_of(k_shared_2d, "void(float64[:], int64)")
    assert re.search(r"\.shared \.align \d+ \.b8 \w+\[%d\]" % (TPB * TPB * 8), ptx)
    assert "st.shared.f64" in ptx and "ld.shared.f64" in ptx and "bar.sync" in ptx


def test_dynamic_shared_array():
    ptx = ptx_of(k_shared_dynamic)
    assert re.search(r"\.extern \.shared \.align \d+ \.b8 \w+\[\];", ptx)
    assert "st.shared.f32" in ptx and "ld.shared.f32" in ptx
    assert "%dynamic_smem_size" in ptx  # its size is the launch's
    assert "ncc_dynamic_smem_size() / 4U" in translated(k_shared_dynamic)


def test_types_named_through_the_cuda_module():
    ptx = ptx_of(k_cuda_type_attributes)
    assert re.search(r"\.shared \.align \d+ \.b8 \w+\[32\]", ptx)  # 8 float32
    source = translated(k_cuda_type_attributes)
    assert re.search(r"__shared__ float \w+\[8\];", source) and re.search(r"\blong long \w+\[4\];", source)
    assert "((unsigned char)(v_n))" in source


def test_local_array():
    ptx = ptx_of(k_local)
    assert re.search(r"\.local \.align \d+ \.b8\s+\w+\[128\]", ptx)  # 32 float32
    assert "st.local" in ptx and "ld.local" in ptx


def test_local_array_2d_with_numpy_dtype():
    source = translated(k_local_np_dtype, SIG)
    assert re.search(r"\bint \w+\[32\];", source)
    ptx_of(k_local_np_dtype)


def test_syncthreads_count_and_or():
    body = body_of(ptx_of(k_sync_count), "k_sync_count")
    assert "bar.red.popc.u32" in body
    assert "bar.red.and.pred" in body
    assert "bar.red.or.pred" in body


def test_fences_and_syncwarp():
    body = body_of(ptx_of(k_fences), "k_fences")
    assert re.search(r"membar\.gl|fence\.sc\.gpu", body)
    assert re.search(r"membar\.cta|fence\.sc\.cta", body)
    assert re.search(r"membar\.sys|fence\.sc\.sys", body)
    assert "bar.warp.sync" in body


def test_laneid_and_warpsize():
    body = body_of(ptx_of(k_laneid, "void(int32[:], int64)"), "k_laneid")
    assert "%laneid" in body
    source = translated(k_laneid, "void(int32[:], int64)")
    assert re.search(r"\b32LL\b", source) and "ncc_laneid()" in source


CONSTANT_TABLE = np.array([1.5, 2.5, 3.5, 4.5], dtype=np.float32)


def uses_constant_memory(out):
    table = cuda.const.array_like(CONSTANT_TABLE)
    i = cuda.grid(1)
    if i < table.size:
        out[i] = table[i] * 2


def test_const_array_like_lives_in_constant_memory():
    ptx, _ = cuda.compile_ptx(uses_constant_memory, "void(float32[:])")
    assert ".const .align 4 .b8 ncc_const_1[16] = {0, 0, 192, 63," in ptx  # 1.5f, first of the table
    assert "ld.const.f32" in ptx


PACKED_RECORD = np.dtype([("flag", np.int8), ("x", np.float32)])


ALIGNED_RECORD = np.dtype([("flag", np.int8), ("x", np.float32)], align=True)


def record_scale(a, n):
    a[n].x = a[n]["x"] * 2


@pytest.mark.parametrize("dtype, load", [(PACKED_RECORD, "ld.global.u8"), (ALIGNED_RECORD, "ld.global.f32")])
def test_record_fields_read_as_their_alignment_allows(dtype, load):
    record = types.from_dtype(dtype)
    assert isinstance(record, types.Record) and record.fields["x"] == (types.float32, dtype.fields["x"][1])
    body = body_of(ptx_of(record_scale, (record[:], types.int64)), "record_scale")
    assert load in body


def test_records_with_nested_fields_type_as_numba_s():
    nested = types.from_dtype(np.dtype([("x", np.float32, (3,)), ("r", [("y", np.int8)])]))
    x, offset = nested.fields["x"]
    assert isinstance(x, types.NestedArray) and x.shape == (3,) and x.dtype == types.float32 and offset == 0
    assert isinstance(nested.fields["r"][0], types.Record)
    # fixed-size text is numba's UnicodeCharSeq (strings.py assigns constants to it); objects have no device type
    assert isinstance(types.from_dtype(np.dtype([("s", "U3")])).fields["s"][0], types.CharSeq)
    with pytest.raises(TypeError):
        types.from_dtype(np.dtype([("o", "O")]))
