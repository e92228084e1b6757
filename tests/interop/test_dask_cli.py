"""A Dask cluster started from the command line, as on several machines (README.rst's "Dask on several machines"):
`dask scheduler` and two `dask cuda worker` commands (each starts a worker process per GPU), TCP between them,
all on this machine. README's example runs through them with the scheduler's address
in DASK_SCHEDULER_ADDRESS, and the array it moves from the first worker to the last takes the device-to-device path
(CUDA IPC: the workers share a host); with NUMBA_CUDA_C_DASK_IPC=0 in the workers' environment, the host path.
Each worker sees every GPU, its own first, as `dask cuda worker` arranges for the workers it starts (a process
opens CUDA IPC handles only of devices it sees: a worker limited to one GPU gets its neighbours' arrays as bytes).
Needs a GPU, distributed and dask-cuda; skipped with the reason otherwise."""

import os
import re
import subprocess
import sys
import time

import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu

pytestmark = [requires_gpu, pytest.mark.timeout(600)]

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask_cuda", reason="dask-cuda is not installed (pip install -e '.[dask]')")

import dask_ipc_scenarios  # noqa: E402  (importable by the workers: their PYTHONPATH is this process's sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START_S = 120  # a worker process imports dask-cuda, starts a CUDA context and registers: seconds


def readme_cluster_example():
    readme = open(os.path.join(ROOT, "README.rst"), encoding="utf8").read()
    block = re.search(r"\.\. dask-cluster-example\n\n\.\. code-block:: python\n\n((?:   .*\n|\n)+)", readme)
    return "\n".join(line[3:] for line in block.group(1).splitlines()) + "\n"


def _environment(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # numba_cuda_c and the scenarios, as here
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    env.update(extra)
    return env


class CommandLineCluster:
    """`python -m dask scheduler` and two `python -m dask cuda worker --pre-import numba_cuda_c` processes."""

    def __init__(self, tmp_path, **worker_env):
        self.processes = []
        scheduler_file = str(tmp_path / "scheduler.json")
        self._start(
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                scheduler_file,
            ],
            _environment(),
            tmp_path / "scheduler.log",
        )
        for i in range(2):
            # `dask cuda worker` starts a worker process per GPU it sees, each seeing every one, its own first (a
            # process opens CUDA IPC handles only of devices it sees): 2 x the GPUs here, in two commands
            self._start(
                ["cuda", "worker", "--scheduler-file", scheduler_file, "--pre-import", "numba_cuda_c"]
                + ["--no-dashboard", "--nthreads", "1", "--name", "command-%d" % i, "--death-timeout", "60"],
                _environment(**worker_env),
                tmp_path / ("worker-%d.log" % i),
            )
        self.logs = tmp_path
        self.client = None
        try:
            deadline = time.monotonic() + START_S
            while not os.path.exists(scheduler_file) and time.monotonic() < deadline:
                self._check_alive()
                time.sleep(0.2)
            self.client = distributed.Client(scheduler_file=scheduler_file, timeout=START_S)
            self.client.wait_for_workers(2 * len(cuda.gpus), timeout=START_S)
        except BaseException:
            self.close()  # no process outlives a cluster that did not start
            raise
        self.address = self.client.scheduler.address

    def _start(self, arguments, env, log):
        with open(log, "w") as out:
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "dask"] + arguments, env=env, stdout=out, stderr=subprocess.STDOUT
                )
            )

    def _check_alive(self):
        for process in self.processes:
            if process.poll() is not None:
                raise AssertionError("%s exited with %s:\n%s" % (process.args, process.returncode, self.log_text()))

    def log_text(self):
        return "\n".join(
            "--- %s\n%s" % (name, (self.logs / name).read_text()[-3000:]) for name in sorted(os.listdir(self.logs))
        )

    def run_readme_example(self, tmp_path):
        script = tmp_path / "increment.py"
        script.write_text(readme_cluster_example())
        done = subprocess.run(
            [sys.executable, str(script)],
            env=_environment(DASK_SCHEDULER_ADDRESS=self.address),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr + self.log_text()
        assert done.stdout.strip().splitlines()[-1] == "1048576.0", done.stdout
        self.paths = self.client.run(dask_ipc_scenarios.announced)  # the paths taken and why, for messages
        return self.client.run(dask_ipc_scenarios.counters)  # {worker address: (counters, holds)}

    def close(self):
        try:
            if self.client is not None:
                self.client.close()
        finally:
            for process in self.processes[::-1]:
                process.terminate()
            for process in self.processes[::-1]:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _totals(seen):
    return {
        name: sum(found[0][name] for found in seen.values())
        for name in ("ipc sent", "ipc received", "host sent", "host received")
    }


@pytest.mark.parametrize(
    "ipc, path",
    [
        ("1", {"ipc sent": 1, "ipc received": 1, "host sent": 0, "host received": 0}),
        ("0", {"ipc sent": 0, "ipc received": 0, "host sent": 1, "host received": 1}),
    ],
    ids=["ipc on", "NUMBA_CUDA_C_DASK_IPC=0"],
)
def test_a_cluster_started_from_the_command_line(tmp_path, ipc, path):
    """README's example through `dask scheduler` + two `dask cuda worker`: one array went from the first worker to
    the last, device to device (--pre-import numba_cuda_c: the first connection between the workers already offers
    IPC), or as bytes where the workers have IPC off."""
    cluster = CommandLineCluster(tmp_path, NUMBA_CUDA_C_DASK_IPC=ipc)
    try:
        seen = cluster.run_readme_example(tmp_path)
    finally:
        cluster.close()
    assert _totals(seen) == path, (seen, cluster.paths)
    assert all(holds == 0 for _, holds in seen.values()), seen  # nothing held once copied
