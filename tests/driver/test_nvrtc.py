"""NVRTC compilation, its caches and launch-configuration parsing: no GPU needed."""

import os

import pytest

import numba_cuda_c as cuda
from numba_cuda_c import _cuda
from numba_cuda_c.toolchain import compiler

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


def test_nvrtc_version_told_by_its_file_name_without_loading_it(monkeypatch):
    for identity, version in (
        (("/usr/local/cuda/lib64/libnvrtc.so.12.4.127", 1, 2), (12, 4)),
        (("/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12", 1, 2), (12, 0)),
        (("/opt/lib/libnvrtc.so", 1, 2), (0, 0)),
        ((13, 1), (13, 1)),  # no file found: the version NVRTC gave
    ):
        monkeypatch.setattr(compiler, "_nvrtc_identity_cache", [identity])
        assert compiler.nvrtc_version_unloaded() == version


def test_translations_compile_with_minimal_headers_where_nvrtc_has_them(monkeypatch):
    from numba_cuda_c.pyjit.options import nvrtc_options

    for version, minimal in (((12, 3), False), ((12, 4), True), ((13, 0), True), ((0, 0), False)):
        monkeypatch.setattr(compiler, "nvrtc_version_unloaded", lambda: version)
        assert ("-minimal" in nvrtc_options(fastmath=True)) == minimal, version


def k_uses_headers(a, z):  # cooperative groups, printf, atomics, float16, complex numbers
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    a[i] += z.real
    g.sync()
    print("i", i, a[0])
    cuda.atomic.add(a, 0, 1.0)
    a[i] += cuda.fp16.hsin(cuda.float16(a[i]))


@needs_nvrtc
@pytest.mark.skipif(compiler.nvrtc_version_unloaded() < (12, 4), reason="NVRTC before 12.4 has no -minimal")
def test_minimal_headers_leave_a_translations_ptx_as_it_was(cache, monkeypatch):
    """-minimal drops only declarations a translation never names: the PTX is the same byte for byte."""
    images = []
    real = _cuda.nvrtc_compile

    def both(source, name, options, ptx):
        assert "-minimal" in options
        images.append(
            (
                real(source, name, options, ptx)[0],
                real(source, name, [o for o in options if o != "-minimal"], ptx)[0],
            )
        )
        return real(source, name, options, ptx)

    monkeypatch.setattr(_cuda, "nvrtc_compile", both)
    cuda.compile_ptx(k_uses_headers, "void(float32[::1], complex64)", cc=(9, 0))
    assert len(images) == 1 and images[0][0] == images[0][1]


@needs_nvrtc
@pytest.mark.skipif(compiler.nvrtc_version_unloaded() < (12, 4), reason="NVRTC before 12.4 has no -minimal")
def test_a_source_that_needs_what_minimal_leaves_out_compiles_without_it(cache):
    source = 'extern "C" __global__ void k(int *out) { cudaError_t e = cudaSuccess; out[0] = (int)e; }'
    with pytest.raises(cuda.NvrtcError):
        _cuda.nvrtc_compile(source, "k.cu", ["-minimal"], True)
    assert b".entry k(" in compiler.compile_image(source, ["-minimal"], arch=(9, 0), ptx=True)
    with pytest.raises(cuda.NvrtcError, match="undefined_name"):  # an error: the full headers' own
        compiler.compile_image(BAD, ["-minimal"], arch=(9, 0), ptx=True)
