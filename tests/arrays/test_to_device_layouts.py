"""to_device of broadcast arrays, as numba sends them: the repeated data once, the zero strides kept
(numba's _numba_type_ layout 'A'); and a read-only NumPy kernel argument is not copied back. On the
mock driver."""

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)


def test_broadcast_arrays_keep_their_zero_strides(mock_driver):
    out = run_mock(r"""
a = np.broadcast_to(np.array([1.5, 2.5]), (1000, 2))
d = cuda.to_device(a)
assert d.shape == (1000, 2) and d.strides == (0, 8) and d.alloc_size == 16, (d.strides, d.alloc_size)
assert d._numba_type_.layout == "A"
np.testing.assert_array_equal(d.copy_to_host(), a)
b = np.broadcast_to(np.arange(3.0)[:, None], (3, 5))
s = cuda.stream()
d = cuda.to_device(b, stream=s)
s.synchronize()
assert d.strides == (8, 0) and d.alloc_size == 24
np.testing.assert_array_equal(d.copy_to_host(), b)
scalar = cuda.to_device(np.broadcast_to(np.float32(7), (10**6,)))
assert scalar.alloc_size == 4 and scalar[123456] == 7
empty = cuda.to_device(np.broadcast_to(np.array([1.0]), (0, 3)))
assert empty.shape == (0, 3)
print("broadcast ok")
""")
    assert "broadcast ok" in out


def test_read_only_kernel_argument_is_not_copied_back(mock_driver):
    out = run_mock(r"""
from numba_cuda_c import _cuda
ptx = b'''
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p) { ret; }
'''
kernel = _cuda._load_module_image(ptx).get_function("k")
readonly = np.arange(4.0)
readonly.flags.writeable = False
kernel[1, 1](readonly)                               # no copy back into it: no error
kernel[1, 1](np.broadcast_to(np.array(3.0), (8,)))   # a broadcast is read-only too
writable = np.arange(4.0)
kernel[1, 1](writable)
print("read-only ok")
""")
    assert "read-only ok" in out
