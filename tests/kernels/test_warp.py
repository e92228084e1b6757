"""Warp intrinsics (numba's cuda.shfl_*_sync, all/any/eq/ballot_sync, match_any/all_sync, activemask,
lanemask_lt): numba's argument checks and result types in CI (NVRTC), results on the GPU."""

import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import float32, float64, int32, int64, uint32
from numba_cuda_c.pyjit import KernelTypeError


def warp_sum(values, out):
    i = cuda.grid(1)
    v = values[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


def votes(pred, out):
    i = cuda.threadIdx.x
    out[i, 0] = cuda.all_sync(0xFFFFFFFF, pred[i])
    out[i, 1] = cuda.any_sync(0xFFFFFFFF, pred[i])
    out[i, 2] = cuda.eq_sync(0xFFFFFFFF, pred[i])
    out[i, 3] = cuda.ballot_sync(0xFFFFFFFF, pred[i])
    out[i, 4] = cuda.match_any_sync(0xFFFFFFFF, pred[i])
    mask, same = cuda.match_all_sync(0xFFFFFFFF, pred[i])
    out[i, 5] = mask if same else 0
    out[i, 6] = cuda.activemask()
    out[i, 7] = cuda.lanemask_lt()
    out[i, 8] = cuda.shfl_xor_sync(0xFFFFFFFF, i, 1)
    out[i, 9] = cuda.shfl_up_sync(0xFFFFFFFF, i, 1)


def float_mask(ary, f):
    ary[0] = cuda.all_sync(f[0], 1)


def float_predicate(ary, f):
    ary[0] = cuda.ballot_sync(0xFFFFFFFF, f[0])


@needs_nvrtc
@pytest.mark.parametrize("t", [int32, int64, float32, float64])
def test_shuffles_every_type(t):
    ptx, _ = cuda.compile_ptx(warp_sum, (t[:], t[:]))
    assert "shfl.sync.down" in ptx


@needs_nvrtc
def test_checks_as_numba():
    with pytest.raises(KernelTypeError, match="Mask type must be an integer"):
        cuda.compile_ptx(float_mask, (int32[:], float32[:]))
    with pytest.raises(KernelTypeError, match="Predicate must be an integer or boolean"):
        cuda.compile_ptx(float_predicate, (uint32[:], float64[:]))
    ptx, _ = cuda.compile_ptx(votes, (int32[:], uint32[:, :]))
    assert "vote.sync" in ptx and "match.all.sync" in ptx


@requires_gpu
def test_results():
    values = np.arange(128, dtype=np.float64)
    out = np.zeros(4)
    cuda.jit(warp_sum)[1, 128](values, out)
    np.testing.assert_array_equal(out, values.reshape(4, 32).sum(axis=1))
    pred = np.ones(32, dtype=np.int32)
    pred[5] = 0
    got = np.zeros((32, 10), dtype=np.uint32)
    cuda.jit(votes)[1, 32](pred, got)
    lanes = np.arange(32)
    assert (got[:, 0] == 0).all() and (got[:, 1] == 1).all() and (got[:, 2] == 0).all()
    assert (got[:, 3] == 0xFFFFFFFF & ~(1 << 5)).all()
    assert got[5, 4] == 1 << 5 and got[0, 4] == 0xFFFFFFFF & ~(1 << 5)
    assert (got[:, 5] == 0).all()  # not all equal
    assert (got[:, 6] == 0xFFFFFFFF).all()
    np.testing.assert_array_equal(got[:, 7], (1 << lanes) - 1)
    np.testing.assert_array_equal(got[:, 8], lanes ^ 1)
    np.testing.assert_array_equal(got[1:, 9], lanes[:-1])


def selects(out, x):
    i = cuda.grid(1)
    out[i] = cuda.selp(x[i] > 2, x[i], x[0])


@needs_nvrtc
def test_selp():
    ptx, _ = cuda.compile_ptx(selects, (int32[:], int32[:]))
    assert ".entry" in ptx

    def mixed(out, x, y):
        out[0] = cuda.selp(True, x[0], y[0])

    with pytest.raises(KernelTypeError, match="must have one type"):
        cuda.compile_ptx(mixed, (int32[:], int32[:], float32[:]))


def selects_loaded_values(a, b, c):
    i = cuda.grid(1)
    inner = cuda.selp(b % 2 == 0, c[i], 13)
    a[i] = cuda.selp(a[i] > 4, inner, 3)


@needs_nvrtc
def test_selp_computes_both_values_and_selects_without_a_branch():
    # numba's selp computes both operands (c[i] loaded whatever the predicate) and selects: no branch in its PTX
    # (numba-cuda's test_selp counts them); C's ?: would load c[i] only where chosen, behind a branch
    ptx, _ = cuda.compile_ptx(selects_loaded_values, (int64[:], int64, int64[:]), cc=(9, 0))
    assert not re.search(r"\s+bra\s+", ptx) and "selp.b64" in ptx


@requires_gpu
def test_selp_results():
    x = np.arange(6, dtype=np.int32)
    out = np.zeros(6, dtype=np.int32)
    cuda.jit(selects)[1, 6](out, x)
    np.testing.assert_array_equal(out, np.where(x > 2, x, 0))
    c = np.full(32, 17, dtype=np.int64)
    for b in (6, 7):
        a = np.arange(32, dtype=np.int64)
        cuda.jit(selects_loaded_values)[32, 1](a, b, c)
        np.testing.assert_array_equal(a, np.where(np.arange(32) > 4, 17 if b % 2 == 0 else 13, 3))
