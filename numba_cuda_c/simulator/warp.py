"""The warp functions in the simulator: syncwarp, shfl_sync and its up/down/xor forms, all/any/eq/ballot_sync,
match_any/match_all_sync, activemask, lanemask_lt. A warp is 32 threads of consecutive linear index in a block; a
call with a mask meets the other lanes of the mask at a barrier of the block and reads what each brought. Lanes
that have ended are not waited for (a shuffle from one gives the caller's own value). Relies on threads.py."""

import numpy as np

from numba_cuda_c.simulator.threads import WARP_SIZE, current

FULL_MASK = 0xFFFFFFFF


def _exchange(mask, value):
    """Meets the lanes of `mask` in the caller's warp; returns the caller and {lane: value} of the lanes met."""
    t = current()
    mask = int(mask) & FULL_MASK
    met = t.block.meet(t, ("warp", t.warp, mask), value, t.block.warp_members(t.warp, mask))
    first = t.warp * WARP_SIZE
    return t, {tid - first: v for tid, v in met.items()}


def syncwarp(mask=FULL_MASK):
    """A barrier for the lanes of the mask."""
    _exchange(mask, None)


def _shuffle(mask, value, source):
    t, values = _exchange(mask, value)
    lane = source(t.lane)
    return values.get(lane, value) if 0 <= lane < WARP_SIZE else value


def shfl_sync(mask, value, src_lane):
    """value of lane src_lane (mod 32)."""
    return _shuffle(mask, value, lambda lane: int(src_lane) % WARP_SIZE)


def shfl_up_sync(mask, value, delta):
    """value of lane (own - delta); lanes below delta keep their own."""
    return _shuffle(mask, value, lambda lane: lane - int(delta))


def shfl_down_sync(mask, value, delta):
    """value of lane (own + delta); lanes past the warp's end keep their own."""
    return _shuffle(mask, value, lambda lane: lane + int(delta))


def shfl_xor_sync(mask, value, lane_mask):
    """value of lane (own ^ lane_mask)."""
    return _shuffle(mask, value, lambda lane: lane ^ int(lane_mask))


def all_sync(mask, predicate):
    return all(_exchange(mask, bool(predicate))[1].values())


def any_sync(mask, predicate):
    return any(_exchange(mask, bool(predicate))[1].values())


def eq_sync(mask, predicate):
    """True if the predicate is true in every lane met, or false in every one."""
    return len(set(_exchange(mask, bool(predicate))[1].values())) == 1


def _lanes(lanes):
    return np.uint32(sum(1 << lane for lane in lanes))


def ballot_sync(mask, predicate):
    """The mask of the lanes met whose predicate is true."""
    return _lanes(lane for lane, v in _exchange(mask, bool(predicate))[1].items() if v)


def match_any_sync(mask, value):
    """The mask of the lanes met whose value equals the caller's."""
    return _lanes(lane for lane, v in _exchange(mask, value)[1].items() if v == value)


def match_all_sync(mask, value):
    """(mask of the lanes met, True) if they all have the caller's value, else (0, False)."""
    values = _exchange(mask, value)[1]
    if all(v == value for v in values.values()):
        return _lanes(values), True
    return np.uint32(0), False


def activemask():
    """The mask of the caller's warp's lanes that are still running."""
    t = current()
    return np.uint32(t.block.live_lanes(t.warp))


def lanemask_lt():
    """The mask of the lanes below the caller's."""
    return np.uint32((1 << current().lane) - 1)
