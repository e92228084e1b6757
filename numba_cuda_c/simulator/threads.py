"""The simulator's CUDA threads: one Python thread per CUDA thread of a block, the blocks of a grid one after
another. Owns who the calling thread is (current()), the meeting points of a block (syncthreads and the warp
functions), its shared memory, and how one thread's exception ends the launch. Relies on threading and NumPy."""

import threading
from collections import namedtuple

import numpy as np

WARP_SIZE = 32

_local = threading.local()  # .thread: the CudaThread that the calling Python thread simulates


class Dim3(namedtuple("Dim3", "x y z")):
    """threadIdx, blockIdx, blockDim, gridDim: three ints."""

    __slots__ = ()

    def __str__(self):
        return "(%d, %d, %d)" % self


class KernelAborted(BaseException):
    """Ends the other threads of a launch that one thread's exception (or a deadlock) has ended. A BaseException,
    so that a kernel's own `except Exception` does not catch it."""


class CudaThread:
    """Who a simulated thread is: its indices, its block, and its place in a warp."""

    __slots__ = ("threadIdx", "blockIdx", "blockDim", "gridDim", "block", "tid", "warp", "lane")

    def __init__(self, block, threadIdx, tid):
        self.threadIdx, self.blockIdx, self.block, self.tid = threadIdx, block.blockIdx, block, tid
        self.blockDim, self.gridDim = block.blockDim, block.gridDim
        self.warp, self.lane = divmod(tid, WARP_SIZE)

    def where(self):
        """numba's simulator's words for a thread: tid=[x, y, z] ctaid=[x, y, z]."""
        return "tid=%s ctaid=%s" % (list(self.threadIdx), list(self.blockIdx))


def current():
    """The simulated CUDA thread that calls: the device-side names (cuda.threadIdx, cuda.syncthreads, ...) read
    it, so that each Python thread sees its own values without any swapping of the kernel's globals."""
    thread = getattr(_local, "thread", None)
    if thread is None:
        raise RuntimeError(
            "this is a device function: call it inside a kernel (@cuda.jit) launched in the CUDA " "simulator"
        )
    return thread


def in_kernel():
    return getattr(_local, "thread", None) is not None


class _Meeting:
    """One use of a barrier: who is still awaited, what each arrival brought, and whether it has opened."""

    __slots__ = ("awaited", "values", "opened", "sleepers", "wakeup")

    def __init__(self, awaited, lock):
        self.awaited, self.values, self.opened, self.sleepers = awaited, {}, False, 0
        self.wakeup = threading.Condition(lock)


class Block:
    """A thread block being run: its threads, its shared memory, and its barriers.

    A barrier (syncthreads: the block; a warp function: the warp's lanes in the mask) opens when every thread it
    awaits has arrived or has ended: as in numba's simulator, a thread that returned early is not waited for. If
    every running thread waits at a barrier that cannot open, the launch ends with a deadlock error instead of
    hanging."""

    def __init__(self, launch, blockIdx):
        self.blockIdx, self.blockDim, self.gridDim = blockIdx, launch.blockDim, launch.gridDim
        self.size = launch.blockDim.x * launch.blockDim.y * launch.blockDim.z
        self.lock = threading.Lock()
        self.alive = set(range(self.size))
        self.blocked = 0  # threads asleep at a barrier that has not opened
        self.meetings = {}  # key -> the _Meeting gathering there now
        self.failure = None  # (CudaThread or None, exception): what ended the block
        self.shared = {}  # call site of cuda.shared.array -> the block's array
        self.dynamic_shared = np.zeros(launch.sharedmem, dtype=np.uint8)
        self._warp_members = {}

    # -- running -------------------------------------------------------------------------------------------------

    def run(self, function, args, debug=False):
        """Runs every thread of the block to its end; raises what the first failing thread raised, renamed with
        its indices as numba's simulator does."""
        bx, by, _ = self.blockDim
        threads = []
        for tid in range(self.size):
            x, rest = tid % bx, tid // bx
            cuda_thread = CudaThread(self, Dim3(x, rest % by, rest // by), tid)
            threads.append(
                threading.Thread(
                    target=self._thread_main,
                    args=(cuda_thread, function, args, debug),
                    name="cuda%s" % (cuda_thread.where(),),
                    daemon=True,
                )
            )
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self.failure is not None:
            raise _renamed(*self.failure)

    def _thread_main(self, cuda_thread, function, args, debug):
        _local.thread = cuda_thread
        try:
            if self.failure is None:
                if debug:  # numba's simulator: with debug=True, a division by zero raises
                    with np.errstate(divide="raise"):
                        function(*args)
                else:
                    function(*args)
        except KernelAborted:
            pass
        except BaseException as error:  # noqa: BLE001 - handed to the launching thread
            self._fail(cuda_thread, error)
        finally:
            self._leave(cuda_thread.tid)
            _local.thread = None

    def _fail(self, cuda_thread, error):
        with self.lock:
            if self.failure is None:
                self.failure = (cuda_thread, error)
            self._wake_all()

    def _wake_all(self):
        for meeting in self.meetings.values():
            meeting.wakeup.notify_all()

    def _leave(self, tid):
        """A thread has ended: the barriers stop waiting for it."""
        with self.lock:
            self.alive.discard(tid)
            for key, meeting in list(self.meetings.items()):
                meeting.awaited.discard(tid)
                if not meeting.awaited:
                    self._open(key, meeting)
            self._check_deadlock()

    # -- barriers ------------------------------------------------------------------------------------------------

    def meet(self, cuda_thread, key, value, members=None):
        """Waits at barrier `key` until every thread of `members` (default: the whole block) that is still running
        has arrived; returns {tid: value} of all who arrived."""
        with self.lock:
            if self.failure is not None:
                raise KernelAborted
            meeting = self.meetings.get(key)
            if meeting is None:
                awaited = set(self.alive) if members is None else self.alive & members
                meeting = self.meetings[key] = _Meeting(awaited, self.lock)
            meeting.values[cuda_thread.tid] = value
            meeting.awaited.discard(cuda_thread.tid)
            if not meeting.awaited:
                self._open(key, meeting)
                return meeting.values
            meeting.sleepers += 1
            self.blocked += 1
            self._check_deadlock()
            while not meeting.opened and self.failure is None:
                meeting.wakeup.wait()
            if not meeting.opened:
                raise KernelAborted
            return meeting.values

    def _open(self, key, meeting):
        meeting.opened = True
        del self.meetings[key]  # the next arrival at this barrier starts its next use
        self.blocked -= meeting.sleepers
        meeting.wakeup.notify_all()

    def _check_deadlock(self):
        if self.failure is None and self.alive and self.blocked == len(self.alive):
            waits = ", ".join(
                "%s (threads %s)" % (_describe(key), sorted(m.values)[:8]) for key, m in self.meetings.items()
            )
            self.failure = (
                None,
                RuntimeError(
                    "deadlock in block ctaid=%s: every running thread waits at a barrier that the others will not "
                    "reach: %s" % (list(self.blockIdx), waits)
                ),
            )
            self._wake_all()

    def warp_members(self, warp, mask):
        """The threads of the block that are lanes of `warp` named in `mask`."""
        members = self._warp_members.get((warp, mask))
        if members is None:
            first = warp * WARP_SIZE
            members = frozenset(
                first + lane for lane in range(WARP_SIZE) if mask >> lane & 1 and first + lane < self.size
            )
            self._warp_members[(warp, mask)] = members
        return members

    def live_lanes(self, warp):
        """The mask of the lanes of `warp` whose threads are still running."""
        first = warp * WARP_SIZE
        with self.lock:
            return sum(1 << (tid - first) for tid in self.alive if first <= tid < first + WARP_SIZE)

    # -- shared memory -------------------------------------------------------------------------------------------

    def shared_array(self, site, shape, dtype):
        """The block's array made at this call site: every thread of the block gets the same one, as CUDA's
        static shared memory is one per block for each declaration."""
        with self.lock:
            array = self.shared.get(site)
            if array is None:
                array = self.shared[site] = np.empty(shape, dtype)
        return array


def _describe(key):
    return "syncthreads" if key == "block" else "a warp function of warp %d (mask %#x)" % key[1:]


def _renamed(cuda_thread, error):
    """The exception a thread raised, as the launch raises it: its message names the thread and block."""
    if cuda_thread is None:
        return error
    text = str(error)
    message = "%s: %s" % (cuda_thread.where(), text) if text else cuda_thread.where()
    try:
        renamed = type(error)(message)
    except Exception:  # noqa: BLE001 - a class whose constructor takes other arguments
        renamed = RuntimeError("%s: %s: %s" % (cuda_thread.where(), type(error).__name__, text))
    return renamed.with_traceback(error.__traceback__)
