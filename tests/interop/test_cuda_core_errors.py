"""numba-cuda launches through cuda.core and compiles CUDA C through cuda.core's NVRTC program, so programs written
for it catch cuda.core's CUDAError (a failed launch) and NVRTCError (a failed compile). Where such a program has
cuda.core's error module loaded, our errors there are instances of those classes too (and still of ours); where it
has not, they are ours alone. A stand-in module plays cuda.core here (CI has no cuda.core)."""

import sys
import types

import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c.toolchain import linker as linking

ERROR_CU = "__device__ int bar(int x) { return SYNTAX; }\n"

STAND_IN = """
class CUDAError(Exception):
    pass

class NVRTCError(CUDAError):
    pass
"""


def stand_in_cuda_core():
    module = types.ModuleType("cuda.core._utils.cuda_utils")
    exec(STAND_IN, module.__dict__)
    return module


@needs_nvrtc
def test_nvrtc_errors_are_cuda_core_errors_where_cuda_core_is_loaded(monkeypatch):
    monkeypatch.delitem(sys.modules, "cuda.core._utils.cuda_utils", raising=False)
    with pytest.raises(cuda.NvrtcError) as plain:
        linking.compile_cu(ERROR_CU, "error.cu", (7, 5))
    assert type(plain.value) is cuda.NvrtcError

    core = stand_in_cuda_core()
    monkeypatch.setitem(sys.modules, "cuda.core._utils.cuda_utils", core)
    raised = []
    for _ in range(2):
        with pytest.raises(core.NVRTCError) as info:
            linking.compile_cu(ERROR_CU, "error.cu", (7, 5))
        raised.append(info.value)
    first, second = raised
    assert isinstance(first, cuda.NvrtcError) and isinstance(first, core.CUDAError)
    assert type(first) is type(second), "the class deriving from both is made once"
    assert type(first).__name__ == "NvrtcError"
    message = first.args[0]
    assert "NVRTC_ERROR_COMPILATION" in message and 'in the compilation of "error.cu"' in message

    # cuda.core reloaded: a new class of theirs gets a new class of ours
    again = stand_in_cuda_core()
    monkeypatch.setitem(sys.modules, "cuda.core._utils.cuda_utils", again)
    with pytest.raises(again.NVRTCError) as info:
        linking.compile_cu(ERROR_CU, "error.cu", (7, 5))
    assert not isinstance(info.value, core.NVRTCError)


@pytest.mark.usefixtures("mock_driver")
def test_failed_launches_are_cuda_core_errors_where_cuda_core_is_loaded():
    run_mock(
        """
        import types
        src = b'''
        .version 8.0
        .target sm_90
        .address_size 64
        .visible .entry k(.param .u64 a, .param .u32 n)
        {
            ret;
        }
        '''
        kern = cuda.load_module(src).get_function("k")
        keep = cuda.device_array(4)

        def launch_error(action):
            try:
                action()
            except Exception as e:
                return e
            raise AssertionError("no error")

        # no cuda.core loaded: ours alone
        e = launch_error(lambda: kern[1, 2048](keep, 3))
        assert type(e) is cuda.CudaAPIError and e.code == 1 and "CUDA_ERROR_INVALID_VALUE" in str(e), e

        core = types.ModuleType("cuda.core._utils.cuda_utils")
        exec(%r, core.__dict__)
        sys.modules["cuda.core._utils.cuda_utils"] = core
        # blocks too large for the kernel: refused before the launch, as the launch would
        e = launch_error(lambda: kern[1, 2048](keep, 3))
        assert isinstance(e, core.CUDAError) and isinstance(e, cuda.CudaAPIError), type(e).__mro__
        assert e.code == 1 and "CUDA_ERROR_INVALID_VALUE" in str(e), e
        # the driver refusing the launch
        mock.fail("cuLaunchKernel", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")
        e = launch_error(lambda: kern[1, 1](keep, 3))
        mock.clear("cuLaunchKernel")
        assert isinstance(e, core.CUDAError) and e.code == CU["CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"], e
        assert "cuLaunchKernel" in e.msg, e.msg
        # other driver errors stay ours alone (numba raises its own CudaAPIError there)
        mock.fail("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY")
        e = launch_error(lambda: cuda.device_array(100))
        mock.clear("cuMemAlloc")
        assert type(e) is cuda.CudaAPIError, type(e)
        kern[1, 1](keep, 3)
        cuda.synchronize()
        print("ok")
    """
        % STAND_IN
    )
