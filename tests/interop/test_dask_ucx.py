"""Dask over UCX (`ucx://`): our arrays travel in distributed's `cuda` serializer family, their device memory the
frame (numba_cuda_c/dask/serializers.py: serialize_on_device), neither through the host nor through our CUDA
IPC path, which serves the `dask` family over TCP. Runs where UCX for distributed is importable (distributed-ucxx,
or ucx-py for older distributed, and RMM) with a GPU and dask-cuda; skipped with the reason otherwise. Passed on two
H100s with distributed-ucxx 0.52, and on one H200 (two worker processes) with distributed-ucxx 0.52, ucxx 0.52, libucx
1.21 and RMM 26.10: .ci/gpu-check's dask step installs them from .ucx-site or .whl-ucx."""

import importlib.util

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

pytestmark = [requires_gpu, pytest.mark.timeout(600)]

distributed = pytest.importorskip("distributed")
dask_cuda = pytest.importorskip("dask_cuda", reason="dask-cuda is not installed (pip install -e '.[dask]')")
if not any(importlib.util.find_spec(name) is not None for name in ("distributed_ucxx", "ucp")):
    pytest.skip(
        "UCX for distributed is not installed (distributed-ucxx, or ucx-py): ucx:// cannot be tested here",
        allow_module_level=True,
    )
if importlib.util.find_spec("rmm") is None:
    pytest.skip(
        "rmm is not installed: distributed-ucxx receives device frames into RMM buffers, and fails without it",
        allow_module_level=True,
    )

import dask_ipc_scenarios  # noqa: E402  (importable by the workers: pickled by reference)

N = 1 << 20


def test_arrays_between_workers_over_ucx_travel_as_device_memory():
    if len(cuda.gpus) >= 2:
        cluster = dask_cuda.LocalCUDACluster(n_workers=2, protocol="ucx", dashboard_address=None)
    else:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, protocol="ucx", dashboard_address=None
        )
    with cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=120)
        first, second = sorted(client.scheduler_info()["workers"])
        made = client.submit(dask_ipc_scenarios.make, N, workers=[first], allow_other_workers=False, pure=False)
        used = client.submit(dask_ipc_scenarios.checksum, made, workers=[second], allow_other_workers=False)
        total, shape, strides = used.result(timeout=120)
        seen = client.run(dask_ipc_scenarios.counters)
    assert (total, shape, tuple(strides)) == dask_ipc_scenarios.expected_checksum(N)
    # the `cuda` family carried it: our `dask` family (host frames or an IPC handle) never ran
    sent = {name: sum(found[0][name] for found in seen.values()) for name in ("ipc sent", "host sent")}
    assert sent == {"ipc sent": 0, "host sent": 0}, seen
