"""NVRTC compilation, its caches and launch-configuration parsing: no GPU needed."""

import os

import pytest

import numba_cuda_c as cuda
from numba_cuda_c import _cuda, compiler

try:
    _cuda.nvrtc_version()
    HAVE_NVRTC = True
except cuda.NvrtcError:
    HAVE_NVRTC = False

needs_nvrtc = pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC is not installed")

GOOD = 'extern "C" __global__ void fill(float *a, float v) { a[threadIdx.x] = v; }'
BAD = 'extern "C" __global__ void fill(float *a) {\n    a[threadIdx.x] = undefined_name;\n}'


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path))
    compiler._memory_cache.clear()
    yield tmp_path
    compiler._memory_cache.clear()


@needs_nvrtc
def test_compile_to_ptx(cache):
    ptx = compiler.compile_image(GOOD, arch=(7, 5), ptx=True)
    text = ptx.decode()
    assert ".visible .entry fill(" in text and ".target sm_75" in text


@needs_nvrtc
def test_compile_to_cubin_for_every_supported_arch(cache):
    for arch in _cuda.nvrtc_supported_archs():
        assert compiler.compile_image(GOOD, arch=arch).startswith(b"\x7fELF")


@needs_nvrtc
def test_compile_error_carries_the_log(cache):
    with pytest.raises(cuda.NvrtcError) as info:
        compiler.compile_image(BAD, arch=(7, 5), name="bad.cu", ptx=True)
    message = str(info.value)
    assert "bad.cu(2)" in message and "undefined_name" in message


@needs_nvrtc
def test_options_pass_through(cache):
    ptx = compiler.compile_image("__global__ void k() { int x = VALUE; (void)x; }", ["-DVALUE=3"], (7, 5), ptx=True)
    assert b".entry" in ptx
    with pytest.raises(cuda.NvrtcError):
        compiler.compile_image(GOOD, ["--not-an-option"], (7, 5), ptx=True)


@needs_nvrtc
def test_cuda_headers_on_the_include_path(cache):
    source = '#include <cuda_fp16.h>\nextern "C" __global__ void h(__half *a) { a[0] = __float2half(1.0f); }'
    assert compiler.compile_image(source, arch=(7, 5), ptx=True)


@needs_nvrtc
def test_disk_cache_hit_and_corruption(cache):
    first = compiler.compile_image(GOOD, arch=(8, 0))
    entries = [p for p in os.listdir(cache) if p.endswith(".cubin")]
    assert len(entries) == 1
    path = os.path.join(cache, entries[0])
    compiler._memory_cache.clear()
    calls = []
    real = _cuda.nvrtc_compile

    def counting(*args):
        calls.append(args)
        return real(*args)

    compiler._cuda = type(
        "Shim", (), {"nvrtc_compile": staticmethod(counting), "nvrtc_version": _cuda.nvrtc_version}
    )
    try:
        assert compiler.compile_image(GOOD, arch=(8, 0)) == first
        assert calls == []  # served from disk
        with open(path, "r+b") as f:  # corrupt the payload
            f.seek(-10, os.SEEK_END)
            f.write(b"0123456789")
        compiler._memory_cache.clear()
        assert compiler.compile_image(GOOD, arch=(8, 0)) == first
        assert len(calls) == 1  # recompiled, never loaded
        compiler._memory_cache.clear()
        with open(path, "wb") as f:
            f.write(b"short")
        assert compiler.compile_image(GOOD, arch=(8, 0)) == first
        assert len(calls) == 2
    finally:
        compiler._cuda = _cuda


def test_launch_dims_parsing():
    parse = _cuda._parse_launch_dims
    assert parse(4, 32) == ((4, 1, 1), (32, 1, 1))
    assert parse((2, 3), [4, 5, 6]) == ((2, 3, 1), (4, 5, 6))
    with pytest.raises(ValueError):
        parse((1, 2, 3, 4), 1)
    with pytest.raises(TypeError):
        parse(1.5, 1)
    with pytest.raises(ValueError):
        parse(0, 1)
    with pytest.raises(ValueError):
        parse(1, (2, -1))
    with pytest.raises(ValueError):
        parse(None, 1)
