"""Dask transfers of device arrays between processes of one host through CUDA IPC: the sender's `dask` serializer
(serializers.serialize_on_host) sends a CUDA IPC handle of the array's memory and its layout, not its
bytes; the receiver opens the handle, copies the bytes into new memory of its own current device (a peer copy
where the devices reach each other, staged through the source device otherwise: IpcHandle.open), closes the
handle and returns the copy. The existing host frames (device -> host -> TCP -> host -> device) stay the path
everywhere else.

Which path. distributed passes the serializer a `context`: its "recipient" is the handshake the peer sent when the
connection was made. numba_cuda_c adds one entry to every handshake (patch_handshake, on distributed.comm.core's
Comm.handshake_info): {"host": host_identity(), "pid", "devices": the UUIDs of the devices its driver sees}.
The sender sends a handle only where that entry is there and says: the same host (hostname, boot id, and the pid,
IPC and network namespaces: where the driver's IPC and our acknowledgement socket both work), another process, and
a device list that has the array's device. Anything else is the host path, unchanged: a peer that has not imported
numba_cuda_c when it connected, a peer with NUMBA_CUDA_C_DASK_IPC=0 or without a driver, another host, and a peer
that does not deserialize what it receives (distributed's scheduler, deserialize=False, forwards frames to a client
that may be anywhere: the handshake of such a connection has no entry). NUMBA_CUDA_C_DASK_IPC=0 on either side turns
IPC off. A worker that imports numba_cuda_c only when its first device array arrives made that connection without
the entry: distributed's pool closes such a connection when it comes back instead of keeping it
(patch_connection_pool), so the next one offers IPC. Each transfer is counted in `counters` and logged on the
logger numba_cuda_c.dask (DEBUG each transfer, INFO the first of each path to each peer).

Lifetime. The memory must stay valid until the receiver has copied it, whatever the sender's worker does with the
key. So the sender holds a reference to the array in a per-process table (_Holds) under a transfer id, and runs a
small server, a thread on a Unix socket of the abstract namespace named in the header (_HoldServer). The receiver
  1. connects and claims the id: "held" (the hold is now bound to that connection), or "gone";
  2. only then opens the handle, copies, waits for the copy;
  3. checks that the sender's end of the connection is still open: a sender alive after the copy held the memory
     all through it, so the copy is good and goes to the task;
  4. then, off the task's path (a thread of its own), closes the handle and says "done"; the sender drops the
     hold and answers "ok". The next transfer into this process opens its handle only after that (_mappings): two
     keys can be views of one allocation, whose handle the driver maps once per context. An array staged in a
     slab (below, "Staging slabs") has no handle of its own to close: "done" is said at once, the slab stays
     mapped (_Mapped) and its region is free for the sender's next array.
The sender drops a claimed hold only when its connection ends: "done" after the handle is closed, or the
receiver's death (the kernel closes its socket): never while a receiver may still read. A hold nobody claims
(the receiver died before reading, the message was lost) is dropped after UNCLAIMED_HOLD_S seconds; a claim
after that is "gone", before anything is opened. Hence the cases: the sender's worker releases the key
mid-transfer: the hold keeps the memory, the transfer completes. The sender dies or restarts (new pid, new
socket): the receiver's connect fails, or, if it dies before the copy is done, its end of the connection is
closed at step 3 and the copy is thrown away (a dead exporter's memory is not trusted, whatever the driver left
mapped). A sender that dies after step 3 costs nothing: the copy was complete. Each raises IpcTransferError, a ConnectionError: distributed's worker
takes it as a failed transfer from that peer and fetches the key again (or the scheduler recomputes it). Where the
handle cannot be opened here (the device, the driver), the error also turns IPC off for this process's later
connections (send_recv closes the failed one), so that the retry takes the host path.
"""

import contextlib
import logging
import os
import secrets
import select
import selectors
import socket
import threading
import time

logger = logging.getLogger("numba_cuda_c.dask")

HANDSHAKE_KEY = "numba-cuda-c-ipc"
UNCLAIMED_HOLD_S = 60.0  # how long a handle nobody has claimed keeps its memory (a claim comes in milliseconds)
CONNECT_TIMEOUT_S = 30.0  # the sender's server answers at once; this only bounds a hung sender

# What transfers did, in this process: the tests and benchmarks/bench_dask.py read it.
counters = {
    "ipc sent": 0,
    "ipc received": 0,
    "ipc bytes sent": 0,
    "ipc bytes received": 0,
    "ipc receive seconds": 0.0,  # claim, open, copy, close and release: the transfer itself, without Dask's messages
    "ipc failed": 0,
    "ipc staged": 0,  # sent through a slab (STAGED_MAX_BYTES at most)
    "ipc slabs opened": 0,  # by the receiver, once per sender's slab
    "host sent": 0,
    "host received": 0,
}
_lock = threading.Lock()
_announced = set()  # (path, peer, reason) already logged at INFO
_ipc_broken = []  # why opening a handle failed here, once it has: IPC is then off for later connections
_mappings = threading.Lock()  # held from a transfer's open to its sender's "ok": one mapping open at a time


class IpcTransferError(ConnectionError):
    """A device array sent through CUDA IPC could not be received: the sender is gone or no longer holds it, or
    the handle cannot be opened here. A ConnectionError, so that distributed fetches the key again."""


def enabled():
    return os.environ.get("NUMBA_CUDA_C_DASK_IPC", "1") != "0"


def count(name, n=1):
    with _lock:
        counters[name] += n


def _announce(path, peer, reason, nbytes):
    first = (path, peer, reason) not in _announced
    _announced.add((path, peer, reason))
    logger.log(
        logging.INFO if first else logging.DEBUG,
        "device array of %d bytes to %s: %s%s",
        nbytes,
        peer,
        path,
        "" if reason is None else " (%s)" % reason,
    )


_host = []


def host_identity():
    """This process's machine and namespaces, as a string two processes compare; None where it cannot be told
    (no /proc: then never IPC)."""
    if not _host:
        try:
            with open("/proc/sys/kernel/random/boot_id") as f:
                parts = [socket.gethostname(), f.read().strip()]
            parts += [os.readlink("/proc/self/ns/" + ns) for ns in ("pid", "ipc", "net")]
            _host.append("/".join(parts))
        except OSError:
            _host.append(None)
    return _host[0]


_devices = []


def visible_devices():
    """The UUIDs of the devices this process's driver sees (it initializes the driver); [] without one. UUIDs, not
    PCI identities: the instances of a MIG-partitioned GPU share its PCI identity."""
    if not _devices:
        try:
            from numba_cuda_c import _cuda

            _devices.append([d.uuid for d in _cuda.list_devices()])
        except Exception:  # no driver, the simulator: no IPC, said once
            _devices.append([])
    return _devices[0]


def handshake_entry(comm):
    """What this process adds to a connection's handshake (None: nothing, the peer then sends host frames): only
    where this end deserializes what it receives, as a forwarding scheduler does not."""
    if not enabled() or _ipc_broken or not getattr(comm, "deserialize", True):
        return None
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":  # the simulator's arrays are not in device memory
        return None
    host, devices = host_identity(), visible_devices()
    if host is None or not devices:
        return None
    return {"host": host, "pid": os.getpid(), "devices": devices}


def patch_handshake(comm_core):
    """Adds handshake_entry() to distributed.comm.core.Comm.handshake_info (once)."""
    original = comm_core.Comm.handshake_info
    if getattr(original, "numba_cuda_c", False):
        return

    def handshake_info(self):
        info = original(self)
        try:
            entry = handshake_entry(self)
        except Exception:  # never let our entry break a connection
            entry = None
        return {**info, HANDSHAKE_KEY: entry} if entry else info

    handshake_info.__doc__ = original.__doc__
    handshake_info.numba_cuda_c = True
    comm_core.Comm.handshake_info = handshake_info


def _handshake_is_stale(comm):
    """Whether `comm` was made before this process offered IPC (numba_cuda_c imported after it connected: a worker
    whose first device array came before any task of its imported numba_cuda_c) to a peer of this host that did."""
    local, remote = getattr(comm, "local_info", None), getattr(comm, "remote_info", None)
    if not isinstance(local, dict) or HANDSHAKE_KEY in local or not isinstance(remote, dict):
        return False
    peer = remote.get(HANDSHAKE_KEY)
    if not isinstance(peer, dict) or peer.get("host") != host_identity() or peer.get("pid") == os.getpid():
        return False
    return handshake_entry(comm) is not None


def patch_connection_pool(core):
    """distributed.core.ConnectionPool.reuse closes a connection whose handshake is stale (once per such peer)
    instead of pooling it: the next connection's handshake offers IPC."""
    original = core.ConnectionPool.reuse
    if getattr(original, "numba_cuda_c", False):
        return

    def reuse(self, addr, comm):
        try:
            stale = _handshake_is_stale(comm)
        except Exception:
            stale = False
        if stale:
            logger.debug("connection to %s made before numba_cuda_c offered CUDA IPC: closed, not pooled", addr)
            comm.abort()  # closed now: the pool then forgets it
        return original(self, addr, comm)

    reuse.__doc__ = original.__doc__
    reuse.numba_cuda_c = True
    core.ConnectionPool.reuse = reuse


def route(context):
    """(peer entry, None) where an array may go by IPC to the recipient of `context`, else (None, why not)."""
    if not enabled():
        return None, "NUMBA_CUDA_C_DASK_IPC=0"
    recipient = context.get("recipient") if isinstance(context, dict) else None
    if not isinstance(recipient, dict):
        return None, "not sent through a connection"
    peer = recipient.get(HANDSHAKE_KEY)
    if not isinstance(peer, dict):
        return (
            None,
            "the recipient offered no IPC (numba_cuda_c not imported there when it connected, IPC off there, or it forwards without deserializing)",
        )
    if host_identity() is None or peer.get("host") != host_identity():
        return None, "the recipient is on another host"
    if peer.get("pid") == os.getpid():
        return None, "the recipient is this process"
    return peer, None


class _Holds:
    """What IPC handles sent refer to, by transfer id: each [held, deadline, claimed], `held` an array or a slab's
    region (_Region: given back to its slab when the hold ends)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.table = {}

    def add(self, held):
        transfer = secrets.token_hex(8)
        with self.lock:
            self._expire()
            self.table[transfer] = [held, time.monotonic() + UNCLAIMED_HOLD_S, False]
        return transfer

    def claim(self, transfer):
        """True, binding the hold to the caller's connection, if it is held and unclaimed."""
        with self.lock:
            self._expire()
            hold = self.table.get(transfer)
            if hold is None or hold[2]:
                return False
            hold[2] = True
            return True

    def release(self, transfer):
        with self.lock:
            hold = self.table.pop(transfer, None)
        if hold is not None:
            _end_hold(hold[0])

    def expire(self):
        with self.lock:
            self._expire()

    def _expire(self):
        now = time.monotonic()
        for transfer in [t for t, (_, deadline, claimed) in self.table.items() if not claimed and deadline < now]:
            logger.info(
                "IPC transfer %s was not claimed within %.0f s: its array is released", transfer, UNCLAIMED_HOLD_S
            )
            _end_hold(self.table.pop(transfer)[0])

    def __len__(self):
        with self.lock:
            return len(self.table)


holds = _Holds()


def _end_hold(held):
    if isinstance(held, _Region):
        held.give_back()


# Staging slabs. Opening an IPC handle costs the receiver 1-2 ms whatever the size (the driver maps the allocation),
# which is most of a small or medium array's transfer. So an array of at most STAGED_MAX_BYTES is copied on its own
# device into a region of a slab: an allocation of SLAB_BYTES this process keeps and exports once. The receiver
# opens a slab the first time it reads from it and keeps it open (_Mapped), so a later transfer from this process is
# one copy on each side. A region is held as an array is (the claim, "done", the receiver's death, UNCLAIMED_HOLD_S)
# and is then free for the next array. Where no region is free (SLABS_PER_DEVICE slabs, all taken), or the array is
# larger, its own allocation's handle is sent, opened and closed by the receiver as before.
# NUMBA_CUDA_C_DASK_IPC_STAGED_MAX (bytes) changes the limit: 0 sends every array's own allocation.
SLAB_BYTES = 64 << 20
STAGED_MAX_BYTES = min(int(os.environ.get("NUMBA_CUDA_C_DASK_IPC_STAGED_MAX", 16 << 20)), SLAB_BYTES)
SLABS_PER_DEVICE = 4
_REGION_ALIGN = 512


class _Slab:
    """An exported allocation of one device and its free extents [(start, end)], kept in order."""

    def __init__(self, memory, handle, offset, identity):
        self.memory = memory  # the MemoryPointer: the slab lives as long as this process
        self.handle = handle
        self.offset = offset  # of the slab in the allocation its handle names (0 for a cuMemAlloc of its own)
        self.identity = identity  # its device's, for the receiver
        self.name = secrets.token_hex(8)  # the receiver's key for its mapping
        self.free = [(0, SLAB_BYTES)]

    def take(self, nbytes):
        """A region of nbytes (first fit), or None."""
        need = -(-nbytes // _REGION_ALIGN) * _REGION_ALIGN
        with _slabs_lock:
            for k, (start, end) in enumerate(self.free):
                if end - start >= need:
                    self.free[k : k + 1] = [(start + need, end)] if end - start > need else []
                    return _Region(self, start, need)
        return None

    def give(self, start, size):
        with _slabs_lock:
            extents = sorted(self.free + [(start, start + size)])
            merged = [extents[0]]
            for low, high in extents[1:]:
                if low == merged[-1][1]:
                    merged[-1] = (merged[-1][0], high)
                else:
                    merged.append((low, high))
            self.free = merged


class _Region:
    def __init__(self, slab, start, size):
        self.slab, self.start, self.size = slab, start, size
        self._given = False

    def give_back(self):
        if not self._given:  # once, whichever of "done", the receiver's death and the expiry comes first
            self._given = True
            self.slab.give(self.start, self.size)


_slabs = {}  # context handle -> [_Slab]
_slabs_lock = threading.Lock()


def _staged(array, low, nbytes):
    """A region holding a copy of the array's nbytes from `low`, made on its device (the copy done), or None where
    it is not staged (too large, no region free, memory of another context, no IPC for a slab)."""
    from numba_cuda_c import _cuda

    if nbytes > STAGED_MAX_BYTES or nbytes > SLAB_BYTES:
        return None
    context = array.gpu_data.context
    current = _cuda.get_context()
    if current is None or current.handle != context.handle:
        return None
    with _slabs_lock:
        slabs = list(_slabs.get(context.handle, ()))
    region = None
    for slab in slabs:
        region = slab.take(nbytes)
        if region is not None:
            break
    if region is None:
        if len(slabs) >= SLABS_PER_DEVICE:
            return None
        try:
            memory = _cuda._alloc(SLAB_BYTES)
            handle, offset, ordinal = _cuda._ipc_get_handle(memory.device_pointer)
            slab = _Slab(memory, handle, offset, _cuda.get_device(ordinal).get_device_identity())
        except Exception as exc:  # out of memory, no IPC for it: the array's own handle
            logger.debug("no staging slab for a device array (%s): its own allocation is sent", exc)
            return None
        with _slabs_lock:
            _slabs.setdefault(context.handle, []).append(slab)
        region = slab.take(nbytes)
        if region is None:  # another thread's arrays took the new slab first
            return None
    stream = _cuda.stream()
    try:
        _cuda._memcpy(
            2,
            region.slab.memory.device_pointer + region.start,
            array.device_ctypes_pointer.value + low,
            nbytes,
            stream,
        )
        stream.synchronize()
    except BaseException:
        region.give_back()
        raise
    return region


class _HoldServer:
    """The sender's end of the acknowledgement: one thread on an abstract Unix socket that accepts receivers and
    answers all their connections (a claim, then "done" after the copy) as they speak, through a selector. No
    thread is started per transfer: starting one costs about 0.1 ms, a tenth of a small array's transfer."""

    def __init__(self):
        self.pid = os.getpid()
        self.name = "numba_cuda_c-dask-ipc-%d-%s" % (self.pid, secrets.token_hex(6))
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind("\0" + self.name)
        self.sock.listen(64)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.sock, selectors.EVENT_READ, None)
        threading.Thread(target=self._serve, name="numba_cuda_c dask IPC holds", daemon=True).start()

    def _serve(self):
        next_expiry = time.monotonic() + 1.0
        while True:
            # wakes up at least each second to drop unclaimed holds past their time
            for key, _ in self.selector.select(timeout=max(0.0, next_expiry - time.monotonic())):
                if key.fileobj is self.sock:
                    try:
                        conn, _ = self.sock.accept()
                    except OSError:
                        continue
                    self.selector.register(conn, selectors.EVENT_READ, [None])  # [the transfer it claimed]
                else:
                    self._answer(key.fileobj, key.data)
            if time.monotonic() >= next_expiry:
                holds.expire()
                next_expiry = time.monotonic() + 1.0

    def _answer(self, conn, claimed):
        """What the receiver on `conn` said: its claim ("held" or "gone"), or, once claimed, "done" after its copy
        (released, then "ok") or the end of its connection (its death: released)."""
        try:
            message = conn.recv(64)
        except OSError:
            message = b""
        if claimed[0] is None and message.startswith(b"claim "):
            transfer = message[len(b"claim ") :].decode("ascii", "replace")
            if holds.claim(transfer):
                claimed[0] = transfer
                if self._say(conn, b"held"):
                    return  # now waits for "done"
            else:
                self._say(conn, b"gone")
        if claimed[0] is not None:  # after "done" (the copy is complete) or the end of the receiver's connection
            holds.release(claimed[0])
            if message == b"done":
                self._say(conn, b"ok")  # released first: a receiver that reads "ok" finds the table as it is
        self.selector.unregister(conn)
        conn.close()

    @staticmethod
    def _say(conn, word):
        try:
            conn.sendall(word)
            return True
        except OSError:
            return False


_server = []


def _hold_server():
    with _lock:
        if not _server or _server[0].pid != os.getpid():  # a forked child has no thread of its parent's
            _server[:] = [_HoldServer()]
        return _server[0]


def send(array, low, nbytes, context):
    """The IPC part of a header for `array` (the `nbytes` bytes it spans from `low`), holding it until the receiver
    has copied; None where it goes the host path (counted and logged here)."""
    peer, reason = route(context)
    recipient = context.get("recipient") if isinstance(context, dict) else None
    who = recipient.get("address", "?") if isinstance(recipient, dict) else "?"
    if peer is not None and nbytes == 0:
        peer, reason = None, "empty"
    if peer is not None:
        try:
            header = _export(array, low, nbytes, peer)
        except _NoIpc as exc:
            peer, reason = None, str(exc)
    if peer is None:
        count("host sent")
        _announce("host frames", who, reason, nbytes)
        return None
    count("ipc sent")
    count("ipc bytes sent", nbytes)
    _announce("CUDA IPC" + (", staged in a slab" if "slab" in header else ""), who, None, nbytes)
    return header


class _NoIpc(Exception):
    pass


def _export(array, low, nbytes, peer):
    from numba_cuda_c import _cuda

    gpu_data = array.gpu_data
    if getattr(getattr(gpu_data, "owner", gpu_data), "kind", "device") == "pooled":
        raise _NoIpc("memory of the stream-ordered pool has no IPC handle")
    try:
        handle, offset, ordinal = _cuda._ipc_get_handle(array.device_ctypes_pointer.value + low)
        device = _cuda.get_device(ordinal)
    except Exception as exc:  # the driver's refusal (pool memory, MIG, WSL), memory it does not know: host frames
        raise _NoIpc("no IPC handle for this memory: %s" % exc) from None
    if device.uuid not in peer.get("devices", ()):
        raise _NoIpc("the recipient does not see device %s" % device.uuid)
    gpu_data.context.synchronize()  # the receiver reads on its own: the work writing the array must be done
    server = _hold_server()
    region = _staged(array, low, nbytes)
    if region is not None:
        count("ipc staged")
        slab = region.slab
        return {
            "handle": slab.handle,
            "offset": slab.offset + region.start,
            "size": nbytes,
            "device": slab.identity,
            "slab": slab.name,  # the receiver keeps this slab open for the next transfer
            "host": host_identity(),
            "pid": os.getpid(),
            "socket": server.name,
            "transfer": holds.add(region),
        }
    return {
        "handle": handle,
        "offset": offset,
        "size": nbytes,
        "device": device.get_device_identity(),  # what IpcHandle finds the device by
        "host": host_identity(),
        "pid": os.getpid(),
        "socket": server.name,
        "transfer": holds.add(array),
    }


def receive(ipc):
    """A 1-d uint8 device array in this process's current context with the bytes the header `ipc` names, copied
    from the sender's memory under its hold; IpcTransferError where it cannot be. The handle is closed and the
    sender told after this returns (finish_transfers waits for that)."""
    sender = "process %s" % ipc.get("pid")
    started = time.perf_counter()
    if ipc.get("host") != host_identity():
        raise IpcTransferError(
            "a device array sent as a CUDA IPC handle by %s of another host (%s) cannot be opened here (%s): the "
            "sender took this process for one of its own host; set NUMBA_CUDA_C_DASK_IPC=0 on the sending "
            "workers to send arrays as bytes" % (sender, ipc.get("host"), host_identity())
        )
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    conn.settimeout(CONNECT_TIMEOUT_S)
    try:
        try:
            conn.connect("\0" + ipc["socket"])
            conn.sendall(b"claim " + ipc["transfer"].encode("ascii"))
            answer = conn.recv(64)
        except OSError as exc:
            count("ipc failed")
            _Mapped.forget(ipc.get("pid"))  # its slabs mapped here are of a process that is no more
            raise IpcTransferError(
                "the device array's sender (%s of this host) is gone (it exited or restarted: %s); nothing was "
                "read from its memory" % (sender, exc)
            ) from None
        if answer != b"held":
            count("ipc failed")
            raise IpcTransferError(
                "the device array's sender (%s) no longer holds it (not claimed within %.0f s, or claimed "
                "already); nothing was read from its memory" % (sender, UNCLAIMED_HOLD_S)
            )
        slab = _slab_context(ipc)  # a slab this context maps (and keeps): no mapping opened nor closed for it
        if slab is None:
            _mappings.acquire()
    except BaseException:
        conn.close()
        raise
    handle = None
    try:
        copy, handle = _copy_from(ipc, sender, slab)
        if select.select([conn], [], [], 0)[0]:  # the sender never speaks before "done": its end closed
            count("ipc failed")
            _Mapped.forget(ipc.get("pid"))
            raise IpcTransferError(
                "the device array's sender (%s) exited while it was being copied: the copy is discarded" % sender
            )
    except BaseException:
        _finish(conn, sender, handle, told=False, mapping=slab is None)
        raise
    if slab is not None:  # nothing to close: "done" now (one round trip), the region is free for the next array
        _finish(conn, sender, mapping=False)
    else:
        threading.Thread(
            target=_finish, args=(conn, sender, handle), name="numba_cuda_c dask IPC close", daemon=True
        ).start()
    count("ipc received")
    count("ipc bytes received", ipc["size"])
    count("ipc receive seconds", time.perf_counter() - started)
    logger.debug("device array of %d bytes received by CUDA IPC from %s", ipc["size"], sender)
    return copy


def _finish(conn, sender, handle=None, told=True, mapping=True):
    """After a transfer, good or not: closes the mapping, tells the sender "done" (`told`) and waits for its
    "ok", then lets the next transfer open (`mapping`: it held _mappings). Never raises: what fails here cannot
    touch the copy any more."""
    try:
        if handle is not None:
            handle.close()
        if told:
            conn.sendall(b"done")
            if conn.recv(64) != b"ok":
                logger.debug("the sender (%s) exited after its array was copied: nothing was lost", sender)
    except Exception as exc:  # the copy was checked before: a failure here is logged, not raised
        logger.debug("closing a CUDA IPC transfer from %s: %s", sender, exc)
    finally:
        conn.close()
        if mapping:
            _mappings.release()


def _slab_context(ipc):
    """The current context where the header names a slab it can map (its device reaches the slab's), else None."""
    if "slab" not in ipc:
        return None
    from numba_cuda_c import _cuda
    from numba_cuda_c.cudadrv.ipc import IpcHandle, IpcMemHandle

    try:
        context = _cuda.get_context()
        handle = IpcHandle(None, IpcMemHandle(ipc["handle"]), ipc["size"], source_info=dict(ipc["device"]))
        return context if context is not None and handle.can_access_peer(context) else None
    except Exception:  # what the driver says of it is said again, and handled, where the copy is made
        return None


class _Mapped:
    """Slabs of other processes mapped here and kept mapped: (sender pid, slab name, context handle) -> [the
    MemoryPointer, copies reading it now], the least recently used first. At most MOST; one is unmapped only while
    no copy reads it, and all of a sender's once it is known gone."""

    MOST = 16
    table = {}
    lock = threading.Lock()

    @classmethod
    @contextlib.contextmanager
    def use(cls, ipc, context):
        from numba_cuda_c import _cuda
        from numba_cuda_c.cudadrv.ipc import IpcMemHandle

        key = (ipc["pid"], ipc["slab"], context.handle)
        with cls.lock:
            entry = cls.table.pop(key, None)
            if entry is None:  # the first transfer from this slab: mapped once (the driver maps a handle once)
                entry = [_cuda._ipc_open(IpcMemHandle(ipc["handle"]).reserved, context.device.id), 0]
                count("ipc slabs opened")
            cls.table[key] = entry  # the most recently used last
            entry[1] += 1
            cls._trim()
        try:
            yield entry[0].device_pointer
        finally:
            with cls.lock:
                entry[1] -= 1

    @classmethod
    def forget(cls, pid):
        with cls.lock:
            for key in [k for k, e in cls.table.items() if k[0] == pid and e[1] == 0]:
                cls._unmap(key)

    @classmethod
    def forget_dead(cls):
        """Unmaps the slabs of senders that have exited (this host's pid namespace: host_identity)."""
        with cls.lock:
            cls._trim()

    @classmethod
    def _trim(cls):
        for key in [k for k, e in cls.table.items() if e[1] == 0 and not _alive(k[0])]:
            cls._unmap(key)
        idle = [k for k, e in cls.table.items() if e[1] == 0]  # the least recently used first
        for key in idle[: max(0, len(cls.table) - cls.MOST)]:
            cls._unmap(key)

    @classmethod
    def _unmap(cls, key):
        mapped = cls.table.pop(key)[0]
        try:
            mapped.free()
        except Exception as exc:  # the sender's process is gone: what the driver says is only logged
            logger.debug("unmapping a slab of process %s: %s", key[0], exc)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        pass
    return True


def finish_transfers(timeout=None):
    """Waits until this process's received transfers have closed their handles and released their senders'
    holds: True, or False after `timeout` seconds."""
    if not _mappings.acquire(timeout=-1 if timeout is None else timeout):
        return False
    _mappings.release()
    return True


def _copy_from(ipc, sender, slab=None):
    """Opens the handle in this process (or finds the slab it names open in `slab`, a context) and copies the
    bytes into new memory of the current context: (the copy's array, the handle to close once the copy is
    accepted, None where nothing is to be closed)."""
    from numba_cuda_c import _cuda
    from numba_cuda_c.cudadrv.ipc import IpcHandle, IpcMemHandle

    size = ipc["size"]
    try:
        context = _cuda.get_context()
        if slab is not None:
            with _Mapped.use(ipc, slab) as base:
                memory = context.memalloc(size)
                stream = _cuda.stream()
                _cuda._memcpy(2, memory.device_pointer, base + ipc["offset"], size, stream)
                stream.synchronize()
            return _cuda.DeviceNDArray((size,), (1,), "u1", gpu_data=memory), None
        handle = IpcHandle(
            None, IpcMemHandle(ipc["handle"]), size, source_info=dict(ipc["device"]), offset=ipc["offset"]
        )
        if handle.can_access_peer(context):  # mapped here: one device-to-device (peer) copy
            mapped = handle.open_direct(context)
            try:
                memory = context.memalloc(size)
                # a copy between device addresses returns before it is done, whatever the stream: waited for
                # on a stream of its own (not the whole context, which other tasks' work shares), before the
                # copy is accepted and the mapping closed
                stream = _cuda.stream()  # of the current context, `context`
                _cuda._memcpy(2, memory.device_pointer, mapped.device_pointer, size, stream)
                stream.synchronize()
            except BaseException:
                handle.close()
                raise
            opened = handle
        else:  # mapped in the source device's context, copied through the host by the driver, closed
            memory = handle.open_staged(context)
            handle.close()
            opened = None
    except Exception as exc:
        count("ipc failed")
        reason = "%s: %s" % (type(exc).__name__, exc)
        if getattr(exc, "code", None) != 2:  # CUDA_ERROR_OUT_OF_MEMORY: the host path would not fare better
            with _lock:
                _ipc_broken.append(reason)
            logger.warning("CUDA IPC failed here (%s): this process's later connections take the host path", reason)
        raise IpcTransferError(
            "could not open the CUDA IPC handle of a device array from %s of this host (%s); this process now "
            "asks its peers for bytes (set NUMBA_CUDA_C_DASK_IPC=0 to do so from the start)" % (sender, reason)
        ) from exc
    return _cuda.DeviceNDArray((size,), (1,), "u1", gpu_data=memory), opened
