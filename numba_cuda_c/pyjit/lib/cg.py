"""Cooperative groups (numba's cuda.cg): this_grid() and GridGroup.sync(). A kernel that uses them is
launched cooperatively (cuLaunchCooperativeKernel), so all its blocks are resident and a grid-wide
barrier cannot deadlock."""

from numba_cuda_c import types
from numba_cuda_c.pyjit.lib.table import Intrinsic, Requirement

GridGroup = types.Opaque("GridGroup", "ncc_grid_group")

Requirement(
    "cooperative_groups",
    """#include <cooperative_groups.h>
// numba's GridGroup: the grid of a cooperative launch; sync() is a grid-wide barrier that also makes
// every thread's writes visible to the others
struct ncc_grid_group {
    __device__ void sync() const { cooperative_groups::this_grid().sync(); }
};
""",
    launch=("cooperative",),
)


def _no_arguments(name, method=False):
    """A typing rule for no arguments (a method's args start with the value it is of)."""

    def typing(args):
        if len(args) > method:
            raise TypeError("%s() takes no arguments" % name)
        return None

    return typing


Intrinsic(
    ("cg", "this_grid"),
    lambda args: _no_arguments("cuda.cg.this_grid")(args) or GridGroup,
    lambda codes, args, result: "ncc_grid_group{}",
    requires=("cooperative_groups",),
    doc="The grid of all threads of this (cooperative) launch.",
)

Intrinsic(
    ("GridGroup", "sync"),
    _no_arguments("GridGroup.sync", method=True),
    lambda codes, args, result: "%s.sync()" % codes[0],
    requires=("cooperative_groups",),
    doc="A barrier across the whole grid.",
)
