"""Dask transfers of device arrays between processes of one host through CUDA IPC (numba_cuda_c/dask/ipc.py): which
path a transfer takes (the handshake entry, the sender's decision, NUMBA_CUDA_C_DASK_IPC=0), the header's round
trip, and the sender's hold (released after the receiver's copy, kept when the sender drops the array, expiring
when nobody claims it; a clear error, nothing opened, when the sender is gone). On the mock driver, whose IPC works
between processes with MOCK_CUDA_IPC_PROCESSES=1; the same cases run on GPUs in tests/interop/test_dask.py."""

import ast
import os

import pytest

from mock_driver import ARRAY_LAYOUTS, mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from subproc import run_python

pytest.importorskip("distributed")

pytestmark = pytest.mark.timeout(300)

IPC = {"MOCK_CUDA_IPC_PROCESSES": "1"}
INTEROP = os.path.dirname(os.path.abspath(__file__))

# A snippet for run_mock: `context(pid)`, what distributed passes a serializer for a connection to a process of
# this host whose handshake offered IPC (a pid other than ours: the driver opens no handle in its own process)
SAME_HOST = """
import os, socket, sys, time
sys.path.insert(0, %r)
from distributed.protocol import serialize, deserialize
from numba_cuda_c.dask import ipc as dask_ipc

def holds_after_a_while():  # the sender's server thread releases on its own time
    for _ in range(100):
        if not len(dask_ipc.holds):
            break
        time.sleep(0.05)
    return len(dask_ipc.holds)

def refused(receive, *words):  # receive() raises IpcTransferError saying each of `words`: the error
    try:
        receive()
    except dask_ipc.IpcTransferError as error:
        assert all(word in str(error) for word in words), (words, error)
        return error
    raise AssertionError("received, where it should say " + " / ".join(words))

def sent():  # an array serialized for a process of this host: the array, distributed's header and frames, our part
    d = cuda.to_device(np.arange(10.0))
    header, frames = serialize(d, serializers=["dask"], context=context())
    return d, header, frames, header["sub-header"]["ipc"]

def context(pid=os.getpid() + 1, **change):
    peer = {"host": dask_ipc.host_identity(), "pid": pid, "devices": dask_ipc.visible_devices(), **change}
    return {"recipient": {"address": "tcp://peer", dask_ipc.HANDSHAKE_KEY: peer}}
""" % (INTEROP,)


# Each array goes by one of two paths (numba_cuda_c/dask/ipc.py): copied into a slab the sender exports once and the
# receiver keeps mapped ("staged", arrays up to STAGED_MAX_BYTES), or its own allocation, mapped and unmapped by
# the receiver for each transfer ("direct"). The tests of a transfer's lifetime run each; `mapped` is what the
# receiver keeps mapped once a transfer is over.
PATHS = {"staged": {}, "direct": {"NUMBA_CUDA_C_DASK_IPC_STAGED_MAX": "0"}}
KEPT_MAPPED = {"staged": 1, "direct": 0}


def same_host(code, **env):
    """Runs `code` after SAME_HOST on the mock driver, its IPC working between processes; its output."""
    out = run_mock(SAME_HOST + code + '\nprint("snippet ran")\n', **dict(IPC, **env))
    assert out.splitlines()[-1] == "snippet ran", out
    return out


def test_the_route_a_context_gives(monkeypatch):
    from numba_cuda_c.dask import ipc as dask_ipc

    here = dask_ipc.host_identity()
    assert here and os.readlink("/proc/self/ns/pid") in here

    def recipient(**entry):
        peer = {"host": here, "pid": os.getpid() + 1, "devices": ["GPU-0"], **entry}
        return {"recipient": {"address": "tcp://x", dask_ipc.HANDSHAKE_KEY: peer}}

    assert dask_ipc.route(recipient())[0]["pid"] == os.getpid() + 1
    assert dask_ipc.route(None) == (None, "not sent through a connection")
    assert "offered no IPC" in dask_ipc.route({"recipient": {"address": "tcp://x"}})[1]
    assert dask_ipc.route(recipient(host=here + "-elsewhere")) == (None, "the recipient is on another host")
    assert dask_ipc.route(recipient(pid=os.getpid())) == (None, "the recipient is this process")
    monkeypatch.setenv("NUMBA_CUDA_C_DASK_IPC", "0")
    assert dask_ipc.route(recipient()) == (None, "NUMBA_CUDA_C_DASK_IPC=0")


def test_the_handshake_offers_ipc_only_where_this_end_deserializes(mock_driver):
    same_host(
        r"""
import distributed.comm.core as core
class Comm:
    deserialize = True
    same_host = True
entry = dask_ipc.handshake_entry(Comm())
assert entry == {"host": dask_ipc.host_identity(), "pid": os.getpid(), "devices": [cuda.gpus[0].uuid, cuda.gpus[1].uuid]}, entry
info = core.Comm.handshake_info(Comm())  # distributed's handshake, with the entry added
assert info[dask_ipc.HANDSHAKE_KEY] == entry and "pickle-protocol" in info, info
Comm.deserialize = False  # distributed's scheduler: it forwards frames to clients that may be anywhere
assert dask_ipc.handshake_entry(Comm()) is None and dask_ipc.HANDSHAKE_KEY not in core.Comm.handshake_info(Comm())
Comm.deserialize = True
os.environ["NUMBA_CUDA_C_DASK_IPC"] = "0"
assert dask_ipc.HANDSHAKE_KEY not in core.Comm.handshake_info(Comm())
""",
        MOCK_CUDA_DEVICES="2",
    )


def test_the_handshake_and_the_pool_are_patched_whichever_is_imported_first():
    for first, second in (("numba_cuda_c", "distributed"), ("distributed", "numba_cuda_c")):
        out = run_python(
            """
            import importlib, sys
            importlib.import_module(%r)
            importlib.import_module(%r)
            import distributed.comm.core, distributed.core
            print(getattr(distributed.comm.core.Comm.handshake_info, "numba_cuda_c", False))
            print(getattr(distributed.core.ConnectionPool.reuse, "numba_cuda_c", False))
            """
            % (first, second)
        )
        assert out.split() == ["True", "True"], (first, out)


def test_a_pooled_connection_made_before_ipc_was_offered_is_closed_not_reused(mock_driver):
    same_host(
        r"""
import asyncio
from distributed.core import ConnectionPool

class Comm:
    deserialize = True
    def __init__(self, local, remote):
        self.local_info, self.remote_info, self.aborted = local, remote, False
    def abort(self):
        self.aborted = True
    def closed(self):
        return self.aborted

peer = context()["recipient"]
pool = ConnectionPool()
pool.semaphore = asyncio.Semaphore(0)  # what pool.start() makes, in a running loop
for local, remote, stale in (
    ({}, peer, True),  # made before this process offered IPC, to a peer of this host that does
    ({dask_ipc.HANDSHAKE_KEY: {}}, peer, False),  # offered already
    ({}, {"address": "tcp://peer"}, False),  # a peer without numba_cuda_c
    ({}, context(host="elsewhere")["recipient"], False),
):
    comm = Comm(local, remote)
    pool.occupied["tcp://peer"].add(comm)
    pool.reuse("tcp://peer", comm)
    assert comm.aborted == stale and (comm in pool.available["tcp://peer"]) != stale, (local, remote)
"""
    )


@pytest.mark.parametrize("path", PATHS)
def test_every_layout_round_trips_as_a_handle_and_the_hold_ends_with_the_copy(mock_driver, path):
    out = run_mock(
        [
            ARRAY_LAYOUTS,
            SAME_HOST,
            r"""
cases.pop("empty")  # no bytes: the host path, below
staged = dask_ipc.STAGED_MAX_BYTES > 0
opens = mock.calls("cuIpcOpenMemHandle")
for name, d in cases.items():
    header, frames = serialize(d, serializers=["dask"], context=context())
    assert frames == [] and "ipc" in header["sub-header"], name  # no array bytes
    assert len(dask_ipc.holds) == 1, name
    e = deserialize(header, frames, deserializers=["dask"])
    assert dask_ipc.finish_transfers(10) and len(dask_ipc.holds) == 0, name  # the receiver's "done" ended it
    assert type(e) is type(d) and (e.shape, e.strides, e.dtype) == (d.shape, d.strides, d.dtype), name
    assert e.device_ctypes_pointer.value != d.device_ctypes_pointer.value, name  # a copy of the receiver's own
    np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
if staged:  # one slab, mapped at the first transfer and kept mapped
    assert mock.calls("cuIpcOpenMemHandle") - opens == 1 and mock.live()["ipc"] == 1
    assert dask_ipc.counters["ipc staged"] == dask_ipc.counters["ipc slabs opened"] + len(cases) - 1
else:  # each array's own allocation, mapped, then closed
    assert mock.calls("cuIpcOpenMemHandle") - opens == len(cases) and mock.live()["ipc"] == 0
    assert dask_ipc.counters["ipc staged"] == 0
rec = cuda.to_device(np.zeros(1, dtype=[("a", "i4"), ("b", "f8")]))[0]
rec["b"] = 2.5
clone = deserialize(*serialize(rec, serializers=["dask"], context=context()), deserializers=["dask"])
assert type(clone).__name__ == "DeviceRecord" and clone["b"] == 2.5
n, counted = len(cases) + 1, dask_ipc.counters
assert (counted["ipc sent"], counted["ipc received"], counted["ipc failed"]) == (n, n, 0), counted
assert (counted["host sent"], counted["host received"]) == (0, 0), counted
assert counted["ipc bytes sent"] == counted["ipc bytes received"] >= sum(c.nbytes for c in cases.values()), counted
print("layouts ok")
""",
        ],
        MOCK_CUDA_DEVICES="2",
        **IPC,
        **PATHS[path],
    )
    assert "layouts ok" in out


def test_a_slab_is_mapped_once_and_its_regions_are_reused(mock_driver):
    same_host(
        r"""
opens = mock.calls("cuIpcOpenMemHandle")
for n in range(5):  # one after the other: each region is free again when its "done" comes
    d = cuda.to_device(np.arange(1000.0) + n)
    e = deserialize(*serialize(d, serializers=["dask"], context=context()), deserializers=["dask"])
    np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
assert mock.calls("cuIpcOpenMemHandle") - opens == 1 and mock.live()["ipc"] == 1  # the first transfer's, kept
assert dask_ipc.counters["ipc staged"] == 5 and dask_ipc.counters["ipc slabs opened"] == 1
(slab,) = [s for slabs in dask_ipc._slabs.values() for s in slabs]
assert slab.free == [(0, dask_ipc.SLAB_BYTES)]  # every region given back
"""
    )


def test_with_every_region_taken_an_array_goes_direct(mock_driver):
    same_host(
        r"""
dask_ipc.SLAB_BYTES = dask_ipc.STAGED_MAX_BYTES = 8192
dask_ipc.SLABS_PER_DEVICE = 1
arrays = [cuda.to_device(np.arange(700.0) + n) for n in range(3)]  # 5600 bytes each: one fits a slab at a time
sent = [serialize(d, serializers=["dask"], context=context()) for d in arrays]
assert "slab" in sent[0][0]["sub-header"]["ipc"] and "slab" not in sent[1][0]["sub-header"]["ipc"]
assert dask_ipc.counters["ipc staged"] == 1 and len(dask_ipc.holds) == 3
for d, (header, frames) in zip(arrays, sent):
    np.testing.assert_array_equal(deserialize(header, frames, deserializers=["dask"]).copy_to_host(), d.copy_to_host())
assert dask_ipc.finish_transfers(10) and holds_after_a_while() == 0
(slab,) = [s for slabs in dask_ipc._slabs.values() for s in slabs]
assert slab.free == [(0, 8192)] and mock.live()["ipc"] == 1  # the slab's mapping kept, the others closed
"""
    )


def test_an_unclaimed_region_is_free_again_when_its_hold_expires(mock_driver):
    same_host(
        r"""
dask_ipc.UNCLAIMED_HOLD_S = 0.2
d, header, frames, ipc = sent()
(slab,) = [s for slabs in dask_ipc._slabs.values() for s in slabs]
assert "slab" in ipc and slab.free != [(0, dask_ipc.SLAB_BYTES)]
time.sleep(1.5)  # the server's thread drops unclaimed holds each second
assert holds_after_a_while() == 0 and slab.free == [(0, dask_ipc.SLAB_BYTES)]
refused(lambda: deserialize(header, frames, deserializers=["dask"]), "no longer holds it")
assert mock.calls("cuIpcOpenMemHandle") == 0  # nothing was mapped for it
"""
    )


def test_the_slab_of_a_sender_that_exited_is_unmapped(mock_driver):
    same_host(
        r"""
from dask_ipc_scenarios import Sender
sender = Sender()
e = sender.receive()
np.testing.assert_array_equal(e.copy_to_host(), sender.expected)
assert "slab" in sender.header["sub-header"]["ipc"] and mock.live()["ipc"] == 1  # kept for its next array
dask_ipc._Mapped.forget_dead()
assert mock.live()["ipc"] == 1  # alive: kept
sender.end()
dask_ipc._Mapped.forget_dead()  # as the next transfer's does
assert mock.live()["ipc"] == 0
"""
    )


def test_where_ipc_cannot_be_used_the_host_frames_are_unchanged(mock_driver):
    same_host(
        r"""
import logging
seen = []
class Keep(logging.Handler):
    def emit(self, record):
        seen.append(record.getMessage())
logging.getLogger("numba_cuda_c.dask").addHandler(Keep())
logging.getLogger("numba_cuda_c.dask").setLevel(logging.DEBUG)
d = cuda.to_device(np.arange(24.0).reshape(4, 6))[:, ::2]
plain_header, plain_frames = serialize(d, serializers=["dask"])  # no connection: no context

def host_frames(ctx, reason):
    header, frames = serialize(d, serializers=["dask"], context=ctx)
    assert header == plain_header and [bytes(f) for f in frames] == [bytes(f) for f in plain_frames], reason
    assert reason in seen[-1], (reason, seen[-1])
    np.testing.assert_array_equal(deserialize(header, frames, deserializers=["dask"]).copy_to_host(), d.copy_to_host())

host_frames({"recipient": {"address": "tcp://peer"}}, "offered no IPC")
host_frames(context(host="another machine"), "on another host")
host_frames(context(pid=os.getpid()), "this process")
host_frames(context(devices=["GPU-elsewhere"]), "does not see device %s" % cuda.gpus[0].uuid)
mock.fail("cuIpcGetMemHandle", "CUDA_ERROR_NOT_SUPPORTED")  # e.g. a MIG instance, WSL
host_frames(context(), "no IPC handle for this memory")
empty = cuda.device_array((0, 3))
header, frames = serialize(empty, serializers=["dask"], context=context())
assert "ipc" not in header["sub-header"] and "empty" in seen[-1]
os.environ["NUMBA_CUDA_C_DASK_IPC"] = "0"
host_frames(context(), "NUMBA_CUDA_C_DASK_IPC=0")
assert dask_ipc.counters["ipc sent"] == 0 and dask_ipc.counters["host sent"] == 8, dask_ipc.counters
assert dask_ipc.counters["host received"] == 6 and len(dask_ipc.holds) == 0
"""
    )


@pytest.mark.parametrize("path", PATHS)
def test_the_sender_dropping_the_array_mid_transfer_is_safe_and_its_hold_ends(mock_driver, path):
    same_host(
        "kept = %d\n" % KEPT_MAPPED[path]
        + r"""
from dask_ipc_scenarios import Sender
sender = Sender()
assert sender.counters["ipc sent"] == 1 and sender.ask("holds") == "1"
assert sender.ask("drop") == "dropped"  # the worker released the key before the receiver read
e = sender.receive()
np.testing.assert_array_equal(e.copy_to_host(), sender.expected)
assert e.strides == (-1600, 16), e.strides
assert sender.ask("holds") == "0"  # released after the copy
assert mock.live()["ipc"] == kept and dask_ipc.counters["ipc received"] == 1
sender.end()
""",
        **PATHS[path],
    )


def test_a_sender_that_exited_gives_a_clear_error_and_nothing_is_opened(mock_driver):
    same_host(
        r"""
from dask_ipc_scenarios import Sender
sender = Sender()
sender.end()  # the worker died (or restarted: a new process, a new socket) before the receiver read
error = refused(sender.receive, "is gone", "nothing was read")
assert isinstance(error, ConnectionError)  # distributed: a failed transfer from that peer, fetched again
assert mock.calls("cuIpcOpenMemHandle") == 0 and dask_ipc.counters["ipc failed"] == 1
"""
    )


def test_an_unclaimed_hold_expires_and_a_late_claim_opens_nothing(mock_driver):
    same_host(
        r"""
from dask_ipc_scenarios import Sender
sender = Sender(hold_s=0.2)
time.sleep(1.5)  # the sender's server wakes each second to drop expired holds
assert sender.ask("holds") == "0"
refused(sender.receive, "no longer holds")
assert mock.calls("cuIpcOpenMemHandle") == 0
sender.end()
"""
    )


def test_a_claim_holds_until_its_connection_ends_and_only_once(mock_driver):
    same_host(
        r"""
d, header, frames, ipc = sent()
dask_ipc.UNCLAIMED_HOLD_S = 0.0  # would expire at once, unclaimed: a claimed hold does not

def claim():
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    conn.connect("\0" + ipc["socket"])
    conn.sendall(b"claim " + ipc["transfer"].encode())
    return conn, conn.recv(64)

first, answer = claim()
assert answer == b"held"
dask_ipc.holds.expire()
assert len(dask_ipc.holds) == 1
second, answer = claim()
assert answer == b"gone"  # one claimant only
second.close()
first.close()  # the receiver died mid-copy: the kernel closes its socket, the sender drops the hold
assert holds_after_a_while() == 0
"""
    )


# A sender of its own on this process's socket: it answers the claim "held", then does `then(conn)`; the copy of
# `dask_ipc._copy_from` returns only once `ended` is set (the sender's end of the story, whatever it is)
SCRIPTED_SENDER = r"""
import threading
d, header, frames, ipc = sent()
server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
server.bind("\0scripted-sender-%d" % os.getpid())
server.listen(1)
ipc["socket"] = "scripted-sender-%d" % os.getpid()
ended = threading.Event()

def scripted(then):
    def answer():
        conn, _ = server.accept()
        conn.recv(64)
        conn.sendall(b"held")
        then(conn)
        ended.set()
    threading.Thread(target=answer, daemon=True).start()

copy_from = dask_ipc._copy_from
def copy_until_ended(ipc, sender, *slab):
    copied = copy_from(ipc, sender, *slab)
    assert ended.wait(10)
    return copied
"""


@pytest.mark.parametrize("path", PATHS)
def test_a_sender_that_dies_during_the_copy_makes_the_copy_void(mock_driver, path):
    same_host(
        SCRIPTED_SENDER
        + r"""
scripted(lambda conn: conn.close())  # exits while the receiver copies: its end of the connection closes
dask_ipc._copy_from = copy_until_ended
refused(lambda: deserialize(header, frames, deserializers=["dask"]), "exited while it was being copied", "discarded")
assert dask_ipc.finish_transfers(10)
assert mock.live()["ipc"] == 0 and dask_ipc.counters["ipc received"] == 0  # a dead sender's slab is unmapped too
""",
        **PATHS[path],
    )


@pytest.mark.parametrize("path", PATHS)
def test_a_sender_that_dies_after_the_copy_loses_nothing(mock_driver, path):
    same_host(
        "kept = %d\n" % KEPT_MAPPED[path]
        + SCRIPTED_SENDER
        + r"""
def exits_after_done(conn):
    ended.set()  # the copy is over: the receiver now closes its handle and says "done"
    assert conn.recv(64) == b"done"
    conn.close()  # no "ok": the sender died

scripted(exits_after_done)
dask_ipc._copy_from = copy_until_ended
e = deserialize(header, frames, deserializers=["dask"])
assert dask_ipc.finish_transfers(10)
np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
assert mock.live()["ipc"] == kept and dask_ipc.counters["ipc received"] == 1 and dask_ipc.counters["ipc failed"] == 0
""",
        **PATHS[path],
    )


def test_a_handle_that_does_not_open_is_a_clear_error_and_turns_ipc_off_here(mock_driver):
    same_host(
        r"""
class Comm:
    deserialize = True
assert dask_ipc.handshake_entry(Comm()) is not None
d, header, frames, ipc = sent()
mock.fail("cuIpcOpenMemHandle", "CUDA_ERROR_INVALID_VALUE")
refused(lambda: deserialize(header, frames, deserializers=["dask"]), "could not open the CUDA IPC", "_DASK_IPC=0")
assert dask_ipc.handshake_entry(Comm()) is None  # the retry's new connection asks for bytes
assert holds_after_a_while() == 0  # the failed receiver's connection ended the hold
other = dict(header, **{"sub-header": dict(header["sub-header"], ipc=dict(header["sub-header"]["ipc"], host="far"))})
refused(lambda: deserialize(other, frames, deserializers=["dask"]), "of another host")
"""
    )


DASK = (
    SAME_HOST
    + r"""
import distributed
import dask_ipc_scenarios as work
N = 4096
with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
    with distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        first, second = sorted(client.scheduler_info()["workers"])
        for _ in range(2):
            # the first: the second worker has not imported numba_cuda_c when it connects (checksum's module does
            # not), so its connection offers no IPC: host frames, and the pool drops that connection; the second
            # goes through a new connection, which offers it
            made = client.submit(work.make, N, workers=[first], allow_other_workers=False, pure=False)
            used = client.submit(work.checksum, made, workers=[second], allow_other_workers=False, pure=False)
            total, shape, strides = used.result(timeout=60)
            assert (total, shape, tuple(strides)) == work.expected_checksum(N), (total, shape, strides)
        seen = client.run(work.counters)
        direct = client.gather(made, direct=True)  # the client, a process of this host, asks the worker itself
        np.testing.assert_array_equal(direct.copy_to_host(), np.arange(N, dtype=np.float64).reshape(-1, 8)[::-1, 1::2])
        print("sender", seen[first])
        print("receiver", seen[second])
        print("client", dask_ipc.counters)
"""
)


def _dask_counters(out):
    """{"sender": (counters, holds), "receiver": ..., "client": counters} from the DASK snippet's output."""
    found = {}
    for line in out.splitlines():
        who, _, value = line.partition(" ")
        if who in ("sender", "receiver", "client"):
            found[who] = ast.literal_eval(value)
    return found


def test_dask_workers_of_one_host_exchange_arrays_by_ipc(mock_driver):
    out = run_mock(DASK, timeout=240, **IPC)
    seen = _dask_counters(out)
    (sender, sender_holds), (receiver, _) = seen["sender"], seen["receiver"]
    assert sender["host sent"] == 1 and sender["ipc sent"] == 1 and sender_holds == 0, out
    assert receiver["host received"] == 1 and receiver["ipc received"] == 1, out
    assert seen["client"]["ipc received"] == 1, out


def test_dask_workers_take_the_host_path_with_ipc_off(mock_driver):
    out = run_mock(DASK, timeout=240, NUMBA_CUDA_C_DASK_IPC="0", **IPC)
    seen = _dask_counters(out)
    (sender, _), (receiver, _) = seen["sender"], seen["receiver"]
    assert sender["ipc sent"] == 0 and sender["host sent"] == 2, out
    assert receiver["ipc received"] == 0 and receiver["host received"] == 2, out
    assert seen["client"]["host received"] == 1 and seen["client"]["ipc received"] == 0, out


def test_dask_retries_a_transfer_whose_handle_does_not_open_and_gets_the_bytes(mock_driver):
    out = run_mock(
        SAME_HOST
        + r"""
import distributed
import dask_ipc_scenarios as work

def fail_next_open():  # on the receiving worker: numba_cuda_c imported (its connections offer IPC), a fault armed
    import numba_cuda_c
    from mock_driver import Mock
    Mock().fail("cuIpcOpenMemHandle", "CUDA_ERROR_INVALID_VALUE")

N = 4096
with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
    with distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        first, second = sorted(client.scheduler_info()["workers"])
        client.run(fail_next_open, workers=[second])
        made = client.submit(work.make, N, workers=[first], allow_other_workers=False)
        used = client.submit(work.checksum, made, workers=[second], allow_other_workers=False)
        total, shape, strides = used.result(timeout=60)
        assert (total, shape, tuple(strides)) == work.expected_checksum(N), (total, shape, strides)
        seen = client.run(work.counters)
        print("sender", seen[first])
        print("receiver", seen[second])
""",
        timeout=240,
        **IPC,
    )
    seen = _dask_counters(out)
    (sender, sender_holds), (receiver, _) = seen["sender"], seen["receiver"]
    assert receiver["ipc failed"] == 1 and receiver["ipc received"] == 0 and receiver["host received"] == 1, out
    assert sender["ipc sent"] == 1 and sender["host sent"] == 1 and sender_holds == 0, out
