"""The Python-kernel compiler without a GPU: @cuda.jit-style kernels translated to CUDA C and compiled
to PTX by NVRTC (cuda.compile_ptx), numba's typing rules, signatures, and the errors that name the
kernel's file and line.

The kernels live at module level: the translator reads their source with inspect. Device functions
without arguments are compiled too: NVRTC folds them to a constant, which checks what the
translation computes (Python's // and %, wrap-around, loops) without running anything.
"""

import cmath
import inspect
import math
import os
import re
import struct

import numpy as np
import pytest

import numba_cuda_c as cuda
from numba_cuda_c import _cuda, float32, float64, types
from numba_cuda_c.pyjit import KernelTypeError, typing
from numba_cuda_c.pyjit.dispatcher import typeof
from numba_cuda_c.pyjit.prelude import PRELUDE

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)

SIG = "void(float32[:], int64)"
HERE = os.path.basename(__file__)
TPB = 16
TRIPLE = (3, 4, 5)


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    """Compiled PTX goes to a cache of this module's own, not the user's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path_factory.mktemp("ptx_cache")))
        mp.delenv("NUMBA_CUDA_DEFAULT_PTX_CC", raising=False)
        yield


def ptx_of(func, sig=SIG, **options):
    ptx, resty = cuda.compile_ptx(func, sig, **options)
    assert resty == types.void
    assert ".visible .entry %s(" % func.__name__ in ptx
    return ptx


def body_of(ptx, name):
    """The PTX of one entry or function, from its name to the end."""
    match = re.search(r"\.(entry|func)\s[^\n]*\b%s\(" % re.escape(name), ptx)
    assert match, ptx
    return ptx[match.start():]


def returned_constant(func, sig="()"):
    """The value a device function without inputs returns, once NVRTC has folded it."""
    ptx, resty = cuda.compile_ptx(func, sig, device=True)
    body = body_of(ptx, func.__name__)
    store = re.search(r"st\.param\.(\w+)\s+\[func_retval0(?:\+0)?\],\s*([^;]+);", body)
    assert store, body
    operand = store.group(2).strip()
    if operand.startswith("%"):  # a register: the constant was moved into it
        move = re.search(r"mov\.\w+\s+%s,\s*([^;]+);" % re.escape(operand), body)
        assert move, "not folded to a constant:\n" + body
        operand = move.group(1).strip()
    if operand.startswith("0d"):
        value = struct.unpack(">d", bytes.fromhex(operand[2:]))[0]
    elif operand.startswith("0f"):
        value = struct.unpack(">f", bytes.fromhex(operand[2:]))[0]
    else:
        value = int(operand, 0)
    return value, resty


def translated(func, sig=SIG):
    """The CUDA C written for func's kernel and its device functions, without the prelude."""
    source = cuda.jit(func).inspect_source(sig)
    assert source.startswith(PRELUDE)  # no header: these kernels use no float16
    return source[len(PRELUDE):]


def test_the_half_header_and_complex_numbers_are_included_only_where_used():
    def plain(a):
        a[0] = 1.5

    assert "cuda_fp16.h" not in cuda.jit(plain).inspect_source("void(float32[::1])")
    assert "struct ncc_complex" not in cuda.jit(plain).inspect_source("void(float32[::1])")  # nor complex numbers

    def complexes(a):
        a[0] = abs(a[1] * 1j)

    source = cuda.jit(complexes).inspect_source("void(float64[::1])")
    assert source.count("struct ncc_complex {") == 1
    cuda.compile_ptx(complexes, "void(float64[::1])")
    for sig in ("void(float16[::1])", "void(float32[::1])"):
        def halves(a):
            a[0] = cuda.float16(1.5) + a[0]

        source = cuda.jit(halves).inspect_source(sig)
        assert source.startswith("#include <cuda_fp16.h>") and source.count("cuda_fp16.h") == 1
        cuda.compile_ptx(halves, sig)


def line_of(func, needle):
    """The line number, in this file, of the first line of func's source containing needle."""
    lines, first = inspect.getsourcelines(func)
    for offset, line in enumerate(lines):
        if needle in line:
            return first + offset
    raise AssertionError("%r not in %s" % (needle, func.__name__))


# ---------------------------------------------------------------------------------------------
# Kernels: one construct each
# ---------------------------------------------------------------------------------------------


def k_vector_add(a, n):
    i = cuda.grid(1)
    if i < n:
        a[i] = a[i] + 1.0


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


def k_sqrt(a, n):
    a[0] = math.sqrt(a[1])


def k_exp_f32(a, n):
    a[0] = math.exp(a[1])


def k_transcendental(a, n):
    a[0] = math.sin(a[1]) + math.cos(a[2]) + math.tanh(a[3]) + math.log(a[4])


def k_floor(a, n):
    a[0] = math.floor(a[1]) + math.ceil(a[2])


def k_isnan(a, n):
    if math.isnan(a[1]):
        a[0] = 1.0
    if math.isinf(a[2]):
        a[0] = 2.0


def k_fma(a, n):
    a[0] = cuda.fma(a[1], a[2], a[3])


def k_bits32(a, n):
    a[0] = cuda.popc(a[1]) + cuda.brev(a[2]) + cuda.clz(a[3])


def k_bits64(a, n):
    a[0] = cuda.popc(n) + cuda.clz(n)
    a[1] = cuda.brev(n)


def k_int_ops(a, n):
    a[0] = n // a[1]
    a[1] = n % a[2]


def k_true_divide(a, n):
    a[0] = n / a[1]


def k_pow(a, n):
    a[0] = a[1] ** a[2]
    a[3] = a[4] ** 2


def k_ipow(a, n):
    a[0] = n ** a[1]


def k_casts(a, n):
    a[0] = int(a[1])
    a[1] = float(n)
    a[2] = cuda.float32(n) + np.float32(n)
    a[3] = cuda.int32(a[4])


def k_abs_round(a, n):
    a[0] = abs(a[1])
    a[2] = round(a[3])


def k_min_max(a, n):
    a[0] = min(a[1], a[2])
    a[3] = max(a[4], a[5], a[6])


def k_loops(a, n):
    i = 0
    total = 0.0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        elif i > 100:
            break
        else:
            total += a[i]
    for j in range(n - 1, -1, -2):
        total -= a[j]
    a[0] = total


def k_early_return(a, n):
    i = cuda.grid(1)
    if i >= n:
        return
    a[i] = 1.0


def k_slices(a, n):
    row = a[1]
    tail = row[1:5]
    every_other = a[0, ::2]
    tail[0] = every_other[1] + a[-1, -1]


def k_attributes(a, n):
    a[0, 0] = a.shape[0] + a.shape[1] * 10 + a.size * 100 + a.ndim * 1000 + len(a)


@cuda.jit(device=True)
def d_square(x):
    return x * x


@cuda.jit(device=True)
def d_sum_of_squares(x, y):
    return d_square(x) + d_square(y)


def k_calls_device(a, n):
    i = cuda.grid(1)
    if i < n:
        a[i] = d_sum_of_squares(a[i], float32(2))


def k_unify(a, n):
    x = 1
    if n > 2:
        x = 2.5
    a[0] = x


def k_swap(a, n):
    x, y = a[0], a[1]
    x, y = y, x
    a[0] = x
    a[1] = y


def k_ternary_bool(a, n):
    flag = n > 3 and not (n == 7 or n < 0)
    a[0] = 1.0 if flag else -1.0


def k_aug_element(a, n):
    a[0] += 1.5
    a[1] *= a[2]
    a[2] //= 2.0


def k_c_layout(a, b):
    a[b, b] = 1.0


def k_3d(a, b):
    a[0, 0, 0] = b


# ---------------------------------------------------------------------------------------------
# PTX of each construct
# ---------------------------------------------------------------------------------------------


def test_kernel_entry_and_parameters():
    ptx = ptx_of(k_vector_add)
    body = body_of(ptx, "k_vector_add")
    # an array travels as {data, shape[1], strides[1]}: 24 bytes; the int64 as a u64
    assert re.search(r"\.param \.align 8 \.b8 k_vector_add_param_0\[24\]", body)
    assert ".param .u64 k_vector_add_param_1" in body
    assert "%tid.x" in body and "%ctaid.x" in body and "%ntid.x" in body
    assert "ld.global.f32" in body and "st.global.f32" in body
    assert re.search(r"add(\.rn)?\.f(32|64)", body)  # a[i] + 1.0
    assert ".target sm_%d%d" % _cuda.nvrtc_supported_archs()[0] in ptx


def test_parameter_kinds():
    def check(func, sig, expected):
        ptx = ptx_of(func, sig)
        for text in expected:
            assert text in ptx, (sig, text, ptx)

    check(k_c_layout, "void(float32[:, :], int32)", ["k_c_layout_param_0[40]", ".param .u32 k_c_layout_param_1"])
    check(k_c_layout, "void(float32[:, ::1], int64)", ["k_c_layout_param_0[40]", ".param .u64 k_c_layout_param_1"])
    check(k_3d, "void(float32[:, :, :], uint8)", ["k_3d_param_0[56]", ".param .u8 k_3d_param_1"])
    check(k_3d, "void(float64[:, :, :], float32)", ["k_3d_param_0[56]", ".param .f32 k_3d_param_1"])


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


@pytest.mark.parametrize("func, sig, instruction", [
    (k_atomic_add_f32, "void(float32[:], int64)", "atom.global.add.f32"),
    (k_atomic_add_f64, "void(float64[:], int64)", "atom.global.add.f64"),
    (k_atomic_add_i32, "void(int32[:], int64)", "atom.global.add.u32"),
    (k_atomic_add_2d, "void(int64[:, :], int64)", "atom.global.add.u64"),
    (k_atomic_sub_i32, "void(int32[:], int64)", "atom.global.add.u32"),
    (k_atomic_max_i32, "void(int32[:], int64)", "atom.global.max.s32"),
    (k_atomic_min_u32, "void(uint32[:], int64)", "atom.global.min.u32"),
    (k_atomic_max_i64, "void(int64[:], int64)", "atom.global.max.s64"),
    (k_atomic_max_f32, "void(float32[:], int64)", "atom.global.cas.b32"),
    (k_atomic_min_f64, "void(float64[:], int64)", "atom.global.cas.b64"),
    (k_atomic_cas, "void(int32[:], int64)", "atom.global.cas.b32"),
    (k_atomic_cas, "void(uint64[:], int64)", "atom.global.cas.b64"),
    (k_atomic_cas_index, "void(int32[:], int64)", "atom.global.cas.b32"),
    (k_atomic_exch, "void(int32[:], int64)", "atom.global.exch.b32"),
    (k_atomic_exch, "void(float32[:], int64)", "atom.global.exch.b32"),
    (k_atomic_exch, "void(float64[:], int64)", "atom.global.exch.b64"),  # no double overload: by its bits
    (k_atomic_exch, "void(int64[:], int64)", "atom.global.exch.b64"),
    (k_atomic_exch, "void(uint64[:], int64)", "atom.global.exch.b64"),
    (k_atomic_inc, "void(uint32[:], int64)", "atom.global.inc.u32"),
    (k_atomic_inc, "void(uint32[:], int64)", "atom.global.dec.u32"),
    (k_atomic_bits, "void(int32[:], int64)", "atom.global.and.b32"),
    (k_atomic_bits, "void(int32[:], int64)", "atom.global.or.b32"),
    (k_atomic_bits, "void(int32[:], int64)", "atom.global.xor.b32"),
])
def test_atomics(func, sig, instruction):
    assert instruction in body_of(ptx_of(func, sig), func.__name__)


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


def test_math_sqrt_float32_and_float64():
    assert "sqrt.rn.f32" in ptx_of(k_sqrt)
    assert "sqrt.rn.f64" in ptx_of(k_sqrt, "void(float64[:], int64)")
    # fastmath: the approximate square root
    assert "sqrt.approx" in ptx_of(k_sqrt, fastmath=True)


def test_math_exp_float32_stays_single_precision():
    body = body_of(ptx_of(k_exp_f32), "k_exp_f32")
    assert "ex2.approx" in body
    assert ".f64" not in body  # expf, not exp


def test_math_transcendentals():
    body = body_of(ptx_of(k_transcendental), "k_transcendental")
    assert "sin.approx" not in body and "cos.approx" not in body  # sinf, cosf: precise without fastmath
    assert "ld.global.f32" in body and "st.global.f32" in body
    fast = body_of(ptx_of(k_transcendental, fastmath=True), "k_transcendental")
    assert "sin.approx" in fast and "cos.approx" in fast and "lg2.approx" in fast


def test_math_floor_ceil():
    body = body_of(ptx_of(k_floor), "k_floor")
    assert "cvt.rmi" in body and "cvt.rpi" in body


def test_math_isnan_isinf():
    source = translated(k_isnan, SIG)
    assert "isnan(" in source and "isinf(" in source
    body = body_of(ptx_of(k_isnan), "k_isnan")
    assert "0f7F800000" in body  # compared with infinity


def test_fma():
    assert "fma.rn.f32" in ptx_of(k_fma)
    assert "fma.rn.f64" in ptx_of(k_fma, "void(float64[:], int64)")


def test_bit_intrinsics_32_bit():
    body = body_of(ptx_of(k_bits32, "void(int32[:], int64)"), "k_bits32")
    assert "popc.b32" in body and "brev.b32" in body and "clz.b32" in body


def test_bit_intrinsics_64_bit():
    body = body_of(ptx_of(k_bits64, "void(uint64[:], int64)"), "k_bits64")
    assert "popc.b64" in body and "brev.b64" in body and "clz.b64" in body


def test_integer_floor_division_and_modulo():
    body = body_of(ptx_of(k_int_ops, "void(int64[:], int64)"), "k_int_ops")
    assert "div.s64" in body and "rem.s64" in body
    source = translated(k_int_ops, "void(int64[:], int64)")
    assert "ncc_floordiv<long long>" in source and "ncc_mod<long long>" in source
    body = body_of(ptx_of(k_int_ops, "void(float32[:], int64)"), "k_int_ops")
    assert "cvt.rmi" in body  # floor of the quotient


def test_true_division_of_ints_is_float64():
    body = body_of(ptx_of(k_true_divide, "void(int64[:], int64)"), "k_true_divide")
    assert "div.rn.f64" in body


def test_power():
    body = body_of(ptx_of(k_pow), "k_pow")
    assert ".f64" not in body  # float32 ** float32 and float32 ** 2 stay float32
    assert "mul.f32" in body  # x ** 2 as x * x
    source = translated(k_pow, SIG)
    assert "powf(" in source and "ncc_powi<2>" in source
    source = translated(k_ipow, "void(int64[:], int64)")
    assert "ncc_ipow<long long>" in source
    assert "mul.lo.s64" in body_of(ptx_of(k_ipow, "void(int64[:], int64)"), "k_ipow")


def test_casts():
    body = body_of(ptx_of(k_casts), "k_casts")
    assert "cvt.rzi.s64.f32" in body  # int(float32)
    assert "cvt.rn.f64.s64" in body or "cvt.rn.f32.s64" in body  # float(int64)
    assert "cvt.rn.f32.s64" in body  # cuda.float32(int64), np.float32(int64)
    assert "cvt.rzi.s32.f32" in body  # cuda.int32(float32)


def test_abs_and_round():
    body = body_of(ptx_of(k_abs_round), "k_abs_round")
    assert "abs.f32" in body
    assert "cvt.rni" in body  # round half to even
    assert re.search(r"abs\.s64|neg\.s64", body_of(ptx_of(k_abs_round, "void(int64[:], int64)"), "k_abs_round"))


def test_min_max():
    source = translated(k_min_max, SIG)
    body = body_of(ptx_of(k_min_max), "k_min_max")
    assert "setp" in body and "selp" in body or "min.f32" in body
    assert source.count("?") >= 3


def test_control_flow():
    source = translated(k_loops, SIG)
    assert "while (" in source and "for (" in source
    assert "continue;" in source and "break;" in source and "} else {" in source
    body = body_of(ptx_of(k_loops), "k_loops")
    assert body.count("bra") >= 3


def test_early_return():
    source = translated(k_early_return, SIG)
    assert "return;" in source
    assert "ret;" in ptx_of(k_early_return)


def test_slices_in_kernels():
    source = translated(k_slices, "void(float64[:, :], int64)")
    assert "view" in source
    assert "st.global.f64" in ptx_of(k_slices, "void(float64[:, :], int64)")


def test_array_attributes():
    source = translated(k_attributes, "void(float64[:, :], int64)")
    assert ".shape[0]" in source and ".shape[1]" in source
    ptx_of(k_attributes, "void(float64[:, :], int64)")


def test_device_functions_calling_device_functions():
    source = translated(k_calls_device, SIG)
    assert re.search(r"__device__ float ncc_dev_d_square_\d+\(float v_x\)", source)
    assert re.search(r"__device__ float ncc_dev_d_sum_of_squares_\d+\(float v_x, float v_y\)", source)
    body = body_of(ptx_of(k_calls_device), "k_calls_device")
    assert "ld.global.f32" in body and ".f64" not in body


def test_variable_assigned_int_then_float_is_float64():
    source = translated(k_unify, SIG)
    assert re.search(r"\bdouble v_x = {};", source)


def test_tuple_swap_goes_through_temporaries():
    source = translated(k_swap, SIG)
    assert re.search(r"\bfloat v_x = {};", source) and re.search(r"\bfloat v_y = {};", source)
    assert source.count("float t_") >= 4


def test_conditional_expression_and_boolean_operators():
    source = translated(k_ternary_bool, SIG)
    assert "bool v_flag = {};" in source and "&&" in source and "||" in source
    ptx_of(k_ternary_bool)


def test_augmented_assignment_to_elements():
    ptx_of(k_aug_element)
    source = translated(k_aug_element, SIG)
    assert "ncc_ffloordiv(" in source  # a[2] //= 2.0: float32 // float64 floor-divides as floats


def test_debug_and_lineinfo():
    plain = ptx_of(k_vector_add)
    assert ".loc" not in plain and ".debug_info" not in plain
    ptx = ptx_of(k_vector_add, lineinfo=True)
    # the line table names the Python source (#line directives), as numba's does: profilers and
    # debuggers show the kernel's own lines
    assert ".loc" in ptx and re.search(r'\.file\s+\d+\s+"[^"]*test_compile_ptx\.py"', ptx)
    line = k_vector_add.__code__.co_firstlineno
    assert re.search(r"\.loc\s+\d+\s+(%d|%d|%d)\s" % (line + 1, line + 2, line + 3), ptx)
    assert ".debug_info" not in ptx
    ptx = ptx_of(k_vector_add, debug=True)
    assert ".loc" in ptx and ".debug_info" in ptx


def test_explicit_cc_and_default_ptx_cc_env(monkeypatch):
    archs = _cuda.nvrtc_supported_archs()
    assert ".target sm_%d%d" % archs[0] in ptx_of(k_vector_add)
    newest = archs[-1]
    assert ".target sm_%d%d" % newest in ptx_of(k_vector_add, cc=newest)
    for arch in {archs[0], archs[len(archs) // 2], newest}:
        monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", "%d.%d" % arch)
        ptx = ptx_of(k_vector_add)
        assert ".target sm_%d%d" % arch in ptx
        others = [a for a in archs if a != arch]
        assert all(".target sm_%d%d\n" % a not in ptx for a in others)
    monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", "%d.%d" % archs[0])
    assert ".target sm_%d%d" % newest in ptx_of(k_vector_add, cc=newest)  # cc= wins over the variable


# ---------------------------------------------------------------------------------------------
# Device functions: the inferred return type
# ---------------------------------------------------------------------------------------------


def d_add(a, b):
    return a + b


def d_mul(a, b):
    return a * b


def d_true_div(a, b):
    return a / b


def d_floordiv(a, b):
    return a // b


def d_mul_int_literal(a):
    return a * 2


def d_mul_float_literal(a):
    return a * 2.0


def d_pow(a, b):
    return a ** b


def d_sqrt(a):
    return math.sqrt(a)


def d_floor(a):
    return math.floor(a)


def d_compare(a, b):
    return a < b


def d_abs(a):
    return abs(a)


def d_round(a):
    return round(a)


def d_min(a, b):
    return min(a, b)


def d_neg(a):
    return -a


def d_invert(a):
    return ~a


def d_cast32(a):
    return cuda.float32(a)


def d_np_cast(a):
    return np.float32(a)


def d_int(a):
    return int(a)


def d_float(a):
    return float(a)


def d_two_returns(a):
    if a > 0:
        return 1
    return 2.5


def d_no_return(a):
    a[0] = 1.0


def d_syncthreads_count(a):
    return cuda.syncthreads_count(a > 0)


def d_laneid():
    return cuda.laneid


@pytest.mark.parametrize("func, sig, expected", [
    (d_add, "float32(float32, float32)", types.float32),
    (d_add, "(float32, float32)", types.float32),
    (d_add, (float32, float32), types.float32),
    (d_add, "(int32, int32)", types.int64),
    (d_add, "(uint32, uint32)", types.uint64),
    (d_add, "(float32, int64)", types.float64),
    (d_add, "(float32, int16)", types.float32),
    (d_add, "(float32, float64)", types.float64),
    (d_add, "(boolean, boolean)", types.int64),
    (d_add, "(int8, uint8)", types.int64),
    (d_mul, "(float32, int32)", types.float64),
    (d_true_div, "(int32, int32)", types.float64),
    (d_true_div, "(int64, int64)", types.float64),
    (d_true_div, "(float32, float32)", types.float32),
    (d_true_div, "(float32, int32)", types.float64),
    (d_floordiv, "(int32, int32)", types.int64),
    (d_floordiv, "(float32, float32)", types.float32),
    (d_mul_int_literal, "(float32,)", types.float64),
    (d_mul_int_literal, "(int32,)", types.int64),
    (d_mul_float_literal, "(float32,)", types.float64),
    (d_pow, "(int32, int32)", types.int64),
    (d_pow, "(float32, float32)", types.float32),
    (d_pow, "(float32, int64)", types.float32),  # numba: float32 ** int stays float32
    (d_pow, "(float64, int32)", types.float64),
    (d_pow, "(int64, float32)", types.float64),
    (d_sqrt, "(float32,)", types.float32),
    (d_sqrt, "(float64,)", types.float64),
    (d_sqrt, "(int32,)", types.float64),
    (d_floor, "(float32,)", types.int64),
    (d_floor, "(float64,)", types.int64),
    (d_compare, "(float32, int32)", types.boolean),
    (d_abs, "(int32,)", types.int32),
    (d_abs, "(float32,)", types.float32),
    (d_round, "(float32,)", types.int64),
    (d_round, "(float64,)", types.int64),
    (d_min, "(int32, int32)", types.int32),
    (d_min, "(int32, int64)", types.int64),
    (d_min, "(int32, float32)", types.float64),
    (d_min, "(int8, int16)", types.int16),  # min and max unify, as numba
    (d_add, "(int64, uint64)", types.int64),
    (d_add, "(float32, uint16)", types.float64),
    (d_add, "(float32, boolean)", types.float32),
    (d_invert, "(boolean,)", types.boolean),
    (d_invert, "(uint8,)", types.uint64),
    (d_neg, "(int32,)", types.int64),
    (d_neg, "(uint32,)", types.uint64),
    (d_neg, "(float32,)", types.float32),
    (d_cast32, "(int64,)", types.float32),
    (d_np_cast, "(float64,)", types.float32),
    (d_int, "(float32,)", types.int64),
    (d_float, "(int32,)", types.float64),
    (d_two_returns, "(int64,)", types.float64),
    (d_no_return, "(float32[:],)", types.void),
    (d_syncthreads_count, "(int32,)", types.int32),
    (d_laneid, "()", types.int32),
])
def test_device_function_return_type(func, sig, expected):
    ptx, resty = cuda.compile_ptx(func, sig, device=True)
    assert resty == expected
    assert re.search(r"\.visible \.func\s.*\b%s\(" % func.__name__, ptx)


def test_device_function_ptx_signature():
    ptx, resty = cuda.compile_ptx(d_add, "float32(float32, float32)", device=True)
    assert resty == types.float32
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) d_add\(", ptx)
    assert "add.f32" in ptx
    ptx, resty = cuda.compile_ptx(d_add, "(float64, float64)", device=True)
    assert re.search(r"\(\.param \.b64 func_retval0\) d_add\(", ptx) and "add.f64" in ptx
    ptx, resty = cuda.compile_ptx(d_no_return, "(float32[:],)", device=True)
    assert re.search(r"\.visible \.func\s+d_no_return\(", ptx)


def test_compile_returns_ptx_and_type():
    ptx, resty = cuda.compile(d_add, "(int32, int32)", device=True)
    assert resty == types.int64 and "d_add" in ptx
    with pytest.raises(NotImplementedError):
        cuda.compile(d_add, "(int32, int32)", device=True, output="ltoir")


def test_device_dispatcher_compiles_eagerly_without_a_gpu():
    dispatcher = cuda.jit("float32(float32, float32)", device=True)(d_add)
    assert dispatcher.device
    with pytest.raises(TypeError):
        dispatcher(1.0, 2.0)  # device functions are called from kernels only
    with pytest.raises(TypeError):
        dispatcher[1, 1]


# ---------------------------------------------------------------------------------------------
# What the translation computes: functions NVRTC folds to a constant
# ---------------------------------------------------------------------------------------------


def c_floordiv_mod():
    return (-7) // 2 * 1000 + (-7) % 3 * 100 + 7 // -2 * 10 + 7 % -3


def c_floordiv_mod_more():
    a = -17
    b = 5
    return (a // b) * 1000000 + (a % b) * 10000 + (-a // -b) * 100 + (a % -b)


def c_wraparound():
    x = 9223372036854775807
    return x + 1


def c_wraparound_mul():
    x = 3037000500
    return x * x


def c_int_power():
    return 3 ** 4 + 2 ** 10 + (-2) ** 3


def c_loops():
    s = 0
    i = 0
    while True:
        i += 1
        if i > 20:
            break
        if i % 3 == 0:
            continue
        elif i % 5 == 0:
            s += 100
        else:
            s += i
    for j in range(10, 0, -3):
        s += j * 1000
    return s


def c_early_return():
    for i in range(10):
        if i * i > 20:
            return i
    return -1


def c_swap():
    a = 1
    b = 2
    a, b = b, a
    return a * 10 + b


def c_unify():
    x = 1
    x = x / 4
    return x


def c_true_divide():
    return 7 / 2


def c_bits():
    return (~5) * 1000 + ((-16) >> 2) * 10 + (1 << 3) + (6 & 3) * 100000 + (6 | 3) * 1000000 + (6 ^ 3) * 10000000


def c_int_truncates():
    return int(-2.7) * 10 + int(2.7)


def c_min_max_abs():
    return min(3, -4, 5) * 100 + max(3, -4, 5) * 10 + abs(-7)


def c_bool_arithmetic():
    return True + True


def c_chained_compare():
    x = 5
    return (1 < x < 10) + (1 < x > 10) * 10


def c_invert_bool():
    t = True
    f = ~t
    return f * 10 + (~f) * 1


def c_mixed_signedness():
    big = cuda.uint64(18446744073709551615)
    return big + 1


def c_compare_mixed_signedness():
    big = cuda.uint64(9223372036854775808)
    return (-1 < big) * 10 + (-1 == cuda.uint64(18446744073709551615))


def c_int64_min():
    return -9223372036854775808


def c_tuple_index():
    return TRIPLE[0] * 100 + TRIPLE[-1]


@pytest.mark.parametrize("func, expected", [
    (c_floordiv_mod, (-7) // 2 * 1000 + (-7) % 3 * 100 + 7 // -2 * 10 + 7 % -3),
    (c_floordiv_mod_more, (-17 // 5) * 1000000 + (-17 % 5) * 10000 + (17 // -5) * 100 + (-17 % -5)),
    (c_wraparound, int(np.array([2**63 - 1], np.int64).view(np.uint64)[0] + np.uint64(1)) - 2**64),
    (c_wraparound_mul, int(np.multiply(np.int64(3037000500), np.int64(3037000500), dtype=np.int64))),
    (c_int_power, 3 ** 4 + 2 ** 10 + (-2) ** 3),
    (c_loops, sum(100 if i % 5 == 0 else i for i in range(1, 21) if i % 3)
     + sum(j * 1000 for j in range(10, 0, -3))),
    (c_early_return, 5),
    (c_swap, 21),
    (c_unify, 0.25),
    (c_true_divide, 3.5),
    (c_bits, (~5) * 1000 + ((-16) >> 2) * 10 + (1 << 3) + (6 & 3) * 100000 + (6 | 3) * 1000000
     + (6 ^ 3) * 10000000),
    (c_int_truncates, int(-2.7) * 10 + int(2.7)),
    (c_min_max_abs, -400 + 50 + 7),
    (c_bool_arithmetic, 2),
    (c_chained_compare, 1),
    (c_tuple_index, 305),
    (c_invert_bool, 1),  # ~True is False, as in numba (and NumPy bools)
    (c_mixed_signedness, 0),  # uint64 + int64 is int64 and wraps
    (c_compare_mixed_signedness, 10),
    (c_int64_min, -2**63),  # ... but int64 and uint64 compare by value
])
def test_folded_value(func, expected):
    value, _resty = returned_constant(func)
    assert value == expected
    assert type(value) is type(expected)


def test_folded_types():
    assert returned_constant(c_unify)[1] == types.float64
    assert returned_constant(c_true_divide)[1] == types.float64
    assert returned_constant(c_wraparound)[1] == types.int64
    assert returned_constant(c_bool_arithmetic)[1] == types.int64
    assert returned_constant(c_int64_min)[1] == types.int64


# ---------------------------------------------------------------------------------------------
# numba's typing rules (numba_cuda_c.pyjit.typing)
# ---------------------------------------------------------------------------------------------

T = types
_SHORT = {"b1": T.boolean, "i1": T.int8, "i2": T.int16, "i4": T.int32, "i8": T.int64, "u1": T.uint8,
          "u2": T.uint16, "u4": T.uint32, "u8": T.uint64, "f4": T.float32, "f8": T.float64}

# What numba 0.68 gives for a + b (the same for - * // %) and for a variable assigned a and b,
# row a, column b: read off numba itself (njit signatures), every pair of scalar types.
NUMBA_ADD = """
      b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8
  b1  i8  i8  i8  i8  i8  i8  i8  i8  i8  f4  f8
  i1  i8  i8  i8  i8  i8  i8  i8  i8  i8  f4  f8
  i2  i8  i8  i8  i8  i8  i8  i8  i8  i8  f4  f8
  i4  i8  i8  i8  i8  i8  i8  i8  i8  i8  f8  f8
  i8  i8  i8  i8  i8  i8  i8  i8  i8  i8  f8  f8
  u1  i8  i8  i8  i8  i8  u8  u8  u8  u8  f4  f8
  u2  i8  i8  i8  i8  i8  u8  u8  u8  u8  f8  f8
  u4  i8  i8  i8  i8  i8  u8  u8  u8  u8  f8  f8
  u8  i8  i8  i8  i8  i8  u8  u8  u8  u8  f8  f8
  f4  f4  f4  f4  f8  f8  f4  f8  f8  f8  f4  f8
  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8
"""
NUMBA_UNIFY = """
      b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8
  b1  b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8
  i1  i1  i1  i2  i4  i8  i2  i4  i8  f8  f4  f8
  i2  i2  i2  i2  i4  i8  i2  i4  i8  f8  f4  f8
  i4  i4  i4  i4  i4  i8  i4  i4  i8  f8  f8  f8
  i8  i8  i8  i8  i8  i8  i8  i8  i8  f8  f8  f8
  u1  u1  i2  i2  i4  i8  u1  u2  u4  u8  f4  f8
  u2  u2  i4  i4  i4  i8  u2  u2  u4  u8  f4  f8
  u4  u4  i8  i8  i8  i8  u4  u4  u4  u8  f8  f8
  u8  u8  f8  f8  f8  f8  u8  u8  u8  u8  f8  f8
  f4  f4  f4  f4  f8  f8  f4  f4  f8  f8  f4  f8
  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8
"""


def _table(text):
    rows = [line.split() for line in text.strip().splitlines()]
    columns = rows[0]
    return [(_SHORT[row[0]], _SHORT[column], _SHORT[cell])
            for row in rows[1:] for column, cell in zip(columns, row[1:])]


@pytest.mark.parametrize("a, b, expected", [
    (T.int32, T.int32, T.int64),
    (T.uint32, T.uint32, T.uint64),
    (T.int64, T.uint64, T.int64),  # numba's choose_result_int: signed when either side is
    (T.float32, T.float32, T.float32),
    (T.float32, T.int64, T.float64),
    (T.float32, T.int16, T.float32),
    (T.float32, T.uint16, T.float64),
    (T.boolean, T.boolean, T.int64),
    (T.boolean, T.float32, T.float32),
])
def test_promote(a, b, expected):
    assert typing.promote(a, b) == expected
    assert typing.promote(b, a) == expected


def test_promote_every_pair_as_numba():
    wrong = [(a, b, typing.promote(a, b), want) for a, b, want in _table(NUMBA_ADD) if typing.promote(a, b) != want]
    assert wrong == []
    assert len(_table(NUMBA_ADD)) == 121


def test_unify_every_pair_as_numba():
    wrong = [(a, b, typing.unify(a, b), want) for a, b, want in _table(NUMBA_UNIFY) if typing.unify(a, b) != want]
    assert wrong == []


def test_promote_rejects_non_numbers():
    with pytest.raises(KernelTypeError):
        typing.promote(T.float32[:], T.int32)
    with pytest.raises(KernelTypeError):
        typing.promote(T.float32, T.Tuple([T.int64]))


@pytest.mark.parametrize("a, b, expected", [
    (T.int32, T.int32, T.float64),
    (T.int64, T.int64, T.float64),
    (T.uint32, T.int8, T.float64),
    (T.boolean, T.boolean, T.float64),
    (T.float32, T.float32, T.float32),
    (T.float32, T.int32, T.float64),
    (T.float32, T.int8, T.float32),
    (T.float32, T.boolean, T.float32),
    (T.uint16, T.float32, T.float64),
    (T.float64, T.float32, T.float64),
])
def test_true_divide(a, b, expected):
    assert typing.true_divide(a, b) == expected


@pytest.mark.parametrize("a, b, expected", [
    (None, T.int32, T.int32),
    (T.float32, None, T.float32),
    (T.int32, T.int32, T.int32),
    (T.int64, T.float64, T.float64),
    (T.int32, T.float32, T.float64),
    (T.int16, T.float32, T.float32),
    (T.int8, T.int16, T.int16),
    (T.int8, T.uint8, T.int16),
    (T.int32, T.int64, T.int64),
    (T.int32, T.uint32, T.int64),
    (T.int64, T.uint64, T.float64),  # a variable holding both: float64 (unlike int64 + uint64)
    (T.boolean, T.int32, T.int32),
    (T.float32, T.float64, T.float64),
])
def test_unify(a, b, expected):
    assert typing.unify(a, b) == expected
    assert typing.unify(b, a) == expected


def test_unify_array_with_number_fails():
    with pytest.raises(KernelTypeError):
        typing.unify(T.float32[:], T.float64)


@pytest.mark.parametrize("a, b, expected", [
    (T.float32, T.int64, T.float32),
    (T.float32, T.int32, T.float32),
    (T.float32, T.uint64, T.float32),
    (T.float64, T.int32, T.float64),
    (T.float32, T.float32, T.float32),
    (T.float32, T.float64, T.float64),
    (T.int32, T.int32, T.int64),
    (T.uint32, T.uint32, T.uint64),
    (T.int64, T.float32, T.float64),
])
def test_power_typing(a, b, expected):
    assert typing.power(a, b) == expected


@pytest.mark.parametrize("op, t, expected", [
    ("-", T.int32, T.int64),
    ("-", T.uint32, T.uint64),
    ("-", T.int64, T.int64),
    ("-", T.float32, T.float32),
    ("-", T.boolean, T.int64),
    ("~", T.int8, T.int64),
    ("~", T.uint32, T.uint64),
    ("~", T.uint64, T.uint64),
    ("~", T.boolean, T.boolean),
    ("not", T.float64, T.boolean),
])
def test_unary(op, t, expected):
    assert typing.unary(op, t) == expected


def test_invert_takes_integers():
    with pytest.raises(KernelTypeError):
        typing.unary("~", T.float32)


def test_bitwise_and_math_results():
    assert typing.bitwise(T.boolean, T.boolean) == T.boolean
    assert typing.bitwise(T.int32, T.int32) == T.int64
    assert typing.bitwise(T.uint32, T.uint8) == T.uint64
    with pytest.raises(KernelTypeError):
        typing.bitwise(T.float32, T.int32)
    assert typing.math_result(T.float32) == T.float32
    assert typing.math_result(T.float64) == T.float64
    assert typing.math_result(T.int32) == T.float64


# ---------------------------------------------------------------------------------------------
# Signatures and argument types
# ---------------------------------------------------------------------------------------------


def test_parse_void_signature():
    sig = types.parse_signature("void(float32[:], int64)")
    assert sig.return_type == types.void
    assert sig.args == (types.Array(types.float32, 1, "A"), types.int64)
    assert sig == cuda.void(cuda.float32[:], cuda.int64)
    assert types.parse_signature(sig) is sig


def test_parse_return_type_signature():
    sig = types.parse_signature("float32(float32, float32)")
    assert sig.return_type == types.float32 and sig.args == (types.float32, types.float32)
    assert types.float32(types.float32, types.float32) == sig


def test_parse_tuple_of_types():
    sig = types.parse_signature((cuda.float32[:, ::1], cuda.int32))
    assert sig.return_type == types.void
    assert sig.args == (types.Array(types.float32, 2, "C"), types.int32)
    assert sig.args[0].layout == "C" and sig.args[0].ndim == 2
    ptx, resty = cuda.compile_ptx(k_c_layout, (cuda.float32[:, ::1], cuda.int32))
    assert resty == types.void and "k_c_layout_param_0[40]" in ptx and ".param .u32 k_c_layout_param_1" in ptx


def test_parse_layouts_and_aliases():
    assert types.parse_signature("void(float64[::1, :])").args[0].layout == "F"
    assert types.parse_signature("void(float64[::1])").args[0].layout == "C"
    assert types.parse_signature("void(int32[:, :, :])").args[0] == types.Array(types.int32, 3, "A")
    assert types.parse_signature("void(f4, i8, u1, b1)").args == (types.float32, types.int64, types.uint8,
                                                                   types.boolean)
    assert types.parse_signature((np.float32, "int16")).args == (types.float32, types.int16)
    assert str(types.float32[:, ::1]) == "float32[:, ::1]"


def test_parse_bad_signatures():
    with pytest.raises(TypeError):
        types.parse_signature("void(float99[:])")
    with pytest.raises(TypeError):
        types.parse_signature(42)
    with pytest.raises(TypeError):
        types.float32[1]


def test_scalar_types_convert_on_the_host():
    assert cuda.float32(1.5) == np.float32(1.5) and type(cuda.float32(1.5)) is np.float32
    assert type(cuda.int32(3)) is np.int32


def test_typeof():
    assert typeof(1) == types.int64
    assert typeof(1.0) == types.float64
    assert typeof(True) == types.boolean
    assert typeof(np.float32(1)) == types.float32
    assert typeof(np.uint16(1)) == types.uint16
    assert typeof(np.zeros((2, 3), np.float32)) == types.Array(types.float32, 2, "A")
    assert typeof(np.zeros(4, np.int8)[::2]) == types.Array(types.int8, 1, "A")
    with pytest.raises(TypeError):
        typeof("text")


def test_jit_options():
    with pytest.raises(TypeError):
        cuda.jit(k_vector_add, not_an_option=True)
    kernel = cuda.jit(k_vector_add)
    with pytest.raises(ValueError):
        kernel(np.zeros(4, np.float32), 4)  # no launch configuration
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count"):  # numba's words
        kernel.forall(-1)
    assert "k_vector_add" in repr(kernel)


def test_inspect_source_names_the_kernel_by_its_types():
    kernel = cuda.jit(k_vector_add)
    first = kernel.inspect_source("void(float32[:], int64)")
    second = kernel.inspect_source("void(float64[:], int64)")
    assert re.search(r'extern "C" __global__ void ncc_k_vector_add_\w+\(Array<float, 1> v_a, long long v_n\)',
                     first)
    assert "Array<double, 1> v_a" in second


# ---------------------------------------------------------------------------------------------
# Constructs outside the subset: KernelTypeError naming the file, the line and the source
# ---------------------------------------------------------------------------------------------


def helper_not_jitted(x):
    return x + 1


def e_try(a, n):
    try:
        a[0] = 1.0
    except Exception:
        a[0] = 2.0


def e_list(a, n):
    values = [1.0, 2.0]
    a[0] = values[0]


def e_print(a, n):
    a[0] = 1.0
    print(n, a)  # arrays do not print in kernels


def e_unknown_function(a, n):
    a[0] = helper_not_jitted(n)


def e_iterate_number(a, n):
    for x in n:
        a[0] = x


def e_kernel_returns(a, n):
    if n > 0:
        return n


def e_undefined_name(a, n):
    a[0] = not_defined_anywhere  # noqa: F821


def e_array_or_number(a, n):
    x = a
    if n > 0:  # a number on one path, an array on the other: numba's SSA cannot unify them either
        x = 1.0
    a[0] = x[0]


def e_bad_dtype(a, n):
    s = cuda.local.array(4, dtype=cuda.Stream)
    a[0] = s[0]


def e_keyword_call(a, n):
    a[0] = max(a[1], a[2], key=None)



def e_lambda(a, n):
    f = lambda x: x  # noqa: E731
    a[0] = f(n)


@pytest.mark.parametrize("func, needle, words", [
    (e_try, "try:", "Try"),
    (e_list, "values = [1.0, 2.0]", "List"),
    (e_print, "print(n, a)", "print() in kernels takes strings"),
    (e_unknown_function, "helper_not_jitted(n)", "helper_not_jitted"),
    (e_iterate_number, "for x in n:", "arrays, tuples"),
    (e_kernel_returns, "return n", "return a value"),
    (e_undefined_name, "not_defined_anywhere", "not_defined_anywhere"),
    (e_array_or_number, "if n > 0:", "on another path"),
    (e_bad_dtype, "cuda.local.array(4, dtype=cuda.Stream)", "dtype"),
    (e_keyword_call, "key=None", "keyword"),
    (e_lambda, "f = lambda", "Lambda"),
])
def test_unsupported_construct_names_file_and_line(func, needle, words):
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(func, SIG)
    message = str(info.value)
    line = line_of(func, needle)
    assert "%s:%d:" % (HERE, line) in message, message
    source_line = inspect.getsourcelines(func)[0][line - inspect.getsourcelines(func)[1]].strip()
    assert source_line in message
    assert words in message
    assert isinstance(info.value, TypeError)  # KernelTypeError is a TypeError, as numba's typing errors


def test_errors_also_come_from_jit_and_device_compilation():
    with pytest.raises(KernelTypeError) as info:
        cuda.jit(e_print).inspect_source(SIG)
    assert "%s:%d:" % (HERE, line_of(e_print, "print(n, a)")) in str(info.value)
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(e_list, "(float32[:], int64)", device=True)
    assert "%s:%d:" % (HERE, line_of(e_list, "values = [1.0, 2.0]")) in str(info.value)


def e_calls_bad_device(a, n):
    a[0] = d_bad_inner(n)


@cuda.jit(device=True)
def d_bad_inner(x):
    y = [x]
    return y[0]


def test_error_inside_a_device_function_points_at_the_device_function():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(e_calls_bad_device, SIG)
    assert "%s:%d:" % (HERE, line_of(d_bad_inner, "y = [x]")) in str(info.value)


def test_wrong_number_of_argument_types():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(k_vector_add, "void(float32[:])")
    assert "k_vector_add" in str(info.value)


def read_before_assignment(a):
    a[0] = later  # noqa: F821 -- the point of the test
    later = 1.0  # noqa: F841


def loop_carried_value(a, n):
    for i in range(n):
        if i > 0:
            a[i] = last  # noqa: F821 -- assigned by the previous iteration
        last = a[i] * 2


def test_read_before_assignment_is_an_error_but_loop_carried_values_are_not():
    with pytest.raises(KernelTypeError) as info:
        cuda.compile_ptx(read_before_assignment, "void(float64[:])")
    assert "used before it is assigned" in str(info.value) and "a[0] = later" in str(info.value)
    ptx, _ = cuda.compile_ptx(loop_carried_value, "void(float64[:], int64)")
    assert ".entry loop_carried_value" in ptx


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


# --- complex numbers, float16, tuples ---------------------------------------------------------


def c_mul():
    z = (1 + 2j) * (3 - 1j)
    return z.real * 10 + z.imag


def c_div():
    z = (1 + 2j) / (3 - 4j)
    return z.imag


def test_complex_arithmetic_folds_to_pythons_values():
    product = (1 + 2j) * (3 - 1j)
    assert returned_constant(c_mul) == (product.real * 10 + product.imag, types.float64)
    value, resty = returned_constant(c_div)
    assert value == pytest.approx(((1 + 2j) / (3 - 4j)).imag, rel=1e-15) and resty == types.float64


def c_sqrt(x):
    return cmath.sqrt(x)


def c_polar(z):
    return cmath.polar(z)


def divmod_like(a, b):
    return a // b, a % b


@pytest.mark.parametrize("argument, result", [
    ("int8", types.complex64),
    ("float32", types.complex64),
    ("float16", types.complex64),
    ("int32", types.complex128),
    ("float64", types.complex128),
    ("complex64", types.complex64),
])
def test_cmath_result_types(argument, result):
    assert cuda.compile_ptx(c_sqrt, "(%s,)" % argument, device=True)[1] == result


def test_device_functions_return_tuples():
    assert cuda.compile_ptx(c_polar, "(complex64,)", device=True)[1] == types.Tuple([types.float32] * 2)
    ptx, resty = cuda.compile_ptx(divmod_like, "(int64, int32)", device=True)
    assert resty == types.Tuple([types.int64, types.int64])
    assert ".func  (.param .align 8 .b8 func_retval0[16]) divmod_like(" in ptx


def complex_floordiv(a, n):
    z = a[0] * 1j
    a[0] = (z // 2).real


def complex_less(a, n):
    if a[0] * 1j < 1:
        a[0] = 0


def complex_math_sin(a, n):
    a[0] = math.sin(a[0] * 1j)


def complex_int(a, n):
    a[0] = int(a[0] * 1j)


def mixed_tuple_index(a, n):
    t = (a[0], n)
    a[0] = t[n]


@pytest.mark.parametrize("func, message", [
    (complex_floordiv, "complex numbers have no // or %"),
    (complex_less, "complex numbers are not ordered"),
    (complex_math_sin, "math.sin takes real numbers; cmath takes complex ones"),
    (complex_int, "cannot convert complex128 to int64"),
    (mixed_tuple_index, "a tuple of mixed types is indexed by constants only"),
])
def test_complex_and_tuple_errors_quote_the_line(func, message):
    with pytest.raises(KernelTypeError, match=r"%s:\d+: %s" % (re.escape(HERE), re.escape(message))):
        cuda.compile_ptx(func, SIG)


def nan_and_infinity(a, n):
    a[0] = math.nan
    a[1] = -math.inf
    a[2] = cmath.inf


def test_nan_and_infinity_literals_compile():
    body = body_of(ptx_of(nan_and_infinity), "nan_and_infinity")
    assert "2143289344" in body and "-8388608" in body and "2139095040" in body  # NaN, -inf, inf bits


def half_sum(a, n):
    a[0] = a[1] + a[2]


def test_float16_arithmetic_is_half_precision():
    body = body_of(ptx_of(half_sum, "void(float16[:], int64)"), "half_sum")
    assert "add.f16" in body or "add.rn.f16" in body
    assert "cvt.f32.f16" not in body  # not widened to float32


def sin_of_two(a, n):
    a[0] = math.sin(a[0], 2)


def log_of_base(a, n):
    a[0] = math.log(a[0], 2)


@pytest.mark.parametrize("func", [sin_of_two, log_of_base])
def test_math_functions_check_their_argument_count(func):
    with pytest.raises(KernelTypeError, match=r"%s:\d+: wrong number of arguments" % re.escape(HERE)):
        cuda.compile_ptx(func, SIG)


def frexp_modf(a, n):
    m, e = math.frexp(a[0])
    f, whole = math.modf(a[1])
    a[2] = math.ldexp(m, e) + f + whole + round(a[3], 2)


def test_frexp_modf_ldexp_round_digits_compile():
    body = body_of(ptx_of(frexp_modf), "frexp_modf")
    assert "st.global.f32" in body


@cuda.jit("float32(float64)", device=True)
def third_as_float32(x):
    return x / 3.0  # a float64 value, returned as the declared float32


def call_third():
    return third_as_float32(1)  # the int argument converts to the declared float64


def wrong_call_third(a, n):
    a[0] = third_as_float32(a)


def test_declared_device_signatures_convert_arguments_and_results():
    assert returned_constant(call_third) == (float(np.float32(1 / 3)), types.float32)
    with pytest.raises(KernelTypeError, match=r"third_as_float32 with parameters \(float32\[:\]\): no declared signature"):
        cuda.compile_ptx(wrong_call_third, SIG)


def grid_stride_sum(a, n):
    i = cuda.grid(1)
    total = float32(0.0)
    while i < a.size:
        total += a[i]
        i += cuda.gridsize(1)
    a[0] = total


def test_grid_stride_while_loop_unrolls_as_numbas():
    # the induction variable's += does not wrap, so NVVM counts the trips and unrolls the loop,
    # keeping several loads in flight (numba's LLVM unrolls it 4 times)
    body = body_of(ptx_of(grid_stride_sum), "grid_stride_sum")
    assert body.count("ld.global.f32") >= 4
    assert "ncc_wrapping_add" not in translated(grid_stride_sum).split("while")[1].split("}")[0]


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
    with pytest.raises(TypeError):
        types.from_dtype(np.dtype([("s", "U3")]))  # text has no device type


def fp16_intrinsics(a, n):
    x = cuda.fp16.hfma(a[0], a[1], a[2])
    y = cuda.fp16.hsqrt(cuda.fp16.habs(x))
    if cuda.fp16.hgt(y, a[3]):
        a[4] = cuda.fp16.hmax(cuda.fp16.hadd(x, y), cuda.fp16.hneg(a[5]))


def test_fp16_intrinsics():
    body = body_of(ptx_of(fp16_intrinsics, "void(float16[:], int64)"), "fp16_intrinsics")
    assert "fma.rn.f16" in body and "abs.f16" in body and "add.f16" in body


def ldexp_float_exponent(a, n):
    a[0] = math.ldexp(a[1], 2.5)


def test_ldexp_refuses_a_float_exponent():
    with pytest.raises(KernelTypeError, match="math.ldexp\\(x, i\\) takes an integer exponent"):
        cuda.compile_ptx(ldexp_float_exponent, SIG)



def test_launch_configuration_errors_in_numbas_words():
    kernel = cuda.jit(k_vector_add)
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"):
        kernel[(1, 2, 3, 4), (5, 6)]
    with pytest.raises(TypeError, match=r"griddim must be a sequence of integers, got \[2\.0\]"):
        kernel[2.0, 3]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, got \[2, 3\.0\]"):
        kernel[2, (2, 3.0)]
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        kernel(np.zeros(4, np.float32), 4)


def test_a_lambda_inside_a_call_that_spans_lines():
    if True:  # indented, in a call spanning lines: its own lines do not parse, its file's do
        ptx, _ = cuda.compile_ptx(
            lambda a: a + 1, "float64(float64)", device=True
        )
    assert ".func" in ptx and "add.f64" in ptx
