"""numba's warnings, as numba gives them: NumbaInvalidConfigWarning for debug=True with opt=True (or with
lineinfo), NumbaPerformanceWarning for a grid of under 128 blocks and for a launch that copies a host array;
the settings under numba's names (numba_cuda_c.config, numba's environment variables, numba's own config
module where it is loaded); numba's classes caught where numba's errors module is loaded."""

import sys
import types as pytypes
import warnings

import pytest

import numba_cuda_c as cuda
from numba_cuda_c import config, errors
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)


def _caught(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()
    return [(w.category, str(w.message), w.filename) for w in caught]


def _kernel():
    pass


@pytest.fixture(autouse=True)
def without_numba_loaded(monkeypatch):
    """numba's config and errors modules unloaded for each test (they win where loaded): a test adds its own."""
    for name in ("numba.cuda.core.config", "numba.core.config", "numba.cuda.core.errors", "numba.core.errors"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_debug_with_opt_warns_as_numba():
    caught = _caught(lambda: cuda.jit(debug=True)(_kernel))
    assert len(caught) == 1 and issubclass(caught[0][0], errors.NumbaInvalidConfigWarning)
    assert "debug=True with opt=True is not supported by CUDA" in caught[0][1] and caught[0][2] == __file__
    assert _caught(lambda: cuda.jit(debug=True, opt=False)(_kernel)) == []
    assert _caught(lambda: cuda.jit(_kernel)) == []
    caught = _caught(lambda: cuda.jit(debug=True, opt=False, lineinfo=True)(_kernel))
    assert len(caught) == 1 and "debug and lineinfo are mutually exclusive" in caught[0][1]


def test_defaults_follow_the_settings(monkeypatch):
    monkeypatch.setattr(config, "CUDA_DEBUGINFO_DEFAULT", 1)
    caught = _caught(lambda: cuda.jit(_kernel))
    assert len(caught) == 1 and "debug=True with opt=True" in caught[0][1]
    monkeypatch.setattr(config, "OPT", 0)
    assert _caught(lambda: cuda.jit(_kernel)) == []  # debug on, opt off: nothing to warn about
    assert cuda.jit(_kernel).options.get("opt") is False


def test_no_occupancy_warning_where_there_is_no_driver(monkeypatch):
    # the launch raises CudaSupportError: a performance warning before it would only mislead
    monkeypatch.setattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS", 1)
    monkeypatch.setattr(cuda._cuda, "_driver_error", lambda: "no driver")
    assert _caught(lambda: errors.warn_low_occupancy((1, 1, 1), 2)) == []
    monkeypatch.setattr(cuda._cuda, "_driver_error", lambda: None)
    assert len(_caught(lambda: errors.warn_low_occupancy((1, 1, 1), 2))) == 1


def test_numbas_loaded_config_and_warning_classes_win(monkeypatch):
    monkeypatch.setattr(cuda._cuda, "_driver_error", lambda: None)  # as with a driver

    class NumbaPerformanceWarning(Warning):  # stands in for numba's own class
        pass

    monkeypatch.setitem(
        sys.modules, "numba.core.errors", pytypes.SimpleNamespace(NumbaPerformanceWarning=NumbaPerformanceWarning)
    )
    monkeypatch.setitem(sys.modules, "numba.core.config", pytypes.SimpleNamespace(CUDA_LOW_OCCUPANCY_WARNINGS=1))
    caught = _caught(lambda: errors.warn_low_occupancy((1, 1, 1), 2))
    assert len(caught) == 1 and issubclass(caught[0][0], NumbaPerformanceWarning)
    assert issubclass(caught[0][0], errors.NumbaPerformanceWarning) and "Grid size 1 will likely" in caught[0][1]
    sys.modules["numba.core.config"].CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert _caught(lambda: errors.warn_low_occupancy((1, 1, 1), 2)) == []


def test_environment_variables_are_numbas():
    out = run_mock(
        """
        from numba_cuda_c import config
        print(config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY, config.OPT)
    """,
        NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0",
        NUMBA_OPT="max",
    )
    assert out.split() == ["0", "1", "3"]


@pytest.mark.usefixtures("mock_driver")
def test_small_grids_and_host_arrays_warn_at_each_launch():
    out = run_mock("""
        import warnings

        @cuda.jit
        def k(a):
            a[0] = 1

        host, device = np.zeros(4, np.float32), cuda.device_array(4, np.float32)
        mapped = cuda.mapped_array(4, np.float32)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            k[1, 1](device)
            k[1, 1](device)  # the same configuration again: numba warns each time
            k[128, 1](host)
            k[128, 1](mapped)
            k[128, 1](device)
            k[128, 1](cuda.pinned_array(4, np.float32))
        for w in caught:
            print(w.category.__name__, w.filename == "<string>", str(w.message))
    """)
    lines = out.strip().splitlines()
    assert lines == [
        "NumbaPerformanceWarning True Grid size 1 will likely result in GPU under-utilization due to low occupancy.",
        "NumbaPerformanceWarning True Grid size 1 will likely result in GPU under-utilization due to low occupancy.",
        "NumbaPerformanceWarning True Host array used in CUDA kernel will incur copy overhead to/from device.",
        "NumbaPerformanceWarning True Host array used in CUDA kernel will incur copy overhead to/from device.",
    ], out


@pytest.mark.usefixtures("mock_driver")
def test_a_child_forked_after_cuda_started_gets_numbas_error():
    out = run_mock("""
        import os
        cuda.current_context()
        pid = os.fork()
        if pid == 0:  # after fork the driver refuses every call (the mock is told to)
            mock.fail("cuMemAlloc", "CUDA_ERROR_NOT_INITIALIZED", always=True)
            try:
                cuda.device_array(1 << 20)
            except Exception as e:
                os.write(1, ("child: %s %s\\n" % (type(e).__name__, e)).encode())
            os._exit(0)
        os.waitpid(pid, 0)
        print("parent:", cuda.device_array(4).shape)
    """)
    assert "child: CudaDriverError CUDA initialized before forking" in out and "parent: (4,)" in out
