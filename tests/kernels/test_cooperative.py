"""Cooperative groups: cuda.cg.this_grid() and GridGroup.sync() translate to CUDA's cooperative groups,
mark the translation for a cooperative launch (CI, with NVRTC), and on the GPU launch with
cuLaunchCooperativeKernel (numba's grid-sync documentation example), with max_cooperative_grid_blocks."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import int32, types
from numba_cuda_c.pyjit.translate import translate_kernel


def sequential_rows(M):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    rows = M.shape[0]
    cols = M.shape[1]
    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()


def no_sync(M):
    M[0, 0] = 1


def test_grid_sync_asks_for_a_cooperative_launch():
    flags = []
    source = translate_kernel(sequential_rows, [types.Array(types.int32, 2, "A")], "k", launch_flags=flags)
    assert flags == ["cooperative"] and "#include <cooperative_groups.h>" in source
    assert ".sync()" in source and "numba_cuda_c launch" not in source  # data beside the source, not in it
    flags = []
    translate_kernel(no_sync, [types.Array(types.int32, 2, "A")], "k", launch_flags=flags)
    assert flags == []


def test_launch_flags_survive_the_disk_cache(tmp_path, monkeypatch):
    from numba_cuda_c.toolchain import compiler

    monkeypatch.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path))
    made = []

    def make():
        made.append(1)
        return "// the source\n", ["cooperative", "deep_stack"]

    assert compiler.cached_translation("a key", make) == (("// the source\n", ["cooperative", "deep_stack"]), False)
    assert compiler.cached_translation("a key", make) == (("// the source\n", ["cooperative", "deep_stack"]), True)
    assert len(made) == 1


def test_grid_group_methods_are_checked():
    def bad(M):
        g = cuda.cg.this_grid()
        g.wait()

    with pytest.raises(Exception, match="GridGroup has no method 'wait'"):
        translate_kernel(bad, [types.Array(types.int32, 2, "A")], "k")


@needs_nvrtc
def test_grid_sync_compiles():
    ptx, _ = cuda.compile_ptx(sequential_rows, (int32[:, ::1],))
    assert ".entry" in ptx


@requires_gpu
def test_grid_sync_documentation_example():
    sig = (int32[:, ::1],)
    kernel = cuda.jit(sig)(sequential_rows)
    A = np.zeros((1024, 1024), dtype=np.int32)
    blockdim = 32
    griddim = A.shape[1] // blockdim
    compiled = kernel.overloads[sig]
    assert compiled.cooperative
    most = compiled.max_cooperative_grid_blocks(blockdim)
    assert most > 0 and most == compiled.max_cooperative_grid_blocks((blockdim, 1, 1))
    if most < griddim:
        pytest.skip("this GPU cannot hold a cooperative grid of %d blocks" % griddim)
    kernel[griddim, blockdim](A)
    np.testing.assert_equal(A, np.tile(np.arange(1024), (1024, 1)).T)
    with pytest.raises(cuda.CudaAPIError, match="COOPERATIVE_LAUNCH_TOO_LARGE"):
        kernel[most + 1, blockdim](np.zeros((2, (most + 1) * blockdim), dtype=np.int32))
