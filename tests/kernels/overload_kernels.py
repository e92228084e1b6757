"""Kernels calling functions implemented with numba's @overload (test_numba_overloads.py): imported only where
numba-cuda is installed, which registers the overloads."""

from numba.cuda.extending import overload


def doubled(x):
    pass


def scaled(x):
    pass


def with_defaults(out, x, y=5, z=6):
    pass


@overload(doubled, target="generic")
def _doubled(x):
    def impl(x):
        x[0] *= 2

    return impl


@overload(scaled, target="generic")
def _scaled_generic(x):
    def impl(x):
        x[0] *= 23

    return impl


@overload(scaled, target="cuda")  # the cuda target's overload wins in kernels
def _scaled_cuda(x):
    def impl(x):
        x[0] *= 29

    return impl


@overload(with_defaults)
def _with_defaults(out, x, y=5, z=6):
    def impl(out, x, y=5, z=6):
        out[0], out[1] = x + y, z

    return impl


def kernel(x, out):
    doubled(x)
    scaled(x)
    with_defaults(out, 1, z=7)
