"""numba_cuda_c.cudadrv.nvvm (numba.cuda.cudadrv.nvvm): libNVVM through ctypes for programs that write their own
LLVM IR. Compiling needs libNVVM only (no GPU): these run in CI where the toolkit has it; the last test loads the
PTX and runs it on the GPU."""

import warnings

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c.cudadrv import nvrtc, nvvm

requires_nvvm = pytest.mark.skipif(not nvvm.is_available(), reason="libNVVM not found (a toolkit's nvvm/lib64)")

IR = """target triple="nvptx64-nvidia-cuda"
target datalayout = "{layout}"

define i32 @ave(i32 %a, i32 %b) {{
entry:
  %add = add nsw i32 %a, %b
  %div = sdiv i32 %add, 2
  ret i32 %div
}}

define void @halves(i32* %data) {{
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %twice = add i32 %0, %0
  %call = call i32 @ave(i32 %twice, i32 %twice)
  %index = sext i32 %0 to i64
  %slot = getelementptr inbounds i32, i32* %data, i64 %index
  store i32 %call, i32* %slot, align 4
  ret void
}}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() nounwind readnone

!nvvmir.version = !{{!1}}
!1 = !{{i32 {v[0]}, i32 {v[1]}, i32 {v[2]}, i32 {v[3]}}}
!nvvm.annotations = !{{!2}}
!2 = !{{void (i32*)* @halves, !"kernel", i32 1}}
"""


def ir_text():
    return IR.format(layout=nvvm.NVVM().data_layout, v=nvvm.NVVM().get_ir_version())


@requires_nvvm
def test_versions_and_layout():
    driver = nvvm.NVVM()
    assert driver is nvvm.NVVM(), "one object per process"
    major, minor = driver.get_version()
    assert major >= 1 and minor >= 0
    ir_version = driver.get_ir_version()
    assert len(ir_version) == 4 and all(isinstance(v, int) for v in ir_version)
    assert driver.data_layout.startswith("e-p:64:64:64")


@requires_nvvm
def test_compile_ir_to_ptx_for_each_architecture():
    for cc in nvrtc.get_supported_ccs()[:2] + nvrtc.get_supported_ccs()[-1:]:
        ptx = nvvm.compile_ir(ir_text(), arch="compute_%d%d" % cc, ftz=1, prec_sqrt=0).decode()
        assert ".target sm_%d%d" % cc in ptx
        assert ".entry halves" in ptx and "ave" in ptx


@requires_nvvm
def test_compile_ir_to_lto_ir_with_an_option_without_value():
    arch = "compute_%d%d" % nvrtc.get_lowest_supported_cc()
    assert nvvm.compile_ir(ir_text(), opt=3, gen_lto=None, arch=arch)[:4] == b"\xed\x43\x4e\x7f"


@requires_nvvm
def test_errors_name_nvvms_result_and_log():
    with pytest.raises(nvvm.nvvmError) as info:
        nvvm.compile_ir(ir_text(), made_up_option=2)
    assert info.value.status == 7 and "NVVM_ERROR_INVALID_OPTION" in str(info.value)
    with pytest.raises(nvvm.NvvmError) as info:
        nvvm.compile_ir(ir_text().replace("ret i32 %div", "ret i64 %div"))
    assert "NVVM_ERROR" in str(info.value) and len(str(info.value).splitlines()) > 1, "the log follows"
    assert nvvm.NVVM().check_options(["-opt=3"]) and not nvvm.NVVM().check_options(["-made-up=1"])


def test_missing_libnvvm_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(nvvm, "_library", [None, "libNVVM cannot be found or loaded; looked in ..."])
    monkeypatch.setattr(nvvm.NVVM, "_instance", None)
    assert not nvvm.is_available()
    with pytest.raises(nvvm.NvvmSupportError, match="libNVVM cannot be found") as info:
        nvvm.compile_ir("")
    assert isinstance(info.value, ImportError)  # numba's NvvmSupportError is an ImportError


def test_libdevice_bitcode():
    if nvvm.libraries.libdevice_path() is None:
        pytest.skip("no libdevice.10.bc in a toolkit")
    assert nvvm.LibDevice().bc[:4] == b"BC\xc0\xde" and nvvm.LibDevice().get() is nvvm.LibDevice().bc


def llvmlite_module(name):
    """llvmlite's ir and an empty module for NVVM: its triple, data layout and IR version."""
    ir = pytest.importorskip("llvmlite.ir")
    module = ir.Module(name)
    module.triple = "nvptx64-nvidia-cuda"
    module.data_layout = nvvm.NVVM().data_layout
    nvvm.add_ir_version(module)
    return ir, module


@requires_nvvm
def test_llvmlite_module_marked_as_kernel_compiles():
    ir, module = llvmlite_module("marked")
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.IntType(32)]), name="marked_kernel")
    function.attributes.add("noinline")
    ir.IRBuilder(function.append_basic_block("entry")).ret_void()
    nvvm.set_cuda_kernel(function)
    nvvm.set_launch_bounds(function, (128, 2))
    text = str(module)
    used = [line for line in text.splitlines() if "llvm.used" in line]
    assert len(used) == 1 and "marked_kernel" in used[0] and "appending global" in used[0]
    assert 'section "llvm.metadata"' in used[0] and "noinline" not in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", nvvm.NvvmWarning)  # nothing to warn about: noinline was dropped
        ptx = nvvm.compile_ir(text).decode()
    assert ".entry marked_kernel" in ptx and ".address_size 64" in ptx and ".maxntid 128" in ptx
    with pytest.raises(ValueError, match="A maximum of three"):
        nvvm.set_launch_bounds(function, (1, 2, 3, 4))


@requires_nvvm
def test_nvvms_log_becomes_a_warning():
    ir, module = llvmlite_module("warns")
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), []), name="warns_kernel")
    ir.IRBuilder(function.append_basic_block("entry")).ret_void()
    nvvm.set_cuda_kernel(function)
    function.attributes.add("noinline")
    with pytest.warns(nvvm.NvvmWarning, match="overriding noinline attribute"):
        nvvm.compile_ir(str(module))


@requires_gpu
@requires_nvvm
def test_nvvm_ptx_runs():
    cc = cuda.get_current_device().compute_capability
    arch = max(c for c in nvrtc.get_supported_ccs() if c <= tuple(cc))
    ptx = nvvm.compile_ir(ir_text(), arch="compute_%d%d" % arch)
    kernel = cuda.load_module(ptx.rstrip(b"\0")).get_function("halves")
    data = cuda.device_array(64, np.int32)
    kernel[1, 64](data)
    np.testing.assert_array_equal(data.copy_to_host(), np.arange(64, dtype=np.int32) * 2)
