"""Two processes of one host exchanging a device array the way distributed's `dask` serializer does it between
workers (numba_cuda_c/dask/ipc.py), for tests/interop/test_dask_ipc.py (on the mock driver, MOCK_CUDA_IPC_PROCESSES=1)
and tests/interop/test_dask.py (on GPUs): this process receives; `Sender` is a child process that makes the array,
serializes it for this process (a handshake entry naming it, as a connection from here would carry) and then does
what it is told on its stdin, so that a test can drop the sender's own reference, or end it, between the two halves.
Also the functions the Dask workers of those tests run (importable there: a spawned worker gets our sys.path)."""

import os
import pickle
import subprocess
import sys

import numpy as np

SENDER = r"""
import gc, os, pickle, sys
import numpy as np
import numba_cuda_c as cuda
from numba_cuda_c.dask import ipc as dask_ipc
from distributed.protocol import serialize

receiver_pid, device, hold_s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
dask_ipc.UNCLAIMED_HOLD_S = hold_s
cuda.select_device(device)
base = cuda.to_device(np.arange(6000, dtype=np.float64).reshape(30, 200))
array = base[::-1, 3::2]  # strided, reversed: the span and its layout travel, not a contiguous copy
peer = {"host": dask_ipc.host_identity(), "pid": receiver_pid, "devices": dask_ipc.visible_devices()}
header, frames = serialize(
    array, serializers=["dask"], context={"recipient": {"address": "receiver", dask_ipc.HANDSHAKE_KEY: peer}}
)
print(pickle.dumps((header, frames, array.copy_to_host(), dict(dask_ipc.counters))).hex(), flush=True)
for line in sys.stdin:
    command = line.strip()
    if command == "drop":  # the worker released the key: only the hold keeps the memory now
        del array, base
        gc.collect()
        cuda.current_context().deallocations.clear()  # freed now, not at the next batch
        print("dropped", flush=True)
    elif command == "holds":
        print(len(dask_ipc.holds), flush=True)
    elif command == "exit":
        break
"""


class Sender:
    """The child process that sends; `header`, `frames`: what it serialized; `expected`: the array's values."""

    def __init__(self, device=0, hold_s=60.0, **env):
        self.process = subprocess.Popen(
            [sys.executable, "-c", SENDER, str(os.getpid()), str(device), str(hold_s)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, **env),
        )
        line = self.process.stdout.readline()
        assert line, "the sender failed (its stderr is above)"
        self.header, self.frames, self.expected, self.counters = pickle.loads(bytes.fromhex(line))

    def ask(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def kill(self):
        """The sender dies (SIGKILL: no clean-up of its own)."""
        self.process.kill()
        self.process.wait(timeout=60)

    def end(self):
        """Ends the sender and waits for it: its memory and its socket are gone after this."""
        if self.process.poll() is None:
            self.process.stdin.write("exit\n")
            self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0

    def receive(self):
        """The receiver's whole transfer: the copy, then its handle closed and the sender told (in the background)."""
        from distributed.protocol import deserialize

        from numba_cuda_c.dask import ipc as dask_ipc

        received = deserialize(self.header, self.frames, deserializers=["dask"])
        assert dask_ipc.finish_transfers(30)
        return received


# What the Dask workers run


def make(n):
    import numba_cuda_c as cuda

    return cuda.to_device(np.arange(n, dtype=np.float64).reshape(-1, 8))[::-1, 1::2]


def checksum(d):
    return float(d.copy_to_host().sum()), d.shape, d.strides


def expected_checksum(n):
    host = np.arange(n, dtype=np.float64).reshape(-1, 8)[::-1, 1::2]
    return float(host.sum()), host.shape, host.strides


def device_of(d):
    """The device the array's memory is on, and this worker's current device."""
    import numba_cuda_c as cuda
    from numba_cuda_c import _cuda

    _handle, _offset, ordinal = _cuda._ipc_get_handle(d.device_ctypes_pointer.value)
    return ordinal, cuda.get_current_device().id


def counters():
    """This worker's transfer counters and holds, once its received transfers have told their senders "done" (the
    holds a sender releases then: within a few seconds)."""
    import time

    from numba_cuda_c.dask import ipc as dask_ipc

    assert dask_ipc.finish_transfers(30)
    for _ in range(100):
        if not len(dask_ipc.holds):
            break
        time.sleep(0.05)
    return dict(dask_ipc.counters), len(dask_ipc.holds)


def announced():
    """The paths this process's transfers took, to whom, and why not IPC: [(path, peer, reason)]."""
    from numba_cuda_c.dask import ipc as dask_ipc

    return sorted(dask_ipc._announced, key=repr)
