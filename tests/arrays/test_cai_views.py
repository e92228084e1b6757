"""Foreign views through __cuda_array_interface__ with negative strides (issue 10, item 20): a reversed
view (d[::-1], CuPy's flipped arrays) is not a new allocation; its extent runs from its lowest byte to its
highest, and copies give NumPy's values."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import requires_gpu


def desc(shape, strides, pointer=1 << 40, typestr="<f8"):
    return {"shape": shape, "strides": strides, "data": (pointer, False), "typestr": typestr, "version": 3}


@pytest.mark.parametrize("shape, strides", [((4,), (-8,)), ((3, 4), (32, -16)), ((2, 3), (-24, -8))])
def test_negative_strides_are_accepted_for_a_foreign_view(shape, strides):
    # the layout is accepted; without a GPU the next step (the current context) is what fails. On a GPU
    # the pointer must lie in an allocation (foreign.c): the middle of one, where the strides reach both ways.
    if not cuda.is_available():
        with pytest.raises(cuda.CudaSupportError):
            cuda.from_cuda_array_interface(desc(shape, strides), sync=False)
        return
    base = cuda.device_array(64, np.float64)
    view = cuda.from_cuda_array_interface(desc(shape, strides, base.device_ctypes_pointer.value + 256), sync=False)
    assert view.shape == shape and view.strides == strides
    with pytest.raises(ValueError, match="no CUDA allocation"):
        cuda.from_cuda_array_interface(desc(shape, strides), sync=False)  # 1 << 40: no allocation of ours


@pytest.mark.parametrize(
    "shape, strides, pointer",
    [((4,), (-8,), 16), ((2, 3), (-24, -8), 8), ((2,), (8,), 2**64 - 8)],
)
def test_a_view_reaching_outside_the_address_space_is_refused(shape, strides, pointer):
    with pytest.raises(ValueError, match="address space"):
        cuda.from_cuda_array_interface(desc(shape, strides, pointer), sync=False)


@pytest.mark.parametrize("shape, strides", [((2**62,), (-8,)), ((2**40, 2**40), (2**30, -(2**30)))])
def test_an_extent_that_overflows_is_refused(shape, strides):
    with pytest.raises(ValueError, match="span more bytes|too big"):
        cuda.from_cuda_array_interface(desc(shape, strides), sync=False)


def test_a_new_allocation_still_refuses_negative_strides():
    with pytest.raises(ValueError, match="negative strides"):
        cuda.device_array((4,), np.float64, strides=(-8,))


class Foreign:
    """Another library's array: only the interface, and the object that keeps the memory alive."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


VIEWS = {
    "[::-1]": lambda a: a[::-1],
    "[:, ::-2]": lambda a: a[:, ::-2],
    "[::-2, ::-3]": lambda a: a[::-2, ::-3],
    "[::-1, ::-1]": lambda a: a[::-1, ::-1],
    "[1:, ::-1][::2]": lambda a: a[1:, ::-1][::2],
}


@requires_gpu
@pytest.mark.parametrize("view", list(VIEWS), ids=list(VIEWS))
def test_reversed_views_through_the_interface_copy_numpys_values(view):
    host = np.arange(48, dtype=np.float64).reshape(6, 8)
    d = cuda.to_device(host)
    expected = VIEWS[view](host)
    ours = VIEWS[view](d)
    assert ours.strides == expected.strides
    for imported in (
        cuda.as_cuda_array(Foreign(ours)),
        cuda.from_cuda_array_interface(ours.__cuda_array_interface__, owner=ours),
    ):
        assert imported.shape == expected.shape and imported.strides == expected.strides
        assert imported.device_pointer == ours.device_pointer
        assert imported.alloc_size == ours.alloc_size
        np.testing.assert_array_equal(imported.copy_to_host(), expected)
        out = np.zeros_like(expected)
        imported.copy_to_host(out)
        np.testing.assert_array_equal(out, expected)


@requires_gpu
def test_writing_through_a_reversed_foreign_view():
    host = np.arange(20, dtype=np.int32).reshape(4, 5)
    d = cuda.to_device(host)
    imported = cuda.as_cuda_array(Foreign(d[:, ::-2]))
    values = -np.arange(12, dtype=np.int32).reshape(4, 3)
    imported.copy_to_device(values)
    host[:, ::-2] = values
    np.testing.assert_array_equal(d.copy_to_host(), host)
