"""Linking without a GPU: cuda.declare_device (the declaration, numba's ABI in the PTX), CUDA C compiled
by NVRTC for linking (warnings, errors), numba's errors for what cannot be linked, LinkableCode, the
C Linker's argument checks, and (where the toolkit's ptxas and nvlink are installed) that a kernel
calling a declared function links against CUDA C implementing numba's ABI.

The driver's linker needs a GPU: test_linking_gpu.py runs it.
"""

import io
import os
import re
import shutil
import subprocess
import warnings

import pytest

import numba_cuda_c as cuda
from numba_cuda_c import _cuda, float32, float64, int32, types
from numba_cuda_c.toolchain import linker as linking
from numba_cuda_c.cudadrv.driver import FILE_EXTENSION_MAP, Linker, LinkerError, _Linker
from numba_cuda_c.pyjit import KernelTypeError

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)

CUDA_BIN = os.path.join(os.environ.get("CUDA_HOME") or "/usr/local/cuda", "bin")
PTXAS = shutil.which("ptxas") or shutil.which("ptxas", path=CUDA_BIN)
NVLINK = shutil.which("nvlink") or shutil.which("nvlink", path=CUDA_BIN)

TIMES2_CU = """
extern "C" __device__ int times2(int *out, int a) { *out = a * 2; return 0; }
"""
# numba's array model, one parameter per member: meminfo, parent, nitems, itemsize, data, shape, strides
LAST_CU = """
extern "C" __device__ int set_last(void *out, void *meminfo, void *parent, long long nitems, long long itemsize,
                                   int *data, long long shape0, long long stride0)
{
    *(int *)((char *)data + (shape0 - 1) * stride0) = (int)(nitems * 100 + itemsize);
    return 0;
}
"""
WARN_CU = """
extern "C" __device__ int times2(int *out, int a) { int unused; *out = a * 2; return 0; }
"""
ERROR_CU = """
extern "C" __device__ int times2(int *out, int a) {
  SYNTAX ERROR
  *out = a * 2;
  return 0;
}
"""

times2 = cuda.declare_device("times2", "int32(int32)")
set_last = cuda.declare_device("set_last", "void(int32[:])")
c_scale = cuda.declare_device("c_scale", float32(float32, float64), abi="c")
times2_f = cuda.declare_device("times2", "float32(float32)")  # the name again, another signature


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path_factory.mktemp("link_cache")))
        yield


def calls_times2(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = times2(x[i])


def calls_set_last(x):
    set_last(x)


def calls_c_scale(r):
    r[0] = c_scale(r[0], 2)


def calls_twice_differently(r):
    r[0] = times2(r[0]) + times2_f(r[1])


def calls_with_wrong_count(r):
    r[0] = times2(r[0], r[1])


def calls_with_wrong_array(r):
    set_last(r)


def device_calls_times2(x):
    return times2(x)


def declared(name, ptx):
    """The .extern .func declaration of `name` in PTX, up to its closing parenthesis."""
    match = re.search(r"\.extern \.func\s*(\([^)]*\))?\s*%s\s*\(([^)]*)\)" % re.escape(name), ptx)
    assert match, ptx
    return match.group(1) or "", re.findall(r"\.param \.(\w+)", match.group(2))


# -- cuda.declare_device ---------------------------------------------------------------------------
def test_declare_device_descriptor():
    f1 = cuda.declare_device("f1", int32(float32[:]))
    assert (f1.name, f1.sig.args, f1.sig.return_type) == ("f1", (float32[:],), int32)
    f2 = cuda.declare_device("f2", "int32(float32[:])", link="f.cu")
    assert (f2.sig.args, f2.sig.return_type, f2.link) == ((float32[:],), int32, ("f.cu",))
    assert set(cuda.declare_device("f3", "void()", link={"a.cu", "b.ptx"}).link) == {"a.cu", "b.ptx"}
    with pytest.raises(TypeError, match="call it from a kernel"):
        f1(1.0)


@pytest.mark.parametrize("sig", [(float32[:],), "(float32[:],)", "float32[:]"])
def test_declare_device_needs_a_return_type(sig):
    with pytest.raises(TypeError, match="Return type must be provided for device declarations"):
        cuda.declare_device("f1", sig)


def test_declare_device_rejects_unknown_abi_and_bad_names():
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fortran"):
        cuda.declare_device("f1", "int32()", abi="fortran")
    with pytest.raises(TypeError, match="C identifier"):
        cuda.declare_device("not a name", "int32()")


def test_numba_abi_in_ptx():
    """int times2(int *ret, int): the result through a pointer, an int status."""
    ptx, _ = cuda.compile_ptx(calls_times2, "void(int32[:], int32[:])")
    returns, params = declared("times2", ptx)
    assert ".b32" in returns
    assert params == ["b64", "b32"]
    assert re.search(r"call\.uni\s*\(retval0\),\s*times2,", ptx), ptx


def test_numba_abi_passes_arrays_as_numba_array_model():
    ptx, _ = cuda.compile_ptx(calls_set_last, "void(int32[:])")
    # the result pointer, then meminfo, parent, nitems, itemsize, data, one extent, one stride
    assert declared("set_last", ptx)[1] == ["b64"] * 8


def test_c_abi_in_ptx():
    ptx, _ = cuda.compile_ptx(calls_c_scale, "void(float32[:])")
    returns, params = declared("c_scale", ptx)
    assert ".f32" in returns or ".b32" in returns
    assert params in (["f32", "f64"], ["b32", "b64"])


def test_declared_function_called_from_a_device_function():
    ptx, resty = cuda.compile_ptx(device_calls_times2, "int32(int32)", device=True)
    assert resty == int32
    assert declared("times2", ptx)[1] == ["b64", "b32"]


def test_declared_calls_are_checked():
    with pytest.raises(KernelTypeError, match="declared twice"):
        cuda.compile_ptx(calls_twice_differently, "void(int32[:])")
    with pytest.raises(KernelTypeError, match="takes 1 arguments"):
        cuda.compile_ptx(calls_with_wrong_count, "void(int32[:])")
    with pytest.raises(KernelTypeError, match=re.escape("set_last takes int32[:], not float32[:]")):
        cuda.compile_ptx(calls_with_wrong_array, "void(float32[:])")


def test_cached_translation_still_knows_the_links(tmp_path, monkeypatch):
    """With cache=True the translation comes from disk; the links of the declarations it calls are
    this process's, so they must still be found."""
    monkeypatch.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path))
    decl = cuda.declare_device("times2", "int32(int32)", link=[str(tmp_path / "times2.cu")])
    global times2
    saved, times2 = times2, decl
    try:
        argtypes = (types.Array(int32, 1, "A"), types.Array(int32, 1, "A"))
        first = cuda.jit(cache=True, link=["extra.ptx"])(calls_times2)
        first._source(argtypes)
        second = cuda.jit(cache=True, link=["extra.ptx"])(calls_times2)
        second._source(argtypes)
        assert os.listdir(tmp_path)  # the translation was cached
        expected = ["extra.ptx", str(tmp_path / "times2.cu")]
        assert (
            first._specialiser.specialisation(argtypes).links
            == second._specialiser.specialisation(argtypes).links
            == expected
        )
    finally:
        times2 = saved


# -- what cannot be linked: numba's errors, before any compile ------------------------------------
def test_jit_link_errors_before_compiling():
    with pytest.raises(RuntimeError, match="Don't know how to link file with extension .cuh"):
        cuda.jit("void()", link=["header.cuh"])(empty_kernel)
    with pytest.raises(RuntimeError, match="Don't know how to link file with no extension"):
        cuda.jit("void()", link=["data"])(empty_kernel)
    with pytest.raises(LinkerError) as info:
        cuda.jit("void(int32[::1])", link=["nonexistent.a"])(sets_first)
    assert "nonexistent.a not found" in info.value.args


def empty_kernel():
    pass


def sets_first(x):
    x[0] = 0


# -- CUDA C for linking ----------------------------------------------------------------------------
def test_compile_cu_is_relocatable_ptx():
    ptx = linking.compile_cu(TIMES2_CU, "times2.cu", (7, 5)).decode()
    assert ".target sm_75" in ptx
    assert re.search(r"\.visible \.func\s*\(\.param \.b32 func_retval0\)\s*times2\(", ptx), ptx


def test_compile_cu_warns_with_nvrtc_log():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        linking.compile_cu(WARN_CU, "warn.cu", (7, 5))
    messages = [str(w.message) for w in caught if "NVRTC log messages" in str(w.message)]
    assert len(messages) == 1
    assert "declared but never referenced" in messages[0]


def test_compile_cu_error_names_the_file():
    with pytest.raises(cuda.NvrtcError) as info:
        linking.compile_cu(ERROR_CU, "error.cu", (7, 5))
    message = str(info.value)
    assert "NVRTC_ERROR_COMPILATION" in message
    assert 'identifier "SYNTAX" is undefined' in message
    assert 'in the compilation of "error.cu"' in message


# -- LinkableCode, FILE_EXTENSION_MAP, the Linker's checks ----------------------------------------
def test_linkable_code(tmp_path):
    path = tmp_path / "times2.cu"
    path.write_text(TIMES2_CU)
    code = cuda.LinkableCode.from_path(str(path))
    assert isinstance(code, cuda.CUSource) and code.kind == "cu" and code.name == "times2"
    assert code.data == TIMES2_CU
    assert cuda.PTXSource(io.StringIO(".version 8.0")).data == ".version 8.0"
    assert cuda.Cubin(b"\x7fELF").name == "<unnamed-cubin>"
    assert (cuda.Fatbin.kind, cuda.Archive.kind, cuda.Object.kind) == (2, 4, 3)
    with pytest.raises(ValueError, match="Unknown extension: .txt"):
        cuda.LinkableCode.from_path(str(tmp_path / "x.txt"))
    with pytest.raises(TypeError, match="setup_callback must be callable"):
        cuda.PTXSource("", setup_callback=3)
    assert FILE_EXTENSION_MAP == {"o": 3, "ptx": 1, "a": 4, "lib": 4, "cubin": 0, "fatbin": 2, "ltoir": 5}


def test_linker_checks_its_arguments_first():
    assert _Linker is Linker
    with pytest.raises(TypeError, match="cc must be a"):
        _cuda.Linker(cc=(7,))
    with pytest.raises(ValueError, match="not a compute capability"):
        _cuda.Linker(cc=(0, 75))
    with pytest.raises(ValueError, match="max_registers"):
        _cuda.Linker(max_registers=-1)
    with pytest.raises(ValueError, match="nvJitLink"):
        Linker.new(cc=(7, 5), lto=True)


# -- the link itself, by the toolkit's ptxas and nvlink (where installed) -------------------------
@pytest.mark.skipif(PTXAS is None or NVLINK is None, reason="the toolkit's ptxas and nvlink are not installed")
@pytest.mark.parametrize("with_definition", [True, False])
def test_declared_function_links_against_cuda_c(tmp_path, with_definition):
    kernel_ptx, _ = cuda.compile_ptx(calls_times2, "void(int32[:], int32[:])", cc=(7, 5))
    (tmp_path / "kernel.ptx").write_text(kernel_ptx)
    (tmp_path / "times2.ptx").write_bytes(linking.compile_cu(TIMES2_CU, "times2.cu", (7, 5)))
    objects = []
    for name in ("kernel", "times2") if with_definition else ("kernel",):
        subprocess.run(
            [PTXAS, "-c", "-arch=sm_75", str(tmp_path / (name + ".ptx")), "-o", str(tmp_path / (name + ".o"))],
            check=True,
        )
        objects.append(str(tmp_path / (name + ".o")))
    done = subprocess.run(
        [NVLINK, "-arch=sm_75", *objects, "-o", str(tmp_path / "linked.cubin")], capture_output=True, text=True
    )
    if with_definition:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode != 0 and "times2" in done.stderr
