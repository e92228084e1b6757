"""Dask on GPUs (issue: kernels, launch configurations and device arrays that travel between processes): the six
steps a numba user takes with dask-cuda's LocalCUDACluster (one worker process per GPU). Needs a GPU, dask-cuda
and distributed (`pip install -e ".[dask]"`); skipped with the reason otherwise. Where the machine has one GPU,
the step that moves an array between workers runs on two worker processes sharing it (distributed's LocalCluster):
the same serialization across processes and contexts, not across devices. The `test_ipc_` tests: arrays between
processes of this host through CUDA IPC (numba_cuda_c/dask/ipc.py), peer to peer where there are two GPUs."""

import contextlib
import pickle
import time

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu
from numba_cuda_c.dask import ipc as dask_ipc

pytestmark = [requires_gpu, pytest.mark.timeout(600)]

distributed = pytest.importorskip("distributed")
dask_cuda = pytest.importorskip("dask_cuda", reason="dask-cuda is not installed (pip install -e '.[dask]')")

import dask_ipc_scenarios  # noqa: E402  (importable by the workers: pickled by reference)
import dask_kernels  # noqa: E402
from dask_ipc_scenarios import Sender  # noqa: E402

N = 1 << 15
WAIT = 120  # seconds: a failure must come back as an exception well before this


@pytest.fixture(scope="module")
def client():
    with dask_cuda.LocalCUDACluster(protocol="tcp", dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


def two_workers():
    """A client of two workers on two GPUs where there are two; else of two worker processes on the one GPU."""
    if len(cuda.gpus) >= 2:
        cluster = dask_cuda.LocalCUDACluster(n_workers=2, protocol="tcp", dashboard_address=None)
    else:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
    with cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=WAIT)
        yield client


two_worker_client = pytest.fixture(scope="module", name="two_worker_client")(two_workers)


def test_step1_a_launch_configuration_is_a_task(client):
    array = client.submit(dask_kernels.make, N)
    done = client.submit(dask_kernels.add_one[(N + 31) // 32, 32], array)  # the tutorial's pattern
    assert done.result(timeout=WAIT) is None
    np.testing.assert_array_equal(
        client.submit(dask_kernels.to_host, array, pure=False).result(timeout=WAIT), np.arange(N) + 1.0
    )


def test_step2_every_worker_imports_copies_launches_and_copies_back(client):
    sums = client.run(dask_kernels.import_copy_launch_copy_back, N)
    assert sums and all(s == N * (N - 1) / 2 + N for s in sums.values())


def test_step3_device_arrays_pickle():
    d = cuda.to_device(np.arange(12.0).reshape(3, 4))[:, ::-1]
    clone = pickle.loads(pickle.dumps(d))
    assert (clone.shape, clone.strides, clone.dtype) == (d.shape, d.strides, d.dtype)
    np.testing.assert_array_equal(clone.copy_to_host(), d.copy_to_host())


def test_step4_an_array_returned_by_a_task_feeds_the_next_on_the_same_worker(client):
    array = client.submit(dask_kernels.make, N)
    pointer = client.submit(dask_kernels.pointer_of, array).result(timeout=WAIT)
    bumped = client.submit(dask_kernels.plus_one_on_device, array)
    assert client.submit(dask_kernels.pointer_of, bumped).result(timeout=WAIT) == pointer  # never copied
    np.testing.assert_array_equal(
        client.submit(dask_kernels.to_host, bumped).result(timeout=WAIT), np.arange(N) + 1.0
    )


def test_step5_an_array_made_on_one_worker_is_used_on_another(two_worker_client):
    first, second = sorted(two_worker_client.scheduler_info()["workers"])
    array = two_worker_client.submit(dask_kernels.make, N, workers=[first], allow_other_workers=False)
    bumped = two_worker_client.submit(
        dask_kernels.plus_one_on_device, array, workers=[second], allow_other_workers=False
    )
    host = two_worker_client.submit(dask_kernels.to_host, bumped, workers=[second], allow_other_workers=False)
    np.testing.assert_array_equal(host.result(timeout=WAIT), np.arange(N) + 1.0)
    # and back to the client: a device array arrives in this process's context
    np.testing.assert_array_equal(bumped.result(timeout=WAIT).copy_to_host(), np.arange(N) + 1.0)


def test_step6_a_kernel_defined_in_a_function_travels_by_value(client):
    scale = 3.0

    @cuda.jit
    def scaled(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= scale

    pickle.loads(pickle.dumps(scaled))  # the sixth step, here
    array = client.submit(dask_kernels.make, N)
    client.submit(scaled[(N + 255) // 256, 256], array).result(timeout=WAIT)
    np.testing.assert_array_equal(
        client.submit(dask_kernels.to_host, array, pure=False).result(timeout=WAIT), np.arange(N) * 3.0
    )


def test_what_cannot_travel_is_an_exception_on_the_future(client):
    future = client.submit(dask_kernels.stream_bound_configuration)
    with pytest.raises(Exception, match="bound to a stream cannot be pickled"):
        future.result(timeout=WAIT)


def test_each_worker_uses_the_gpu_it_is_given(client):
    for visible, uuid in client.run(dask_kernels.my_device).values():
        assert visible is not None
        assert uuid == cuda.gpus[int(visible.split(",")[0])].uuid


def test_the_readme_example_runs(tmp_path):
    """README.rst's "Scaling out with Dask" example, as a script of its own."""
    import os
    import re
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    readme = open(os.path.join(root, "README.rst")).read()
    block = re.search(r"\.\. dask-example\n\n\.\. code-block:: python\n\n((?:   .*\n|\n)+)", readme).group(1)
    script = tmp_path / "dask_example.py"
    script.write_text("\n".join(line[3:] for line in block.splitlines()))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "1048576.0", done.stdout


# CUDA IPC between processes of this host (numba_cuda_c/dask/ipc.py): with two GPUs the sender's array is on
# device 1 and the receiver copies it peer to peer into device 0; with one, both processes use it (IPC on one device)


def _sender_device():
    return 1 if len(cuda.gpus) >= 2 else 0


def test_ipc_a_dropped_array_arrives_whole_on_the_receivers_device():
    sender = Sender(device=_sender_device())
    try:
        assert sender.counters["ipc sent"] == 1 and sender.ask("holds") == "1"
        assert sender.ask("drop") == "dropped"  # the sender's worker released the key: only the hold keeps it
        before = dict(dask_ipc.counters)
        received = sender.receive()
        np.testing.assert_array_equal(received.copy_to_host(), sender.expected)
        assert received.strides == (-1600, 16)
        assert dask_ipc_scenarios.device_of(received)[0] == cuda.get_current_device().id  # a copy of our own
        assert dask_ipc.counters["ipc received"] == before["ipc received"] + 1
        assert sender.ask("holds") == "0"  # released after the copy
    finally:
        sender.end()


@pytest.mark.parametrize("how", ["exits", "is killed"])
def test_ipc_a_sender_that_is_gone_is_a_clear_error(how):
    sender = Sender(device=_sender_device())
    sender.end() if how == "exits" else sender.kill()
    with pytest.raises(dask_ipc.IpcTransferError, match="is gone .* nothing was read"):
        sender.receive()
    assert cuda.to_device(np.arange(3.0)).copy_to_host().sum() == 3.0  # this context is unharmed


def test_ipc_an_expired_hold_is_a_clear_error():
    sender = Sender(device=_sender_device(), hold_s=0.2)
    try:
        time.sleep(1.5)  # the sender's server drops expired holds each second
        with pytest.raises(dask_ipc.IpcTransferError, match="no longer holds"):
            sender.receive()
    finally:
        sender.end()


def _transfer(client, first, second, n):
    """An array made on `first` and used on `second`: what `second` computed, and where its copy is."""
    made = client.submit(dask_ipc_scenarios.make, n, workers=[first], allow_other_workers=False, pure=False)
    used = client.submit(dask_ipc_scenarios.checksum, made, workers=[second], allow_other_workers=False, pure=False)
    where = client.submit(
        dask_ipc_scenarios.device_of, made, workers=[second], allow_other_workers=False, pure=False
    )
    total, shape, strides = used.result(timeout=WAIT)
    assert (total, shape, tuple(strides)) == dask_ipc_scenarios.expected_checksum(n)
    return where.result(timeout=WAIT)


def test_ipc_arrays_between_workers_of_this_host_go_device_to_device(two_worker_client):
    first, second = sorted(two_worker_client.scheduler_info()["workers"])
    _transfer(two_worker_client, first, second, N)  # a connection made before numba_cuda_c was imported: bytes
    before = two_worker_client.run(dask_ipc_scenarios.counters)
    ordinal, current = _transfer(two_worker_client, first, second, 1 << 22)  # 32 MiB, strided
    after = two_worker_client.run(dask_ipc_scenarios.counters)
    assert after[first][0]["ipc sent"] == before[first][0]["ipc sent"] + 1, (before, after)
    assert after[first][0]["host sent"] == before[first][0]["host sent"], (before, after)
    assert after[second][0]["ipc received"] == before[second][0]["ipc received"] + 1, (before, after)
    assert ordinal == current  # on the receiving worker's own GPU
    assert after[first][1] == 0  # the sender holds nothing once the copy is done


def test_ipc_off_arrays_between_workers_go_as_bytes(monkeypatch):
    monkeypatch.setenv("NUMBA_CUDA_C_DASK_IPC", "0")  # the workers start with it
    with contextlib.contextmanager(two_workers)() as client:
        first, second = sorted(client.scheduler_info()["workers"])
        for _ in range(2):
            _transfer(client, first, second, N)
        seen = client.run(dask_ipc_scenarios.counters)
    assert seen[first][0]["ipc sent"] == 0 and seen[first][0]["host sent"] >= 2, seen
    assert seen[second][0]["ipc received"] == 0 and seen[second][0]["host received"] >= 2, seen
