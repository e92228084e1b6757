"""Globals a kernel reads, as numba-cuda captures them: a NumPy array's values at compile time (in
constant memory), a device array by pointer (its later contents are seen; the kernel keeps it alive, and
no disk cache hands the pointer to another process), and a @numba.jit function called as a device
function. Translation checked on the mock driver; results on the GPU."""

import numpy as np

import numba_cuda_c as cuda
from gpu import requires_gpu
from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)
from numba_cuda_c.pyjit import module, specialiser

TAX_RATE = 0.08
PRICES = np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float64)


def totals_kernel(quantities, totals):
    i = cuda.grid(1)
    if i < totals.size:
        totals[i] = quantities[i] * PRICES[i] * (1 + TAX_RATE)


def test_capture_mark_is_shared():
    assert specialiser._CAPTURES_MARK == module.CAPTURES_DEVICE_MEMORY


def test_global_arrays_in_the_translation(mock_driver):
    out = run_mock(r"""
import os, runpy, tempfile, textwrap, gc, weakref
source = textwrap.dedent('''
import numpy as np
import numba_cuda_c as cuda
PRICES = np.array([10.0, 25.0, 5.0])
DEVICE = cuda.to_device(np.array([1.0, 2.0], dtype=np.float32))

class CPUDispatcher:  # how numba's @jit functions look to a kernel: a py_func
    def __init__(self, f):
        self.py_func = f

def logic(x, y):
    return 4 * x - y

business = CPUDispatcher(logic)

def kernel(q, t):
    i = cuda.grid(1)
    if i < t.size:
        t[i] = q[i] * PRICES[i] + DEVICE[i % 2] + business(q[i], 1.0)
''')
path = os.path.join(tempfile.mkdtemp(), "globals_mod.py")
open(path, "w").write(source)
mod = runpy.run_path(path)
k = cuda.jit(mod["kernel"])
k[1, 4](np.ones(3), np.zeros(3))
(text,) = k.inspect_source().values()
assert text.startswith("// numba_cuda_c: captures device memory by pointer"), text[:80]
bits = ", ".join("%dull" % v for v in np.array([10.0, 25.0, 5.0]).view(np.uint64))  # exact, NaN too
assert "__constant__ unsigned long long ncc_const_1[3] = {%s};" % bits in text, text
pointer = mod["DEVICE"].device_ctypes_pointer.value
assert "(float *)0x%xULL, {2LL}, {4LL}" % pointer in text
assert "__device__ double ncc_dev_logic" in text
watch = weakref.ref(mod["DEVICE"])
mod["DEVICE"] = None
del mod
gc.collect()
assert watch() is not None  # the kernel keeps the captured array alive
print("globals ok")
""")
    assert "globals ok" in out


@requires_gpu
def test_global_values_are_captured_at_compile_time():
    global TAX_RATE
    kernel = cuda.jit(totals_kernel)
    quantities = cuda.to_device(np.arange(1.0, 6.0))
    totals = cuda.device_array(5)
    kernel[1, 32](quantities, totals)
    saved = PRICES.copy(), TAX_RATE
    try:
        PRICES[:] = 0
        TAX_RATE = 1.0
        kernel[1, 32](quantities, totals)  # compiled already: the values it captured
    finally:
        PRICES[:], TAX_RATE = saved
    np.testing.assert_allclose(totals.copy_to_host(), [10.8, 54.0, 16.2, 64.8, 162.0])


@requires_gpu
def test_global_device_array_is_read_by_pointer():
    prices = cuda.to_device(np.array([10.0, 25.0, 5.0], dtype=np.float32))

    @cuda.jit
    def kernel(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = prices[i]

    out = cuda.device_array(3, dtype=np.float32)
    kernel[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), [10.0, 25.0, 5.0])
    prices.copy_to_device(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    kernel[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), [1.0, 2.0, 3.0])


def test_a_global_with_the_interface_on_the_object_is_captured(mock_driver):
    """numba's testing ForeignArray sets __cuda_array_interface__ on the instance: read through a device
    function, it is captured by pointer as a device array is."""
    out = run_mock(r"""
import runpy, tempfile, textwrap, os
path = os.path.join(tempfile.mkdtemp(), "foreign_mod.py")
open(path, "w").write(textwrap.dedent('''
    import numba_cuda_c as cuda

    class Foreign:
        def __init__(self, arr):
            self._arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    def make(global_array):
        @cuda.jit(device=True)
        def read_global(idx):
            return global_array[idx]

        @cuda.jit
        def kernel(output):
            i = cuda.grid(1)
            if i < output.size:
                output[i] = read_global(i)
        return kernel
'''))
mod = runpy.run_path(path)
d = cuda.to_device(np.arange(5, dtype=np.float32))
k = mod["make"](mod["Foreign"](d))
k[1, 8](cuda.device_array(5, np.float32))
(text,) = k.inspect_source().values()
assert "(float *)0x%xULL" % d.device_ctypes_pointer.value in text, text
print("ok")
""")
    assert out.strip().endswith("ok")
