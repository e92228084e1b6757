"""The Python-kernel compiler: @cuda.jit and compile_ptx."""

import os
import re

from numba_cuda_c import _cuda, compiler, types
from numba_cuda_c.pyjit.dispatcher import Dispatcher, jit, normalise, nvrtc_options, typeof
from numba_cuda_c.pyjit.extern import ExternFunction, declare_device
from numba_cuda_c.pyjit.typing import KernelTypeError


def _default_cc():
    """NUMBA_CUDA_DEFAULT_PTX_CC, else the lowest architecture the NVRTC in use supports."""
    text = os.environ.get("NUMBA_CUDA_DEFAULT_PTX_CC")
    if text:
        return _parse_cc(text, "NUMBA_CUDA_DEFAULT_PTX_CC")
    return _cuda.nvrtc_supported_archs()[0]


def _parse_cc(text, variable):
    """'7.5' (or '8') from the environment variable `variable` as (major, minor); ValueError naming it."""
    major, dot, minor = text.strip().partition(".")
    if not major.isdigit() or (dot and not minor.isdigit()) or not major.isascii() or not minor.isascii():
        raise ValueError(
            "%s=%r is not a compute capability: expected 'major.minor' in decimal digits, e.g. '7.5'"
            % (variable, text)
        )
    return int(major), int(minor or 0)


def compile_ptx(
    pyfunc, args, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True, abi="c",
    forceinline=False, launch_bounds=None,
):
    """Compile a Python function to PTX for the given argument types; no GPU needed.

    Returns (ptx, return_type). Kernels return void; a device function's return type is inferred.
    launch_bounds: a kernel's, as @cuda.jit takes them. forceinline is accepted: a device function
    compiled alone is emitted whole (the kernels that call it inline it where @cuda.jit asks).
    """
    from numba_cuda_c.pyjit.dispatcher import _check_options

    checked = {"launch_bounds": launch_bounds} if launch_bounds is not None else {}
    _check_options(checked)
    pyfunc = getattr(pyfunc, "py_func", pyfunc)  # a @cuda.jit dispatcher compiles its Python function
    from numba_cuda_c.pyjit.translate import translate_device, translate_kernel

    sig = types.parse_signature(args)
    argtypes = normalise(sig.args)
    externs = []  # declared device functions called: defined elsewhere, so the code is relocatable
    name = re.sub(r"\W", "_", pyfunc.__name__)  # a C identifier: <lambda> too
    if device:
        source, resty = translate_device(pyfunc, argtypes, name, externs)
    else:
        bounds = checked.get("launch_bounds")
        source, resty = translate_kernel(pyfunc, argtypes, name, externs, launch_bounds=bounds), types.void
    options = nvrtc_options(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt)
    if device or externs:
        options.append("-rdc=true")  # keep the device function, which nothing in the module calls
    ptx = compiler.compile_image(
        source, options, arch=tuple(cc or _default_cc()), name=pyfunc.__name__ + ".cu", ptx=True
    )
    return ptx.decode(), resty


def compile_ptx_for_current_device(
    pyfunc, args, debug=False, lineinfo=False, device=False, fastmath=False, opt=True, abi="c"
):
    """compile_ptx for the current device's compute capability."""
    cc = compiler.default_arch()
    return compile_ptx(
        pyfunc, args, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt
    )


def compile(
    pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True, abi="c", output="ptx",
    forceinline=False, launch_bounds=None,
):
    """numba-cuda's compile(): PTX (output='ptx') and the return type."""
    if output != "ptx":
        raise NotImplementedError("compile(output=%r): only 'ptx' is supported" % output)
    return compile_ptx(
        pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
        forceinline=forceinline, launch_bounds=launch_bounds,
    )


def compile_for_current_device(
    pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, opt=True, abi="c", output="ptx"
):
    """numba-cuda's compile_for_current_device(): compile() for the current device's capability."""
    return compile(
        pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
        cc=compiler.default_arch(), opt=opt, abi=abi, output=output,
    )


__all__ = [
    "Dispatcher",
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
