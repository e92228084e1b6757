"""The Python-kernel compiler: @cuda.jit and compile_ptx."""

from numba_cuda_c.pyjit.dispatcher import Dispatcher, jit, typeof
from numba_cuda_c.pyjit.extern import ExternFunction, declare_device
from numba_cuda_c.pyjit.ptx import (
    compile,
    compile_all,
    compile_for_current_device,
    compile_ptx,
    compile_ptx_for_current_device,
)
from numba_cuda_c.pyjit.typing import KernelTypeError

__all__ = [
    "Dispatcher",
    "compile_all",
    "compile_for_current_device",
    "ExternFunction",
    "declare_device",
    "KernelTypeError",
    "compile",
    "compile_ptx",
    "compile_ptx_for_current_device",
    "jit",
    "typeof",
]
