"""Device management: the seed's "Device detection and enquiry" and "Device management"."""

import re
import threading

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from subproc import run_python

pytestmark = requires_gpu


def test_is_available_and_detect(capsys):
    assert cuda.is_available() is True
    assert cuda.detect() is True
    out = capsys.readouterr().out
    assert re.search(r"Found \d+ CUDA devices", out)
    assert "Compute Capability" in out and "UUID: GPU-" in out
    assert re.search(r"\d+/\d+ devices are supported", out)


def test_device_identity():
    devices = cuda.list_devices()
    assert len(devices) >= 1
    dev = devices[0]
    assert dev.id == 0
    assert isinstance(dev.name, str) and dev.name
    major, minor = dev.compute_capability
    assert major >= 3 and minor >= 0
    assert re.fullmatch(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", dev.uuid)
    assert repr(dev) == "<CUDA device 0 '%s'>" % dev.name
    identity = dev.get_device_identity()
    assert identity["pci_bus_id"] == dev.PCI_BUS_ID
    assert set(identity) == {"pci_domain_id", "pci_bus_id", "pci_device_id"}
    assert dev.supports_float16 is (dev.compute_capability >= (5, 3))


def test_device_attributes_by_name():
    dev = cuda.get_current_device()
    assert dev.MAX_THREADS_PER_BLOCK == 1024
    assert dev.WARP_SIZE == 32
    assert dev.MULTIPROCESSOR_COUNT > 0
    assert dev.MAX_BLOCK_DIM_X == 1024
    assert (dev.COMPUTE_CAPABILITY_MAJOR, dev.COMPUTE_CAPABILITY_MINOR) == dev.compute_capability
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK >= 48 * 1024
    assert "WARP_SIZE" in dir(dev)
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE


def test_gpus_list():
    assert len(cuda.gpus) == len(cuda.list_devices())
    assert [g.id for g in cuda.gpus] == list(range(len(cuda.gpus)))
    assert str(cuda.gpus[0]) == "<Managed Device 0>"
    assert cuda.gpus[0].compute_capability == cuda.list_devices()[0].compute_capability
    with pytest.raises(IndexError):
        cuda.gpus[len(cuda.gpus)]


def test_select_device_and_current():
    dev = cuda.select_device(0)
    assert dev is cuda.list_devices()[0]
    assert cuda.get_current_device() is dev
    assert cuda.gpus.current.id == 0
    cuda.current_context().pop()  # select_device pushed it
    with pytest.raises(IndexError):
        cuda.select_device(len(cuda.gpus))


def test_with_gpus_nesting_restores():
    def run():
        assert cuda.gpus.current is None  # a new thread starts with no context
        with cuda.gpus[0]:
            assert cuda.gpus.current.id == 0
            with cuda.gpus[0]:
                assert cuda.get_current_device().id == 0
            assert cuda.gpus.current.id == 0
        assert cuda.gpus.current is None
        results.append(True)

    results = []
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert results == [True]


def test_contexts_across_threads():
    main = cuda.current_context()
    seen = []

    def run():
        seen.append(cuda.gpus.current)
        seen.append(cuda.current_context())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen[0] is None
    assert seen[1] is main  # the same primary context
    assert seen[1].handle == main.handle


def test_require_context_in_new_thread():
    @cuda.require_context
    def current_handle():
        return cuda.gpus.current

    results = []
    thread = threading.Thread(target=lambda: results.append(current_handle()))
    thread.start()
    thread.join()
    assert results[0] is not None and results[0].id == 0


def test_device_reset_then_reuse():
    # in a fresh interpreter: a reset destroys what every library made in the primary context
    out = run_python(
        """
        import pytest
        import numba_cuda_c as cuda
        dev = cuda.get_current_device()
        old_context = cuda.current_context()
        old_stream = cuda.stream()
        old_event = cuda.event()
        dev.reset()
        for call in (old_context.get_memory_info, old_stream.synchronize, old_event.record):
            with pytest.raises(cuda.CudaDriverError, match="reset"):
                call()
        del old_stream, old_event  # must not destroy what the reset destroyed
        context = cuda.current_context()
        assert context is not old_context
        free, total = context.get_memory_info()
        assert 0 < free <= total
        cuda.stream().synchronize()
        cuda.event().record()
        print("reset ok")
        """
    )
    assert "reset ok" in out


def test_close_then_reuse():
    out = run_python(
        """
        import numba_cuda_c as cuda
        cuda.current_context()
        cuda.close()
        assert cuda.gpus.current is None
        context = cuda.current_context()
        assert context.get_memory_info().total > 0
        print("close ok")
        """
    )
    assert "close ok" in out
