"""Dask on GPUs, numba_cuda_c beside numba-cuda in one run (dask-cuda's LocalCUDACluster, one worker per GPU):

    python3 benchmarks/bench_dask.py [--tasks 400] [--libs ours,numba] [--rounds 200] [--scaling-rounds 200000]

  - small GPU tasks through client.map (benchmarks/dask_work.py: copy in, a kernel, one number back; --rounds
    sets the kernel's work) on 1 and on 2 workers: tasks per second (the median of 3 maps; on 1 worker, of 6 in
    two clusters, the libraries' in turn), and the scaling from 1 to 2 workers (goal >= 1.9x). Tasks this light
    run two workers near the scheduler's ceiling (the line under the table), which then bounds their scaling: the
    scaling is also measured with tasks whose kernel runs about 16 ms (--scaling-rounds, --scaling-tasks 100),
    far below it;
  - a 256 MiB and an 8 MiB device array (bandwidth, latency) made on worker 0 and used by a task pinned to
    worker 1, the size over two times (median of 7, after one transfer not timed): "transfer", the time
    distributed's own transfer log gives it on worker 1 (from its request to worker 0 until it holds the array:
    the messages, the serialization and deserialization, our IPC or the host frames); "task's wait", from
    submitting the task to its result (the transfer and all of Dask's scheduling around it).
    Ours go device to device through CUDA IPC (the workers share a host: numba_cuda_c/dask/ipc.py); the line
    under the table says which path they took (NUMBA_CUDA_C_DASK_IPC=0 measures the host path). The same two
    rows over UCX (`ucx://`, distributed's `cuda` serializer family) where distributed-ucxx and RMM import, else
    a line saying why not;
  - under the table, what Dask itself costs: the same transfer steps for an 8-byte NumPy array (the floor under
    every row: its messages between client, scheduler and workers; and of the transfer rows), and the tasks/s of
    a task that does nothing on 2 workers (the scheduler's ceiling, which the 2-worker rows must stay under to
    measure scaling).
The 2-worker rows need two GPUs; where the machine has one, the transfer row runs between two worker processes
that share it (distributed's LocalCluster: the same serialization across processes, not across devices) and
says so, and the 2-worker scaling row is left out, named. Ratio above 1: ours is faster.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dask_work  # noqa: E402  (beside this file)

MIB = 1 << 20
TRANSFERS = (256 * MIB, 8 * MIB)


def gpu_count():
    import numba_cuda_c as cuda

    return len(cuda.gpus) if cuda.is_available() else 0


def cluster(lib, workers, gpus, protocol="tcp"):
    import distributed

    os.environ["BENCH_DASK_LIB"] = lib  # the spawned workers inherit it: dask_work imports that library
    if workers <= gpus:
        import dask_cuda

        return dask_cuda.LocalCUDACluster(n_workers=workers, protocol=protocol, dashboard_address=None)
    return distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, protocol=protocol, dashboard_address=None
    )


def ucx_missing():
    """Why the UCX rows cannot run here, or None (tests/interop/test_dask_ucx.py needs the same)."""
    import importlib.util

    if not any(importlib.util.find_spec(name) is not None for name in ("distributed_ucxx", "ucp")):
        return "UCX for distributed is not installed (distributed-ucxx, or ucx-py)"
    if importlib.util.find_spec("rmm") is None:
        return "rmm is not installed (distributed-ucxx receives device frames into RMM buffers)"
    return None


def ucx_transfer_rows(lib, gpus):
    """The transfer rows between two workers over `ucx://`: device arrays go in distributed's `cuda` serializer
    family there, their device memory the frame (no IPC of ours, no host copy)."""
    import distributed

    rows = {}
    with cluster(lib, 2, gpus, protocol="ucx") as two, distributed.Client(two) as client:
        client.wait_for_workers(2, timeout=120)
        for nbytes in TRANSFERS:
            for name, value in transfer_rows(client, nbytes).items():
                rows[name.replace(", ", " over UCX, ", 1)] = value
    return rows


def tasks_per_second(client, tasks, rounds):
    client.gather(
        client.map(
            dask_work.small_gpu_task, range(8 * len(client.scheduler_info()["workers"])), pure=False, rounds=rounds
        )
    )  # compiled and warm on every worker
    rates = []
    for _ in range(3):
        started = time.perf_counter()
        client.gather(client.map(dask_work.small_gpu_task, range(tasks), pure=False, rounds=rounds))
        rates.append(tasks / (time.perf_counter() - started))
    return rates


def _incoming_transfers(dask_worker):
    """{key: seconds} of the worker's fetches from other workers, as distributed's transfer log has them."""
    return {key: log["duration"] for log in dask_worker.transfer_incoming_log for key in log["keys"]}


def _moved_seconds(client, make, use, argument, attempts=8):
    """What `make(argument)` made on worker 0 costs a task `use` pinned to worker 1, median seconds (the first
    attempt, with the connection's first-use costs, not timed): (the wait, from submitting `use` to its result;
    the transfer, as worker 1's transfer log has it: its request to worker 0 until it holds the array, the
    serialization and deserialization included)."""
    import distributed

    first, second = sorted(client.scheduler_info()["workers"])
    waits, keys = [], []
    for attempt in range(attempts):
        made = client.submit(make, argument, workers=[first], allow_other_workers=False, pure=False)
        distributed.wait(made)
        started = time.perf_counter()
        used = client.submit(use, made, workers=[second], allow_other_workers=False, pure=False)
        assert used.result() == 1.0 or use is dask_work.use_host
        if attempt:
            waits.append(time.perf_counter() - started)
            keys.append(made.key)
        del made, used
    logged = client.run(_incoming_transfers, workers=[second])[second]
    return statistics.median(waits), statistics.median(logged[key] for key in keys)


def transfer_rows(client, nbytes):
    wait, transfer = _moved_seconds(client, dask_work.make_array, dask_work.first_element, nbytes)
    name = "%d MiB worker 0 -> worker 1" % (nbytes // MIB)
    return {name + ", transfer (GB/s)": nbytes / transfer / 1e9, name + ", task's wait (GB/s)": nbytes / wait / 1e9}


def dask_floor_ms(client):
    """The same steps for an 8-byte NumPy array: what Dask's own messages take, whatever the array (the wait; the
    transfer log's part of it)."""
    wait, transfer = _moved_seconds(client, dask_work.host_scalar, dask_work.use_host, 0)
    return wait * 1e3, transfer * 1e3


def empty_tasks_per_second(client, tasks):
    client.gather(client.map(dask_work.nothing, range(tasks), pure=False))
    started = time.perf_counter()
    client.gather(client.map(dask_work.nothing, range(tasks), pure=False))
    return tasks / (time.perf_counter() - started)


def transfer_paths(client):
    """How our arrays travelled between the workers: ({"CUDA IPC": n, "staged": n of them through a slab, "host
    frames": n} sent, all workers; GB/s of the IPC transfers themselves: bytes received over the receivers' time
    from claim to release)."""

    def sent():
        from numba_cuda_c.dask import ipc as dask_ipc

        c = dask_ipc.counters
        return c["ipc sent"], c["ipc staged"], c["host sent"], c["ipc bytes received"], c["ipc receive seconds"]

    counts = list(client.run(sent).values())
    seconds = sum(c[4] for c in counts)
    own = sum(c[3] for c in counts) / seconds / 1e9 if seconds else None
    paths = {"CUDA IPC": sum(c[0] for c in counts), "staged": sum(c[1] for c in counts)}
    return dict(paths, **{"host frames": sum(c[2] for c in counts)}), own


def one_worker_rates(lib, gpus, weights):
    """{rounds: [tasks/s of 3 maps]} on one worker, for each task weight ({rounds: tasks per map})."""
    import distributed

    with cluster(lib, 1, gpus) as one, distributed.Client(one) as client:
        return {rounds: tasks_per_second(client, tasks, rounds) for rounds, tasks in weights.items()}


def measure(lib, tasks, gpus, weights, one_worker):
    import distributed

    light, heavy = list(weights)
    found = {"tasks/s, 1 worker": one_worker[light]}
    with cluster(lib, 2, gpus) as two, distributed.Client(two) as client:
        client.wait_for_workers(2)
        if gpus >= 2:
            rate = {rounds: statistics.median(tasks_per_second(client, n, rounds)) for rounds, n in weights.items()}
            found["tasks/s, 2 workers"] = rate[light]
            found["scaling, 1 -> 2 workers (x)"] = rate[light] / one_worker[light]
            found["tasks/s, 1 worker, %d-round kernels" % heavy] = one_worker[heavy]
            found["scaling 1 -> 2, %d-round kernels (x)" % heavy] = rate[heavy] / one_worker[heavy]
        for nbytes in TRANSFERS:
            found.update(transfer_rows(client, nbytes))
        if lib == "ours":
            found["paths"] = transfer_paths(client)
            found["floor"] = dask_floor_ms(client) + (empty_tasks_per_second(client, tasks),)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--libs", default="ours,numba")
    parser.add_argument(
        "--rounds",
        type=int,
        default=dask_work.ROUNDS,
        help="the task kernel's loop: 200 a few us, 20000 about 1.6 ms",
    )
    parser.add_argument(
        "--scaling-rounds",
        type=int,
        default=200000,
        help="the heavier tasks' loop (its kernel about 16 ms on an H100), for a scaling that the scheduler's "
        "ceiling does not bound",
    )
    parser.add_argument("--scaling-tasks", type=int, default=100, help="the heavier tasks per map")
    options = parser.parse_args()
    try:
        import dask_cuda
        import distributed
    except ImportError as exc:
        print("bench_dask: skipped, %s (pip install -e '.[dask]')" % exc)
        return
    del dask_cuda, distributed  # imported where used; here only to say what is missing
    gpus = gpu_count()
    if gpus == 0:
        print("bench_dask: skipped, no GPU")
        return
    libs = options.libs.split(",")
    weights = {options.rounds: options.tasks, options.scaling_rounds: options.scaling_tasks}
    rates = {lib: {rounds: [] for rounds in weights} for lib in libs}
    for _ in range(
        2
    ):  # the libraries' one-worker clusters in turn: a cluster's rate moves by 10-15% from one start
        for lib in libs:  # to the next, whichever library it runs
            for rounds, found in one_worker_rates(lib, gpus, weights).items():
                rates[lib][rounds] += found
    results = {
        lib: measure(lib, options.tasks, gpus, weights, {w: statistics.median(r) for w, r in rates[lib].items()})
        for lib in libs
    }
    no_ucx = ucx_missing()
    if no_ucx is None:
        for lib in libs:
            results[lib].update(ucx_transfer_rows(lib, gpus))
    paths = results.get("ours", {}).pop("paths", None)
    floor = results.get("ours", {}).pop("floor", None)
    rows = list(results[libs[0]])
    print(
        "Dask, %d task(s) per map (kernel loop of %d rounds), %d GPU(s)%s"
        % (
            options.tasks,
            options.rounds,
            gpus,
            ""
            if gpus >= 2
            else ": transfer between two worker processes on the one GPU; 2-worker scaling needs two GPUs (not run)",
        )
    )
    print(
        "| %-48s | %s | ours / theirs (above 1: ours better) |" % ("row", " | ".join("%12s" % lib for lib in libs))
    )
    print("| %s | %s | --- |" % ("-" * 48, " | ".join("-" * 12 for _ in libs)))
    for row in rows:
        values = [results[lib].get(row) for lib in libs]
        ratio = "%.2fx" % (values[0] / values[1]) if len(values) > 1 and values[1] else "—"
        print("| %-48s | %s | %s |" % (row, " | ".join("%12.2f" % v for v in values), ratio))
    if paths is not None:
        paths, own = paths
        print(
            "ours, arrays sent between the workers: %d by CUDA IPC (%d of them staged in a slab), %d as host frames"
            % tuple(paths.values())
        )
        if own is not None:
            print(
                "ours, the IPC transfers themselves (claim, open, copy, close, release; all sizes): %.1f GB/s" % own
            )
    if no_ucx is not None:
        print("UCX rows: not run, %s" % no_ucx)
    if floor is not None:
        print(
            "Dask itself: %.1f ms for the same steps with an 8-byte NumPy array (a task's wait, whatever the array), "
            "of which %.1f ms its transfer; %.0f tasks/s of a task that does nothing, on 2 workers (the scheduler's "
            "ceiling)" % floor
        )


if __name__ == "__main__":
    main()
